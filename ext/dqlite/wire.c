/*
** A blocking client for the handful of dqlite requests wire.h lists.  Each
** connection carries one request at a time: write the message, read the
** answer, and turn a FAILURE answer into the leader's own message.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#define _POSIX_C_SOURCE 200809L
#include "dqlite/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define PROTOCOL_VERSION 1

enum {
  REQ_LEADER = 0, REQ_ADD = 12, REQ_ASSIGN = 13, REQ_CLUSTER = 16
};
enum {
  RESP_FAILURE = 0, RESP_SERVER = 1, RESP_SERVERS = 3, RESP_EMPTY = 8
};
/* CLUSTER's format 1 lists each member's role after its address. */
#define CLUSTER_FORMAT_ROLES 1

/* No answer these requests get is near this (a member is a few words). */
#define MAX_BODY (1u << 20)

static void say(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

int wire_split_address(const char *address, char *host, size_t hostlen,
                       char *port, size_t portlen) {
  const char *colon, *h = address;
  size_t n;
  if (address[0] == '[') {
    const char *close = strchr(address, ']');
    if (close == NULL || close[1] != ':') return -1;
    h = address + 1;
    n = (size_t)(close - h);
    colon = close + 1;
  } else {
    colon = strrchr(address, ':');
    if (colon == NULL) return -1;
    n = (size_t)(colon - address);
  }
  if (n == 0 || n >= hostlen) return -1;
  memcpy(host, h, n);
  host[n] = '\0';
  const char *p = colon + 1;
  size_t plen = strlen(p);
  if (plen == 0 || plen >= portlen || strspn(p, "0123456789") != plen) return -1;
  long v = strtol(p, NULL, 10);
  if (v < 1 || v > 65535) return -1;
  memcpy(port, p, plen + 1);
  return 0;
}

/* connect() bounded by timeout_ms: non-blocking, then poll for writable. */
static int connect_within(int fd, const struct sockaddr *sa, socklen_t len,
                          int timeout_ms) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return -1;
  int rc = connect(fd, sa, len);
  if (rc < 0 && errno == EINPROGRESS) {
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    rc = poll(&p, 1, timeout_ms);
    if (rc == 0) {
      errno = ETIMEDOUT;
      return -1;
    }
    if (rc < 0) return -1;
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0) return -1;
    if (soerr != 0) {
      errno = soerr;
      return -1;
    }
    rc = 0;
  }
  if (rc < 0) return -1;
  return fcntl(fd, F_SETFL, flags);
}

static int write_all(int fd, const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static int read_all(int fd, unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t r = recv(fd, p, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) errno = ECONNRESET;
    if (r <= 0) return -1;
    p += r;
    n -= (size_t)r;
  }
  return 0;
}

static void put64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

