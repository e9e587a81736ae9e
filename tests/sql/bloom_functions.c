/*
** SQL-level tests: loads the built extension (BLOOM_SO) into in-memory
** databases through libsqlite3 and checks the SQL functions against the
** contract: value rules, NULL rules, errors, bloom_info's figures,
** bloom_ref, flags, and measured false-positive rates.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Expected figures come from the contract or from computations made here
** (popcounts, formulas, SQL's own `=`), never from the extension's output.
** Random inputs come from a fixed-seed splitmix64, printed as "# seed:".
** Bad blobs are bound with SQLITE_STATIC from exactly sized heap buffers,
** so that the ASan build sees any over-read.
*/
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/sqldb.h"
#include "lib/blob.h"
#include "lib/clock.h"
#include "lib/rng.h"
#include "lib/tap.h"

#ifdef BLOOM_STATIC
#include "functions/aligned.h" /* sql_aligned_alloc, compiled in */
#endif

/* ---- tests ------------------------------------------------------------------ */

static void test_version(sqlite3 *db) {
  tap_ok(q_int(db, "SELECT typeof(bloom_version()) = 'text' AND "
                   "length(bloom_version()) > 0", NOARGS) == 1,
         "bloom_version() returns non-empty TEXT");
}

/* 100,000 values of each storage class, specials included. */
static void fill_values(sqlite3 *db) {
  exec_ok(db, "CREATE TABLE vals(v)");
  exec_ok(db, "BEGIN");
  sqlite3_stmt *ins = prep(db, "INSERT INTO vals(v) VALUES (?1)", NOARGS);
  if (!ins) return;
  rng_seed(0x5eed1001, "no-false-negative values");
  const int per_class = 100000;

  static const sqlite3_int64 ints[] = {
      0, 1, -1, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1,
      9007199254740992LL, 9007199254740993LL, -9007199254740992LL, 42};
  static const double reals[] = {
      0.5, -0.5, -1.25, 1e-300, -1e300, 3.141592653589793, 1.7976931348623157e308,
      -2.2250738585072014e-308, 0.1, 9223372036854775808.0,
      -9223372036854775808.0, -0.0, 1e15 + 0.5, -123456.789, 42.0};
  static const char *texts[] = {"", "ü", "日本", "😀", "a", "\xef\xbb\xbf",
                                "Grüße, 世界! 🎉", "42", "NULL", " "};
  static const char *pool[] = {"a", "b", "z", "0", " ", "ü", "é", "ß", "日",
                               "本", "中", "€", "😀", "🎉", "\\", "'"};
  char buf[256];
  unsigned char bytes[64];

  for (int c = 0; c < 4; c++) {
    for (int i = 0; i < per_class; i++) {
      sqlite3_reset(ins);
      switch (c) {
        case 0: {
          sqlite3_int64 v;
          if (i < (int)(sizeof ints / sizeof *ints)) v = ints[i];
          else v = (sqlite3_int64)(rng_next() >> (rng_next() % 64));
          if (i >= (int)(sizeof ints / sizeof *ints) && (rng_next() & 1))
            v = -v;
          sqlite3_bind_int64(ins, 1, v);
          break;
        }
        case 1: {
          double v;
          if (i < (int)(sizeof reals / sizeof *reals)) v = reals[i];
          else if (i == 20) v = INFINITY;
          else if (i == 21) v = -INFINITY;
          else {
            double m = (double)(rng_next() >> 11) - 4503599627370496.0;
            v = ldexp(m, -(int)(rng_next() % 70));
          }
          sqlite3_bind_double(ins, 1, v);
          break;
        }
        case 2: {
          if (i < (int)(sizeof texts / sizeof *texts)) {
            sqlite3_bind_text(ins, 1, texts[i], -1, SQLITE_STATIC);
          } else if (i == 30) {
            sqlite3_bind_text(ins, 1, "a\0b", 3, SQLITE_STATIC);
          } else {
            size_t len = 0, chars = (size_t)(rng_next() % 25);
            for (size_t k = 0; k < chars; k++) {
              const char *s = pool[rng_next() % (sizeof pool / sizeof *pool)];
              size_t sl = strlen(s);
              memcpy(buf + len, s, sl);
              len += sl;
            }
            sqlite3_bind_text(ins, 1, buf, (int)len, SQLITE_TRANSIENT);
          }
          break;
        }
        default: {
          int len;
          if (i == 0) len = 0;                       /* x'' */
          else if (i <= 2) len = i;                   /* x'00', x'0000' */
          else len = (int)(rng_next() % sizeof bytes);
          for (int k = 0; k < len; k++)
            bytes[k] = i <= 2 ? 0 : (unsigned char)rng_next();
          sqlite3_bind_blob(ins, 1, bytes, len, SQLITE_TRANSIENT);
          break;
        }
      }
      if (sqlite3_step(ins) != SQLITE_DONE) {
        tap_diag("insert failed: %s", sqlite3_errmsg(db));
        break;
      }
    }
  }
  sqlite3_finalize(ins);
  exec_ok(db, "COMMIT");
}

static void test_no_false_negatives(sqlite3 *db) {
  fill_values(db);
  tap_ok(q_int(db, "SELECT count(*) = 4 AND min(c) = 100000 AND max(c) = 100000"
                   " AND sum(t = 'blob') = 1 FROM (SELECT typeof(v) AS t, "
                   "count(*) AS c FROM vals GROUP BY 1)", NOARGS) == 1 &&
             q_int(db, "SELECT count(*) FROM (VALUES (''), (x''), ('ü'), "
                       "('日本'), ('😀'), (9223372036854775807), "
                       "(-9223372036854775808), (-1e300), (1e999)) AS sp "
                       "WHERE EXISTS (SELECT 1 FROM vals WHERE v = "
                       "sp.column1 AND typeof(v) = typeof(sp.column1))",
                   NOARGS) == 9,
         "the value table holds 100,000 values of each class incl. specials");
  exec_ok(db, "CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB)");
  double t0 = now();
  exec_ok(db, "INSERT INTO filters SELECT 'all', bloom_build(v, 400000, 0.01) "
              "FROM vals");
  tap_diag("bloom_build over 400,000 rows: %.3f s", now() - t0);
  int len;
  unsigned char *f = q_blob(db, "SELECT f FROM filters WHERE name = 'all'",
                            NOARGS, &len);
  if (!f) {
    tap_ok(0, "bloom_build over the value table");
    return;
  }
  sqlite3_int64 misses = q_int(
      db, "SELECT count(*) FROM vals WHERE bloom_test(?1, v) IS NOT 1",
      ARGS(a_blob(f, len)));
  TAP_EQ_U64(misses, 0, "no false negatives over 400,000 values (bound filter)");
  misses = q_int(db,
                 "SELECT count(*) FROM bloom_ref((SELECT f FROM filters WHERE "
                 "name = 'all')) AS r CROSS JOIN vals "
                 "WHERE bloom_test(r.filter, vals.v) IS NOT 1",
                 NOARGS);
  TAP_EQ_U64(misses, 0, "no false negatives over 400,000 values (bloom_ref)");
  TAP_EQ_U64(q_int(db, "SELECT inserted FROM bloom_info(?1)",
                   ARGS(a_blob(f, len))),
             400000, "inserted counts every non-NULL row");
  free(f);
}

