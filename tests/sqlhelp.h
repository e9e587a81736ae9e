/*
** Helpers for the robustness tests (test_oom.c, test_abort.c, tests/check/):
** a counting, failing SQLite allocator; opening a database and loading
** BLOOM_SO; and a digest of a statement's result rows.
**
** The allocator (sh_mem_install) wraps SQLite's default one through
** SQLITE_CONFIG_MALLOC and must be installed before sqlite3_initialize().
** It counts live allocations (sh_mem_live) and, when armed with
** sh_mem_arm(n, persistent), makes the n-th allocation or reallocation
** from then on fail (and, if persistent, every one after it).  Every
** allocation the extension makes goes through it: sqlite3_malloc64 and
** friends call the configured methods.  It is meant for one thread.
**
** Every name here starts with sh_ (or SH_).
*/
#ifndef SQLHELP_H
#define SQLHELP_H

#include <limits.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the counting, failing allocator ------------------------------------ */

static sqlite3_mem_methods sh_mem_base;
static long long sh_mem_live_count; /* allocations not yet freed */
static long long sh_mem_seen;       /* allocation calls since sh_mem_arm */
static long long sh_mem_fail_at;    /* 0: disarmed */
static int sh_mem_persistent;
static long long sh_mem_fired;      /* failures injected since sh_mem_arm */

static inline int sh_mem_should_fail(void) {
  if (sh_mem_fail_at == 0) return 0;
  sh_mem_seen++;
  if (sh_mem_seen == sh_mem_fail_at ||
      (sh_mem_persistent && sh_mem_seen > sh_mem_fail_at)) {
    sh_mem_fired++;
    return 1;
  }
  return 0;
}

static inline void *sh_mem_malloc(int n) {
  if (sh_mem_should_fail()) return NULL;
  void *p = sh_mem_base.xMalloc(n);
  if (p) sh_mem_live_count++;
  return p;
}

static inline void sh_mem_free(void *p) {
  if (p) sh_mem_live_count--;
  sh_mem_base.xFree(p);
}

static inline void *sh_mem_realloc(void *p, int n) {
  if (sh_mem_should_fail()) return NULL;
  return sh_mem_base.xRealloc(p, n);
}

static inline int sh_mem_size(void *p) { return sh_mem_base.xSize(p); }
static inline int sh_mem_roundup(int n) { return sh_mem_base.xRoundup(n); }
static inline int sh_mem_init(void *app) { return sh_mem_base.xInit(app); }
static inline void sh_mem_shutdown(void *app) { sh_mem_base.xShutdown(app); }

/* Installs the allocator (before anything else touches SQLite), turns the
** lookaside allocator off so that small allocations reach it too, and
** initializes SQLite.  Returns SQLITE_OK or an error code. */
static inline int sh_mem_install(void) {
  int rc = sqlite3_config(SQLITE_CONFIG_GETMALLOC, &sh_mem_base);
  if (rc != SQLITE_OK) return rc;
  static sqlite3_mem_methods methods;
  methods = sh_mem_base;
  methods.xMalloc = sh_mem_malloc;
  methods.xFree = sh_mem_free;
  methods.xRealloc = sh_mem_realloc;
  methods.xSize = sh_mem_size;
  methods.xRoundup = sh_mem_roundup;
  methods.xInit = sh_mem_init;
  methods.xShutdown = sh_mem_shutdown;
  rc = sqlite3_config(SQLITE_CONFIG_MALLOC, &methods);
  if (rc == SQLITE_OK) rc = sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_initialize();
  return rc;
}

static inline void sh_mem_arm(long long fail_at, int persistent) {
  sh_mem_seen = 0;
  sh_mem_fired = 0;
  sh_mem_persistent = persistent;
  sh_mem_fail_at = fail_at;
}

/* Counts allocations from now on without failing any (sh_mem_seen). */
static inline void sh_mem_count_only(void) { sh_mem_arm(LLONG_MAX, 0); }

static inline void sh_mem_disarm(void) { sh_mem_fail_at = 0; }

static inline long long sh_mem_live(void) { return sh_mem_live_count; }

/* ---- opening and loading --------------------------------------------------- */

static inline const char *sh_so_path(void) {
  const char *so = getenv("BLOOM_SO");
  return so && *so ? so : "./bloom.so";
}

/* Loads BLOOM_SO into db.  Returns the rc; *err (libc-allocated, or NULL)
** gets SQLite's message. */
static inline int sh_load(sqlite3 *db, char **err) {
  char *msg = NULL;
  sqlite3_enable_load_extension(db, 1);
  int rc = sqlite3_load_extension(db, sh_so_path(), "sqlite3_bloom_init", &msg);
  if (err) *err = msg ? strdup(msg) : NULL;
  sqlite3_free(msg);
  return rc;
}

/* Runs SQL that must succeed; prints the failure and returns 0 otherwise. */
static inline int sh_exec(sqlite3 *db, const char *sql) {
  char *err = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
  if (rc != SQLITE_OK) {
    printf("# exec failed (%d): %s\n#   in: %.300s\n", rc,
           err ? err : sqlite3_errmsg(db), sql);
    fflush(stdout);
  }
  sqlite3_free(err);
  return rc == SQLITE_OK;
}

