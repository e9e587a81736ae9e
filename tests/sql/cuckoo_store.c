/*
** cuckoo_store: a cuckoo filter kept in shadow-table chunks.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** The reference is the SQL functions: a mirror blob in an ordinary table,
** kept by cuckoo_add and cuckoo_delete in the same order as the store's
** inserts and deletes, must equal the store's export byte for byte (the
** store runs the core's own walk over its chunks), header included; that
** the store answers every probe as cuckoo_test on its export does, and
** that cuckoo_info's items is adds - deletes, are checked besides.
**
** Checked here: the CREATE arguments (refusals name the module) and the
** shape, as cuckoo_build's; random adds and deletes over many chunks
** (page_size 512) up to a nearly full filter; the copies limit (a ninth
** copy is an error, the store unchanged); a full store (an error, every
** item added before kept); DELETE of a match removes one copy; what a store
** refuses (UPDATE, DELETE without a value, a value and a filter in one
** row); loading a filter (only into an empty store of the same shape);
** ROLLBACK, savepoints and a statement failing part way inside a longer
** transaction; and damaged shadow tables, refused with "cuckoo_store:".
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

#define SEED 0xc0c0057043ull

/* A database in memory with small pages, so that a store of a few
** thousand items spans many chunk rows. */
static sqlite3 *small_pages(void) {
  sqlite3 *db = open_db(NULL);
  must_exec(db, "PRAGMA page_size = 512; VACUUM");
  return db;
}

/* Store s and mirror m(f) created empty for capacity n, rate p. */
static void create_pair(sqlite3 *db, const char *n, const char *p) {
  char sql[512];
  snprintf(sql, sizeof sql,
           "DROP TABLE IF EXISTS s; DROP TABLE IF EXISTS m;"
           "CREATE VIRTUAL TABLE s USING cuckoo_store(capacity = %s, fpr = %s);"
           "CREATE TABLE m(f BLOB);"
           "INSERT INTO m SELECT cuckoo_build(NULL, %s, %s)", n, p, n, p);
  must_exec(db, sql);
}

/* 1 if the store's export equals the mirror. */
static int same_as_mirror(sqlite3 *db) {
  return q_int(db, "SELECT (SELECT filter FROM s) = (SELECT f FROM m)",
               NOARGS) == 1;
}

/* Adds v to the store and, if that worked, to the mirror: 1 if it worked. */
static int add_both(sqlite3 *db, arg v) {
  sqlite3_stmt *st = prep(db, "INSERT INTO s(value) VALUES (?1)", &v, 1);
  int rc = st ? sqlite3_step(st) : SQLITE_ERROR;
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return 0;
  st = prep(db, "UPDATE m SET f = cuckoo_add(f, ?1)", &v, 1);
  rc = st ? sqlite3_step(st) : SQLITE_ERROR;
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) tap_diag("mirror refused an add the store took");
  return rc == SQLITE_DONE;
}

static void delete_both(sqlite3 *db, arg v) {
  sqlite3_stmt *st = prep(db, "DELETE FROM s WHERE value = ?1", &v, 1);
  if (st) sqlite3_step(st);
  sqlite3_finalize(st);
  st = prep(db, "UPDATE m SET f = cuckoo_delete(f, ?1)", &v, 1);
  if (st) sqlite3_step(st);
  sqlite3_finalize(st);
}