/* Measured rate at capacity: 100,000 distinct values in, `probes` absent
** values tested, against the bound p + 3 sqrt(p(1-p)/N).  Also checks
** bloom_info's estimated_fpr against the measured rate (15% relative). */
static void test_fpr(sqlite3 *db, double p, sqlite3_int64 probes, int text) {
  const char *build =
      text ? SERIES("1", "100000")
                 "SELECT bloom_build('item:' || x, 100000, ?1) FROM s"
           : SERIES("1", "100000") "SELECT bloom_build(x, 100000, ?1) FROM s";
  const char *present =
      text ? SERIES("1", "100000")
                 "SELECT count(*) FROM s WHERE NOT bloom_test(?1, 'item:' || x)"
           : SERIES("1", "100000")
                 "SELECT count(*) FROM s WHERE NOT bloom_test(?1, x)";
  const char *absent =
      text ? SERIES("1", "?2")
                 "SELECT count(*) FROM s WHERE bloom_test(?1, 'probe:' || x)"
           : SERIES("1000000001", "1000000000 + ?2")
                 "SELECT count(*) FROM s WHERE bloom_test(?1, x)";
  int len;
  unsigned char *f = q_blob(db, build, ARGS(a_real(p)), &len);
  if (!f) {
    tap_ok(0, "build a filter for p = %g", p);
    return;
  }
  TAP_EQ_U64(q_int(db, present, ARGS(a_blob(f, len))), 0,
             "p=%g: all 100,000 inserted %s values test 1", p,
             text ? "text" : "integer");
  double t0 = now();
  sqlite3_int64 fp = q_int(db, absent, ARGS(a_blob(f, len), a_int(probes)));
  double secs = now() - t0;
  double rate = (double)fp / (double)probes;
  double bound = p + 3 * sqrt(p * (1 - p) / (double)probes);
  sqlite3_int64 bits = q_int(db, "SELECT bits FROM bloom_info(?1)",
                             ARGS(a_blob(f, len)));
  double est = q_real(db, "SELECT estimated_fpr FROM bloom_info(?1)",
                      ARGS(a_blob(f, len)));
  tap_diag("p=%g (%s): measured fpr %.6f = %lld / %lld probes, bound %.6f, "
           "%.3f bits/item, estimated_fpr %.6f, probing %.2f s",
           p, text ? "text" : "integers", rate, (long long)fp,
           (long long)probes, bound, (double)bits / 100000.0, est, secs);
  tap_ok(rate <= bound,
         "p=%g: measured fpr %.6f <= p + 3 sigma = %.6f over %lld probes", p,
         rate, bound, (long long)probes);
  tap_ok(fabs(est - rate) <= 0.15 * rate,
         "p=%g: bloom_info estimated_fpr %.6f within 15%% of measured %.6f", p,
         est, rate);
  free(f);
}

static void test_info_values(sqlite3 *db, sqlite3_int64 n) {
  /* n distinct integers, then the first n/10 again: inserted = 1.1 n. */
  sqlite3_int64 total = n + n / 10;
  int len;
  unsigned char *f = q_blob(
      db,
      SERIES("1", "?2")
      "SELECT bloom_build(CASE WHEN x <= ?1 THEN x ELSE x - ?1 END, ?1, 0.01) "
      "FROM s",
      ARGS(a_int(n), a_int(total)), &len);
  if (!f || len < 64) {
    tap_ok(0, "build a filter of %lld items", (long long)n);
    free(f);
    return;
  }
  uint64_t hdr_bits = le64(f + 16);
  uint32_t hdr_k = le32(f + 12);
  uint64_t pop = popcount_bytes(f + 64, (size_t)len - 64);

  sqlite3_stmt *st = prep(db, "SELECT * FROM bloom_info(?1)",
                          ARGS(a_blob(f, len)));
  if (!st || sqlite3_step(st) != SQLITE_ROW) {
    tap_ok(0, "bloom_info returns a row");
    sqlite3_finalize(st);
    free(f);
    return;
  }
  static const char *names[] = {
      "kind", "version", "hash", "bits", "hashes", "bytes", "capacity",
      "target_fpr", "inserted", "bits_set", "fill_ratio", "estimated_items",
      "estimated_fpr"};
  static const int types[] = {
      SQLITE_TEXT, SQLITE_INTEGER, SQLITE_TEXT, SQLITE_INTEGER,
      SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_FLOAT,
      SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_FLOAT,
      SQLITE_FLOAT};
  int cols_ok = sqlite3_column_count(st) == 13;
  for (int i = 0; cols_ok && i < 13; i++) {
    const char *nm = sqlite3_column_name(st, i);
    if (!nm || strcmp(nm, names[i]) != 0 ||
        sqlite3_column_type(st, i) != types[i]) {
      cols_ok = 0;
      tap_diag("  column %d: %s type %d", i, nm ? nm : "?",
               sqlite3_column_type(st, i));
    }
  }
  tap_ok(cols_ok, "n=%lld: bloom_info columns are exactly kind..estimated_fpr "
                  "with the documented types", (long long)n);
  const char *kind = (const char *)sqlite3_column_text(st, 0);
  const char *hash = (const char *)sqlite3_column_text(st, 2);
  sqlite3_int64 bits = sqlite3_column_int64(st, 3);
  sqlite3_int64 k = sqlite3_column_int64(st, 4);
  sqlite3_int64 bytes = sqlite3_column_int64(st, 5);
  double fill = sqlite3_column_double(st, 10);
  double items = sqlite3_column_double(st, 11);
  double efpr = sqlite3_column_double(st, 12);
  tap_ok(kind && strcmp(kind, "bloom") == 0 &&
             sqlite3_column_int64(st, 1) == 1 && hash &&
             strcmp(hash, "murmur3_x64_128") == 0 &&
             sqlite3_column_int64(st, 6) == n &&
             sqlite3_column_double(st, 7) == 0.01,
         "n=%lld: kind, version, hash, capacity, target_fpr echo the inputs",
         (long long)n);
  tap_ok(bits > 0 && bits % 512 == 0 && (uint64_t)bits == hdr_bits &&
             k >= 1 && k <= 64 && (uint64_t)k == hdr_k &&
             bytes == 64 + bits / 8 && bytes == len,
         "n=%lld: bits (%lld) multiple of 512, hashes = header k, "
         "bytes = 64 + bits/8 = length(f)", (long long)n, (long long)bits);
  TAP_EQ_U64(sqlite3_column_int64(st, 8), total,
             "n=%lld: inserted counts duplicates", (long long)n);
  TAP_EQ_U64(sqlite3_column_int64(st, 9), pop,
             "n=%lld: bits_set = popcount of the body", (long long)n);
  double want_fill = (double)pop / (double)bits;
  tap_ok(fabs(fill - want_fill) <= 1e-12 * want_fill,
         "n=%lld: fill_ratio = bits_set / bits", (long long)n);
  double want_items =
      -((double)bits / (double)k) * log(1.0 - (double)pop / (double)bits);
  tap_ok(fabs(items - want_items) <= 1e-9 * want_items,
         "n=%lld: estimated_items = -(m/k) ln(1 - X/m)", (long long)n);
  tap_diag("n=%lld: estimated_items %.1f (%.2f%% off), estimated_fpr %.5f",
           (long long)n, items, 100.0 * (items - (double)n) / (double)n, efpr);
  tap_ok(fabs(items - (double)n) <= 0.03 * (double)n,
         "n=%lld: estimated_items %.0f within 3%% of the distinct count",
         (long long)n, items);
  tap_ok(efpr > 0 && efpr < 0.02, "n=%lld: estimated_fpr %.5f is near p",
         (long long)n, efpr);
  sqlite3_finalize(st);
  free(f);
}

