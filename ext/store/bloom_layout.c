/*
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** bloom_store's layout (layout.h): the filter's 512-bit blocks cut into
** chunks of as many blocks as fit one database page, each chunk row
** followed by an 8-byte counter of the values added into its blocks, so an
** insert changes one row and one page (ext/FORMAT.md, "Stores").  The
** export is byte for byte what bloom_build(value, capacity, fpr) gives over
** the same values in any order, its `inserted` counter (the counters' sum)
** included.  INSERT INTO t(filter) merges a filter of the same shape.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bloom.h"
#include "core/bytes.h"
#include "store/layout.h"

/* Each chunk row ends with an 8-byte little-endian counter. */
#define COUNTER_BYTES 8

enum { KEY_BITS, KEY_HASHES, KEY_CHUNK_BLOCKS };

/* The blocks of one chunk row that fit a page of `page_size` bytes with
** room to spare: SQLite keeps a row on its page when its record is at most
** page - 35 bytes; 72 leaves that plus the record's header, the counter and
** reserved bytes at the end of a page. */
static uint32_t blocks_per_page(int page_size) {
  int fit = (page_size - 72) / BLOOM_BLOCK_BYTES;
  return fit < 1 ? 1 : (uint32_t)fit;
}

static int size_filter(store *s, uint64_t *capacity, double fpr,
                       int page_size, sqlite3_int64 values[]) {
  /* No blob length limit: a store's size is bounded by the database.  A
  ** layer is full at its capacity (layer_full), so it keeps it. */
  bloom_sizing sizing;
  if (bloom_sizing_for(*capacity, fpr, UINT64_MAX / 2, &sizing) !=
      BLOOM_SIZING_OK)
    return store_error(s, "no filter holds capacity = %llu at fpr = %g",
                       (unsigned long long)*capacity, fpr);
  values[KEY_BITS] = (sqlite3_int64)sizing.bits;
  values[KEY_HASHES] = sizing.hashes;
  values[KEY_CHUNK_BLOCKS] = blocks_per_page(page_size);
  return SQLITE_OK;
}

static int configure(store_layer *l, const sqlite3_int64 v[]) {
  sqlite3_int64 bits = v[KEY_BITS], hashes = v[KEY_HASHES],
                chunk_blocks = v[KEY_CHUNK_BLOCKS];
  if (bits <= 0 || bits % BLOOM_BLOCK_BITS != 0 || hashes < 1 ||
      hashes > BLOOM_MAX_HASHES || chunk_blocks < 1 || chunk_blocks > 1 << 20)
    return -1;
  l->header.bits = (uint64_t)bits;
  l->header.hashes = (uint32_t)hashes;
  l->units = (uint64_t)bits / BLOOM_BLOCK_BITS;
  l->chunk_units = (uint32_t)chunk_blocks;
  return 0;
}

static uint64_t unit_bytes(const store_layer *l, uint64_t blocks) {
  (void)l;
  return blocks * BLOOM_BLOCK_BYTES;
}

/* The counter follows the chunk's blocks. */
static size_t counter_offset(const store_layer *l, int64_t local) {
  return (size_t)store_units_in_chunk(l, local) * BLOOM_BLOCK_BYTES;
}

static uint64_t chunk_counter(const store_layer *l, int64_t local,
                              const unsigned char *bytes) {
  return bytes ? load_le64(bytes + counter_offset(l, local)) : 0;
}

static void set_chunk_counter(const store_layer *l, int64_t local,
                              unsigned char *bytes, uint64_t count) {
  store_le64(bytes + counter_offset(l, local), count);
}

/* Where the block of hash h is: its chunk, read (store_get_chunk's
** `load`), and the block's place in it. */
typedef struct block_place {
  int64_t chunk;
  size_t offset;               /* of the block in the chunk */
  const unsigned char *bytes;  /* the chunk; NULL: no row yet, all zeros */
  cached_chunk *cached;        /* the cache's copy, when there is one */
  sqlite3_stmt *held;          /* else the row read, until shadow_done */
} block_place;

static int find_block(store *s, const store_layer *l, filter_hash h, int load,
                      block_place *p) {
  uint64_t block = bloom_block_of(h, l->units);
  p->chunk = (int64_t)(block / l->chunk_units);
  p->offset = (size_t)(block % l->chunk_units) * BLOOM_BLOCK_BYTES;
  return store_get_chunk(s, l, p->chunk, load, &p->bytes, &p->cached,
                         &p->held);
}

