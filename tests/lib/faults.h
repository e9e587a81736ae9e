/*
** Fault injection for the robustness tests (tests/sql/ oom and abort,
** tests/check/): a counting, failing SQLite allocator, the stride of the
** fault sweeps, and a digest of a statement's result rows to compare a run
** under faults with the run without.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** The allocator (failmem_install) wraps SQLite's default one through
** SQLITE_CONFIG_MALLOC and must be installed before sqlite3_initialize().
** It counts live allocations (failmem_live) and, when armed with
** failmem_arm(n, persistent), makes the n-th allocation or reallocation
** from then on fail (and, if persistent, every one after it).  Every
** allocation the extension makes goes through it: sqlite3_malloc64 and
** friends call the configured methods.  It is meant for one thread.
** The digests use libc's allocator, never SQLite's.
*/
#ifndef TESTS_FAULTS_H
#define TESTS_FAULTS_H

#include <limits.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the counting, failing allocator ------------------------------------ */

static sqlite3_mem_methods failmem_base;
static long long failmem_live_count; /* allocations not yet freed */
static long long failmem_seen;       /* allocation calls since failmem_arm */
static long long failmem_fail_at;    /* 0: disarmed */
static int failmem_persistent;
static long long failmem_fired;      /* failures injected since failmem_arm */

static inline int failmem_should_fail(void) {
  if (failmem_fail_at == 0) return 0;
  failmem_seen++;
  if (failmem_seen == failmem_fail_at ||
      (failmem_persistent && failmem_seen > failmem_fail_at)) {
    failmem_fired++;
    return 1;
  }
  return 0;
}

static inline void *failmem_malloc(int n) {
  if (failmem_should_fail()) return NULL;
  void *p = failmem_base.xMalloc(n);
  if (p) failmem_live_count++;
  return p;
}

static inline void failmem_free(void *p) {
  if (p) failmem_live_count--;
  failmem_base.xFree(p);
}

static inline void *failmem_realloc(void *p, int n) {
  if (failmem_should_fail()) return NULL;
  return failmem_base.xRealloc(p, n);
}

static inline int failmem_size(void *p) { return failmem_base.xSize(p); }
static inline int failmem_roundup(int n) { return failmem_base.xRoundup(n); }
static inline int failmem_init(void *app) { return failmem_base.xInit(app); }
static inline void failmem_shutdown(void *app) { failmem_base.xShutdown(app); }

/* Installs the allocator (before anything else touches SQLite), turns the
** lookaside allocator off so that small allocations reach it too, and
** initializes SQLite.  Returns SQLITE_OK or an error code. */
static inline int failmem_install(void) {
  int rc = sqlite3_config(SQLITE_CONFIG_GETMALLOC, &failmem_base);
  if (rc != SQLITE_OK) return rc;
  static sqlite3_mem_methods methods;
  methods = failmem_base;
  methods.xMalloc = failmem_malloc;
  methods.xFree = failmem_free;
  methods.xRealloc = failmem_realloc;
  methods.xSize = failmem_size;
  methods.xRoundup = failmem_roundup;
  methods.xInit = failmem_init;
  methods.xShutdown = failmem_shutdown;
  rc = sqlite3_config(SQLITE_CONFIG_MALLOC, &methods);
  if (rc == SQLITE_OK) rc = sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_initialize();
  return rc;
}

static inline void failmem_arm(long long fail_at, int persistent) {
  failmem_seen = 0;
  failmem_fired = 0;
  failmem_persistent = persistent;
  failmem_fail_at = fail_at;
}

/* Counts allocations from now on without failing any (failmem_seen). */
static inline void failmem_count_only(void) { failmem_arm(LLONG_MAX, 0); }

static inline void failmem_disarm(void) { failmem_fail_at = 0; }

static inline long long failmem_live(void) { return failmem_live_count; }

/* ---- result digests -------------------------------------------------------- */

/* A growable libc string (never through SQLite's allocator). */
typedef struct textbuf {
  char *p;
  size_t len, cap;
} textbuf;

static inline void textbuf_add(textbuf *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void textbuf_add(textbuf *s, const char *fmt, ...) {
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

static inline void textbuf_clear(textbuf *s) {
  s->len = 0;
  if (s->p) s->p[0] = '\0';
}

static inline void textbuf_free(textbuf *s) {
  free(s->p);
  s->p = NULL;
  s->len = s->cap = 0;
}

static inline uint64_t fnv1a64(const void *data, size_t n) {
  const unsigned char *p = data;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

/* Outcome of running one statement to the end. */
typedef struct outcome {
  int rc;          /* SQLITE_OK, or the error code */
  int at_prepare;  /* the error came from sqlite3_prepare_v2 */
  int rows;
  char msg[256];   /* sqlite3_errmsg when rc != SQLITE_OK */
  textbuf digest;   /* the rows, one line each */
} outcome;

/* Appends one row to the digest.  Returns 0, or SQLITE_NOMEM when reading
** a column needed memory that was not there. */
static inline int digest_row(sqlite3_stmt *st, textbuf *d) {
  int cols = sqlite3_column_count(st);
  for (int c = 0; c < cols; c++) {
    switch (sqlite3_column_type(st, c)) {
      case SQLITE_INTEGER:
        textbuf_add(d, "i%lld|", (long long)sqlite3_column_int64(st, c));
        break;
      case SQLITE_FLOAT:
        textbuf_add(d, "r%.17g|", sqlite3_column_double(st, c));
        break;
      case SQLITE_TEXT: {
        const unsigned char *t = sqlite3_column_text(st, c);
        if (!t) return SQLITE_NOMEM;
        int n = sqlite3_column_bytes(st, c);
        if (n <= 48)
          textbuf_add(d, "t'%.*s'|", n, (const char *)t);
        else
          textbuf_add(d, "t%d:%016llx|", n, (unsigned long long)fnv1a64(t, (size_t)n));
        break;
      }
      case SQLITE_BLOB: {
        const void *b = sqlite3_column_blob(st, c);
        int n = sqlite3_column_bytes(st, c);
        if (!b && n > 0) return SQLITE_NOMEM;
        textbuf_add(d, "b%d:%016llx|", n,
                   (unsigned long long)fnv1a64(b, (size_t)n));
        break;
      }
      default:
        textbuf_add(d, "n|");
        break;
    }
  }
  textbuf_add(d, "\n");
  return 0;
}

/* Prepares and runs sql (one statement) to the end, collecting rows. */
static inline void run_digest(sqlite3 *db, const char *sql, outcome *o) {
  sqlite3_stmt *st = NULL;
  textbuf_clear(&o->digest);
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
    if (digest_row(st, &o->digest) != 0) {
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

/* BLOOM_SWEEP_STEP=k makes the fault and abort sweeps visit every k-th
** point only (default 1: every point); for slow runs such as valgrind's. */
static inline long long sweep_step_env(void) {
  const char *s = getenv("BLOOM_SWEEP_STEP");
  long long k = s ? atoll(s) : 1;
  return k >= 1 ? k : 1;
}

#endif
