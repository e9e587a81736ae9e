/*
** bloom_probe(query, value) and cuckoo_probe(query, value): the filter a
** query selects, read once per statement.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Checked here: row by row the same answers as bloom_test / cuckoo_test
** with the filter bound; the query runs once per run of a statement (a
** counting function inside it says how often), again on the next run (a
** changed filter is seen), and on every row when the query text is not a
** constant; the NULL rules; every refusal of a query, with the function's
** name first; the recursion guard; DIRECTONLY; and malformed stored blobs
** (truncations and header mutations of real filters), accepted exactly when
** the independent reading of FORMAT.md (tests/lib/bloom_spec.h) accepts
** them, refused with an error naming the function otherwise.
*/
#define _POSIX_C_SOURCE 200809L

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sqldb.h"
#include "lib/rng.h"
#include "lib/tap.h"
#include "lib/bloom_spec.h"

/* counted(): 1, and one more on the counter; it shows how many times the
** query of a probe ran. */
static void counted(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  int *calls = sqlite3_user_data(ctx);
  ++*calls;
  sqlite3_result_int(ctx, 1);
}

static int calls;

#define Q_X "SELECT f FROM rf WHERE name = 'x' AND counted()"
#define Q_X_LIT "'SELECT f FROM rf WHERE name = ''x'' AND counted()'"

/* Values of every storage class, members and not. */
static void setup(sqlite3 *db) {
  sqlite3_create_function(db, "counted", 0, SQLITE_UTF8, &calls, counted,
                          NULL, NULL);
  must_exec(db,
            "CREATE TABLE t(v);"
            "INSERT INTO t " SERIES("1", "20000") "SELECT x FROM s;"
            "INSERT INTO t " SERIES("1", "2000") "SELECT 'k' || x FROM s;"
            "INSERT INTO t " SERIES("1", "2000") "SELECT x + 0.5 FROM s;"
            "INSERT INTO t " SERIES("1", "2000") "SELECT CAST('b' || x AS BLOB) "
            "FROM s;"
            "INSERT INTO t VALUES (NULL);"
            "CREATE TABLE rf(name TEXT PRIMARY KEY, f BLOB);"
            "INSERT INTO rf SELECT 'x', bloom_build(v, 5000, 0.05) FROM "
            "  (SELECT v FROM t WHERE rowid % 5 = 0);"
            "INSERT INTO rf SELECT 'c', cuckoo_build(v, 6000, 0.05) FROM "
            "  (SELECT v FROM t WHERE rowid % 5 = 0);"
            "INSERT INTO rf VALUES ('null', NULL), ('text', 'abc'), "
            "  ('short', x'0011');");
}

static void test_agrees(sqlite3 *db) {
  int len;
  unsigned char *f = q_blob(db, "SELECT f FROM rf WHERE name = 'x'", NOARGS,
                            &len);
  calls = 0;
  TAP_EQ_U64(q_int(db,
                   "SELECT count(*) FROM t WHERE bloom_probe(" Q_X_LIT ", v) "
                   "IS NOT bloom_test(?1, v)",
                   ARGS(a_blob(f, len))),
             0, "bloom_probe: row by row the answers of bloom_test(?1, v)");
  TAP_EQ_U64(calls, 1, "bloom_probe ran its query once for 26,001 rows");
  sqlite3_int64 hits = q_int(
      db, "SELECT count(*) FROM t WHERE bloom_probe(" Q_X_LIT ", v)", NOARGS);
  sqlite3_int64 members = q_int(db, "SELECT count(*) FROM t WHERE rowid % 5 = 0",
                                NOARGS);
  tap_diag("bloom_probe: %lld of 26001 rows test 1, %lld members",
           (long long)hits, (long long)members);
  TAP_EQ_U64(q_int(db,
                   "SELECT count(*) FROM t WHERE rowid % 5 = 0 AND v IS NOT "
                   "NULL AND bloom_probe(" Q_X_LIT ", v) IS NOT 1",
                   NOARGS),
             0, "bloom_probe: every member tests 1");
  /* 26,001 rows, every fifth a member: 5,200 members. */
  tap_ok(members == 26001 / 5 && hits >= members &&
             hits < members + 26001 / 10,
         "bloom_probe: few others test 1 (%lld of %lld rows for %lld members)",
         (long long)hits, 26001LL, (long long)members);
  free(f);

  f = q_blob(db, "SELECT f FROM rf WHERE name = 'c'", NOARGS, &len);
  TAP_EQ_U64(q_int(db,
                   "SELECT count(*) FROM t WHERE cuckoo_probe('SELECT f FROM "
                   "rf WHERE name = ''c''', v) IS NOT cuckoo_test(?1, v)",
                   ARGS(a_blob(f, len))),
             0, "cuckoo_probe: row by row the answers of cuckoo_test(?1, v)");
  free(f);

  calls = 0;
  TAP_EQ_U64(q_int(db,
                   "SELECT count(*) FROM t WHERE bloom_probe(?1, v) IS NOT "
                   "bloom_probe(" Q_X_LIT ", v)",
                   ARGS(a_text(Q_X))),
             0, "a bound query text gives the same answers");
  TAP_EQ_U64(calls, 2, "each of the two probes ran its query once");

  must_exec(db, "ATTACH ':memory:' AS side;"
                "CREATE TABLE side.filters(f BLOB);"
                "INSERT INTO side.filters SELECT f FROM rf WHERE name = 'x';");
  TAP_EQ_U64(q_int(db,
                   "SELECT count(*) FROM t WHERE bloom_probe('SELECT f FROM "
                   "side.filters', v) IS NOT bloom_probe(" Q_X_LIT ", v)",
                   NOARGS),
             0, "a query into an attached database");
  must_exec(db, "DETACH side");
}