static void test_info_extremes(sqlite3 *db) {
  /* A one-block filter with far more items than bits: every bit set. */
  int len;
  unsigned char *f = q_blob(
      db, SERIES("1", "20000") "SELECT bloom_build(x, 1, 0.5) FROM s", NOARGS,
      &len);
  if (f && len >= 64) {
    uint64_t pop = popcount_bytes(f + 64, (size_t)len - 64);
    sqlite3_int64 bits = q_int(db, "SELECT bits FROM bloom_info(?1)",
                               ARGS(a_blob(f, len)));
    int est_null = q_int(db, "SELECT estimated_items IS NULL AND "
                             "fill_ratio = 1.0 AND bits_set = bits "
                             "FROM bloom_info(?1)",
                         ARGS(a_blob(f, len))) == 1;
    tap_ok(pop == (uint64_t)bits && est_null,
           "a full filter: bits_set = bits, fill_ratio 1, estimated_items NULL");
  } else {
    tap_ok(0, "build a full filter");
  }
  free(f);
}

static void test_info_correlated(sqlite3 *db) {
  exec_ok(db,
          "CREATE TABLE cf(name TEXT PRIMARY KEY, f BLOB);"
          "INSERT INTO cf SELECT 'a', bloom_build(x, 1000, 0.01) FROM "
          "(" SERIES("1", "100") "SELECT x FROM s);"
          "INSERT INTO cf SELECT 'b', bloom_build(x, 2000, 0.001) FROM "
          "(" SERIES("1", "500") "SELECT x FROM s);"
          "INSERT INTO cf SELECT 'c', bloom_build('t' || x, 100, 0.1) FROM "
          "(" SERIES("1", "50") "SELECT x FROM s);"
          "INSERT INTO cf VALUES ('z', NULL);");
  sqlite3_stmt *st = prep(db,
                          "SELECT name, i.capacity, i.target_fpr, i.inserted, "
                          "i.bytes = length(cf.f) "
                          "FROM cf, bloom_info(cf.f) AS i ORDER BY name",
                          NOARGS);
  static const struct {
    const char *name;
    sqlite3_int64 cap;
    double p;
    sqlite3_int64 ins;
  } want[] = {{"a", 1000, 0.01, 100}, {"b", 2000, 0.001, 500},
              {"c", 100, 0.1, 50}};
  int rows = 0, good = 0;
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    if (rows < 3) {
      const char *nm = (const char *)sqlite3_column_text(st, 0);
      if (nm && strcmp(nm, want[rows].name) == 0 &&
          sqlite3_column_int64(st, 1) == want[rows].cap &&
          sqlite3_column_double(st, 2) == want[rows].p &&
          sqlite3_column_int64(st, 3) == want[rows].ins &&
          sqlite3_column_int64(st, 4) == 1)
        good++;
    }
    rows++;
  }
  sqlite3_finalize(st);
  tap_ok(rows == 3 && good == 3,
         "bloom_info(cf.f) correlated: one row per non-NULL filter with its "
         "own figures (%d rows, %d right)", rows, good);
  st = prep(db, "SELECT name, i.* FROM cf, bloom_info(cf.f) AS i", NOARGS);
  rows = 0;
  int ncol = st ? sqlite3_column_count(st) : 0;
  while (st && sqlite3_step(st) == SQLITE_ROW) rows++;
  sqlite3_finalize(st);
  tap_ok(rows == 3 && ncol == 14,
         "the documented form SELECT name, i.* ... gives 3 rows of 14 columns");
}

static void test_order_independence(sqlite3 *db) {
  exec_ok(db, "CREATE TABLE o(id INTEGER PRIMARY KEY, v, k INTEGER)");
  rng_seed(0x5eed1002, "order-independence values and shuffle keys");
  sqlite3_stmt *ins = prep(db, "INSERT INTO o(v, k) VALUES (?1, ?2)", NOARGS);
  exec_ok(db, "BEGIN");
  char buf[32];
  for (int i = 0; i < 3000 && ins; i++) {
    sqlite3_reset(ins);
    uint64_t r = rng_next();
    switch (r % 6) {
      case 0: sqlite3_bind_int64(ins, 1, (sqlite3_int64)(r >> 40) % 500); break;
      case 1: sqlite3_bind_double(ins, 1, (double)(r >> 40) / 7.0); break;
      case 2:
        snprintf(buf, sizeof buf, "t%llu", (unsigned long long)(r >> 50));
        sqlite3_bind_text(ins, 1, buf, -1, SQLITE_TRANSIENT);
        break;
      case 3: sqlite3_bind_blob(ins, 1, &r, 3, SQLITE_TRANSIENT); break;
      case 4: sqlite3_bind_null(ins, 1); break;
      default: sqlite3_bind_int64(ins, 1, 7); break; /* many duplicates */
    }
    sqlite3_bind_int64(ins, 2, (sqlite3_int64)(rng_next() >> 1));
    sqlite3_step(ins);
  }
  sqlite3_finalize(ins);
  exec_ok(db, "COMMIT");

  static const char *orders[] = {"id", "id DESC", "k", "v, id"};
  unsigned char *blobs[4] = {0};
  int lens[4] = {0};
  char *seqs[4] = {0};
  for (int i = 0; i < 4; i++) {
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT bloom_build(v, 3000, 0.01), group_concat(id) FROM "
             "(SELECT id, v FROM o ORDER BY %s)", orders[i]);
    sqlite3_stmt *st = prep(db, sql, NOARGS);
    if (st && sqlite3_step(st) == SQLITE_ROW) {
      lens[i] = sqlite3_column_bytes(st, 0);
      blobs[i] = dup_exact(sqlite3_column_blob(st, 0), (size_t)lens[i]);
      const char *s = (const char *)sqlite3_column_text(st, 1);
      seqs[i] = s ? strdup(s) : NULL;
    }
    sqlite3_finalize(st);
  }
  int same = 1, orders_differ = 1;
  for (int i = 1; i < 4; i++) {
    if (!blobs[0] || !blobs[i] || lens[i] != lens[0] ||
        memcmp(blobs[i], blobs[0], (size_t)lens[0]) != 0)
      same = 0;
    for (int j = 0; j < i; j++)
      if (!seqs[i] || !seqs[j] || strcmp(seqs[i], seqs[j]) == 0)
        orders_differ = 0;
  }
  tap_ok(orders_differ, "the four row orders really differ");
  tap_ok(same && lens[0] > 64,
         "ascending, descending, shuffled and by-value orders give the same "
         "blob");
  for (int i = 0; i < 4; i++) {
    free(blobs[i]);
    free(seqs[i]);
  }
}

