/*
** Shared frame of the fuzz targets: one in-memory SQLite connection with the
** extension linked in statically (the ext/ sources are compiled into the
** target with -DSQLITE_CORE and registered with sqlite3_bloom_init), a few
** prepared statements kept for the whole run, and helpers that bind inputs
** from exactly sized heap buffers (so ASan sees any over-read), run a
** statement and check the outcome.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** A target abort()s (fz_die) when an invariant breaks: libFuzzer and the
** replay driver both report that as a failure.  The invariants every target
** checks: an error message starts with the name of the function that failed,
** and every blob the extension returns is a valid filter by FORMAT.md
** (bloom_spec.h).
*/
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <sqlite3.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bloom_spec.h"

int sqlite3_bloom_init(sqlite3 *db, char **err,
                       const sqlite3_api_routines *api);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Largest blob the fuzzing connection allows: keeps builds for a huge n
** quick (they answer SQLITE_TOOBIG) and exercises that path. */
#define FZ_BLOB_LIMIT (1 << 16)
#define FZ_MAX_STMTS 64
/* More values than the build's insert lag (BLOOM_INSERT_LAG, 16), so that a
** build reaches the lagged insert's steady state, not only its flush. */
#define FZ_MAX_VALUES 40

static sqlite3 *fz_db;
static sqlite3_stmt *fz_stmts[FZ_MAX_STMTS];
static int fz_nstmts;

static inline void fz_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)))
    __attribute__((noreturn));
static inline void fz_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fuzz invariant broken: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  abort();
}

static inline void fz_close(void) {
  for (int i = 0; i < fz_nstmts; i++) sqlite3_finalize(fz_stmts[i]);
  fz_nstmts = 0;
  sqlite3_close(fz_db);
  fz_db = NULL;
}

static inline void fz_exec(const char *sql) {
  char *err = NULL;
  if (sqlite3_exec(fz_db, sql, NULL, NULL, &err) != SQLITE_OK)
    fz_die("%s: %s", sql, err ? err : "?");
}

/* Opens the connection once per process. */
static inline void fz_open(void) {
  if (fz_db) return;
  if (sqlite3_open(":memory:", &fz_db) != SQLITE_OK) fz_die("sqlite3_open");
  char *err = NULL;
  if (sqlite3_bloom_init(fz_db, &err, NULL) != SQLITE_OK)
    fz_die("sqlite3_bloom_init: %s", err ? err : "?");
  sqlite3_limit(fz_db, SQLITE_LIMIT_LENGTH, FZ_BLOB_LIMIT);
  atexit(fz_close);
}

/* Prepares sql for the whole run; every function it names must be
** registered. */
static inline sqlite3_stmt *fz_prepare(const char *sql) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(fz_db, sql, -1, &st, NULL) != SQLITE_OK)
    fz_die("prepare %s: %s", sql, sqlite3_errmsg(fz_db));
  if (fz_nstmts == FZ_MAX_STMTS) fz_die("too many statements");
  fz_stmts[fz_nstmts++] = st;
  return st;
}

/* An exactly sized heap copy (malloc(1) for 0 bytes), for SQLITE_STATIC. */
static inline unsigned char *fz_copy(const void *p, size_t n) {
  unsigned char *c = malloc(n ? n : 1);
  if (c == NULL) fz_die("out of memory");
  if (n) memcpy(c, p, n);
  return c;
}

static inline void fz_bind_blob(sqlite3_stmt *st, int i, const unsigned char *p,
                         size_t n) {
  if (sqlite3_bind_blob64(st, i, p, n, SQLITE_STATIC) != SQLITE_OK)
    fz_die("bind blob of %zu bytes: %s", n, sqlite3_errmsg(fz_db));
}

/* A value decoded from fuzz input. */
typedef struct fz_value {
  int type; /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL */
  sqlite3_int64 i;
  double d;
  const unsigned char *p;
  int n;
} fz_value;

