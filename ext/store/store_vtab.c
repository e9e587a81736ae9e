/*
** The stores: a filter kept in place, in page-sized shadow-table chunks, so
** that an insert costs the same at any size and is an ordinary,
** transactional SQLite write.  One virtual table module for every kind;
** what differs by kind is a store_layout (layout.h).
**
**   CREATE VIRTUAL TABLE seen USING bloom_store(fpr = 0.001);  -- grows
**   CREATE VIRTUAL TABLE big USING bloom_store(capacity = 10000000,
**                                               fpr = 0.001);   -- fixed
**   INSERT INTO seen(value) VALUES ('req-123');   -- one chunk row changes
**   INSERT INTO seen(value) SELECT request_id FROM processed;
**   SELECT EXISTS (SELECT 1 FROM seen WHERE value = :id);  -- 1 maybe, 0 no
**   SELECT filter FROM seen;      -- the whole filter as a BLOB
**   INSERT INTO seen(filter) VALUES (:blob);   -- merge (Bloom) or load
**   DELETE FROM live WHERE value = :id;        -- cuckoo_store only
**
** Columns: value (writing it adds the item, by the value rules of the
** *_build functions; NULL is not added) and filter HIDDEN.  A query must
** constrain value with = or IN (a row comes back for each value that may
** be present), or ask only for filter (one row, the filter).  The filter
** is what the kind's *_build gives over the same values (bloom_store: byte
** for byte, in any order; cuckoo_store: the same header and answers); for
** a scalable store, whose items go to the newest of its layers (layers.h),
** a layered filter of them (core/layered.h).
**
** A DELETE reaches xUpdate with only the rowid of a row the scan returned:
** the rowid of a probe row names the hash it was probed with (xRowid keeps
** it), so the delete removes one copy of that value.
**
** Transactions, as FTS5 keeps its pending terms: a write transaction reads
** the chunks it changes into a cache (chunk_cache.h) and writes the
** changed ones back at xSync, before each savepoint (so that SQLite's own
** journal can roll them back), and when the cache outgrows its budget
** (past it, a Bloom store defers adds as hashes: bloom_layout.c).
** ROLLBACK and ROLLBACK TO empty the cache, drop the deferred adds and
** have a scalable store read its layers again; the pager undoes what was
** written.  Reads in the same transaction look in the cache first.
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/bloom.h"
#include "core/layered.h"
#include "functions/value_hash.h"
#include "store/layers.h"
#include "store/layout.h"
#include "store/store.h"


enum { COL_VALUE, COL_FILTER };

typedef struct store_cursor {
  sqlite3_vtab_cursor base;
  int plan;                /* PLAN_* of xFilter */
  sqlite3_value **values;  /* IN: the rows, values that may be present */
  filter_hash *hashes;     /* IN: their hashes, for xRowid */
  int count, next;         /* rows, and the one the cursor is on */
  /* =: the one value, kept without an allocation when it is a number */
  int eq_type;
  sqlite3_int64 eq_integer;
  double eq_real;
  sqlite3_value *eq_copy;  /* TEXT or BLOB */
  filter_hash eq_hash;
} store_cursor;

enum { PLAN_FILTER = 0, PLAN_EQ = 1, PLAN_IN = 2, PLAN_NONE = 3 };

/* --- errors ------------------------------------------------------------ */

