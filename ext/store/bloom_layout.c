/*
** bloom_store's layout (layout.h): the filter's 512-bit blocks cut into
** chunks of as many blocks as fit one database page, each chunk row
** followed by an 8-byte counter of the values added into its blocks, so an
** insert changes one row and one page (ext/FORMAT.md, "Stores").  The
** export is byte for byte what bloom_build(value, capacity, fpr) gives over
** the same values in any order, its `inserted` counter (the counters' sum)
** included.  INSERT INTO t(filter) merges a filter of the same shape.
*/
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

static int size_filter(store *s, const store_options *o, int page_size,
                sqlite3_int64 values[]) {
  /* No blob length limit: a store's size is bounded by the database. */
  bloom_sizing sizing;
  if (bloom_sizing_for(o->capacity, o->fpr, UINT64_MAX / 2, &sizing) !=
      BLOOM_SIZING_OK)
    return store_error(s, "no filter holds capacity = %llu at fpr = %g",
                       (unsigned long long)o->capacity, o->fpr);
  values[KEY_BITS] = (sqlite3_int64)sizing.bits;
  values[KEY_HASHES] = sizing.hashes;
  values[KEY_CHUNK_BLOCKS] = blocks_per_page(page_size);
  return SQLITE_OK;
}

static int configure(store *s, const sqlite3_int64 v[]) {
  sqlite3_int64 bits = v[KEY_BITS], hashes = v[KEY_HASHES],
                chunk_blocks = v[KEY_CHUNK_BLOCKS];
  if (bits <= 0 || bits % BLOOM_BLOCK_BITS != 0 || hashes < 1 ||
      hashes > BLOOM_MAX_HASHES || chunk_blocks < 1 || chunk_blocks > 1 << 20)
    return -1;
  s->header.bits = (uint64_t)bits;
  s->header.hashes = (uint32_t)hashes;
  s->units = (uint64_t)bits / BLOOM_BLOCK_BITS;
  s->chunk_units = (uint32_t)chunk_blocks;
  return 0;
}

static uint64_t unit_bytes(const store *s, uint64_t blocks) {
  (void)s;
  return blocks * BLOOM_BLOCK_BYTES;
}

static uint64_t chunk_counter(const store *s, int64_t id,
                              const unsigned char *bytes) {
  return load_le64(bytes + store_chunk_bytes(s, id) - COUNTER_BYTES);
}

static void set_chunk_counter(const store *s, int64_t id, unsigned char *bytes,
                              uint64_t count) {
  store_le64(bytes + store_chunk_bytes(s, id) - COUNTER_BYTES, count);
}

/* Where the block of hash h is: its chunk, read (store_get_chunk's
** `load`), and the block's place in it. */
typedef struct block_place {
  int64_t chunk;
  size_t offset;               /* of the block in the chunk */
  const unsigned char *bytes;  /* the chunk */
  cached_chunk *cached;        /* the cache's copy, when there is one */
  sqlite3_stmt *held;          /* else the row read, until shadow_done */
} block_place;

static int find_block(store *s, filter_hash h, int load, block_place *p) {
  uint64_t block = bloom_block_of(h, s->units);
  p->chunk = (int64_t)(block / s->chunk_units);
  p->offset = (size_t)(block % s->chunk_units) * BLOOM_BLOCK_BYTES;
  return store_get_chunk(s, p->chunk, load, &p->bytes, &p->cached, &p->held);
}

static int contains(store *s, filter_hash h) {
  block_place p;
  int rc = find_block(s, h, 0, &p);
  if (rc != SQLITE_OK) return -rc;
  int maybe = bloom_contains(p.bytes + p.offset, 1, s->header.hashes, h);
  if (p.held) shadow_done(p.held);
  return maybe;
}

static int add(store *s, filter_hash h) {
  block_place p;
  int rc = find_block(s, h, 1, &p);
  if (rc != SQLITE_OK) return rc;
  unsigned char *chunk = p.cached->bytes; /* loaded: the cache's copy */
  bloom_insert(chunk + p.offset, 1, s->header.hashes, h);
  set_chunk_counter(s, p.chunk, chunk,
                    saturating_add(chunk_counter(s, p.chunk, chunk), 1));
  cache_mark_dirty(&s->cache, p.cached);
  return SQLITE_OK;
}

/* ORs a Bloom filter of the same shape into every chunk.  Every chunk is
** read before any is changed, so a failure changes nothing. */
static int merge(store *s, const filter_view *f) {
  char why[160];
  if (bloom_shape_check(&s->header, &f->header, why, sizeof why) != 0)
    return store_error(s, "%s", why);
  int rc = store_load_all(s);
  if (rc != SQLITE_OK) return rc;
  for (int64_t id = 0; id < s->chunks; id++) {
    cached_chunk *c = cache_find(&s->cache, id);
    size_t n = (size_t)store_units_in_chunk(s, id) * BLOOM_BLOCK_BYTES;
    bloom_or(c->bytes, f->body + (size_t)id * s->chunk_units * BLOOM_BLOCK_BYTES,
             n);
    if (id == 0)
      set_chunk_counter(s, 0, c->bytes,
                        saturating_add(chunk_counter(s, 0, c->bytes),
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
    .add = add, .contains = contains, .remove = NULL, .load = merge,
};
