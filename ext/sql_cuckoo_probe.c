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
#include "sql_stored_filter.h"
#include "cuckoo_core.h"

static const char fname[] = "cuckoo_probe";

static void sql_cuckoo_probe(sqlite3_context *ctx, int argc,
                             sqlite3_value **argv) {
  (void)argc;
  const filter_view *f;
  arg_status st = stored_filter(ctx, fname, argv[0], FILTER_KIND_CUCKOO, &f);
  if (st == ARG_NULL) sqlite3_result_null(ctx);
  if (st != ARG_OK) return;
  filter_hash h;
  st = sql_hash_value(ctx, argv[1], f->h.seed, &h);
  if (st == ARG_NULL) sqlite3_result_null(ctx);
  if (st != ARG_OK) return;
  sqlite3_result_int(
      ctx, cuckoo_contains(f->body, f->h.buckets, f->h.fingerprint_bits, h));
}

int register_cuckoo_probe(sqlite3 *db) {
  return register_stored_probe(db, fname, sql_cuckoo_probe);
}
