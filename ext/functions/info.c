/*
** bloom_info(filter) and cuckoo_info(filter): table-valued functions, one
** row describing a filter of the function's kind (no row for NULL).  Both
** work correlated in joins:
**
**   SELECT name, i.* FROM filters, bloom_info(filters.f) AS i;
**   SELECT name, i.* FROM filters, cuckoo_info(filters.f) AS i;
**
** bloom_info: kind TEXT, version INTEGER, hash TEXT, bits INTEGER,
**   hashes INTEGER, bytes INTEGER, capacity INTEGER, target_fpr REAL,
**   inserted INTEGER, bits_set INTEGER, fill_ratio REAL,
**   estimated_items REAL, estimated_fpr REAL.
**   It reads the whole bit array (to count bits), so it costs time in
**   proportion to the filter's size.
** cuckoo_info: kind TEXT, version INTEGER, hash TEXT, buckets INTEGER,
**   slots_per_bucket INTEGER, fingerprint_bits INTEGER, bytes INTEGER,
**   capacity INTEGER, target_fpr REAL, items INTEGER, load_factor REAL,
**   estimated_fpr REAL.
**   load_factor is items / (buckets * slots_per_bucket); estimated_fpr is
**   the model rate at that load (core/cuckoo.h).  Both come from the
**   header's item count, so this costs the same for any filter size.
**
** One cursor serves both: the columns of each kind are a list of fields,
** and each field is read one way whatever the kind.
*/
#include <math.h>

#include "core/bloom.h"
#include "core/cuckoo.h"
#include "functions/onerow_vtab.h"
#include "functions/registry.h"

/* Every column either function has; a kind's schema lists some of them. */
typedef enum info_field {
  FIELD_KIND, FIELD_VERSION, FIELD_HASH, FIELD_BYTES, FIELD_CAPACITY,
  FIELD_TARGET_FPR, FIELD_ESTIMATED_FPR,
  /* Bloom */
  FIELD_BITS, FIELD_HASHES, FIELD_INSERTED, FIELD_BITS_SET, FIELD_FILL_RATIO,
  FIELD_ESTIMATED_ITEMS,
  /* cuckoo */
  FIELD_BUCKETS, FIELD_SLOTS_PER_BUCKET, FIELD_FINGERPRINT_BITS, FIELD_ITEMS,
  FIELD_LOAD_FACTOR
} info_field;

typedef struct info_spec {
  onerow_spec base; /* first: the frame reads it */
  const unsigned char *fields; /* column i shows fields[i] */
} info_spec;

static const unsigned char bloom_fields[] = {
    FIELD_KIND, FIELD_VERSION, FIELD_HASH, FIELD_BITS, FIELD_HASHES,
    FIELD_BYTES, FIELD_CAPACITY, FIELD_TARGET_FPR, FIELD_INSERTED,
    FIELD_BITS_SET, FIELD_FILL_RATIO, FIELD_ESTIMATED_ITEMS,
    FIELD_ESTIMATED_FPR};

static const unsigned char cuckoo_fields[] = {
    FIELD_KIND, FIELD_VERSION, FIELD_HASH, FIELD_BUCKETS,
    FIELD_SLOTS_PER_BUCKET, FIELD_FINGERPRINT_BITS, FIELD_BYTES,
    FIELD_CAPACITY, FIELD_TARGET_FPR, FIELD_ITEMS, FIELD_LOAD_FACTOR,
    FIELD_ESTIMATED_FPR};

const info_spec sql_bloom_info_spec = {
    .base = {
        .schema = "CREATE TABLE x(kind TEXT, version INTEGER, hash TEXT,"
                  " bits INTEGER, hashes INTEGER, bytes INTEGER,"
                  " capacity INTEGER, target_fpr REAL, inserted INTEGER,"
                  " bits_set INTEGER, fill_ratio REAL, estimated_items REAL,"
                  " estimated_fpr REAL, filter HIDDEN)",
        .first_arg = sizeof bloom_fields,
        .args = 1,
        .required = 1,
        .usage = "needs a filter argument, as in SELECT * FROM bloom_info(f)",
    },
    .fields = bloom_fields,
};

const info_spec sql_cuckoo_info_spec = {
    .base = {
        .schema = "CREATE TABLE x(kind TEXT, version INTEGER, hash TEXT,"
                  " buckets INTEGER, slots_per_bucket INTEGER,"
                  " fingerprint_bits INTEGER, bytes INTEGER, capacity INTEGER,"
                  " target_fpr REAL, items INTEGER, load_factor REAL,"
                  " estimated_fpr REAL, filter HIDDEN)",
        .first_arg = sizeof cuckoo_fields,
        .args = 1,
        .required = 1,
        .usage = "needs a filter argument, as in SELECT * FROM cuckoo_info(f)",
    },
    .fields = cuckoo_fields,
};