static void test_arguments(void) {
  sqlite3 *db = open_db(NULL);
  static const bad_arguments bad[] = {
      {"capacity = 0", "capacity must be an integer >= 1"},
      {"capacity = 10, fpr = 1", "fpr must be a number"},
      {"capacity = 10, fpr = 1e-13", "fpr must be a number"},
      {"capacity = 10, colour = 1", "unknown argument \"colour\""},
      {"capacity = 4611686018427387904, fpr = 1e-12", "no filter holds capacity"},
  };
  check_bad_arguments(db, "cuckoo_store", bad, sizeof bad / sizeof bad[0]);
  check_bad_arguments(db, "cuckoo_store", bad_growth_arguments,
                      BAD_GROWTH_ARGUMENTS);
  /* The shape is cuckoo_build's at every size tried: an empty store exports
  ** cuckoo_build(NULL, capacity, fpr), default fpr 0.01. */
  const char *shapes[][2] = {{"1", "0.01"},    {"7", "0.5"},
                             {"1000", "0.01"}, {"100000", "0.001"},
                             {"3000000", "1e-9"}};
  int same = 1;
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    char sql[256];
    snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS e;"
             "CREATE VIRTUAL TABLE e USING cuckoo_store(capacity = %s, "
             "fpr = %s)", shapes[i][0], shapes[i][1]);
    must_exec(db, sql);
    snprintf(sql, sizeof sql, "SELECT (SELECT filter FROM e) = "
             "cuckoo_build(NULL, %s, %s)", shapes[i][0], shapes[i][1]);
    if (q_int(db, sql, NOARGS) != 1) {
      tap_diag("shape differs at capacity %s, fpr %s", shapes[i][0],
               shapes[i][1]);
      same = 0;
    }
  }
  must_exec(db, "CREATE VIRTUAL TABLE d USING cuckoo_store(capacity = 500)");
  tap_ok(same && q_int(db, "SELECT (SELECT filter FROM d) = cuckoo_build(NULL, "
                           "500, 0.01)", NOARGS) == 1,
         "an empty store exports cuckoo_build(NULL, capacity, fpr) at 5 "
         "sizes, and the default fpr is 0.01");
  sqlite3_close(db);
}

/* Random adds (with repeats) and deletes of what was added, over a store
** cut into many chunks, until it is nearly full. */
static void test_mirror(void) {
  sqlite3 *db = small_pages();
  create_pair(db, "3000", "0.01");
  tap_ok(q_int(db, "SELECT count(*) FROM s_chunks", NOARGS) >= 8,
         "with 512-byte pages the store spans %lld chunk rows",
         (long long)q_int(db, "SELECT count(*) FROM s_chunks", NOARGS));
  /* The first insert into an empty store finds room in its first bucket:
  ** one chunk row is written (the statement's own change, plus one). */
  int before = sqlite3_total_changes(db);
  add_both(db, a_text("first"));
  int store_changes = sqlite3_total_changes(db) - before - 1; /* the mirror */
  tap_ok(store_changes == 2,
         "an insert that lands in its first bucket writes one chunk row "
         "(%d changes: the insert and the chunks written)", store_changes);
  delete_both(db, a_text("first"));
  uint64_t rng = seed_print(SEED, "mirror: adds and deletes");
  enum { POOL = 4000 };
  static int copies[POOL];
  memset(copies, 0, sizeof copies);
  int adds = 0, deletes = 0, refused = 0, equal_on_the_way = 1;
  for (int op = 0; op < 4000; op++) {
    int k = (int)(splitmix64(&rng) % POOL);
    if (splitmix64(&rng) % 4 == 0) {
      /* delete something added, when there is one */
      int j = k, tries = 0;
      while (copies[j] == 0 && tries++ < POOL) j = (j + 1) % POOL;
      if (copies[j] == 0) continue;
      delete_both(db, a_int(j));
      copies[j]--;
      deletes++;
    } else if (add_both(db, a_int(k % 7 == 0 ? k % 3 : k))) {
      copies[k % 7 == 0 ? k % 3 : k]++;
      adds++;
    } else {
      refused++;
    }
    if (op % 500 == 0 && !same_as_mirror(db)) equal_on_the_way = 0;
  }
  tap_ok(equal_on_the_way && same_as_mirror(db),
         "%d adds and %d deletes: the export equals cuckoo_add/cuckoo_delete "
         "applied in the same order, byte for byte (%d adds refused)",
         adds, deletes, refused);
  TAP_EQ_U64(q_int(db, "SELECT items FROM cuckoo_info((SELECT filter FROM s))",
                   NOARGS),
             (uint64_t)(adds - deletes), "cuckoo_info's items is adds - deletes");
  /* Every probe answers as cuckoo_test on the export, present or not. */
  TAP_EQ_U64(q_int(db, "WITH f AS MATERIALIZED (SELECT filter FROM s) "
                       "SELECT count(*) FROM (" SERIES("0", "5999")
                       "SELECT x FROM s) WHERE EXISTS (SELECT 1 FROM s AS st "
                       "WHERE st.value = x) IS NOT cuckoo_test((SELECT filter FROM "
                       "f), x)", NOARGS),
             0, "6000 probes: the store answers as cuckoo_test on its export");
  int missing = 0;
  for (int k = 0; k < POOL; k++) {
    if (copies[k] == 0) continue;
    arg v = a_int(k);
    if (q_int(db, "SELECT EXISTS (SELECT 1 FROM s WHERE value = ?1)", &v, 1) != 1)
      missing++;
  }
  TAP_EQ_U64((uint64_t)missing, 0, "no false negative: every value still "
             "added tests present");
  sqlite3_close(db);
}

