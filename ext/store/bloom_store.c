/*
** bloom_store: a Bloom filter kept in place, in page-sized shadow-table
** chunks, so that an insert costs the same at any size and is an ordinary,
** transactional SQLite write.
**
**   CREATE VIRTUAL TABLE seen USING bloom_store(capacity = 10000000,
**                                                fpr = 0.001);
**   INSERT INTO seen(value) VALUES ('req-123');   -- one chunk row changes
**   INSERT INTO seen(value) SELECT request_id FROM processed;
**   SELECT EXISTS (SELECT 1 FROM seen WHERE value = :id);  -- 1 maybe, 0 no
**   SELECT filter FROM seen;      -- the whole filter as a Bloom BLOB
**   INSERT INTO seen(filter) VALUES (:blob);   -- merge a filter (a union)
**
** Columns: value (writing it adds the item, by the value rules of
** bloom_build; NULL is not added) and filter HIDDEN.  A query must
** constrain value with = or IN (a row comes back for each value that may
** be present), or ask only for filter (one row, the filter).  The filter
** is byte for byte what bloom_build(value, capacity, fpr) gives over the
** same values in any order, its `inserted` counter included.
**
** Layout: the filter's 512-bit blocks are cut into chunks of as many blocks
** as fit one database page, each chunk row followed by an 8-byte counter
** of the values added into its blocks, so an insert changes one row and one
** page (ext/FORMAT.md, "Stores").
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
#include "functions/registry.h"
#include "functions/value_hash.h"
#include "store/chunk_cache.h"
#include "store/options.h"
#include "store/shadow.h"
#include "store/store.h"

/* Each chunk row ends with an 8-byte little-endian counter. */
#define COUNTER_BYTES 8

/* Chunks held in memory: past this, changed ones are written back and the
** cache emptied, and reads stop adding to it. */
#define CACHE_BUDGET_BYTES (64u << 20)

enum { COL_VALUE, COL_FILTER };

typedef struct bloom_store {
  sqlite3_vtab base;
  const sql_function *function; /* the registry row: name for errors */
  shadow_tables tables;
  filter_header header; /* the shape; count is the chunks' sum */
  uint64_t blocks;      /* bits / 512 */
  uint32_t chunk_blocks; /* blocks per chunk row (the last may hold fewer) */
  int64_t chunks;
  /* Chunks read or changed.  Changed ones belong to this connection's
  ** write transaction; unchanged ones are kept across statements while
  ** the database's data version says nobody committed since. */
  chunk_cache cache;
  unsigned data_version;
  int data_version_known;
} bloom_store;

typedef struct store_cursor {
  sqlite3_vtab_cursor base;
  int plan;                /* PLAN_* of xFilter */
  sqlite3_value **values;  /* IN: the rows, values that may be present */
  int count, next;         /* rows, and the one the cursor is on */
  /* =: the one value, kept without an allocation when it is a number */
  int eq_type;
  sqlite3_int64 eq_integer;
  double eq_real;
  sqlite3_value *eq_copy;  /* TEXT or BLOB */
} store_cursor;

enum { PLAN_FILTER = 0, PLAN_EQ = 1, PLAN_IN = 2, PLAN_NONE = 3 };

/* --- errors ------------------------------------------------------------ */

