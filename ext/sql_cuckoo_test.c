/*
** cuckoo_test(filter, value): 1 if value may be in the cuckoo filter, 0 if
** it certainly is not, NULL if either argument is NULL.
**
**   SELECT cuckoo_test(f, 'alice@example.com') FROM filters
**    WHERE name = 'users';
**
** Cost per call: one O(1) header check, one hash, and 8 slots of two
** buckets read in place through the pointer SQLite hands over; nothing is
** copied.  To probe many rows, pass the filter through bloom_ref; given a
** bloom_ref column, even the header check was done once per statement.
*/
#include "sql_common.h"
#include "cuckoo_core.h"

static void sql_cuckoo_test(sqlite3_context *ctx, int argc,
                            sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  filter_view parsed;
  const filter_view *f;
  arg_status st = sql_filter_ref(ctx, "cuckoo_test", argv[0],
                                 FILTER_KIND_CUCKOO, &parsed, &f);
  if (st == ARG_NULL) sqlite3_result_null(ctx);
  if (st != ARG_OK) return;
  filter_hash h;
  if (sql_hash_value(ctx, argv[1], f->h.seed, &h) != ARG_OK) return;
  sqlite3_result_int(
      ctx, cuckoo_contains(f->body, f->h.buckets, f->h.fingerprint_bits, h));
}

int register_cuckoo_test(sqlite3 *db) {
  return sqlite3_create_function(
      db, "cuckoo_test", 2,
      SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
      sql_cuckoo_test, NULL, NULL);
}
