/*
** bloom_store: a Bloom filter kept in shadow-table chunks.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Checked here: the CREATE arguments (each refusal names the module) and a
** shape that survives reopening; the exported filter is byte for byte
** bloom_build over the same values in any order, `inserted` included, in
** UTF-8 and UTF-16 databases and at several sizes; no false negative, and
** point, IN and correlated probes answering exactly as bloom_test on the
** exported filter; what a store refuses (listing items, UPDATE, DELETE of
** a match, a value and a filter in one row, a merge of another shape);
** merges; ROLLBACK, savepoints and a statement that fails part way inside
** a longer transaction; triggers under trusted_schema=OFF; attached
** databases; a second connection seeing committed state only; rename,
** drop, VACUUM and the backup API; DEFENSIVE mode; and damaged shadow
** tables, refused with an error naming the module.
*/
#define _POSIX_C_SOURCE 200809L

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/rng.h"
#include "lib/sqldb.h"
#include "lib/store_damage.h"
#include "lib/tap.h"

#define SEED 0x5eed5707e5ull

static const char *temp_db(const char *tag) {
  return temp_db_file("store", tag);
}

/* 1 if the store's exported filter equals bloom_build over the values of
** table `src` (column v) at the store's capacity and rate. */
static int same_as_build(sqlite3 *db, const char *store, const char *src,
                         const char *n, const char *p) {
  char sql[512];
  snprintf(sql, sizeof sql,
           "SELECT (SELECT filter FROM %s) = (SELECT bloom_build(v, %s, %s) "
           "FROM %s)", store, n, p, src);
  return q_int(db, sql, NOARGS) == 1;
}

static void test_arguments(void) {
  sqlite3 *db = open_db(NULL);
  static const bad_arguments bad[] = {
      {"capacity = 0", "capacity must be an integer >= 1"},
      {"capacity = -5", "capacity must be an integer >= 1"},
      {"capacity = 1.5", "capacity must be an integer >= 1"},
      {"capacity = ten", "capacity must be an integer >= 1"},
      {"capacity = 9223372036854775808", "capacity must be an integer >= 1"},
      {"capacity = 10, fpr = 1", "fpr must be a number"},
      {"capacity = 10, fpr = 0", "fpr must be a number"},
      {"capacity = 10, fpr = 1e-13", "fpr must be a number"},
      {"capacity = 10, fpr = nan", "fpr must be a number"},
      {"capacity = 10, capacity = 10", "capacity is given twice"},
      {"capacity = 10, fpr = 0.1, fpr = 0.1", "fpr is given twice"},
      {"capacity = 10, colour = 1", "unknown argument \"colour\""},
      {"capacity 10", "arguments are written name = value"},
      {"capacity = ", "arguments are written name = value"},
  };
  check_bad_arguments(db, "bloom_store", bad, sizeof bad / sizeof bad[0]);
  check_bad_arguments(db, "bloom_store", bad_growth_arguments,
                      BAD_GROWTH_ARGUMENTS);
  /* Accepted forms: 1e3 is an integral number, quotes and spaces are
  ** allowed around a value. */
  tap_ok(exec_ok(db, "CREATE VIRTUAL TABLE a USING bloom_store(capacity=1e3)") &&
             exec_ok(db, "CREATE VIRTUAL TABLE b USING bloom_store( capacity "
                         "= '1000' , fpr = 0.01 )"),
         "capacity = 1e3 and a quoted capacity with spaces are accepted");
  tap_ok(q_int(db, "SELECT (SELECT filter FROM a) = (SELECT filter FROM b) "
                   "AND (SELECT filter FROM a) = bloom_empty(1000, 0.01)",
               NOARGS) == 1,
         "an empty store exports bloom_empty(capacity, fpr), default fpr 0.01");
  sqlite3_close(db);

  /* The shape is fixed at CREATE and survives closing the database. */
  const char *path = temp_db("args");
  db = open_db_at(path);
  must_exec(db, "CREATE VIRTUAL TABLE s USING bloom_store(capacity = 5000, "
                "fpr = 0.001); INSERT INTO s(value) VALUES ('kept');");
  sqlite3_close(db);
  db = open_db_at(path);
  tap_ok(q_int(db, "SELECT i.capacity = 5000 AND i.target_fpr = 0.001 AND "
                   "i.inserted = 1 FROM s, bloom_info(s.filter) AS i",
               NOARGS) == 1 &&
             q_int(db, "SELECT EXISTS (SELECT 1 FROM s WHERE value = 'kept')",
                   NOARGS) == 1,
         "capacity, fpr and the items survive closing and reopening");
  sqlite3_close(db);
  remove(path);
}

