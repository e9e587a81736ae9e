/*
** INSERT OR IGNORE into a store: insert if new, in one statement.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** A bloom_store (fixed or scalable) adds a value under OR IGNORE only when
** it answered "certainly not present" before the add, and counts a change
** only then, so changes() tells a new item from a probable repeat; the
** export stays bloom_build over the values that were added.  A
** cuckoo_store adds under OR IGNORE as under a plain INSERT (skipping a
** value whose fingerprint another value put there would make it a false
** negative once the other is deleted), also when the OR IGNORE is an outer
** statement's that reaches a trigger's INSERT.  So does a quotient_store,
** growing or sized, on 512-byte pages so that its leaves split (FORMAT.md:
** its DELETE removes one entry, or none when entries of several widths
** match, so it holds at least one entry a row).  Plain INSERT keeps its
** meaning.  A cuckoo_store or quotient_store made with deletes = 0 skips
** under OR IGNORE as a bloom_store does, counts an entry for every change
** and none for a repeat, refuses DELETE, keeps this over a reopen and a
** savepoint's rollback, and refuses a damaged `deletes` row.  Values are
** random (seed printed).
*/
#define _POSIX_C_SOURCE 200809L

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rng.h"
#include "lib/sqldb.h"
#include "lib/store_damage.h"
#include "lib/tap.h"

#define SEED 0x1f0e11ull

/* INSERT OR IGNORE of one integer value: changes(). */
static int insert_if_new(sqlite3 *db, const char *store, sqlite3_int64 v) {
  char sql[160];
  snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO %s(value) VALUES (?1)",
           store);
  arg a[] = {a_int(v)};
  sqlite3_stmt *st = prep(db, sql, a, 1);
  int rc = st ? sqlite3_step(st) : SQLITE_ERROR;
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    tap_diag("  insert failed: %s", sqlite3_errmsg(db));
    return -1;
  }
  return sqlite3_changes(db);
}

/* What a stream of inserts under OR IGNORE counted: its repeats, the
** repeats that counted a change, the changes, and the statements that
** failed or counted more than one. */
typedef struct stream_counts {
  int repeats, repeats_counted, added, wrong;
} stream_counts;

/* n values of the seeded sequence (rng_seed first), every fourth a repeat
** of an earlier one, each inserted into s under OR IGNORE and recorded in
** the table all_values, and in added (with added_table) when it counted a
** change. */
static stream_counts insert_stream(sqlite3 *db, int n, int added_table) {
  stream_counts c = {0, 0, 0, 0};
  sqlite3_int64 *seen = malloc((size_t)n * sizeof *seen);
  if (seen == NULL) c.wrong = 1;
  for (int i = 0; i < n && seen; i++) {
    int again = i > 0 && i % 4 == 0;
    sqlite3_int64 v = again ? seen[rng_next() % (uint64_t)i]
                            : (sqlite3_int64)(rng_next() >> 1);
    seen[i] = v;
    int changes = insert_if_new(db, "s", v);
    if (changes < 0 || changes > 1) c.wrong++;
    c.added += changes == 1;
    c.repeats += again;
    c.repeats_counted += again && changes == 1;
    arg a[] = {a_int(v)};
    sqlite3_finalize(q_row(db, "INSERT INTO all_values VALUES (?1)", a, 1));
    if (added_table && changes == 1)
      sqlite3_finalize(q_row(db, "INSERT INTO added VALUES (?1)", a, 1));
  }
  free(seen);
  return c;
}

