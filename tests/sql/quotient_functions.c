/*
** SQL-level tests of the quotient filter functions (quotient_build,
** quotient_test, quotient_probe, quotient_info, quotient_compact): loads BLOOM_SO into an
** in-memory database through libsqlite3.  The false-positive rate is
** measured at several n and p on values from fixed seeds, printed as
** "# seed: ...".
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/rng.h"
#include "lib/sqldb.h"
#include "lib/tap.h"

static sqlite3 *db;

/* Fills table `name`(v) with `count` values from a seeded stream: even
** integers (members) or odd ones (never members), or TEXT of them. */
static void fill(const char *name, uint64_t seed, long long count, int odd,
                 int text) {
  char sql[200];
  snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS %s; CREATE TABLE %s(v);",
           name, name);
  must_exec(db, sql);
  snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (?1)", name);
  sqlite3_stmt *st = must_prep(db, sql);
  must_exec(db, "BEGIN");
  uint64_t s = seed;
  char buf[40];
  for (long long i = 0; i < count; i++) {
    uint64_t x = (splitmix64(&s) & ~(uint64_t)1) | (uint64_t)(odd != 0);
    if (text) {
      snprintf(buf, sizeof buf, "k%llx", (unsigned long long)x);
      sqlite3_bind_text(st, 1, buf, -1, SQLITE_TRANSIENT);
    } else {
      sqlite3_bind_int64(st, 1, (sqlite3_int64)x);
    }
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  must_exec(db, "COMMIT");
  sqlite3_finalize(st);
}