static void test_copies_and_deletes(void) {
  sqlite3 *db = open_db(NULL);
  create_pair(db, "1000", "0.01");
  int ok = 1;
  for (int i = 0; i < 8; i++) ok &= add_both(db, a_text("same"));
  int before_len, after_len;
  unsigned char *before = q_blob(db, "SELECT filter FROM s", NOARGS,
                                 &before_len);
  tap_ok(ok, "8 copies of one value are added");
  expect_error(db, "a ninth copy", "INSERT INTO s(value) VALUES ('same')",
               NOARGS, "cuckoo_store: the value does not fit: its two buckets "
               "already hold 8 copies", 0);
  unsigned char *after = q_blob(db, "SELECT filter FROM s", NOARGS,
                                &after_len);
  tap_ok(before && after && before_len == after_len && memcmp(before, after, (size_t)before_len) == 0 &&
             same_as_mirror(db),
         "the ninth copy refused, the store is unchanged");
  free(before);
  free(after);
  /* Twice in, once out: in; once more out: out (unless a false positive,
  ** which the mirror would show too). */
  must_exec(db, "INSERT INTO s(value) VALUES ('twice'), ('twice');"
                "UPDATE m SET f = cuckoo_add(cuckoo_add(f, 'twice'), 'twice')");
  delete_both(db, a_text("twice"));
  int still = (int)q_int(db, "SELECT EXISTS (SELECT 1 FROM s WHERE value = "
                             "'twice')", NOARGS);
  delete_both(db, a_text("twice"));
  int gone = !q_int(db, "SELECT EXISTS (SELECT 1 FROM s WHERE value = "
                        "'twice')", NOARGS);
  int mirror_says = (int)q_int(db, "SELECT cuckoo_test(f, 'twice') FROM m",
                               NOARGS);
  tap_ok(still && (gone || mirror_says) && same_as_mirror(db),
         "added twice, deleted once: present; deleted again: absent");
  /* A DELETE of an absent value changes nothing; IN deletes each match. */
  must_exec(db, "DELETE FROM s WHERE value = 'never added'");
  tap_ok(sqlite3_changes(db) == 0 && same_as_mirror(db),
         "DELETE of a value not present removes nothing");
  must_exec(db, "INSERT INTO s(value) VALUES ('a'), ('b'), ('b');"
                "UPDATE m SET f = cuckoo_add(cuckoo_add(cuckoo_add(f, 'a'), "
                "'b'), 'b');"
                "DELETE FROM s WHERE value IN ('a', 'b', 'c');"
                "UPDATE m SET f = cuckoo_delete(cuckoo_delete(f, 'a'), 'b')");
  tap_ok(same_as_mirror(db) &&
             q_int(db, "SELECT count(*) FROM s WHERE value IN ('a', 'b')",
                   NOARGS) == 1,
         "DELETE ... WHERE value IN (...) removes one copy of each match");
  /* Refusals. */
  expect_error(db, "UPDATE", "UPDATE s SET value = 'x' WHERE value = 'same'",
               NOARGS, "cuckoo_store: an item cannot be changed", 0);
  expect_error(db, "DELETE without a value", "DELETE FROM s", NOARGS,
               "cuckoo_store: DELETE removes a value", 0);
  expect_error(db, "a value and a filter", "INSERT INTO s(value, filter) "
               "VALUES (1, x'00')", NOARGS,
               "cuckoo_store: insert a value or a filter, not both", 0);
  expect_error(db, "listing", "SELECT value FROM s", NOARGS,
               "cuckoo_store: a filter cannot list its items", 0);
  tap_ok(same_as_mirror(db), "after the refusals the store is unchanged");
  sqlite3_close(db);
}