static void test_group_by(sqlite3 *db) {
  exec_ok(db, "CREATE TABLE g(grp INTEGER, v)");
  rng_seed(0x5eed1003, "GROUP BY rows");
  sqlite3_stmt *ins = prep(db, "INSERT INTO g VALUES (?1, ?2)", NOARGS);
  exec_ok(db, "BEGIN");
  for (int i = 0; i < 4000 && ins; i++) {
    sqlite3_reset(ins);
    uint64_t r = rng_next();
    sqlite3_bind_int64(ins, 1, (sqlite3_int64)(r % 5));
    if ((r >> 8) % 3 == 0)
      sqlite3_bind_text(ins, 2, (r >> 20) & 1 ? "x" : "y", -1, SQLITE_STATIC);
    else
      sqlite3_bind_int64(ins, 2, (sqlite3_int64)((r >> 16) % 2000));
    sqlite3_step(ins);
  }
  sqlite3_finalize(ins);
  exec_ok(db, "INSERT INTO g VALUES (5, NULL), (5, NULL), (5, NULL); COMMIT");

  sqlite3_stmt *st = prep(db,
                          "SELECT grp, bloom_build(v, 1000, 0.01) FROM g "
                          "GROUP BY grp ORDER BY grp",
                          NOARGS);
  int groups = 0, equal = 0;
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    sqlite3_int64 grp = sqlite3_column_int64(st, 0);
    int len_g = sqlite3_column_bytes(st, 1);
    unsigned char *fg = dup_exact(sqlite3_column_blob(st, 1), (size_t)len_g);
    int len_s;
    unsigned char *fs = q_blob(db,
                               "SELECT bloom_build(v, 1000, 0.01) FROM g "
                               "WHERE grp = ?1",
                               ARGS(a_int(grp)), &len_s);
    if (fs && len_s == len_g && memcmp(fs, fg, (size_t)len_g) == 0) equal++;
    else tap_diag("  group %lld differs", (long long)grp);
    free(fs);
    free(fg);
    groups++;
  }
  sqlite3_finalize(st);
  tap_ok(groups == 6 && equal == 6,
         "GROUP BY: each group's filter equals the one built over that "
         "group alone (%d of %d)", equal, groups);
  tap_ok(q_int(db, "SELECT i.inserted = 0 AND i.bits_set = 0 FROM "
                   "(SELECT bloom_build(v, 1000, 0.01) AS f FROM g "
                   "WHERE grp = 5) AS q, bloom_info(q.f) AS i", NOARGS) == 1,
         "GROUP BY: a group of only NULLs gives an empty filter");
}

static void test_value_rules(sqlite3 *db) {
  static const struct {
    const char *in, *probe;
    int same;
  } pairs[] = {
      {"42", "42.0", 1},
      {"42.0", "42", 1},
      {"42", "'42'", 0},
      {"42", "x'3432'", 0},
      {"'42'", "42", 0},
      {"x'3432'", "42", 0},
      {"'42'", "x'3432'", 0},
      {"x'3432'", "'42'", 0},
      {"'abc'", "x'616263'", 0},
      {"x'616263'", "'abc'", 0},
      {"'abc'", "'abc'", 1},
      {"'abc'", "'ABC'", 0},
      {"'abc'", "'abc '", 0},
      {"-0.0", "0", 1},
      {"0", "-0.0", 1},
      {"0.0", "0", 1},
      {"9007199254740992", "9007199254740992.0", 1},
      {"9007199254740992.0", "9007199254740992", 1},
      {"9007199254740993", "9007199254740992.0", 0},
      {"9223372036854775807", "9223372036854775808.0", 0},
      {"9223372036854775808.0", "9223372036854775807", 0},
      {"-9223372036854775808", "-9223372036854775808.0", 1},
      {"-9223372036854775808.0", "-9223372036854775808", 1},
      {"0.5", "0", 0},
      {"1.5", "1", 0},
      {"100", "1e2", 1},
      {"''", "x''", 0},
      {"x''", "''", 0},
      {"'ü'", "x'c3bc'", 0},
      {"x'00'", "x''", 0},
      {"x'0000'", "x'00'", 0},
      {"1e999", "1e999", 1},
      {"1e999", "-1e999", 0},
      {"'日本'", "'日本'", 1},
      {"'😀'", "'😀'", 1},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT bloom_test(bloom_build(a, 1000, 1e-6), %s) * 10 + "
             "(a = %s) FROM (SELECT %s AS a)",
             pairs[i].probe, pairs[i].probe, pairs[i].in);
    sqlite3_int64 r = q_int(db, sql, NOARGS);
    int hit = (int)(r / 10), eq = (int)(r % 10);
    if (!tap_ok(q_type == SQLITE_INTEGER && hit == pairs[i].same &&
                    eq == pairs[i].same,
                "filter of {%s} tests %s -> %d (SQL = says %d)", pairs[i].in,
                pairs[i].probe, pairs[i].same, eq))
      tap_diag("  got bloom_test %d", hit);
  }
  /* Bound values, where -0.0 keeps its sign bit. */
  const char *sql = "SELECT bloom_test(bloom_build(?1, 1000, 1e-6), ?2)";
  tap_ok(q_int(db, sql, ARGS(a_real(-0.0), a_int(0))) == 1 &&
             q_int(db, sql, ARGS(a_int(0), a_real(-0.0))) == 1 &&
             q_int(db, sql, ARGS(a_real(-0.0), a_real(0.0))) == 1,
         "bound -0.0 and 0 / 0.0 are the same item, both directions");
  tap_ok(q_int(db, sql, ARGS(a_int(9007199254740992LL),
                             a_real(9007199254740992.0))) == 1 &&
             q_int(db, sql, ARGS(a_real(9007199254740992.0),
                                 a_int(9007199254740992LL))) == 1,
         "bound 2^53 integer and real are the same item");
}