static void test_rates(void) {
  struct { long long n; double p; int text; } cases[] = {
      {1000, 0.01, 0},   {10000, 0.01, 1}, {100000, 0.01, 0},
      {100000, 0.001, 1}, {20000, 1e-4, 0}, {5000, 0.2, 0},
      {1000000, 0.01, 0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    long long n = cases[c].n;
    double p = cases[c].p;
    long long probes = (long long)(200.0 / p);
    if (probes < 300000) probes = 300000;
    uint64_t seed = 0x51000 + c;
    tap_diag("seed: 0x%llx members, 0x%llx absent (n = %lld, p = %g)",
             (unsigned long long)seed, (unsigned long long)(seed << 8), n, p);
    double t0 = now();
    fill("m", seed, n, 0, cases[c].text);
    fill("a", seed << 8, probes, 1, cases[c].text);
    must_exec(db, "DROP TABLE IF EXISTS f");
    char sql[300];
    snprintf(sql, sizeof sql,
             "CREATE TABLE f AS SELECT quotient_build(v, %lld, %.17g) AS f "
             "FROM m", n, p);
    must_exec(db, sql);
    long long missed = q_int(db,
        "SELECT count(*) FROM bloom_ref((SELECT f FROM f)) AS r CROSS JOIN m"
        " WHERE NOT quotient_test(r.filter, m.v)", NOARGS);
    long long fp = q_int(db,
        "SELECT count(*) FROM a WHERE quotient_probe('SELECT f FROM f', v)",
        NOARGS);
    double bpi = q_real(db, "SELECT bits_per_item FROM f, quotient_info(f.f)",
                        NOARGS);
    double rate = (double)fp / (double)probes;
    tap_ok(missed == 0, "n = %lld, p = %g (%s): no false negative among the "
           "members", n, p, cases[c].text ? "TEXT" : "INTEGER");
    tap_ok(rate <= p, "n = %lld, p = %g: false-positive rate %.6f <= p over "
           "%lld absent values (%.2f bits per item, %.1f s)", n, p, rate,
           probes, bpi, now() - t0);
  }
  must_exec(db, "DROP TABLE m; DROP TABLE a; DROP TABLE f;");
}

static void test_build(void) {
  long long items = q_int(db,
      "SELECT i.items FROM quotient_info((WITH RECURSIVE s(x) AS (SELECT 0"
      " UNION ALL SELECT x + 1 FROM s WHERE x < 99999)"
      " SELECT quotient_build(x % 1000, 1000) FROM s)) AS i", NOARGS);
  tap_ok(items == 1000, "100,000 rows over 1,000 distinct values: items = "
         "%lld (one entry each)", items);
  tap_ok(q_int(db,
               "WITH RECURSIVE s(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM s"
               " WHERE x < 9999), f AS (SELECT quotient_build(x % 1000, NULL)"
               " AS f FROM s) SELECT (SELECT count(*) FROM f, s WHERE x < 1000"
               " AND quotient_test(f.f, x)) = 1000 AND (SELECT capacity FROM"
               " f, quotient_info(f.f)) = 1000", NOARGS) == 1,
         "sized from the data (n NULL): capacity = distinct values, all "
         "test 1");
  tap_ok(q_int(db,
               "WITH s(v) AS (VALUES (3), ('a'), (2.5), (x'01'), (3), (NULL),"
               " ('3'), (x'03'))"
               " SELECT (SELECT quotient_build(v, 10) FROM (SELECT v FROM s"
               " ORDER BY v)) = (SELECT quotient_build(v, 10) FROM (SELECT v"
               " FROM s ORDER BY v DESC))", NOARGS) == 1,
         "the bytes depend only on the set of values, not on row order");
  tap_ok(q_int(db, "SELECT quotient_build(x, 10) IS NULL FROM (SELECT 1 AS x"
                   " WHERE 0)", NOARGS) == 1 &&
             q_int(db, "SELECT i.items IS 0 AND i.estimated_fpr = 0.0 AND"
                       " i.bits_per_item IS NULL FROM quotient_info((SELECT"
                       " quotient_build(NULL, 10) FROM (SELECT 1 UNION ALL"
                       " SELECT 2))) AS i", NOARGS) == 1,
         "no rows gives NULL; only NULLs give an empty filter");
  tap_ok(q_int(db,
               "SELECT quotient_test(f, 42.0) AND quotient_test(f, 42) AND"
               " NOT quotient_test(f, '42') AND quotient_test(f, 'abc') AND"
               " quotient_test(f, NULL) IS NULL AND"
               " quotient_test(NULL, 1) IS NULL FROM (SELECT quotient_build(v,"
               " 10, 1e-9) AS f FROM (SELECT 42 AS v UNION ALL SELECT 'abc'))",
               NOARGS) == 1,
         "value rules as for Bloom: 42 = 42.0, '42' is another value, NULLs");
  /* 'A' and x'410000000000' hash alike (FORMAT.md): two entries */
  tap_ok(q_int(db, "SELECT items FROM quotient_info((SELECT quotient_build(v,"
                   " 10) FROM (SELECT 'A' AS v UNION ALL SELECT"
                   " x'410000000000')))", NOARGS) == 2,
         "values of different classes that hash alike keep an entry each");
  double t0 = now();
  int exceeded = error_starts(db,
      "WITH RECURSIVE s(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM s"
      " WHERE x < 99) SELECT quotient_build(x, 10) FROM s", NOARGS,
      "quotient_build: capacity exceeded");
  int early = error_starts(db,
      "WITH RECURSIVE s(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM s"
      " WHERE x < 99999999) SELECT quotient_build(x, 10) FROM s", NOARGS,
      "quotient_build: capacity exceeded");
  tap_ok(exceeded && early, "more distinct values than n: \"capacity "
         "exceeded\", also early in a 10^8-row group (%.2f s)", now() - t0);
  tap_ok(q_int(db, "SELECT full_blocks = 0 AND blocks * block_bytes + 64 ="
                   " bytes FROM quotient_info((SELECT quotient_build(value,"
                   " 5000, 0.001) FROM (WITH RECURSIVE s(value) AS (SELECT 1"
                   " UNION ALL SELECT value + 1 FROM s WHERE value < 5000)"
                   " SELECT value FROM s)))", NOARGS) == 1,
         "quotient_info: no full block, bytes = 64 + blocks * block_bytes");
}

static void test_params(void) {
  const char *bad[] = {
      "SELECT quotient_build(1, 0)", "n must be an integer >= 1, got 0",
      "SELECT quotient_build(1, 2.5)", "n must be an integer >= 1, got 2.5",
      "SELECT quotient_build(1, '10')", "n must be an integer >= 1, got TEXT",
      "SELECT quotient_build(1, 10, 0)", "p must be a number",
      "SELECT quotient_build(1, 10, 1)", "p must be a number",
      "SELECT quotient_build(1, 10, 1e-13)", "p must be a number",
      ("SELECT quotient_build(x, 10 + x) FROM (SELECT 1 AS x UNION ALL "
       "SELECT 2)"), "n and p must be the same on every row",
  };
  int ok = 1;
  char prefix[200];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i += 2) {
    snprintf(prefix, sizeof prefix, "quotient_build: %s", bad[i + 1]);
    ok &= error_starts(db, bad[i], NOARGS, prefix);
  }
  tap_ok(ok, "bad n and p: errors that name quotient_build");
  int old = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 100000);
  sqlite3_stmt *st = must_prep(db, "SELECT quotient_build(1, 1000000)");
  int rc = sqlite3_step(st);
  int toobig = rc == SQLITE_TOOBIG &&
               strstr(sqlite3_errmsg(db), "quotient_build: a filter for n = "
                      "1000000 at p = 0.01 exceeds the blob size limit") !=
                   NULL;
  sqlite3_finalize(st);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, old);
  tap_ok(toobig, "a filter above SQLITE_LIMIT_LENGTH: SQLITE_TOOBIG");
}