/* ---- result digests -------------------------------------------------------- */

/* A growable libc string (never through SQLite's allocator). */
typedef struct sh_str {
  char *p;
  size_t len, cap;
} sh_str;

static inline void sh_str_add(sh_str *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void sh_str_add(sh_str *s, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    size_t room = s->cap - s->len;
    va_start(ap, fmt);
    int n = s->p ? vsnprintf(s->p + s->len, room, fmt, ap) : -1;
    va_end(ap);
    if (n >= 0 && (size_t)n < room) {
      s->len += (size_t)n;
      return;
    }
    size_t want = s->cap * 2 + (n > 0 ? (size_t)n : 0) + 64;
    char *q = realloc(s->p, want);
    if (!q) abort();
    s->p = q;
    s->cap = want;
  }
}

static inline void sh_str_clear(sh_str *s) {
  s->len = 0;
  if (s->p) s->p[0] = '\0';
}

static inline void sh_str_free(sh_str *s) {
  free(s->p);
  s->p = NULL;
  s->len = s->cap = 0;
}

static inline uint64_t sh_fnv(const void *data, size_t n) {
  const unsigned char *p = data;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

/* Outcome of running one statement to the end. */
typedef struct sh_outcome {
  int rc;          /* SQLITE_OK, or the error code */
  int at_prepare;  /* the error came from sqlite3_prepare_v2 */
  int rows;
  char msg[256];   /* sqlite3_errmsg when rc != SQLITE_OK */
  sh_str digest;   /* the rows, one line each */
} sh_outcome;

/* Appends one row to the digest.  Returns 0, or SQLITE_NOMEM when reading
** a column needed memory that was not there. */
static inline int sh_digest_row(sqlite3_stmt *st, sh_str *d) {
  int cols = sqlite3_column_count(st);
  for (int c = 0; c < cols; c++) {
    switch (sqlite3_column_type(st, c)) {
      case SQLITE_INTEGER:
        sh_str_add(d, "i%lld|", (long long)sqlite3_column_int64(st, c));
        break;
      case SQLITE_FLOAT:
        sh_str_add(d, "r%.17g|", sqlite3_column_double(st, c));
        break;
      case SQLITE_TEXT: {
        const unsigned char *t = sqlite3_column_text(st, c);
        if (!t) return SQLITE_NOMEM;
        int n = sqlite3_column_bytes(st, c);
        if (n <= 48)
          sh_str_add(d, "t'%.*s'|", n, (const char *)t);
        else
          sh_str_add(d, "t%d:%016llx|", n, (unsigned long long)sh_fnv(t, (size_t)n));
        break;
      }
      case SQLITE_BLOB: {
        const void *b = sqlite3_column_blob(st, c);
        int n = sqlite3_column_bytes(st, c);
        if (!b && n > 0) return SQLITE_NOMEM;
        sh_str_add(d, "b%d:%016llx|", n,
                   (unsigned long long)sh_fnv(b, (size_t)n));
        break;
      }
      default:
        sh_str_add(d, "n|");
        break;
    }
  }
  sh_str_add(d, "\n");
  return 0;
}

/* Prepares and runs sql (one statement) to the end, collecting rows. */
static inline void sh_run(sqlite3 *db, const char *sql, sh_outcome *o) {
  sqlite3_stmt *st = NULL;
  sh_str_clear(&o->digest);
  o->rows = 0;
  o->at_prepare = 0;
  o->msg[0] = '\0';
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) {
    o->rc = rc;
    o->at_prepare = 1;
    snprintf(o->msg, sizeof o->msg, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return;
  }
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    o->rows++;
    if (sh_digest_row(st, &o->digest) != 0) {
      rc = SQLITE_NOMEM;
      break;
    }
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  o->rc = rc;
  if (rc != SQLITE_OK)
    snprintf(o->msg, sizeof o->msg, "%s",
             rc == SQLITE_NOMEM && sqlite3_errcode(db) != SQLITE_NOMEM
                 ? "out of memory (reading a column)"
                 : sqlite3_errmsg(db));
  sqlite3_finalize(st);
}

/* The first column of the first row as text (libc-allocated), or NULL. */
static inline char *sh_query_text(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  char *out = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char *t = sqlite3_column_text(st, 0);
    out = strdup(t ? (const char *)t : "NULL");
  } else {
    printf("# query failed: %s\n#   in: %.300s\n", sqlite3_errmsg(db), sql);
  }
  sqlite3_finalize(st);
  return out;
}

static inline long long sh_query_int(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  long long v = -424242;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  else
    printf("# query failed: %s\n#   in: %.300s\n", sqlite3_errmsg(db), sql);
  sqlite3_finalize(st);
  return v;
}

/* BLOOM_SWEEP_STEP=k makes the fault and abort sweeps visit every k-th
** point only (default 1: every point); for slow runs such as valgrind's. */
static inline long long sh_sweep_step(void) {
  const char *s = getenv("BLOOM_SWEEP_STEP");
  long long k = s ? atoll(s) : 1;
  return k >= 1 ? k : 1;
}

/* splitmix64, for fixed-seed randomness. */
static uint64_t sh_rng_state;
static inline uint64_t sh_rng(void) {
  uint64_t z = (sh_rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static inline double sh_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
