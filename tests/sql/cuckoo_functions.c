/*
** SQL-level tests of the cuckoo filter functions: loads BLOOM_SO into an
** in-memory database through libsqlite3.  Random streams have fixed seeds,
** printed as "# seed: ...".
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/sqldb.h"
#include "lib/clock.h"
#include "lib/rng.h"
#include "lib/cuckoo_spec.h"
#include "lib/tap.h"

static sqlite3 *db;

static int rel_close(double a, double b, double tol) {
  return fabs(a - b) <= tol * fmax(fabs(a), fabs(b));
}

/* ---- trigger-synced tables under random churn --------------------------- */

/* 1945 is the most a sizing puts in 512 buckets: with the keys drawn from
** 0..1944 the filter runs near 90% full, where inserts relocate often. */
#define SYNC_N 1945
#define SYNC_P 0.01
#define SYNC_UNIVERSE 1945
#define SYNC_OPS 200000

static const char *const sync_schema =
    "PRAGMA trusted_schema = OFF;" /* triggers may call innocuous code only */
    "CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);"
    "INSERT INTO filters VALUES ('u', (SELECT cuckoo_build(NULL, 1945))),"
    "                           ('r', (SELECT cuckoo_build(NULL, 1945)));"
    /* unique key: every row adds and removes its own value */
    "CREATE TABLE u(id INTEGER PRIMARY KEY, k INTEGER UNIQUE);"
    "CREATE TRIGGER u_ai AFTER INSERT ON u BEGIN"
    "  UPDATE filters SET f = cuckoo_add(f, NEW.k) WHERE name = 'u'; END;"
    "CREATE TRIGGER u_ad AFTER DELETE ON u BEGIN"
    "  UPDATE filters SET f = cuckoo_delete(f, OLD.k) WHERE name = 'u'; END;"
    "CREATE TRIGGER u_au AFTER UPDATE OF k ON u BEGIN"
    "  UPDATE filters SET f = cuckoo_add(cuckoo_delete(f, OLD.k), NEW.k)"
    "   WHERE name = 'u'; END;"
    /* repeating key: the first row of a value adds it, the last removes it */
    "CREATE TABLE r(id INTEGER PRIMARY KEY, k INTEGER);"
    "CREATE INDEX r_k ON r(k);"
    "CREATE TRIGGER r_ai AFTER INSERT ON r"
    "  WHEN NOT EXISTS (SELECT 1 FROM r WHERE k = NEW.k AND id <> NEW.id)"
    "  BEGIN UPDATE filters SET f = cuckoo_add(f, NEW.k) WHERE name = 'r';"
    "  END;"
    "CREATE TRIGGER r_ad AFTER DELETE ON r"
    "  WHEN NOT EXISTS (SELECT 1 FROM r WHERE k = OLD.k)"
    "  BEGIN UPDATE filters SET f = cuckoo_delete(f, OLD.k) WHERE name = 'r';"
    "  END;"
    "CREATE TRIGGER r_au AFTER UPDATE OF k ON r WHEN OLD.k IS NOT NEW.k BEGIN"
    "  UPDATE filters SET f = cuckoo_delete(f, OLD.k) WHERE name = 'r'"
    "   AND NOT EXISTS (SELECT 1 FROM r WHERE k = OLD.k);"
    "  UPDATE filters SET f = cuckoo_add(f, NEW.k) WHERE name = 'r'"
    "   AND NOT EXISTS (SELECT 1 FROM r WHERE k = NEW.k AND id <> NEW.id);"
    "END;";