static void test_bad_blobs(void) {
  int len;
  unsigned char *good = q_blob(db, "SELECT quotient_build(value, 100) FROM"
                                   " (SELECT 1 AS value UNION ALL SELECT 2)",
                               NOARGS, &len);
  struct damage {
    const char *name;
    int offset, value, keep; /* keep: 0 all, > 0 that many, < 0 len + keep */
    const char *why;
  } damages[] = {
      {"truncated by one byte", 0, -1, -1, "header says 1 blocks"},
      {"shorter than the header", 0, -1, 40, "not a filter: 40 bytes"},
      {"block size 288", 12, 32, 0, "block size 288 is not a multiple of 64"},
      {"header byte 15", 15, 1, 0, "header byte 14 (the layout) is not 0 or 1, "
                                   "or byte 15 is not 0"},
      {"header byte 14", 14, 2, 0, "header byte 14 (the layout) is not 0 or 1, "
                                   "or byte 15 is not 0"},
      {"two blocks claimed", 16, 2, 0, "header says 2 blocks"},
      {"a block's count one more", 64, 3, 0, "block 0 is damaged: 3 entries"},
      {"a unary bit added", 80, 0xff, 0, "block 0 is damaged: the unary"},
      {"a block's low bits 63", 67, 0xfc, 0, "block 0 is damaged: "},
  };
  const char *fns[] = {"quotient_test", "quotient_info", "quotient_probe"};
  const char *sqls[] = {"SELECT quotient_test(?1, 1)",
                        "SELECT * FROM quotient_info(?1)",
                        "SELECT quotient_probe('SELECT ?1', 1)"};
  int all = 1;
  for (size_t d = 0; d < sizeof damages / sizeof damages[0]; d++) {
    const struct damage *dm = &damages[d];
    int n = dm->keep == 0 ? len : dm->keep > 0 ? dm->keep : len + dm->keep;
    unsigned char *b = malloc((size_t)n); /* exact size: ASan sees past it */
    memcpy(b, good, (size_t)n);
    if (dm->value >= 0) b[dm->offset] = (unsigned char)dm->value;
    for (int f = 0; f < 3; f++) {
      char prefix[200];
      snprintf(prefix, sizeof prefix, "%s: %s", fns[f], dm->why);
      /* quotient_probe's query is a parameter of its own statement */
      if (f == 2) {
        must_exec(db, "DROP TABLE IF EXISTS bad; CREATE TABLE bad(f)");
        sqlite3_stmt *st = must_prep(db, "INSERT INTO bad VALUES (?1)");
        sqlite3_bind_blob(st, 1, b, n, SQLITE_STATIC);
        sqlite3_step(st);
        sqlite3_finalize(st);
        if (!error_starts(db, "SELECT quotient_probe('SELECT f FROM bad', 1)",
                          NOARGS, prefix)) {
          tap_diag("%s: %s", dm->name, fns[f]);
          all = 0;
        }
        continue;
      }
      if (!error_starts(db, sqls[f], ARGS(a_blob(b, n)), prefix)) {
        tap_diag("%s: %s", dm->name, fns[f]);
        all = 0;
      }
    }
    free(b);
  }
  tap_ok(all, "%zu damaged filters: each function refuses them, naming "
         "itself and the damage", sizeof damages / sizeof damages[0]);
  int kinds = error_starts(db, "SELECT quotient_test(bloom_build(1, 10), 1)",
                           NOARGS, "quotient_test: got a bloom filter, "
                           "expected a quotient filter") &&
              error_starts(db, "SELECT cuckoo_test(?1, 1)",
                           ARGS(a_blob(good, len)), "cuckoo_test: got a "
                           "quotient filter, expected a cuckoo filter") &&
              error_starts(db, "SELECT * FROM bloom_info(?1)",
                           ARGS(a_blob(good, len)), "bloom_info: got a "
                           "quotient filter") &&
              error_starts(db, "SELECT quotient_test('junk', 1)", NOARGS,
                           "quotient_test: the filter must be a BLOB, got "
                           "TEXT");
  tap_ok(kinds, "other kinds and non-blobs are refused by name");
  tap_ok(q_int(db, "SELECT quotient_test(r.filter, 1) + quotient_test("
                   "r.filter, 2) FROM bloom_ref(?1) AS r",
                   ARGS(a_blob(good, len))) == 2 &&
             q_int(db, "SELECT kind = 'quotient' AND bytes = ?2 FROM"
                       " bloom_layers(?1)",
                   ARGS(a_blob(good, len), a_int(len))) == 1,
         "bloom_ref hands a quotient filter on; bloom_layers shows it");
  free(good);
}

