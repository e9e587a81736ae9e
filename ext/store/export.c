/*
** SELECT filter FROM store (store.h, "export.c"): every chunk, as
** chunks_each hands them over (the rows, and the chunks this connection
** changed), assembled into one blob of FORMAT.md.
** A fixed store's one filter is the blob, what the kind's *_build gives
** over the same values; a layered store's layers follow a layered header
** (kind 3; core/layered.h places them).  Every row is read and checked, so
** damage anywhere in the chunks is refused here.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
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

/* The blob being filled, for chunks_each. */
typedef struct export_fill {
  store *s;
  export_placement *e;
  unsigned char *blob;
} export_fill;

/* Copies one chunk's units into its layer's body and counts its items.
** Bits past the last unit, in the last byte of a body whose units do not
** end on a byte (a one-bucket cuckoo layer), stay zero as *_build leaves
** them. */
static int copy_chunk(void *ctx, const store_layer *l, int64_t local,
                      const unsigned char *data) {
  const export_fill *f = ctx;
  const store *s = f->s;
  int i = (int)(l - s->config.layers);
  uint64_t units = chunk_units(l, local);
  size_t size = (size_t)chunk_unit_bytes(s, l, units);
  unsigned char *at = f->blob + f->e->layer_at[i] + FILTER_HEADER_BYTES +
                      chunk_unit_bytes(s, l, (uint64_t)local * l->chunk_units);
  memcpy(at, data, size);
  unsigned spare = (unsigned)(size * 8 - units * s->kind->unit_bits(l));
  if (spare) at[size - 1] &= (unsigned char)(0xFFu >> spare);
  f->e->headers[i].count = saturating_add(
      f->e->headers[i].count, s->kind->chunk_items(l, local, data));
  return SQLITE_OK;
}

int store_export(store *s, sqlite3_context *ctx) {
  int rc = chunks_settle(s);
  if (rc != SQLITE_OK) return rc;
  if (s->kind->export) return s->kind->export(s, ctx);
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
  export_fill fill = {s, e, blob};
  if (rc == SQLITE_OK) rc = chunks_each(s, copy_chunk, &fill);
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
