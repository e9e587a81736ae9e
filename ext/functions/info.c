/*
** bloom_info(filter) and cuckoo_info(filter): table-valued functions, one
** row describing a filter of the function's kind (no row for NULL).  Both
** work correlated in joins:
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
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
** quotient_info: kind TEXT, version INTEGER, hash TEXT, blocks INTEGER,
**   block_bytes INTEGER, bytes INTEGER, capacity INTEGER, target_fpr REAL,
**   items INTEGER, bits_per_item REAL, full_blocks INTEGER,
**   estimated_fpr REAL.  It checks every block (quotient_stats_of), so it
**   costs time in proportion to the filter's size, and a damaged block is
**   an error.
**
** A layered filter (kind 3) of the function's kind gives one row of
** totals: bits, bytes, capacity, inserted / items, bits_set and
** estimated_items are sums over the layers (capacity, target_fpr and the
** count as the outer header says), fill_ratio and load_factor are over all
** the layers' bits or slots, estimated_fpr is 1 - prod(1 - the layer's
** estimated_fpr) (as 0.0 - expm1(sum of log1p(-rate))), and hashes /
** fingerprint_bits are NULL (no one value).
**
** bloom_layers(filter): one row per layer of any filter, layered or not (a
** filter that is not layered is its own layer 0), with the union of both
** functions' columns after `layer` (0 = oldest); a column that does not
** apply to the layer's kind is NULL.
**
** One cursor serves all three: the columns of each are a list of fields,
** and each field is read one way whatever the kind.
*/
#include <math.h>
#include <string.h>

#include "core/bloom.h"
#include "core/cuckoo.h"
#include "core/layered.h"
#include "core/quotient.h"
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
  FIELD_LOAD_FACTOR,
  /* quotient */
  FIELD_BLOCKS, FIELD_BLOCK_BYTES, FIELD_ENTRIES, FIELD_BITS_PER_ITEM,
  FIELD_FULL_BLOCKS,
  /* bloom_layers */
  FIELD_LAYER
} info_field;