int store_error(store *s, const char *fmt, ...) {
  char detail[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  sqlite3_free(s->base.zErrMsg);
  s->base.zErrMsg = sqlite3_mprintf("%s: %s", s->function->name, detail);
  return s->base.zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
}

/* Chunk ids in messages are the rows' ids in <name>_chunks. */
static int chunk_missing(store *s, int64_t id) {
  return store_error(s, "chunk %lld of %s is missing: the store is damaged",
                     (long long)id, s->tables.name);
}

static int chunk_damaged(store *s, const store_layer *l, int64_t local,
                         int len) {
  return store_error(s, "chunk %lld of %s has %d bytes, expected a BLOB of "
                     "%d: the store is damaged",
                     (long long)(l->first_chunk + local), s->tables.name, len,
                     store_chunk_bytes(s, l, local));
}

/* --- geometry ---------------------------------------------------------- */

uint32_t store_units_in_chunk(const store_layer *l, int64_t local) {
  uint64_t first = (uint64_t)local * l->chunk_units;
  uint64_t left = l->units - first;
  return left < l->chunk_units ? (uint32_t)left : l->chunk_units;
}

int store_chunk_bytes(const store *s, const store_layer *l, int64_t local) {
  return (int)(s->layout->unit_bytes(l, store_units_in_chunk(l, local)) +
               s->layout->counter_bytes);
}

/* Where the layer's chunk `local` begins in the layer's body. */
static uint64_t body_offset(const store *s, const store_layer *l,
                            int64_t local) {
  return s->layout->unit_bytes(l, (uint64_t)local * l->chunk_units);
}

/* The layer holding chunk id (ids run through the layers in order), or
** NULL if no layer does. */
static const store_layer *layer_of(const store *s, int64_t id) {
  for (int i = s->layer_count - 1; i >= 0; i--) {
    const store_layer *l = &s->layers[i];
    if (id >= l->first_chunk) return id < l->first_chunk + l->chunks ? l : NULL;
  }
  return NULL;
}

static const store_layer *newest(const store *s) {
  return &s->layers[s->layer_count - 1];
}

/* --- chunk access ------------------------------------------------------ */

/* Keeps the unchanged chunks of the cache only if no transaction, of this
** connection or another, committed since they were read. */
static int revalidate_cache(store *s) {
  if (s->layers_stale) {
    cache_clear(&s->cache);
    int rc = store_refresh_layers(s);
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
  return store_refresh_layers(s);
}

int store_get_chunk(store *s, const store_layer *l, int64_t local, int load,
                    const unsigned char **bytes, cached_chunk **cached,
                    sqlite3_stmt **held) {
  int64_t id = l->first_chunk + local;
  int size = store_chunk_bytes(s, l, local);
  *held = NULL;
  *cached = cache_find(&s->cache, id);
  if (*cached) {
    /* Read under another layout: the configuration changed under us. */
    if ((*cached)->size != (size_t)size)
      return chunk_damaged(s, l, local, (int)(*cached)->size);
    *bytes = (*cached)->bytes;
    return SQLITE_OK;
  }
  sqlite3_stmt *stmt;
  const void *data = NULL;
  int rc = shadow_find_chunk(&s->tables, id, &stmt);
  if (rc == SQLITE_DONE && !s->scalable) return chunk_missing(s, id);
  if (rc == SQLITE_ROW) {
    data = sqlite3_column_blob(stmt, 0);
    int len = sqlite3_column_bytes(stmt, 0);
    if (len != size || sqlite3_column_type(stmt, 0) != SQLITE_BLOB) {
      shadow_done(stmt);
      return chunk_damaged(s, l, local, len);
    }
    if (data == NULL) {
      shadow_done(stmt);
      return SQLITE_NOMEM;
    }
    if (!load && store_cache_full(s, (size_t)size)) {
      *bytes = data;
      *held = stmt;
      return SQLITE_OK;
    }
  } else if (rc != SQLITE_DONE) {
    return rc;
  } else if (!load) {
    *bytes = NULL; /* a scalable store's chunk not written yet: zeros */
    return SQLITE_OK;
  }
  unsigned char *copy = sqlite3_malloc64((sqlite3_uint64)size);
  if (copy && data) memcpy(copy, data, (size_t)size);
  if (copy && !data) memset(copy, 0, (size_t)size);
  if (data) shadow_done(stmt);
  if (copy == NULL) return SQLITE_NOMEM;
  *cached = cache_add(&s->cache, id, copy, (size_t)size);
  if (*cached == NULL) return SQLITE_NOMEM;
  *bytes = copy;
  return SQLITE_OK;
}

int store_cache_full(const store *s, size_t more) {
  return s->cache.bytes + more > STORE_CACHE_BUDGET_BYTES;
}

int store_load_all(store *s, const store_layer *l) {
  for (int64_t local = 0; local < l->chunks; local++) {
    const unsigned char *bytes;
    cached_chunk *cached;
    sqlite3_stmt *held;
    int rc = store_get_chunk(s, l, local, 1, &bytes, &cached, &held);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

/* Applies the adds the layout deferred, if any. */
static int settle(store *s) {
  return s->deferred_count ? s->layout->settle(s) : SQLITE_OK;
}

/* Writes every change back; keeps the chunks cached unless `drop`. */
int store_write_chunk(store *s, const store_layer *l, int64_t local,
                      const unsigned char *bytes) {
  int64_t id = l->first_chunk + local;
  int size = store_chunk_bytes(s, l, local);
  /* A layer's rows are created when first written. */
  int rc = s->scalable ? shadow_put_chunk(&s->tables, id, bytes, size)
                       : shadow_write_chunk(&s->tables, id, bytes, size);
  return rc == SQLITE_CORRUPT_VTAB ? chunk_missing(s, id) : rc;
}

static int flush(store *s, int drop) {
  int settled = settle(s);
  if (settled != SQLITE_OK) return settled;
  size_t done = 0;
  int rc = SQLITE_OK;
  for (; rc == SQLITE_OK && done < s->cache.dirty; done++) {
    int64_t id = s->cache.dirty_ids[done];
    const cached_chunk *c = cache_find(&s->cache, id);
    const store_layer *l = layer_of(s, id);
    if (c == NULL || l == NULL) {
      rc = chunk_missing(s, id);
      break;
    }
    int size = store_chunk_bytes(s, l, id - l->first_chunk);
    if (c->size != (size_t)size) {
      rc = chunk_damaged(s, l, id - l->first_chunk, (int)c->size);
      break;
    }
    rc = store_write_chunk(s, l, id - l->first_chunk, c->bytes);
    if (rc != SQLITE_OK) break;
  }
  cache_mark_clean_first(&s->cache, done);
  if (rc != SQLITE_OK) return rc;
  if (drop) cache_clear(&s->cache);
  return SQLITE_OK;
}

/* Hashes a value for the store: ARG_OK with *h, ARG_NULL, or SQLITE_NOMEM
** (as a negative). */
static arg_status hash_of(const store *s, sqlite3_value *value,
                          filter_hash *h) {
  return value_hash(value, sqlite3_value_type(value), s->header.seed, h);
}

/* A change that loads every chunk it touches (a cuckoo relocation does)
** can take the cache past its budget: then the cache is written back and
** emptied first.  A Bloom store never gets there (it defers instead). */
static int make_room(store *s) {
  return s->cache.bytes > STORE_CACHE_BUDGET_BYTES ? flush(s, 1) : SQLITE_OK;
}

static int add_value(store *s, sqlite3_value *value) {
  filter_hash h;
  arg_status st = hash_of(s, value, &h);
  if (st == ARG_NULL) return SQLITE_OK; /* NULL is never added */
  if (st == ARG_ERROR) return SQLITE_NOMEM;
  int rc = make_room(s);
  if (rc != SQLITE_OK) return rc;
  rc = s->layout->add(s, newest(s), h);
  if (rc != STORE_LAYER_FULL) return rc;
  /* Only the newest layer takes items: when it is full, the next one
  ** (the adds deferred to the full one applied first). */
  rc = settle(s);
  if (rc == SQLITE_OK) rc = store_add_layer(s);
  if (rc != SQLITE_OK) return rc;
  rc = s->layout->add(s, newest(s), h);
  return rc == STORE_LAYER_FULL
             ? store_error(s, "a new layer of %s refused an item",
                           s->tables.name)
             : rc;
}

/* INSERT INTO t(filter): the layout merges or loads it. */
static int load_filter(store *s, sqlite3_value *blob) {
  int rc = settle(s);
  if (rc != SQLITE_OK) return rc;
  if (s->scalable)
    return store_error(s, "a scalable store takes values, not a filter: "
                       "insert the values, or create a fixed store (capacity "
                       "without growth) to %s a filter", s->layout->load_verb);
  if (sqlite3_value_type(blob) != SQLITE_BLOB)
    return store_error(s, "the filter to %s must be a BLOB",
                       s->layout->load_verb);
  filter_view f;
  char why[160];
  if (filter_parse(sqlite3_value_blob(blob), (size_t)sqlite3_value_bytes(blob),
                   s->layout->kind, &f, why, sizeof why) != 0)
    return store_error(s, "%s", why);
  return s->layout->load(s, &f);
}

/* Where the layers go in an exported blob: a fixed store's one filter is
** the blob; a scalable store's layers follow a layered header
** (ext/FORMAT.md, kind 3; core/layered.h places them). */
typedef struct export_plan {
  uint64_t bytes;                      /* of the blob */
  uint64_t layer_at[STORE_MAX_LAYERS]; /* each layer's header */
  uint64_t count[STORE_MAX_LAYERS];    /* items counted so far */
  filter_header headers[STORE_MAX_LAYERS];
  layered_params params;
} export_plan;

static int plan_export(store *s, export_plan *p) {
  for (int i = 0; i < s->layer_count; i++) {
    p->headers[i] = s->layers[i].header;
    p->count[i] = 0;
  }
  if (!s->scalable) {
    p->layer_at[0] = 0;
    p->bytes = FILTER_HEADER_BYTES +
               s->layout->unit_bytes(&s->layers[0], s->layers[0].units);
    return SQLITE_OK;
  }
  p->params.growth = s->growth;
  p->params.tightening = s->tightening;
  p->params.target_fpr = s->header.target_fpr;
  layered_placement plan;
  char why[160];
  if (layered_place(p->headers, (unsigned)s->layer_count, &p->params,
                    &plan, why, sizeof why) != 0)
    return store_error(s, "the layers of %s cannot be exported: %s",
                       s->tables.name, why);
  for (int i = 0; i < s->layer_count; i++) p->layer_at[i] = plan.layer_offset[i];
  p->bytes = plan.total_bytes;
  return SQLITE_OK;
}

/* The headers, once the items are counted. */
static void write_headers(store *s, export_plan *p, unsigned char *blob) {
  for (int i = 0; i < s->layer_count; i++) p->headers[i].count = p->count[i];
  if (!s->scalable) {
    filter_write_header(blob, &p->headers[0]);
    return;
  }
  layered_placement plan;
  char why[160];
  /* The same layers as planned: it cannot fail now. */
  if (layered_place(p->headers, (unsigned)s->layer_count, &p->params,
                    &plan, why, sizeof why) == 0)
    layered_write_header(blob, p->headers, &p->params, &plan);
}

/* Copies one chunk's units into its layer's body and counts its items. */
static void export_chunk(const store *s, export_plan *p, unsigned char *blob,
                         const store_layer *l, int64_t local,
                         const unsigned char *data) {
  int i = (int)(l - s->layers);
  memcpy(blob + p->layer_at[i] + FILTER_HEADER_BYTES + body_offset(s, l, local),
         data, (size_t)s->layout->unit_bytes(l, store_units_in_chunk(l, local)));
  p->count[i] = saturating_add(p->count[i],
                               s->layout->chunk_items(l, local, data));
}

/* Reads the chunk rows into the blob, but for those the cache holds
** changed (the caller copies those).  A fixed store has every row; a scalable store's
** rows not yet written are zeros. */
static int export_rows(store *s, export_plan *p, unsigned char *blob) {
  sqlite3_stmt *scan = NULL;
  int rc = shadow_scan_chunks(&s->tables, &scan);
  int64_t expect = 0;
  while (rc == SQLITE_OK && (rc = sqlite3_step(scan)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(scan, 0);
    const store_layer *l = layer_of(s, id);
    if (l == NULL) {
      rc = store_error(s, "chunk %lld of %s is outside the layout: the store "
                       "is damaged", (long long)id, s->tables.name);
      break;
    }
    if (!s->scalable && id != expect) {
      rc = chunk_missing(s, expect);
      break;
    }
    expect = id + 1;
    rc = SQLITE_OK;
    /* A changed chunk comes from the cache; an unchanged one the cache
    ** holds is the row itself. */
    if (s->cache.dirty) {
      const cached_chunk *cached = cache_find(&s->cache, id);
      if (cached && cached->dirty) continue;
    }
    int64_t local = id - l->first_chunk;
    const unsigned char *data = sqlite3_column_blob(scan, 1);
    int len = sqlite3_column_bytes(scan, 1);
    if (len != store_chunk_bytes(s, l, local) ||
        sqlite3_column_type(scan, 1) != SQLITE_BLOB) {
      rc = chunk_damaged(s, l, local, len);
      break;
    }
    if (data == NULL) {
      rc = SQLITE_NOMEM;
      break;
    }
    export_chunk(s, p, blob, l, local, data);
  }
  if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
    const store_layer *last = newest(s);
    if (!s->scalable && expect != last->first_chunk + last->chunks)
      rc = chunk_missing(s, expect);
  }
  if (scan) shadow_done(scan);
  return rc;
}

/* The whole filter as a blob of FORMAT.md, the result of ctx. */
static int export_filter(store *s, sqlite3_context *ctx) {
  int rc = settle(s);
  if (rc != SQLITE_OK) return rc;
  export_plan *p = sqlite3_malloc(sizeof *p);
  if (p == NULL) return SQLITE_NOMEM;
  rc = plan_export(s, p);
  if (rc != SQLITE_OK) {
    sqlite3_free(p);
    return rc;
  }
  int limit = sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1);
  if (p->bytes > (uint64_t)limit) {
    sqlite3_free(p);
    sqlite3_result_error_toobig(ctx);
    return SQLITE_OK;
  }
  unsigned char *blob = sqlite3_malloc64(p->bytes);
  if (blob == NULL) {
    sqlite3_free(p);
    return SQLITE_NOMEM;
  }
  if (s->scalable) memset(blob, 0, (size_t)p->bytes);
  rc = export_rows(s, p, blob);
  for (size_t i = 0; rc == SQLITE_OK && i < s->cache.dirty; i++) {
    const cached_chunk *c = cache_find(&s->cache, s->cache.dirty_ids[i]);
    const store_layer *l = c ? layer_of(s, c->id) : NULL;
    if (l && c->size != (size_t)store_chunk_bytes(s, l, c->id - l->first_chunk))
      rc = chunk_damaged(s, l, c->id - l->first_chunk, (int)c->size);
    else if (l)
      export_chunk(s, p, blob, l, c->id - l->first_chunk, c->bytes);
  }
  if (rc == SQLITE_OK) write_headers(s, p, blob);
  uint64_t bytes = p->bytes;
  sqlite3_free(p);
  if (rc != SQLITE_OK) {
    sqlite3_free(blob);
    return rc;
  }
  /* Exactly the blob's size, as SQLite allocates a BLOB it reads: the
  ** allocator then serves both alike. */
  sqlite3_result_blob64(ctx, blob, bytes, sqlite3_free);
  return SQLITE_OK;
}

/* --- create, connect, configuration ------------------------------------ */

static void store_free(store *s) {
  if (s == NULL) return;
  cache_clear(&s->cache);
  sqlite3_free(s->deferred);
  shadow_free(&s->tables);
  sqlite3_free(s->marked);
  sqlite3_free(s->base.zErrMsg);
  sqlite3_free(s);
}

static int store_open_vtab(sqlite3 *db, void *aux, int argc,
                           const char *const *argv, sqlite3_vtab **out,
                           char **err, int create) {
  const sql_function *row = aux;
  *out = NULL;
  store_options options;
  char why[200];
  if (create &&
      store_parse_options(argc - 3, argv + 3, &options, why, sizeof why) != 0) {
    *err = sqlite3_mprintf("%s: %s", row->name, why);
    return SQLITE_ERROR;
  }
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(value, filter HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  store *s = sqlite3_malloc(sizeof *s);
  if (s == NULL) return SQLITE_NOMEM;
  memset(s, 0, sizeof *s);
  s->small_layer.layer = -1;
  s->function = row;
  s->layout = row->kind == FILTER_KIND_CUCKOO ? &store_cuckoo_layout
                                              : &store_bloom_layout;
  rc = shadow_init(&s->tables, db, argv[1], argv[2]);
  if (rc == SQLITE_OK) {
    if (create) {
      rc = shadow_create(&s->tables);
      if (rc == SQLITE_OK) rc = store_write_config(s, &options);
    } else {
      rc = store_read_config(s);
    }
  }
  if (rc != SQLITE_OK) {
    if (s->base.zErrMsg)
      *err = sqlite3_mprintf("%s", s->base.zErrMsg);
    else if (rc != SQLITE_NOMEM)
      *err = sqlite3_mprintf("%s: %s", row->name, sqlite3_errmsg(db));
    store_free(s);
    return rc;
  }
  /* Safe in triggers and views under trusted_schema=OFF: it only reads and
  ** writes its own tables. */
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *out = &s->base;
  return SQLITE_OK;
}

static int store_create(sqlite3 *db, void *aux, int argc,
                        const char *const *argv, sqlite3_vtab **out,
                        char **err) {
  return store_open_vtab(db, aux, argc, argv, out, err, 1);
}

static int store_connect(sqlite3 *db, void *aux, int argc,
                         const char *const *argv, sqlite3_vtab **out,
                         char **err) {
  return store_open_vtab(db, aux, argc, argv, out, err, 0);
}

static int store_disconnect(sqlite3_vtab *vtab) {
  store_free((store *)vtab);
  return SQLITE_OK;
}

static int store_destroy(sqlite3_vtab *vtab) {
  store *s = (store *)vtab;
  int rc = shadow_drop(&s->tables);
  if (rc == SQLITE_OK) store_free(s);
  return rc;
}

/* --- queries ----------------------------------------------------------- */

/* value = x gives a row when x may be present; value IN (...) a row for
** each such x; a query that asks only for filter gets one row.  Anything
** else would have to list the items, which a filter cannot do. */
static int store_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info) {
  store *s = (store *)vtab;
  int eq = -1, unusable = 0;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->iColumn == COL_VALUE && c->op == SQLITE_INDEX_CONSTRAINT_ISNULL &&
        c->usable) {
      /* value IS NULL: a filter never holds NULL. */
      info->aConstraintUsage[i].omit = 1;
      info->idxNum = PLAN_NONE;
      info->estimatedCost = 1;
      info->estimatedRows = 1;
      return SQLITE_OK;
    }
    /* value IS x asks the same as value = x (and IS NULL: no row). */
    if (c->iColumn != COL_VALUE || (c->op != SQLITE_INDEX_CONSTRAINT_EQ &&
                                    c->op != SQLITE_INDEX_CONSTRAINT_IS))
      continue;
    if (c->usable) {
      eq = i;
      break;
    }
    unusable = 1;
  }
  if (eq >= 0) {
    info->aConstraintUsage[eq].argvIndex = 1;
    info->aConstraintUsage[eq].omit = 1;
    info->idxNum = sqlite3_vtab_in(info, eq, 1) ? PLAN_IN : PLAN_EQ;
    info->estimatedCost = 10;
    info->estimatedRows = 1;
    return SQLITE_OK;
  }
  if (unusable) return SQLITE_CONSTRAINT; /* a plan that supplies it exists */
  if (info->colUsed & ((sqlite3_uint64)1 << COL_VALUE))
    return store_error(s, "a filter cannot list its items: query it with "
                       "WHERE value = ... or value IN (...), or select only "
                       "the filter column");
  info->idxNum = PLAN_FILTER;
  info->estimatedCost = 1e6;
  info->estimatedRows = 1;
  return SQLITE_OK;
}

static void cursor_reset(store_cursor *c) {
  sqlite3_value_free(c->eq_copy);
  c->eq_copy = NULL;
  /* The filter row has no values; a probe row's value is a copy. */
  for (int i = 0; c->values && i < c->count; i++)
    sqlite3_value_free(c->values[i]);
  sqlite3_free(c->values);
  sqlite3_free(c->hashes);
  c->values = NULL;
  c->hashes = NULL;
  c->count = c->next = 0;
}

static int store_open(sqlite3_vtab *vtab, sqlite3_vtab_cursor **out) {
  (void)vtab;
  store_cursor *c = sqlite3_malloc(sizeof *c);
  if (c == NULL) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *out = &c->base;
  return SQLITE_OK;
}

static int store_close(sqlite3_vtab_cursor *cur) {
  cursor_reset((store_cursor *)cur);
  sqlite3_free(cur);
  return SQLITE_OK;
}

/* 1 if the value may be in the store (its hash in *h), 0 if not or NULL,
** or a negated error code. */
static int probe(store *s, sqlite3_value *value, filter_hash *h) {
  arg_status st = hash_of(s, value, h);
  if (st == ARG_NULL) return 0; /* NULL = x is never true */
  if (st == ARG_ERROR) return -SQLITE_NOMEM;
  int rc = settle(s);
  if (rc != SQLITE_OK) return -rc;
  if (s->layout->contains_any) return s->layout->contains_any(s, *h);
  /* The newest layer holds the most items: ask it first. */
  for (int i = s->layer_count - 1; i >= 0; i--) {
    int maybe = s->layout->contains(s, &s->layers[i], *h);
    if (maybe != 0) return maybe;
  }
  return 0;
}

/* Adds value as a row of the cursor if the store may hold it. */
static int probe_into(store *s, store_cursor *c, sqlite3_value *value,
                      int room) {
  filter_hash h;
  int maybe = probe(s, value, &h);
  if (maybe <= 0) return -maybe;
  if (c->count == room) return SQLITE_OK; /* cannot happen: room is exact */
  c->values[c->count] = sqlite3_value_dup(value);
  if (c->values[c->count] == NULL) return SQLITE_NOMEM;
  c->hashes[c->count] = h;
  c->count++;
  return SQLITE_OK;
}

/* value = x: a row if x may be present, its value kept for xColumn. */
static int probe_equal(store *s, store_cursor *c, sqlite3_value *value) {
  int maybe = probe(s, value, &c->eq_hash);
  if (maybe <= 0) return -maybe;
  int type = sqlite3_value_type(value);
  c->eq_type = type;
  if (type == SQLITE_INTEGER) {
    c->eq_integer = sqlite3_value_int64(value);
  } else if (type == SQLITE_FLOAT) {
    c->eq_real = sqlite3_value_double(value);
  } else {
    c->eq_copy = sqlite3_value_dup(value);
    if (c->eq_copy == NULL) return SQLITE_NOMEM;
  }
  c->count = 1;
  return SQLITE_OK;
}

static int store_filter(sqlite3_vtab_cursor *cur, int plan, const char *unused,
                        int argc, sqlite3_value **argv) {
  (void)unused;
  (void)argc;
  store_cursor *c = (store_cursor *)cur;
  store *s = (store *)cur->pVtab;
  cursor_reset(c);
  /* Outside a write transaction no DELETE can follow: forget the rows. */
  if (!s->in_write) s->marked_count = 0;
  c->plan = plan;
  if (plan == PLAN_FILTER) {
    c->count = 1; /* the filter row; its column is read lazily */
    return revalidate_cache(s);
  }
  if (plan == PLAN_NONE) return SQLITE_OK;
  int rc = revalidate_cache(s);
  if (rc != SQLITE_OK) return rc;
  if (plan == PLAN_EQ) return probe_equal(s, c, argv[0]);
  int room = 0;
  sqlite3_value *v;
  for (rc = sqlite3_vtab_in_first(argv[0], &v); rc == SQLITE_OK && v;
       rc = sqlite3_vtab_in_next(argv[0], &v))
    room++;
  if (rc != SQLITE_OK && rc != SQLITE_DONE) return rc;
  if (room == 0) return SQLITE_OK;
  c->values = sqlite3_malloc64((sqlite3_uint64)room * sizeof *c->values);
  c->hashes = sqlite3_malloc64((sqlite3_uint64)room * sizeof *c->hashes);
  if (c->values == NULL || c->hashes == NULL) return SQLITE_NOMEM;
  for (rc = sqlite3_vtab_in_first(argv[0], &v); rc == SQLITE_OK && v;
       rc = sqlite3_vtab_in_next(argv[0], &v)) {
    int prc = probe_into(s, c, v, room);
    if (prc != SQLITE_OK) return prc;
  }
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int store_next(sqlite3_vtab_cursor *cur) {
  ((store_cursor *)cur)->next++;
  return SQLITE_OK;
}

static int store_eof(sqlite3_vtab_cursor *cur) {
  const store_cursor *c = (const store_cursor *)cur;
  return c->next >= c->count;
}

static int store_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                        int col) {
  store_cursor *c = (store_cursor *)cur;
  store *s = (store *)cur->pVtab;
  if (col == COL_VALUE) {
    if (c->plan == PLAN_IN)
      sqlite3_result_value(ctx, c->values[c->next]);
    else if (c->plan == PLAN_EQ && c->eq_type == SQLITE_INTEGER)
      sqlite3_result_int64(ctx, c->eq_integer);
    else if (c->plan == PLAN_EQ && c->eq_type == SQLITE_FLOAT)
      sqlite3_result_double(ctx, c->eq_real);
    else if (c->plan == PLAN_EQ)
      sqlite3_result_value(ctx, c->eq_copy);
    return SQLITE_OK;
  }
  if (col == COL_FILTER && c->plan == PLAN_FILTER) {
    return export_filter(s, ctx);
  }
  return SQLITE_OK;
}

/* A probe row's rowid numbers its hash among those marked (from 1); the
** filter row's is 0. */
static int store_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  store_cursor *c = (store_cursor *)cur;
  store *s = (store *)cur->pVtab;
  *rowid = 0;
  if (c->plan != PLAN_EQ && c->plan != PLAN_IN) return SQLITE_OK;
  if (s->marked_count == s->marked_room) {
    int64_t room = s->marked_room ? 2 * s->marked_room : 16;
    filter_hash *m = sqlite3_realloc64(s->marked, (sqlite3_uint64)room *
                                                      sizeof *m);
    if (m == NULL) return SQLITE_NOMEM;
    s->marked = m;
    s->marked_room = room;
  }
  s->marked[s->marked_count++] =
      c->plan == PLAN_EQ ? c->eq_hash : c->hashes[c->next];
  *rowid = s->marked_count;
  return SQLITE_OK;
}

