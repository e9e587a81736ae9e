/*
** bloom_info(filter): table-valued function, one row describing a Bloom
** filter (no row for NULL).  Works correlated in joins:
**
**   SELECT name, i.* FROM filters, bloom_info(filters.f) AS i;
**
**   kind TEXT, version INTEGER, hash TEXT, bits INTEGER, hashes INTEGER,
**   bytes INTEGER, capacity INTEGER, target_fpr REAL, inserted INTEGER,
**   bits_set INTEGER, fill_ratio REAL, estimated_items REAL,
**   estimated_fpr REAL
**
** Unlike bloom_test this reads the whole bit array (to count bits), so it
** costs time proportional to the filter's size.
*/
#include "sql_common.h"

#include <math.h>
#include <string.h>

enum {
  COL_KIND, COL_VERSION, COL_HASH, COL_BITS, COL_HASHES, COL_BYTES,
  COL_CAPACITY, COL_TARGET_FPR, COL_INSERTED, COL_BITS_SET, COL_FILL_RATIO,
  COL_ESTIMATED_ITEMS, COL_ESTIMATED_FPR,
  COL_FILTER /* hidden: the argument */
};

typedef struct info_cursor {
  sqlite3_vtab_cursor base;
  int eof;
  filter_header h;
  sqlite3_int64 bytes;
  bloom_stats stats;
} info_cursor;

