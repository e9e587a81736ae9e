/*
** Opening a database with the extension and running SQL in the C tests:
** open_db (in memory) and open_db_at (a file) load the extension from
** $BLOOM_SO (or ./bloom.so), or, built with -DBLOOM_STATIC -DSQLITE_CORE,
** register the compiled-in extension with sqlite3_auto_extension;
** load_bloom loads it into a connection the test opened itself.  Then
** statement arguments (arg, ARGS, NOARGS), one-row queries (q_int, q_real,
** q_text, q_blob), exec_ok/must_exec, error checks (run_for_error,
** error_starts, expect_error) and SERIES, a CTE of integers.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Every function is static inline, so a test that uses only some of them
** compiles without unused-function warnings.  strdup needs
** _POSIX_C_SOURCE 200809L (or _GNU_SOURCE) defined before the first #include.
*/
#ifndef TESTS_SQLDB_H
#define TESTS_SQLDB_H

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "blob.h"
#include "tap.h"

/* ---- statement arguments ---------------------------------------------------- */

enum { A_NULL, A_INT, A_REAL, A_TEXT, A_BLOB, A_ZEROBLOB };
typedef struct arg {
  int kind;
  sqlite3_int64 i;
  double d;
  const void *p;
  int n;
} arg;

static inline arg a_null(void) { arg a = {A_NULL, 0, 0, NULL, 0}; return a; }
static inline arg a_int(sqlite3_int64 v) { arg a = {A_INT, v, 0, NULL, 0}; return a; }
static inline arg a_real(double v) { arg a = {A_REAL, 0, v, NULL, 0}; return a; }
static inline arg a_text(const char *s) { arg a = {A_TEXT, 0, 0, s, -1}; return a; }
static inline arg a_blob(const void *p, int n) { arg a = {A_BLOB, 0, 0, p, n}; return a; }
static inline arg a_zeroblob(int n) { arg a = {A_ZEROBLOB, 0, 0, NULL, n}; return a; }

/* ARGS(a_int(1), a_blob(p, n)) binds ?1, ?2, ...; blobs and texts are bound
** SQLITE_STATIC, so an exactly sized buffer shows over-reads under ASan. */
#define ARGS(...) \
  (const arg[]){__VA_ARGS__}, (int)(sizeof((const arg[]){__VA_ARGS__}) / sizeof(arg))
#define NOARGS NULL, 0

static inline int bind_args(sqlite3_stmt *st, const arg *a, int n) {
  for (int i = 0; i < n; i++) {
    int rc, col = i + 1;
    switch (a[i].kind) {
      case A_INT: rc = sqlite3_bind_int64(st, col, a[i].i); break;
      case A_REAL: rc = sqlite3_bind_double(st, col, a[i].d); break;
      case A_TEXT:
        rc = sqlite3_bind_text(st, col, a[i].p, a[i].n, SQLITE_STATIC);
        break;
      case A_BLOB:
        rc = sqlite3_bind_blob(st, col, a[i].p, a[i].n, SQLITE_STATIC);
        break;
      case A_ZEROBLOB: rc = sqlite3_bind_zeroblob(st, col, a[i].n); break;
      default: rc = sqlite3_bind_null(st, col); break;
    }
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

/* ---- statements and one-row queries ----------------------------------------- */

/* A prepared statement with the arguments bound; NULL (with a diagnostic)
** on failure. */
static inline sqlite3_stmt *prep(sqlite3 *db, const char *sql, const arg *a,
                                 int n) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    tap_diag("  prepare failed: %s", sqlite3_errmsg(db));
    tap_diag("    %s", sql);
    sqlite3_finalize(st);
    return NULL;
  }
  if (bind_args(st, a, n) != SQLITE_OK) {
    tap_diag("  bind failed: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return NULL;
  }
  return st;
}

/* A prepared statement, or exit(2): for a test's own fixed SQL. */
static inline sqlite3_stmt *must_prep(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    tap_diag("prepare failed: %s: %s", sql, sqlite3_errmsg(db));
    exit(2);
  }
  return st;
}

/* The statement stepped to its first row; NULL (finalized) when it fails,
** with a diagnostic, or returns no row. */
static inline sqlite3_stmt *first_row(sqlite3 *db, const char *sql,
                                      const arg *a, int n) {
  sqlite3_stmt *st = prep(db, sql, a, n);
  if (!st) return NULL;
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) return st;
  if (rc != SQLITE_DONE) {
    tap_diag("  step failed: %s", sqlite3_errmsg(db));
    tap_diag("    %s", sql);
  }
  sqlite3_finalize(st);
  return NULL;
}

