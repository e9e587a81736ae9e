/*
** bloom-dqlite-node: a dqlite node with the bloom extension compiled in.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   bloom-dqlite-node --id 1 --address 10.0.0.1:9001 --dir /var/lib/bloom1
**   bloom-dqlite-node --id 2 --address 10.0.0.2:9001 --dir /var/lib/bloom2 \
**       --join 10.0.0.1:9001
**
** dqlite replicates the pages a write changes, not the SQL, so every node
** runs the same SQLite with the same functions: the extension is registered
** with sqlite3_auto_extension before the node exists, and then every
** connection dqlite opens, on whichever node leads, has bloom_build,
** bloom_store and the rest.  load_extension() is no way in: dqlite's
** connections refuse it.  The node reaches the extension only through its
** entry point.
**
** Node 1 bootstraps a new cluster; any other node is added through the
** leader with the protocol's ADD and ASSIGN requests (wire.c), which the
** stock `dqlite` shell cannot send.  A node restarted on its old --dir is
** already a member and finds that out from the leader.
*/
#define _POSIX_C_SOURCE 200809L
#include <dqlite.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dqlite/wire.h"

int sqlite3_bloom_init(sqlite3 *db, char **err, const sqlite3_api_routines *api);

static const char *prog = "bloom-dqlite-node";

static void usage(FILE *out) {
  fprintf(out,
          "usage: %s --id N --address HOST:PORT --dir DIR [--join HOST:PORT[,HOST:PORT...]]\n"
          "          [--latency-ms MS] [--join-timeout S]\n"
          "  --id           this node's id, fixed for its life; 1 bootstraps a new cluster\n"
          "  --address      where clients and the other nodes reach this node\n"
          "  --dir          the node's data (created if missing; keep it to restart the node)\n"
          "  --join         members of the cluster to join (any of them; the leader is found)\n"
          "  --latency-ms   one-way network latency (default 20): the election timeout is\n"
          "                 15 times it (300 ms), the heartbeat 1.5 times\n"
          "  --join-timeout seconds to keep trying to join (default 30)\n",
          prog);
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", prog);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 1;
}

