/*
** cuckoo_store's kind (store.h, store_kind): the filter's buckets cut into
** chunks of C buckets, C even so that a chunk is whole bytes (C * 4 * f
** bits), the largest that fits one database page; no counter: the items are the
** occupied slots, counted when the filter is exported (ext/FORMAT.md,
** "Stores").  Inserts and deletes run the core's algorithm over the chunks
** (cuckoo_buckets), so relocations cross chunk rows and a failed insert is
** undone in all of them; an insert that lands in its first bucket changes
** one chunk.  The export has the header cuckoo_build(value, capacity, fpr)
** would have and answers cuckoo_test exactly as the store does.
** INSERT INTO t(filter) loads a filter of the same shape into an empty
** store.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Layout: a store made by this version records `layout = 1` (any even
** number of buckets, cuckoo.h); a store made before has no such row and
** is layout 0 (a power of two).  A scalable store's new layer takes the
** layout of the layer before it, so a store never mixes layouts and one
** made before stays readable by the version that made it.
*/
#include <string.h>

#include "core/cuckoo.h"
#include "store/store.h"

#define SLOTS CUCKOO_SLOTS_PER_BUCKET

/* Beyond this a body's size in bits would not fit 64 bits; no database
** holds a store near it. */
#define MAX_BUCKETS ((sqlite3_int64)1 << 56)

enum { KEY_BUCKETS, KEY_FINGERPRINT_BITS, KEY_CHUNK_BUCKETS, KEY_LAYOUT };

/* The even number of buckets whose bytes (C * f / 2) fit a page of
** `page_size` with the room bloom_store leaves (see blocks_per_page). */
static uint32_t buckets_per_page(int page_size, unsigned f) {
  int fit = 2 * ((page_size - 72) / (int)f);
  return fit < 2 ? 2 : (uint32_t)fit;
}

static int cuckoo_kind_size_filter(store *s, int fills, uint64_t *capacity, double fpr,
                       int page_size, sqlite3_int64 values[]) {
  /* A fixed store sizes as cuckoo_build, without a blob length limit.  A
  ** layer that fills takes items until an insert is refused (add), past
  ** the load its capacity gives: its fingerprints are sized for a full
  ** table, so that its rate stays within fpr however full it gets, and its
  ** capacity is what its buckets are sized to hold. */
  cuckoo_sizing sizing;
  /* A new store's layout is 1; a new layer keeps its store's layout. */
  unsigned layout = s->config.layer_count > 0
                        ? store_newest(s)->header.cuckoo_layout
                        : CUCKOO_LAYOUT_SUB;
  cuckoo_sizing_status st =
      fills ? cuckoo_sizing_filled_for(*capacity, fpr, FILTER_MIN_FPR,
                                       UINT64_MAX, layout, &sizing)
            : cuckoo_sizing_for(*capacity, fpr, FILTER_MIN_FPR, UINT64_MAX,
                                &sizing);
  if (st != CUCKOO_SIZING_OK || sizing.buckets > (uint64_t)MAX_BUCKETS)
    return store_error(s, "no filter holds capacity = %llu at fpr = %g",
                       (unsigned long long)*capacity, fpr);
  *capacity = sizing.capacity;
  values[KEY_BUCKETS] = (sqlite3_int64)sizing.buckets;
  values[KEY_FINGERPRINT_BITS] = sizing.fingerprint_bits;
  values[KEY_CHUNK_BUCKETS] =
      buckets_per_page(page_size, sizing.fingerprint_bits);
  values[KEY_LAYOUT] = sizing.layout; /* 0: no row, as before */
  return SQLITE_OK;
}