static int contains(store *s, const store_layer *l, filter_hash h) {
  block_place p;
  int rc = find_block(s, l, h, 0, &p);
  if (rc != SQLITE_OK) return -rc;
  int maybe = p.bytes != NULL &&
              bloom_contains(p.bytes + p.offset, 1, l->header.hashes, h);
  if (p.held) shadow_done(p.held);
  return maybe;
}

/* A probe of every layer, the newest (most items) first: the value's bits
** are made once for each distinct k among the layers, and each layer's
** block is tested with eight ANDs (callgrind, 10 layers: about 1,000
** instructions a probe in bloom_contains alone when each layer made its
** own). */
static int contains_any(store *s, filter_hash h) {
  unsigned n = (unsigned)s->layer_count;
  int same = s->probe_widths.layers == n;
  for (unsigned i = 0; same && i < n; i++)
    same = s->probe_widths.width[i] == s->layers[i].header.hashes;
  if (!same) {
    for (unsigned i = 0; i < n; i++)
      s->probe_widths.width[i] = s->layers[i].header.hashes;
    s->probe_widths.widths =
        bloom_width_ladder(s->probe_widths.width, n, s->probe_widths.distinct,
                           s->probe_widths.rank);
    s->probe_widths.layers = n;
  }
  bloom_mask mask[STORE_MAX_LAYERS];
  bloom_masks_of(h, s->probe_widths.distinct, s->probe_widths.widths, mask);
  for (unsigned i = n; i-- > 0;) {
    block_place p;
    int rc = find_block(s, &s->layers[i], h, 0, &p);
    if (rc != SQLITE_OK) return -rc;
    int maybe = p.bytes != NULL &&
                bloom_block_holds(p.bytes + p.offset,
                                  &mask[s->probe_widths.rank[i]]);
    if (p.held) shadow_done(p.held);
    if (maybe) return 1;
  }
  return 0;
}

/* Chunks read to estimate how full a layer is. */
#define FILL_SAMPLE 16

/* Items in the layer, estimated from FILL_SAMPLE chunks spread over it (all
** of them in a small layer: exact) and raised by three standard errors,
** so that a layer is never judged emptier than it is: a chunk's counter
** is the items whose block it holds, and a block is uniform in the hash.
** SQLITE_OK or an error code. */
static int estimate_items(store *s, const store_layer *l, double *items) {
  int64_t sample = l->chunks < FILL_SAMPLE ? l->chunks : FILL_SAMPLE;
  double counted = 0, units = 0;
  for (int64_t j = 0; j < sample; j++) {
    int64_t local = j * l->chunks / sample;
    const unsigned char *bytes;
    cached_chunk *cached;
    sqlite3_stmt *held;
    int rc = store_get_chunk(s, l, local, 0, &bytes, &cached, &held);
    if (rc != SQLITE_OK) return rc;
    counted += (double)chunk_counter(l, local, bytes);
    units += store_units_in_chunk(l, local);
    if (held) shadow_done(held);
  }
  double rel_error = sample == l->chunks || counted < 1 ? 0 : 1 / sqrt(counted);
  *items = counted * (double)l->units / units * (1 + 3 * rel_error);
  return SQLITE_OK;
}

/* A layer of a scalable store is full when it holds its capacity.  No row
** counts a layer's items (a counter changed by every insert would double
** the pages an insert writes), so the chunks' counters decide.
**
** A layer of at most FILL_SAMPLE chunks sums them all once (exact), and
** counts its own adds from there while the cache holds what it read (any
** other connection's change, or a rollback, empties the cache).
**
** In a larger one, a chunk holding less than its share of the capacity by
** three standard deviations of a chunk's count says the layer is not full
** (once the layer is full, a chunk is that far below its share about once
** in 700); past that, an estimate from a sample of chunks decides, three
** standard errors on the safe side.
**
** 1 full, 0 not, or a negated error code. */
static int layer_full(store *s, const store_layer *l, int64_t local,
                      uint64_t count) {
  double capacity = (double)l->header.capacity;
  if (l->chunks <= FILL_SAMPLE) {
    int layer = (int)(l - s->layers);
    if (s->small_layer.layer != layer ||
        s->small_layer.clears != s->cache.clears) {
      int rc = estimate_items(s, l, &s->small_layer.items);
      if (rc != SQLITE_OK) return -rc;
      s->small_layer.layer = layer;
      s->small_layer.clears = s->cache.clears;
    }
    return s->small_layer.items + 1 > capacity;
  }
  double share =
      capacity * (double)store_units_in_chunk(l, local) / (double)l->units;
  if ((double)count + 1 + 3 * sqrt(share) <= share) return 0;
  double items;
  int rc = estimate_items(s, l, &items);
  if (rc != SQLITE_OK) return -rc;
  return items + 1 > capacity;
}

