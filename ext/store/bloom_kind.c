/*
** bloom_store's kind (store.h, store_kind): the filter's 512-bit blocks cut
** into chunks of as many blocks as fit one database page, each chunk row
** followed by an 8-byte counter of the values added into its blocks, so an
** insert changes one row and one page (ext/FORMAT.md, "Stores").  The
** export is byte for byte what bloom_build(value, capacity, fpr) gives over
** the same values in any order, its `inserted` counter (the counters' sum)
** included.  INSERT INTO t(filter) merges a filter of the same shape.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bloom.h"
#include "core/bytes.h"
#include "store/store.h"

/* Each chunk row ends with an 8-byte little-endian counter. */
#define COUNTER_BYTES 8

enum { KEY_BITS, KEY_HASHES, KEY_CHUNK_BLOCKS };

/* An add a store has not applied yet: its block and hash. */
typedef struct deferred_add {
  uint64_t block;
  filter_hash hash;
} deferred_add;

/* What a Bloom store keeps between calls (s->kind_state). */
typedef struct bloom_state {
  /* Adds not yet applied: past the cache's budget, the hashes of adds to
  ** chunks the cache does not hold, applied in chunk order so that each
  ** chunk is read and written once per batch (settle).  All are adds to
  ** layer deferred_layer; while there are any, a scalable store counts its
  ** newest layer's items as an estimate made when the first was deferred
  ** (deferred_base) plus the adds since (deferred_adds). */
  deferred_add *deferred;
  size_t deferred_count, deferred_room;
  int deferred_layer;
  double deferred_base;
  uint64_t deferred_adds;
  /* The layers' k as bloom_masks_of takes them, for the `layers` first
  ** layers with these k; made again when they differ. */
  struct {
    unsigned layers, widths;
    unsigned width[STORE_MAX_LAYERS], distinct[STORE_MAX_LAYERS];
    unsigned char rank[STORE_MAX_LAYERS];
  } probe_widths;
  /* The items of the layer being filled, summed exactly from its chunks
  ** once it may be full and counted on from there while the cache keeps
  ** what was summed (cache.clears unchanged): so a layer takes exactly its
  ** capacity, and the sum is made once a layer rather than once an add. */
  struct {
    int layer; /* -1: none */
    uint64_t clears;
    double items;
  } counted_layer;
} bloom_state;

static bloom_state *state_of(const store *s) { return s->kind_state; }

static int open_state(store *s) {
  bloom_state *b = sqlite3_malloc(sizeof *b);
  if (b == NULL) return SQLITE_NOMEM;
  memset(b, 0, sizeof *b);
  b->counted_layer.layer = -1;
  s->kind_state = b;
  return SQLITE_OK;
}

static void close_state(store *s) {
  bloom_state *b = state_of(s);
  if (b) sqlite3_free(b->deferred);
  sqlite3_free(b);
  s->kind_state = NULL;
}

/* A rollback undoes the adds not applied with the rest. */
static void rollback(store *s) { state_of(s)->deferred_count = 0; }

/* --- the shape --------------------------------------------------------- */

/* The blocks of one chunk row that fit a page of `page_size` bytes with
** room to spare: SQLite keeps a row on its page when its record is at most
** page - 35 bytes; 72 leaves that plus the record's header, the counter and
** reserved bytes at the end of a page. */
static uint32_t blocks_per_page(int page_size) {
  int fit = (page_size - 72) / BLOOM_BLOCK_BYTES;
  return fit < 1 ? 1 : (uint32_t)fit;
}