/* Does the stored filter of `table` hold exactly the table's set?  items =
** count(DISTINCT k); every k tests 1; and it answers like a fresh
** cuckoo_build of the table on the universe and on `absent` values outside
** it (answers depend only on the set stored, FORMAT.md).  Also counts the
** absent values that test 1. */
static int synced(const char *table, long long absent, long long *false_pos) {
  char sql[1200];
  snprintf(sql, sizeof sql,
           "WITH RECURSIVE probe(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM"
           " probe WHERE v < %d + %lld - 1),"
           " kept AS (SELECT f FROM filters WHERE name = '%s'),"
           " fresh AS (SELECT cuckoo_build(k, %d, %g) AS f FROM %s)"
           " SELECT (SELECT i.items FROM kept, cuckoo_info(kept.f) AS i)"
           "          = (SELECT count(DISTINCT k) FROM %s)"
           "    AND (SELECT count(*) FROM bloom_ref((SELECT f FROM kept)) AS r"
           "          CROSS JOIN %s AS t WHERE NOT cuckoo_test(r.filter, t.k))"
           "        = 0"
           "    AND (SELECT count(*) FROM"
           "          bloom_ref((SELECT f FROM kept)) AS a CROSS JOIN"
           "          bloom_ref((SELECT f FROM fresh)) AS b CROSS JOIN probe"
           "          WHERE cuckoo_test(a.filter, v)"
           "                IS NOT cuckoo_test(b.filter, v)) = 0,"
           "   (SELECT count(*) FROM bloom_ref((SELECT f FROM kept)) AS r"
           "     CROSS JOIN probe WHERE v >= %d AND cuckoo_test(r.filter, v))",
           SYNC_UNIVERSE, absent, table, SYNC_N, SYNC_P, table, table, table,
           SYNC_UNIVERSE);
  sqlite3_stmt *st = must_prep(db, sql);
  int ok = 0;
  if (sqlite3_step(st) == SQLITE_ROW) {
    ok = sqlite3_column_int(st, 0) == 1;
    *false_pos = sqlite3_column_int64(st, 1);
  } else {
    tap_diag("sync check failed: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(st);
  return ok;
}

static void test_sync_churn(void) {
  must_exec(db, sync_schema);
  const uint64_t seed = 0xC0C0C0C0;
  tap_diag("seed: churn 0x%llx (%d operations per table, keys 0..%d)",
           (unsigned long long)seed, SYNC_OPS, SYNC_UNIVERSE - 1);
  sqlite3_stmt *ops[2][3] = {
      {must_prep(db, "INSERT OR IGNORE INTO u(k) VALUES (?1)"),
       must_prep(db, "DELETE FROM u WHERE k = ?1"),
       must_prep(db, "UPDATE OR IGNORE u SET k = ?2 WHERE k = ?1")},
      {must_prep(db, "INSERT INTO r(k) VALUES (?1)"),
       must_prep(db, "DELETE FROM r WHERE id ="
                     " (SELECT id FROM r WHERE k = ?1 LIMIT 1)"),
       must_prep(db,
                 "UPDATE r SET k = ?2"
                 " WHERE id = (SELECT id FROM r WHERE k = ?1 LIMIT 1)")}};
  const char *names[2] = {"u", "r"};
  const char *what[2] = {"unique key", "repeating key"};
  double t0 = now();
  for (int t = 0; t < 2; t++) {
    uint64_t rng = seed + (uint64_t)t;
    int always = 1;
    long long fp = 0;
    must_exec(db, "BEGIN");
    for (int i = 1; i <= SYNC_OPS; i++) {
      uint64_t r = splitmix64(&rng);
      int op = (int)(r % 100) < 36 ? 0 : (int)(r % 100) < 70 ? 1 : 2;
      sqlite3_stmt *st = ops[t][op];
      sqlite3_bind_int64(st, 1, (sqlite3_int64)((r >> 8) % SYNC_UNIVERSE));
      if (op == 2)
        sqlite3_bind_int64(st, 2,
                           (sqlite3_int64)((r >> 32) % SYNC_UNIVERSE));
      if (sqlite3_step(st) != SQLITE_DONE) {
        tap_diag("operation %d failed: %s", i, sqlite3_errmsg(db));
        always = 0;
        break;
      }
      sqlite3_reset(st);
      if (i % 25000 == 0 && !synced(names[t], 0, &fp)) {
        tap_diag("out of sync after %d operations", i);
        always = 0;
      }
    }
    must_exec(db, "COMMIT");
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT count(*), count(DISTINCT k) FROM %s",
             names[t]);
    long long rows = q_int(db, sql, NOARGS);
    const long long absent = 100000;
    int in_sync = synced(names[t], absent, &fp);
    snprintf(sql, sizeof sql,
             "SELECT i.load_factor * 1e6 FROM filters, cuckoo_info(f) AS i"
             " WHERE name = '%s'", names[t]);
    double load = (double)q_int(db, sql, NOARGS) / 1e6;
    tap_ok(always && in_sync,
           "%s: after %d random inserts, deletes and key updates (%lld rows "
           "left) the trigger-kept filter holds exactly the table's values: "
           "items = count(DISTINCT k), every value tests 1, and it answers "
           "like a fresh cuckoo_build (checked every 25,000 operations)",
           what[t], SYNC_OPS, rows);
    /* At this load the model rate is about 8 * load / 1023; 100,000 probes
    ** give a standard deviation of sqrt(rate / 100000), so p = 0.01 is more
    ** than 10 of them above the expected count. */
    double rate = (double)fp / (double)absent;
    tap_ok(rate <= SYNC_P,
           "%s: false-positive rate on %lld absent keys %.5f <= %g "
           "(load %.3f)", what[t], absent, rate, SYNC_P, load);
  }
  tap_diag("churn took %.2f s", now() - t0);
  for (int t = 0; t < 2; t++)
    for (int o = 0; o < 3; o++) sqlite3_finalize(ops[t][o]);
  must_exec(db, "DROP TABLE u; DROP TABLE r; DROP TABLE filters;");
}

/* ---- capacity, failure, copies ------------------------------------------ */

static void test_fill_until_failure(void) {
  int len;
  unsigned char *f =
      q_blob(db, "SELECT cuckoo_build(NULL, 1000)", NOARGS, &len);
  if (f == NULL) { /* the loop below would add to NULL forever */
    tap_ok(0, "cuckoo_build(NULL, 1000) gives an empty filter");
    return;
  }
  sqlite3_stmt *add = must_prep(db, "SELECT cuckoo_add(?1, ?2)");
  long long added = 0;
  char msg[300] = "";
  unsigned char *before = NULL;
  for (;;) {
    sqlite3_bind_blob(add, 1, f, len, SQLITE_STATIC);
    sqlite3_bind_int64(add, 2, 1000000 + added);
    if (sqlite3_step(add) != SQLITE_ROW) {
      snprintf(msg, sizeof msg, "%s", sqlite3_errmsg(db));
      sqlite3_reset(add);
      before = malloc((size_t)len);
      memcpy(before, f, (size_t)len);
      break;
    }
    if (sqlite3_column_bytes(add, 0) != len) break;
    memcpy(f, sqlite3_column_blob(add, 0), (size_t)len);
    sqlite3_reset(add);
    added++;
  }
  sqlite3_finalize(add);
  char sql[300];
  long long buckets = 0;
  sqlite3_stmt *st = must_prep(db, "SELECT buckets FROM cuckoo_info(?1)");
  sqlite3_bind_blob(st, 1, f, len, SQLITE_STATIC);
  if (sqlite3_step(st) == SQLITE_ROW) buckets = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  if (buckets < 1) {
    tap_ok(0, "cuckoo_info reads the filter that the adds filled (%s)",
           sqlite3_errmsg(db));
    free(before);
    free(f);
    return;
  }
  double load = (double)added / (4.0 * (double)buckets);
  tap_ok(load >= 0.95 && strncmp(msg, "cuckoo_add: the filter is full", 30) == 0,
         "cuckoo_build(NULL, 1000) took %lld adds (%.2f%% of %lld slots) "
         "before \"%s\"", added, 100.0 * load, 4 * buckets, msg);

  /* The failed add changed nothing: the blob is the input blob, and every
  ** value added before still tests 1. */
  st = must_prep(db,
                 "WITH RECURSIVE v(x) AS (SELECT 1000000 UNION ALL SELECT x + 1"
                 " FROM v WHERE x < 1000000 + ?2 - 1)"
                 " SELECT count(*) FROM v WHERE cuckoo_test(?1, x)");
  sqlite3_bind_blob(st, 1, f, len, SQLITE_STATIC);
  sqlite3_bind_int64(st, 2, added);
  long long found = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0)
                                                   : -1;
  sqlite3_finalize(st);
  tap_ok(before && memcmp(before, f, (size_t)len) == 0 && found == added,
         "after the failed add the blob equals the input and all %lld values "
         "added before test 1", found);

  /* In a trigger the failing add aborts the statement: no row, no change. */
  must_exec(db,
            "CREATE TABLE ff(name TEXT PRIMARY KEY, f BLOB);"
            "CREATE TABLE t(k INTEGER PRIMARY KEY);"
            "CREATE TRIGGER t_ai AFTER INSERT ON t BEGIN"
            " UPDATE ff SET f = cuckoo_add(f, NEW.k) WHERE name = 't'; END;");
  st = must_prep(db, "INSERT INTO ff VALUES ('t', ?1)");
  sqlite3_bind_blob(st, 1, f, len, SQLITE_STATIC);
  sqlite3_step(st);
  sqlite3_finalize(st);
  /* The value whose add failed above fails again: same filter, same walk. */
  snprintf(sql, sizeof sql, "INSERT INTO t VALUES (%lld)", 1000000 + added);
  int failed = error_starts(db, sql, NOARGS, "cuckoo_add: the filter is full");
  st = must_prep(db, "SELECT f = ?1 AND (SELECT count(*) FROM t) = 0 FROM ff");
  sqlite3_bind_blob(st, 1, f, len, SQLITE_STATIC);
  int same = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
  sqlite3_finalize(st);
  tap_ok(failed && same,
         "a trigger's failing add aborts the INSERT: no row, filter unchanged");
  must_exec(db, "DROP TABLE t; DROP TABLE ff;");
  free(before);
  free(f);
}