static int vtab_error(sqlite3_vtab *vtab, const char *name, const char *fmt,
                      ...) {
  char detail[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg = sqlite3_mprintf("%s: %s", name, detail);
  return vtab->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
}

#define STORE_ERROR(s, ...) vtab_error(&(s)->base, (s)->function->name, __VA_ARGS__)

/* --- geometry ---------------------------------------------------------- */

static uint32_t blocks_in_chunk(const bloom_store *s, int64_t id) {
  uint64_t first = (uint64_t)id * s->chunk_blocks;
  uint64_t left = s->blocks - first;
  return left < s->chunk_blocks ? (uint32_t)left : s->chunk_blocks;
}

static int chunk_bytes(const bloom_store *s, int64_t id) {
  return (int)(blocks_in_chunk(s, id) * BLOOM_BLOCK_BYTES + COUNTER_BYTES);
}

/* The blocks of one chunk row that fit a page of `page_size` bytes with
** room to spare: SQLite keeps a row on its page when its record is at most
** page - 35 bytes; 72 leaves that plus the record's header, the counter and
** reserved bytes at the end of a page. */
static uint32_t blocks_per_page(int page_size) {
  int fit = (page_size - 72) / BLOOM_BLOCK_BYTES;
  return fit < 1 ? 1 : (uint32_t)fit;
}

/* --- chunk access ------------------------------------------------------ */

/* Keeps the unchanged chunks of the cache only if no transaction, of this
** connection or another, committed since they were read. */
static void revalidate_cache(bloom_store *s) {
  if (s->cache.dirty) return; /* our own write transaction: current */
  unsigned version = 0;
  int rc = sqlite3_file_control(s->tables.db, s->tables.schema,
                                SQLITE_FCNTL_DATA_VERSION, &version);
  if (rc != SQLITE_OK || !s->data_version_known || version != s->data_version)
    cache_clear(&s->cache);
  s->data_version = version;
  s->data_version_known = rc == SQLITE_OK;
}

/* Chunk id: from the cache or the table.  With `load` (a change), or while
** the cache is within its budget, it is read into the cache; otherwise
** *bytes points into the table's row, valid until shadow_done(*held). */
static int get_chunk(bloom_store *s, int64_t id, int load,
                     const unsigned char **bytes, cached_chunk **cached,
                     sqlite3_stmt **held) {
  *held = NULL;
  *cached = cache_find(&s->cache, id);
  if (*cached) {
    *bytes = (*cached)->bytes;
    return SQLITE_OK;
  }
  sqlite3_stmt *stmt;
  int rc = shadow_find_chunk(&s->tables, id, &stmt);
  if (rc == SQLITE_DONE)
    return STORE_ERROR(s, "chunk %lld of %s is missing: the store is damaged",
                       (long long)id, s->tables.name);
  if (rc != SQLITE_ROW) return rc;
  const void *data = sqlite3_column_blob(stmt, 0);
  int len = sqlite3_column_bytes(stmt, 0);
  if (len != chunk_bytes(s, id) || sqlite3_column_type(stmt, 0) != SQLITE_BLOB) {
    shadow_done(stmt);
    return STORE_ERROR(s, "chunk %lld of %s has %d bytes, expected a BLOB of "
                       "%d: the store is damaged", (long long)id,
                       s->tables.name, len, chunk_bytes(s, id));
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

/* Writes every changed chunk back; keeps them cached unless `drop`. */
static int flush(bloom_store *s, int drop) {
  for (size_t i = 0; i < s->cache.capacity && s->cache.dirty; i++) {
    cached_chunk *c = &s->cache.slots[i];
    if (c->id < 0 || !c->dirty) continue;
    int rc = shadow_write_chunk(&s->tables, c->id, c->bytes,
                                chunk_bytes(s, c->id));
    if (rc == SQLITE_CORRUPT_VTAB)
      return STORE_ERROR(s, "chunk %lld of %s is missing: the store is damaged",
                         (long long)c->id, s->tables.name);
    if (rc != SQLITE_OK) return rc;
    cache_mark_clean(&s->cache, c);
  }
  if (drop) cache_clear(&s->cache);
  return SQLITE_OK;
}

/* Where the block of hash h is: its chunk, read (get_chunk's `load`), and
** the block's place in it. */
typedef struct block_place {
  int64_t chunk;
  size_t offset;               /* of the block in the chunk */
  const unsigned char *bytes;  /* the chunk */
  cached_chunk *cached;        /* the cache's copy, when there is one */
  sqlite3_stmt *held;          /* else the row read, until shadow_done */
} block_place;

static int find_block(bloom_store *s, filter_hash h, int load, block_place *p) {
  uint64_t block = bloom_block_of(h, s->blocks);
  p->chunk = (int64_t)(block / s->chunk_blocks);
  p->offset = (size_t)(block % s->chunk_blocks) * BLOOM_BLOCK_BYTES;
  return get_chunk(s, p->chunk, load, &p->bytes, &p->cached, &p->held);
}

/* 1 if the value hashed to h may be in the store, 0 if not; or an error
** code below 0 (negated). */
static int contains(bloom_store *s, filter_hash h) {
  block_place p;
  int rc = find_block(s, h, 0, &p);
  if (rc != SQLITE_OK) return -rc;
  int maybe = bloom_contains(p.bytes + p.offset, 1, s->header.hashes, h);
  if (p.held) shadow_done(p.held);
  return maybe;
}

static uint64_t chunk_counter(const bloom_store *s, int64_t id,
                              const unsigned char *bytes) {
  return load_le64(bytes + chunk_bytes(s, id) - COUNTER_BYTES);
}

static void set_chunk_counter(const bloom_store *s, int64_t id,
                              unsigned char *bytes, uint64_t count) {
  store_le64(bytes + chunk_bytes(s, id) - COUNTER_BYTES, count);
}

static int add_value(bloom_store *s, sqlite3_value *value) {
  filter_hash h;
  arg_status st = value_hash(value, sqlite3_value_type(value), s->header.seed, &h);
  if (st == ARG_NULL) return SQLITE_OK; /* NULL is never added */
  if (st == ARG_ERROR) return SQLITE_NOMEM;
  if (s->cache.bytes > CACHE_BUDGET_BYTES) {
    int rc = flush(s, 1);
    if (rc != SQLITE_OK) return rc;
  }
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
static int merge_filter(bloom_store *s, sqlite3_value *blob) {
  if (sqlite3_value_type(blob) != SQLITE_BLOB)
    return STORE_ERROR(s, "the filter to merge must be a BLOB");
  filter_view f;
  char why[160];
  if (filter_parse(sqlite3_value_blob(blob), (size_t)sqlite3_value_bytes(blob),
                   FILTER_KIND_BLOOM, &f, why, sizeof why) != 0)
    return STORE_ERROR(s, "%s", why);
  if (bloom_shape_check(&s->header, &f.header, why, sizeof why) != 0)
    return STORE_ERROR(s, "%s", why);
  for (int64_t id = 0; id < s->chunks; id++) {
    const unsigned char *bytes;
    cached_chunk *cached;
    sqlite3_stmt *held;
    int rc = get_chunk(s, id, 1, &bytes, &cached, &held);
    if (rc != SQLITE_OK) return rc;
  }
  for (int64_t id = 0; id < s->chunks; id++) {
    cached_chunk *c = cache_find(&s->cache, id);
    size_t n = (size_t)blocks_in_chunk(s, id) * BLOOM_BLOCK_BYTES;
    bloom_or(c->bytes, f.body + (size_t)id * s->chunk_blocks * BLOOM_BLOCK_BYTES,
             n);
    if (id == 0)
      set_chunk_counter(s, 0, c->bytes,
                        saturating_add(chunk_counter(s, 0, c->bytes),
                                       f.header.count));
    cache_mark_dirty(&s->cache, c);
  }
  return SQLITE_OK;
}

/* The whole filter as a blob of FORMAT.md, into *out (sqlite3_malloc'd). */
static int export_filter(bloom_store *s, sqlite3_context *ctx) {
  uint64_t bytes = bloom_blob_bytes(s->header.bits);
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
      rc = STORE_ERROR(s, "chunk %lld of %s is outside the layout: the store "
                       "is damaged", (long long)id, s->tables.name);
      break;
    }
    if (id != expect) {
      rc = STORE_ERROR(s, "chunk %lld of %s is missing: the store is damaged",
                       (long long)expect, s->tables.name);
      break;
    }
    const unsigned char *data = sqlite3_column_blob(scan, 1);
    int len = sqlite3_column_bytes(scan, 1);
    cached_chunk *c = cache_find(&s->cache, id);
    if (c) {
      data = c->bytes;
    } else if (len != chunk_bytes(s, id) ||
               sqlite3_column_type(scan, 1) != SQLITE_BLOB) {
      rc = STORE_ERROR(s, "chunk %lld of %s has %d bytes, expected a BLOB of "
                       "%d: the store is damaged", (long long)id,
                       s->tables.name, len, chunk_bytes(s, id));
      break;
    } else if (data == NULL) {
      rc = SQLITE_NOMEM;
      break;
    }
    memcpy(blob + FILTER_HEADER_BYTES +
               (size_t)id * s->chunk_blocks * BLOOM_BLOCK_BYTES,
           data, (size_t)blocks_in_chunk(s, id) * BLOOM_BLOCK_BYTES);
    count = saturating_add(count, chunk_counter(s, id, data));
    expect++;
    rc = SQLITE_OK;
  }
  if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
    if (expect != s->chunks)
      rc = STORE_ERROR(s, "chunk %lld of %s is missing: the store is damaged",
                       (long long)expect, s->tables.name);
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

static int read_config(bloom_store *s) {
  sqlite3_stmt *stmt;
  int rc = shadow_read_config(&s->tables, &stmt);
  if (rc != SQLITE_OK) return rc;
  sqlite3_int64 kind = 0, version = 0, capacity = 0, bits = 0, hashes = 0,
                seed = -1, chunk_blocks = 0;
  double fpr = 0;
  int seen = 0;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const char *key = (const char *)sqlite3_column_text(stmt, 0);
    sqlite3_int64 v = sqlite3_column_int64(stmt, 1);
    if (key == NULL) continue;
    if (strcmp(key, "kind") == 0) kind = v, seen |= 1;
    else if (strcmp(key, "version") == 0) version = v, seen |= 2;
    else if (strcmp(key, "capacity") == 0) capacity = v, seen |= 4;
    else if (strcmp(key, "fpr") == 0) fpr = sqlite3_column_double(stmt, 1), seen |= 8;
    else if (strcmp(key, "bits") == 0) bits = v, seen |= 16;
    else if (strcmp(key, "hashes") == 0) hashes = v, seen |= 32;
    else if (strcmp(key, "seed") == 0) seed = v, seen |= 64;
    else if (strcmp(key, "chunk_blocks") == 0) chunk_blocks = v, seen |= 128;
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) return rc;
  if (seen != 255 || kind != FILTER_KIND_BLOOM || version != FILTER_VERSION ||
      capacity < 1 || !(fpr > 0 && fpr < 1) || bits <= 0 ||
      bits % BLOOM_BLOCK_BITS != 0 || hashes < 1 || hashes > BLOOM_MAX_HASHES ||
      seed < 0 || seed > UINT32_MAX || chunk_blocks < 1 ||
      chunk_blocks > 1 << 20)
    return STORE_ERROR(s, "the configuration of %s is missing or damaged "
                       "(%s_config)", s->tables.name, s->tables.name);
  s->header = filter_header_new(FILTER_KIND_BLOOM, (uint64_t)capacity, fpr);
  s->header.bits = (uint64_t)bits;
  s->header.hashes = (uint32_t)hashes;
  s->header.seed = (uint32_t)seed;
  s->blocks = (uint64_t)bits / BLOOM_BLOCK_BITS;
  s->chunk_blocks = (uint32_t)chunk_blocks;
  s->chunks = (int64_t)((s->blocks + s->chunk_blocks - 1) / s->chunk_blocks);
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

static int write_config(bloom_store *s, const store_options *o) {
  int page_size;
  int rc = page_size_of(s->tables.db, s->tables.schema, &page_size);
  if (rc != SQLITE_OK) return rc;
  /* No blob length limit: a store's size is bounded by the database. */
  bloom_sizing sizing;
  if (bloom_sizing_for(o->capacity, o->fpr, UINT64_MAX / 2, &sizing) !=
      BLOOM_SIZING_OK)
    return STORE_ERROR(s, "no filter holds capacity = %llu at fpr = %g",
                       (unsigned long long)o->capacity, o->fpr);
  struct { const char *key; sqlite3_int64 value; } rows[] = {
      {"kind", FILTER_KIND_BLOOM},
      {"version", FILTER_VERSION},
      {"capacity", (sqlite3_int64)o->capacity},
      {"bits", (sqlite3_int64)sizing.bits},
      {"hashes", sizing.hashes},
      {"seed", FILTER_DEFAULT_SEED},
      {"chunk_blocks", blocks_per_page(page_size)},
  };
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof rows / sizeof rows[0]; i++)
    rc = shadow_put_config(&s->tables, rows[i].key, rows[i].value);
  if (rc == SQLITE_OK) rc = shadow_put_config_real(&s->tables, "fpr", o->fpr);
  if (rc == SQLITE_OK) rc = read_config(s);
  if (rc == SQLITE_OK) {
    int last = chunk_bytes(s, s->chunks - 1);
    rc = shadow_add_chunks(&s->tables, s->chunks, chunk_bytes(s, 0), last);
  }
  return rc;
}

static void store_free(bloom_store *s) {
  if (s == NULL) return;
  cache_clear(&s->cache);
  shadow_free(&s->tables);
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
  bloom_store *s = sqlite3_malloc(sizeof *s);
  if (s == NULL) return SQLITE_NOMEM;
  memset(s, 0, sizeof *s);
  s->function = row;
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
  store_free((bloom_store *)vtab);
  return SQLITE_OK;
}

static int store_destroy(sqlite3_vtab *vtab) {
  bloom_store *s = (bloom_store *)vtab;
  int rc = shadow_drop(&s->tables);
  if (rc == SQLITE_OK) store_free(s);
  return rc;
}

/* --- queries ----------------------------------------------------------- */

/* value = x gives a row when x may be present; value IN (...) a row for
** each such x; a query that asks only for filter gets one row.  Anything
** else would have to list the items, which a filter cannot do. */
static int store_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info) {
  bloom_store *s = (bloom_store *)vtab;
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
    return STORE_ERROR(s, "a filter cannot list its items: query it with "
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
  c->values = NULL;
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

/* Adds value as a row of the cursor if the store may hold it. */
static int probe_into(bloom_store *s, store_cursor *c, sqlite3_value *value,
                      int room) {
  filter_hash h;
  arg_status st = value_hash(value, sqlite3_value_type(value), s->header.seed, &h);
  if (st == ARG_NULL) return SQLITE_OK; /* NULL = x is never true */
  if (st == ARG_ERROR) return SQLITE_NOMEM;
  int maybe = contains(s, h);
  if (maybe < 0) return -maybe;
  if (!maybe) return SQLITE_OK;
  if (c->count == room) return SQLITE_OK; /* cannot happen: room is exact */
  c->values[c->count] = sqlite3_value_dup(value);
  if (c->values[c->count] == NULL) return SQLITE_NOMEM;
  c->count++;
  return SQLITE_OK;
}

/* value = x: a row if x may be present, its value kept for xColumn. */
static int probe_equal(bloom_store *s, store_cursor *c, sqlite3_value *value) {
  int type = sqlite3_value_type(value);
  filter_hash h;
  arg_status st = value_hash(value, type, s->header.seed, &h);
  if (st == ARG_NULL) return SQLITE_OK;
  if (st == ARG_ERROR) return SQLITE_NOMEM;
  int maybe = contains(s, h);
  if (maybe <= 0) return -maybe;
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
  bloom_store *s = (bloom_store *)cur->pVtab;
  cursor_reset(c);
  c->plan = plan;
  if (plan == PLAN_FILTER) {
    c->count = 1; /* the filter row; its column is read lazily */
    return SQLITE_OK;
  }
  if (plan == PLAN_NONE) return SQLITE_OK;
  revalidate_cache(s);
  if (plan == PLAN_EQ) return probe_equal(s, c, argv[0]);
  int room = 1;
  sqlite3_value *v;
  if (plan == PLAN_IN) {
    room = 0;
    int rc;
    for (rc = sqlite3_vtab_in_first(argv[0], &v); rc == SQLITE_OK && v;
         rc = sqlite3_vtab_in_next(argv[0], &v))
      room++;
    if (rc != SQLITE_OK && rc != SQLITE_DONE) return rc;
  }
  if (room == 0) return SQLITE_OK;
  c->values = sqlite3_malloc64((sqlite3_uint64)room * sizeof *c->values);
  if (c->values == NULL) return SQLITE_NOMEM;
  int rc;
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
  bloom_store *s = (bloom_store *)cur->pVtab;
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

static int store_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = ((store_cursor *)cur)->next;
  return SQLITE_OK;
}

/* --- writes ------------------------------------------------------------ */

static int store_update(sqlite3_vtab *vtab, int argc, sqlite3_value **argv,
                        sqlite3_int64 *rowid) {
  bloom_store *s = (bloom_store *)vtab;
  if (argc == 1)
    return STORE_ERROR(s, "a Bloom filter cannot forget a value (cuckoo "
                       "filters can delete)");
  if (sqlite3_value_type(argv[0]) != SQLITE_NULL)
    return STORE_ERROR(s, "an item cannot be changed, only added");
  *rowid = 0;
  sqlite3_value *value = argv[2 + COL_VALUE], *filter = argv[2 + COL_FILTER];
  int has_value = sqlite3_value_type(value) != SQLITE_NULL;
  int has_filter = sqlite3_value_type(filter) != SQLITE_NULL;
  if (has_value && has_filter)
    return STORE_ERROR(s, "insert a value or a filter, not both in one row");
  return has_filter ? merge_filter(s, filter) : add_value(s, value);
}

static int store_begin(sqlite3_vtab *vtab) {
  revalidate_cache((bloom_store *)vtab);
  return SQLITE_OK;
}

static int store_sync(sqlite3_vtab *vtab) {
  return flush((bloom_store *)vtab, 0);
}

/* After COMMIT the cached chunks are what the database holds, and stay
** (the data version tells the next statement whether they still are);
** after ROLLBACK they are dropped. */
static int store_commit(sqlite3_vtab *vtab) {
  (void)vtab;
  return SQLITE_OK;
}

static int store_rollback(sqlite3_vtab *vtab) {
  cache_clear(&((bloom_store *)vtab)->cache);
  return SQLITE_OK;
}

static int store_savepoint(sqlite3_vtab *vtab, int savepoint) {
  (void)savepoint;
  return flush((bloom_store *)vtab, 0);
}

static int store_release(sqlite3_vtab *vtab, int savepoint) {
  (void)vtab;
  (void)savepoint;
  return SQLITE_OK;
}

static int store_rollback_to(sqlite3_vtab *vtab, int savepoint) {
  (void)savepoint;
  cache_clear(&((bloom_store *)vtab)->cache);
  return SQLITE_OK;
}

static int store_rename(sqlite3_vtab *vtab, const char *new_name) {
  bloom_store *s = (bloom_store *)vtab;
  int rc = flush(s, 1);
  return rc == SQLITE_OK ? shadow_rename(&s->tables, new_name) : rc;
}

const sqlite3_module store_bloom_module = {
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