typedef struct info_spec {
  onerow_spec base; /* first: the frame reads it */
  const unsigned char *fields; /* column i shows fields[i] */
  int per_layer; /* a row per layer (bloom_layers), else one of totals */
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

static const unsigned char quotient_fields[] = {
    FIELD_KIND, FIELD_VERSION, FIELD_HASH, FIELD_BLOCKS, FIELD_BLOCK_BYTES,
    FIELD_BYTES, FIELD_CAPACITY, FIELD_TARGET_FPR, FIELD_ENTRIES,
    FIELD_BITS_PER_ITEM, FIELD_FULL_BLOCKS, FIELD_ESTIMATED_FPR};

static const unsigned char layer_fields[] = {
    FIELD_LAYER, FIELD_KIND, FIELD_VERSION, FIELD_HASH, FIELD_BITS,
    FIELD_HASHES, FIELD_BUCKETS, FIELD_SLOTS_PER_BUCKET,
    FIELD_FINGERPRINT_BITS, FIELD_BYTES, FIELD_CAPACITY, FIELD_TARGET_FPR,
    FIELD_INSERTED, FIELD_ITEMS, FIELD_BITS_SET, FIELD_FILL_RATIO,
    FIELD_ESTIMATED_ITEMS, FIELD_LOAD_FACTOR, FIELD_ESTIMATED_FPR};

const info_spec sql_layers_spec = {
    .base = {
        .schema = "CREATE TABLE x(layer INTEGER, kind TEXT, version INTEGER,"
                  " hash TEXT, bits INTEGER, hashes INTEGER, buckets INTEGER,"
                  " slots_per_bucket INTEGER, fingerprint_bits INTEGER,"
                  " bytes INTEGER, capacity INTEGER, target_fpr REAL,"
                  " inserted INTEGER, items INTEGER, bits_set INTEGER,"
                  " fill_ratio REAL, estimated_items REAL, load_factor REAL,"
                  " estimated_fpr REAL, filter HIDDEN)",
        .first_arg = sizeof layer_fields,
        .args = 1,
        .required = 1,
        .usage = "needs a filter argument, as in SELECT * FROM bloom_layers(f)",
    },
    .fields = layer_fields,
    .per_layer = 1,
};

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

const info_spec sql_quotient_info_spec = {
    .base = {
        .schema = "CREATE TABLE x(kind TEXT, version INTEGER, hash TEXT,"
                  " blocks INTEGER, block_bytes INTEGER, bytes INTEGER,"
                  " capacity INTEGER, target_fpr REAL, items INTEGER,"
                  " bits_per_item REAL, full_blocks INTEGER,"
                  " estimated_fpr REAL, filter HIDDEN)",
        .first_arg = sizeof quotient_fields,
        .args = 1,
        .required = 1,
        .usage = "needs a filter argument, as in SELECT * FROM "
                 "quotient_info(f)",
    },
    .fields = quotient_fields,
};

/* What one row shows: a filter of one kind, a layer of a layered filter,
** or a layered filter's totals (then header is the outer one, of kind 3). */
typedef struct info_row {
  filter_header header; /* the filter's or the layer's */
  unsigned layer;       /* bloom_layers: the layer's number */
  sqlite3_int64 bytes;
  uint64_t bits, buckets; /* sums for totals */
  bloom_stats stats;      /* Bloom: counted over the bit arrays */
  quotient_stats qstats;  /* quotient: over the blocks */
  double estimated_fpr;
} info_row;

static int row_is_totals(const info_row *r) {
  return r->header.kind == FILTER_KIND_LAYERED;
}

/* Cuckoo: items per slot, over all the layers' slots for totals. */
static double row_load(const info_row *r) {
  return (double)r->header.count /
         ((double)r->buckets * CUCKOO_SLOTS_PER_BUCKET);
}

/* The row of one filter of kind 1, 2 or 4.  0, or -1 with the reason in
** err for a quotient filter with a damaged block (the only kind whose body
** can be malformed). */
static int row_of_plain(const filter_view *f, info_row *r, char *err,
                        size_t err_size) {
  memset(r, 0, sizeof *r);
  r->header = f->header;
  r->bytes = (sqlite3_int64)f->blob_bytes;
  r->bits = f->header.bits;
  r->buckets = f->header.buckets;
  if (f->header.kind == FILTER_KIND_QUOTIENT) {
    if (f->header.block_bytes == 0) { /* leaves */
      qleaves_summary sum;
      if (qleaves_stats(f->body, f->body_bytes, f->header.blocks, &sum, NULL,
                        NULL, err, err_size) != 0)
        return -1;
      r->qstats.full_blocks = 0;
      r->qstats.estimated_fpr = sum.estimated_fpr;
    } else if (quotient_stats_of(f->body, f->header.blocks,
                                 f->header.block_bytes, &r->qstats, err,
                                 err_size) != 0) {
      return -1;
    }
    r->estimated_fpr = r->qstats.estimated_fpr;
  } else if (f->header.kind == FILTER_KIND_BLOOM) {
    r->stats = bloom_stats_of(f->body, f->header.bits, f->header.hashes);
    r->estimated_fpr = r->stats.estimated_fpr;
  } else {
    r->estimated_fpr = cuckoo_model_fpr(
        row_load(r), f->header.fingerprint_bits, f->header.buckets);
  }
  return 0;
}

/* The totals of a filter: its own row when not layered. */
static int row_of_filter(const filter_view *f, info_row *r, char *err,
                         size_t err_size) {
  if (f->header.kind != FILTER_KIND_LAYERED)
    return row_of_plain(f, r, err, err_size);
  info_row sum;
  memset(&sum, 0, sizeof sum);
  /* ln of the chance that no layer says maybe, summed with log1p so that
  ** rates far below a double's epsilon keep their precision */
  double log_clear = 0.0;
  filter_layer_walk w = filter_layers_of(f);
  for (unsigned i = 0; i < f->header.layers; i++) {
    filter_view layer;
    info_row one;
    filter_layer_next(&w, &layer);
    row_of_plain(&layer, &one, NULL, 0); /* layers: kinds 1 and 2 */
    sum.bits += one.bits;
    sum.buckets += one.buckets;
    sum.stats.bits_set += one.stats.bits_set;
    sum.stats.estimated_items += one.stats.estimated_items;
    log_clear += log1p(-one.estimated_fpr);
  }
  sum.header = f->header;
  sum.bytes = (sqlite3_int64)f->blob_bytes;
  if (f->header.layer_kind == FILTER_KIND_BLOOM)
    sum.stats.fill_ratio = (double)sum.stats.bits_set / (double)sum.bits;
  /* 0.0 - x, not -x: the same bits but for zero, where layers that are
  ** all empty give 0.0 as an empty filter does, not -0.0 */
  sum.estimated_fpr = 0.0 - expm1(log_clear);
  *r = sum;
  return 0;
}

typedef struct info_cursor {
  onerow_cursor base;
  unsigned row, rows; /* bloom_layers: the row shown, and how many */
  info_row info[FILTER_MAX_LAYERS];
} info_cursor;

static int info_open(sqlite3_vtab *vtab, sqlite3_vtab_cursor **out) {
  (void)vtab;
  return onerow_open(sizeof(info_cursor), out);
}

static int read_arg(sqlite3_vtab_cursor *cur, int idx_num, int argc,
                    sqlite3_value **argv, filter_view *f, int *found) {
  return onerow_filter_arg(cur, idx_num, argc, argv,
                           onerow_function(cur)->kind | FILTER_WANT_LAYERED,
                           f, found);
}

/* xFilter of all three.  Every row is made here, while the argument's
** blob is sure to be there. */
static int info_filter(sqlite3_vtab_cursor *cur, int idx_num,
                       const char *idx_str, int argc, sqlite3_value **argv) {
  (void)idx_str;
  info_cursor *c = (info_cursor *)cur;
  const info_spec *spec = (const info_spec *)onerow_function(cur)->module_spec;
  c->base.eof = 1;
  filter_view f;
  int found;
  int rc = read_arg(cur, idx_num, argc, argv, &f, &found);
  if (rc != SQLITE_OK || !found) return rc;
  char why[200];
  if (spec->per_layer) {
    c->rows = filter_layer_count(&f);
    filter_layer_walk w = filter_layers_of(&f);
    for (unsigned i = 0; i < c->rows; i++) {
      filter_view layer;
      filter_layer_next(&w, &layer);
      if (row_of_plain(&layer, &c->info[i], why, sizeof why) != 0)
        return onerow_error(cur, "%s", why);
      c->info[i].layer = i;
    }
  } else {
    c->rows = 1;
    if (row_of_filter(&f, &c->info[0], why, sizeof why) != 0)
      return onerow_error(cur, "%s", why);
  }
  c->row = 0;
  c->base.eof = 0;
  return SQLITE_OK;
}

static int layers_next(sqlite3_vtab_cursor *cur) {
  info_cursor *c = (info_cursor *)cur;
  if (++c->row >= c->rows) c->base.eof = 1;
  return SQLITE_OK;
}

static int layers_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = ((const info_cursor *)cur)->row;
  return SQLITE_OK;
}