/* Values of every storage class, in random order, into stores of several
** sizes; the export must equal bloom_build's blob. */
static void test_equals_build(const char *encoding) {
  sqlite3 *db = open_db(encoding);
  rng_seed(SEED, "test_equals_build");
  must_exec(db, "CREATE TABLE src(k INTEGER PRIMARY KEY, v)");
  sqlite3_stmt *ins = must_prep(db, "INSERT INTO src(k, v) VALUES (?1, ?2)");
  for (int i = 0; i < 3000; i++) {
    sqlite3_bind_int64(ins, 1, (sqlite3_int64)(rng_next() >> 2));
    switch (i % 5) {
      case 0: sqlite3_bind_int64(ins, 2, (sqlite3_int64)rng_next()); break;
      case 1: sqlite3_bind_double(ins, 2, (double)(rng_next() >> 11) / 7.0); break;
      case 2: {
        char text[32];
        snprintf(text, sizeof text, "req-%llu", (unsigned long long)rng_next());
        sqlite3_bind_text(ins, 2, text, -1, SQLITE_TRANSIENT);
        break;
      }
      case 3: {
        uint64_t b = rng_next();
        sqlite3_bind_blob(ins, 2, &b, (int)(1 + i % 8), SQLITE_TRANSIENT);
        break;
      }
      default: sqlite3_bind_int64(ins, 2, i % 50); break; /* repeats */
    }
    sqlite3_step(ins);
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  must_exec(db, "INSERT INTO src(k, v) VALUES (-1, NULL), (-2, 42), (-3, 42.0)");
  const char *sizes[][2] = {{"1", "0.5"}, {"100", "0.01"}, {"3000", "0.01"},
                            {"100000", "0.001"}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    char sql[256];
    snprintf(sql, sizeof sql,
             "DROP TABLE IF EXISTS s; CREATE VIRTUAL TABLE s USING "
             "bloom_store(capacity = %s, fpr = %s);"
             "INSERT INTO s(value) SELECT v FROM src ORDER BY k;",
             sizes[i][0], sizes[i][1]);
    must_exec(db, sql);
    tap_ok(same_as_build(db, "s", "src", sizes[i][0], sizes[i][1]),
           "%s: store of capacity %s at %s, rows in random order, exports "
           "bloom_build's blob byte for byte", encoding ? encoding : "UTF-8",
           sizes[i][0], sizes[i][1]);
  }
  /* One row at a time, in autocommit transactions, in another order. */
  must_exec(db, "DROP TABLE s; CREATE VIRTUAL TABLE s USING "
                "bloom_store(capacity = 3000)");
  sqlite3_stmt *sel = must_prep(db, "SELECT v FROM src ORDER BY v, k DESC");
  sqlite3_stmt *one = must_prep(db, "INSERT INTO s(value) VALUES (?1)");
  while (sqlite3_step(sel) == SQLITE_ROW) {
    sqlite3_bind_value(one, 1, sqlite3_column_value(sel, 0));
    sqlite3_step(one);
    sqlite3_reset(one);
  }
  sqlite3_finalize(sel);
  sqlite3_finalize(one);
  tap_ok(same_as_build(db, "s", "src", "3000", "0.01"),
         "%s: one autocommit INSERT a row, in another order: the same blob",
         encoding ? encoding : "UTF-8");
  TAP_EQ_U64(q_int(db, "SELECT i.inserted FROM s, bloom_info(s.filter) AS i",
                   NOARGS),
             q_int(db, "SELECT count(v) FROM src", NOARGS),
             "inserted counts every non-NULL value added, repeats included");
  sqlite3_close(db);
}

/* Every added value answers 1; every probe form answers as bloom_test on
** the exported filter. */
static void test_probes(void) {
  sqlite3 *db = open_db(NULL);
  rng_seed(SEED + 1, "test_probes");
  must_exec(db, "CREATE VIRTUAL TABLE s USING bloom_store(capacity = 20000, "
                "fpr = 0.02);"
                "CREATE TABLE ids(id INTEGER PRIMARY KEY);"
                "CREATE TABLE probe(id INTEGER PRIMARY KEY)");
  sqlite3_stmt *a = must_prep(db, "INSERT INTO ids VALUES (?1)");
  sqlite3_stmt *b = must_prep(db, "INSERT OR IGNORE INTO probe VALUES (?1)");
  must_exec(db, "BEGIN");
  for (int i = 0; i < 20000; i++) {
    sqlite3_bind_int64(a, 1, (sqlite3_int64)(rng_next() >> 1));
    sqlite3_step(a);
    sqlite3_reset(a);
    sqlite3_bind_int64(b, 1, (sqlite3_int64)(rng_next() >> 1));
    sqlite3_step(b);
    sqlite3_reset(b);
  }
  must_exec(db, "COMMIT");
  sqlite3_finalize(a);
  sqlite3_finalize(b);
  must_exec(db, "INSERT INTO s(value) SELECT id FROM ids");
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM ids WHERE NOT EXISTS "
                       "(SELECT 1 FROM s WHERE value = ids.id)", NOARGS),
             0, "no false negative: every added id has a row (correlated)");
  must_exec(db, "CREATE TABLE f AS SELECT filter AS f FROM s");
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM probe WHERE "
                       "EXISTS (SELECT 1 FROM s WHERE value = probe.id) IS NOT "
                       "bloom_test((SELECT f FROM f), probe.id)", NOARGS),
             0, "correlated EXISTS answers exactly as bloom_test on the export");
  sqlite3_int64 fp = q_int(db, "SELECT count(*) FROM probe WHERE EXISTS "
                               "(SELECT 1 FROM s WHERE value = probe.id) AND "
                               "id NOT IN (SELECT id FROM ids)", NOARGS);
  sqlite3_int64 absent = q_int(db, "SELECT count(*) FROM probe WHERE id NOT IN "
                                   "(SELECT id FROM ids)", NOARGS);
  tap_ok(absent > 19000 && (double)fp <= (double)absent * 0.02 * 1.25,
         "false positives at capacity: %lld of %lld absent ids (%.3f%%, asked "
         "2%%, within sampling)", fp, absent, 100.0 * (double)fp / (double)absent);
  tap_ok(q_int(db, "SELECT count(*) FROM probe JOIN s ON s.value = probe.id",
               NOARGS) ==
             q_int(db, "SELECT count(*) FROM probe WHERE bloom_test("
                       "(SELECT f FROM f), id)", NOARGS),
         "a join on value gives a row for each maybe");
  /* IN lists, with repeats, NULL and absent values. */
  sqlite3_int64 first = q_int(db, "SELECT id FROM ids LIMIT 1", NOARGS);
  sqlite3_stmt *in = prep(db, "SELECT count(*) FROM s WHERE value IN "
                              "(?1, ?1, NULL, 'absent-text', ?2)",
                          ARGS(a_int(first), a_int(first + 1)));
  int rows = in && sqlite3_step(in) == SQLITE_ROW ? sqlite3_column_int(in, 0) : -1;
  sqlite3_finalize(in);
  sqlite3_int64 want = 1 + q_int(db, "SELECT bloom_test((SELECT f FROM f), ?1) "
                                     "+ bloom_test((SELECT f FROM f), "
                                     "'absent-text')",
                                 ARGS(a_int(first + 1)));
  tap_ok(rows == want, "value IN (...) gives one row per distinct maybe "
                       "(%d rows, want %lld)", rows, want);
  tap_ok(q_int(db, "SELECT count(*) FROM s WHERE value = NULL", NOARGS) == 0 &&
             q_int(db, "SELECT count(*) FROM s WHERE value IS NULL", NOARGS) == 0,
         "NULL is never present");
  tap_ok(q_int(db, "SELECT value = ?1 FROM s WHERE value = ?1",
               ARGS(a_int(first))) == 1,
         "the row's value column is the value asked for");
  tap_ok(q_int(db, "SELECT count(*) FROM s", NOARGS) == 1,
         "a query that asks for no column sees the one filter row");
  sqlite3_close(db);
}