static void test_copies(void) {
  must_exec(db, "CREATE TEMP TABLE c(f BLOB);"
                "INSERT INTO c SELECT cuckoo_build(NULL, 100);");
  for (int i = 0; i < 8; i++)
    must_exec(db, "UPDATE c SET f = cuckoo_add(f, 'x')");
  /* The message names the copies: a failed relocation walk says otherwise. */
  int refused = error_starts(db, "UPDATE c SET f = cuckoo_add(f, 'x')", NOARGS,
                             "cuckoo_add: the value does not fit: its two "
                             "buckets already hold 8 copies");
  tap_ok(refused, "the same value fits 8 times; the 9th add is an error "
                  "naming the copies");
  tap_ok(q_int(db, "SELECT cuckoo_delete(f, 'absent') = f AND"
                   " cuckoo_delete(f, NULL) = f AND cuckoo_add(f, NULL) = f"
                   " FROM c", NOARGS) == 1,
         "deleting an absent value (or NULL), adding NULL: the filter "
         "unchanged");
  tap_ok(
      q_int(db, "SELECT i.items FROM c, cuckoo_info(c.f) AS i", NOARGS) == 8 &&
          q_int(db,
                "WITH RECURSIVE d(n, f) AS (SELECT 0, f FROM c UNION ALL"
                " SELECT n + 1, cuckoo_delete(f, 'x') FROM d WHERE n < 8)"
                " SELECT group_concat(cuckoo_test(f, 'x'), '') = '111111110'"
                " FROM d",
                NOARGS) == 1,
      "8 copies: each delete removes one, the 8th leaves none");
  tap_ok(q_int(db, "SELECT cuckoo_test(cuckoo_delete(cuckoo_add(cuckoo_add("
                   "cuckoo_build(NULL, 100), 5), 5), 5), 5)", NOARGS) == 1,
         "multiset: added twice, deleted once, still in");
  tap_ok(q_int(db,
               "SELECT length(cuckoo_add(f, 1)) = length(f) AND"
               " length(cuckoo_delete(f, 'x')) = length(f) FROM c",
               NOARGS) == 1,
         "add and delete keep the blob's size");
  must_exec(db, "DROP TABLE c");
}

