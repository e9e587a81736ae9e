/*
** Chunk I/O (store.h, "chunks.c"): every read and write of a store's chunk
** rows goes through here, and through the cache (chunk_cache.h).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** How a store keeps transactions exact, as FTS5 keeps its pending terms: a
** write reads the chunk it changes into the cache and marks it changed;
** changed chunks are written back at xSync, before each savepoint (so
** that SQLite's own journal can undo them), and when the cache passes its
** budget.  ROLLBACK and ROLLBACK TO empty the cache: whatever it held was
** newer than the last write-back, and the pager undoes what was written.
** Unchanged chunks stay cached across statements while
** SQLITE_FCNTL_DATA_VERSION says no other transaction committed, which
** makes a probe cost about an INTEGER PRIMARY KEY lookup.
*/
#include <string.h>

#include "core/bytes.h"
#include "store/store.h"

/* --- geometry ---------------------------------------------------------- */

uint32_t chunk_units(const store_layer *l, int64_t local) {
  uint64_t first = (uint64_t)local * l->chunk_units;
  uint64_t left = l->units - first;
  return left < l->chunk_units ? (uint32_t)left : l->chunk_units;
}

uint64_t chunk_unit_bytes(const store *s, const store_layer *l,
                          uint64_t units) {
  return (units * s->kind->unit_bits(l) + 7) / 8;
}

int chunk_bytes(const store *s, const store_layer *l, int64_t local) {
  return (int)(chunk_unit_bytes(s, l, chunk_units(l, local)) +
               s->kind->counter_bytes);
}

/* Any order of runs: a windowed store's generations lie in a ring of
** slots. */
const store_layer *chunk_layer_of(const store *s, int64_t id) {
  for (int i = s->config.layer_count - 1; i >= 0; i--) {
    const store_layer *l = &s->config.layers[i];
    if (id >= l->first_chunk && id - l->first_chunk < l->chunks) return l;
  }
  return NULL;
}

/* --- errors ------------------------------------------------------------ */

int chunk_missing(store *s, int64_t id) {
  return store_corrupt(s, "chunk %lld of %s is missing: the store is damaged",
                     (long long)id, s->tables.name);
}

int chunk_damaged(store *s, const store_layer *l, int64_t local, int len) {
  return store_corrupt(s, "chunk %lld of %s has %d bytes, expected a BLOB of "
                     "%s%d: the store is damaged",
                     (long long)(l->first_chunk + local), s->tables.name, len,
                     s->kind->row_bytes ? "1 to " : "",
                     chunk_bytes(s, l, local));
}

/* A row of a kind whose rows vary that ends inside its record. */
static int row_cut_short(store *s, const store_layer *l, int64_t local,
                         int len) {
  return store_corrupt(s, "chunk %lld of %s has %d bytes, fewer than its "
                       "record: the store is damaged",
                       (long long)(l->first_chunk + local), s->tables.name,
                       len);
}

/* --- reads ------------------------------------------------------------- */

/* The one check of a chunk's bytes: `len` bytes, a BLOB (a row) or not
** (a cached copy, whose size the configuration must still give).  A kind
** whose rows vary takes a row of 1 to chunk_bytes bytes. */
static int checked(store *s, const store_layer *l, int64_t local, int len,
                   int is_blob) {
  int size = chunk_bytes(s, l, local);
  int fits = s->kind->row_bytes ? len >= 1 && len <= size : len == size;
  return fits && is_blob ? SQLITE_OK : chunk_damaged(s, l, local, len);
}

/* The cache's copy of the chunk, checked against its size (a copy of
** another size means the configuration changed under us). */
static int cached_copy(store *s, const store_layer *l, int64_t local,
                       cached_chunk **out) {
  *out = cache_find(&s->cache, l->first_chunk + local);
  return *out ? checked(s, l, local, (int)(*out)->size, 1) : SQLITE_OK;
}

