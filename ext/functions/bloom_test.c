/*
** bloom_test(filter, value): 1 if value may be in the filter, 0 if it
** certainly is not, NULL if either argument is NULL.
**
**   SELECT bloom_test(f, 'https://example.com/a') FROM filters
**    WHERE name = 'visited';
**
** Cost per call: one O(1) header check, one hash, one cache line.  The blob
** is read in place through the pointer SQLite hands over; nothing is copied.
** Given a bloom_ref column, even the header check was done once for the
** whole statement; bloom_probe does the same from a query.  The body is
** shared with cuckoo_test: sql_test_value in sql_common.c.
*/
#include "functions/common.h"

static void sql_bloom_test(sqlite3_context *ctx, int argc,
                           sqlite3_value **argv) {
  (void)argc;
  sql_test_value(ctx, "bloom_test", FILTER_KIND_BLOOM, argv);
}

int register_bloom_test(sqlite3 *db) {
  return sqlite3_create_function(
      db, "bloom_test", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
      NULL, sql_bloom_test, NULL, NULL);
}