/* ---- build ---------------------------------------------------------------- */

static void test_build(void) {
  double t0 = now();
  long long items = q_int(db,
      "SELECT i.items FROM cuckoo_info((WITH RECURSIVE s(x) AS (SELECT 0"
      " UNION ALL SELECT x + 1 FROM s WHERE x < 999999)"
      " SELECT cuckoo_build(x % 1000, 1000) FROM s)) AS i", NOARGS);
  tap_ok(items == 1000,
         "1,000,000 rows over 1,000 distinct values: items = %lld (%.2f s)",
         items, now() - t0);
  tap_ok(
      q_int(db,
            "WITH RECURSIVE s(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM s"
            " WHERE x < 9999), f AS (SELECT cuckoo_build(x % 1000, NULL) AS f"
            " FROM s) SELECT count(*) FROM f, s"
            " WHERE x < 1000 AND cuckoo_test(f.f, x)",
            NOARGS) == 1000,
      "sized from the data (n NULL): every value tests 1");
  tap_ok(q_int(db,
               "SELECT capacity FROM cuckoo_info((SELECT cuckoo_build(value"
               " % 100, NULL, 0.001) FROM (WITH RECURSIVE s(value) AS (SELECT"
               " 0 UNION ALL SELECT value + 1 FROM s WHERE value < 4999)"
               " SELECT value FROM s)))",
               NOARGS) == 100,
         "sized from the data: capacity = the number of distinct values");
  tap_ok(q_int(db,
               "WITH s(v) AS (VALUES (3), ('a'), (2.5), (x'01'), (3), (NULL))"
               " SELECT (SELECT cuckoo_build(v, 10) FROM (SELECT v FROM s"
               " ORDER BY v)) = (SELECT cuckoo_build(v, 10) FROM (SELECT v"
               " FROM s ORDER BY v DESC))",
               NOARGS) == 1,
         "the bytes depend only on the set of values, not on row order");
  tap_ok(q_int(db,
               "SELECT cuckoo_build(x, 10) IS NULL FROM"
               " (SELECT 1 AS x WHERE 0)",
               NOARGS) == 1 &&
             q_int(db,
                   "SELECT i.items FROM cuckoo_info((SELECT cuckoo_build(NULL,"
                   " 10) FROM (SELECT 1 UNION ALL SELECT 2))) AS i",
                   NOARGS) == 0,
         "no rows gives NULL; only NULLs give an empty filter");
  tap_ok(q_int(db,
               "SELECT cuckoo_test(f, 42.0) AND cuckoo_test(f, 42) AND"
               " NOT cuckoo_test(f, '42') AND cuckoo_test(f, 'abc') AND"
               " cuckoo_test(f, NULL) IS NULL AND cuckoo_test(NULL, 1) IS NULL"
               " AND cuckoo_add(NULL, 1) IS NULL AND"
               " cuckoo_delete(NULL, 1) IS NULL FROM (SELECT cuckoo_build(v,"
               " 10, 1e-9) AS f FROM (SELECT 42 AS v UNION ALL SELECT 'abc'))",
               NOARGS) == 1,
         "value rules as for Bloom: 42 = 42.0, '42' is another value, NULLs");
  t0 = now();
  int exceeded = error_starts(db,
      "WITH RECURSIVE s(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM s"
      " WHERE x < 99) SELECT cuckoo_build(x, 10) FROM s", NOARGS,
      "cuckoo_build: capacity exceeded");
  int early = error_starts(db,
      "WITH RECURSIVE s(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM s"
      " WHERE x < 99999999) SELECT cuckoo_build(x, 10) FROM s", NOARGS,
      "cuckoo_build: capacity exceeded");
  tap_ok(exceeded && early,
         "more distinct values than fit: \"capacity exceeded\", also early "
         "in a 10^8-row group (%.2f s)", now() - t0);

  /* At capacity: n distinct values at 95% load; 200,000 absent probes.
  ** The model rate (an upper bound) is 0.0074 at f = 10; p = 0.01 lies 13
  ** standard deviations (sqrt(0.0074 / 200000)) above it. */
  t0 = now();
  sqlite3_stmt *st = must_prep(db,
      "WITH RECURSIVE s(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM s"
      " WHERE x < 207782 - 1),"
      " f AS (SELECT cuckoo_build(x, 7782, 0.01) AS f FROM s WHERE x < 7782)"
      " SELECT (SELECT load_factor FROM f, cuckoo_info(f.f)),"
      "  (SELECT count(*) FROM bloom_ref((SELECT f FROM f)) AS r CROSS JOIN s"
      "   WHERE x >= 7782 AND cuckoo_test(r.filter, x)),"
      "  (SELECT count(*) FROM bloom_ref((SELECT f FROM f)) AS r CROSS JOIN s"
      "   WHERE x < 7782 AND NOT cuckoo_test(r.filter, x))");
  double load = -1, rate = 1;
  long long missing = -1;
  if (sqlite3_step(st) == SQLITE_ROW) {
    load = sqlite3_column_double(st, 0);
    rate = (double)sqlite3_column_int64(st, 1) / 200000.0;
    missing = sqlite3_column_int64(st, 2);
  }
  sqlite3_finalize(st);
  tap_ok(missing == 0 && rate <= 0.01,
         "built at capacity (load %.3f): no false negative, false-positive "
         "rate %.5f <= 0.01 on 200,000 absent keys (%.2f s)",
         load, rate, now() - t0);
}

