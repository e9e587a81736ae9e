/*
** bloom_test(filter, value) and cuckoo_test(filter, value): 1 if value may
** be in the filter, 0 if it certainly is not, NULL if either argument is
** NULL.  One body; the kind comes from the function's registry row.
**
**   SELECT bloom_test(f, 'https://example.com/a') FROM filters
**    WHERE name = 'visited';
**   SELECT cuckoo_test(f, 'alice@example.com') FROM filters
**    WHERE name = 'users';
**
** Cost per call: one O(1) header check, one hash, and one cache line (a
** Bloom block) or two buckets (cuckoo), read in place through the pointer
** SQLite hands over; nothing is copied.  Given a bloom_ref column, even the
** header check was done once for the whole statement; bloom_probe and
** cuckoo_probe (probe.c) do the same from a query.
*/
#include "core/filter.h"
#include "functions/filter_arg.h"
#include "functions/registry.h"
#include "functions/value_hash.h"

void sql_filter_test(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  /* The value's type first: NULL answers NULL before the filter is looked
  ** at, and the hash below reuses it rather than asking again. */
  int type = sqlite3_value_type(argv[1]);
  if (type == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  filter_view parsed;
  const filter_view *f;
  arg_status st = sql_filter_ref(ctx, argv[0], sql_function_of(ctx)->kind,
                                 &parsed, &f);
  if (st == ARG_NULL) sqlite3_result_null(ctx);
  if (st != ARG_OK) return;
  filter_hash h;
  if (sql_hash_typed(ctx, argv[1], type, f->header.seed, &h) != ARG_OK) return;
  sqlite3_result_int(ctx, filter_contains(f, h));
}