/* Each run of a statement reads the table again: the copy is the
** statement's, dropped when it is reset. */
static void test_fresh_per_run(sqlite3 *db) {
  sqlite3_stmt *st = must_prep(
      db, "SELECT count(*) FROM t WHERE bloom_probe(" Q_X_LIT ", v)");
  calls = 0;
  sqlite3_int64 before = -1, after = -1;
  if (sqlite3_step(st) == SQLITE_ROW) before = sqlite3_column_int64(st, 0);
  sqlite3_reset(st);
  must_exec(db, "UPDATE rf SET f = (SELECT bloom_build(v, 5000, 0.05) FROM t "
                "WHERE typeof(v) = 'text') WHERE name = 'x'");
  if (sqlite3_step(st) == SQLITE_ROW) after = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  int len;
  unsigned char *f = q_blob(db, "SELECT f FROM rf WHERE name = 'x'", NOARGS,
                            &len);
  sqlite3_int64 want = q_int(db, "SELECT count(*) FROM t WHERE bloom_test(?1, v)",
                             ARGS(a_blob(f, len)));
  free(f);
  tap_diag("before the update %lld rows test 1, after %lld",
           (long long)before, (long long)after);
  tap_ok(after == want && before != after,
         "the next run of the statement sees the updated filter (%lld)",
         (long long)after);
  TAP_EQ_U64(calls, 2, "the query ran once per run of the statement");
}

/* A query text that changes from row to row runs on every row. */
static void test_query_per_row(sqlite3 *db) {
  must_exec(db, "CREATE TABLE qs(q TEXT, v);"
                "INSERT INTO qs SELECT CASE WHEN x % 2 THEN "
                "'SELECT f FROM rf WHERE name = ''x'' AND counted()' ELSE "
                "'SELECT f FROM rf WHERE name = ''y'' AND counted()' END, x "
                "FROM (" SERIES("1", "300") "SELECT x FROM s);"
                "INSERT INTO rf SELECT 'y', bloom_build(x, 100, 0.01) FROM "
                "(" SERIES("1", "100") "SELECT x * 2 AS x FROM s);");
  calls = 0;
  sqlite3_int64 wrong = q_int(
      db,
      "SELECT count(*) FROM qs WHERE bloom_probe(q, v) IS NOT "
      "bloom_test((SELECT f FROM rf WHERE name = CASE WHEN v % 2 THEN 'x' "
      "ELSE 'y' END), v)",
      NOARGS);
  TAP_EQ_U64(wrong, 0, "a query from a column: each row's own filter");
  TAP_EQ_U64(calls, 300, "... its query ran on every one of 300 rows");
}

static void test_nulls(sqlite3 *db) {
  tap_ok(q_int(db, "SELECT bloom_probe(NULL, 1) IS NULL", NOARGS) == 1,
         "a NULL query gives NULL");
  tap_ok(q_int(db, "SELECT bloom_probe(" Q_X_LIT ", NULL) IS NULL", NOARGS) == 1,
         "a NULL value gives NULL");
  tap_ok(q_int(db,
               "SELECT bloom_probe('SELECT f FROM rf WHERE name = ''null''', 1) "
               "IS NULL AND cuckoo_probe('SELECT NULL', 1) IS NULL",
               NOARGS) == 1,
         "a NULL stored filter gives NULL");
}