/* Distinct values, one statement each, until the store is full. */
static void test_full(void) {
  sqlite3 *db = small_pages();
  create_pair(db, "200", "0.01");
  int added = 0;
  char msg[512] = "";
  for (int i = 0; i < 100000; i++) {
    arg v = a_int(i);
    if (run_for_error(db, "INSERT INTO s(value) VALUES (?1)", &v, 1, msg,
                      sizeof msg, NULL, NULL))
      break;
    added++;
  }
  tap_ok(strncmp(msg, "cuckoo_store: the filter is full", 32) == 0,
         "the store fills after %d distinct values: \"%s\"", added, msg);
  long long slots = q_int(db, "SELECT buckets * 4 FROM cuckoo_info((SELECT "
                              "filter FROM s))", NOARGS);
  tap_ok(added >= 200 && added <= slots,
         "it held at least its capacity, 200, and at most its %lld slots",
         slots);
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM (" SERIES("0", "?1")
                       "SELECT x FROM s) WHERE NOT EXISTS (SELECT 1 FROM s AS "
                       "st WHERE st.value = x)", ARGS(a_int(added - 1))),
             0, "every value added before the failure is still present");
  TAP_EQ_U64(q_int(db, "SELECT items FROM cuckoo_info((SELECT filter FROM s))",
                   NOARGS),
             (uint64_t)added, "items is the number added");
  /* The same values into the mirror, in the same order: the same bytes. */
  sqlite3_stmt *st = must_prep(db, "UPDATE m SET f = cuckoo_add(f, ?1)");
  for (int i = 0; i < added; i++) {
    sqlite3_bind_int(st, 1, i);
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  tap_ok(same_as_mirror(db), "the full store equals cuckoo_add over the same "
         "values, byte for byte");
  sqlite3_close(db);
}

static void test_load(void) {
  sqlite3 *db = small_pages();
  must_exec(db, "CREATE TABLE src(v);"
                "INSERT INTO src " SERIES("1", "900") "SELECT 'v' || x FROM s;"
                "CREATE VIRTUAL TABLE s USING cuckoo_store(capacity = 1000);"
                "CREATE TABLE b(f);"
                "INSERT INTO b SELECT cuckoo_build(v, 1000, 0.01) FROM src");
  must_exec(db, "BEGIN; INSERT INTO s(filter) SELECT f FROM b; ROLLBACK");
  tap_ok(q_int(db, "SELECT (SELECT filter FROM s) = cuckoo_build(NULL, 1000, "
                   "0.01)", NOARGS) == 1,
         "a load rolled back leaves the store empty");
  must_exec(db, "INSERT INTO s(filter) SELECT f FROM b");
  tap_ok(q_int(db, "SELECT (SELECT filter FROM s) = (SELECT f FROM b)",
               NOARGS) == 1,
         "a filter of the same shape loads into an empty store: the export "
         "is that filter, items included");
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM src WHERE NOT EXISTS (SELECT 1 "
                       "FROM s WHERE s.value = src.v)", NOARGS),
             0, "every value of the loaded filter is present");
  expect_error(db, "into a store that holds items",
               "INSERT INTO s(filter) SELECT f FROM b", NOARGS,
               "cuckoo_store: the store holds 900 items", 0);
  must_exec(db, "CREATE VIRTUAL TABLE e USING cuckoo_store(capacity = 100)");
  expect_error(db, "another shape", "INSERT INTO e(filter) SELECT f FROM b",
               NOARGS, "cuckoo_store: the filter has", 0);
  expect_error(db, "a Bloom filter", "INSERT INTO e(filter) VALUES "
               "(bloom_empty(100))", NOARGS, "cuckoo_store: ", 0);
  expect_error(db, "not a BLOB", "INSERT INTO e(filter) VALUES ('text')",
               NOARGS, "cuckoo_store: the filter to load must be a BLOB", 0);
  tap_ok(q_int(db, "SELECT (SELECT filter FROM e) = cuckoo_build(NULL, 100, "
                   "0.01)", NOARGS) == 1,
         "refused loads leave the store empty");
  sqlite3_close(db);
}

