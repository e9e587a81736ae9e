/*
** The stores: a filter kept in place, in page-sized shadow-table chunks, so
** that an insert costs the same at any size and is an ordinary,
** transactional SQLite write.  One virtual table module for every kind;
** what differs by kind is a store_layout (layout.h).
**
**   CREATE VIRTUAL TABLE seen USING bloom_store(capacity = 10000000,
**                                                fpr = 0.001);
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
** for byte, in any order; cuckoo_store: the same header and answers).
**
** A DELETE reaches xUpdate with only the rowid of a row the scan returned:
** the rowid of a probe row names the hash it was probed with (xRowid keeps
** it), so the delete removes one copy of that value.
**
** Transactions, as FTS5 keeps its pending terms: a write transaction reads
** the chunks it changes into a cache (chunk_cache.h) and writes the
** changed ones back at xSync, before each savepoint (so that SQLite's own
** journal can roll them back), and when the cache outgrows its budget.
** ROLLBACK and ROLLBACK TO empty the cache; the pager undoes what was
** written.  Reads in the same transaction look in the cache first.
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/bloom.h"
#include "functions/aligned.h"
#include "functions/value_hash.h"
#include "store/layout.h"
#include "store/store.h"

/* Chunks held in memory: past this, changed ones are written back and the
** cache emptied, and reads stop adding to it. */
#define CACHE_BUDGET_BYTES (64u << 20)

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

static int chunk_missing(store *s, int64_t id) {
  return store_error(s, "chunk %lld of %s is missing: the store is damaged",
                     (long long)id, s->tables.name);
}

static int chunk_damaged(store *s, int64_t id, int len) {
  return store_error(s, "chunk %lld of %s has %d bytes, expected a BLOB of "
                     "%d: the store is damaged", (long long)id,
                     s->tables.name, len, store_chunk_bytes(s, id));
}

/* --- geometry ---------------------------------------------------------- */

uint32_t store_units_in_chunk(const store *s, int64_t id) {
  uint64_t first = (uint64_t)id * s->chunk_units;
  uint64_t left = s->units - first;
  return left < s->chunk_units ? (uint32_t)left : s->chunk_units;
}

int store_chunk_bytes(const store *s, int64_t id) {
  return (int)(s->layout->unit_bytes(s, store_units_in_chunk(s, id)) +
               s->layout->counter_bytes);
}

/* Where chunk id's units begin in the filter's body. */
static uint64_t body_offset(const store *s, int64_t id) {
  return s->layout->unit_bytes(s, (uint64_t)id * s->chunk_units);
}

/* --- chunk access ------------------------------------------------------ */

/* Keeps the unchanged chunks of the cache only if no transaction, of this
** connection or another, committed since they were read. */
static void revalidate_cache(store *s) {
  if (s->cache.dirty) return; /* our own write transaction: current */
  unsigned version = 0;
  int rc = sqlite3_file_control(s->tables.db, s->tables.schema,
                                SQLITE_FCNTL_DATA_VERSION, &version);
  if (rc != SQLITE_OK || !s->data_version_known || version != s->data_version)
    cache_clear(&s->cache);
  s->data_version = version;
  s->data_version_known = rc == SQLITE_OK;
}

int store_get_chunk(store *s, int64_t id, int load, const unsigned char **bytes,
                    cached_chunk **cached, sqlite3_stmt **held) {
  *held = NULL;
  *cached = cache_find(&s->cache, id);
  if (*cached) {
    *bytes = (*cached)->bytes;
    return SQLITE_OK;
  }
  sqlite3_stmt *stmt;
  int rc = shadow_find_chunk(&s->tables, id, &stmt);
  if (rc == SQLITE_DONE) return chunk_missing(s, id);
  if (rc != SQLITE_ROW) return rc;
  const void *data = sqlite3_column_blob(stmt, 0);
  int len = sqlite3_column_bytes(stmt, 0);
  if (len != store_chunk_bytes(s, id) ||
      sqlite3_column_type(stmt, 0) != SQLITE_BLOB) {
    shadow_done(stmt);
    return chunk_damaged(s, id, len);
  }
  if (data == NULL) {
    shadow_done(stmt);
    return SQLITE_NOMEM;
  }
  if (!load && s->cache.bytes >= CACHE_BUDGET_BYTES) {
    *bytes = data;
    *held = stmt;
    return SQLITE_OK;
  }
  unsigned char *copy = sqlite3_malloc64((sqlite3_uint64)len);
  if (copy) memcpy(copy, data, (size_t)len);
  shadow_done(stmt);
  if (copy == NULL) return SQLITE_NOMEM;
  *cached = cache_add(&s->cache, id, copy, (size_t)len);
  if (*cached == NULL) return SQLITE_NOMEM;
  *bytes = copy;
  return SQLITE_OK;
}

