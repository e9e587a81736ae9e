/*
** A store's affinity: values added and probed as a column of the declared
** type would hold and compare them.  The reference is SQLite itself: for
** each declared type, a table column and a store of that affinity receive
** the same values, and every probe must find a value in the store exactly
** when WHERE column = probe finds a row (the store's rate is 1e-9, so a
** false positive among these few values would be a surprise, and a false
** negative is the bug the argument exists to prevent).  Also: a store kept
** by a trigger from an INTEGER PRIMARY KEY finds ids probed as text; the
** three kinds, fixed and scalable (quotient_store growing and sized); the
** argument's refusals; the configuration.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#define _POSIX_C_SOURCE 200809L

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sqldb.h"
#include "lib/tap.h"

/* SQL literals: numbers, numbers as text (with blanks, as reals, too big),
** text, a blob, zero of both signs. */
static const char *const values[] = {
    "12345",    "'12345'", "' 12345 '", "'12345.0'", "12345.0",
    "12345.5",  "'1e3'",   "1000",      "'abc'",     "x'3132333435'",
    "1e20",     "'9223372036854775808'", "9223372036854775807", "-0.0",
    "'0'",      "'0x10'",  "16",
    /* the edges of what a numeric affinity reads as a number */
    "'  +12  '", "12", "'.5'", "0.5", "'5.'", "5", "'1e'", "'e5'", "'1e+3'",
    "'-0'", "'0012'", "'12abc'", "'1.5e-3'", "0.0015",
    "'-9223372036854775808'", "-9223372036854775808",
    "'99999999999999999999999'", "1e23", "''", "' '", "'1,000'", "'1_000'",
    "'Infinity'", "'nan'", "'1e400'", "9e999", "'\t7\n'", "7",
    "'0.1'", "'0.10000000000000000555'", "0.1", "'123456789012345678'",
    "123456789012345678",
};
#define VALUES (sizeof values / sizeof values[0])

/* 1 if the store's answers match the column's for every probe. */
static int matches_column(sqlite3 *db, const char *store, int *wrong_probe) {
  for (size_t p = 0; p < VALUES; p++) {
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT EXISTS (SELECT 1 FROM t WHERE c = %s), EXISTS (SELECT 1 "
             "FROM %s WHERE value = %s)",
             values[p], store, values[p]);
    sqlite3_stmt *st = q_row(db, sql, NOARGS);
    int same = st && sqlite3_column_int(st, 0) == sqlite3_column_int(st, 1);
    sqlite3_finalize(st);
    if (!same) {
      *wrong_probe = (int)p;
      return 0;
    }
  }
  return 1;
}

static void check_type(const char *declared, const char *module,
                       const char *schedule) {
  sqlite3 *db = open_db(NULL);
  char sql[256];
  snprintf(sql, sizeof sql, "CREATE TABLE t(c %s); CREATE VIRTUAL TABLE s "
           "USING %s(affinity = '%s', %s)", declared, module, declared,
           schedule);
  must_exec(db, sql);
  int ok = 1, wrong = -1, inserted = 0;
  for (size_t i = 0; i < VALUES && ok; i++) {
    snprintf(sql, sizeof sql, "INSERT INTO t VALUES (%s); INSERT INTO "
             "s(value) VALUES (%s)", values[i], values[i]);
    must_exec(db, sql);
    inserted++;
    ok = matches_column(db, "s", &wrong);
  }
  if (!tap_ok(ok, "%s(affinity = '%s', %s): every probe answers as WHERE c "
              "= probe on a column declared %s (%d values)", module, declared,
              schedule, declared, inserted))
    tap_diag("  after inserting %s: the probe %s differs", values[inserted - 1],
             wrong >= 0 ? values[wrong] : "?");
  sqlite3_close(db);
}

