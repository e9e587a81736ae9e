/*
** The stores: a filter kept in place, in page-sized shadow-table chunks, so
** that an insert costs the same at any size and is an ordinary,
** transactional SQLite write.  One virtual table module for every kind
** and schedule; what differs is behind their tables (store.h).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   CREATE VIRTUAL TABLE seen USING bloom_store(fpr = 0.001);  -- grows
**   CREATE VIRTUAL TABLE big USING bloom_store(capacity = 10000000,
**                                               fpr = 0.001);   -- fixed
**   INSERT INTO seen(value) VALUES ('req-123');   -- one chunk row changes
**   INSERT OR IGNORE INTO seen(value) VALUES (:id);  -- changes() 1: new
**   INSERT INTO seen(value) SELECT request_id FROM processed;
**   SELECT EXISTS (SELECT 1 FROM seen WHERE value = :id);  -- 1 maybe, 0 no
**   SELECT filter FROM seen;      -- the whole filter as a BLOB
**   INSERT INTO seen(filter) VALUES (:blob);   -- merge (Bloom) or load
**   DELETE FROM live WHERE value = :id;        -- cuckoo_store only
**
** Columns: summary (what the store is, one line: all SELECT * shows),
** value HIDDEN (writing it adds the item, by the value rules of the
** *_build functions; NULL is not added) and filter HIDDEN.  A query that
** constrains value with = or IN gets a row for each value that may be
** present; any other gets the store's summary row, value NULL and filter
** the export, so that a browser naming every column sees it (but value
** alone, or value searched with <, LIKE..., is refused).  The filter
** is what the kind's *_build gives over the same values (bloom_store: byte
** for byte, in any order; cuckoo_store: the same header and answers); for
** a scalable store, whose items go to the newest of its layers
** (schedule.c), a layered filter of them (export.c).
**
** A DELETE reaches xUpdate with only the rowid of a row the scan returned:
** the rowid of a probe row names the hash it was probed with (xRowid keeps
** it), so the delete removes one copy of that value.
**
** Transactions follow FTS5's: changed chunks wait in a cache and are
** written back at xSync and before each savepoint; a rollback empties the
** cache (chunks.c says how).  This file holds only the methods.
*/
#include <string.h>

#include "store/store.h"

/* What a method answers SQLite.  sqlite3_step's SQLITE_ROW and SQLITE_DONE
** are never a method's answer: SQLite 3.40 takes SQLITE_ROW from xColumn
** as a row, and the statement never ends.  Every function below the
** methods answers SQLITE_OK or an error, so one that escaped is a bug,
** answered as an error rather than a statement that never ends. */
static int answer(store *s, int rc) {
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return rc;
  store_error(s, "internal error: step code %d reached SQLite", rc);
  return SQLITE_INTERNAL;
}

/* --- create, connect --------------------------------------------------- */

static void store_free(store *s) {
  if (s == NULL) return;
  chunks_free(s);
  if (s->kind && s->kind->close) s->kind->close(s);
  shadow_free(&s->tables);
  sqlite3_free(s->marked);
  sqlite3_free(s->base.zErrMsg);
  sqlite3_free(s);
}

/* A new store of the registry row's kind, its tables named; nothing read
** or written yet. */
static int store_new(sqlite3 *db, const sql_function *row,
                     const char *const *argv, store **out) {
  store *s = sqlite3_malloc(sizeof *s);
  *out = s;
  if (s == NULL) return SQLITE_NOMEM;
  memset(s, 0, sizeof *s);
  s->function = row;
  static const store_kind *const kinds[] = {
      &store_bloom_kind, &store_cuckoo_kind, &store_quotient_kind};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (kinds[i]->kind == row->kind) s->kind = kinds[i];
  if (s->kind == NULL) return SQLITE_INTERNAL; /* a registry row's bug */
  s->config.schedule = &store_fixed_schedule;
  int rc = s->kind->open ? s->kind->open(s) : SQLITE_OK;
  if (rc == SQLITE_OK) rc = shadow_init(&s->tables, db, argv[1], argv[2]);
  return rc;
}