/* As for the one-row functions, but not unique: several rows may come. */
static int layers_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info) {
  int rc = onerow_best_index(vtab, info);
  if (rc == SQLITE_OK) {
    info->idxFlags = 0;
    info->estimatedRows = 4;
  }
  return rc;
}

static void result_count(sqlite3_context *ctx, uint64_t count) {
  /* A counter above INT64_MAX can only come from a hand-made blob. */
  sqlite3_result_int64(ctx, count > (uint64_t)INT64_MAX
                                ? INT64_MAX
                                : (sqlite3_int64)count);
}

/* One column's value for a row. */
typedef void (*column_fn)(sqlite3_context *ctx, const info_row *r);

static void col_layer(sqlite3_context *ctx, const info_row *r) {
  sqlite3_result_int(ctx, (int)r->layer);
}
static void col_kind(sqlite3_context *ctx, const info_row *r) {
  sqlite3_result_text(ctx, filter_kind_name(filter_base_kind(&r->header)), -1,
                      SQLITE_STATIC);
}
static void col_version(sqlite3_context *ctx, const info_row *r) {
  sqlite3_result_int(ctx, (int)r->header.version);
}
static void col_hash(sqlite3_context *ctx, const info_row *r) {
  sqlite3_result_text(ctx, filter_hash_name(r->header.hash), -1,
                      SQLITE_STATIC);
}
static void col_bytes(sqlite3_context *ctx, const info_row *r) {
  sqlite3_result_int64(ctx, r->bytes);
}
static void col_capacity(sqlite3_context *ctx, const info_row *r) {
  sqlite3_result_int64(ctx, (sqlite3_int64)r->header.capacity);
}
static void col_target_fpr(sqlite3_context *ctx, const info_row *r) {
  sqlite3_result_double(ctx, r->header.target_fpr);
}
static void col_estimated_fpr(sqlite3_context *ctx, const info_row *r) {
  sqlite3_result_double(ctx, r->estimated_fpr);
}
static void col_bits(sqlite3_context *ctx, const info_row *r) {
  sqlite3_result_int64(ctx, (sqlite3_int64)r->bits);
}
static void col_hashes(sqlite3_context *ctx, const info_row *r) {
  if (row_is_totals(r))
    sqlite3_result_null(ctx); /* each layer has its own */
  else
    sqlite3_result_int64(ctx, r->header.hashes);
}
/* inserted (Bloom) or items (cuckoo); items is at most the slot count,
** which the blob's length bounds. */
static void col_count(sqlite3_context *ctx, const info_row *r) {
  result_count(ctx, r->header.count);
}
static void col_bits_set(sqlite3_context *ctx, const info_row *r) {
  sqlite3_result_int64(ctx, (sqlite3_int64)r->stats.bits_set);
}
static void col_fill_ratio(sqlite3_context *ctx, const info_row *r) {
  sqlite3_result_double(ctx, r->stats.fill_ratio);
}
static void col_estimated_items(sqlite3_context *ctx, const info_row *r) {
  if (isinf(r->stats.estimated_items))
    sqlite3_result_null(ctx); /* every bit set: no estimate exists */
  else
    sqlite3_result_double(ctx, r->stats.estimated_items);
}
static void col_buckets(sqlite3_context *ctx, const info_row *r) {
  sqlite3_result_int64(ctx, (sqlite3_int64)r->buckets);
}
static void col_slots_per_bucket(sqlite3_context *ctx, const info_row *r) {
  (void)r;
  sqlite3_result_int(ctx, CUCKOO_SLOTS_PER_BUCKET);
}
static void col_fingerprint_bits(sqlite3_context *ctx, const info_row *r) {
  if (row_is_totals(r))
    sqlite3_result_null(ctx); /* each layer has its own */
  else
    sqlite3_result_int(ctx, (int)r->header.fingerprint_bits);
}
static void col_load_factor(sqlite3_context *ctx, const info_row *r) {
  sqlite3_result_double(ctx, row_load(r));
}
static void col_blocks(sqlite3_context *ctx, const info_row *r) {
  sqlite3_result_int64(ctx, (sqlite3_int64)r->header.blocks);
}
static void col_block_bytes(sqlite3_context *ctx, const info_row *r) {
  sqlite3_result_int(ctx, (int)r->header.block_bytes);
}
/* The body's bits per entry: NULL for an empty filter. */
static void col_bits_per_item(sqlite3_context *ctx, const info_row *r) {
  if (r->header.count == 0)
    sqlite3_result_null(ctx);
  else
    sqlite3_result_double(ctx, (double)(r->bytes - FILTER_HEADER_BYTES) *
                                   8.0 / (double)r->header.count);
}
static void col_full_blocks(sqlite3_context *ctx, const info_row *r) {
  sqlite3_result_int64(ctx, (sqlite3_int64)r->qstats.full_blocks);
}