/* Steps to the chunk's row: *row positioned on it with its bytes in *data
** (until shadow_done), or *data NULL when a layered store has no row yet. */
static int read_row(store *s, const store_layer *l, int64_t local,
                    sqlite3_stmt **row, const unsigned char **data,
                    int *len) {
  int64_t id = l->first_chunk + local, row_id = id;
  *row = NULL;
  *data = NULL;
  int rc = s->kind->row_id ? s->kind->row_id(s, l, id, &row_id) : SQLITE_OK;
  if (rc == SQLITE_OK) rc = shadow_find_chunk(&s->tables, row_id, row);
  if (rc != SQLITE_OK) return rc;
  if (*row == NULL)
    return s->config.schedule->layered ? SQLITE_OK : chunk_missing(s, id);
  rc = checked(s, l, local, sqlite3_column_bytes(*row, 0),
               sqlite3_column_type(*row, 0) == SQLITE_BLOB);
  if (rc != SQLITE_OK) {
    shadow_done(*row);
    return rc;
  }
  *data = sqlite3_column_blob(*row, 0);
  *len = sqlite3_column_bytes(*row, 0);
  if (*data == NULL) {
    shadow_done(*row);
    return SQLITE_NOMEM;
  }
  if (s->kind->row_holds && !s->kind->row_holds(l, *data, *len)) {
    shadow_done(*row);
    return row_cut_short(s, l, local, *len);
  }
  return SQLITE_OK;
}

/* Adds a copy of data[0..len) (zeros if NULL), followed by zeros to the
** chunk's size, to the cache as chunk `local`. */
static int cache_copy(store *s, const store_layer *l, int64_t local,
                      const unsigned char *data, int len,
                      cached_chunk **out) {
  size_t size = (size_t)chunk_bytes(s, l, local);
  unsigned char *copy = sqlite3_malloc64(size);
  if (copy == NULL) return SQLITE_NOMEM;
  size_t have = data ? (size_t)len : 0;
  if (have) memcpy(copy, data, have);
  memset(copy + have, 0, size - have);
  *out = cache_add(&s->cache, l->first_chunk + local, copy, size);
  return *out ? SQLITE_OK : SQLITE_NOMEM;
}

int chunk_read(store *s, const store_layer *l, int64_t local, chunk_ref *ref) {
  cached_chunk *c;
  ref->row = NULL;
  ref->bytes = NULL;
  ref->len = 0;
  ref->changed = 0;
  int rc = cached_copy(s, l, local, &c);
  if (rc != SQLITE_OK || c) {
    if (c) ref->bytes = c->bytes;
    if (c) ref->len = (int)c->size;
    if (c) ref->changed = c->dirty != 0;
    return rc;
  }
  sqlite3_stmt *row;
  const unsigned char *data;
  int len;
  rc = read_row(s, l, local, &row, &data, &len);
  if (rc != SQLITE_OK || data == NULL) return rc;
  if (chunks_cache_full(s, (size_t)chunk_bytes(s, l, local))) {
    ref->bytes = data;
    ref->len = len;
    ref->row = row;
    return SQLITE_OK;
  }
  rc = cache_copy(s, l, local, data, len, &c);
  shadow_done(row);
  if (rc == SQLITE_OK) ref->bytes = c->bytes;
  if (rc == SQLITE_OK) ref->len = (int)c->size;
  return rc;
}

void chunk_done(chunk_ref *ref) {
  if (ref->row) shadow_done(ref->row);
  ref->row = NULL;
}

int chunk_load(store *s, const store_layer *l, int64_t local, int change,
               unsigned char **bytes) {
  cached_chunk *c;
  int rc = cached_copy(s, l, local, &c);
  if (rc == SQLITE_OK && c == NULL) {
    sqlite3_stmt *row;
    const unsigned char *data;
    int len = 0;
    rc = read_row(s, l, local, &row, &data, &len);
    if (rc != SQLITE_OK) return rc;
    rc = cache_copy(s, l, local, data, len, &c);
    if (row) shadow_done(row);
  }
  if (rc != SQLITE_OK) return rc;
  if (change) cache_mark_dirty(&s->cache, c);
  *bytes = c->bytes;
  return SQLITE_OK;
}

int chunk_is_cached(const store *s, const store_layer *l, int64_t local) {
  return cache_find(&s->cache, l->first_chunk + local) != NULL;
}