/* A filter built in a UTF-8 database answers the same in UTF-16 ones and
** vice versa; the blobs themselves are identical. */
static void test_utf16(void) {
  static const char *in[] = {"ü", "日本", "😀", "plain", "", "Grüße, 世界",
                             ("\xef\xbb\xbf" "bom")};
  static const char *out[] = {"u", "日", "😁", "Plain", " ", "Grüsse, 世界"};
  static const char *encs[] = {NULL, "UTF-16le", "UTF-16be"};
  sqlite3 *db[3];
  unsigned char *f[3] = {0};
  int len[3] = {0};
  int enc_ok = 1;
  for (int e = 0; e < 3; e++) {
    db[e] = open_db(encs[e]);
    exec_ok(db[e], "CREATE TABLE w(v TEXT); CREATE TABLE x(v TEXT)");
    for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
      sqlite3_stmt *st = prep(db[e], "INSERT INTO w VALUES (?1)",
                              ARGS(a_text(in[i])));
      if (st) sqlite3_step(st);
      sqlite3_finalize(st);
    }
    for (size_t i = 0; i < sizeof out / sizeof *out; i++) {
      sqlite3_stmt *st = prep(db[e], "INSERT INTO x VALUES (?1)",
                              ARGS(a_text(out[i])));
      if (st) sqlite3_step(st);
      sqlite3_finalize(st);
    }
    sqlite3_stmt *st = prep(db[e], "PRAGMA encoding", NOARGS);
    const char *want = encs[e] ? encs[e] : "UTF-8";
    if (!st || sqlite3_step(st) != SQLITE_ROW ||
        strcmp((const char *)sqlite3_column_text(st, 0), want) != 0)
      enc_ok = 0;
    sqlite3_finalize(st);
    f[e] = q_blob(db[e], "SELECT bloom_build(v, 100, 1e-6) FROM w", NOARGS,
                  &len[e]);
  }
  tap_ok(enc_ok, "databases really are UTF-8, UTF-16le, UTF-16be");
  tap_ok(f[0] && f[1] && f[2] && len[0] == len[1] && len[0] == len[2] &&
             memcmp(f[0], f[1], (size_t)len[0]) == 0 &&
             memcmp(f[0], f[2], (size_t)len[0]) == 0,
         "the same texts give the same blob in UTF-8 and UTF-16 databases");
  const int n_in = (int)(sizeof in / sizeof *in);
  for (int from = 0; from < 3; from++) {
    for (int to = 0; to < 3; to++) {
      if (from == to) continue;
      if (!f[from]) {
        tap_ok(0, "filter built in %s", encs[from] ? encs[from] : "UTF-8");
        continue;
      }
      sqlite3_int64 hits = q_int(db[to],
                                 "SELECT count(*) FROM w WHERE bloom_test(?1, v)",
                                 ARGS(a_blob(f[from], len[from])));
      sqlite3_int64 false_hits = q_int(
          db[to], "SELECT count(*) FROM x WHERE bloom_test(?1, v)",
          ARGS(a_blob(f[from], len[from])));
      tap_ok(hits == n_in && false_hits == 0,
             "filter built in %s: all %d texts test 1 and 6 others 0 in %s",
             encs[from] ? encs[from] : "UTF-8", n_in,
             encs[to] ? encs[to] : "UTF-8");
    }
  }
  /* A UTF-16 bound value in the UTF-8 database. */
  sqlite3_stmt *st = prep(db[0], "SELECT bloom_test(?1, ?2)",
                          ARGS(a_blob(f[0], len[0])));
  int ok16 = 0;
  if (st) {
    static const unsigned short u16[] = {0x65e5, 0x672c}; /* 日本 */
    sqlite3_bind_text16(st, 2, u16, (int)sizeof u16, SQLITE_STATIC);
    ok16 = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
  }
  sqlite3_finalize(st);
  tap_ok(ok16, "a value bound as UTF-16 tests like its UTF-8 form");
  for (int e = 0; e < 3; e++) {
    free(f[e]);
    sqlite3_close(db[e]);
  }
}

static void test_null_rules(sqlite3 *db) {
  int len;
  unsigned char *f = q_blob(db, "SELECT bloom_build(1, 10, 0.01)", NOARGS,
                            &len);
  tap_ok(q_int(db, "SELECT typeof(bloom_test(NULL, 1)) = 'null' AND "
                   "typeof(bloom_test(?1, NULL)) = 'null' AND "
                   "typeof(bloom_test(NULL, NULL)) = 'null'",
               ARGS(a_blob(f, len))) == 1,
         "bloom_test is NULL when the filter or the value is NULL");
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM bloom_info(NULL)", NOARGS), 0,
             "bloom_info(NULL) gives no row");
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM bloom_ref(NULL)", NOARGS), 0,
             "bloom_ref(NULL) gives no row");
  tap_ok(q_int(db, "SELECT typeof(bloom_build(x, 10, 0.01)) = 'null' "
                   "FROM (SELECT 1 AS x WHERE 0)", NOARGS) == 1,
         "a group with no rows gives NULL");
  tap_ok(q_int(db, "SELECT i.inserted = 0 AND i.bits_set = 0 AND "
                   "i.estimated_items = 0 AND bloom_test(q.f, 1) = 0 "
                   "FROM (SELECT bloom_build(NULL, 10, 0.01) AS f FROM "
                   "(SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3)) AS q, "
                   "bloom_info(q.f) AS i", NOARGS) == 1,
         "a group of only NULLs gives a valid empty filter");
  TAP_EQ_U64(q_int(db, "SELECT i.inserted FROM (SELECT bloom_build(v, 10, "
                       "0.01) AS f FROM (SELECT 1 AS v UNION ALL SELECT NULL "
                       "UNION ALL SELECT 2 UNION ALL SELECT NULL UNION ALL "
                       "SELECT 2)) AS q, bloom_info(q.f) AS i", NOARGS),
             3, "NULL values are skipped, duplicates counted");
  free(f);
}