/* value's declared type is BLOB, no affinity, as the store's own rules
** convert nothing: a type of "HIDDEN" alone would give it NUMERIC, and
** SQLite would turn an IN list's '0' into 0 before the store saw it.  The
** schedule's own columns follow. */
static int declare(sqlite3 *db, const store *s) {
  const char *own = s->config.schedule->columns;
  char *columns = own ? sqlite3_mprintf(own, s->tables.name) : NULL;
  if (own && columns == NULL) return SQLITE_NOMEM;
  char *sql = sqlite3_mprintf("CREATE TABLE x(summary, value BLOB HIDDEN, "
                              "filter BLOB HIDDEN%s%s)", own ? ", " : "",
                              own ? columns : "");
  sqlite3_free(columns);
  if (sql == NULL) return SQLITE_NOMEM;
  int rc = sqlite3_declare_vtab(db, sql);
  sqlite3_free(sql);
  return rc;
}

static int store_open_vtab(sqlite3 *db, void *aux, int argc,
                           const char *const *argv, sqlite3_vtab **out,
                           char **err, int create) {
  const sql_function *row = aux;
  *out = NULL;
  store_options options;
  char why[200];
  const store_schedule *schedule = NULL;
  if (create) {
    int bad = store_parse_options(argc - 3, argv + 3, &options, why,
                                  sizeof why) != SQLITE_OK;
    options.kind = row->kind;
    schedule = bad ? NULL : schedule_for(&options);
    if (!bad && schedule->check &&
        schedule->check(&options, why, sizeof why) != SQLITE_OK)
      bad = 1;
    if (bad) {
      *err = sqlite3_mprintf("%s: %s", row->name, why);
      return SQLITE_ERROR;
    }
  }
  store *s;
  int rc = store_new(db, row, argv, &s);
  if (rc == SQLITE_OK && create && options.deletes && options.deletes_given &&
      s->kind->no_delete)
    rc = store_error(s, "deletes = 1: %s", s->kind->no_delete);
  if (rc == SQLITE_OK && create) {
    rc = shadow_create(&s->tables);
    if (rc == SQLITE_OK) rc = schedule->create(s, &options);
  } else if (rc == SQLITE_OK) {
    rc = config_read(s);
  }
  if (rc == SQLITE_OK) rc = declare(db, s);
  if (rc != SQLITE_OK) {
    if (s && s->base.zErrMsg)
      *err = sqlite3_mprintf("%s", s->base.zErrMsg);
    else if (rc != SQLITE_NOMEM)
      *err = sqlite3_mprintf("%s: %s", row->name, sqlite3_errmsg(db));
    store_free(s);
    return rc;
  }
  /* Safe in triggers and views under trusted_schema=OFF: it only reads and
  ** writes its own tables.  It returns SQLITE_CONSTRAINT only before it
  ** changes anything, and only under OR IGNORE (store_update). */
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
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

/* 1 if op compares value in a way only a list of the items could answer
** (a range, a pattern, an inequality). */
static int searches(unsigned char op) {
  switch (op) {
  case SQLITE_INDEX_CONSTRAINT_GT: case SQLITE_INDEX_CONSTRAINT_GE:
  case SQLITE_INDEX_CONSTRAINT_LT: case SQLITE_INDEX_CONSTRAINT_LE:
  case SQLITE_INDEX_CONSTRAINT_NE: case SQLITE_INDEX_CONSTRAINT_ISNOT:
  case SQLITE_INDEX_CONSTRAINT_LIKE: case SQLITE_INDEX_CONSTRAINT_GLOB:
  case SQLITE_INDEX_CONSTRAINT_REGEXP: case SQLITE_INDEX_CONSTRAINT_MATCH:
    return 1;
  default:
    return 0;
  }
}

static int cannot_list(store *s) {
  return store_error(s, "a filter cannot list its items: query it with WHERE "
                     "value = ... or value IN (...); a row without them is "
                     "the store's summary, its value NULL");
}

/* value = x gives a row when x may be present; value IN (...) a row for
** each such x.  Without them the statement scans: it gets the store's rows
** (the summary row; a windowed store's generations if it names their
** columns), on which value is NULL, so that a browser naming every column
** (Datasette, from PRAGMA table_xinfo) sees the store.  A filter cannot
** list its items, so two scans, whose only answer would be nothing or a
** NULL that reads as one, are refused: one that compares value otherwise
** (<, LIKE, !=...), and one that asks for value and no other column
** (SELECT value FROM s).  value IS NOT NULL asks nothing of the items: on
** a scan's rows value is NULL. */
static int store_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info) {
  store *s = (store *)vtab;
  int eq = -1, unusable = 0, search = 0, not_null = 0;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->iColumn != COL_VALUE) continue;
    if (c->op == SQLITE_INDEX_CONSTRAINT_ISNULL && c->usable) {
      /* value IS NULL: a filter never holds NULL. */
      info->aConstraintUsage[i].omit = 1;
      info->idxNum = PLAN_NONE;
      info->estimatedCost = 1;
      info->estimatedRows = 1;
      return SQLITE_OK;
    }
    search |= searches(c->op);
    not_null |= c->op == SQLITE_INDEX_CONSTRAINT_ISNOTNULL && c->usable;
    /* value IS x asks the same as value = x (and IS NULL: no row). */
    if (c->op != SQLITE_INDEX_CONSTRAINT_EQ &&
        c->op != SQLITE_INDEX_CONSTRAINT_IS)
      continue;
    if (c->usable && eq < 0) eq = i;
    if (!c->usable) unusable = 1;
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
  if (search) return cannot_list(s);
  if (not_null) {
    /* value IS NOT NULL on a scan: value is NULL on every row. */
    info->idxNum = PLAN_NONE;
    info->estimatedCost = 1;
    info->estimatedRows = 1;
    return SQLITE_OK;
  }
  const sqlite3_uint64 value = (sqlite3_uint64)1 << COL_VALUE;
  if (info->colUsed == value) return cannot_list(s);
  const store_schedule *schedule = s->config.schedule;
  if (info->colUsed & schedule->row_columns << COL_OWN) {
    info->idxNum = PLAN_ROWS;
    info->estimatedCost = 1e6;
    info->estimatedRows = schedule->row_count(s) + 1;
    return SQLITE_OK;
  }
  info->idxNum = PLAN_FILTER;
  info->estimatedCost = 1e6;
  info->estimatedRows = 1;
  return SQLITE_OK;
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