static void test_params(void) {
  const char *bad[] = {
      "SELECT cuckoo_build(1, 0)", "n must be an integer >= 1, got 0",
      "SELECT cuckoo_build(1, -5)", "n must be an integer >= 1, got -5",
      "SELECT cuckoo_build(1, 2.5)", "n must be an integer >= 1, got 2.5",
      "SELECT cuckoo_build(1, '10')", "n must be an integer >= 1, got TEXT",
      "SELECT cuckoo_build(1, 10, 0)", "p must be a number",
      "SELECT cuckoo_build(1, 10, 1)", "p must be a number",
      "SELECT cuckoo_build(1, 10, 1e-13)", "p must be a number",
      "SELECT cuckoo_build(1, 10, '0.01')", "p must be a number",
      /* README.md: p is "a number with 1e-12 <= p < 1" */
      "SELECT cuckoo_build(1, 10, NULL)",
      "p must be a number with 1e-12 <= p < 1, got NULL",
      "SELECT cuckoo_build(x, 10 + x) FROM (SELECT 1 AS x UNION ALL SELECT 2)",
      "n and p must be the same on every row",
  };
  int ok = 1;
  char prefix[200];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i += 2) {
    snprintf(prefix, sizeof prefix, "cuckoo_build: %s", bad[i + 1]);
    ok &= error_starts(db, bad[i], NOARGS, prefix);
  }
  tap_ok(ok, "bad n and p: errors that name cuckoo_build");
  int old = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 100000);
  sqlite3_stmt *st = must_prep(db, "SELECT cuckoo_build(1, 1000000)");
  int rc = sqlite3_step(st);
  int toobig = rc == SQLITE_TOOBIG &&
               strstr(sqlite3_errmsg(db), "cuckoo_build: a filter for n = "
                                          "1000000 at p = 0.01 exceeds the "
                                          "blob size limit") != NULL;
  sqlite3_finalize(st);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, old);
  tap_ok(toobig, "a filter above SQLITE_LIMIT_LENGTH: SQLITE_TOOBIG");
}

