/*
** cuckoo_test(filter, value): 1 if value may be in the cuckoo filter, 0 if
** it certainly is not, NULL if either argument is NULL.
**
**   SELECT cuckoo_test(f, 'alice@example.com') FROM filters
**    WHERE name = 'users';
**
** Cost per call: one O(1) header check, one hash, and 8 slots of two
** buckets read in place through the pointer SQLite hands over; nothing is
** copied.  To probe many rows of a stored filter, use cuckoo_probe (the
** filter read once per statement) or a bloom_ref column.  The body is
** shared with bloom_test: sql_test_value in sql_common.c.
*/
#include "functions/common.h"

static void sql_cuckoo_test(sqlite3_context *ctx, int argc,
                            sqlite3_value **argv) {
  (void)argc;
  sql_test_value(ctx, "cuckoo_test", FILTER_KIND_CUCKOO, argv);
}

int register_cuckoo_test(sqlite3 *db) {
  return sqlite3_create_function(
      db, "cuckoo_test", 2,
      SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
      sql_cuckoo_test, NULL, NULL);
}