static void test_transactions(void) {
  sqlite3 *db = small_pages();
  create_pair(db, "1000", "0.01");
  add_both(db, a_text("base"));
  must_exec(db, "BEGIN; INSERT INTO s(value) VALUES ('rolled back');"
                "DELETE FROM s WHERE value = 'base'");
  int inside = (int)q_int(db, "SELECT EXISTS (SELECT 1 FROM s WHERE value = "
                              "'rolled back')", NOARGS);
  must_exec(db, "ROLLBACK");
  tap_ok(inside && same_as_mirror(db),
         "ROLLBACK undoes an insert and a delete");
  must_exec(db, "BEGIN;"
                "SAVEPOINT a; INSERT INTO s(value) VALUES ('a1');"
                "  SAVEPOINT b; INSERT INTO s(value) " SERIES("1", "500")
                "  SELECT 'b' || x FROM s;"
                "    SAVEPOINT c; INSERT INTO s(value) VALUES ('c1');"
                "    DELETE FROM s WHERE value = 'a1';"
                "    ROLLBACK TO c; INSERT INTO s(value) VALUES ('c2'); RELEASE c;"
                "  ROLLBACK TO b; DELETE FROM s WHERE value = 'base'; RELEASE b;"
                "RELEASE a; COMMIT;"
                "UPDATE m SET f = cuckoo_delete(cuckoo_add(f, 'a1'), 'base')");
  tap_ok(same_as_mirror(db),
         "nested savepoints: ROLLBACK TO undoes exactly what came after it");
  /* Row 57 is a ninth copy: the statement fails there, inside a longer
  ** transaction; its first 56 rows are undone, the earlier ones stay. */
  must_exec(db, "BEGIN; INSERT INTO s(value) VALUES ('kept');"
                "INSERT INTO s(value) " SERIES("1", "8") "SELECT 'dup' FROM s;");
  int failed = !exec_ok(db, "INSERT INTO s(value) " SERIES("1", "100")
                            "SELECT CASE WHEN x < 57 THEN 'partial' || x ELSE "
                            "'dup' END FROM s");
  must_exec(db, "COMMIT; UPDATE m SET f = cuckoo_add(f, 'kept');");
  for (int i = 0; i < 8; i++) must_exec(db, "UPDATE m SET f = cuckoo_add(f, 'dup')");
  tap_ok(failed && same_as_mirror(db),
         "a statement failing at row 57 (a ninth copy) leaves the store as "
         "before it; the transaction's earlier inserts stay");
  /* A small store overflowing part way through a statement. */
  create_pair(db, "20", "0.01");
  add_both(db, a_text("before"));
  must_exec(db, "BEGIN; INSERT INTO s(value) VALUES ('in tx');");
  failed = !exec_ok(db, "INSERT INTO s(value) " SERIES("1", "1000")
                        "SELECT x FROM s");
  must_exec(db, "COMMIT; UPDATE m SET f = cuckoo_add(f, 'in tx')");
  tap_ok(failed && same_as_mirror(db),
         "a statement that fills a small store part way is undone whole");
  sqlite3_close(db);
}