static void test_refusals(sqlite3 *db) {
  static const struct {
    const char *what, *query, *prefix;
  } cases[] = {
      {"a TEXT value", "SELECT f FROM rf WHERE name = 'text'",
       "bloom_probe: the query must return a filter BLOB, got TEXT"},
      {"an INTEGER value", "SELECT 42",
       "bloom_probe: the query must return a filter BLOB, got INTEGER"},
      {"two rows", "SELECT f FROM rf WHERE name IN ('x', 'c')",
       "bloom_probe: the query returned more than one row"},
      {"no row", "SELECT f FROM rf WHERE 0",
       "bloom_probe: the query returned no row"},
      {"two columns", "SELECT f, name FROM rf WHERE name = 'x'",
       "bloom_probe: the query must return one column (the filter), got 2"},
      {"a DELETE", "DELETE FROM rf WHERE name = 'nothing'",
       "bloom_probe: the query must only read"},
      {"a PRAGMA that writes", "PRAGMA user_version = 7",
       "bloom_probe: the query must only read"},
      {"two statements", "SELECT f FROM rf WHERE name = 'x'; SELECT 1",
       "bloom_probe: the query must be a single statement"},
      {"an empty text", "", "bloom_probe: the query is empty"},
      {"only blanks", "  ;\n", "bloom_probe: the query is empty"},
      {"a syntax error", "SELEC f FROM rf",
       "bloom_probe: the query failed: near \"SELEC\": syntax error"},
      {"no such table", "SELECT f FROM nowhere",
       "bloom_probe: the query failed: no such table: nowhere"},
      {"an error while it runs", "SELECT bloom_test(x'00', 1)",
       "bloom_probe: the query failed: bloom_test:"},
      {"a blob too short", "SELECT f FROM rf WHERE name = 'short'",
       "bloom_probe: not a filter"},
      {"a cuckoo filter", "SELECT f FROM rf WHERE name = 'c'",
       "bloom_probe: got a cuckoo filter, expected a bloom filter"},
      {"a query calling bloom_probe", "SELECT bloom_probe('SELECT 1', 1)",
       "bloom_probe: the query failed: bloom_probe: the query may not call "
       "bloom_probe itself"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char name[96];
    snprintf(name, sizeof name, "bloom_probe refuses %s", cases[i].what);
    expect_error(db, name, "SELECT bloom_probe(?1, v) FROM t",
                 ARGS(a_text(cases[i].query)), cases[i].prefix, 0);
  }
  expect_error(db, "cuckoo_probe refuses a bloom filter",
               "SELECT cuckoo_probe('SELECT f FROM rf WHERE name = ''x''', 1)",
               NOARGS, "cuckoo_probe: got a bloom filter, expected a cuckoo "
               "filter", 0);
  expect_error(db, "bloom_probe refuses a BLOB query",
               "SELECT bloom_probe(x'53454c454354', 1)", NOARGS,
               "bloom_probe: the query must be TEXT, got BLOB", 0);
  expect_error(db, "bloom_probe refuses an INTEGER query",
               "SELECT bloom_probe(7, 1)", NOARGS,
               "bloom_probe: the query must be TEXT, got INTEGER", 0);
  expect_error(db, "cuckoo_probe inside bloom_probe inside cuckoo_probe",
               "SELECT cuckoo_probe('SELECT bloom_probe(''SELECT "
               "cuckoo_probe(''''SELECT 1'''', 1)'', 1)', 1)",
               NOARGS, "cuckoo_probe: the query failed: bloom_probe: the query "
               "failed: cuckoo_probe: the query may not call cuckoo_probe", 0);
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM rf WHERE name = 'x'", NOARGS), 1,
             "the refused DELETE deleted nothing");
  TAP_EQ_U64(q_int(db, "PRAGMA user_version", NOARGS), 0,
             "the refused PRAGMA wrote nothing");
}

/* It runs the SQL it is given, so it is DIRECTONLY: not in views or
** triggers, even with trusted_schema on. */
static void test_direct_only(sqlite3 *db) {
  must_exec(db,
            "PRAGMA trusted_schema = ON;"
            "CREATE VIEW vp AS SELECT bloom_probe('SELECT f FROM rf WHERE "
            "name = ''x''', 1) AS hit;"
            "CREATE TABLE items(v);"
            "CREATE TRIGGER tp AFTER INSERT ON items BEGIN SELECT "
            "bloom_probe('SELECT f FROM rf WHERE name = ''x''', new.v); END;");
  expect_error(db, "bloom_probe in a view", "SELECT hit FROM vp", NOARGS,
               "unsafe use of bloom_probe()", 0);
  expect_error(db, "bloom_probe in a trigger", "INSERT INTO items VALUES (1)",
               NOARGS, "unsafe use of bloom_probe()", 0);
  tap_ok(q_int(db, "SELECT count(*) FROM pragma_function_list WHERE name IN "
                   "('bloom_probe', 'cuckoo_probe') AND narg = 2 AND "
                   "(flags & 0x80000) AND NOT (flags & 0x200800)",
               NOARGS) == 2,
         "bloom_probe and cuckoo_probe are DIRECTONLY, neither DETERMINISTIC "
         "nor INNOCUOUS");
}