static int bloom_kind_size_filter(store *s, int fills, uint64_t *capacity, double fpr,
                       int page_size, sqlite3_int64 values[]) {
  /* No blob length limit: a store's size is bounded by the database.  A
  ** layer that fills is full at its capacity (layer_full), so it keeps
  ** it. */
  (void)fills;
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

static int bloom_kind_configure(store_layer *l, const sqlite3_int64 v[]) {
  sqlite3_int64 bits = v[KEY_BITS], hashes = v[KEY_HASHES],
                chunk_blocks = v[KEY_CHUNK_BLOCKS];
  if (bits <= 0 || bits % BLOOM_BLOCK_BITS != 0 || hashes < 1 ||
      hashes > BLOOM_MAX_HASHES || chunk_blocks < 1 ||
      chunk_blocks > STORE_MAX_CHUNK_UNITS)
    return SQLITE_CORRUPT_VTAB;
  l->header.bits = (uint64_t)bits;
  l->header.hashes = (uint32_t)hashes;
  l->units = (uint64_t)bits / BLOOM_BLOCK_BITS;
  l->chunk_units = (uint32_t)chunk_blocks;
  return SQLITE_OK;
}

static uint64_t unit_bits(const store_layer *l) {
  (void)l;
  return BLOOM_BLOCK_BITS;
}

/* The counter follows the chunk's blocks. */
static size_t counter_offset(const store_layer *l, int64_t local) {
  return (size_t)chunk_units(l, local) * BLOOM_BLOCK_BYTES;
}

static uint64_t chunk_counter(const store_layer *l, int64_t local,
                              const unsigned char *bytes) {
  return bytes ? load_le64(bytes + counter_offset(l, local)) : 0;
}

static void set_chunk_counter(const store_layer *l, int64_t local,
                              unsigned char *bytes, uint64_t count) {
  store_le64(bytes + counter_offset(l, local), count);
}

/* --- probes ------------------------------------------------------------ */

/* Where the block of hash h is: its chunk and the block's place in it. */
typedef struct block_place {
  int64_t chunk;
  size_t offset; /* of the block in the chunk */
} block_place;

static block_place place_of(const store_layer *l, filter_hash h) {
  uint64_t block = bloom_block_of(h, l->units);
  block_place p = {(int64_t)(block / l->chunk_units),
                   (size_t)(block % l->chunk_units) * BLOOM_BLOCK_BYTES};
  return p;
}

static int bloom_kind_contains(store *s, const store_layer *l, filter_hash h,
                    int *maybe) {
  block_place p = place_of(l, h);
  chunk_ref c;
  int rc = chunk_read(s, l, p.chunk, &c);
  if (rc != SQLITE_OK) return rc;
  *maybe = c.bytes != NULL &&
           bloom_contains(c.bytes + p.offset, 1, l->header.hashes, h);
  chunk_done(&c);
  return SQLITE_OK;
}

/* The layers' k, ranked as bloom_masks_of takes them. */
static void probe_widths_of(store *s) {
  bloom_state *b = state_of(s);
  unsigned n = (unsigned)s->config.layer_count;
  int same = b->probe_widths.layers == n;
  for (unsigned i = 0; same && i < n; i++)
    same = b->probe_widths.width[i] == s->config.layers[i].header.hashes;
  if (same) return;
  for (unsigned i = 0; i < n; i++)
    b->probe_widths.width[i] = s->config.layers[i].header.hashes;
  b->probe_widths.widths =
      bloom_width_ladder(b->probe_widths.width, n, b->probe_widths.distinct,
                         b->probe_widths.rank);
  b->probe_widths.layers = n;
}

/* A probe of every layer, the newest (most items) first: the value's bits
** are made once for each distinct k among the layers, and each layer's
** block is tested with eight ANDs (callgrind, 10 layers: about 1,000
** instructions a probe in bloom_contains alone when each layer made its
** own). */
static int bloom_kind_contains_any(store *s, filter_hash h, int *maybe) {
  bloom_state *b = state_of(s);
  probe_widths_of(s);
  bloom_mask mask[STORE_MAX_LAYERS];
  bloom_masks_of(h, b->probe_widths.distinct, b->probe_widths.widths, mask);
  *maybe = 0;
  for (int i = s->config.layer_count; i-- > 0 && !*maybe;) {
    const store_layer *l = &s->config.layers[i];
    block_place p = place_of(l, h);
    chunk_ref c;
    int rc = chunk_read(s, l, p.chunk, &c);
    if (rc != SQLITE_OK) return rc;
    *maybe = c.bytes != NULL &&
             bloom_block_holds(c.bytes + p.offset,
                               &mask[b->probe_widths.rank[i]]);
    chunk_done(&c);
  }
  return SQLITE_OK;
}

/* --- how full a layer is ----------------------------------------------- */

/* Chunks read to estimate how full a layer is. */
#define FILL_SAMPLE 16

/* The most chunks a layer may have for its items to be summed exactly:
** 4096 page-sized rows (16 MiB at 4 KiB pages, well inside the cache's
** budget, which keeps them for the adds that follow). */
#define EXACT_CHUNKS 4096

/* Items in the layer, estimated from FILL_SAMPLE chunks spread over it (all
** of them in a small layer: exact) and raised by three standard errors,
** so that a layer is never judged emptier than it is: a chunk's counter
** is the items whose block it holds, and a block is uniform in the hash. */
static int estimate_items(store *s, const store_layer *l, double *items) {
  int64_t sample = l->chunks < FILL_SAMPLE ? l->chunks : FILL_SAMPLE;
  double counted = 0, units = 0;
  for (int64_t j = 0; j < sample; j++) {
    int64_t local = j * l->chunks / sample;
    chunk_ref c;
    int rc = chunk_read(s, l, local, &c);
    if (rc != SQLITE_OK) return rc;
    counted += (double)chunk_counter(l, local, c.bytes);
    units += chunk_units(l, local);
    chunk_done(&c);
  }
  double rel_error = sample == l->chunks || counted < 1 ? 0 : 1 / sqrt(counted);
  *items = counted * (double)l->units / units * (1 + 3 * rel_error);
  return SQLITE_OK;
}

/* The exact items of a layer of at most EXACT_CHUNKS chunks: the sum of
** all its counters the first time, then the count kept since (add_now). */
static int counted_items(store *s, const store_layer *l, double *items) {
  bloom_state *b = state_of(s);
  int layer = (int)(l - s->config.layers);
  if (b->counted_layer.layer != layer ||
      b->counted_layer.clears != chunks_cache_clears(s)) {
    uint64_t sum;
    int rc = chunks_layer_items(s, l, &sum);
    if (rc != SQLITE_OK) return rc;
    b->counted_layer.layer = layer;
    b->counted_layer.clears = chunks_cache_clears(s);
    b->counted_layer.items = (double)sum;
  }
  *items = b->counted_layer.items;
  return SQLITE_OK;
}

/* A layer that fills is full when it holds its capacity.  No row counts a
** layer's items (a counter changed by every insert would double the pages
** an insert writes), so the chunks' counters decide.
**
** First a screen that reads nothing: in a layer of more than FILL_SAMPLE
** chunks, a chunk holding less than its share of the capacity by three
** standard deviations of a chunk's count says the layer is not full (once
** the layer is full, a chunk is that far below its share about once in
** 700).  Past the screen, a layer of at most EXACT_CHUNKS chunks is judged
** by its exact items (counted_items: summed once, then counted), so it
** holds exactly its capacity and a generation sized for a steady rate
** stays in one layer; a larger one by an estimate from a sample of chunks,
** three standard errors on the safe side (summing more would cost more
** than the few percent it saves).  `count` is chunk `local`'s counter. */
static int layer_full(store *s, const store_layer *l, int64_t local,
                      uint64_t count, int *full) {
  bloom_state *b = state_of(s);
  double capacity = (double)l->header.capacity;
  int layer = (int)(l - s->config.layers);
  int counted = b->counted_layer.layer == layer &&
                b->counted_layer.clears == chunks_cache_clears(s);
  *full = 0;
  if (!counted && l->chunks > FILL_SAMPLE) {
    double share = capacity * (double)chunk_units(l, local) / (double)l->units;
    if ((double)count + 1 + 3 * sqrt(share) <= share) return SQLITE_OK;
  }
  double items = 0;
  int rc = l->chunks <= EXACT_CHUNKS ? counted_items(s, l, &items)
                                     : estimate_items(s, l, &items);
  *full = rc == SQLITE_OK && items + 1 > capacity;
  return rc;
}

/* --- adds deferred past the cache's budget ------------------------------
** A bulk insert of random values into a store (or layer) larger than the
** chunk cache's budget would read and write a chunk per value once the
** cache is full.  Instead an add to a chunk the cache does not hold keeps
** only its hash; a batch is applied sorted by chunk, so each chunk it
** touches is read and written once.  Applied before any read of the store,
** at every flush (xSync, a savepoint), and when the batch is full;
** dropped, like the cache, by a rollback. */

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
  int cached = chunk_is_cached(s, l, local);
  unsigned char *chunk = scratch;
  int rc = SQLITE_OK;
  if (cached) {
    rc = chunk_load(s, l, local, 1, &chunk);
  } else {
    chunk_ref c;
    rc = chunk_read(s, l, local, &c);
    if (rc == SQLITE_OK && c.bytes)
      memcpy(scratch, c.bytes, (size_t)chunk_bytes(s, l, local));
    else if (rc == SQLITE_OK)
      memset(scratch, 0, (size_t)chunk_bytes(s, l, local));
    chunk_done(&c);
  }
  if (rc != SQLITE_OK) return rc;
  for (size_t i = 0; i < n; i++)
    bloom_insert(chunk + (size_t)(adds[i].block % l->chunk_units) *
                             BLOOM_BLOCK_BYTES,
                 1, l->header.hashes, adds[i].hash);
  set_chunk_counter(l, local, chunk,
                    saturating_add(chunk_counter(l, local, chunk), n));
  return cached ? SQLITE_OK : chunk_write(s, l, local, chunk);
}