static void test_probe(void) {
  must_exec(db, "CREATE TABLE fq(f); INSERT INTO fq SELECT quotient_build("
                "value, 2000, 0.01) FROM (WITH RECURSIVE s(value) AS (SELECT"
                " 1 UNION ALL SELECT value + 1 FROM s WHERE value < 2000)"
                " SELECT value FROM s)");
  long long a = q_int(db,
      "WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE"
      " x < 50000) SELECT count(*) FROM s WHERE quotient_probe('SELECT f FROM"
      " fq', x)", NOARGS);
  long long b = q_int(db,
      "WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE"
      " x < 50000) SELECT count(*) FROM fq, s WHERE quotient_test(fq.f, x)",
      NOARGS);
  tap_ok(a == b && a >= 2000 && a < 2000 + 480,
         "quotient_probe answers as quotient_test: %lld of 50,000 (2,000 "
         "members)", a);
  tap_ok(error_starts(db, "SELECT quotient_probe('SELECT bloom_build(1, 10)',"
                          " 1)", NOARGS, "quotient_probe: got a bloom "
                          "filter") &&
             error_starts(db, "SELECT quotient_probe('SELECT 1 WHERE 0', 1)",
                          NOARGS, "quotient_probe: the query returned no "
                          "row") &&
             q_int(db, "SELECT quotient_probe('SELECT NULL', 1) IS NULL",
                   NOARGS) == 1,
         "quotient_probe: errors name it; a NULL filter answers NULL");
  must_exec(db, "DROP TABLE fq");
  long long flagged = q_int(db,
      "SELECT count(*) FROM pragma_function_list WHERE name IN"
      " ('quotient_build', 'quotient_test') AND flags & 0x800 AND"
      " flags & 0x200000", NOARGS);
  long long direct = q_int(db,
      "SELECT count(*) FROM pragma_function_list WHERE name ="
      " 'quotient_probe' AND flags & 0x80000 AND NOT flags & 0x800", NOARGS);
  tap_ok(flagged == 3 && direct == 1,
         "quotient_build (2 and 3 args) and quotient_test are deterministic "
         "and innocuous, quotient_probe direct-only");
}