static int parse_u64(const char *s, unsigned long long lo, unsigned long long hi,
                     unsigned long long *out) {
  char *end;
  errno = 0;
  if (*s == '\0' || *s == '-') return -1;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

/* A host:port this machine can resolve, else a sentence naming it. */
static int check_address(const char *what, const char *address) {
  char host[256], port[8];
  if (wire_split_address(address, host, sizeof host, port, sizeof port) != 0)
    return fail("%s %s: not HOST:PORT with a port from 1 to 65535", what, address);
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  struct addrinfo *res;
  int rc = getaddrinfo(host, port, &hints, &res);
  if (rc != 0) return fail("%s %s: cannot resolve %s: %s", what, address, host,
                           gai_strerror(rc));
  freeaddrinfo(res);
  return 0;
}

/* The data directory, created if missing (one level, as mkdir does). */
static int check_dir(const char *dir) {
  struct stat st;
  if (stat(dir, &st) != 0) {
    if (errno != ENOENT || mkdir(dir, 0750) != 0)
      return fail("--dir %s: %s", dir, strerror(errno));
  } else if (!S_ISDIR(st.st_mode)) {
    return fail("--dir %s: not a directory", dir);
  }
  if (access(dir, R_OK | W_OK | X_OK) != 0)
    return fail("--dir %s: %s", dir, strerror(errno));
  return 0;
}

static sigset_t stop_signals;

/* True once SIGTERM or SIGINT is pending (they stay blocked: see main). */
static int stop_requested(void) {
  struct timespec zero = {0, 0};
  return sigtimedwait(&stop_signals, NULL, &zero) > 0;
}

static void nap_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* One attempt through one member: find the leader, then make this node a
** voter (ADD if the leader does not list it, ASSIGN if it is not a voter).
** 1 joined, 0 try again, with err saying why not. */
static int join_through(const char *member, unsigned long long id,
                        const char *address, char *err, size_t errlen) {
  char leader[256] = "";
  int fd = wire_connect(member, 2000, err, errlen);
  if (fd < 0) return 0;
  int rc = wire_leader(fd, leader, sizeof leader, err, errlen);
  close(fd);
  if (rc != 0) return 0;
  if (leader[0] == '\0') {
    snprintf(err, errlen, "%s knows no leader", member);
    return 0;
  }
  /* A promotion waits for the new voter to catch up: allow it time. */
  fd = wire_connect(leader, 30000, err, errlen);
  if (fd < 0) return 0;
  struct wire_member members[64];
  size_t n = 0;
  int joined = 0;
  if (wire_cluster(fd, members, 64, &n, err, errlen) != 0) goto out;
  const struct wire_member *self = NULL;
  for (size_t i = 0; i < n && i < 64; i++)
    if (members[i].id == id) self = &members[i];
  if (self != NULL && strcmp(self->address, address) != 0) {
    snprintf(err, errlen, "the cluster knows node %llu at %s, not at %s", id,
             self->address, address);
    joined = -1;
    goto out;
  }
  if (self == NULL && wire_add(fd, id, address, err, errlen) != 0) goto out;
  if ((self == NULL || self->role != WIRE_VOTER) &&
      wire_assign(fd, id, WIRE_VOTER, err, errlen) != 0)
    goto out;
  joined = 1;
out:
  close(fd);
  return joined;
}

/* Tries every member of the comma-separated list until one attempt joins,
** SIGTERM arrives or timeout_s passes. */
static int join(const char *list, unsigned long long id, const char *address,
                unsigned long long timeout_s) {
  char err[512] = "no member answered";
  time_t deadline = time(NULL) + (time_t)timeout_s;
  char *copy = strdup(list);
  if (copy == NULL) return fail("out of memory");
  int rc = -1;
  while (rc < 0 && !stop_requested()) {
    strcpy(copy, list);
    char *save = NULL;
    for (char *m = strtok_r(copy, ",", &save); m != NULL && rc < 0;
         m = strtok_r(NULL, ",", &save)) {
      int r = join_through(m, id, address, err, sizeof err);
      if (r == 1) rc = 0;
      if (r < 0) rc = 1;
    }
    if (rc < 0 && time(NULL) >= deadline) break;
    if (rc < 0) nap_ms(200);
  }
  free(copy);
  if (rc != 0)
    return fail("cannot join the cluster through --join %s: %s", list, err);
  return 0;
}

int main(int argc, char **argv) {
  unsigned long long id = 0, latency_ms = 20, join_timeout = 30;
  const char *address = NULL, *dir = NULL, *join_list = NULL;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    }
    if (i + 1 >= argc) {
      usage(stderr);
      return fail("%s: needs a value", a);
    }
    const char *v = argv[++i];
    if (strcmp(a, "--id") == 0) {
      if (parse_u64(v, 1, ~0ULL, &id) != 0) return fail("--id %s: not a positive integer", v);
    } else if (strcmp(a, "--address") == 0) {
      address = v;
    } else if (strcmp(a, "--dir") == 0) {
      dir = v;
    } else if (strcmp(a, "--join") == 0) {
      join_list = v;
    } else if (strcmp(a, "--latency-ms") == 0) {
      if (parse_u64(v, 1, 3600000, &latency_ms) != 0)
        return fail("--latency-ms %s: not from 1 to 3600000", v);
    } else if (strcmp(a, "--join-timeout") == 0) {
      if (parse_u64(v, 1, 86400, &join_timeout) != 0)
        return fail("--join-timeout %s: not from 1 to 86400 seconds", v);
    } else {
      usage(stderr);
      return fail("unknown option %s", a);
    }
  }
  if (id == 0 || address == NULL || dir == NULL) {
    usage(stderr);
    return fail("--id, --address and --dir are required");
  }
  if (check_address("--address", address) != 0 || check_dir(dir) != 0) return 1;
  if (join_list != NULL) {
    char *copy = strdup(join_list), *save = NULL;
    if (copy == NULL) return fail("out of memory");
    for (char *m = strtok_r(copy, ",", &save); m != NULL; m = strtok_r(NULL, ",", &save))
      if (check_address("--join", m) != 0) {
        free(copy);
        return 1;
      }
    free(copy);
  } else if (id != 1) {
    fprintf(stderr, "%s: note: node %llu without --join serves only if %s already "
            "holds a member of a cluster\n", prog, id, dir);
  }

  /* A peer that dies mid-write must cost a connection, not the process:
  ** without this, killing the leader killed the survivors with SIGPIPE. */
  signal(SIGPIPE, SIG_IGN);
  /* Blocked before dqlite starts its thread, which inherits the mask, so
  ** that only main's sigwait sees them. */
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

  int rc = sqlite3_auto_extension((void (*)(void))sqlite3_bloom_init);
  if (rc != SQLITE_OK) return fail("cannot register the extension: %s", sqlite3_errstr(rc));

  dqlite_node *node = NULL;
  rc = dqlite_node_create(id, address, dir, &node);
  if (rc != 0) {
    fail("cannot create node %llu at %s in %s: %s", id, address, dir,
         node != NULL ? dqlite_node_errmsg(node) : "out of memory");
    if (node != NULL) dqlite_node_destroy(node);
    return 1;
  }
  if ((rc = dqlite_node_set_bind_address(node, address)) != 0) {
    const char *why = dqlite_node_errmsg(node);
    fail("--address %s: cannot listen there: %s", address,
         why != NULL && why[0] != '\0' ? why
                                        : "in use, or not an address of this machine");
    dqlite_node_destroy(node);
    return 1;
  }
  if ((rc = dqlite_node_set_network_latency_ms(node, (unsigned)latency_ms)) != 0) {
    fail("--latency-ms %llu refused by dqlite", latency_ms);
    dqlite_node_destroy(node);
    return 1;
  }
  if ((rc = dqlite_node_start(node)) != 0) {
    fail("cannot start node %llu at %s with data in %s: %s", id, address, dir,
         dqlite_node_errmsg(node));
    dqlite_node_destroy(node);
    return 1;
  }

  int status = 0;
  if (join_list != NULL && join(join_list, id, address, join_timeout) != 0) status = 1;
  if (status == 0) {
    printf("ready: node %llu serving %s, data in %s\n", id, address, dir);
    fflush(stdout);
    int sig;
    while (sigwait(&stop_signals, &sig) != 0) {
    }
  }
  dqlite_node_stop(node);
  dqlite_node_destroy(node);
  if (status == 0) fprintf(stderr, "%s: node %llu stopped\n", prog, id);
  return status;
}