int wire_connect(const char *address, int timeout_ms, char *err, size_t errlen) {
  char host[256], port[8];
  if (wire_split_address(address, host, sizeof host, port, sizeof port) != 0) {
    say(err, errlen, "%s: not a host:port address", address);
    return -1;
  }
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  struct addrinfo *res = NULL;
  int gai = getaddrinfo(host, port, &hints, &res);
  if (gai != 0) {
    say(err, errlen, "%s: %s", address, gai_strerror(gai));
    return -1;
  }
  int fd = -1, saved = 0;
  for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      saved = errno;
      continue;
    }
    if (connect_within(fd, ai->ai_addr, ai->ai_addrlen, timeout_ms) == 0) break;
    saved = errno;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0) {
    say(err, errlen, "cannot connect to %s: %s", address, strerror(saved));
    return -1;
  }
  struct timeval tv = {.tv_sec = timeout_ms / 1000,
                       .tv_usec = (timeout_ms % 1000) * 1000};
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  unsigned char version[8];
  put64(version, PROTOCOL_VERSION);
  if (write_all(fd, version, sizeof version) != 0) {
    say(err, errlen, "%s: handshake: %s", address, strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

/* A message under construction: header word, then the body. */
struct msg {
  unsigned char buf[8 + 512];
  size_t len; /* bytes of body so far */
};

static void msg_u64(struct msg *m, uint64_t v) {
  put64(m->buf + 8 + m->len, v);
  m->len += 8;
}

/* text: NUL-terminated, zero-padded to a whole word.  Callers pass short
** strings (addresses), so the fixed buffer is ample; longer is cut. */
static void msg_text(struct msg *m, const char *s) {
  size_t room = sizeof m->buf - 8 - m->len - 8;
  size_t n = strlen(s);
  if (n > room) n = room;
  size_t padded = (n / 8 + 1) * 8;
  memset(m->buf + 8 + m->len, 0, padded);
  memcpy(m->buf + 8 + m->len, s, n);
  m->len += padded;
}

/* Sends m as type, reads the answer into a malloc'ed body.  A FAILURE
** answer becomes err and -1. */
static int roundtrip(int fd, uint8_t type, struct msg *m, uint8_t *rtype,
                     unsigned char **body, size_t *bodylen, const char *what,
                     char *err, size_t errlen) {
  uint32_t words = (uint32_t)(m->len / 8);
  memset(m->buf, 0, 8);
  for (int i = 0; i < 4; i++) m->buf[i] = (unsigned char)(words >> (8 * i));
  m->buf[4] = type;
  if (write_all(fd, m->buf, 8 + m->len) != 0) {
    say(err, errlen, "%s: sending: %s", what, strerror(errno));
    return -1;
  }
  unsigned char h[8];
  if (read_all(fd, h, sizeof h) != 0) {
    say(err, errlen, "%s: no answer: %s", what, strerror(errno));
    return -1;
  }
  size_t n = (size_t)((uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 |
                      (uint32_t)h[3] << 24) * 8;
  if (n > MAX_BODY) {
    say(err, errlen, "%s: answer of %zu bytes is not dqlite's", what, n);
    return -1;
  }
  unsigned char *b = malloc(n + 1);
  if (b == NULL) {
    say(err, errlen, "%s: out of memory", what);
    return -1;
  }
  if (read_all(fd, b, n) != 0) {
    say(err, errlen, "%s: answer cut short: %s", what, strerror(errno));
    free(b);
    return -1;
  }
  b[n] = '\0';
  if (h[4] == RESP_FAILURE) {
    uint64_t code = n >= 8 ? get64(b) : 0;
    say(err, errlen, "%s refused (%llu): %s", what, (unsigned long long)code,
        n > 8 ? (const char *)b + 8 : "");
    free(b);
    return -1;
  }
  *rtype = h[4];
  *body = b;
  *bodylen = n;
  return 0;
}

/* A text field at *off within body: copied into out, *off past its padding. */
static int take_text(const unsigned char *body, size_t len, size_t *off,
                     char *out, size_t outlen) {
  const unsigned char *start = body + *off;
  const unsigned char *nul = memchr(start, 0, len - *off);
  if (nul == NULL) return -1;
  size_t n = (size_t)(nul - start);
  if (n >= outlen) n = outlen - 1;
  memcpy(out, start, n);
  out[n] = '\0';
  *off += ((size_t)(nul - start) / 8 + 1) * 8;
  return *off <= len ? 0 : -1;
}

int wire_leader(int fd, char *leader, size_t leaderlen, char *err, size_t errlen) {
  struct msg m = {.len = 0};
  msg_u64(&m, 0);
  uint8_t t;
  unsigned char *b;
  size_t n, off = 8;
  if (roundtrip(fd, REQ_LEADER, &m, &t, &b, &n, "LEADER", err, errlen) != 0)
    return -1;
  int rc = (t == RESP_SERVER && n >= 16 && take_text(b, n, &off, leader, leaderlen) == 0)
               ? 0 : -1;
  if (rc != 0) say(err, errlen, "LEADER: unexpected answer of type %d", t);
  free(b);
  return rc;
}

int wire_cluster(int fd, struct wire_member *members, size_t max, size_t *count,
                 char *err, size_t errlen) {
  struct msg m = {.len = 0};
  msg_u64(&m, CLUSTER_FORMAT_ROLES);
  uint8_t t;
  unsigned char *b;
  size_t n;
  if (roundtrip(fd, REQ_CLUSTER, &m, &t, &b, &n, "CLUSTER", err, errlen) != 0)
    return -1;
  int rc = -1;
  if (t == RESP_SERVERS && n >= 8) {
    uint64_t total = get64(b);
    size_t off = 8, i;
    for (i = 0; i < total; i++) {
      struct wire_member one;
      if (off + 8 > n) break;
      one.id = get64(b + off);
      off += 8;
      if (take_text(b, n, &off, one.address, sizeof one.address) != 0) break;
      if (off + 8 > n) break;
      one.role = get64(b + off);
      off += 8;
      if (i < max) members[i] = one;
    }
    if (i == total) {
      *count = (size_t)total;
      rc = 0;
    }
  }
  if (rc != 0) say(err, errlen, "CLUSTER: unexpected answer of type %d", t);
  free(b);
  return rc;
}

static int expect_empty(int fd, uint8_t type, struct msg *m, const char *what,
                        char *err, size_t errlen) {
  uint8_t t;
  unsigned char *b;
  size_t n;
  if (roundtrip(fd, type, m, &t, &b, &n, what, err, errlen) != 0) return -1;
  free(b);
  if (t != RESP_EMPTY) {
    say(err, errlen, "%s: unexpected answer of type %d", what, t);
    return -1;
  }
  return 0;
}

int wire_add(int fd, uint64_t id, const char *address, char *err, size_t errlen) {
  struct msg m = {.len = 0};
  msg_u64(&m, id);
  msg_text(&m, address);
  return expect_empty(fd, REQ_ADD, &m, "ADD", err, errlen);
}

int wire_assign(int fd, uint64_t id, uint64_t role, char *err, size_t errlen) {
  struct msg m = {.len = 0};
  msg_u64(&m, id);
  msg_u64(&m, role);
  return expect_empty(fd, REQ_ASSIGN, &m, "ASSIGN", err, errlen);
}