static int store_filter(sqlite3_vtab_cursor *cur, int plan, const char *unused,
                        int argc, sqlite3_value **argv) {
  (void)unused;
  (void)argc;
  store *s = (store *)cur->pVtab;
  return answer(s, cursor_start(s, (store_cursor *)cur, plan, argv));
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
  store *s = (store *)cur->pVtab;
  return answer(s, cursor_column(s, (store_cursor *)cur, ctx, col));
}

static int store_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  store *s = (store *)cur->pVtab;
  return answer(s, cursor_rowid(s, (store_cursor *)cur, rowid));
}

/* --- writes ------------------------------------------------------------ */

/* DELETE: the rowid names a probe row's hash (store_rowid). */
static int delete_row(store *s, sqlite3_value *rowid) {
  if (s->kind->no_delete) return store_error(s, "%s", s->kind->no_delete);
  if (s->config.adds_only)
    return store_error(s, "%s was made with deletes = 0: it cannot forget a "
                       "value (its INSERT OR IGNORE skips what it may hold)",
                       s->tables.name);
  sqlite3_int64 r = sqlite3_value_int64(rowid);
  if (r < 1 || r > s->marked_count)
    return store_error(s, "DELETE removes a value: write DELETE FROM %s "
                       "WHERE value = ... (or value IN (...))",
                       s->tables.name);
  return items_remove(s, s->marked[r - 1]);
}

/* The schedule's time, read for each row written. */
static int tick(store *s) {
  int rc = s->config_stale ? chunks_revalidate(s) : SQLITE_OK;
  if (rc == SQLITE_OK && s->config.schedule->tick)
    rc = s->config.schedule->tick(s);
  return rc;
}