/* --- writes ------------------------------------------------------------ */

static int delete_row(store *s, sqlite3_value *rowid) {
  if (s->layout->no_delete) return store_error(s, "%s", s->layout->no_delete);
  sqlite3_int64 r = sqlite3_value_int64(rowid);
  if (r < 1 || r > s->marked_count)
    return store_error(s, "DELETE removes a value: write DELETE FROM %s "
                       "WHERE value = ... (or value IN (...))",
                       s->tables.name);
  int rc = make_room(s);
  if (rc != SQLITE_OK) return rc;
  /* One copy, from the one layer whose buckets hold its fingerprint.  When
  ** several layers do, one of them may hold another value's colliding
  ** fingerprint (as often as the store's rate): taking that one would make
  ** the other value a false negative, so nothing is removed and the value
  ** stays "maybe present", which a filter may say of anything.  None: an
  ** earlier row of the same DELETE took it. */
  filter_hash h = s->marked[r - 1];
  int holder = -1, holders = 0;
  for (int i = s->layer_count - 1; i >= 0; i--) {
    int maybe = s->layout->contains(s, &s->layers[i], h);
    if (maybe < 0) return -maybe;
    if (maybe) {
      holder = i;
      holders++;
    }
  }
  if (holders != 1) return SQLITE_OK;
  int removed = s->layout->remove(s, &s->layers[holder], h);
  return removed < 0 ? -removed : SQLITE_OK;
}

