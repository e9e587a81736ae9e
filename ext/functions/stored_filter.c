/*
** The filter a query names, read once per statement (see
** sql_stored_filter.h).  Why auxiliary data: SQLite keeps a function's
** auxiliary data on a constant argument for the whole statement and drops
** it when the statement is reset, so a copy made on the first row serves
** every later row in one call, and the next run of the statement reads the
** table again.  A non-constant query text loses it after each call; the
** query then runs on every row, which is still correct.
*/
#include "functions/stored_filter.h"

#include <string.h>

typedef struct stored_copy {
  int is_null;         /* the query's value was NULL */
  filter_view view;    /* parsed, pointing into blob */
  unsigned char *blob; /* from sql_aligned_alloc: one cache line a block */
} stored_copy;

static void stored_copy_free(void *p) {
  stored_copy *copy = p;
  if (copy == NULL) return;
  sql_aligned_free(copy->blob);
  sqlite3_free(copy);
}

static const char *value_type_name(int type) {
  switch (type) {
    case SQLITE_INTEGER: return "INTEGER";
    case SQLITE_FLOAT: return "REAL";
    case SQLITE_TEXT: return "TEXT";
    case SQLITE_BLOB: return "BLOB";
    default: return "NULL";
  }
}

/* Sets the error for a failed prepare or step: rc's code, SQLite's text. */
static void query_failed(sqlite3_context *ctx, const char *fname, int rc,
                         sqlite3 *db) {
  if (rc == SQLITE_NOMEM) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sql_error(ctx, fname, "the query failed: %s", sqlite3_errmsg(db));
  sqlite3_result_error_code(ctx, rc);
}

/* Checks the one-statement, read-only, one-column shape before running. */
static int check_shape(sqlite3_context *ctx, const char *fname,
                       sqlite3_stmt *stmt, const char *tail) {
  if (stmt == NULL) {
    sql_error(ctx, fname, "the query is empty");
    return -1;
  }
  while (*tail == ' ' || *tail == '\t' || *tail == '\n' || *tail == '\r' ||
         *tail == ';')
    tail++;
  if (*tail != '\0') {
    sql_error(ctx, fname, "the query must be a single statement");
    return -1;
  }
  if (!sqlite3_stmt_readonly(stmt)) {
    sql_error(ctx, fname, "the query must only read (a SELECT)");
    return -1;
  }
  if (sqlite3_column_count(stmt) != 1) {
    sql_error(ctx, fname, "the query must return one column (the filter), "
              "got %d", sqlite3_column_count(stmt));
    return -1;
  }
  return 0;
}

/* Copies the one row's value of a prepared, checked query into a new
** stored_copy, or sets the error and returns NULL. */
static stored_copy *read_one_row(sqlite3_context *ctx, const char *fname,
                                 sqlite3_stmt *stmt, sqlite3 *db) {
  int rc = sqlite3_step(stmt);
  if (rc == SQLITE_DONE) {
    sql_error(ctx, fname, "the query returned no row");
    return NULL;
  }
  if (rc != SQLITE_ROW) {
    query_failed(ctx, fname, rc, db);
    return NULL;
  }
  int type = sqlite3_column_type(stmt, 0);
  if (type != SQLITE_BLOB && type != SQLITE_NULL) {
    sql_error(ctx, fname, "the query must return a filter BLOB, got %s",
              value_type_name(type));
    return NULL;
  }
  const void *blob = sqlite3_column_blob(stmt, 0);
  int len = sqlite3_column_bytes(stmt, 0);
  if (type == SQLITE_BLOB && blob == NULL && len > 0) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  stored_copy *copy = sqlite3_malloc(sizeof *copy);
  if (copy == NULL) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  memset(copy, 0, sizeof *copy);
  copy->is_null = type == SQLITE_NULL;
  if (!copy->is_null) {
    copy->blob = sql_aligned_alloc((sqlite3_uint64)len);
    if (copy->blob == NULL) {
      sqlite3_free(copy);
      sqlite3_result_error_nomem(ctx);
      return NULL;
    }
    if (len > 0) memcpy(copy->blob, blob, (size_t)len);
  }
  copy->view.blob_bytes = (size_t)len; /* parsed by the caller */
  rc = sqlite3_step(stmt);
  if (rc != SQLITE_DONE) {
    if (rc == SQLITE_ROW)
      sql_error(ctx, fname, "the query returned more than one row");
    else
      query_failed(ctx, fname, rc, db);
    stored_copy_free(copy);
    return NULL;
  }
  return copy;
}