static void check_trigger(void) {
  sqlite3 *db = open_db(NULL);
  must_exec(db, "CREATE TABLE base(id INTEGER PRIMARY KEY);"
                "CREATE VIRTUAL TABLE s USING bloom_store(affinity = INTEGER);"
                "CREATE VIRTUAL TABLE plain USING bloom_store;"
                "CREATE TRIGGER keep AFTER INSERT ON base BEGIN "
                "INSERT INTO s(value) VALUES (NEW.id);"
                "INSERT INTO plain(value) VALUES (NEW.id); END;"
                "INSERT INTO base VALUES (12345), (7)");
  arg text[] = {a_text("12345")};
  tap_ok(q_int(db, "SELECT EXISTS (SELECT 1 FROM s WHERE value = ?1)", text,
               1) == 1 &&
             q_int(db, "SELECT EXISTS (SELECT 1 FROM base WHERE id = ?1)",
                   text, 1) == 1,
         "a store of INTEGER affinity kept from an INTEGER PRIMARY KEY finds "
         "an id bound as TEXT, as the table does");
  tap_ok(q_int(db, "SELECT EXISTS (SELECT 1 FROM plain WHERE value = ?1)",
               text, 1) == 0,
         "without affinity the same probe answers 0: the trap it removes");
  tap_ok(q_int(db, "SELECT (SELECT filter FROM s) = (SELECT filter FROM "
                   "plain)", NOARGS) == 1,
         "the export is the same filter with or without affinity");
  sqlite3_close(db);
}

static void check_arguments(void) {
  sqlite3 *db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE a USING bloom_store(affinity = "
                "'VARCHAR(40)');"
                "CREATE VIRTUAL TABLE b USING cuckoo_store(capacity = 100, "
                "affinity = \"BIGINT\");"
                "CREATE VIRTUAL TABLE n USING bloom_store(capacity = 100);"
                "CREATE VIRTUAL TABLE q USING quotient_store(affinity = "
                "'DOUBLE PRECISION');");
  char *a = q_text(db, "SELECT value FROM a_config WHERE key = 'affinity'",
                   NOARGS);
  char *b = q_text(db, "SELECT value FROM b_config WHERE key = 'affinity'",
                   NOARGS);
  char *q = q_text(db, "SELECT value FROM q_config WHERE key = 'affinity'",
                   NOARGS);
  tap_ok(a && b && q && strcmp(a, "TEXT") == 0 && strcmp(b, "INTEGER") == 0 &&
             strcmp(q, "REAL") == 0 &&
             q_int(db, "SELECT count(*) FROM n_config WHERE key = 'affinity'",
                   NOARGS) == 0,
         "a declared type name resolves by SQLite's rules (VARCHAR(40): %s, "
         "BIGINT: %s, DOUBLE PRECISION in a quotient_store: %s), kept as "
         "TEXT; a store without one has no row",
         a ? a : "NULL", b ? b : "NULL", q ? q : "NULL");
  free(a);
  free(b);
  free(q);
  expect_error(db, "affinity given twice",
               "CREATE VIRTUAL TABLE c USING bloom_store(affinity = INTEGER, "
               "affinity = TEXT)",
               NOARGS, "bloom_store: affinity is given twice", 0);
  sqlite3_close(db);
}

int main(void) {
  static const char *const types[] = {"INTEGER", "TEXT",   "NUMERIC",
                                      "REAL",    "BLOB",   "VARCHAR(40)",
                                      "DOUBLE",  "BIGINT", "DATETIME"};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    check_type(types[i], "bloom_store", "capacity = 100, fpr = 1e-9");
  check_type("INTEGER", "bloom_store", "capacity = 2, growth = 2, fpr = 1e-6");
  check_type("TEXT", "cuckoo_store", "capacity = 100, fpr = 1e-9");
  check_type("NUMERIC", "cuckoo_store", "capacity = 20, growth = 2, fpr = 1e-6");
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    check_type(types[i], "quotient_store", "fpr = 1e-9");
  check_type("NUMERIC", "quotient_store", "capacity = 100, fpr = 1e-9");
  check_type("TEXT", "quotient_store", "capacity = 5, fpr = 1e-6");
  check_trigger();
  check_arguments();
  return tap_done();
}
