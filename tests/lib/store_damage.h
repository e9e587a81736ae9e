/*
** Damaged shadow tables of a store (bloom_store or cuckoo_store), shared by
** the SQL tests of both kinds: each damage must make every read and write
** of the store an error that starts with the module's name and answers
** SQLITE_CORRUPT_VTAB (as FTS5 and R*Tree answer damage), never a crash
** or a guess.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** check_bad_arguments: CREATE arguments each refused with the module's name
** (bad_growth_arguments: those of growth, for either kind).
** check_chunk_damage: a chunk row cut short, turned into TEXT, deleted, or
** added outside its layers, in a store of capacity 1000 (one chunk for
** either kind).  check_config_damage: each given change to the
** configuration, made before the store is connected again (a file
** database, reopened), must be refused as a damaged configuration.
*/
#ifndef TESTS_STORE_DAMAGE_H
#define TESTS_STORE_DAMAGE_H

#include <stdio.h>
#include <unistd.h>

#include "lib/sqldb.h"
#include "lib/tap.h"

/* Each bad argument list {args, the start of the refusal} fails
** CREATE VIRTUAL TABLE s USING module(args) with "module: <refusal>", and
** leaves the schema as it was (no shadow table behind). */
typedef struct bad_arguments {
  const char *args, *why;
} bad_arguments;

static inline void check_bad_arguments(sqlite3 *db, const char *module,
                                       const bad_arguments *bad, size_t n) {
  const char *count = "SELECT count(*) FROM sqlite_master";
  sqlite3_int64 tables = q_int(db, count, NOARGS);
  char left[200] = "";
  for (size_t i = 0; i < n; i++) {
    char sql[256], want[160], name[200];
    snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE s USING %s(%s)", module,
             bad[i].args);
    snprintf(want, sizeof want, "%s: %s", module, bad[i].why);
    snprintf(name, sizeof name, "%s(%s)", module, bad[i].args);
    expect_error(db, name, sql, NOARGS, want, 0);
    if (!left[0] && q_int(db, count, NOARGS) != tables)
      snprintf(left, sizeof left, "%s", name);
  }
  tap_ok(!left[0], "%s: %zu refused CREATEs leave no table behind%s%s",
         module, n, left[0] ? "; one did: " : "", left);
}

/* The arguments of growth, refused by either kind. */
static const bad_arguments bad_growth_arguments[] = {
    {"growth = 0", "growth must be an integer from 1 to 65535"},
    {"growth = 65536", "growth must be an integer from 1 to 65535"},
    {"growth = 1.5", "growth must be an integer from 1 to 65535"},
    {"growth = 2, growth = 2", "growth is given twice"},
    {"tightening = 1", "tightening must be a number"},
    {"tightening = 0", "tightening must be a number"},
    {"tightening = x", "tightening must be a number"},
    {"tightening = 0.5, tightening = 0.5", "tightening is given twice"},
};
#define BAD_GROWTH_ARGUMENTS \
  (sizeof bad_growth_arguments / sizeof bad_growth_arguments[0])

static inline void check_chunk_damage(const char *module) {
  sqlite3 *db = open_db(NULL);
  static const char *const damage[][2] = {
      {"UPDATE s_chunks SET data = substr(data, 1, 100) WHERE id = 0",
       "chunk 0 of s has 100 bytes"},
      {"UPDATE s_chunks SET data = 'text' WHERE id = 0",
       "chunk 0 of s has 4 bytes"},
      {"DELETE FROM s_chunks WHERE id = 0", "chunk 0 of s is missing"},
      {"INSERT INTO s_chunks VALUES (999, zeroblob(10))",
       "chunk 999 of s is outside its layers"},
  };
  char sql[160], name[200], want[160];
  for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
    snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS s; CREATE VIRTUAL TABLE "
             "s USING %s(capacity = 1000)", module);
    must_exec(db, sql);
    must_exec(db, damage[i][0]);
    snprintf(want, sizeof want, "%s: %s", module, damage[i][1]);
    snprintf(name, sizeof name, "%s export after: %s", module, damage[i][0]);
    expect_error(db, name, "SELECT filter FROM s", NOARGS, want,
                 SQLITE_CORRUPT_VTAB);
    if (i < 3) { /* the added row is outside what a probe or insert reads */
      snprintf(name, sizeof name, "%s probe after: %s", module, damage[i][0]);
      expect_error(db, name, "SELECT count(*) FROM s WHERE value = 1", NOARGS,
                   want, SQLITE_CORRUPT_VTAB);
      snprintf(name, sizeof name, "%s insert after: %s", module, damage[i][0]);
      expect_error(db, name, "INSERT INTO s(value) VALUES (1)", NOARGS, want,
                   SQLITE_CORRUPT_VTAB);
    }
  }
  sqlite3_close(db);
}

/* Each change made to store s, created as module(args) and given setup
** (SQL, or NULL), must make it refused as damaged once connected again. */
static inline void check_config_damage_of(const char *module, const char *args,
                                          const char *setup,
                                          const char *const *changes,
                                          size_t n) {
  char sql[256], want[160];
  snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE s USING %s(%s)", module,
           args);
  snprintf(want, sizeof want,
           "%s: the configuration of s is missing or damaged", module);
  const char *path = NULL;
  for (size_t i = 0; i < n; i++) {
    path = temp_db_file(module, "damage"); /* removed first: a new store */
    sqlite3 *db = open_db_at(path);
    must_exec(db, sql);
    if (setup) must_exec(db, setup);
    must_exec(db, changes[i]);
    sqlite3_close(db);
    db = open_db_at(path);
    expect_error(db, changes[i], "SELECT filter FROM s", NOARGS, want,
                 SQLITE_CORRUPT_VTAB);
    sqlite3_close(db);
  }
  if (path) remove(path);
}

static inline void check_config_damage(const char *module,
                                       const char *const *changes, size_t n) {
  check_config_damage_of(module, "capacity = 10", NULL, changes, n);
}

#endif
