/*
** cuckoo_info(filter): table-valued function, one row describing a cuckoo
** filter (no row for NULL).  Works correlated in joins:
**
**   SELECT name, i.* FROM filters, cuckoo_info(filters.f) AS i;
**
**   kind TEXT, version INTEGER, hash TEXT, buckets INTEGER,
**   slots_per_bucket INTEGER, fingerprint_bits INTEGER, bytes INTEGER,
**   capacity INTEGER, target_fpr REAL, items INTEGER, load_factor REAL,
**   estimated_fpr REAL
**
** load_factor is items / (buckets * slots_per_bucket); estimated_fpr is the
** model rate at that load, 1 - (1 - 1/(2^f - 1))^(8 * load_factor) (see
** cuckoo_core.h).  Both come from the header's item count, so unlike
** bloom_info this costs the same for any filter size.
*/
#include "functions/onerow_vtab.h"
#include "core/cuckoo.h"

enum {
  COL_KIND, COL_VERSION, COL_HASH, COL_BUCKETS, COL_SLOTS_PER_BUCKET,
  COL_FINGERPRINT_BITS, COL_BYTES, COL_CAPACITY, COL_TARGET_FPR, COL_ITEMS,
  COL_LOAD_FACTOR, COL_ESTIMATED_FPR,
  COL_FILTER /* HIDDEN: the argument */
};

static const onerow_spec info_spec = {
    .name = "cuckoo_info",
    .schema = "CREATE TABLE x(kind TEXT, version INTEGER, hash TEXT,"
              " buckets INTEGER, slots_per_bucket INTEGER,"
              " fingerprint_bits INTEGER, bytes INTEGER, capacity INTEGER,"
              " target_fpr REAL, items INTEGER, load_factor REAL,"
              " estimated_fpr REAL, filter HIDDEN)",
    .first_arg = COL_FILTER,
    .args = 1,
    .required = 1,
    .usage = "needs a filter argument, as in SELECT * FROM cuckoo_info(f)",
};

typedef struct info_cursor {
  onerow_cursor base;
  filter_header h;
  sqlite3_int64 bytes;
  double load;
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
  int rc = onerow_filter_arg(cur, idx_num, argc, argv, FILTER_KIND_CUCKOO, &f, &found);
  if (rc != SQLITE_OK || !found) return rc;
  c->h = f.h;
  c->bytes = (sqlite3_int64)f.blob_bytes;
  c->load = (double)f.h.inserted /
            ((double)f.h.buckets * CUCKOO_SLOTS_PER_BUCKET);
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
    case COL_BUCKETS:
      sqlite3_result_int64(ctx, (sqlite3_int64)c->h.buckets);
      break;
    case COL_SLOTS_PER_BUCKET:
      sqlite3_result_int(ctx, (int)c->h.slots_per_bucket);
      break;
    case COL_FINGERPRINT_BITS:
      sqlite3_result_int(ctx, (int)c->h.fingerprint_bits);
      break;
    case COL_BYTES: sqlite3_result_int64(ctx, c->bytes); break;
    case COL_CAPACITY:
      sqlite3_result_int64(ctx, (sqlite3_int64)c->h.capacity);
      break;
    case COL_TARGET_FPR: sqlite3_result_double(ctx, c->h.target_fpr); break;
    case COL_ITEMS:
      /* At most the slot count, which the blob's length bounds. */
      sqlite3_result_int64(ctx, (sqlite3_int64)c->h.inserted);
      break;
    case COL_LOAD_FACTOR: sqlite3_result_double(ctx, c->load); break;
    case COL_ESTIMATED_FPR:
      sqlite3_result_double(ctx, cuckoo_model_fpr(c->load,
                                                  c->h.fingerprint_bits,
                                                  c->h.buckets));
      break;
    default: sqlite3_result_null(ctx); break;
  }
  return SQLITE_OK;
}

static const sqlite3_module info_module =
    ONEROW_MODULE(info_open, onerow_close, info_filter, info_column);

int register_cuckoo_info(sqlite3 *db) {
  return sqlite3_create_module(db, "cuckoo_info", &info_module,
                               (void *)&info_spec);
}
