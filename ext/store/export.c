/*
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** SELECT filter FROM store (store.h, "export.c"): the chunk rows, and the
** chunks the cache holds changed, assembled into one blob of FORMAT.md.
** A fixed store's one filter is the blob, what the kind's *_build gives
** over the same values; a layered store's layers follow a layered header
** (kind 3; core/layered.h places them).  Every row is read and checked, so
** damage anywhere in the chunks is refused here.
*/
#include <string.h>

#include "core/bytes.h"
#include "core/layered.h"
#include "store/store.h"

/* Where the layers go in the blob, and their headers as counted. */
typedef struct export_placement {
  uint64_t bytes;                      /* of the blob */
  uint64_t layer_at[STORE_MAX_LAYERS]; /* each layer's header */
  filter_header headers[STORE_MAX_LAYERS]; /* count: items counted so far */
  layered_params params;
} export_placement;

/* The layered placement of e's layers (core/layered.h). */
static int place_layers(store *s, export_placement *e,
                        layered_placement *where) {
  char why[160];
  if (layered_place(e->headers, (unsigned)s->config.layer_count, &e->params,
                    where, why, sizeof why) != 0)
    return store_error(s, "the layers of %s cannot be exported: %s",
                       s->tables.name, why);
  return SQLITE_OK;
}

static int place_all(store *s, export_placement *e) {
  const store_config *c = &s->config;
  for (int i = 0; i < c->layer_count; i++) {
    e->headers[i] = c->layers[i].header;
    e->headers[i].count = 0;
  }
  if (!c->schedule->layered) {
    e->layer_at[0] = 0;
    e->bytes = FILTER_HEADER_BYTES +
               chunk_unit_bytes(s, &c->layers[0], c->layers[0].units);
    return SQLITE_OK;
  }
  e->params.growth = c->growth;
  e->params.tightening = c->tightening;
  e->params.target_fpr = c->header.target_fpr;
  layered_placement where;
  int rc = place_layers(s, e, &where);
  if (rc != SQLITE_OK) return rc;
  for (int i = 0; i < c->layer_count; i++) e->layer_at[i] = where.layer_offset[i];
  e->bytes = where.total_bytes;
  return SQLITE_OK;
}

/* The headers, once the items are counted. */
static int write_headers(store *s, export_placement *e, unsigned char *blob) {
  if (!s->config.schedule->layered) {
    filter_write_header(blob, &e->headers[0]);
    return SQLITE_OK;
  }
  layered_placement where;
  int rc = place_layers(s, e, &where);
  if (rc == SQLITE_OK)
    layered_write_header(blob, e->headers, &e->params, &where);
  return rc;
}

/* Copies one chunk's units into its layer's body and counts its items.
** Bits past the last unit, in the last byte of a body whose units do not
** end on a byte (a one-bucket cuckoo layer), stay zero as *_build leaves
** them. */
static void copy_chunk(const store *s, export_placement *e, unsigned char *blob,
                       const store_layer *l, int64_t local,
                       const unsigned char *data) {
  int i = (int)(l - s->config.layers);
  uint64_t units = chunk_units(l, local);
  size_t size = (size_t)chunk_unit_bytes(s, l, units);
  unsigned char *at = blob + e->layer_at[i] + FILTER_HEADER_BYTES +
                      chunk_unit_bytes(s, l, (uint64_t)local * l->chunk_units);
  memcpy(at, data, size);
  unsigned spare = (unsigned)(size * 8 - units * s->kind->unit_bits(l));
  if (spare) at[size - 1] &= (unsigned char)(0xFFu >> spare);
  e->headers[i].count = saturating_add(e->headers[i].count,
                                       s->kind->chunk_items(l, local, data));
}

/* The scan's current row as chunk `local` of l, checked, copied. */
static int copy_row(store *s, export_placement *e, unsigned char *blob,
                    sqlite3_stmt *scan, const store_layer *l, int64_t local) {
  const unsigned char *data = sqlite3_column_blob(scan, 1);
  int len = sqlite3_column_bytes(scan, 1);
  if (len != chunk_bytes(s, l, local) ||
      sqlite3_column_type(scan, 1) != SQLITE_BLOB)
    return chunk_damaged(s, l, local, len);
  if (data == NULL) return SQLITE_NOMEM;
  copy_chunk(s, e, blob, l, local, data);
  return SQLITE_OK;
}

