/*
** cuckoo_store's layout (layout.h): the filter's buckets cut into chunks of
** C buckets, C even so that a chunk is whole bytes (C * 4 * f bits), the
** largest that fits one database page; no counter: the items are the
** occupied slots, counted when the filter is exported (ext/FORMAT.md,
** "Stores").  Inserts and deletes run the core's algorithm over the chunks
** (cuckoo_buckets), so relocations cross chunk rows and a failed insert is
** undone in all of them; an insert that lands in its first bucket changes
** one chunk.  The export has the header cuckoo_build(value, capacity, fpr)
** would have and answers cuckoo_test exactly as the store does.
** INSERT INTO t(filter) loads a filter of the same shape into an empty
** store.
*/
#include <string.h>

#include "core/cuckoo.h"
#include "store/layout.h"

#define SLOTS CUCKOO_SLOTS_PER_BUCKET

/* Beyond this a body's size in bits would not fit 64 bits; no database
** holds a store near it. */
#define MAX_BUCKETS ((sqlite3_int64)1 << 56)

enum { KEY_BUCKETS, KEY_FINGERPRINT_BITS, KEY_CHUNK_BUCKETS };

/* The even number of buckets whose bytes (C * f / 2) fit a page of
** `page_size` with the room bloom_store leaves (see blocks_per_page). */
static uint32_t buckets_per_page(int page_size, unsigned f) {
  int fit = 2 * ((page_size - 72) / (int)f);
  return fit < 2 ? 2 : (uint32_t)fit;
}

static int size_filter(store *s, uint64_t *capacity, double fpr,
                       int page_size, sqlite3_int64 values[]) {
  /* A fixed store sizes as cuckoo_build, without a blob length limit.  A
  ** scalable store's layer takes items until an insert is refused (add),
  ** past the load its capacity gives: its fingerprints are sized for a
  ** full table, so that its rate stays within fpr however full it gets,
  ** and its capacity is what its buckets are sized to hold. */
  cuckoo_sizing sizing;
  cuckoo_sizing_status st =
      s->scalable ? cuckoo_sizing_filled_for(*capacity, fpr, FILTER_MIN_FPR,
                                             UINT64_MAX, &sizing)
                  : cuckoo_sizing_for(*capacity, fpr, FILTER_MIN_FPR,
                                      UINT64_MAX, &sizing);
  if (st != CUCKOO_SIZING_OK || sizing.buckets > (uint64_t)MAX_BUCKETS)
    return store_error(s, "no filter holds capacity = %llu at fpr = %g",
                       (unsigned long long)*capacity, fpr);
  *capacity = sizing.capacity;
  values[KEY_BUCKETS] = (sqlite3_int64)sizing.buckets;
  values[KEY_FINGERPRINT_BITS] = sizing.fingerprint_bits;
  values[KEY_CHUNK_BUCKETS] =
      buckets_per_page(page_size, sizing.fingerprint_bits);
  return SQLITE_OK;
}

static int configure(store_layer *l, const sqlite3_int64 v[]) {
  sqlite3_int64 buckets = v[KEY_BUCKETS], f = v[KEY_FINGERPRINT_BITS],
                chunk = v[KEY_CHUNK_BUCKETS];
  if (buckets < 1 || buckets > MAX_BUCKETS ||
      (buckets & (buckets - 1)) != 0 || f < CUCKOO_MIN_FINGERPRINT_BITS ||
      f > CUCKOO_MAX_FINGERPRINT_BITS || chunk < 2 || chunk % 2 != 0 ||
      chunk > 1 << 20)
    return -1;
  l->header.buckets = (uint64_t)buckets;
  l->header.fingerprint_bits = (unsigned)f;
  l->header.slots_per_bucket = SLOTS;
  l->units = (uint64_t)buckets;
  l->chunk_units = (uint32_t)chunk;
  return 0;
}

static uint64_t unit_bytes(const store_layer *l, uint64_t buckets) {
  return buckets ? cuckoo_body_bytes(buckets, l->header.fingerprint_bits) : 0;
}

static uint64_t chunk_items(const store_layer *l, int64_t local,
                            const unsigned char *bytes) {
  if (bytes == NULL) return 0;
  uint64_t n = 0, slots = (uint64_t)store_units_in_chunk(l, local) * SLOTS;
  for (uint64_t j = 0; j < slots; j++)
    n += cuckoo_slot_get(bytes, j, l->header.fingerprint_bits) != 0;
  return n;
}

/* The chunks of one layer as a cuckoo_buckets: each bucket located through
** the cache, loaded for the change; a failure's code kept for the
** caller. */
typedef struct chunk_table {
  store *s;
  const store_layer *l;
  int rc;
} chunk_table;

