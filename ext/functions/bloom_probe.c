/*
** bloom_probe(query, value): bloom_test against the filter a query selects,
** read once per statement.  The fastest way to probe many rows:
**
**   SELECT count(*) FROM urls
**    WHERE bloom_probe('SELECT f FROM filters WHERE name = ''visited''',
**                      urls.url);
**
** The query (a literal or a bound parameter) runs on the first row; its
** one value is copied, validated and kept for the rest of the statement
** (sql_stored_filter.c), so a later row costs one lookup, one hash and one
** cache line, at any filter size.  1 if value may be in the filter, 0 if it
** certainly is not, NULL if value or the stored filter is NULL.
*/
#include "functions/stored_filter.h"

static const char fname[] = "bloom_probe";

static void sql_bloom_probe(sqlite3_context *ctx, int argc,
                            sqlite3_value **argv) {
  (void)argc;
  stored_probe(ctx, argv, fname, FILTER_KIND_BLOOM);
}

int register_bloom_probe(sqlite3 *db) {
  return register_stored_probe(db, fname, sql_bloom_probe);
}
