/*
** What the SQL benchmark drivers share: a connection with the
** extension loaded and the benchmarks' settings, one-value queries that
** stop the run when they fail, the clock, dropping the OS page cache, and
** the target line.  Define
** BENCH_NAME (the prefix of error messages) before including; set so_path
** (the extension) before open_db.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef BENCH_SQLBENCH_H
#define BENCH_SQLBENCH_H

#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static const char *so_path;
static int failures; /* targets failed */

/* SplitMix64: the next of a seeded sequence of well-mixed 64-bit values. */
static inline uint64_t splitmix(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static inline double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void die(sqlite3 *db, const char *what) {
  fprintf(stderr, BENCH_NAME ": %s: %s\n", what,
          db ? sqlite3_errmsg(db) : "?");
  exit(2);
}

static inline void exec(sqlite3 *db, const char *sql) {
  char *err = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, BENCH_NAME ": %s\n  %s\n", err ? err : "?", sql);
    exit(2);
  }
}

/* sqlite3_vmprintf formats (%w quotes a name), so no printf attribute on
** the functions that take them. */
static inline char *sql_of(sqlite3 *db, const char *fmt, va_list ap) {
  char *sql = sqlite3_vmprintf(fmt, ap);
  if (sql == NULL) die(db, "out of memory");
  return sql;
}

static inline void execf(sqlite3 *db, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *sql = sql_of(db, fmt, ap);
  va_end(ap);
  exec(db, sql);
  sqlite3_free(sql);
}

/* The database at path with the extension loaded, in WAL mode with
** synchronous = NORMAL, then `pragmas` run (cache and mmap sizes). */
static inline sqlite3 *open_db_with(const char *path, const char *pragmas) {
  sqlite3 *db;
  if (sqlite3_open(path, &db) != SQLITE_OK) die(db, path);
  sqlite3_enable_load_extension(db, 1);
  char *err = NULL;
  if (sqlite3_load_extension(db, so_path, "sqlite3_bloom_init", &err) !=
      SQLITE_OK) {
    fprintf(stderr, BENCH_NAME ": load %s: %s\n", so_path, err ? err : "?");
    exit(2);
  }
  exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
  exec(db, pragmas);
  return db;
}

/* open_db_with a 256 MB page cache and 1 GB of mmap. */
static inline sqlite3 *open_db(const char *path) {
  return open_db_with(path, "PRAGMA cache_size = -262144;"
                            "PRAGMA mmap_size = 1073741824");
}

/* Empties the OS page cache (root only): 1 if done.  Needs
** _DEFAULT_SOURCE (sync). */
static inline int drop_os_cache(void) {
  if (geteuid() != 0) return 0;
  sync();
  FILE *f = fopen("/proc/sys/vm/drop_caches", "w");
  if (f == NULL) return 0;
  int ok = fputs("3\n", f) >= 0;
  return fclose(f) == 0 && ok;
}

/* The first column of the first row; -1 when there is no row. */
static inline sqlite3_int64 q_int(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  int rc = sqlite3_step(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) die(db, sql);
  sqlite3_int64 v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  return v;
}

static inline sqlite3_int64 q_intf(sqlite3 *db, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *sql = sql_of(db, fmt, ap);
  va_end(ap);
  sqlite3_int64 v = q_int(db, sql);
  sqlite3_free(sql);
  return v;
}

static inline double q_real(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
      sqlite3_step(st) != SQLITE_ROW)
    die(db, sql);
  double v = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* A target line: the ratio against its limit, at most (below) or at
** least; a miss counts in failures. */
static inline void target_of(const char *name, double ratio, double limit,
                             int below) {
  int pass = below ? ratio <= limit : ratio >= limit;
  if (!pass) failures++;
  printf("  %-58s %6.2f   %s %.2f   %s\n", name, ratio, below ? "<=" : ">=",
         limit, pass ? "PASS" : "FAIL");
}

static inline int sqlbench_by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Rounds' ratios r[0..n) (n at most 64) reported by their median: a
** target line with the range under it, or an INFO line. */
static inline void ratio_report(const char *what, const double *r, int n,
                                double limit, int target) {
  double s[64], lo = r[0], hi = r[0];
  if (n > 64) n = 64;
  for (int i = 0; i < n; i++) {
    s[i] = r[i];
    lo = r[i] < lo ? r[i] : lo;
    hi = r[i] > hi ? r[i] : hi;
  }
  qsort(s, (size_t)n, sizeof *s, sqlbench_by_value);
  double m = s[n / 2];
  if (target) {
    target_of(what, m, limit, 1);
    printf("    (range %.2f-%.2f over %d rounds)\n", lo, hi, n);
  } else {
    printf("  INFO %-53s %6.2f   (range %.2f-%.2f)\n", what, m, lo, hi);
  }
}

#endif