static int cuckoo_kind_configure(store_layer *l, const sqlite3_int64 v[]) {
  sqlite3_int64 buckets = v[KEY_BUCKETS], f = v[KEY_FINGERPRINT_BITS],
                chunk = v[KEY_CHUNK_BUCKETS], layout = v[KEY_LAYOUT];
  /* layout 0: a power of two of buckets; layout 1: an even number */
  if (buckets < 1 || buckets > MAX_BUCKETS ||
      (layout != CUCKOO_LAYOUT_XOR && layout != CUCKOO_LAYOUT_SUB) ||
      (layout == CUCKOO_LAYOUT_XOR && (buckets & (buckets - 1)) != 0) ||
      (layout == CUCKOO_LAYOUT_SUB && buckets % 2 != 0) ||
      f < CUCKOO_MIN_FINGERPRINT_BITS ||
      f > CUCKOO_MAX_FINGERPRINT_BITS || chunk < 2 || chunk % 2 != 0 ||
      chunk > STORE_MAX_CHUNK_UNITS)
    return SQLITE_CORRUPT_VTAB;
  l->header.buckets = (uint64_t)buckets;
  l->header.fingerprint_bits = (unsigned)f;
  l->header.slots_per_bucket = SLOTS;
  l->header.cuckoo_layout = (unsigned)layout;
  l->units = (uint64_t)buckets;
  l->chunk_units = (uint32_t)chunk;
  return SQLITE_OK;
}

static uint64_t unit_bits(const store_layer *l) {
  return SLOTS * (uint64_t)l->header.fingerprint_bits;
}

static uint64_t chunk_items(const store_layer *l, int64_t local,
                            const unsigned char *bytes) {
  if (bytes == NULL) return 0;
  uint64_t n = 0, slots = (uint64_t)chunk_units(l, local) * SLOTS;
  for (uint64_t j = 0; j < slots; j++)
    n += cuckoo_slot_get(bytes, j, l->header.fingerprint_bits) != 0;
  return n;
}

/* The buckets of one layer's chunks as the core's cuckoo_buckets: each
** bucket located through the cache, loaded for the change; a failure's
** code kept for the caller. */
typedef struct layer_buckets {
  store *s;
  const store_layer *l;
  int rc;
} layer_buckets;

static unsigned char *locate(void *ctx, uint64_t bucket, int for_write,
                             uint64_t *first_slot) {
  layer_buckets *t = ctx;
  unsigned char *bytes;
  int64_t local = (int64_t)(bucket / t->l->chunk_units);
  int rc = chunk_load(t->s, t->l, local, for_write, &bytes);
  if (rc != SQLITE_OK) {
    t->rc = rc; /* kept: the core's undo may locate again, and succeed */
    return NULL;
  }
  *first_slot = bucket % t->l->chunk_units * SLOTS;
  return bytes;
}

static cuckoo_buckets buckets_of(layer_buckets *t) {
  cuckoo_buckets bk = {locate, t, cuckoo_shape_of(&t->l->header)};
  return bk;
}

/* 1 in *found if bucket b of the layer holds the fingerprint. */
static int bucket_holds(store *s, const store_layer *l, uint64_t b,
                        uint64_t fingerprint, int *found) {
  chunk_ref c;
  int rc = chunk_read(s, l, (int64_t)(b / l->chunk_units), &c);
  *found = 0;
  if (rc != SQLITE_OK || c.bytes == NULL) return rc; /* no row yet: empty */
  uint64_t first = b % l->chunk_units * SLOTS;
  for (uint64_t j = first; j < first + SLOTS && !*found; j++)
    *found = cuckoo_slot_get(c.bytes, j, l->header.fingerprint_bits) ==
             fingerprint;
  chunk_done(&c);
  return SQLITE_OK;
}

/* A probe reads its one or two buckets without keeping their chunks. */
static int cuckoo_kind_contains(store *s, const store_layer *l, filter_hash h,
                    int *maybe) {
  cuckoo_shape shape = cuckoo_shape_of(&l->header);
  cuckoo_key k = cuckoo_key_of(h, shape);
  uint64_t alt = cuckoo_alt_bucket(k.bucket, k.fingerprint, shape);
  int rc = bucket_holds(s, l, k.bucket, k.fingerprint, maybe);
  if (rc == SQLITE_OK && !*maybe && alt != k.bucket)
    rc = bucket_holds(s, l, alt, k.fingerprint, maybe);
  return rc;
}