static void test_refusals(void) {
  sqlite3 *db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE s USING bloom_store(capacity = 100);"
                "INSERT INTO s(value) VALUES (1), (2), ('x')");
  /* value has no affinity: an IN list keeps its storage classes. */
  char *in = q_text(db, "SELECT group_concat(quote(value)) FROM s WHERE value "
                    "IN ('1', 1, 'x', x'78', 2.0, '2')", NOARGS);
  tap_ok(in && strcmp(in, "1,2.0,'x'") == 0,
         "value IN (...) with mixed storage classes finds only the values "
         "added (%s: 1, 'x' and 2 were)", in ? in : "NULL");
  free(in);
  /* What a table browser asks first: one row, saying what the store is. */
  char *summary = q_text(db, "SELECT * FROM s", NOARGS);
  tap_ok(summary && strncmp(summary, "bloom_store s, fixed, for 100 items, "
                            "fpr 0.01; its items cannot be listed", 66) == 0 &&
             q_int(db, "SELECT count(*) FROM (SELECT * FROM s)", NOARGS) == 1,
         "SELECT * is one row, the store's summary (%s)",
         summary ? summary : "NULL");
  free(summary);
  expect_error(db, "INSERT without columns", "INSERT INTO s VALUES (5)",
               NOARGS, "bloom_store: the summary column cannot be written: "
               "INSERT INTO s(value) adds a value", 0);
  expect_error(db, "SELECT value", "SELECT value FROM s", NOARGS,
               "bloom_store: a filter cannot list its items", 0);
  expect_error(db, "range on value", "SELECT filter FROM s WHERE value > 1",
               NOARGS, "bloom_store: a filter cannot list its items", 0);
  expect_error(db, "a pattern on value beside summary",
               "SELECT summary, value FROM s WHERE value LIKE 'x%'", NOARGS,
               "bloom_store: a filter cannot list its items", 0);
  expect_error(db, "value != x", "SELECT * FROM s WHERE value != 1", NOARGS,
               "bloom_store: a filter cannot list its items", 0);
  /* A scan naming every column (a browser, from PRAGMA table_xinfo): the
  ** summary row, value NULL, filter the export. */
  tap_ok(q_int(db, "SELECT count(*) = 1 AND min(summary) = (SELECT * FROM s) "
                   "AND count(value) = 0 AND min(filter) = (SELECT filter "
                   "FROM s) FROM (SELECT rowid, summary, value, filter FROM s)",
               NOARGS) == 1,
         "a scan naming every column is the summary row, value NULL, filter "
         "the export");
  tap_ok(q_int(db, "SELECT count(*) FROM s WHERE value IS NOT NULL", NOARGS)
             == 0,
         "value IS NOT NULL on a scan gives no row (value is NULL there)");
  /* A probe stays a probe when the statement names filter too: a join on
  ** value must not scan (it would pair every row with the summary row). */
  must_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), ('x')");
  tap_ok(q_int(db, "SELECT count(*) = 3 AND count(s.value) = 3 AND "
                   "count(s.filter) = 0 FROM t JOIN s ON s.value = t.x",
               NOARGS) == 1 &&
             q_int(db, "SELECT count(*) FROM t WHERE EXISTS (SELECT filter "
                       "FROM s WHERE s.value = t.x)", NOARGS) == 3,
         "a join or a correlated EXISTS on value naming filter probes each "
         "value (a row each, value set, filter NULL on a probe row)");
  must_exec(db, "DROP TABLE t");
  expect_error(db, "UPDATE a match", "UPDATE s SET value = 3 WHERE value = 1",
               NOARGS, "bloom_store: an item cannot be changed", 0);
  expect_error(db, "DELETE a match", "DELETE FROM s WHERE value = 1", NOARGS,
               "bloom_store: a Bloom filter cannot forget a value", 0);
  tap_ok(exec_ok(db, "DELETE FROM s WHERE value = 'never added'") &&
             sqlite3_changes(db) == 0,
         "DELETE of a value certainly absent succeeds with 0 changes");
  expect_error(db, "value and filter in one row",
               "INSERT INTO s(value, filter) VALUES (1, bloom_empty(100))",
               NOARGS, "bloom_store: insert a value or a filter, not both", 0);
  expect_error(db, "merge of another size",
               "INSERT INTO s(filter) VALUES (bloom_empty(1000))", NOARGS,
               "bloom_store: the filters differ in bits", 0);
  expect_error(db, "merge of a cuckoo filter",
               "INSERT INTO s(filter) SELECT cuckoo_build(1, 100)", NOARGS,
               "bloom_store: got a cuckoo filter", 0);
  expect_error(db, "merge of TEXT", "INSERT INTO s(filter) VALUES ('abc')",
               NOARGS, "bloom_store: the filter to merge must be a BLOB", 0);
  expect_error(db, "merge of a damaged blob",
               "INSERT INTO s(filter) VALUES (x'00112233')", NOARGS,
               "bloom_store: ", 0);
  tap_ok(q_int(db, "SELECT (SELECT filter FROM s) = (SELECT bloom_build(v, "
                   "100) FROM (SELECT 1 AS v UNION ALL SELECT 2 UNION ALL "
                   "SELECT 'x'))", NOARGS) == 1,
         "after every refusal the store holds what it held");
  sqlite3_close(db);
}