/* ---- bad blobs ---------------------------------------------------------- */

static void test_bad_blobs(void) {
  int len;
  unsigned char *good = q_blob(db, "SELECT cuckoo_build(value, 100) FROM"
                                   " (SELECT 1 AS value UNION ALL SELECT 2)",
                               NOARGS, &len);
  struct damage {
    const char *name;
    int offset, value, keep; /* keep: 0 all, > 0 that many, < 0 len + keep */
    const char *why;
  } damages[] = {
      {"truncated by one byte", 0, -1, -1, "holds"},
      {"truncated to the header", 0, -1, 64, "holds"},
      {"shorter than the header", 0, -1, 40, "shorter than the 64-byte"},
      {"altered magic", 0, 'X', 0, "bad magic"},
      {"bucket count odd (layout 1)", 16, 33, 0, "not a positive even number"},
      {"layout 2", 14, 2, 0, "cuckoo layout 2 unknown"},
      {"header byte 15 not 0", 15, 1, 0, "header byte 15 is not 0"},
      {"fingerprint width 3", 12, 3, 0, "fingerprint width 3 out of range"},
      {"fingerprint width 65", 12, 65, 0, "fingerprint width 65 out of range"},
      {"item count above the slot count", 41, 1, 0, "item count 258 exceeds"},
      {"slots per bucket 2", 13, 2, 0, "slots per bucket is 2"},
      {"unknown version", 4, 9, 0, "unsupported format version 9"},
  };
  const char *fns[] = {"cuckoo_test", "cuckoo_add", "cuckoo_delete",
                       "cuckoo_info", "bloom_ref"};
  const char *sqls[] = {"SELECT cuckoo_test(?1, 1)", "SELECT cuckoo_add(?1, 1)",
                        "SELECT cuckoo_delete(?1, 1)",
                        "SELECT * FROM cuckoo_info(?1)",
                        "SELECT * FROM bloom_ref(?1)"};
  for (size_t d = 0; d < sizeof damages / sizeof damages[0]; d++) {
    const struct damage *dm = &damages[d];
    int n = dm->keep == 0 ? len : dm->keep > 0 ? dm->keep : len + dm->keep;
    unsigned char *b = malloc((size_t)n); /* exact size: ASan sees past it */
    memcpy(b, good, (size_t)n);
    if (dm->value >= 0) b[dm->offset] = (unsigned char)dm->value;
    int ok = 1;
    for (int f = 0; f < 5; f++) {
      char msg[300], prefix[100];
      int rc = 0;
      int failed = run_for_error(db, sqls[f], ARGS(a_blob(b, n)), msg,
                                 sizeof msg, &rc, NULL);
      snprintf(prefix, sizeof prefix, "%s: ", fns[f]);
      if (!failed || strncmp(msg, prefix, strlen(prefix)) != 0 ||
          strstr(msg, dm->why) == NULL) {
        tap_diag("  %s: rc %d \"%s\"", fns[f], rc, msg);
        ok = 0;
      }
    }
    tap_ok(ok, "%s: an error naming the function, from all five", dm->name);
    free(b);
  }
  const char *types[] = {"'text'", "42", "4.2", "zeroblob(0)"};
  const char *type_names[] = {"TEXT", "INTEGER", "REAL", NULL};
  int ok = 1;
  for (int t = 0; t < 4; t++) {
    char sql[200], prefix[200];
    for (int f = 0; f < 4; f++) {
      if (f == 3)
        snprintf(sql, sizeof sql, "SELECT * FROM cuckoo_info(%s)", types[t]);
      else
        snprintf(sql, sizeof sql, "SELECT %s(%s, 1)", fns[f], types[t]);
      if (type_names[t])
        snprintf(prefix, sizeof prefix, "%s: the filter must be a BLOB, got %s",
                 fns[f], type_names[t]);
      else
        snprintf(prefix, sizeof prefix, "%s: not a filter", fns[f]);
      ok &= error_starts(db, sql, NOARGS, prefix);
    }
  }
  tap_ok(ok, "TEXT, INTEGER, REAL and an empty BLOB as the filter: errors");
  /* A valid blob bound exactly works in all five. */
  ok = 1;
  for (int f = 0; f < 5; f++) {
    char msg[300];
    unsigned char *b = malloc((size_t)len);
    memcpy(b, good, (size_t)len);
    ok &= !run_for_error(db, sqls[f], ARGS(a_blob(b, len)), msg, sizeof msg,
                         NULL, NULL);
    free(b);
  }
  tap_ok(ok, "the undamaged blob, bound the same way, is accepted by all five");
  free(good);
}