/* Applies every deferred add; on a failure, the adds not applied stay. */
static int settle(store *s) {
  bloom_state *b = state_of(s);
  if (b->deferred_count == 0) return SQLITE_OK;
  const store_layer *l = &s->config.layers[b->deferred_layer];
  deferred_add *d = b->deferred;
  size_t n = b->deferred_count, done = 0;
  qsort(d, n, sizeof *d, by_block);
  unsigned char *scratch =
      sqlite3_malloc64((sqlite3_uint64)chunk_bytes(s, l, 0));
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
  b->deferred_count = n - done;
  return rc;
}

static int defer(store *s, const store_layer *l, uint64_t block,
                 filter_hash h) {
  bloom_state *b = state_of(s);
  if (b->deferred_count == DEFERRED_MAX) {
    int rc = settle(s);
    if (rc != SQLITE_OK) return rc;
  }
  b->deferred_layer = (int)(l - s->config.layers);
  b->counted_layer.layer = -1; /* its count no longer follows the chunks */
  if (b->deferred_count == b->deferred_room) {
    size_t room = b->deferred_room ? 2 * b->deferred_room : 1024;
    if (room > DEFERRED_MAX) room = DEFERRED_MAX;
    deferred_add *d = sqlite3_realloc64(b->deferred,
                                        (sqlite3_uint64)room * sizeof *d);
    if (d == NULL) return SQLITE_NOMEM;
    b->deferred = d;
    b->deferred_room = room;
  }
  deferred_add *bloom_kind_add = &b->deferred[b->deferred_count++];
  bloom_kind_add->block = block;
  bloom_kind_add->hash = h;
  return SQLITE_OK;
}