/* --- adds deferred past the cache's budget ------------------------------
** A bulk insert of random values into a store (or layer) larger than the chunk
** cache's budget would read and write a chunk per value once the cache is
** full.  Instead an add to a chunk the cache does not hold keeps only its
** hash; a batch is applied sorted by chunk, so each chunk it touches is
** read and written once.  Applied before any read of the store, at every
** flush (xSync, a savepoint), and when the batch is full; dropped, like the
** cache, by a rollback. */

/* Adds held: as much memory as the cache's budget. */
#define DEFERRED_MAX (STORE_CACHE_BUDGET_BYTES / sizeof(deferred_add))

static int by_block(const void *a, const void *b) {
  uint64_t x = ((const deferred_add *)a)->block,
           y = ((const deferred_add *)b)->block;
  return (x > y) - (x < y);
}

/* Applies the deferred adds of chunk `local` (the run adds[0..n)): into the
** cache's copy if it holds one, else into a copy of the row (zeros for a
** row not written yet) in scratch, written back. */
static int apply_run(store *s, const store_layer *l, int64_t local,
                     const deferred_add *adds, size_t n,
                     unsigned char *scratch) {
  const unsigned char *bytes;
  cached_chunk *cached;
  sqlite3_stmt *held;
  int rc = store_get_chunk(s, l, local, 0, &bytes, &cached, &held);
  if (rc != SQLITE_OK) return rc;
  unsigned char *chunk = cached ? cached->bytes : scratch;
  if (!cached) {
    size_t size = (size_t)store_chunk_bytes(s, l, local);
    if (bytes)
      memcpy(scratch, bytes, size);
    else
      memset(scratch, 0, size);
    if (held) shadow_done(held);
  }
  for (size_t i = 0; i < n; i++)
    bloom_insert(chunk + (size_t)(adds[i].block % l->chunk_units) *
                             BLOOM_BLOCK_BYTES,
                 1, l->header.hashes, adds[i].hash);
  set_chunk_counter(l, local, chunk,
                    saturating_add(chunk_counter(l, local, chunk), n));
  if (!cached) return store_write_chunk(s, l, local, chunk);
  cache_mark_dirty(&s->cache, cached);
  return SQLITE_OK;
}

/* Applies every deferred add; on a failure, the adds not applied stay. */
static int settle(store *s) {
  const store_layer *l = &s->layers[s->deferred_layer];
  deferred_add *d = s->deferred;
  size_t n = s->deferred_count, done = 0;
  qsort(d, n, sizeof *d, by_block);
  unsigned char *scratch =
      sqlite3_malloc64((sqlite3_uint64)store_chunk_bytes(s, l, 0));
  int rc = scratch ? SQLITE_OK : SQLITE_NOMEM;
  while (rc == SQLITE_OK && done < n) {
    int64_t local = (int64_t)(d[done].block / l->chunk_units);
    size_t end = done + 1;
    while (end < n && (int64_t)(d[end].block / l->chunk_units) == local) end++;
    rc = apply_run(s, l, local, d + done, end - done, scratch);
    if (rc == SQLITE_OK) done = end;
  }
  sqlite3_free(scratch);
  if (done < n) memmove(d, d + done, (n - done) * sizeof *d);
  s->deferred_count = n - done;
  return rc;
}

static int defer(store *s, const store_layer *l, uint64_t block,
                 filter_hash h) {
  if (s->deferred_count == DEFERRED_MAX) {
    int rc = settle(s);
    if (rc != SQLITE_OK) return rc;
  }
  s->deferred_layer = (int)(l - s->layers);
  s->small_layer.layer = -1; /* its count no longer follows the chunks */
  if (s->deferred_count == s->deferred_room) {
    size_t room = s->deferred_room ? 2 * s->deferred_room : 1024;
    if (room > DEFERRED_MAX) room = DEFERRED_MAX;
    deferred_add *d = sqlite3_realloc64(s->deferred,
                                        (sqlite3_uint64)room * sizeof *d);
    if (d == NULL) return SQLITE_NOMEM;
    s->deferred = d;
    s->deferred_room = room;
  }
  deferred_add *add = &s->deferred[s->deferred_count++];
  add->block = block;
  add->hash = h;
  return SQLITE_OK;
}