int chunks_load_all(store *s, const store_layer *l) {
  for (int64_t local = 0; local < l->chunks; local++) {
    unsigned char *bytes;
    int rc = chunk_load(s, l, local, 0, &bytes);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

uint64_t chunks_cache_clears(const store *s) { return s->cache.clears; }

/* --- every chunk, for the export --------------------------------------- */

/* The scan's current row, id: visited unless the cache holds it changed
** (visited after the scan) or the schedule passes over it.  *expect: the
** id the next row of a fixed store must have. */
static int visit_row(store *s, sqlite3_stmt *scan, chunk_visit visit,
                     void *ctx, int64_t *expect) {
  int64_t id = sqlite3_column_int64(scan, 0);
  const store_layer *l = chunk_layer_of(s, id);
  const store_schedule *schedule = s->config.schedule;
  if (l == NULL && schedule->ignores_chunk && schedule->ignores_chunk(s, id))
    return SQLITE_OK;
  if (l == NULL)
    return store_corrupt(s, "chunk %lld of %s is outside its layers: the "
                         "store is damaged", (long long)id, s->tables.name);
  if (!schedule->layered && id != *expect) return chunk_missing(s, *expect);
  *expect = id + 1;
  const cached_chunk *c = s->cache.dirty ? cache_find(&s->cache, id) : NULL;
  if (c && c->dirty) return SQLITE_OK;
  int64_t local = id - l->first_chunk;
  int len = sqlite3_column_bytes(scan, 1);
  int rc = checked(s, l, local, len,
                   sqlite3_column_type(scan, 1) == SQLITE_BLOB);
  const unsigned char *data = sqlite3_column_blob(scan, 1);
  if (rc == SQLITE_OK && data == NULL) rc = SQLITE_NOMEM;
  if (rc != SQLITE_OK) return rc;
  if (s->kind->row_holds && !s->kind->row_holds(l, data, len))
    return row_cut_short(s, l, local, len);
  int size = chunk_bytes(s, l, local);
  if (len == size) return visit(ctx, l, local, data);
  /* A short row (a kind whose rows vary): its bytes, then zeros. */
  unsigned char *padded = sqlite3_malloc(size);
  if (padded == NULL) return SQLITE_NOMEM;
  memcpy(padded, data, (size_t)len);
  memset(padded + len, 0, (size_t)(size - len));
  rc = visit(ctx, l, local, padded);
  sqlite3_free(padded);
  return rc;
}

/* The rows in id order (of layer `only`'s range, or all), then the
** changed chunks the cache holds.  It reads the rows that exist, never
** every chunk number of a range: a layer of a huge capacity has few.  The
** loop's body is a function so that no path through it leaves
** sqlite3_step's SQLITE_ROW in rc: a method that answered SQLite with it
** would make a statement that never ends. */
static int each_in(store *s, const store_layer *only, chunk_visit visit,
                   void *ctx) {
  sqlite3_stmt *scan = NULL;
  int64_t lo = only ? only->first_chunk : INT64_MIN;
  int64_t hi = only ? only->first_chunk + only->chunks - 1 : INT64_MAX;
  const store_layer *last = only ? only : store_newest(s);
  int rc = shadow_scan_chunks(&s->tables, lo, hi, &scan);
  int64_t expect = only ? lo : 0;
  while (rc == SQLITE_OK && (rc = sqlite3_step(scan)) == SQLITE_ROW)
    rc = visit_row(s, scan, visit, ctx, &expect);
  if (scan) shadow_done(scan);
  if (rc == SQLITE_DONE) {
    rc = !s->config.schedule->layered &&
                 expect != last->first_chunk + last->chunks
             ? chunk_missing(s, expect)
             : SQLITE_OK;
  }
  for (size_t i = 0; rc == SQLITE_OK && i < s->cache.dirty; i++) {
    const cached_chunk *c = cache_find(&s->cache, s->cache.dirty_ids[i]);
    const store_layer *l = c ? chunk_layer_of(s, c->id) : NULL;
    if (l == NULL || (only && l != only)) continue;
    int64_t local = c->id - l->first_chunk;
    rc = checked(s, l, local, (int)c->size, 1);
    if (rc == SQLITE_OK) rc = visit(ctx, l, local, c->bytes);
  }
  return rc;
}

int chunks_each(store *s, chunk_visit visit, void *ctx) {
  return each_in(s, NULL, visit, ctx);
}

/* A layer's items, as chunks_layer_items counts them visit by visit. */
typedef struct items_count {
  const store *s;
  uint64_t items;
} items_count;

static int add_items(void *ctx, const store_layer *l, int64_t local,
                     const unsigned char *bytes) {
  items_count *n = ctx;
  n->items = saturating_add(n->items, n->s->kind->chunk_items(l, local, bytes));
  return SQLITE_OK;
}

int chunks_layer_items(store *s, const store_layer *l, uint64_t *items) {
  items_count n = {s, 0};
  int rc = each_in(s, l, add_items, &n);
  *items = n.items;
  return rc;
}

int chunks_cache_full(const store *s, size_t more) {
  return s->cache.bytes + more > STORE_CACHE_BUDGET_BYTES;
}

/* --- writes ------------------------------------------------------------ */

int chunk_write(store *s, const store_layer *l, int64_t local,
                const unsigned char *bytes) {
  int64_t id = l->first_chunk + local, row_id = id;
  int size = chunk_bytes(s, l, local);
  if (s->kind->row_bytes) size = s->kind->row_bytes(l, bytes, size);
  int rc = s->kind->row_id ? s->kind->row_id(s, l, id, &row_id) : SQLITE_OK;
  if (rc != SQLITE_OK) return rc;
  /* A layered store's rows are created when first written. */
  rc = s->config.schedule->layered
           ? shadow_put_chunk(&s->tables, row_id, bytes, size)
           : shadow_write_chunk(&s->tables, row_id, bytes, size);
  return rc == SQLITE_CORRUPT_VTAB ? chunk_missing(s, id) : rc;
}

int chunks_settle(store *s) {
  return s->kind->settle ? s->kind->settle(s) : SQLITE_OK;
}

int chunks_flush(store *s, int drop) {
  int rc = chunks_settle(s);
  size_t done = 0;
  uint64_t clears = s->cache.clears;
  for (; rc == SQLITE_OK && done < s->cache.dirty; done++) {
    int64_t id = s->cache.dirty_ids[done];
    const cached_chunk *c = cache_find(&s->cache, id);
    const store_layer *l = chunk_layer_of(s, id);
    if (c == NULL || l == NULL) {
      rc = chunk_missing(s, id);
      break;
    }
    rc = checked(s, l, id - l->first_chunk, (int)c->size, 1);
    if (rc == SQLITE_OK) rc = chunk_write(s, l, id - l->first_chunk, c->bytes);
    if (rc != SQLITE_OK) break;
  }
  /* A write that ran out of memory can make SQLite roll the transaction
  ** back, whose xRollback empties the cache under this loop: nothing is
  ** left to mark. */
  if (s->cache.clears == clears) cache_mark_clean_first(&s->cache, done);
  if (rc == SQLITE_OK && drop) cache_clear(&s->cache);
  return rc;
}

/* A change that loads every chunk it touches (a cuckoo relocation does)
** can take the cache past its budget: then the cache is written back and
** emptied first.  A Bloom store never gets there (it defers instead). */
int chunks_make_room(store *s) {
  return s->cache.bytes > STORE_CACHE_BUDGET_BYTES ? chunks_flush(s, 1)
                                                   : SQLITE_OK;
}

/* --- transactions ------------------------------------------------------ */

int chunks_revalidate(store *s) {
  if (s->config_stale) {
    cache_clear(&s->cache);
    int rc = config_refresh(s);
    if (rc != SQLITE_OK) return rc;
  }
  if (s->cache.dirty) return SQLITE_OK; /* our own write transaction */
  unsigned version = 0;
  int rc = sqlite3_file_control(s->tables.db, s->tables.schema,
                                SQLITE_FCNTL_DATA_VERSION, &version);
  int changed = rc != SQLITE_OK || !s->data_version_known ||
                version != s->data_version;
  s->data_version = version;
  s->data_version_known = rc == SQLITE_OK;
  if (!changed) return SQLITE_OK;
  cache_clear(&s->cache);
  /* A scalable store may have grown. */
  return config_refresh(s);
}

/* The commit itself changed the data version: read it now, before this
** connection can see another's commit (its pager looks again only when
** the next transaction starts), so that our own commit keeps the cache. */
void chunks_committed(store *s) {
  unsigned version = 0;
  if (s->data_version_known &&
      sqlite3_file_control(s->tables.db, s->tables.schema,
                           SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK)
    s->data_version = version;
  else
    s->data_version_known = 0;
}

void chunks_free(store *s) { cache_clear(&s->cache); }

void chunks_rolled_back(store *s) {
  cache_clear(&s->cache);
  if (s->kind->rollback) s->kind->rollback(s);
  if (s->config.schedule->layered) s->config_stale = 1;
}