static inline uint64_t fz_le(const uint8_t *p, size_t avail, size_t want) {
  uint64_t v = 0;
  for (size_t i = 0; i < want && i < avail; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* Decodes up to max values: a tag byte (tag % 5: INTEGER, REAL, TEXT, BLOB,
** NULL), then 8 little-endian bytes for a number, or a length byte
** (% 64) and that many bytes for TEXT and BLOB.  A REAL NaN becomes NULL,
** as sqlite3_bind_double would make it. */
static inline size_t fz_decode_values(const uint8_t *d, size_t n, fz_value *out,
                               size_t max) {
  size_t at = 0, count = 0;
  while (at < n && count < max) {
    fz_value v;
    memset(&v, 0, sizeof v);
    unsigned tag = d[at++] % 5u;
    if (tag == 0 || tag == 1) {
      uint64_t u = fz_le(d + at, n - at, 8);
      at = n - at < 8 ? n : at + 8;
      if (tag == 0) {
        v.type = SQLITE_INTEGER;
        v.i = (sqlite3_int64)u;
      } else {
        memcpy(&v.d, &u, sizeof v.d);
        v.type = isnan(v.d) ? SQLITE_NULL : SQLITE_FLOAT;
      }
    } else if (tag == 2 || tag == 3) {
      size_t len = at < n ? d[at++] % 64u : 0;
      if (len > n - at) len = n - at;
      v.type = tag == 2 ? SQLITE_TEXT : SQLITE_BLOB;
      v.p = d + at;
      v.n = (int)len;
      at += len;
    } else {
      v.type = SQLITE_NULL;
    }
    out[count++] = v;
  }
  return count;
}

static inline void fz_bind_value(sqlite3_stmt *st, int i, const fz_value *v) {
  int rc;
  switch (v->type) {
    case SQLITE_INTEGER: rc = sqlite3_bind_int64(st, i, v->i); break;
    case SQLITE_FLOAT: rc = sqlite3_bind_double(st, i, v->d); break;
    case SQLITE_TEXT:
      rc = sqlite3_bind_text(st, i, (const char *)v->p, v->n, SQLITE_STATIC);
      break;
    case SQLITE_BLOB:
      rc = sqlite3_bind_blob(st, i, v->p, v->n, SQLITE_STATIC);
      break;
    default: rc = sqlite3_bind_null(st, i); break;
  }
  if (rc != SQLITE_OK) fz_die("bind value: %s", sqlite3_errmsg(fz_db));
}

/* The outcome of one step of a statement, column 0 copied out. */
typedef struct fz_result {
  int rc;   /* SQLITE_ROW, SQLITE_DONE (no row) or the error code */
  int type; /* column 0's storage class when rc == SQLITE_ROW */
  sqlite3_int64 i;
  double d;
  unsigned char *blob; /* exactly sized copy of a BLOB column 0, or NULL */
  size_t len;
  char msg[256];
} fz_result;

static inline int fz_ok(const fz_result *r) {
  return r->rc == SQLITE_ROW || r->rc == SQLITE_DONE;
}

static inline void fz_result_free(fz_result *r) {
  free(r->blob);
  r->blob = NULL;
}

/* names: the function(s) whose name an error message may start with,
** separated by '|'. */
static inline void fz_check_named(const char *names, const char *msg) {
  const char *n = names;
  while (*n) {
    size_t len = strcspn(n, "|");
    if (strncmp(msg, n, len) == 0 && msg[len] == ':' && msg[len + 1] == ' ')
      return;
    n += len;
    if (*n == '|') n++;
  }
  fz_die("error not naming %s: \"%s\"", names, msg);
}

/* Steps st once, copies out column 0, checks an error names the function,
** and resets st (clearing its bindings).  Columns 1.. can be read through
** fz_col_* before the reset by passing keep = 1 and calling fz_done(). */
static inline void fz_step(sqlite3_stmt *st, const char *names, fz_result *r,
                    int keep) {
  memset(r, 0, sizeof *r);
  r->rc = sqlite3_step(st);
  if (r->rc == SQLITE_ROW) {
    r->type = sqlite3_column_type(st, 0);
    r->i = sqlite3_column_int64(st, 0);
    r->d = sqlite3_column_double(st, 0);
    if (r->type == SQLITE_BLOB) {
      const void *p = sqlite3_column_blob(st, 0);
      r->len = (size_t)sqlite3_column_bytes(st, 0);
      r->blob = fz_copy(p, r->len);
    }
  } else if (r->rc != SQLITE_DONE) {
    snprintf(r->msg, sizeof r->msg, "%s", sqlite3_errmsg(fz_db));
    fz_check_named(names, r->msg);
  }
  if (!keep) {
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
  }
}

static inline void fz_done(sqlite3_stmt *st) {
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
}

/* The header field of a blob the extension returned, by FORMAT.md. */
static inline uint64_t fz_inserted(const unsigned char *b) {
  return le64(b + SPEC_OFF_INSERTED);
}

static inline uint64_t fz_sat_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Every Bloom blob the extension writes must be valid by FORMAT.md (kind 1,
** or kind 3 with Bloom layers). */
static inline void fz_check_written(const char *what, const fz_result *r) {
  if (r->rc != SQLITE_ROW || r->type != SQLITE_BLOB)
    fz_die("%s: no blob (rc %d, type %d)", what, r->rc, r->type);
  if (!spec_bloom_valid(r->blob, r->len) &&
      !spec_layered_valid(r->blob, r->len, 1))
    fz_die("%s wrote a blob of %zu bytes that FORMAT.md rejects", what,
           r->len);
}

#endif