static void test_merge(void) {
  sqlite3 *db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE s USING bloom_store(capacity = 5000);"
                "INSERT INTO s(value) " SERIES("1", "3000") "SELECT x FROM s;"
                "CREATE TABLE other AS SELECT bloom_build(x, 5000) AS f FROM "
                "(" SERIES("2001", "6000") "SELECT x FROM s);"
                "CREATE TABLE before AS SELECT filter AS f FROM s;"
                "INSERT INTO s(filter) SELECT f FROM other");
  tap_ok(q_int(db, "SELECT (SELECT filter FROM s) = bloom_union("
                   "(SELECT f FROM before), (SELECT f FROM other))",
               NOARGS) == 1,
         "merging a filter gives bloom_union of the store and the filter, "
         "counters added");
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM (" SERIES("1", "6000")
                       "SELECT x FROM s) WHERE NOT EXISTS (SELECT 1 FROM s AS "
                       "st WHERE st.value = x)", NOARGS),
             0, "every value of both sides is present after the merge");
  sqlite3_close(db);
}

static void test_transactions(void) {
  const char *path = temp_db("tx");
  sqlite3 *db = open_db_at(path);
  must_exec(db, "PRAGMA journal_mode = WAL;"
                "CREATE VIRTUAL TABLE s USING bloom_store(capacity = 10000);"
                "CREATE TABLE shadow_copy(v);"
                "INSERT INTO s(value) VALUES ('base'); "
                "INSERT INTO shadow_copy VALUES ('base')");
  must_exec(db, "BEGIN; INSERT INTO s(value) VALUES ('rolled back');");
  tap_ok(q_int(db, "SELECT EXISTS (SELECT 1 FROM s WHERE value = 'rolled back')",
               NOARGS) == 1,
         "inside a transaction, a read sees the transaction's own insert");
  must_exec(db, "ROLLBACK");
  tap_ok(same_as_build(db, "s", "shadow_copy", "10000", "0.01"),
         "ROLLBACK undoes an insert");
  must_exec(db, "BEGIN;"
                "SAVEPOINT a; INSERT INTO s(value) VALUES ('a1');"
                "  SAVEPOINT b; INSERT INTO s(value) " SERIES("1", "500")
                "  SELECT 'b' || x FROM s;"
                "    SAVEPOINT c; INSERT INTO s(value) VALUES ('c1');"
                "    ROLLBACK TO c; INSERT INTO s(value) VALUES ('c2'); RELEASE c;"
                "  ROLLBACK TO b; INSERT INTO s(value) VALUES ('b2'); RELEASE b;"
                "RELEASE a; COMMIT;"
                "INSERT INTO shadow_copy VALUES ('a1'), ('b2');");
  tap_ok(same_as_build(db, "s", "shadow_copy", "10000", "0.01"),
         "nested savepoints: ROLLBACK TO undoes exactly what came after it");
  /* A statement that fails at its 57th row inside a longer transaction:
  ** the store is as before that statement, the transaction's earlier
  ** changes stay. */
  must_exec(db, "BEGIN; INSERT INTO s(value) VALUES ('kept');");
  int failed = !exec_ok(db, "INSERT INTO s(value) " SERIES("1", "100")
                            "SELECT CASE WHEN x < 57 THEN 'partial' || x ELSE "
                            "bloom_empty(0) END FROM s");
  must_exec(db, "COMMIT; INSERT INTO shadow_copy VALUES ('kept')");
  tap_ok(failed && same_as_build(db, "s", "shadow_copy", "10000", "0.01"),
         "a statement failing at row 57 leaves the store as before it; the "
         "transaction's earlier insert stays");
  /* The same, with the insert made by a trigger. */
  must_exec(db, "CREATE TABLE log(id INTEGER PRIMARY KEY, v TEXT NOT NULL);"
                "CREATE TRIGGER log_ai AFTER INSERT ON log BEGIN "
                "  INSERT INTO s(value) VALUES (NEW.v); END;"
                "BEGIN; INSERT INTO log(v) VALUES ('trig-kept');");
  failed = !exec_ok(db, "INSERT INTO log(v) " SERIES("1", "100")
                        "SELECT CASE WHEN x < 57 THEN 'trig' || x END FROM s");
  must_exec(db, "COMMIT; INSERT INTO shadow_copy VALUES ('trig-kept')");
  tap_ok(failed && same_as_build(db, "s", "shadow_copy", "10000", "0.01"),
         "a trigger's inserts of a failed statement are undone with it");

  /* A second connection sees committed state only. */
  sqlite3 *reader = open_db_at(path);
  must_exec(db, "BEGIN; INSERT INTO s(value) VALUES ('uncommitted')");
  int before = (int)q_int(reader, "SELECT EXISTS (SELECT 1 FROM s WHERE value "
                                  "= 'uncommitted')", NOARGS);
  must_exec(db, "COMMIT");
  int after = (int)q_int(reader, "SELECT EXISTS (SELECT 1 FROM s WHERE value "
                                 "= 'uncommitted')", NOARGS);
  tap_ok(before == 0 && after == 1,
         "another connection sees the insert only once it is committed");
  sqlite3_close(reader);
  sqlite3_close(db);
  remove(path);
}