/* Type of the last q_* result: SQLITE_INTEGER..SQLITE_NULL, or 0 when the
** statement failed or returned no row. */
static int q_type;

/* first_row, setting q_type. */
static inline sqlite3_stmt *q_row(sqlite3 *db, const char *sql, const arg *a,
                                  int n) {
  sqlite3_stmt *st = first_row(db, sql, a, n);
  q_type = st ? sqlite3_column_type(st, 0) : 0;
  return st;
}

/* The first column of the first row as an integer (or -424242). */
static inline sqlite3_int64 q_int(sqlite3 *db, const char *sql, const arg *a,
                                  int n) {
  sqlite3_stmt *st = q_row(db, sql, a, n);
  sqlite3_int64 v = st ? sqlite3_column_int64(st, 0) : -424242;
  sqlite3_finalize(st);
  return v;
}

/* The first column of the first row as a double (or NaN). */
static inline double q_real(sqlite3 *db, const char *sql, const arg *a, int n) {
  sqlite3_stmt *st = q_row(db, sql, a, n);
  double v = st ? sqlite3_column_double(st, 0) : NAN;
  sqlite3_finalize(st);
  return v;
}

/* The first column of the first row as libc-allocated text ("NULL" for SQL
** NULL), or NULL on error or when there is no row. */
static inline char *q_text(sqlite3 *db, const char *sql, const arg *a, int n) {
  sqlite3_stmt *st = q_row(db, sql, a, n);
  char *out = NULL;
  if (st) {
    const unsigned char *t = sqlite3_column_text(st, 0);
    out = strdup(t ? (const char *)t : "NULL");
    if (!out) {
      tap_diag("out of memory");
      exit(2);
    }
  }
  sqlite3_finalize(st);
  return out;
}

/* The first column as an exactly sized malloc'd copy; NULL for SQL NULL or
** on error.  *len gets the length. */
static inline unsigned char *q_blob(sqlite3 *db, const char *sql, const arg *a,
                                    int n, int *len) {
  unsigned char *out = NULL;
  *len = 0;
  sqlite3_stmt *st = q_row(db, sql, a, n);
  if (st && q_type != SQLITE_NULL) {
    const void *p = sqlite3_column_blob(st, 0);
    *len = sqlite3_column_bytes(st, 0);
    out = dup_exact(p, (size_t)*len);
  }
  sqlite3_finalize(st);
  return out;
}

/* sqlite3_exec; 1 if it worked, else 0 with a diagnostic. */
static inline int exec_ok(sqlite3 *db, const char *sql) {
  char *err = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
  if (rc != SQLITE_OK) {
    tap_diag("  exec failed: %s", err ? err : sqlite3_errmsg(db));
    tap_diag("    %s", sql);
  }
  sqlite3_free(err);
  return rc == SQLITE_OK;
}

/* sqlite3_exec, or exit(2): for a test's own setup. */
static inline void must_exec(sqlite3 *db, const char *sql) {
  if (!exec_ok(db, sql)) exit(2);
}

/* ---- errors ------------------------------------------------------------------ */

/* Runs sql to the end.  Returns 1 if it failed (at prepare, bind or step)
** and copies the message out (msg is "" otherwise), and the primary and
** extended codes to *code and *xcode when they are not NULL. */
static inline int run_for_error(sqlite3 *db, const char *sql, const arg *a,
                                int n, char *msg, size_t msg_size, int *code,
                                int *xcode) {
  sqlite3_stmt *st = NULL;
  int failed = 0;
  msg[0] = '\0';
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc == SQLITE_OK) rc = bind_args(st, a, n);
  if (rc == SQLITE_OK) {
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    }
  }
  if (rc != SQLITE_OK && rc != SQLITE_DONE) {
    failed = 1;
    snprintf(msg, msg_size, "%s", sqlite3_errmsg(db));
    if (code) *code = sqlite3_errcode(db);
    if (xcode) *xcode = sqlite3_extended_errcode(db);
  }
  sqlite3_finalize(st);
  return failed;
}

/* The core of error_starts and expect_error: 1 if sql fails with a message
** starting with prefix, and with primary and extended code want_code
** unless want_code is 0; else 0, with what happened in why. */
static inline int error_verdict(sqlite3 *db, const char *sql, const arg *a,
                                int n, const char *prefix, int want_code,
                                char *why, size_t why_size) {
  char msg[512];
  int code = 0, xcode = 0;
  int failed = run_for_error(db, sql, a, n, msg, sizeof msg, &code, &xcode);
  int pass = failed && strncmp(msg, prefix, strlen(prefix)) == 0 &&
             (want_code == 0 ||
              (code == (want_code & 0xff) && xcode == want_code));
  if (pass)
    why[0] = '\0';
  else if (!failed)
    snprintf(why, why_size, "no error from: %s", sql);
  else
    snprintf(why, why_size, "got code %d/%d \"%s\", wanted \"%s...\"", code,
             xcode, msg, prefix);
  return pass;
}

