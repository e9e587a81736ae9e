/*
** cuckoo_probe(query, value): cuckoo_test against the filter a query
** selects, read once per statement (see bloom_probe):
**
**   SELECT count(*) FROM logins
**    WHERE cuckoo_probe('SELECT f FROM filters WHERE name = ''users''',
**                       logins.email);
**
** 1 if value may be in the filter, 0 if it certainly is not, NULL if value
** or the stored filter is NULL.
*/
#include "functions/stored_filter.h"

static const char fname[] = "cuckoo_probe";

static void sql_cuckoo_probe(sqlite3_context *ctx, int argc,
                             sqlite3_value **argv) {
  (void)argc;
  stored_probe(ctx, argv, fname, FILTER_KIND_CUCKOO);
}

int register_cuckoo_probe(sqlite3 *db) {
  return register_stored_probe(db, fname, sql_cuckoo_probe);
}