static void test_damage(void) {
  check_chunk_damage("cuckoo_store");
  static const char *const config[] = {
      "DELETE FROM s_config WHERE key = 'buckets'",
      "UPDATE s_config SET value = 47 WHERE key = 'buckets'",
      "UPDATE s_config SET value = 2 WHERE key = 'layout'",
      "UPDATE s_config SET value = 1.0 WHERE key = 'layout'",
      "UPDATE s_config SET value = '1' WHERE key = 'layout'",
      /* layout 0 with a bucket count that is not a power of two */
      "DELETE FROM s_config WHERE key = 'layout'",
      "UPDATE s_config SET value = 0 WHERE key = 'layout'",
      "INSERT INTO s_config VALUES ('layer.0.layout', 1)",
      "UPDATE s_config SET value = 3 WHERE key = 'fingerprint_bits'",
      "UPDATE s_config SET value = 65 WHERE key = 'fingerprint_bits'",
      "UPDATE s_config SET value = 7 WHERE key = 'chunk_buckets'",
      "UPDATE s_config SET value = 1 WHERE key = 'kind'",
      "UPDATE s_config SET value = -1 WHERE key = 'seed'",
      "DELETE FROM s_config",
  };
  check_config_damage("cuckoo_store", config, sizeof config / sizeof config[0]);
}