static int cuckoo_kind_add(store *s, const store_layer *l, filter_hash h, int *full) {
  layer_buckets t = {s, l, SQLITE_OK};
  cuckoo_buckets bk = buckets_of(&t);
  cuckoo_status st = cuckoo_buckets_insert(&bk, h);
  *full = 0;
  if (st == CUCKOO_OK) return SQLITE_OK;
  if (st == CUCKOO_UNREACHABLE) return t.rc;
  if (st == CUCKOO_FULL && s->config.schedule->fills) {
    *full = 1;
    return SQLITE_OK;
  }
  char why[200];
  cuckoo_insert_failure(st, l->header.buckets, UINT64_MAX, why, sizeof why);
  if (st == CUCKOO_FULL)
    return store_error(s, "%s; recreate the store with a larger capacity",
                       why);
  return store_error(s, "%s", why);
}

static int remove_one(store *s, const store_layer *l, filter_hash h,
                      int *removed) {
  layer_buckets t = {s, l, SQLITE_OK};
  cuckoo_buckets bk = buckets_of(&t);
  int n = cuckoo_buckets_remove(&bk, h);
  *removed = n > 0;
  return n < 0 ? t.rc : SQLITE_OK;
}

/* Copies a filter of the same shape into the empty fixed store.  Every
** chunk is read (and found empty) before any is changed. */
static int load(store *s, const filter_view *f) {
  const store_layer *l = &s->config.layers[0];
  const filter_header *a = &l->header, *b = &f->header;
  if (a->buckets != b->buckets || a->fingerprint_bits != b->fingerprint_bits ||
      a->cuckoo_layout != b->cuckoo_layout || a->seed != b->seed)
    return store_error(s, "the filter has %llu buckets of %u-bit "
                       "fingerprints (layout %u, seed %u), the store %llu of "
                       "%u-bit (layout %u, seed %u): only a filter of the "
                       "same shape loads",
                       (unsigned long long)b->buckets, b->fingerprint_bits,
                       b->cuckoo_layout, b->seed,
                       (unsigned long long)a->buckets, a->fingerprint_bits,
                       a->cuckoo_layout, a->seed);
  uint64_t items = 0;
  int rc = chunks_load_all(s, l);
  if (rc == SQLITE_OK) rc = chunks_layer_items(s, l, &items);
  if (rc != SQLITE_OK) return rc;
  if (items > 0)
    return store_error(s, "the store holds %llu item%s: a filter loads only "
                       "into an empty store", (unsigned long long)items,
                       items == 1 ? "" : "s");
  for (int64_t id = 0; rc == SQLITE_OK && id < l->chunks; id++) {
    unsigned char *c;
    rc = chunk_load(s, l, id, 1, &c);
    if (rc != SQLITE_OK) break;
    uint64_t at = (uint64_t)id * l->chunk_units;
    memcpy(c, f->body + chunk_unit_bytes(s, l, at),
           (size_t)chunk_unit_bytes(s, l, chunk_units(l, id)));
  }
  return rc;
}

static double cuckoo_kind_model_fpr(const store_layer *l, double items) {
  return cuckoo_model_fpr(items / (4.0 * (double)l->units),
                          l->header.fingerprint_bits, l->header.buckets);
}

const store_kind store_cuckoo_kind = {
    .kind = FILTER_KIND_CUCKOO,
    .keys = {"buckets", "fingerprint_bits", "chunk_buckets", "layout", NULL},
    .optional_keys = 1u << KEY_LAYOUT,
    .counter_bytes = 0,
    .no_delete = NULL,
    .no_update = "an item cannot be changed: delete it and insert the new "
                 "value",
    .load_verb = "load",
    .skips_present = 0,
    /* the shape */
    .size = cuckoo_kind_size_filter, .configure = cuckoo_kind_configure,
    .unit_bits = unit_bits, .chunk_items = chunk_items,
    .model_fpr = cuckoo_kind_model_fpr,
    /* the items */
    .add = cuckoo_kind_add, .contains = cuckoo_kind_contains,
    .remove = remove_one, .load = load,
};