static int store_update(sqlite3_vtab *vtab, int argc, sqlite3_value **argv,
                        sqlite3_int64 *rowid) {
  store *s = (store *)vtab;
  if (s->layers_stale) {
    int rc = revalidate_cache(s);
    if (rc != SQLITE_OK) return rc;
  }
  if (argc == 1) return delete_row(s, argv[0]);
  if (sqlite3_value_type(argv[0]) != SQLITE_NULL)
    return store_error(s, "%s", s->layout->no_update);
  *rowid = 0;
  sqlite3_value *value = argv[2 + COL_VALUE], *filter = argv[2 + COL_FILTER];
  int has_value = sqlite3_value_type(value) != SQLITE_NULL;
  int has_filter = sqlite3_value_type(filter) != SQLITE_NULL;
  if (has_value && has_filter)
    return store_error(s, "insert a value or a filter, not both in one row");
  return has_filter ? load_filter(s, filter) : add_value(s, value);
}

static int store_begin(sqlite3_vtab *vtab) {
  store *s = (store *)vtab;
  s->in_write = 1;
  s->marked_count = 0;
  return revalidate_cache(s);
}

static int store_sync(sqlite3_vtab *vtab) {
  return flush((store *)vtab, 0);
}

/* The end of a write transaction: the rows SQLite could name are gone. */
static void transaction_over(store *s) {
  s->in_write = 0;
  s->marked_count = 0;
}