static void test_schema_operations(void) {
  const char *path = temp_db("schema");
  const char *other = "/tmp/bloom-store-attached.db";
  remove(other);
  sqlite3 *db = open_db_at(path);
  /* trusted_schema=OFF: the store serves a trigger. */
  must_exec(db, "PRAGMA trusted_schema = OFF;"
                "CREATE TABLE processed(id INTEGER PRIMARY KEY);"
                "CREATE VIRTUAL TABLE seen USING bloom_store(capacity = 1000);"
                "CREATE TRIGGER processed_ai AFTER INSERT ON processed BEGIN "
                "  INSERT INTO seen(value) VALUES (NEW.id); END;");
  tap_ok(exec_ok(db, "INSERT INTO processed VALUES (1), (2), (3)"),
         "an AFTER INSERT trigger writes into a store with trusted_schema=OFF");
  tap_ok(same_as_build(db, "seen", "(SELECT id AS v FROM processed)", "1000",
                       "0.01"),
         "the trigger-kept store equals bloom_build over the table");
  /* An attached database. */
  char sql[512];
  snprintf(sql, sizeof sql, "ATTACH '%s' AS aux;"
           "CREATE VIRTUAL TABLE aux.far USING bloom_store(capacity = 50);"
           "INSERT INTO aux.far(value) VALUES ('there')", other);
  must_exec(db, sql);
  tap_ok(q_int(db, "SELECT EXISTS (SELECT 1 FROM aux.far WHERE value = 'there')"
                   " AND (SELECT count(*) FROM aux.sqlite_master WHERE name "
                   "LIKE 'far_%') = 2", NOARGS) == 1,
         "a store in an attached database keeps its shadow tables there");
  must_exec(db, "DETACH aux");
  /* Rename: the shadow tables follow. */
  must_exec(db, "ALTER TABLE seen RENAME TO seen_renamed");
  tap_ok(q_int(db, "SELECT count(*) FROM sqlite_master WHERE name IN "
                   "('seen_renamed_config', 'seen_renamed_chunks')", NOARGS) == 2 &&
             q_int(db, "SELECT count(*) FROM sqlite_master WHERE name IN "
                       "('seen_config', 'seen_chunks')", NOARGS) == 0 &&
             q_int(db, "SELECT EXISTS (SELECT 1 FROM seen_renamed WHERE value "
                       "= 2)", NOARGS) == 1,
         "ALTER TABLE RENAME renames the shadow tables; the items stay");
  must_exec(db, "DROP TRIGGER processed_ai;"
                "INSERT INTO seen_renamed(value) VALUES (4); VACUUM;");
  tap_ok(q_int(db, "SELECT EXISTS (SELECT 1 FROM seen_renamed WHERE value "
                   "= 4)", NOARGS) == 1 &&
             q_int(db, "SELECT count(*) FROM pragma_integrity_check WHERE "
                       "integrity_check = 'ok'", NOARGS) == 1,
         "after VACUUM the store answers, and integrity_check is ok");
  /* The backup API copies a store like any table. */
  sqlite3 *copy = open_db(NULL);
  sqlite3_backup *bk = sqlite3_backup_init(copy, "main", db, "main");
  int rc = bk ? sqlite3_backup_step(bk, -1) : SQLITE_ERROR;
  sqlite3_backup_finish(bk);
  tap_ok(rc == SQLITE_DONE &&
             q_int(copy, "SELECT (SELECT filter FROM seen_renamed) IS NOT NULL "
                         "AND EXISTS (SELECT 1 FROM seen_renamed WHERE value = 3)",
                   NOARGS) == 1,
         "a backup holds a working store");
  sqlite3_close(copy);
  /* DEFENSIVE: the shadow tables refuse direct writes, the store does not. */
  int on = 1;
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &on);
  tap_ok(!exec_ok(db, "UPDATE seen_renamed_chunks SET data = x'00'") &&
             exec_ok(db, "INSERT INTO seen_renamed(value) VALUES (5)"),
         "under DEFENSIVE a direct write to a shadow table fails; inserts "
         "through the store work");
  tap_ok(exec_ok(db, "DROP TABLE seen_renamed") &&
             q_int(db, "SELECT count(*) FROM sqlite_master WHERE name LIKE "
                       "'seen_renamed%'", NOARGS) == 0,
         "DROP TABLE drops the shadow tables");
  sqlite3_close(db);
  remove(path);
  remove(other);
}