/* A store made before layout 1: no `layout` row, a power of two of
** buckets.  Made here by rewriting a new store's rows into that form, and
** reconnecting: it must read, change and export exactly as before (layout
** 0, what cuckoo_add and cuckoo_delete do to a layout-0 blob). */
static void test_old_layout(void) {
  const char *path = temp_db_file("cuckoo_store", "old");
  sqlite3 *db = open_db_at(path);
  must_exec(db, "CREATE VIRTUAL TABLE s USING cuckoo_store(capacity = 1000, "
                "fpr = 0.01)");
  sqlite3_int64 b = q_int(db, "SELECT value FROM s_config WHERE key = "
                              "'buckets'", NOARGS);
  tap_ok(q_int(db, "SELECT value FROM s_config WHERE key = 'layout'",
               NOARGS) == 1 &&
             b % 2 == 0 && (b & (b - 1)) != 0 &&
             q_int(db, "SELECT hex(substr(filter, 15, 1)) = '01' AND "
                       "filter = cuckoo_build(NULL, 1000, 0.01) FROM s",
                   NOARGS) == 1,
         "a new store records layout = 1, has %lld buckets (not a power of "
         "two) and exports cuckoo_build(NULL, n, p)", (long long)b);
  /* As a store of version 1.1.0: 256 buckets of 10 bits, 64 to a chunk (4
  ** rows of 320 bytes), no layout row. */
  must_exec(db, "DELETE FROM s_config WHERE key = 'layout';"
                "UPDATE s_config SET value = 256 WHERE key = 'buckets';"
                "UPDATE s_config SET value = 10 WHERE key = 'fingerprint_bits';"
                "UPDATE s_config SET value = 64 WHERE key = 'chunk_buckets';"
                "DELETE FROM s_chunks;"
                "INSERT INTO s_chunks(id, data) VALUES (0, zeroblob(320)),"
                " (1, zeroblob(320)), (2, zeroblob(320)), (3, zeroblob(320))");
  sqlite3_close(db);
  db = open_db_at(path);
  must_exec(db, "CREATE TABLE m(f BLOB); INSERT INTO m SELECT filter FROM s");
  tap_ok(q_int(db, "SELECT hex(substr(f, 13, 4)) = '0A040000' AND "
                   "length(f) = 64 + 1280 FROM m", NOARGS) == 1,
         "the store without a layout row exports a layout-0 filter (byte 14 "
         "0) of its 256 buckets");
  uint64_t rng = seed_print(SEED + 7, "old layout: adds and deletes");
  int adds = 0, refused = 0;
  for (int i = 0; i < 900; i++) {
    if (add_both(db, a_int((sqlite3_int64)(splitmix64(&rng) % 5000))))
      adds++;
    else
      refused++;
    if (i % 5 == 4) delete_both(db, a_int((sqlite3_int64)(i % 5000)));
  }
  tap_ok(adds > 850 && same_as_mirror(db) &&
             q_int(db, "SELECT hex(substr(filter, 15, 1)) = '00' FROM s",
                   NOARGS) == 1,
         "%d adds and 180 deletes: byte for byte what cuckoo_add and "
         "cuckoo_delete make of the layout-0 blob, layout kept (%d refused)",
         adds, refused);
  sqlite3_int64 wrong = q_int(
      db, "WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c "
          "WHERE x < 4999) SELECT count(*) FROM c WHERE "
          "(EXISTS (SELECT 1 FROM s WHERE value = x)) != "
          "cuckoo_test((SELECT f FROM m), x)", NOARGS);
  TAP_EQ_U64(wrong, 0, "the store and cuckoo_test on its mirror answer alike "
             "for 5,000 values");
  /* A one-bucket store (layout 0 only) of 5-bit fingerprints is 20 bits in
  ** 3 bytes: the 4 bits past the last slot are not the filter's, and the
  ** export leaves them zero as cuckoo_build did, whatever the chunk row
  ** holds there. */
  must_exec(db, "DROP TABLE s; CREATE VIRTUAL TABLE s USING cuckoo_store("
                "capacity = 1, fpr = 0.05)");
  tap_ok(q_int(db, "SELECT value FROM s_config WHERE key = 'buckets'",
               NOARGS) == 2 &&
             q_int(db, "SELECT value FROM s_config WHERE key = "
                       "'fingerprint_bits'", NOARGS) == 5,
         "capacity 1 at 5%%: two buckets of 5-bit fingerprints");
  must_exec(db, "DELETE FROM s_config WHERE key = 'layout';"
                "UPDATE s_config SET value = 1 WHERE key = 'buckets';"
                "UPDATE s_chunks SET data = x'FFFFFF' WHERE id = 0");
  sqlite3_close(db);
  db = open_db_at(path);
  char *body = q_text(db, "SELECT hex(substr(filter, 65)) FROM s", NOARGS);
  tap_ok(body && strcmp(body, "FFFF0F") == 0,
         "one bucket (layout 0): the export's spare bits are zero (body %s, "
         "want FFFF0F)", body ? body : "NULL");
  free(body);
  sqlite3_close(db);
  remove(path);
}

/* DELETE ... WHERE value IN (...) removes the values named, of the storage
** class named: '0' is not 0 (value has no affinity). */
static void test_delete_classes(void) {
  sqlite3 *db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE s USING cuckoo_store(capacity = 1000);"
                "CREATE TABLE md(v);"
                "INSERT INTO md VALUES (0), (42), (7), ('0'), ('42'), (x'00');"
                "INSERT INTO s(value) SELECT v FROM md;"
                "DELETE FROM s WHERE value IN ('0', '42', 7)");
  char *left = q_text(db, "SELECT group_concat(quote(v)) FROM md WHERE EXISTS "
                      "(SELECT 1 FROM s WHERE value = md.v)", NOARGS);
  tap_ok(left && strcmp(left, "0,42,X'00'") == 0,
         "DELETE ... IN ('0', '42', 7) removes those, not 0 and 42 (left: %s)",
         left ? left : "NULL");
  free(left);
  sqlite3_close(db);
}

int main(void) {
  test_arguments();
  test_delete_classes();
  test_old_layout();
  test_mirror();
  test_copies_and_deletes();
  test_full();
  test_load();
  test_transactions();
  test_damage();
  return tap_done();
}
