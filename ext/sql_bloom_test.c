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
** whole statement.
*/
#include "sql_common.h"

static void sql_bloom_test(sqlite3_context *ctx, int argc,
                           sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[1]) == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  filter_view parsed;
  const filter_view *f;
  arg_status st = sql_filter_ref(ctx, "bloom_test", argv[0], FILTER_KIND_BLOOM,
                                 &parsed, &f);
  if (st == ARG_NULL) sqlite3_result_null(ctx);
  if (st != ARG_OK) return;
  filter_hash h;
  if (sql_hash_value(ctx, argv[1], f->h.seed, &h) != ARG_OK) return;
  sqlite3_result_int(ctx, bloom_contains(f->body, f->h.bits / BLOOM_BLOCK_BITS,
                                         f->h.hashes, h));
}

int register_bloom_test(sqlite3 *db) {
  return sqlite3_create_function(
      db, "bloom_test", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
      NULL, sql_bloom_test, NULL, NULL);
}