/* quotient_compact over a growing store's export: smaller, within the bound,
** no member lost, nothing the export answers maybe answered no, and a
** measured rate within p; then its arguments and errors. */
static void test_compact(void) {
  const double ps[] = {0.01, 0.001, 0.01, 0.001};
  for (int k = 0; k < 4; k++) {
    double p = ps[k];
    int sized = k >= 2; /* capacity = n: the bound is +2.5, else +5 */
    long long n = 20000, probes = p < 0.005 ? 300000 : 100000;
    uint64_t seed = 0xc0de00 + (uint64_t)k;
    tap_diag("seed: 0x%llx members, 0x%llx absent (p = %g)",
             (unsigned long long)seed, (unsigned long long)(seed << 8), p);
    fill("m", seed, n, 0, k & 1);
    fill("a", seed << 8, probes, 1, k & 1);
    char sql[400];
    snprintf(sql, sizeof sql,
             "DROP TABLE IF EXISTS s; DROP TABLE IF EXISTS c;"
             "CREATE VIRTUAL TABLE s USING quotient_store(fpr = %g%s);"
             "INSERT INTO s(value) SELECT v FROM m;"
             "CREATE TABLE c AS SELECT filter AS e, quotient_compact(filter) AS c"
             " FROM s;", p, sized ? ", capacity = 20000" : "");
    must_exec(db, sql);
    double bits = q_real(db, "SELECT 8.0 * length(c) / 20000 FROM c", NOARGS);
    double bound = -log2(p) + (sized ? 2.5 : 5);
    tap_ok(bits <= bound && q_int(db, "SELECT length(c) < length(e) FROM c",
                                  NOARGS) == 1,
           "p = %g, %s: the compacted export takes %.2f bits an item (%.2f "
           "exported), at most log2(1/p) + %g = %.2f", p,
           sized ? "sized" : "growing", bits,
           q_real(db, "SELECT 8.0 * length(e) / 20000 FROM c", NOARGS),
           sized ? 2.5 : 5.0, bound);
    double est = q_real(db, "SELECT estimated_fpr FROM c, quotient_info(c.c)",
                        NOARGS);
    tap_ok(est <= 0.9 * p && est > 0.5 * p &&
               q_int(db, "SELECT i.items = 20000 AND i.target_fpr = j.target_fpr"
                         " AND i.blocks < j.blocks FROM c, quotient_info(c.c)"
                         " AS i, quotient_info(c.e) AS j", NOARGS) == 1,
           "p = %g: estimated rate %.5f, within 0.9 p; items and target_fpr "
           "kept, fewer leaves", p, est);
    long long missed = q_int(db,
        "SELECT count(*) FROM bloom_ref((SELECT c FROM c)) AS r CROSS JOIN m"
        " WHERE NOT quotient_test(r.filter, m.v)", NOARGS);
    tap_ok(missed == 0, "p = %g: no member of %lld lost", p, n);
    sqlite3_stmt *st = q_row(db,
        "SELECT sum(c), sum(e AND NOT c) FROM (SELECT quotient_test(x.filter,"
        " a.v) AS e, quotient_test(y.filter, a.v) AS c FROM bloom_ref((SELECT e"
        " FROM c)) AS x, bloom_ref((SELECT c FROM c)) AS y CROSS JOIN a)",
        NOARGS);
    long long fp = st ? sqlite3_column_int64(st, 0) : -1;
    long long lost = st ? sqlite3_column_int64(st, 1) : -1;
    sqlite3_finalize(st);
    double rate = (double)fp / (double)probes;
    tap_ok(rate <= p && lost == 0,
           "p = %g: measured rate %.5f over %lld absent values, at most p; "
           "none the export answers maybe is answered no (%lld)", p, rate,
           probes, lost);
  }
  /* p given: coarser and smaller, and the header says so */
  tap_ok(q_int(db, "SELECT length(quotient_compact(e, 0.05)) < length(c) AND"
                   " (SELECT target_fpr = 0.05 AND estimated_fpr <= 0.045 FROM"
                   " quotient_info(quotient_compact(e, 0.05))) FROM c",
               NOARGS) == 1,
         "quotient_compact(filter, 0.05): smaller, target_fpr 0.05, "
         "estimated rate within 0.9 of it");
  tap_ok(q_int(db, "SELECT length(d) <= length(c) AND (SELECT estimated_fpr"
                   " <= 0.0009 FROM quotient_info(d)) FROM (SELECT c,"
                   " quotient_compact(c) AS d FROM c)", NOARGS) == 1,
         "compacting again: no larger, still within 0.9 p");
  tap_ok(q_int(db, "SELECT quotient_compact(f) = f AND quotient_compact(f, 0.05)"
                   " = f FROM (SELECT quotient_build(v, 20000) AS f FROM m)",
               NOARGS) == 1,
         "a filter of blocks comes back as it is, with p or without");
  tap_ok(q_int(db, "SELECT quotient_compact(NULL) IS NULL", NOARGS) == 1,
         "quotient_compact(NULL) is NULL");
  expect_error(db, "p below the filter's own estimate",
               "SELECT quotient_compact(e, 0.00001) FROM c", NOARGS,
               "quotient_compact: the filter's estimated rate", 0);
  expect_error(db, "a Bloom filter", "SELECT quotient_compact(bloom_build(1, 10))",
               NOARGS, "quotient_compact: got a bloom filter", 0);
  expect_error(db, "p of 1", "SELECT quotient_compact(e, 1) FROM c", NOARGS,
               "quotient_compact: p must be", 0);
  expect_error(db, "p NULL", "SELECT quotient_compact(e, NULL) FROM c", NOARGS,
               "quotient_compact: p must be", 0);
  int len;
  unsigned char *blob = q_blob(db, "SELECT e FROM c", NOARGS, &len);
  /* leaf 1's node becomes leaf 0's: the leaves no longer follow in order */
  memcpy(blob + 64 + 16, blob + 64, 8);
  arg a[1] = {a_blob(blob, len)};
  expect_error(db, "a directory out of order", "SELECT quotient_compact(?1)",
               a, 1, "quotient_compact: leaf 1 of", 0);
  free(blob);
  tap_ok(q_int(db, "SELECT count(*) FROM pragma_function_list WHERE name ="
                   " 'quotient_compact' AND flags & 0x800 AND flags & 0x200000",
               NOARGS) == 2,
         "quotient_compact (1 and 2 args) is deterministic and innocuous");
  must_exec(db, "DROP TABLE m; DROP TABLE a; DROP TABLE c; DROP TABLE s;");
}

