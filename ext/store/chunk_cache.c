/*
** The chunks of a store a connection holds in memory (chunk_cache.h): the
** ones it read, kept across statements and transactions while chunks.c
** finds the database unchanged, and the ones it changed, until written
** back.  A hash table by chunk number, and the list of the changed ones.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "store/chunk_cache.h"

#include <string.h>

#include "functions/api.h"

/* Fibonacci hashing: chunk numbers are consecutive integers, so multiply to
** spread them before taking the top bits. */
static size_t slot_of(int64_t id, size_t capacity) {
  uint64_t mixed = (uint64_t)id * 0x9E3779B97F4A7C15ull;
  return (size_t)(mixed >> 32) & (capacity - 1);
}

cached_chunk *cache_find(const chunk_cache *c, int64_t id) {
  if (c->capacity == 0) return NULL;
  for (size_t i = slot_of(id, c->capacity);; i = (i + 1) & (c->capacity - 1)) {
    if (c->slots[i].id == id) return &c->slots[i];
    if (c->slots[i].id < 0) return NULL;
  }
}

/* Doubles the table (or makes the first one), rehashing every chunk:
** SQLITE_OK or SQLITE_NOMEM. */
static int grow(chunk_cache *c) {
  size_t capacity = c->capacity ? c->capacity * 2 : 64;
  cached_chunk *slots = sqlite3_malloc64(capacity * sizeof *slots);
  /* Room for every chunk's id in the dirty list, so that marking one
  ** dirty cannot fail. */
  int64_t *dirty_ids =
      sqlite3_realloc64(c->dirty_ids, capacity * sizeof *dirty_ids);
  if (dirty_ids) c->dirty_ids = dirty_ids;
  if (slots == NULL || dirty_ids == NULL) {
    sqlite3_free(slots);
    return SQLITE_NOMEM;
  }
  for (size_t i = 0; i < capacity; i++) {
    slots[i].id = -1;
    slots[i].dirty = 0;
    slots[i].bytes = NULL;
    slots[i].size = 0;
  }
  for (size_t i = 0; i < c->capacity; i++) {
    if (c->slots[i].id < 0) continue;
    size_t j = slot_of(c->slots[i].id, capacity);
    while (slots[j].id >= 0) j = (j + 1) & (capacity - 1);
    slots[j] = c->slots[i];
  }
  sqlite3_free(c->slots);
  c->slots = slots;
  c->capacity = capacity;
  return SQLITE_OK;
}

cached_chunk *cache_add(chunk_cache *c, int64_t id, unsigned char *bytes,
                        size_t size) {
  /* At most half full, so that probes stay short. */
  if ((c->count + 1) * 2 > c->capacity && grow(c) != SQLITE_OK) {
    sqlite3_free(bytes);
    return NULL;
  }
  size_t i = slot_of(id, c->capacity);
  while (c->slots[i].id >= 0) i = (i + 1) & (c->capacity - 1);
  c->slots[i].id = id;
  c->slots[i].dirty = 0;
  c->slots[i].bytes = bytes;
  c->slots[i].size = size;
  c->count++;
  c->bytes += size;
  return &c->slots[i];
}

void cache_mark_dirty(chunk_cache *c, cached_chunk *chunk) {
  if (chunk->dirty) return;
  chunk->dirty = 1;
  c->dirty_ids[c->dirty++] = chunk->id;
}

void cache_mark_clean_first(chunk_cache *c, size_t n) {
  if (n == 0) return;
  for (size_t i = 0; i < n; i++) {
    cached_chunk *chunk = cache_find(c, c->dirty_ids[i]);
    if (chunk) chunk->dirty = 0;
  }
  if (c->dirty > n)
    memmove(c->dirty_ids, c->dirty_ids + n,
            (c->dirty - n) * sizeof *c->dirty_ids);
  c->dirty -= n;
}

void cache_clear(chunk_cache *c) {
  for (size_t i = 0; i < c->capacity; i++) sqlite3_free(c->slots[i].bytes);
  sqlite3_free(c->slots);
  sqlite3_free(c->dirty_ids);
  uint64_t clears = c->clears + 1;
  memset(c, 0, sizeof *c);
  c->clears = clears;
}