int store_load_all(store *s) {
  for (int64_t id = 0; id < s->chunks; id++) {
    const unsigned char *bytes;
    cached_chunk *cached;
    sqlite3_stmt *held;
    int rc = store_get_chunk(s, id, 1, &bytes, &cached, &held);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

/* Writes every changed chunk back; keeps them cached unless `drop`. */
static int flush(store *s, int drop) {
  for (size_t i = 0; i < s->cache.capacity && s->cache.dirty; i++) {
    cached_chunk *c = &s->cache.slots[i];
    if (c->id < 0 || !c->dirty) continue;
    int rc = shadow_write_chunk(&s->tables, c->id, c->bytes,
                                store_chunk_bytes(s, c->id));
    if (rc == SQLITE_CORRUPT_VTAB) return chunk_missing(s, c->id);
    if (rc != SQLITE_OK) return rc;
    cache_mark_clean(&s->cache, c);
  }
  if (drop) cache_clear(&s->cache);
  return SQLITE_OK;
}

/* Hashes a value for the store: ARG_OK with *h, ARG_NULL, or SQLITE_NOMEM
** (as a negative). */
static arg_status hash_of(const store *s, sqlite3_value *value,
                          filter_hash *h) {
  return value_hash(value, sqlite3_value_type(value), s->header.seed, h);
}

static int add_value(store *s, sqlite3_value *value) {
  filter_hash h;
  arg_status st = hash_of(s, value, &h);
  if (st == ARG_NULL) return SQLITE_OK; /* NULL is never added */
  if (st == ARG_ERROR) return SQLITE_NOMEM;
  if (s->cache.bytes > CACHE_BUDGET_BYTES) {
    int rc = flush(s, 1);
    if (rc != SQLITE_OK) return rc;
  }
  return s->layout->add(s, h);
}

/* INSERT INTO t(filter): the layout merges or loads it. */
static int load_filter(store *s, sqlite3_value *blob) {
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

/* The whole filter as a blob of FORMAT.md, the result of ctx. */
static int export_filter(store *s, sqlite3_context *ctx) {
  uint64_t bytes = FILTER_HEADER_BYTES + s->layout->unit_bytes(s, s->units);
  int limit = sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1);
  if (bytes > (uint64_t)limit) {
    sqlite3_result_error_toobig(ctx);
    return SQLITE_OK;
  }
  unsigned char *blob = sql_aligned_alloc(bytes);
  if (blob == NULL) return SQLITE_NOMEM;
  sqlite3_stmt *scan = NULL;
  int rc = shadow_scan_chunks(&s->tables, &scan);
  uint64_t count = 0;
  int64_t expect = 0;
  while (rc == SQLITE_OK && (rc = sqlite3_step(scan)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(scan, 0);
    if (id < 0 || id >= s->chunks) {
      rc = store_error(s, "chunk %lld of %s is outside the layout: the store "
                       "is damaged", (long long)id, s->tables.name);
      break;
    }
    if (id != expect) {
      rc = chunk_missing(s, expect);
      break;
    }
    const unsigned char *data = sqlite3_column_blob(scan, 1);
    int len = sqlite3_column_bytes(scan, 1);
    cached_chunk *c = cache_find(&s->cache, id);
    if (c) {
      data = c->bytes;
    } else if (len != store_chunk_bytes(s, id) ||
               sqlite3_column_type(scan, 1) != SQLITE_BLOB) {
      rc = chunk_damaged(s, id, len);
      break;
    } else if (data == NULL) {
      rc = SQLITE_NOMEM;
      break;
    }
    memcpy(blob + FILTER_HEADER_BYTES + body_offset(s, id), data,
           (size_t)s->layout->unit_bytes(s, store_units_in_chunk(s, id)));
    count = saturating_add(count, s->layout->chunk_items(s, id, data));
    expect++;
    rc = SQLITE_OK;
  }
  if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
    if (expect != s->chunks) rc = chunk_missing(s, expect);
  }
  sqlite3_finalize(scan);
  if (rc != SQLITE_OK) {
    sql_aligned_free(blob);
    return rc;
  }
  filter_header h = s->header;
  h.count = count;
  filter_write_header(blob, &h);
  sqlite3_result_blob64(ctx, blob, bytes, sql_aligned_free);
  return SQLITE_OK;
}

/* --- create, connect, configuration ------------------------------------ */

static int config_damaged(store *s) {
  return store_error(s, "the configuration of %s is missing or damaged "
                     "(%s_config)", s->tables.name, s->tables.name);
}

/* The keys every kind has, then the layout's own. */
static const char *const common_keys[] = {"kind", "version", "capacity",
                                          "seed", "fpr"};
#define COMMON_KEYS 5

static int read_config(store *s) {
  const store_layout *l = s->layout;
  sqlite3_stmt *stmt;
  int rc = shadow_read_config(&s->tables, &stmt);
  if (rc != SQLITE_OK) return rc;
  sqlite3_int64 v[COMMON_KEYS + LAYOUT_MAX_KEYS] = {0};
  double fpr = 0;
  unsigned seen = 0, want = (1u << COMMON_KEYS) - 1;
  for (int k = 0; k < LAYOUT_MAX_KEYS && l->keys[k]; k++)
    want |= 1u << (COMMON_KEYS + k);
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const char *key = (const char *)sqlite3_column_text(stmt, 0);
    if (key == NULL) continue;
    for (int k = 0; k < COMMON_KEYS + LAYOUT_MAX_KEYS; k++) {
      const char *name = k < COMMON_KEYS ? common_keys[k]
                                         : l->keys[k - COMMON_KEYS];
      if (name == NULL || strcmp(key, name) != 0) continue;
      v[k] = sqlite3_column_int64(stmt, 1);
      if (k == 4) fpr = sqlite3_column_double(stmt, 1);
      seen |= 1u << k;
      break;
    }
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) return rc;
  if (seen != want || v[0] != (sqlite3_int64)l->kind ||
      v[1] != FILTER_VERSION || v[2] < 1 || !(fpr > 0 && fpr < 1) ||
      v[3] < 0 || v[3] > UINT32_MAX)
    return config_damaged(s);
  s->header = filter_header_new(l->kind, (uint64_t)v[2], fpr);
  s->header.seed = (uint32_t)v[3];
  if (l->configure(s, v + COMMON_KEYS) != 0) return config_damaged(s);
  s->chunks = (int64_t)((s->units + s->chunk_units - 1) / s->chunk_units);
  return SQLITE_OK;
}

static int page_size_of(sqlite3 *db, const char *schema, int *page_size) {
  sqlite3_stmt *stmt;
  char *sql = sqlite3_mprintf("PRAGMA \"%w\".page_size", schema);
  if (sql == NULL) return SQLITE_NOMEM;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_step(stmt);
  *page_size = rc == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : 4096;
  sqlite3_finalize(stmt);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int write_config(store *s, const store_options *o) {
  const store_layout *l = s->layout;
  int page_size;
  int rc = page_size_of(s->tables.db, s->tables.schema, &page_size);
  if (rc != SQLITE_OK) return rc;
  sqlite3_int64 v[LAYOUT_MAX_KEYS] = {0};
  rc = l->size(s, o, page_size, v);
  if (rc != SQLITE_OK) return rc;
  sqlite3_int64 common[] = {l->kind, FILTER_VERSION,
                            (sqlite3_int64)o->capacity, FILTER_DEFAULT_SEED};
  for (int k = 0; rc == SQLITE_OK && k < 4; k++)
    rc = shadow_put_config(&s->tables, common_keys[k], common[k]);
  for (int k = 0; rc == SQLITE_OK && k < LAYOUT_MAX_KEYS && l->keys[k]; k++)
    rc = shadow_put_config(&s->tables, l->keys[k], v[k]);
  if (rc == SQLITE_OK) rc = shadow_put_config_real(&s->tables, "fpr", o->fpr);
  if (rc == SQLITE_OK) rc = read_config(s);
  if (rc == SQLITE_OK) {
    int last = store_chunk_bytes(s, s->chunks - 1);
    rc = shadow_add_chunks(&s->tables, s->chunks, store_chunk_bytes(s, 0),
                           last);
  }
  return rc;
}

static void store_free(store *s) {
  if (s == NULL) return;
  cache_clear(&s->cache);
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
  s->function = row;
  s->layout = row->kind == FILTER_KIND_CUCKOO ? &store_cuckoo_layout
                                              : &store_bloom_layout;
  rc = shadow_init(&s->tables, db, argv[1], argv[2]);
  if (rc == SQLITE_OK) {
    if (create) {
      rc = shadow_create(&s->tables);
      if (rc == SQLITE_OK) rc = write_config(s, &options);
    } else {
      rc = read_config(s);
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
  return s->layout->contains(s, *h);
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
    return SQLITE_OK;
  }
  if (plan == PLAN_NONE) return SQLITE_OK;
  revalidate_cache(s);
  if (plan == PLAN_EQ) return probe_equal(s, c, argv[0]);
  int room = 0;
  sqlite3_value *v;
  int rc;
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
  if (s->cache.bytes > CACHE_BUDGET_BYTES) {
    int rc = flush(s, 1);
    if (rc != SQLITE_OK) return rc;
  }
  return s->layout->remove(s, s->marked[r - 1]);
}

static int store_update(sqlite3_vtab *vtab, int argc, sqlite3_value **argv,
                        sqlite3_int64 *rowid) {
  store *s = (store *)vtab;
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
  revalidate_cache(s);
  s->in_write = 1;
  s->marked_count = 0;
  return SQLITE_OK;
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
** after ROLLBACK they are dropped. */
static int store_commit(sqlite3_vtab *vtab) {
  transaction_over((store *)vtab);
  return SQLITE_OK;
}

static int store_rollback(sqlite3_vtab *vtab) {
  cache_clear(&((store *)vtab)->cache);
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
  cache_clear(&((store *)vtab)->cache);
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