typedef struct info_cursor {
  onerow_cursor base;
  filter_header header;
  sqlite3_int64 bytes;
  bloom_stats stats; /* Bloom: counted over the bit array */
  double load;       /* cuckoo: items per slot */
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
  int rc = onerow_filter_arg(cur, idx_num, argc, argv,
                             onerow_function(cur)->kind, &f, &found);
  if (rc != SQLITE_OK || !found) return rc;
  c->header = f.header;
  c->bytes = (sqlite3_int64)f.blob_bytes;
  if (f.header.kind == FILTER_KIND_BLOOM)
    c->stats = bloom_stats_of(f.body, f.header.bits, f.header.hashes);
  else
    c->load = (double)f.header.count /
              ((double)f.header.buckets * CUCKOO_SLOTS_PER_BUCKET);
  c->base.eof = 0;
  return SQLITE_OK;
}

static int info_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                       int col) {
  const info_cursor *c = (const info_cursor *)cur;
  const filter_header *h = &c->header;
  const info_spec *spec = (const info_spec *)onerow_function(cur)->module_spec;
  if (col < 0 || col >= spec->base.first_arg) {
    sqlite3_result_null(ctx); /* the HIDDEN argument */
    return SQLITE_OK;
  }
  switch ((info_field)spec->fields[col]) {
    case FIELD_KIND:
      sqlite3_result_text(ctx, filter_kind_name(h->kind), -1, SQLITE_STATIC);
      break;
    case FIELD_VERSION: sqlite3_result_int(ctx, (int)h->version); break;
    case FIELD_HASH:
      sqlite3_result_text(ctx, filter_hash_name(h->hash), -1, SQLITE_STATIC);
      break;
    case FIELD_BYTES: sqlite3_result_int64(ctx, c->bytes); break;
    case FIELD_CAPACITY:
      sqlite3_result_int64(ctx, (sqlite3_int64)h->capacity);
      break;
    case FIELD_TARGET_FPR: sqlite3_result_double(ctx, h->target_fpr); break;
    case FIELD_ESTIMATED_FPR:
      sqlite3_result_double(
          ctx, h->kind == FILTER_KIND_BLOOM
                   ? c->stats.estimated_fpr
                   : cuckoo_model_fpr(c->load, h->fingerprint_bits,
                                      h->buckets));
      break;
    case FIELD_BITS: sqlite3_result_int64(ctx, (sqlite3_int64)h->bits); break;
    case FIELD_HASHES: sqlite3_result_int64(ctx, h->hashes); break;
    case FIELD_INSERTED:
      /* A counter above INT64_MAX can only come from a hand-made blob. */
      sqlite3_result_int64(ctx, h->count > (uint64_t)INT64_MAX
                                    ? INT64_MAX
                                    : (sqlite3_int64)h->count);
      break;
    case FIELD_BITS_SET:
      sqlite3_result_int64(ctx, (sqlite3_int64)c->stats.bits_set);
      break;
    case FIELD_FILL_RATIO: sqlite3_result_double(ctx, c->stats.fill_ratio); break;
    case FIELD_ESTIMATED_ITEMS:
      if (isinf(c->stats.estimated_items))
        sqlite3_result_null(ctx); /* every bit set: no estimate exists */
      else
        sqlite3_result_double(ctx, c->stats.estimated_items);
      break;
    case FIELD_BUCKETS:
      sqlite3_result_int64(ctx, (sqlite3_int64)h->buckets);
      break;
    case FIELD_SLOTS_PER_BUCKET:
      sqlite3_result_int(ctx, (int)h->slots_per_bucket);
      break;
    case FIELD_FINGERPRINT_BITS:
      sqlite3_result_int(ctx, (int)h->fingerprint_bits);
      break;
    case FIELD_ITEMS:
      /* At most the slot count, which the blob's length bounds. */
      sqlite3_result_int64(ctx, (sqlite3_int64)h->count);
      break;
    case FIELD_LOAD_FACTOR: sqlite3_result_double(ctx, c->load); break;
  }
  return SQLITE_OK;
}

const sqlite3_module sql_info_module =
    ONEROW_MODULE(info_open, onerow_close, info_filter, info_column);