/* Whether a scalable store's newest layer is full while adds to it are
** deferred: the chunks' counters lack those, so the layer's items are the
** estimate made when the first was deferred plus every add since.  1
** full, 0 not, or a negated error code. */
static int full_while_deferring(store *s, const store_layer *l) {
  if (s->deferred_count == 0) {
    int rc = estimate_items(s, l, &s->deferred_base);
    if (rc != SQLITE_OK) return -rc;
    s->deferred_adds = 0;
  }
  return s->deferred_base + (double)s->deferred_adds + 1 >
         (double)l->header.capacity;
}

static int add(store *s, const store_layer *l, filter_hash h) {
  /* Past the cache's budget a chunk the cache does not hold is not read
  ** now: the add waits with the others. */
  uint64_t block = bloom_block_of(h, l->units);
  int held = cache_find(&s->cache, l->first_chunk +
                                       (int64_t)(block / l->chunk_units)) != NULL;
  int deferring = s->deferred_count > 0 ||
                  (!held && store_cache_full(s, (size_t)store_chunk_bytes(s, l, 0)));
  if (deferring && s->scalable) {
    int full = full_while_deferring(s, l);
    if (full < 0) return -full;
    if (full) return STORE_LAYER_FULL;
    s->deferred_adds++;
  }
  if (deferring && !held) return defer(s, l, block, h);
  block_place p;
  int rc = find_block(s, l, h, 1, &p);
  if (rc != SQLITE_OK) return rc;
  unsigned char *chunk = p.cached->bytes; /* loaded: the cache's copy */
  uint64_t count = chunk_counter(l, p.chunk, chunk);
  if (s->scalable && !deferring) {
    int full = layer_full(s, l, p.chunk, count);
    if (full < 0) return -full;
    if (full) return STORE_LAYER_FULL;
    /* Reading the sample may have moved the cache's slots. */
    p.cached = cache_find(&s->cache, l->first_chunk + p.chunk);
    if (p.cached == NULL) return SQLITE_INTERNAL;
    chunk = p.cached->bytes;
  }
  bloom_insert(chunk + p.offset, 1, l->header.hashes, h);
  set_chunk_counter(l, p.chunk, chunk, saturating_add(count, 1));
  cache_mark_dirty(&s->cache, p.cached);
  if (s->small_layer.layer == (int)(l - s->layers)) s->small_layer.items += 1;
  return SQLITE_OK;
}

/* ORs a Bloom filter of the same shape into every chunk of a fixed store.
** Every chunk is read before any is changed, so a failure changes
** nothing. */
static int merge(store *s, const filter_view *f) {
  const store_layer *l = &s->layers[0];
  char why[160];
  if (bloom_shape_check(&l->header, &f->header, why, sizeof why) != 0)
    return store_error(s, "%s", why);
  int rc = store_load_all(s, l);
  if (rc != SQLITE_OK) return rc;
  for (int64_t id = 0; id < l->chunks; id++) {
    cached_chunk *c = cache_find(&s->cache, l->first_chunk + id);
    size_t n = (size_t)store_units_in_chunk(l, id) * BLOOM_BLOCK_BYTES;
    bloom_or(c->bytes, f->body + (size_t)id * l->chunk_units * BLOOM_BLOCK_BYTES,
             n);
    if (id == 0)
      set_chunk_counter(l, 0, c->bytes,
                        saturating_add(chunk_counter(l, 0, c->bytes),
                                       f->header.count));
    cache_mark_dirty(&s->cache, c);
  }
  return SQLITE_OK;
}

const store_layout store_bloom_layout = {
    .kind = FILTER_KIND_BLOOM,
    .keys = {"bits", "hashes", "chunk_blocks", NULL},
    .counter_bytes = COUNTER_BYTES,
    .no_delete = "a Bloom filter cannot forget a value (cuckoo filters can "
                 "delete)",
    .no_update = "an item cannot be changed, only added",
    .load_verb = "merge",
    /* the shape */
    .size = size_filter, .configure = configure, .unit_bytes = unit_bytes,
    .chunk_items = chunk_counter,
    /* the items */
    .add = add, .contains = contains, .contains_any = contains_any,
    .remove = NULL, .settle = settle,
    .load = merge,
};