static int info_connect(sqlite3 *db, void *aux, int argc,
                        const char *const *argv, sqlite3_vtab **out,
                        char **err) {
  (void)aux; (void)argc; (void)argv; (void)err;
  int rc = sqlite3_declare_vtab(
      db,
      "CREATE TABLE x(kind TEXT, version INTEGER, hash TEXT, bits INTEGER,"
      " hashes INTEGER, bytes INTEGER, capacity INTEGER, target_fpr REAL,"
      " inserted INTEGER, bits_set INTEGER, fill_ratio REAL,"
      " estimated_items REAL, estimated_fpr REAL, filter HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab *vtab = sqlite3_malloc(sizeof *vtab);
  if (vtab == NULL) return SQLITE_NOMEM;
  memset(vtab, 0, sizeof *vtab);
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *out = vtab;
  return SQLITE_OK;
}

static int info_disconnect(sqlite3_vtab *vtab) {
  sqlite3_free(vtab);
  return SQLITE_OK;
}

static int info_open(sqlite3_vtab *vtab, sqlite3_vtab_cursor **out) {
  (void)vtab;
  info_cursor *c = sqlite3_malloc(sizeof *c);
  if (c == NULL) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  c->eof = 1;
  *out = &c->base;
  return SQLITE_OK;
}

static int info_close(sqlite3_vtab_cursor *cur) {
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int info_filter(sqlite3_vtab_cursor *cur, int idx_num,
                       const char *idx_str, int argc, sqlite3_value **argv) {
  (void)idx_str; (void)argc;
  info_cursor *c = (info_cursor *)cur;
  c->eof = 1;
  if (idx_num != 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL)
    return SQLITE_OK;
  if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) {
    cur->pVtab->zErrMsg = sqlite3_mprintf(
        "bloom_info: the filter must be a BLOB, got %s",
        sql_type_name(sqlite3_value_type(argv[0])));
    return cur->pVtab->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  const void *blob = sqlite3_value_blob(argv[0]);
  int len = sqlite3_value_bytes(argv[0]);
  filter_view f;
  char why[160];
  if (filter_parse(blob, (size_t)len, FILTER_KIND_BLOOM, &f, why,
                   sizeof why) != 0) {
    cur->pVtab->zErrMsg = sqlite3_mprintf("bloom_info: %s", why);
    return cur->pVtab->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  c->h = f.h;
  c->bytes = len;
  c->stats = bloom_stats_of(f.body, f.h.bits, f.h.hashes);
  c->eof = 0;
  return SQLITE_OK;
}

static int info_next(sqlite3_vtab_cursor *cur) {
  ((info_cursor *)cur)->eof = 1;
  return SQLITE_OK;
}

static int info_eof(sqlite3_vtab_cursor *cur) {
  return ((info_cursor *)cur)->eof;
}

static int info_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                       int col) {
  info_cursor *c = (info_cursor *)cur;
  switch (col) {
    case COL_KIND:
      sqlite3_result_text(ctx, filter_kind_name(c->h.kind), -1, SQLITE_STATIC);
      break;
    case COL_VERSION: sqlite3_result_int(ctx, (int)c->h.version); break;
    case COL_HASH:
      sqlite3_result_text(ctx, filter_hash_name(c->h.hash), -1, SQLITE_STATIC);
      break;
    case COL_BITS: sqlite3_result_int64(ctx, (sqlite3_int64)c->h.bits); break;
    case COL_HASHES: sqlite3_result_int64(ctx, c->h.hashes); break;
    case COL_BYTES: sqlite3_result_int64(ctx, c->bytes); break;
    case COL_CAPACITY:
      sqlite3_result_int64(ctx, (sqlite3_int64)c->h.capacity);
      break;
    case COL_TARGET_FPR: sqlite3_result_double(ctx, c->h.target_fpr); break;
    case COL_INSERTED:
      /* A counter above INT64_MAX can only come from a hand-made blob. */
      sqlite3_result_int64(ctx, c->h.inserted > (uint64_t)INT64_MAX
                                    ? INT64_MAX
                                    : (sqlite3_int64)c->h.inserted);
      break;
    case COL_BITS_SET:
      sqlite3_result_int64(ctx, (sqlite3_int64)c->stats.bits_set);
      break;
    case COL_FILL_RATIO: sqlite3_result_double(ctx, c->stats.fill_ratio); break;
    case COL_ESTIMATED_ITEMS:
      if (isinf(c->stats.estimated_items))
        sqlite3_result_null(ctx); /* every bit set: no estimate exists */
      else
        sqlite3_result_double(ctx, c->stats.estimated_items);
      break;
    case COL_ESTIMATED_FPR:
      sqlite3_result_double(ctx, c->stats.estimated_fpr);
      break;
    default: sqlite3_result_null(ctx); break;
  }
  return SQLITE_OK;
}

static int info_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  (void)cur;
  *rowid = 1;
  return SQLITE_OK;
}

/* The filter argument is an equality constraint on the hidden column.  A
** plan without it usable is refused (SQLITE_CONSTRAINT) so that SQLite
** orders the join to supply it, as in a correlated bloom_info(t.f). */
static int info_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info) {
  int found = 0, usable = -1;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->iColumn != COL_FILTER || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
      continue;
    found = 1;
    if (c->usable) usable = i;
  }
  if (usable >= 0) {
    info->aConstraintUsage[usable].argvIndex = 1;
    info->aConstraintUsage[usable].omit = 1;
    info->idxNum = 1;
    info->estimatedCost = 1;
    info->estimatedRows = 1;
    info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
    return SQLITE_OK;
  }
  if (found) return SQLITE_CONSTRAINT;
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg = sqlite3_mprintf("bloom_info: needs a filter argument, "
                                  "as in SELECT * FROM bloom_info(f)");
  return SQLITE_ERROR;
}

static sqlite3_module info_module = {
    .iVersion = 0,
    .xCreate = NULL, /* eponymous only */
    .xConnect = info_connect,
    .xBestIndex = info_best_index,
    .xDisconnect = info_disconnect,
    .xDestroy = info_disconnect,
    .xOpen = info_open,
    .xClose = info_close,
    .xFilter = info_filter,
    .xNext = info_next,
    .xEof = info_eof,
    .xColumn = info_column,
    .xRowid = info_rowid,
};

int register_bloom_info(sqlite3 *db) {
  return sqlite3_create_module(db, "bloom_info", &info_module, NULL);
}