/* The scan's current row (chunk id) into the blob, unless the cache holds
** it changed (copied after) or the schedule passes over it (a windowed
** store's expired generation, deleted by the next write).  *expect: the id the next row of a fixed store must
** have. */
static int copy_scanned(store *s, export_placement *e, unsigned char *blob,
                        sqlite3_stmt *scan, int64_t *expect) {
  int64_t id = sqlite3_column_int64(scan, 0);
  const store_layer *l = chunk_layer_of(s, id);
  const store_schedule *schedule = s->config.schedule;
  if (l == NULL && schedule->ignores_chunk && schedule->ignores_chunk(s, id))
    return SQLITE_OK;
  if (l == NULL)
    return store_corrupt(s, "chunk %lld of %s is outside its layers: the "
                       "store is damaged", (long long)id, s->tables.name);
  if (!s->config.schedule->layered && id != *expect)
    return chunk_missing(s, *expect);
  *expect = id + 1;
  const cached_chunk *c = s->cache.dirty ? cache_find(&s->cache, id) : NULL;
  if (c && c->dirty) return SQLITE_OK;
  return copy_row(s, e, blob, scan, l, id - l->first_chunk);
}

/* Reads the chunk rows into the blob.  A fixed store has every row; a
** layered store's rows not yet written are zeros.  The loop's body is a
** function so that no path through it leaves sqlite3_step's SQLITE_ROW in
** rc: a method that answered SQLite with it would make a statement that
** never ends. */
static int copy_rows(store *s, export_placement *e, unsigned char *blob) {
  sqlite3_stmt *scan = NULL;
  int rc = shadow_scan_chunks(&s->tables, &scan);
  int64_t expect = 0;
  while (rc == SQLITE_OK && (rc = sqlite3_step(scan)) == SQLITE_ROW)
    rc = copy_scanned(s, e, blob, scan, &expect);
  if (rc == SQLITE_DONE) {
    const store_layer *last = store_newest(s);
    rc = !s->config.schedule->layered &&
                 expect != last->first_chunk + last->chunks
             ? chunk_missing(s, expect)
             : SQLITE_OK;
  }
  if (scan) shadow_done(scan);
  return rc;
}

/* The chunks the cache holds changed. */
static int copy_changed(store *s, export_placement *e, unsigned char *blob) {
  for (size_t i = 0; i < s->cache.dirty; i++) {
    const cached_chunk *c = cache_find(&s->cache, s->cache.dirty_ids[i]);
    const store_layer *l = c ? chunk_layer_of(s, c->id) : NULL;
    if (l == NULL) continue;
    int64_t local = c->id - l->first_chunk;
    if (c->size != (size_t)chunk_bytes(s, l, local))
      return chunk_damaged(s, l, local, (int)c->size);
    copy_chunk(s, e, blob, l, local, c->bytes);
  }
  return SQLITE_OK;
}

int store_export(store *s, sqlite3_context *ctx) {
  int rc = chunks_settle(s);
  if (rc != SQLITE_OK) return rc;
  if (s->config.layer_count == 0)
    return s->config.schedule->export_empty
               ? s->config.schedule->export_empty(s, ctx)
               : store_error(s, "%s has no layer to export", s->tables.name);
  export_placement *e = sqlite3_malloc(sizeof *e);
  if (e == NULL) return SQLITE_NOMEM;
  rc = place_all(s, e);
  uint64_t bytes = e->bytes;
  int limit = sqlite3_limit(sqlite3_context_db_handle(ctx),
                            SQLITE_LIMIT_LENGTH, -1);
  unsigned char *blob = NULL;
  if (rc == SQLITE_OK && bytes > (uint64_t)limit) {
    sqlite3_free(e);
    sqlite3_result_error_toobig(ctx);
    return SQLITE_OK;
  }
  if (rc == SQLITE_OK) {
    blob = sqlite3_malloc64(bytes);
    rc = blob ? SQLITE_OK : SQLITE_NOMEM;
    /* A fixed store's rows cover the body; a layered store's unwritten
    ** rows and its directory's padding are zeros. */
    if (blob && s->config.schedule->layered) memset(blob, 0, (size_t)bytes);
  }
  if (rc == SQLITE_OK) rc = copy_rows(s, e, blob);
  if (rc == SQLITE_OK) rc = copy_changed(s, e, blob);
  if (rc == SQLITE_OK) rc = write_headers(s, e, blob);
  sqlite3_free(e);
  if (rc != SQLITE_OK) {
    sqlite3_free(blob);
    return rc;
  }
  /* Exactly the blob's size, as SQLite allocates a BLOB it reads: the
  ** allocator then serves both alike. */
  sqlite3_result_blob64(ctx, blob, bytes, sqlite3_free);
  return SQLITE_OK;
}