static unsigned char *locate(void *ctx, uint64_t bucket, int for_write,
                             uint64_t *first_slot) {
  chunk_table *t = ctx;
  store *s = t->s;
  const unsigned char *bytes;
  cached_chunk *cached;
  sqlite3_stmt *held;
  int64_t id = (int64_t)(bucket / t->l->chunk_units);
  int rc = store_get_chunk(s, t->l, id, 1, &bytes, &cached, &held);
  if (rc != SQLITE_OK) {
    t->rc = rc;
    return NULL;
  }
  if (for_write) cache_mark_dirty(&s->cache, cached);
  *first_slot = bucket % t->l->chunk_units * SLOTS;
  return cached->bytes; /* loaded: the cache's own copy */
}

static cuckoo_buckets table_of(chunk_table *t) {
  cuckoo_buckets table = {locate, t, t->l->header.buckets,
                        t->l->header.fingerprint_bits};
  return table;
}

/* A probe reads its one or two buckets without keeping their chunks. */
static int contains(store *s, const store_layer *l, filter_hash h) {
  unsigned f = l->header.fingerprint_bits;
  cuckoo_key k = cuckoo_key_of(h, l->header.buckets, f);
  uint64_t b[2] = {k.bucket,
                   cuckoo_alt_bucket(k.bucket, k.fingerprint, l->header.buckets)};
  for (int i = 0; i < (b[1] != b[0] ? 2 : 1); i++) {
    const unsigned char *bytes;
    cached_chunk *cached;
    sqlite3_stmt *held;
    int rc = store_get_chunk(s, l, (int64_t)(b[i] / l->chunk_units), 0, &bytes,
                             &cached, &held);
    if (rc != SQLITE_OK) return -rc;
    if (bytes == NULL) continue; /* no row yet: empty */
    uint64_t first = b[i] % l->chunk_units * SLOTS;
    int found = 0;
    for (uint64_t j = first; j < first + SLOTS && !found; j++)
      found = cuckoo_slot_get(bytes, j, f) == k.fingerprint;
    if (held) shadow_done(held);
    if (found) return 1;
  }
  return 0;
}

static int add(store *s, const store_layer *l, filter_hash h) {
  chunk_table t = {s, l, SQLITE_OK};
  cuckoo_buckets table = table_of(&t);
  cuckoo_status st = cuckoo_buckets_insert(&table, h);
  if (st == CUCKOO_OK) return SQLITE_OK;
  if (st == CUCKOO_UNREACHABLE) return t.rc;
  if (st == CUCKOO_FULL && s->scalable) return STORE_LAYER_FULL;
  char why[200];
  cuckoo_insert_failure(st, l->header.buckets, UINT64_MAX, why, sizeof why);
  if (st == CUCKOO_FULL)
    return store_error(s, "%s; recreate the store with a larger capacity",
                       why);
  return store_error(s, "%s", why);
}

static int remove_one(store *s, const store_layer *l, filter_hash h) {
  chunk_table t = {s, l, SQLITE_OK};
  cuckoo_buckets table = table_of(&t);
  int removed = cuckoo_buckets_remove(&table, h);
  return removed < 0 ? -t.rc : removed > 0;
}

/* Copies a filter of the same shape into the empty fixed store.  Every
** chunk is read (and found empty) before any is changed. */
static int load(store *s, const filter_view *f) {
  const store_layer *l = &s->layers[0];
  const filter_header *a = &l->header, *b = &f->header;
  if (a->buckets != b->buckets || a->fingerprint_bits != b->fingerprint_bits ||
      a->seed != b->seed)
    return store_error(s, "the filter has %llu buckets of %u-bit "
                       "fingerprints (seed %u), the store %llu of %u-bit "
                       "(seed %u): only a filter of the same shape loads",
                       (unsigned long long)b->buckets, b->fingerprint_bits,
                       b->seed, (unsigned long long)a->buckets,
                       a->fingerprint_bits, a->seed);
  int rc = store_load_all(s, l);
  if (rc != SQLITE_OK) return rc;
  uint64_t items = 0;
  for (int64_t id = 0; id < l->chunks; id++)
    items += chunk_items(l, id, cache_find(&s->cache, l->first_chunk + id)->bytes);
  if (items > 0)
    return store_error(s, "the store holds %llu item%s: a filter loads only "
                       "into an empty store", (unsigned long long)items,
                       items == 1 ? "" : "s");
  for (int64_t id = 0; id < l->chunks; id++) {
    cached_chunk *c = cache_find(&s->cache, l->first_chunk + id);
    memcpy(c->bytes, f->body + unit_bytes(l, (uint64_t)id * l->chunk_units),
           (size_t)unit_bytes(l, store_units_in_chunk(l, id)));
    cache_mark_dirty(&s->cache, c);
  }
  return SQLITE_OK;
}

const store_layout store_cuckoo_layout = {
    .kind = FILTER_KIND_CUCKOO,
    .keys = {"buckets", "fingerprint_bits", "chunk_buckets", NULL},
    .counter_bytes = 0,
    .no_delete = NULL,
    .no_update = "an item cannot be changed: delete it and insert the new "
                 "value",
    .load_verb = "load",
    /* the shape */
    .size = size_filter, .configure = configure, .unit_bytes = unit_bytes,
    .chunk_items = chunk_items,
    /* the items */
    .add = add, .contains = contains, .remove = remove_one, .load = load,
};