/* ---- kinds, bloom_ref, info, flags -------------------------------------- */

static void test_kinds(void) {
  tap_ok(error_starts(db,
                      "SELECT * FROM bloom_info((SELECT cuckoo_build(1, 10)))",
                      NOARGS,
                      "bloom_info: got a cuckoo filter, expected a bloom "
                      "filter") &&
             error_starts(db, "SELECT bloom_test(cuckoo_build(1, 10), 1)",
                          NOARGS,
                          "bloom_test: got a cuckoo filter, expected a bloom "
                          "filter") &&
             error_starts(db, "SELECT cuckoo_test(bloom_build(1, 10), 1)",
                          NOARGS,
                          "cuckoo_test: got a bloom filter, expected a cuckoo "
                          "filter") &&
             error_starts(db,
                          "SELECT * FROM cuckoo_info((SELECT bloom_build(1, "
                          "10)))",
                          NOARGS,
                          "cuckoo_info: got a bloom filter, expected a cuckoo "
                          "filter") &&
             error_starts(db, "SELECT cuckoo_add(bloom_build(1, 10), 1)",
                          NOARGS, "cuckoo_add: got a bloom filter"),
         "a filter of the other kind: an error naming the kind it got");
  must_exec(db, "CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);"
                "CREATE TABLE t(v INTEGER);"
                "WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s"
                " WHERE x < 2000) INSERT INTO t SELECT x FROM s;"
                "INSERT INTO filters SELECT 'x', cuckoo_build(v, 1000) FROM t"
                " WHERE v <= 1000;");
  long long fast = q_int(db,
      "SELECT count(*) FROM bloom_ref((SELECT f FROM filters"
      " WHERE name = 'x')) AS r CROSS JOIN t WHERE cuckoo_test(r.filter, t.v)",
      NOARGS);
  long long slow = q_int(db,
                         "SELECT count(*) FROM t WHERE cuckoo_test((SELECT f"
                         " FROM filters WHERE name = 'x'), t.v)",
                         NOARGS);
  tap_ok(fast == slow && fast >= 1000 && fast < 1100,
         "bloom_ref passes a cuckoo filter on: %lld of 2000 match, as without",
         fast);
  sqlite3_stmt *st = must_prep(db,
      "SELECT kind, version, hash, buckets, slots_per_bucket, fingerprint_bits,"
      " bytes, capacity, target_fpr, items, load_factor, estimated_fpr"
      " FROM filters, cuckoo_info(filters.f)");
  /* 1000 values at n = 1000, p = 0.01: FORMAT.md's shape, load items / 4B
  ** and estimated_fpr = fpr(load). */
  spec_cuckoo_sizing sp = {0, 0, 0, 0};
  spec_cuckoo_sizing_for(1000, 0.01, &sp);
  const double load = 1000.0 / (4.0 * (double)sp.buckets);
  int ok = sqlite3_step(st) == SQLITE_ROW &&
           strcmp((const char *)sqlite3_column_text(st, 0), "cuckoo") == 0 &&
           sqlite3_column_int(st, 1) == 1 &&
           strcmp((const char *)sqlite3_column_text(st, 2),
                  "murmur3_x64_128") == 0 &&
           (uint64_t)sqlite3_column_int64(st, 3) == sp.buckets &&
           sqlite3_column_int(st, 4) == 4 &&
           (unsigned)sqlite3_column_int(st, 5) == sp.f &&
           (uint64_t)sqlite3_column_int64(st, 6) == sp.bytes &&
           sqlite3_column_int(st, 7) == 1000 &&
           sqlite3_column_double(st, 8) == 0.01 &&
           sqlite3_column_int(st, 9) == 1000 &&
           sqlite3_column_double(st, 10) == load &&
           rel_close(sqlite3_column_double(st, 11),
                     spec_cuckoo_fpr(load, sp.f, sp.buckets), 1e-9) &&
           sqlite3_column_double(st, 11) <= 0.97 * 0.01;
  if (!tap_ok(ok, "cuckoo_info: one row with the header's fields and the "
                  "load (FORMAT.md: %llu buckets, f = %u, %llu bytes, "
                  "estimated_fpr %.6g)",
              (unsigned long long)sp.buckets, sp.f,
              (unsigned long long)sp.bytes, spec_cuckoo_fpr(load, sp.f, sp.buckets)))
    tap_diag("  got buckets %lld, f %d, bytes %lld, load %.17g, "
             "estimated_fpr %.17g", (long long)sqlite3_column_int64(st, 3),
             sqlite3_column_int(st, 5), (long long)sqlite3_column_int64(st, 6),
             sqlite3_column_double(st, 10), sqlite3_column_double(st, 11));
  sqlite3_finalize(st);
  tap_ok(q_int(db, "SELECT count(*) FROM cuckoo_info(NULL)", NOARGS) == 0 &&
             error_starts(db, "SELECT * FROM cuckoo_info", NOARGS,
                          "cuckoo_info: needs a filter argument"),
         "cuckoo_info: no row for NULL; an error without an argument");
  must_exec(db, "DROP TABLE filters; DROP TABLE t;");

  long long flagged = q_int(db,
      "SELECT count(*) FROM pragma_function_list WHERE name IN"
      " ('cuckoo_build', 'cuckoo_test', 'cuckoo_add', 'cuckoo_delete')"
      " AND flags & 0x800 AND flags & 0x200000", NOARGS);
  tap_ok(flagged == 5,
         "cuckoo_build (2 and 3 args), _test, _add, _delete are registered "
         "deterministic and innocuous (%lld)", flagged);
}

int main(void) {
  db = open_db(NULL);
  test_kinds();
  test_params();
  test_bad_blobs();
  test_copies();
  test_fill_until_failure();
  test_build();
  test_sync_churn();
  sqlite3_close(db);
  return tap_done();
}