/* Every field: the kind of filter it belongs to (0: any; a row of the other
** kind shows NULL), and how its value is computed. */
static const struct {
  unsigned kind;
  column_fn value;
} columns[] = {
    [FIELD_LAYER] = {0, col_layer},
    [FIELD_KIND] = {0, col_kind},
    [FIELD_VERSION] = {0, col_version},
    [FIELD_HASH] = {0, col_hash},
    [FIELD_BYTES] = {0, col_bytes},
    [FIELD_CAPACITY] = {0, col_capacity},
    [FIELD_TARGET_FPR] = {0, col_target_fpr},
    [FIELD_ESTIMATED_FPR] = {0, col_estimated_fpr},
    [FIELD_BITS] = {FILTER_KIND_BLOOM, col_bits},
    [FIELD_HASHES] = {FILTER_KIND_BLOOM, col_hashes},
    [FIELD_INSERTED] = {FILTER_KIND_BLOOM, col_count},
    [FIELD_BITS_SET] = {FILTER_KIND_BLOOM, col_bits_set},
    [FIELD_FILL_RATIO] = {FILTER_KIND_BLOOM, col_fill_ratio},
    [FIELD_ESTIMATED_ITEMS] = {FILTER_KIND_BLOOM, col_estimated_items},
    [FIELD_BUCKETS] = {FILTER_KIND_CUCKOO, col_buckets},
    [FIELD_SLOTS_PER_BUCKET] = {FILTER_KIND_CUCKOO, col_slots_per_bucket},
    [FIELD_FINGERPRINT_BITS] = {FILTER_KIND_CUCKOO, col_fingerprint_bits},
    [FIELD_ITEMS] = {FILTER_KIND_CUCKOO, col_count},
    [FIELD_LOAD_FACTOR] = {FILTER_KIND_CUCKOO, col_load_factor},
    [FIELD_BLOCKS] = {FILTER_KIND_QUOTIENT, col_blocks},
    [FIELD_BLOCK_BYTES] = {FILTER_KIND_QUOTIENT, col_block_bytes},
    [FIELD_ENTRIES] = {FILTER_KIND_QUOTIENT, col_count},
    [FIELD_BITS_PER_ITEM] = {FILTER_KIND_QUOTIENT, col_bits_per_item},
    [FIELD_FULL_BLOCKS] = {FILTER_KIND_QUOTIENT, col_full_blocks},
};
_Static_assert(sizeof columns / sizeof columns[0] == FIELD_LAYER + 1,
               "a row for every info_field");