/* After COMMIT the cached chunks are what the database holds, and stay
** (the data version tells the next statement whether they still are);
** after ROLLBACK they are dropped.  The commit itself changed the data
** version: read it now, before this connection can see another's commit
** (its pager looks again only when the next transaction starts), so that
** our own commit does not empty the cache. */
static int store_commit(sqlite3_vtab *vtab) {
  store *s = (store *)vtab;
  unsigned version = 0;
  if (s->data_version_known &&
      sqlite3_file_control(s->tables.db, s->tables.schema,
                           SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK)
    s->data_version = version;
  else
    s->data_version_known = 0;
  transaction_over(s);
  return SQLITE_OK;
}

/* A rollback may undo a layer the transaction added: read the
** configuration again before the store is next used. */
static void changes_undone(store *s) {
  cache_clear(&s->cache);
  s->deferred_count = 0;
  if (s->scalable) s->layers_stale = 1;
}

static int store_rollback(sqlite3_vtab *vtab) {
  changes_undone((store *)vtab);
  transaction_over((store *)vtab);
  return SQLITE_OK;
}

static int store_savepoint(sqlite3_vtab *vtab, int savepoint) {
  (void)savepoint;
  return flush((store *)vtab, 0);
}

static int store_release(sqlite3_vtab *vtab, int savepoint) {
  (void)vtab;
  (void)savepoint;
  return SQLITE_OK;
}

static int store_rollback_to(sqlite3_vtab *vtab, int savepoint) {
  (void)savepoint;
  changes_undone((store *)vtab);
  return SQLITE_OK;
}

static int store_rename(sqlite3_vtab *vtab, const char *new_name) {
  store *s = (store *)vtab;
  int rc = flush(s, 1);
  return rc == SQLITE_OK ? shadow_rename(&s->tables, new_name) : rc;
}

const sqlite3_module store_module = {
    .iVersion = 3,
    .xCreate = store_create,
    .xConnect = store_connect,
    .xBestIndex = store_best_index,
    .xDisconnect = store_disconnect,
    .xDestroy = store_destroy,
    .xOpen = store_open,
    .xClose = store_close,
    .xFilter = store_filter,
    .xNext = store_next,
    .xEof = store_eof,
    .xColumn = store_column,
    .xRowid = store_rowid,
    .xUpdate = store_update,
    .xBegin = store_begin,
    .xSync = store_sync,
    .xCommit = store_commit,
    .xRollback = store_rollback,
    .xRename = store_rename,
    .xSavepoint = store_savepoint,
    .xRelease = store_release,
    .xRollbackTo = store_rollback_to,
    .xShadowName = shadow_is_suffix,
};