/* One stored blob through both probes: 1 if each accepted it exactly when
** FORMAT.md does and refused it otherwise with its own name first. */
static int judge_blob(sqlite3 *db, sqlite3_stmt *store,
                      const unsigned char *b, int n) {
  sqlite3_reset(store);
  sqlite3_bind_blob(store, 1, b, n, SQLITE_STATIC);
  if (sqlite3_step(store) != SQLITE_DONE) return 0;
  static const struct {
    const char *fname, *sql;
    int kind;
  } probes[] = {
      {"bloom_probe", "SELECT bloom_probe('SELECT f FROM bad', 42)", 1},
      {"cuckoo_probe", "SELECT cuckoo_probe('SELECT f FROM bad', 42)", 2},
  };
  for (int i = 0; i < 2; i++) {
    char msg[512];
    int failed = run_for_error(db, probes[i].sql, NOARGS, msg, sizeof msg,
                               NULL, NULL);
    int valid = probes[i].kind == 1 ? spec_bloom_valid(b, (size_t)n)
                                    : spec_cuckoo_valid(b, (size_t)n);
    size_t len = strlen(probes[i].fname);
    int named = strncmp(msg, probes[i].fname, len) == 0 && msg[len] == ':';
    if (failed == valid || (failed && !named)) {
      tap_diag("  %s on a %d-byte blob: %s (FORMAT.md: %s)", probes[i].fname,
               n, failed ? msg : "accepted", valid ? "valid" : "invalid");
      return 0;
    }
  }
  return 1;
}

static void test_malformed(sqlite3 *db) {
  must_exec(db, "CREATE TABLE bad(f BLOB)");
  sqlite3_stmt *store = must_prep(db, "REPLACE INTO bad(rowid, f) VALUES (1, ?1)");
  static const char *const sources[] = {
      "SELECT bloom_build(x, 100, 0.01) FROM (" SERIES("1", "100") "SELECT x FROM s)",
      "SELECT cuckoo_build(x, 100, 0.01) FROM (" SERIES("1", "100") "SELECT x FROM s)",
      "SELECT bloom_empty(1, 0.5)",
  };
  static const unsigned char values[] = {0x00, 0x01, 0x02, 0x7f, 0x80, 0xff};
  rng_seed(0x9b0be5, "header mutations");
  int cases = 0, wrong = 0;
  for (size_t si = 0; si < sizeof sources / sizeof sources[0]; si++) {
    int len;
    unsigned char *good = q_blob(db, sources[si], NOARGS, &len);
    if (good == NULL) {
      tap_ok(0, "source filter %zu built", si);
      continue;
    }
    unsigned char *b = malloc((size_t)len + 64);
    if (b == NULL) exit(2);
    /* Truncations, and the body one block too long. */
    for (int n = 0; n <= len; n += n < 80 ? 1 : 61) {
      memcpy(b, good, (size_t)n);
      cases++;
      wrong += !judge_blob(db, store, b, n);
    }
    memcpy(b, good, (size_t)len);
    memset(b + len, 0, 64);
    cases++;
    wrong += !judge_blob(db, store, b, len + 64);
    /* Every header byte set to a few values, and random flips. */
    for (int at = 0; at < 64; at++) {
      for (size_t vi = 0; vi < sizeof values; vi++) {
        memcpy(b, good, (size_t)len);
        b[at] = values[vi];
        cases++;
        wrong += !judge_blob(db, store, b, len);
      }
      memcpy(b, good, (size_t)len);
      b[at] ^= (unsigned char)(1u << (rng_next() % 8));
      cases++;
      wrong += !judge_blob(db, store, b, len);
    }
    free(b);
    free(good);
  }
  sqlite3_finalize(store);
  TAP_EQ_U64(wrong, 0,
             "%d stored blobs: each probe accepts exactly what FORMAT.md "
             "accepts, else an error naming it", cases);
}

int main(void) {
  sqlite3 *db = open_db(NULL);
  setup(db);
  test_agrees(db);
  test_fresh_per_run(db);
  test_query_per_row(db);
  test_nulls(db);
  test_refusals(db);
  test_direct_only(db);
  test_malformed(db);
  sqlite3_close(db);
  return tap_done();
}