/* Damaged shadow tables: every read refuses with an error naming the
** module, never a crash, never a guess. */
static void test_damage(void) {
  check_chunk_damage("bloom_store");
  static const char *const config[] = {
      "DELETE FROM s_config WHERE key = 'bits'",
      "UPDATE s_config SET value = 100 WHERE key = 'bits'",
      "UPDATE s_config SET value = 0 WHERE key = 'hashes'",
      "UPDATE s_config SET value = 65 WHERE key = 'hashes'",
      "UPDATE s_config SET value = 2 WHERE key = 'kind'",
      "UPDATE s_config SET value = 9 WHERE key = 'version'",
      "UPDATE s_config SET value = 0 WHERE key = 'chunk_blocks'",
      "UPDATE s_config SET value = 1.5 WHERE key = 'fpr'",
      "DELETE FROM s_config",
      /* Each value has one storage class (FORMAT.md): nothing is read
      ** loosely, as '5e3' would be 5 or 5000.9 would be 5000. */
      "UPDATE s_config SET value = '10' WHERE key = 'capacity'",
      "UPDATE s_config SET value = '5e3' WHERE key = 'capacity'",
      "UPDATE s_config SET value = 10.9 WHERE key = 'capacity'",
      "UPDATE s_config SET value = 1.5 WHERE key = 'kind'",
      "UPDATE s_config SET value = 1.9 WHERE key = 'version'",
      "UPDATE s_config SET value = NULL WHERE key = 'seed'",
      "UPDATE s_config SET value = 'abc' WHERE key = 'seed'",
      "UPDATE s_config SET value = x'00' WHERE key = 'hashes'",
      "UPDATE s_config SET value = 1 WHERE key = 'fpr'",
      "UPDATE s_config SET value = '0.01' WHERE key = 'fpr'",
      "UPDATE s_config SET value = 1048577 WHERE key = 'chunk_blocks'",
      /* A key no fixed store writes. */
      "INSERT INTO s_config VALUES ('colour', 1)",
      "INSERT INTO s_config VALUES ('layer.0.bits', 512)",
      "INSERT INTO s_config VALUES ('growth', 2)",
      /* a windowed store's keys in a fixed one */
      "INSERT INTO s_config VALUES ('gen.0.number', 0)",
      "INSERT INTO s_config VALUES ('gen.0.layer.0.foo', 1)",
      "INSERT INTO s_config VALUES (x'62697473', 512)",
      /* affinity: one of five names, as TEXT. */
      "INSERT INTO s_config VALUES ('affinity', 'integer')",
      "INSERT INTO s_config VALUES ('affinity', 'VARCHAR(40)')",
      "INSERT INTO s_config VALUES ('affinity', 3)",
  };
  check_config_damage("bloom_store", config, sizeof config / sizeof config[0]);
}

