/*
** SQL-level tests: loads the built extension (BLOOM_SO) into an in-memory
** database through libsqlite3 and checks the SQL functions' behaviour.
*/
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static sqlite3 *open_db(const char *path) {
  sqlite3 *db;
  if (sqlite3_open(path, &db) != SQLITE_OK) {
    tap_diag("cannot open %s", path);
    exit(2);
  }
  sqlite3_enable_load_extension(db, 1);
  const char *so = getenv("BLOOM_SO");
  char *err = NULL;
  if (sqlite3_load_extension(db, so ? so : "./bloom.so", "sqlite3_bloom_init",
                             &err) != SQLITE_OK) {
    tap_diag("cannot load %s: %s", so ? so : "./bloom.so", err);
    exit(2);
  }
  return db;
}

/* The first column of the first row of sql, as an integer. */
static sqlite3_int64 query_int(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  sqlite3_int64 v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    tap_diag("prepare failed: %s: %s", sql, sqlite3_errmsg(db));
    return v;
  }
  if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

int main(void) {
  sqlite3 *db = open_db(":memory:");
  tap_ok(query_int(db, "SELECT bloom_test(bloom_build(v, 10, 0.01), 'a') "
                       "FROM (SELECT 'a' AS v)") == 1,
         "an inserted value tests 1");
  sqlite3_close(db);
  return tap_done();
}