/* Values 0..n-1 of the seeded sequence, each n / 4th value repeated: each
** is inserted under OR IGNORE and, when it counted a change, recorded in
** added(v).  Every value inserted must then be present, and the export
** must equal bloom_build over added. */
static void check_bloom(const char *args, int n) {
  sqlite3 *db = open_db(NULL);
  char sql[256];
  snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE s USING bloom_store(%s);"
           "CREATE TABLE added(v); CREATE TABLE all_values(v)", args);
  must_exec(db, sql);
  rng_seed(SEED, args);
  stream_counts c = insert_stream(db, n, 1);
  int repeats = c.repeats, repeats_counted = c.repeats_counted;
  tap_ok(c.wrong == 0 && repeats_counted == 0,
         "bloom_store(%s): a repeated value counts no change (%d repeats, "
         "%d counted), a new one at most one", args, repeats, repeats_counted);
  sqlite3_int64 added = q_int(db, "SELECT count(*) FROM added", NOARGS);
  sqlite3_int64 missing = q_int(db, "SELECT count(*) FROM all_values WHERE "
                                "NOT EXISTS (SELECT 1 FROM s WHERE value = "
                                "all_values.v)", NOARGS);
  tap_ok(missing == 0 && added >= n - repeats - n / 100 && added <= n - repeats,
         "bloom_store(%s): every value inserted is present (%lld missing); "
         "%lld of %d new values counted (a false positive counts none)",
         args, missing, added, n - repeats);
  if (strstr(args, "growth") == NULL) {
    char build[256];
    snprintf(build, sizeof build, "SELECT (SELECT filter FROM s) = "
             "(SELECT bloom_build(v, (SELECT value FROM s_config WHERE key = "
             "'capacity'), (SELECT value FROM s_config WHERE key = 'fpr')) "
             "FROM added)");
    tap_ok(q_int(db, build, NOARGS) == 1,
           "bloom_store(%s): the export is bloom_build over the values "
           "counted as added, its inserted counter included", args);
  } else {
    tap_ok(q_int(db, "SELECT sum(inserted) FROM bloom_layers((SELECT filter "
                     "FROM s))", NOARGS) == added,
           "bloom_store(%s): the layers' inserted counters sum to the values "
           "counted as added (%lld)", args, added);
  }
  sqlite3_close(db);
}

static void check_statements(void) {
  sqlite3 *db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE s USING bloom_store(capacity = 1000, "
                "fpr = 0.0001);"
                "INSERT INTO s(value) VALUES (1), (2), ('x')");
  must_exec(db, "INSERT OR IGNORE INTO s(value) VALUES (1), (3), (NULL), "
                "('x'), (4), (3)");
  tap_ok(sqlite3_changes(db) == 2,
         "INSERT OR IGNORE ... VALUES counts the certainly-new rows only "
         "(%d of 6: 3 and 4; 1, 'x', NULL and the second 3 skipped)",
         sqlite3_changes(db));
  must_exec(db, "INSERT OR IGNORE INTO s(value) WITH RECURSIVE n(x) AS "
                "(SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 10) "
                "SELECT x FROM n");
  tap_ok(sqlite3_changes(db) == 6,
         "INSERT OR IGNORE ... SELECT of 1..10 counts the 6 new ones (%d)",
         sqlite3_changes(db));
  must_exec(db, "INSERT INTO s(value) VALUES (1), (1)");
  tap_ok(sqlite3_changes(db) == 2 &&
             q_int(db, "SELECT inserted FROM bloom_info((SELECT filter FROM "
                       "s))", NOARGS) == 3 + 2 + 6 + 2,
         "a plain INSERT adds and counts every row, repeats included");
  must_exec(db, "INSERT OR REPLACE INTO s(value) VALUES (1)");
  tap_ok(sqlite3_changes(db) == 1, "OR REPLACE adds as a plain INSERT");
  /* The usual idempotent write: the outer OR IGNORE reaches the trigger. */
  must_exec(db, "CREATE TABLE processed(id INTEGER PRIMARY KEY);"
                "CREATE VIRTUAL TABLE seen USING bloom_store(fpr = 0.001);"
                "CREATE TRIGGER keep AFTER INSERT ON processed BEGIN "
                "INSERT INTO seen(value) VALUES (NEW.id); END;"
                "INSERT INTO seen(value) VALUES (7);"
                "INSERT OR IGNORE INTO processed VALUES (7), (8), (8)");
  tap_ok(q_int(db, "SELECT count(*) FROM processed", NOARGS) == 2 &&
             q_int(db, "SELECT count(*) FROM seen WHERE value IN (7, 8)",
                   NOARGS) == 2 &&
             q_int(db, "SELECT sum(inserted) FROM bloom_layers((SELECT "
                       "filter FROM seen))", NOARGS) == 2,
         "INSERT OR IGNORE on a table whose trigger keeps a store: the rows "
         "go in, the store skips what it holds (7), adds what it does not");
  sqlite3_close(db);
}