static int info_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                       int col) {
  const info_cursor *c = (const info_cursor *)cur;
  const info_row *r = &c->info[c->row];
  const info_spec *spec = (const info_spec *)onerow_function(cur)->module_spec;
  if (col < 0 || col >= spec->base.first_arg) {
    sqlite3_result_null(ctx); /* the HIDDEN argument */
    return SQLITE_OK;
  }
  unsigned field = spec->fields[col];
  unsigned kind = columns[field].kind;
  if (kind != 0 && kind != filter_base_kind(&r->header))
    sqlite3_result_null(ctx); /* the other kind's column (bloom_layers) */
  else
    columns[field].value(ctx, r);
  return SQLITE_OK;
}

const sqlite3_module sql_info_module =
    ONEROW_MODULE(info_open, onerow_close, info_filter, info_column);

const sqlite3_module sql_layers_module = {
    .iVersion = 0, .xCreate = NULL, .xConnect = onerow_connect,
    .xBestIndex = layers_best_index, .xDisconnect = onerow_disconnect,
    .xDestroy = onerow_disconnect, .xOpen = info_open, .xClose = onerow_close,
    .xFilter = info_filter, .xNext = layers_next, .xEof = onerow_eof,
    .xColumn = info_column, .xRowid = layers_rowid,
};