/* Whether a layer that fills is full while adds to it are deferred: the
** chunks' counters lack those, so the layer's items are the estimate made
** when the first was deferred plus every add since. */
static int full_while_deferring(store *s, const store_layer *l, int *full) {
  bloom_state *b = state_of(s);
  if (b->deferred_count == 0) {
    int rc = estimate_items(s, l, &b->deferred_base);
    if (rc != SQLITE_OK) return rc;
    b->deferred_adds = 0;
  }
  *full = b->deferred_base + (double)b->deferred_adds + 1 >
          (double)l->header.capacity;
  if (!*full) b->deferred_adds++;
  return SQLITE_OK;
}

/* Sets the hash's bits in its block, now. */
static int add_now(store *s, const store_layer *l, filter_hash h,
                   int check_full, int *full) {
  bloom_state *b = state_of(s);
  block_place p = place_of(l, h);
  unsigned char *chunk;
  int rc = chunk_load(s, l, p.chunk, 1, &chunk);
  if (rc != SQLITE_OK) return rc;
  uint64_t count = chunk_counter(l, p.chunk, chunk);
  /* The sample leaves chunk where it is: the cache moves no bytes. */
  if (check_full) rc = layer_full(s, l, p.chunk, count, full);
  if (rc != SQLITE_OK || *full) return rc;
  bloom_insert(chunk + p.offset, 1, l->header.hashes, h);
  set_chunk_counter(l, p.chunk, chunk, saturating_add(count, 1));
  if (b->counted_layer.layer == (int)(l - s->config.layers))
    b->counted_layer.items += 1;
  return SQLITE_OK;
}