/* A store larger than the 64 MB of chunks a transaction keeps in memory
** (60 million items at 1%: 72 MB): once the cache is full, adds to chunks it
** does not hold are kept as hashes and applied in chunk order.  The result
** must be the same bytes, a read in the same transaction must see them, and
** ROLLBACK TO must drop them. */
static void test_past_the_budget(void) {
  sqlite3 *db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE big USING bloom_store(capacity = "
                "60000000, fpr = 0.01);"
                "CREATE TABLE vals(v INTEGER PRIMARY KEY);"
                "INSERT INTO vals " SERIES("1", "200000")
                "SELECT x * 2654435761 % 1000000007 FROM s;"
                "BEGIN; INSERT INTO big(value) SELECT v FROM vals;");
  long seen = (long)q_int(db, "SELECT count(*) FROM vals WHERE EXISTS "
                              "(SELECT 1 FROM big WHERE value = vals.v)",
                          NOARGS);
  must_exec(db, "SAVEPOINT a;"
                "INSERT INTO big(value) " SERIES("1", "100000")
                "SELECT 'dropped' || x FROM s;"
                "ROLLBACK TO a; RELEASE a; COMMIT;");
  tap_ok(seen == 200000, "inside the transaction every value added past the "
         "budget is seen (%ld of 200000)", seen);
  tap_ok(same_as_build(db, "big", "vals", "60000000", "0.01"),
         "past the chunk cache's budget the store is still bloom_build over "
         "its values, and ROLLBACK TO dropped the adds after the savepoint");
  must_exec(db, "CREATE TABLE more(v); INSERT INTO more "
                SERIES("200001", "300000")
                "SELECT x * 2654435761 % 1000000007 FROM s;"
                "BEGIN; INSERT INTO big(value) SELECT v FROM more; COMMIT;"
                "INSERT INTO vals SELECT v FROM more;");
  tap_ok(same_as_build(db, "big", "vals", "60000000", "0.01"),
         "adds kept as hashes until COMMIT are written by it");
  sqlite3_close(db);
}

int main(void) {
  test_arguments();
  test_equals_build(NULL);
  test_equals_build("UTF-16le");
  test_probes();
  test_refusals();
  test_merge();
  test_transactions();
  test_schema_operations();
  test_damage();
  test_past_the_budget();
  return tap_done();
}