/* Runs the query text once and returns its validated copy, or NULL after
** setting the error. */
static stored_copy *run_query(sqlite3_context *ctx, const char *fname,
                              sqlite3_value *query, unsigned kind) {
  /* A query that calls this function again would recurse without end: the
  ** function's per-connection depth counter refuses the nested call. */
  int *depth = sqlite3_user_data(ctx);
  if (*depth > 0) {
    sql_error(ctx, fname, "the query may not call %s itself", fname);
    return NULL;
  }
  const char *sql = (const char *)sqlite3_value_text(query);
  if (sql == NULL) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  sqlite3_stmt *stmt = NULL;
  const char *tail = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, &tail);
  if (rc != SQLITE_OK) {
    query_failed(ctx, fname, rc, db);
    return NULL;
  }
  stored_copy *copy = NULL;
  if (check_shape(ctx, fname, stmt, tail) == 0) {
    ++*depth;
    copy = read_one_row(ctx, fname, stmt, db);
    --*depth;
  }
  sqlite3_finalize(stmt);
  if (copy == NULL || copy->is_null) return copy;
  char why[160];
  if (filter_parse(copy->blob, copy->view.blob_bytes, kind, &copy->view, why,
                   sizeof why) != 0) {
    sql_error(ctx, fname, "%s", why);
    stored_copy_free(copy);
    return NULL;
  }
  return copy;
}

/* The filter the query in argv[0] selects, kept for the statement.  ARG_OK
** with *view set; ARG_NULL when the query text or the stored value is NULL;
** ARG_ERROR after setting an error "<fname>: ..." on ctx. */
static arg_status stored_filter(sqlite3_context *ctx, const char *fname,
                                sqlite3_value *query, unsigned kind,
                                const filter_view **view) {
  const stored_copy *copy = sqlite3_get_auxdata(ctx, 0);
  if (copy == NULL) {
    int type = sqlite3_value_type(query);
    if (type == SQLITE_NULL) return ARG_NULL;
    if (type != SQLITE_TEXT) {
      sql_error(ctx, fname, "the query must be TEXT, got %s",
                value_type_name(type));
      return ARG_ERROR;
    }
    stored_copy *fresh = run_query(ctx, fname, query, kind);
    if (fresh == NULL) return ARG_ERROR;
    /* On failure set_auxdata frees the copy at once: ask for it back. */
    sqlite3_set_auxdata(ctx, 0, fresh, stored_copy_free);
    copy = sqlite3_get_auxdata(ctx, 0);
    if (copy == NULL) {
      sqlite3_result_error_nomem(ctx);
      return ARG_ERROR;
    }
  }
  if (copy->is_null) return ARG_NULL;
  *view = &copy->view;
  return ARG_OK;
}

void stored_probe(sqlite3_context *ctx, sqlite3_value **argv,
                  const char *fname, unsigned kind) {
  const filter_view *f;
  arg_status st = stored_filter(ctx, fname, argv[0], kind, &f);
  if (st == ARG_OK) {
    filter_hash h;
    st = sql_hash_value(ctx, argv[1], f->h.seed, &h);
    if (st == ARG_OK) sqlite3_result_int(ctx, view_contains(f, h));
  }
  if (st == ARG_NULL) sqlite3_result_null(ctx);
}

int register_stored_probe(sqlite3 *db, const char *name,
                          void (*probe)(sqlite3_context *, int,
                                        sqlite3_value **)) {
  int *depth = sqlite3_malloc(sizeof *depth);
  if (depth == NULL) return SQLITE_NOMEM;
  *depth = 0;
  /* Not DETERMINISTIC: the result follows the table's contents.
  ** DIRECTONLY: a function that runs the SQL it is given has no place in
  ** triggers, views or the schema.  SQLite frees depth, also on failure. */
  return sqlite3_create_function_v2(db, name, 2,
                                    SQLITE_UTF8 | SQLITE_DIRECTONLY, depth,
                                    probe, NULL, NULL, sqlite3_free);
}