static int bloom_kind_add(store *s, const store_layer *l, filter_hash h, int *full) {
  bloom_state *b = state_of(s);
  int fills = s->config.schedule->fills;
  *full = 0;
  /* Past the cache's budget a chunk the cache does not hold is not read
  ** now: the add waits with the others. */
  uint64_t block = bloom_block_of(h, l->units);
  int held = chunk_is_cached(s, l, (int64_t)(block / l->chunk_units));
  int deferring = b->deferred_count > 0 ||
                  (!held && chunks_cache_full(s, (size_t)chunk_bytes(s, l, 0)));
  if (!deferring) return add_now(s, l, h, fills, full);
  if (fills) {
    int rc = full_while_deferring(s, l, full);
    if (rc != SQLITE_OK || *full) return rc;
  }
  return held ? add_now(s, l, h, 0, full) : defer(s, l, block, h);
}

/* ORs a Bloom filter of the same shape into every chunk of a fixed store.
** Every chunk is read before any is changed, so a failure changes
** nothing. */
static int merge(store *s, const filter_view *f) {
  const store_layer *l = &s->config.layers[0];
  char why[160];
  if (bloom_shape_check(&l->header, &f->header, why, sizeof why) != 0)
    return store_error(s, "%s", why);
  int rc = chunks_load_all(s, l);
  for (int64_t id = 0; rc == SQLITE_OK && id < l->chunks; id++) {
    unsigned char *c;
    rc = chunk_load(s, l, id, 1, &c);
    if (rc != SQLITE_OK) break;
    size_t n = (size_t)chunk_units(l, id) * BLOOM_BLOCK_BYTES;
    bloom_or(c, f->body + (size_t)id * l->chunk_units * BLOOM_BLOCK_BYTES, n);
    if (id == 0)
      set_chunk_counter(l, 0, c,
                        saturating_add(chunk_counter(l, 0, c),
                                       f->header.count));
  }
  return rc;
}

static double bloom_kind_model_fpr(const store_layer *l, double items) {
  return bloom_model_fpr(items / (double)l->units, l->header.hashes);
}

const store_kind store_bloom_kind = {
    .kind = FILTER_KIND_BLOOM,
    .keys = {"bits", "hashes", "chunk_blocks", NULL},
    .counter_bytes = COUNTER_BYTES,
    .no_delete = "a Bloom filter cannot forget a value (cuckoo filters can "
                 "delete)",
    .no_update = "an item cannot be changed, only added",
    .load_verb = "merge",
    .skips_present = 1,
    /* its state */
    .open = open_state, .close = close_state, .rollback = rollback,
    .settle = settle,
    /* the shape */
    .size = bloom_kind_size_filter, .configure = bloom_kind_configure,
    .unit_bits = unit_bits, .chunk_items = chunk_counter,
    .model_fpr = bloom_kind_model_fpr,
    /* the items */
    .add = bloom_kind_add, .contains = bloom_kind_contains,
    .contains_any = bloom_kind_contains_any, .remove = NULL, .load = merge,
};