static void test_build_errors(sqlite3 *db) {
  static const char *bad_n[] = {"2.5",  "1e30", "-9223372036854775808",
                                "0",    "-1",   "'1e30'",
                                "'10'", "x'0a'", "0.5", "-1.0"};
  static const char *bad_p[] = {"0",   "1",      "1e999", "-1e999", "2",
                                "-0.5", "'0.01'", "NULL", "0.0",   "1.0",
                                "1e-13", "x'01'"};
  char sql[256], name[128];
  for (size_t i = 0; i < sizeof bad_n / sizeof *bad_n; i++) {
    snprintf(sql, sizeof sql, "SELECT bloom_build(1, %s, 0.01)", bad_n[i]);
    snprintf(name, sizeof name, "bloom_build n = %s", bad_n[i]);
    expect_error(db, name, sql, NOARGS, "bloom_build:", 0);
  }
  for (size_t i = 0; i < sizeof bad_p / sizeof *bad_p; i++) {
    snprintf(sql, sizeof sql, "SELECT bloom_build(1, 10, %s)", bad_p[i]);
    snprintf(name, sizeof name, "bloom_build p = %s", bad_p[i]);
    expect_error(db, name, sql, NOARGS, "bloom_build:", 0);
  }
  expect_error(db, "bloom_build p = NaN (bound; SQLite makes it NULL)",
               "SELECT bloom_build(1, 10, ?1)", ARGS(a_real(NAN)),
               "bloom_build:", 0);
  expect_error(db, "bloom_build n = 10 on row 1, 11 on row 2",
               "SELECT bloom_build(column1, column2, column3) FROM "
               "(VALUES (1, 10, 0.01), (2, 11, 0.01))",
               NOARGS, "bloom_build:", 0);
  expect_error(db, "bloom_build p = 0.01 on row 1, 0.02 on row 2",
               "SELECT bloom_build(column1, column2, column3) FROM "
               "(VALUES (1, 10, 0.01), (2, 10, 0.02))",
               NOARGS, "bloom_build:", 0);
  tap_ok(q_int(db, "SELECT typeof(bloom_build(column1, column2, column3)) = "
                   "'blob' FROM (VALUES (1, 10, 0.01), (2, 10, 0.01))",
               NOARGS) == 1,
         "control: the same n and p on every row is accepted");
  tap_ok(q_int(db, "SELECT capacity = 1000 AND target_fpr = 1e-12 FROM "
                   "bloom_info((SELECT bloom_build(1, 1e3, 1e-12)))",
               NOARGS) == 1,
         "control: n = 1e3 (integral REAL) and p = 1e-12 are accepted");
  expect_error(db, "bloom_build(1, 9e18, 0.01) is TOOBIG",
               "SELECT bloom_build(1, 9000000000000000000, 0.01)", NOARGS,
               "bloom_build:", SQLITE_TOOBIG);
  int old = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 100000);
  expect_error(db, "bloom_build(n = 100000) under a 100 kB length limit",
               "SELECT bloom_build(1, 100000, 0.01)", NOARGS, "bloom_build:",
               SQLITE_TOOBIG);
  tap_ok(q_int(db, "SELECT length(bloom_build(1, 1000, 0.01)) < 100000",
               NOARGS) == 1,
         "control: a small filter still builds under that limit");
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, old);
}

/* Bad filters for bloom_test, bloom_info and bloom_ref. */
static void test_bad_filters(sqlite3 *db) {
  int len;
  unsigned char *good = q_blob(db, SERIES("1", "100")
                               "SELECT bloom_build(x, 100, 0.01) FROM s",
                               NOARGS, &len);
  if (!good || len <= 64) {
    tap_ok(0, "build a filter for the bad-filter tests");
    free(good);
    return;
  }
  static const struct {
    const char *fname, *sql;
  } fns[] = {
      {"bloom_test", "SELECT bloom_test(?1, 'x')"},
      {"bloom_info", "SELECT * FROM bloom_info(?1)"},
      {"bloom_ref", "SELECT * FROM bloom_ref(?1)"},
  };
  enum { N_BAD = 13 };
  const char *what[N_BAD] = {
      "TEXT 'abc'", "INTEGER 42", "REAL 1.5", "x''", "zeroblob(64)",
      "63 bytes", "header only", "last byte cut", "one byte appended",
      "altered magic", "version 2", "k = 0", "bits = 2^64 - 512"};
  unsigned char *bufs[N_BAD] = {0};
  int lens[N_BAD] = {0};
  bufs[3] = dup_exact("", 0);
  bufs[5] = dup_exact(good, 63), lens[5] = 63;
  bufs[6] = dup_exact(good, 64), lens[6] = 64;
  bufs[7] = dup_exact(good, (size_t)len - 1), lens[7] = len - 1;
  bufs[8] = malloc((size_t)len + 1), lens[8] = len + 1;
  if (bufs[8]) memcpy(bufs[8], good, (size_t)len), bufs[8][len] = 0;
  for (int i = 9; i < N_BAD; i++) bufs[i] = dup_exact(good, (size_t)len), lens[i] = len;
  bufs[9][0] = 'b';
  bufs[10][4] = 2;
  memset(bufs[11] + 12, 0, 4);
  /* 2^64 - 512 = 0xfffffffffffffe00, little-endian */
  memcpy(bufs[12] + 16, "\x00\xfe\xff\xff\xff\xff\xff\xff", 8);
  for (size_t f = 0; f < 3; f++) {
    unsigned char *ok_copy = dup_exact(good, (size_t)len);
    char msg[256];
    int code, xcode;
    tap_ok(!run_for_error(db, fns[f].sql, ARGS(a_blob(ok_copy, len)), msg,
                          sizeof msg, &code, &xcode),
           "%s accepts the valid filter (exact buffer) %s", fns[f].fname, msg);
    free(ok_copy);
    for (int b = 0; b < N_BAD; b++) {
      arg a;
      if (b == 0) a = a_text("abc");
      else if (b == 1) a = a_int(42);
      else if (b == 2) a = a_real(1.5);
      else if (b == 4) a = a_zeroblob(64);
      else a = a_blob(bufs[b], lens[b]);
      char name[128], prefix[64];
      snprintf(name, sizeof name, "%s(%s)", fns[f].fname, what[b]);
      snprintf(prefix, sizeof prefix, "%s:", fns[f].fname);
      expect_error(db, name, fns[f].sql, &a, 1, prefix, 0);
    }
  }
  expect_error(db, "bloom_info without an argument", "SELECT * FROM bloom_info",
               NOARGS, "bloom_info:", 0);
  expect_error(db, "bloom_ref without an argument", "SELECT * FROM bloom_ref",
               NOARGS, "bloom_ref:", 0);
  for (int i = 0; i < N_BAD; i++) free(bufs[i]);
  free(good);
}

static void test_flags(sqlite3 *db) {
  sqlite3_stmt *st = prep(db,
                          "SELECT name, narg, enc, flags FROM "
                          "pragma_function_list WHERE name LIKE 'bloom%' "
                          "AND name <> 'bloom_probe'",
                          NOARGS);
  int rows = 0, bad = 0, have_build = 0, have_test = 0, have_version = 0;
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    int narg = sqlite3_column_int(st, 1);
    const char *enc = (const char *)sqlite3_column_text(st, 2);
    sqlite3_int64 flags = sqlite3_column_int64(st, 3);
    rows++;
    if (!(flags & 0x800) || !(flags & 0x200000) || !enc ||
        strcmp(enc, "utf8") != 0) {
      bad++;
      tap_diag("  %s/%d: enc %s flags 0x%llx", name, narg, enc,
               (unsigned long long)flags);
    }
    if (!name) continue;
    if (strcmp(name, "bloom_build") == 0 && narg == 3) have_build = 1;
    if (strcmp(name, "bloom_test") == 0 && narg == 2) have_test = 1;
    if (strcmp(name, "bloom_version") == 0 && narg == 0) have_version = 1;
  }
  sqlite3_finalize(st);
  tap_ok(have_build && have_test && have_version,
         "function_list has bloom_build/3, bloom_test/2, bloom_version/0");
  tap_ok(rows > 0 && bad == 0,
         "all %d bloom_* functions are utf8, DETERMINISTIC (0x800) and "
         "INNOCUOUS (0x200000)", rows);
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM pragma_module_list WHERE name IN "
                       "('bloom_info', 'bloom_ref')", NOARGS),
             2, "bloom_info and bloom_ref are registered modules");
}