static int update_row(store *s, int argc, sqlite3_value **argv,
                      sqlite3_int64 *rowid) {
  const store_schedule *schedule = s->config.schedule;
  int rc = tick(s);
  if (rc != SQLITE_OK) return rc;
  if (argc == 1 && schedule->before_delete) rc = schedule->before_delete(s);
  if (argc == 1) return rc == SQLITE_OK ? delete_row(s, argv[0]) : rc;
  if (sqlite3_value_type(argv[0]) != SQLITE_NULL)
    return store_error(s, "%s", s->kind->no_update);
  *rowid = 0;
  if (sqlite3_value_type(argv[2 + COL_SUMMARY]) != SQLITE_NULL)
    return store_error(s, "the summary column cannot be written: INSERT "
                       "INTO %s(value) adds a value, INSERT INTO %s(filter) "
                       "a filter", s->tables.name, s->tables.name);
  sqlite3_value *value = argv[2 + COL_VALUE], *filter = argv[2 + COL_FILTER];
  sqlite3_value **own = schedule->columns ? argv + 2 + COL_OWN : NULL;
  if (own && schedule->write_own) {
    int done;
    rc = schedule->write_own(s, own, &done);
    if (rc != SQLITE_OK || done) return rc;
  }
  int has_value = sqlite3_value_type(value) != SQLITE_NULL;
  int has_filter = sqlite3_value_type(filter) != SQLITE_NULL;
  if (has_value && has_filter)
    return store_error(s, "insert a value or a filter, not both in one row");
  if (has_filter) return items_load(s, filter);
  /* INSERT OR IGNORE adds only what is certainly new: SQLITE_CONSTRAINT,
  ** returned before anything changed, skips the row without counting a
  ** change (SQLITE_VTAB_CONSTRAINT_SUPPORT).  An outer statement's OR
  ** IGNORE reaches a trigger's INSERT too, so a store that may delete
  ** (a kind that may not skip, unless made with deletes = 0) adds as a
  ** plain INSERT does. */
  int if_new = (s->kind->skips_present || s->config.adds_only) &&
               sqlite3_vtab_on_conflict(s->tables.db) == SQLITE_IGNORE;
  int skipped;
  rc = items_add(s, value, own, if_new, &skipped);
  /* A value placed outside every layer is no change either, under OR
  ** IGNORE. */
  if (rc == SQLITE_OK && skipped == ITEMS_OUTSIDE &&
      sqlite3_vtab_on_conflict(s->tables.db) == SQLITE_IGNORE)
    return SQLITE_CONSTRAINT;
  return rc == SQLITE_OK && if_new && skipped ? SQLITE_CONSTRAINT : rc;
}

static int store_update(sqlite3_vtab *vtab, int argc, sqlite3_value **argv,
                        sqlite3_int64 *rowid) {
  store *s = (store *)vtab;
  return answer(s, update_row(s, argc, argv, rowid));
}

/* --- transactions ------------------------------------------------------ */

static int store_begin(sqlite3_vtab *vtab) {
  store *s = (store *)vtab;
  s->in_write = 1;
  s->marked_count = 0;
  return answer(s, chunks_revalidate(s));
}

static int store_sync(sqlite3_vtab *vtab) {
  return answer((store *)vtab, chunks_flush((store *)vtab, 0));
}

/* The end of a write transaction: the rows SQLite could name are gone. */
static void transaction_over(store *s) {
  s->in_write = 0;
  s->marked_count = 0;
}

/* After COMMIT the cached chunks are what the database holds, and stay
** (the data version tells the next statement whether they still are). */
static int store_commit(sqlite3_vtab *vtab) {
  chunks_committed((store *)vtab);
  transaction_over((store *)vtab);
  return SQLITE_OK;
}

static int store_rollback(sqlite3_vtab *vtab) {
  chunks_rolled_back((store *)vtab);
  transaction_over((store *)vtab);
  return SQLITE_OK;
}

static int store_savepoint(sqlite3_vtab *vtab, int savepoint) {
  (void)savepoint;
  return answer((store *)vtab, chunks_flush((store *)vtab, 0));
}

static int store_release(sqlite3_vtab *vtab, int savepoint) {
  (void)vtab;
  (void)savepoint;
  return SQLITE_OK;
}

static int store_rollback_to(sqlite3_vtab *vtab, int savepoint) {
  (void)savepoint;
  chunks_rolled_back((store *)vtab);
  return SQLITE_OK;
}

static int store_rename(sqlite3_vtab *vtab, const char *new_name) {
  store *s = (store *)vtab;
  int rc = chunks_flush(s, 1);
  return answer(s, rc == SQLITE_OK ? shadow_rename(&s->tables, new_name) : rc);
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