/* 1 if sql fails with a message starting with prefix; else 0, with a
** diagnostic. */
static inline int error_starts(sqlite3 *db, const char *sql, const arg *a,
                               int n, const char *prefix) {
  char why[1024];
  int pass = error_verdict(db, sql, a, n, prefix, 0, why, sizeof why);
  if (!pass) tap_diag("  %s", why);
  return pass;
}

/* One check: sql fails with a message starting with prefix, and with
** extended code want_code (and its primary code) unless want_code is 0. */
static inline void expect_error(sqlite3 *db, const char *name, const char *sql,
                                const arg *a, int n, const char *prefix,
                                int want_code) {
  char why[1024];
  int pass = error_verdict(db, sql, a, n, prefix, want_code, why, sizeof why);
  if (!tap_ok(pass, "%s: error starting \"%s\"", name, prefix))
    tap_diag("  %s", why);
}

/* ---- databases ------------------------------------------------------------- */

/* The extension to load: $BLOOM_SO (make test sets it to the plain or the
** sanitized build), else ./bloom.so. */
static inline const char *bloom_so_path(void) {
  const char *so = getenv("BLOOM_SO");
  return so && *so ? so : "./bloom.so";
}

/* Loads the extension into db.  Returns SQLite's rc; *err (when err is not
** NULL) gets SQLite's message as a libc-allocated copy, or NULL.  For the
** tests where loading may fail (out of memory, threads); open_db exits. */
static inline int load_bloom(sqlite3 *db, char **err) {
  char *msg = NULL;
  sqlite3_enable_load_extension(db, 1);
  int rc = sqlite3_load_extension(db, bloom_so_path(), "sqlite3_bloom_init",
                                  &msg);
  if (err) *err = msg ? strdup(msg) : NULL;
  sqlite3_free(msg);
  return rc;
}

#ifdef BLOOM_STATIC
/* Built with the extension compiled in (-DSQLITE_CORE), the way a host that
** cannot load extensions uses it: registered once for every connection. */
int sqlite3_bloom_init(sqlite3 *db, char **err,
                       const sqlite3_api_routines *api);
#endif

/* A database at path (NULL: in memory) with the extension, its encoding
** set first when encoding is not NULL; exit(2) on failure. */
static inline sqlite3 *open_db_with(const char *path, const char *encoding) {
  sqlite3 *db;
#ifdef BLOOM_STATIC
  static int registered;
  if (!registered && sqlite3_auto_extension((void (*)(void))sqlite3_bloom_init) == SQLITE_OK)
    registered = 1;
#endif
  if (sqlite3_open(path ? path : ":memory:", &db) != SQLITE_OK) {
    tap_diag("cannot open a database: %s", sqlite3_errmsg(db));
    exit(2);
  }
  if (encoding) {
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA encoding = '%s'", encoding);
    exec_ok(db, sql);
  }
#ifndef BLOOM_STATIC
  char *err = NULL;
  if (load_bloom(db, &err) != SQLITE_OK) {
    tap_diag("cannot load %s: %s", bloom_so_path(), err ? err : "?");
    free(err);
    exit(2);
  }
#endif
  return db;
}

/* An in-memory database (encoding: NULL for the default). */
static inline sqlite3 *open_db(const char *encoding) {
  return open_db_with(NULL, encoding);
}

/* A database file (NULL: in memory). */
static inline sqlite3 *open_db_at(const char *path) {
  return open_db_with(path, NULL);
}

/* A temporary database file name, /tmp/bloom-<prefix>-<pid>-<tag>.db,
** removed (with its -wal and -shm) first; valid until the next call. */
static inline const char *temp_db_file(const char *prefix, const char *tag) {
  static char path[256];
  char extra[300];
  snprintf(path, sizeof path, "/tmp/bloom-%s-%ld-%s.db", prefix,
           (long)getpid(), tag);
  remove(path);
  snprintf(extra, sizeof extra, "%s-wal", path);
  remove(extra);
  snprintf(extra, sizeof extra, "%s-shm", path);
  remove(extra);
  return path;
}

/* A recursive CTE of integers lo..hi as s(x) (libsqlite3 has no
** generate_series); lo and hi are SQL text, e.g. SERIES("1", "?2"). */
#define SERIES(lo, hi)                                              \
  "WITH RECURSIVE s(x) AS (SELECT " lo " UNION ALL SELECT x + 1 FROM s " \
  "WHERE x < " hi ") "

#endif