static void unsafe_probe(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  sqlite3_result_int(ctx, 1);
}

static void test_trusted_schema(void) {
  sqlite3 *db = open_db(NULL);
  sqlite3_create_function(db, "unsafe_probe", 0, SQLITE_UTF8, NULL,
                          unsafe_probe, NULL, NULL);
  int ok = exec_ok(
      db,
      "CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);"
      "CREATE TABLE items(v);"
      "CREATE TABLE log(v, hit);"
      "INSERT INTO filters SELECT 'x', bloom_build(x, 100, 1e-6) FROM "
      "(" SERIES("1", "100") "SELECT x FROM s);"
      "CREATE TRIGGER trg AFTER INSERT ON items BEGIN "
      "  INSERT INTO log SELECT new.v, bloom_test(f, new.v) FROM filters "
      "  WHERE name = 'x'; END;"
      "CREATE VIEW vb AS SELECT bloom_build(v, 100, 0.01) AS f FROM items;"
      "CREATE VIEW vi AS SELECT name, i.inserted FROM filters, "
      "  bloom_info(filters.f) AS i;"
      "CREATE VIEW vr AS SELECT count(*) AS hits FROM bloom_ref((SELECT f "
      "  FROM filters WHERE name = 'x')) AS r CROSS JOIN items "
      "  WHERE bloom_test(r.filter, items.v);"
      "CREATE VIEW vu AS SELECT unsafe_probe() AS u;"
      "PRAGMA trusted_schema = OFF;");
  tap_ok(ok && q_int(db, "PRAGMA trusted_schema", NOARGS) == 0,
         "schema with trigger and views created, trusted_schema = OFF");
  expect_error(db, "control: a view calling a non-INNOCUOUS function fails",
               "SELECT u FROM vu", NOARGS, "unsafe use of", 0);
  tap_ok(exec_ok(db, "INSERT INTO items VALUES (5), (1000)") &&
             q_int(db, "SELECT count(*) = 2 AND sum(v = 5 AND hit = 1) = 1 "
                       "AND sum(v = 1000 AND hit = 0) = 1 FROM log",
                   NOARGS) == 1,
         "a trigger calling bloom_test works under trusted_schema=OFF");
  tap_ok(q_int(db, "SELECT bloom_test(f, 5) FROM vb", NOARGS) == 1,
         "a view calling bloom_build works under trusted_schema=OFF");
  TAP_EQ_U64(q_int(db, "SELECT inserted FROM vi", NOARGS), 100,
             "a view calling bloom_info works under trusted_schema=OFF");
  TAP_EQ_U64(q_int(db, "SELECT hits FROM vr", NOARGS), 1,
             "a view using bloom_ref works under trusted_schema=OFF");
  sqlite3_close(db);
}

#define REF_FORM                                                         \
  "SELECT count(*) FROM bloom_ref((SELECT f FROM rf WHERE name = 'x')) " \
  "AS r CROSS JOIN t WHERE bloom_test(r.filter, t.v)"

static void test_ref(sqlite3 *db) {
  exec_ok(db,
          "CREATE TABLE rf(name TEXT PRIMARY KEY, f BLOB);"
          "INSERT INTO rf SELECT 'x', bloom_build(x, 5000, 0.05) FROM "
          "(" SERIES("1", "5000") "SELECT x FROM s);"
          "CREATE TABLE t(v);"
          "INSERT INTO t " SERIES("1", "20000") "SELECT x FROM s;"
          "INSERT INTO t " SERIES("1", "2000") "SELECT 'k' || x FROM s;");
  int len;
  unsigned char *f = q_blob(db, "SELECT f FROM rf WHERE name = 'x'", NOARGS,
                            &len);
  sqlite3_int64 via_ref = q_int(db, REF_FORM, NOARGS);
  sqlite3_int64 via_param = q_int(
      db, "SELECT count(*) FROM t WHERE bloom_test(?1, t.v)",
      ARGS(a_blob(f, len)));
  sqlite3_int64 via_subq = q_int(
      db,
      "SELECT count(*) FROM t WHERE bloom_test((SELECT f FROM rf "
      "WHERE name = 'x'), t.v)",
      NOARGS);
  tap_diag("bloom_ref form: %lld of 22000 rows test 1", (long long)via_ref);
  tap_ok(via_ref == via_param && via_ref == via_subq && via_ref >= 5000,
         "bloom_ref form, bound filter and scalar subquery agree (%lld)",
         (long long)via_ref);
  TAP_EQ_U64(q_int(db,
                   "SELECT count(*) FROM bloom_ref((SELECT f FROM rf WHERE "
                   "name = 'x')) AS r CROSS JOIN t WHERE "
                   "bloom_test(r.filter, t.v) IS NOT bloom_test(?1, t.v)",
                   ARGS(a_blob(f, len))),
             0, "bloom_ref: row by row the same answers as the filter itself");
  tap_ok(q_int(db,
               "SELECT count(*) = 1 AND max(i.bytes = length((SELECT f FROM rf))) "
               "AND max(i.bits_set) = (SELECT bits_set FROM bloom_info((SELECT f FROM rf))) "
               "FROM bloom_ref((SELECT f FROM rf)) AS r, bloom_info(r.filter) AS i",
               NOARGS) == 1,
         "bloom_ref gives one row whose reference bloom_info reads as the filter");
  tap_ok(q_int(db,
               "SELECT r.filter IS NULL AND length(r.filter) IS NULL "
               "FROM bloom_ref((SELECT f FROM rf)) AS r", NOARGS) == 1,
         "to the rest of SQL the reference is NULL (a pointer value)");

  /* EXPLAIN QUERY PLAN: the first top-level loop is bloom_ref. */
  sqlite3_stmt *st = prep(db, "EXPLAIN QUERY PLAN " REF_FORM, NOARGS);
  char first[256] = "", second[256] = "";
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    int parent = sqlite3_column_int(st, 1);
    const char *d = (const char *)sqlite3_column_text(st, 3);
    if (parent != 0 || !d) continue;
    if (strncmp(d, "SCAN ", 5) != 0 && strncmp(d, "SEARCH ", 7) != 0) continue;
    if (!first[0]) snprintf(first, sizeof first, "%s", d);
    else if (!second[0]) snprintf(second, sizeof second, "%s", d);
  }
  sqlite3_finalize(st);
  tap_ok(strncmp(first, "SCAN r VIRTUAL TABLE", 20) == 0 &&
             strncmp(second, "SCAN t", 6) == 0,
         "EXPLAIN QUERY PLAN: bloom_ref is the outer loop (\"%s\", then "
         "\"%s\")", first, second);
  free(f);
}