/* A trigger-kept cuckoo_store with deletes, written through INSERT OR
** IGNORE on its table: no value of the table is ever missing from it. */
static void check_cuckoo(void) {
  sqlite3 *db = open_db(NULL);
  /* 8-bit fingerprints over few buckets: fingerprints collide often. */
  must_exec(db, "CREATE TABLE base(id INTEGER PRIMARY KEY);"
                "CREATE VIRTUAL TABLE c USING cuckoo_store(capacity = 4000, "
                "fpr = 0.03);"
                "CREATE TRIGGER add_c AFTER INSERT ON base BEGIN "
                "INSERT INTO c(value) VALUES (NEW.id); END;"
                "CREATE TRIGGER del_c AFTER DELETE ON base BEGIN "
                "DELETE FROM c WHERE value = OLD.id; END;");
  rng_seed(SEED + 1, "cuckoo under OR IGNORE");
  int missing = 0;
  for (int round = 0; round < 20; round++) {
    sqlite3_stmt *st = must_prep(db, "INSERT OR IGNORE INTO base VALUES (?1)");
    for (int i = 0; i < 150; i++) {
      sqlite3_bind_int64(st, 1, (sqlite3_int64)(rng_next() % 20000));
      sqlite3_step(st);
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    char sql[128];
    snprintf(sql, sizeof sql, "DELETE FROM base WHERE id %% 7 = %d",
             round % 7);
    must_exec(db, sql);
    missing += (int)q_int(db, "SELECT count(*) FROM base WHERE NOT EXISTS "
                              "(SELECT 1 FROM c WHERE value = base.id)",
                          NOARGS);
  }
  sqlite3_int64 rows = q_int(db, "SELECT count(*) FROM base", NOARGS);
  sqlite3_int64 items = q_int(db, "SELECT items FROM cuckoo_info((SELECT "
                                  "filter FROM c))", NOARGS);
  tap_ok(missing == 0 && items == rows,
         "a trigger-kept cuckoo_store written through INSERT OR IGNORE, with "
         "deletes: no false negative in 20 rounds, one item per row (%lld "
         "items, %lld rows)", items, rows);
  must_exec(db, "INSERT OR IGNORE INTO c(value) VALUES (-1), (-1)");
  tap_ok(sqlite3_changes(db) == 2,
         "cuckoo_store: OR IGNORE adds every row, as a plain INSERT does");
  sqlite3_close(db);
}

/* The same with a trigger-kept quotient_store: no value of the table is
** ever missing; it holds at least one entry a row, and at most one a row
** plus the deletes (a DELETE removes one entry or none). */
static void check_quotient(const char *args, unsigned long long seed_add) {
  sqlite3 *db = open_db(NULL);
  char sql[600];
  snprintf(sql, sizeof sql,
           "PRAGMA page_size = 512;"
           "CREATE TABLE base(id INTEGER PRIMARY KEY);"
           "CREATE VIRTUAL TABLE q USING quotient_store(%s);"
           "CREATE TRIGGER add_q AFTER INSERT ON base BEGIN "
           "INSERT INTO q(value) VALUES (NEW.id); END;"
           "CREATE TRIGGER del_q AFTER DELETE ON base BEGIN "
           "DELETE FROM q WHERE value = OLD.id; END;", args);
  must_exec(db, sql);
  rng_seed(SEED + seed_add, "quotient under OR IGNORE");
  int missing = 0;
  sqlite3_int64 deleted = 0;
  for (int round = 0; round < 20; round++) {
    sqlite3_stmt *st = must_prep(db, "INSERT OR IGNORE INTO base VALUES (?1)");
    for (int i = 0; i < 150; i++) {
      sqlite3_bind_int64(st, 1, (sqlite3_int64)(rng_next() % 20000));
      sqlite3_step(st);
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    snprintf(sql, sizeof sql, "DELETE FROM base WHERE id %% 7 = %d",
             round % 7);
    must_exec(db, sql);
    deleted += sqlite3_changes(db);
    missing += (int)q_int(db, "SELECT count(*) FROM base WHERE NOT EXISTS "
                              "(SELECT 1 FROM q WHERE value = base.id)",
                          NOARGS);
  }
  sqlite3_int64 rows = q_int(db, "SELECT count(*) FROM base", NOARGS);
  sqlite3_int64 items = q_int(db, "SELECT items FROM quotient_info((SELECT "
                                  "filter FROM q))", NOARGS);
  sqlite3_int64 leaves = q_int(db, "SELECT count(*) FROM q_directory", NOARGS);
  tap_ok(missing == 0 && items >= rows && items <= rows + deleted && leaves > 4,
         "a trigger-kept quotient_store(%s) written through INSERT OR IGNORE, "
         "with deletes: no false negative in 20 rounds, rows <= items <= rows "
         "+ deletes (%lld items, %lld rows, %lld deletes, %lld leaves)", args,
         items, rows, deleted, leaves);
  sqlite3_int64 before = items;
  must_exec(db, "INSERT OR IGNORE INTO q(value) VALUES (-1), (-1)");
  int changes = sqlite3_changes(db);
  items = q_int(db, "SELECT items FROM quotient_info((SELECT filter FROM q))",
                NOARGS);
  tap_ok(changes == 2 && items == before + 2,
         "quotient_store(%s): OR IGNORE adds every row, as a plain INSERT "
         "does (%d changes, %lld entries more)", args, changes,
         items - before);
  sqlite3_close(db);
}

/* The entries a store's export holds: items of its kind's info. */
static sqlite3_int64 entries_of(sqlite3 *db, const char *module) {
  char sql[128];
  snprintf(sql, sizeof sql, "SELECT items FROM %.*s_info((SELECT filter FROM "
           "s))", (int)(strchr(module, '_') - module), module);
  return q_int(db, sql, NOARGS);
}

/* A store of module(args, deletes = 0) in a file: n seeded values, every
** fourth a repeat, inserted under OR IGNORE.  A repeat counts no change, a
** change adds one entry, every value inserted is present, and a new value
** is skipped only as a false positive (at most 3 p n of them).  Then: a
** plain INSERT adds every row; DELETE is refused; after a reopen OR IGNORE
** still skips and DELETE is still refused; a savepoint's rollback undoes
** an add and its count. */
static void check_adds_only(const char *module, const char *args, double p,
                            int n, unsigned long long seed_add) {
  const char *path = temp_db_file(module, "adds-only");
  sqlite3 *db = open_db_at(path);
  char sql[256], name[200], want[160];
  snprintf(name, sizeof name, "%s(%s, deletes = 0)", module, args);
  snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE s USING %s;"
           "CREATE TABLE all_values(v)", name);
  must_exec(db, sql);
  must_exec(db, "BEGIN");
  rng_seed(SEED + seed_add, name);
  stream_counts c = insert_stream(db, n, 0);
  int repeats = c.repeats, repeats_counted = c.repeats_counted,
      wrong = c.wrong, added = c.added;
  must_exec(db, "COMMIT");
  sqlite3_int64 entries = entries_of(db, module);
  sqlite3_int64 missing = q_int(db, "SELECT count(*) FROM all_values WHERE "
                                "NOT EXISTS (SELECT 1 FROM s WHERE value = "
                                "all_values.v)", NOARGS);
  int fresh = n - repeats, most_skipped = (int)(3 * p * n) + 1;
  tap_ok(wrong == 0 && repeats_counted == 0 && entries == added &&
             missing == 0 && added <= fresh && added >= fresh - most_skipped,
         "%s: %d repeats count no change; %d changes, %lld entries; %d of "
         "%d new values added (at most %d skipped); %lld missing", name,
         repeats, added, entries, added, fresh, most_skipped, missing);
  must_exec(db, "INSERT INTO s(value) VALUES (-5), (-5)");
  tap_ok(sqlite3_changes(db) == 2 && entries_of(db, module) == entries + 2,
         "%s: a plain INSERT adds every row, repeats included", name);
  snprintf(want, sizeof want, "%s: s was made with deletes = 0", module);
  snprintf(sql, sizeof sql, "%s: DELETE", name);
  expect_error(db, sql, "DELETE FROM s WHERE value = -5", NOARGS, want, 0);
  sqlite3_close(db);
  db = open_db_at(path);
  char *summary = q_text(db, "SELECT summary FROM s", NOARGS);
  int skipped =
      insert_if_new(db, "s", -5) == 0 && insert_if_new(db, "s", -6) == 1;
  must_exec(db, "SAVEPOINT a");
  int inside =
      insert_if_new(db, "s", -7) == 1 && insert_if_new(db, "s", -7) == 0;
  must_exec(db, "ROLLBACK TO a; RELEASE a");
  int undone =
      q_int(db, "SELECT count(*) FROM s WHERE value = -7", NOARGS) == 0;
  tap_ok(summary && strstr(summary, ", without deletes;") && skipped &&
             inside && undone && entries_of(db, module) == entries + 3,
         "%s, reopened: the summary says so (%s); OR IGNORE skips -5, adds "
         "-6; a savepoint's add of -7 is undone with the savepoint", name,
         summary ? summary : "NULL");
  free(summary);
  expect_error(db, sql, "DELETE FROM s WHERE value = -6", NOARGS, want, 0);
  sqlite3_close(db);
  remove(path);
}

/* The argument, for every kind; the `deletes` row, refused when damaged. */
static void check_deletes_arguments(void) {
  static const bad_arguments bad[] = {
      {"deletes = 2", "deletes must be 0 or 1, got 2"},
      {"deletes = yes", "deletes must be 0 or 1, got yes"},
      {"deletes = 0, deletes = 0", "deletes is given twice"},
  };
  static const bad_arguments bad_bloom[] = {
      {"deletes = 1", "deletes = 1: a Bloom filter cannot forget a value"},
  };
  sqlite3 *db = open_db(NULL);
  check_bad_arguments(db, "quotient_store", bad, sizeof bad / sizeof bad[0]);
  check_bad_arguments(db, "cuckoo_store", bad, sizeof bad / sizeof bad[0]);
  check_bad_arguments(db, "bloom_store", bad_bloom, 1);
  must_exec(db, "CREATE VIRTUAL TABLE b USING bloom_store(capacity = 100, "
                "deletes = 0);"
                "CREATE VIRTUAL TABLE q USING quotient_store(deletes = 1);"
                "CREATE VIRTUAL TABLE r USING quotient_store(deletes = 0);"
                "CREATE VIRTUAL TABLE c USING cuckoo_store(capacity = 100, "
                "deletes = 0)");
  tap_ok(q_int(db, "SELECT (SELECT count(*) FROM b_config WHERE key = "
                   "'deletes') = 0 AND (SELECT count(*) FROM q_config WHERE "
                   "key = 'deletes') = 0 AND (SELECT value FROM r_config "
                   "WHERE key = 'deletes') IS 0 AND (SELECT value FROM "
                   "c_config WHERE key = 'deletes') IS 0", NOARGS) == 1,
         "the row deletes = 0 is written by a store made with deletes = 0 "
         "that could delete, and by no other");
  sqlite3_close(db);
  static const char *const changes[] = {
      "UPDATE s_config SET value = 1 WHERE key = 'deletes'",
      "UPDATE s_config SET value = '0' WHERE key = 'deletes'",
      "UPDATE s_config SET value = 0.0 WHERE key = 'deletes'",
      "UPDATE s_config SET value = NULL WHERE key = 'deletes'",
      "UPDATE s_config SET value = -1 WHERE key = 'deletes'",
  };
  size_t n = sizeof changes / sizeof changes[0];
  check_config_damage_of("quotient_store", "deletes = 0", NULL, changes, n);
  check_config_damage_of("cuckoo_store", "capacity = 10, deletes = 0", NULL,
                         changes, n);
  static const char *const into_bloom[] = {
      "INSERT INTO s_config VALUES ('deletes', 0)",
  };
  check_config_damage_of("bloom_store", "capacity = 10", NULL, into_bloom, 1);
}

int main(void) {
  check_statements();
  check_bloom("capacity = 20000, fpr = 0.01", 20000);
  check_bloom("capacity = 1000, growth = 2, fpr = 0.01", 20000);
  check_cuckoo();
  check_quotient("fpr = 0.03", 2);
  check_quotient("capacity = 500, fpr = 0.03", 3);
  check_quotient("fpr = 0.5", 4);
  check_adds_only("quotient_store", "fpr = 0.01", 0.01, 20000, 5);
  check_adds_only("quotient_store", "capacity = 5000, fpr = 0.01", 0.01, 20000,
                  6);
  check_adds_only("cuckoo_store", "capacity = 20000, fpr = 0.01", 0.01, 20000,
                  7);
  check_adds_only("cuckoo_store", "capacity = 1000, growth = 2, fpr = 0.01",
                  0.01, 20000, 8);
  /* A windowed store: its generations share the same code path. */
  check_adds_only("cuckoo_store", "capacity = 20000, fpr = 0.01, window = "
                  "'1 day'", 0.01, 20000, 9);
  check_deletes_arguments();
  return tap_done();
}
