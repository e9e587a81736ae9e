/*
** bloom_info(filter): table-valued function, one row describing a Bloom
** filter (no row for NULL).  Works correlated in joins:
**
**   SELECT name, i.* FROM filters, bloom_info(filters.f) AS i;
**
**   kind TEXT, version INTEGER, hash TEXT, bits INTEGER, hashes INTEGER,
**   bytes INTEGER, capacity INTEGER, target_fpr REAL, inserted INTEGER,
**   bits_set INTEGER, fill_ratio REAL, estimated_items REAL,
**   estimated_fpr REAL
**
** Unlike bloom_test this reads the whole bit array (to count bits), so it
** costs time proportional to the filter's size.
*/
#include "functions/onerow_vtab.h"

#include <math.h>

enum {
  COL_KIND, COL_VERSION, COL_HASH, COL_BITS, COL_HASHES, COL_BYTES,
  COL_CAPACITY, COL_TARGET_FPR, COL_INSERTED, COL_BITS_SET, COL_FILL_RATIO,
  COL_ESTIMATED_ITEMS, COL_ESTIMATED_FPR,
  COL_FILTER /* HIDDEN: the argument */
};

static const onerow_spec info_spec = {
    .name = "bloom_info",
    .schema = "CREATE TABLE x(kind TEXT, version INTEGER, hash TEXT,"
              " bits INTEGER, hashes INTEGER, bytes INTEGER,"
              " capacity INTEGER, target_fpr REAL, inserted INTEGER,"
              " bits_set INTEGER, fill_ratio REAL, estimated_items REAL,"
              " estimated_fpr REAL, filter HIDDEN)",
    .first_arg = COL_FILTER,
    .args = 1,
    .required = 1,
    .usage = "needs a filter argument, as in SELECT * FROM bloom_info(f)",
};

typedef struct info_cursor {
  onerow_cursor base;
  filter_header h;
  sqlite3_int64 bytes;
  bloom_stats stats;
} info_cursor;

static int info_open(sqlite3_vtab *vtab, sqlite3_vtab_cursor **out) {
  (void)vtab;
  return onerow_open(sizeof(info_cursor), out);
}

static int info_filter(sqlite3_vtab_cursor *cur, int idx_num,
                       const char *idx_str, int argc, sqlite3_value **argv) {
  (void)idx_str;
  info_cursor *c = (info_cursor *)cur;
  c->base.eof = 1;
  filter_view f;
  int found;
  int rc = onerow_filter_arg(cur, idx_num, argc, argv, FILTER_KIND_BLOOM, &f, &found);
  if (rc != SQLITE_OK || !found) return rc;
  c->h = f.h;
  c->bytes = (sqlite3_int64)f.blob_bytes;
  c->stats = bloom_stats_of(f.body, f.h.bits, f.h.hashes);
  c->base.eof = 0;
  return SQLITE_OK;
}

static int info_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                       int col) {
  info_cursor *c = (info_cursor *)cur;
  switch (col) {
    case COL_KIND:
      sqlite3_result_text(ctx, filter_kind_name(c->h.kind), -1, SQLITE_STATIC);
      break;
    case COL_VERSION: sqlite3_result_int(ctx, (int)c->h.version); break;
    case COL_HASH:
      sqlite3_result_text(ctx, filter_hash_name(c->h.hash), -1, SQLITE_STATIC);
      break;
    case COL_BITS: sqlite3_result_int64(ctx, (sqlite3_int64)c->h.bits); break;
    case COL_HASHES: sqlite3_result_int64(ctx, c->h.hashes); break;
    case COL_BYTES: sqlite3_result_int64(ctx, c->bytes); break;
    case COL_CAPACITY:
      sqlite3_result_int64(ctx, (sqlite3_int64)c->h.capacity);
      break;
    case COL_TARGET_FPR: sqlite3_result_double(ctx, c->h.target_fpr); break;
    case COL_INSERTED:
      /* A counter above INT64_MAX can only come from a hand-made blob. */
      sqlite3_result_int64(ctx, c->h.inserted > (uint64_t)INT64_MAX
                                    ? INT64_MAX
                                    : (sqlite3_int64)c->h.inserted);
      break;
    case COL_BITS_SET:
      sqlite3_result_int64(ctx, (sqlite3_int64)c->stats.bits_set);
      break;
    case COL_FILL_RATIO: sqlite3_result_double(ctx, c->stats.fill_ratio); break;
    case COL_ESTIMATED_ITEMS:
      if (isinf(c->stats.estimated_items))
        sqlite3_result_null(ctx); /* every bit set: no estimate exists */
      else
        sqlite3_result_double(ctx, c->stats.estimated_items);
      break;
    case COL_ESTIMATED_FPR:
      sqlite3_result_double(ctx, c->stats.estimated_fpr);
      break;
    default: sqlite3_result_null(ctx); break;
  }
  return SQLITE_OK;
}

static const sqlite3_module info_module =
    ONEROW_MODULE(info_open, onerow_close, info_filter, info_column);

int register_bloom_info(sqlite3 *db) {
  return sqlite3_create_module(db, "bloom_info", &info_module,
                               (void *)&info_spec);
}