/* bloom_ref in a correlated join, where SQLite calls xFilter once per outer
** row: each row's r.filter must be that row's filter, and an aggregate such
** as max() must not keep a value that points into a freed copy (with a
** BLOB returned SQLITE_STATIC it did: heap-use-after-free).  The reference
** is a pointer value, NULL to max().  Run in a child process so that a
** sanitizer abort fails this check only. */
static int ref_correlated_child(void) {
  sqlite3 *db = open_db(NULL);
  int ok = exec_ok(db,
                   "CREATE TABLE t(name, f);"
                   "INSERT INTO t SELECT 'a', bloom_build(x, 1000, 0.01) FROM "
                   "(" SERIES("1", "100") "SELECT x FROM s);"
                   "INSERT INTO t SELECT 'b', bloom_build(x, 1000, 0.01) FROM "
                   "(" SERIES("1", "200") "SELECT x FROM s);"
                   "INSERT INTO t SELECT 'c', bloom_build(x, 1000, 0.01) FROM "
                   "(" SERIES("1", "50") "SELECT x FROM s);");
  sqlite3_int64 r = q_int(db,
                          "SELECT max(r.filter) IS NULL AND min(r.filter) IS NULL "
                          "AND sum(bloom_count(r.filter) = bloom_count(t.f)) = 3 "
                          "FROM t, bloom_ref(t.f) AS r",
                          NOARGS);
  sqlite3_close(db);
  return ok && r == 1 ? 0 : 1;
}

/* Table-valued arguments that come from two different tables: SQLite must
** be made to supply both before the function runs (a plan that used only
** one of them once returned no rows at all). */
static void test_tvf_args_from_two_tables(sqlite3 *db) {
  exec_ok(db, "CREATE TABLE tn(nn); INSERT INTO tn VALUES (1000), (5000);"
              "CREATE TABLE tp(pp); INSERT INTO tp VALUES (0.01), (0.001), (0.1);");
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM tn, tp, bloom_plan(tn.nn, tp.pp) AS b "
                       "WHERE b.capacity = tn.nn AND b.target_fpr = tp.pp", NOARGS),
             6, "bloom_plan(tn.nn, tp.pp) over two tables gives a row per pair");
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM tp, tn, bloom_plan(tn.nn, tp.pp)",
                       NOARGS),
             6, "... in either join order");
}

#ifndef BLOOM_STATIC
/* Bit positions are 64-bit: a filter of more than 2^32 bits (~560 MB) puts
** items in blocks past bit 2^32, and they test 1 there.  Probed through
** bloom_ref: a join would copy the 560 MB filter on every row.  Most of
** this suite's time goes to copying it, so only the loadable build runs
** it (plain and sanitized): the static build's code is the same. */
static void test_over_2_32_bits(sqlite3 *db) {
  int ok = exec_ok(db, "CREATE TABLE big AS " SERIES("0", "1999")
                       "SELECT bloom_build(x, 450000000, 0.01) AS f FROM s");
  if (!ok) {
    tap_ok(0, "a filter of more than 2^32 bits can be built");
    return;
  }
  tap_ok(q_int(db, "SELECT bits > 4294967296 AND inserted = 2000 "
                   "FROM big, bloom_info(big.f)", NOARGS) == 1,
         "bloom_build(x, 450000000, 0.01) has more than 2^32 bits");
  TAP_EQ_U64(q_int(db, SERIES("0", "1999")
                   "SELECT count(*) FROM bloom_ref((SELECT f FROM big)) AS r "
                   "CROSS JOIN s WHERE NOT bloom_test(r.filter, x)",
                   NOARGS),
             0, "every value added to it tests 1");
  /* Bytes past bit 2^32: the 64 header bytes, then 2^29 bytes of bits. */
  tap_ok(q_int(db, "SELECT substr(f, 64 + 536870912 + 1) <> "
                   "zeroblob(length(f) - 64 - 536870912) FROM big",
               NOARGS) == 1,
         "some of its items set bits past bit 2^32");
  exec_ok(db, "DROP TABLE big");
}
#endif

static void test_ref_correlated(sqlite3 *db) {
  exec_ok(db,
          "CREATE TABLE cr(name, f);"
          "INSERT INTO cr SELECT 'a', bloom_build(x, 1000, 0.01) FROM "
          "(" SERIES("1", "100") "SELECT x FROM s);"
          "INSERT INTO cr SELECT 'b', bloom_build(x, 1000, 0.01) FROM "
          "(" SERIES("1", "200") "SELECT x FROM s);");
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM cr, bloom_ref(cr.f) AS r "
                       "WHERE bloom_count(r.filter) = bloom_count(cr.f) "
                       "AND bloom_test(r.filter, 150) = (cr.name = 'b')",
                       NOARGS),
             2, "bloom_ref(cr.f) correlated: each row sees its own filter");
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) _exit(ref_correlated_child());
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) {
    tap_ok(0, "fork for the correlated bloom_ref check");
    return;
  }
  if (!tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "bloom_ref(t.f) correlated: max()/min() of the reference are "
              "NULL and each row reads its own filter")) {
    if (WIFSIGNALED(status))
      tap_diag("  child killed by signal %d (sanitizer report above)",
               WTERMSIG(status));
    else
      tap_diag("  wrong result: max() kept a reference, or a row read "
               "another row's filter");
  }
}

#ifdef BLOOM_STATIC
/* The copies probed for many rows keep each 512-bit block on one cache
** line; the allocation behind them must give that for any size and free
** what it allocated (ASan checks the writes and the frees). */
static void test_aligned_alloc(void) {
  int aligned = 1, allocated = 1;
  for (sqlite3_uint64 bytes = 0; bytes < 300; bytes++) {
    unsigned char *blob = sql_aligned_alloc(bytes);
    if (blob == NULL) {
      allocated = 0;
      break;
    }
    if ((uintptr_t)blob % 64 != 0) aligned = 0;
    memset(blob, 0xA5, (size_t)bytes);
    sql_aligned_free(blob);
  }
  sql_aligned_free(NULL);
  tap_ok(allocated && aligned,
         "sql_aligned_alloc: 0 to 299 bytes, each on a 64-byte boundary");
}
#endif

int main(void) {
  double t0 = now();
#ifdef BLOOM_STATIC
  test_aligned_alloc();
#endif
  sqlite3 *db = open_db(NULL);
  test_version(db);
  test_value_rules(db);
  test_null_rules(db);
  test_build_errors(db);
  test_bad_filters(db);
  test_flags(db);
  test_tvf_args_from_two_tables(db);
#ifndef BLOOM_STATIC
  test_over_2_32_bits(db);
#endif
  test_info_values(db, 10000);
  test_info_values(db, 100000);
  test_info_extremes(db);
  test_info_correlated(db);
  test_order_independence(db);
  test_group_by(db);
  test_ref(db);
  test_no_false_negatives(db);
  test_fpr(db, 0.01, 2000000, 0);
  test_fpr(db, 0.001, 4000000, 1);
  sqlite3_close(db);
  test_utf16();
  test_trusted_schema();
  db = open_db(NULL);
  test_ref_correlated(db);
  sqlite3_close(db);
  tap_diag("total %.2f s", now() - t0);
  return tap_done();
}