/* What sql (one row, one INTEGER) gives: "n" or "error: <message>". */
static void outcome(const char *sql, const arg *a, int n, char *out,
                    size_t size) {
  sqlite3_stmt *st = prep(db, sql, a, n);
  int rc = st ? sqlite3_step(st) : SQLITE_ERROR;
  if (rc == SQLITE_ROW)
    snprintf(out, size, "%lld", (long long)sqlite3_column_int64(st, 0));
  else
    snprintf(out, size, "error: %s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
}

/* The offset in blob of the last byte of the first section of leaf 0's
** record that ends with padding bits (FORMAT.md, "A leaf's record"), or 0
** if none has. */
static size_t padded_byte(const unsigned char *blob, int len) {
  uint64_t leaves = 0, end = 0;
  for (int i = 7; i >= 0; i--) leaves = leaves << 8 | blob[16 + i];
  for (int i = 7; i >= 0; i--) end = end << 8 | blob[64 + 8 + i];
  size_t at = 64 + 16 * (size_t)leaves, stop = at + (size_t)end;
  unsigned sections = blob[at++];
  for (unsigned k = 0; k < sections && at + 3 <= stop; k++) {
    uint32_t w = blob[at] | (uint32_t)blob[at + 1] << 8 |
                 (uint32_t)blob[at + 2] << 16;
    uint64_t c = w & 4095, b = (w >> 12) & 127, m = (w >> 19) & 31;
    uint64_t bits = c + ((uint64_t)1 << m) + c * (b - m);
    at += 3 + (size_t)((bits + 7) / 8);
    if (bits % 8 != 0 && at <= stop && at <= (size_t)len) return at - 1;
  }
  return 0;
}

/* A filter of leaves probed many times in one statement gets its leaves
** indexed as they are probed: held by bloom_ref or quotient_probe, or
** bound as a parameter.  The answers must be the walk's, value for value
** (a column of a table passed on each row, which SQLite does not keep),
** for a store's export and its compaction, past a soft heap limit, and for
** a leaf whose record decodes badly or a directory out of order. */
static void test_held(void) {
  tap_diag("seed: 0x4e1d members, 0x4e1d00 absent");
  fill("m", 0x4e1d, 20000, 0, 0);
  fill("a", 0x4e1d00, 30000, 1, 0); /* 470 probes a leaf, or more */
  must_exec(db, "CREATE VIRTUAL TABLE s USING quotient_store(fpr = 0.01);"
                "INSERT INTO s(value) SELECT v FROM m;"
                "CREATE TABLE h(name TEXT PRIMARY KEY, f BLOB);"
                "INSERT INTO h SELECT 'export', filter FROM s;"
                "INSERT INTO h SELECT 'compacted', quotient_compact(filter)"
                " FROM s; CREATE TABLE d(f BLOB);");
  /* each form's count of maybe over a, then how many differ from the walk */
  static const char held_sql[] =
      "SELECT sum(q), sum(r), sum(b), sum(q != w), sum(r != w), sum(b != w)"
      " FROM (SELECT quotient_probe('SELECT f FROM d', a.v) AS q,"
      " quotient_test(r.filter, a.v) AS r, quotient_test(?1, a.v) AS b,"
      " quotient_test(d.f, a.v) AS w FROM bloom_ref(?1) AS r CROSS JOIN d"
      " CROSS JOIN a)";
  const char *names[] = {"export", "compacted"};
  for (int k = 0; k < 2; k++) {
    arg name[1] = {a_text(names[k])};
    int len;
    unsigned char *blob = q_blob(db, "SELECT f FROM h WHERE name = ?1", name,
                                 1, &len);
    arg b[1] = {a_blob(blob, len)};
    must_exec(db, "DELETE FROM d");
    q_int(db, "INSERT INTO d VALUES (?1) RETURNING 1", b, 1);
    long long leaves = q_int(db, "SELECT blocks FROM quotient_info(?1)", b, 1);
    sqlite3_stmt *st = q_row(db, held_sql, b, 1);
    long long c[6];
    for (int i = 0; i < 6; i++) c[i] = st ? sqlite3_column_int64(st, i) : -1;
    sqlite3_finalize(st);
    long long lost = q_int(db,
        "SELECT count(*) FROM bloom_ref(?1) AS r CROSS JOIN m"
        " WHERE NOT quotient_test(r.filter, m.v) OR NOT quotient_test(?1, m.v)",
        b, 1);
    tap_ok(c[0] == c[1] && c[1] == c[2] && c[0] > 0 && c[0] < 600 &&
               c[3] == 0 && c[4] == 0 && c[5] == 0 && lost == 0,
           "%s (%lld leaves): quotient_probe, bloom_ref and a bound filter "
           "answer maybe for %lld, %lld, %lld of 30,000 absent values, each "
           "as the walk does (%lld, %lld, %lld differ); no member of 20,000 "
           "lost (%lld)", names[k], leaves, c[0], c[1], c[2], c[3], c[4],
           c[5], lost);
    char held[300], walked[300];
    sqlite3_soft_heap_limit64(1); /* no index fits: every probe walks */
    outcome("SELECT sum(quotient_test(r.filter, a.v)) FROM bloom_ref(?1) AS r"
            " CROSS JOIN a", b, 1, held, sizeof held);
    sqlite3_soft_heap_limit64(0);
    snprintf(walked, sizeof walked, "%lld", c[1]);
    tap_ok(strcmp(held, walked) == 0,
           "%s past a soft heap limit: %s maybe, as indexed (%s)", names[k],
           held, walked);
    if (k == 1) {
      /* a padding bit set: the walk never reads it, a decode refuses it */
      size_t at = padded_byte(blob, len);
      blob[at] |= 0x80;
      must_exec(db, "DELETE FROM d");
      q_int(db, "INSERT INTO d VALUES (?1) RETURNING 1", b, 1);
      char info[300];
      outcome("SELECT blocks FROM quotient_info(?1)", b, 1, info, sizeof info);
      outcome("SELECT sum(quotient_test(r.filter, a.v) + quotient_test(?1,"
              " a.v)) FROM bloom_ref(?1) AS r CROSS JOIN a", b, 1, held,
              sizeof held);
      outcome("SELECT 2 * sum(quotient_test(d.f, a.v)) FROM d, a", NULL, 0,
              walked, sizeof walked);
      tap_ok(at > 0 && strncmp(info, "error: quotient_info: leaf 0", 28) == 0 &&
                 strcmp(held, walked) == 0,
             "a padding bit of leaf 0 set (byte %zu; %s): held and bound, "
             "%s maybe; walked, %s", at, info, held, walked);
      blob[at] &= 0x7f;
    }
    /* a leaf's node becomes its grandparent's, which owns it and the 3
    ** leaves around it: the walk's binary search still answers every
    ** probe (from that leaf), where a guide built from this directory
    ** would send some probes to the leaves it passes over */
    int found = 0;
    for (uint64_t j = 0; !found && j + 4 <= (uint64_t)leaves; j++) {
      uint64_t n0 = 0, n3 = 0;
      for (int i = 7; i >= 0; i--) n0 = n0 << 8 | blob[64 + 16 * j + (unsigned)i];
      for (int i = 7; i >= 0; i--)
        n3 = n3 << 8 | blob[64 + 16 * (j + 3) + (unsigned)i];
      if ((n0 & 3) != 0 || n3 != n0 + 3) continue;
      unsigned char saved[8];
      memcpy(saved, blob + 64 + 16 * (j + 2), 8);
      for (int i = 0; i < 8; i++)
        blob[64 + 16 * (j + 2) + (unsigned)i] = (unsigned char)((n0 >> 2) >> (8 * i));
      must_exec(db, "DELETE FROM d");
      q_int(db, "INSERT INTO d VALUES (?1) RETURNING 1", b, 1);
      outcome("SELECT sum(quotient_test(r.filter, a.v) + quotient_test(?1,"
              " a.v)) FROM bloom_ref(?1) AS r CROSS JOIN a", b, 1, held,
              sizeof held);
      outcome("SELECT 2 * sum(quotient_test(d.f, a.v)) FROM d, a", NULL, 0,
              walked, sizeof walked);
      tap_ok(strcmp(held, walked) == 0 && strncmp(held, "error", 5) != 0,
             "%s, leaf %llu's node its grandparent's: held and bound, %s "
             "maybe; walked, %s", names[k], (unsigned long long)(j + 2), held,
             walked);
      memcpy(blob + 64 + 16 * (j + 2), saved, 8);
      found = 1;
    }
    if (!found) tap_ok(0, "%s: four leaves of one depth, aligned", names[k]);
    /* leaf 1's node becomes leaf 0's: the leaves no longer follow */
    memcpy(blob + 64 + 16, blob + 64, 8);
    must_exec(db, "DELETE FROM d");
    q_int(db, "INSERT INTO d VALUES (?1) RETURNING 1", b, 1);
    char bound[300];
    outcome("SELECT sum(quotient_test(r.filter, a.v)) FROM bloom_ref(?1) AS r"
            " CROSS JOIN a", b, 1, held, sizeof held);
    outcome("SELECT sum(quotient_test(?1, a.v)) FROM a", b, 1, bound,
            sizeof bound);
    outcome("SELECT sum(quotient_test(d.f, a.v)) FROM d, a", NULL, 0, walked,
            sizeof walked);
    tap_ok(strcmp(held, walked) == 0 && strcmp(bound, walked) == 0 &&
               strncmp(held, "error: ", 7) == 0,
           "%s with a directory out of order: held, bound and walked alike "
           "(%s)", names[k], held);
    free(blob);
  }
  must_exec(db, "DROP TABLE m; DROP TABLE a; DROP TABLE h; DROP TABLE s;"
                "DROP TABLE d;");
}

int main(void) {
  db = open_db(NULL);
  test_params();
  test_build();
  test_bad_blobs();
  test_probe();
  test_compact();
  test_held();
  test_rates();
  sqlite3_close(db);
  return tap_done();
}
