/*
** bloom_probe(query, value), cuckoo_probe and quotient_probe: the filter a
** query names, read once per statement.  The fastest way to probe many rows:
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   SELECT count(*) FROM urls
**    WHERE bloom_probe('SELECT f FROM filters WHERE name = ''visited''',
**                      urls.url);
**
** query is the text of a one-row, one-column, read-only statement.  The
** first call of a statement runs it, copies and validates the filter (of
** the kind in the function's registry row), and keeps the copy as SQLite
** auxiliary data on argument 0, so that while query is a constant (a literal
** or a bound parameter) a later row costs one lookup, one hash and one
** cache line, at any filter size.  1 if value may be in the filter, 0 if it
** certainly is not, NULL when the query text, the stored filter or the
** value is NULL; an error "<name>: ..." for a query or filter it refuses.
**
** Why auxiliary data: SQLite keeps a function's
** auxiliary data on a constant argument for the whole statement and drops
** it when the statement is reset, so a copy made on the first row serves
** every later row in one call, and the next run of the statement reads the
** table again.  A non-constant query text loses it after each call; the
** query then runs on every row, which is still correct.
*/
#include <string.h>

#include "core/filter.h"
#include "core/layered.h"
#include "functions/aligned.h"
#include "functions/errors.h"
#include "functions/filter_arg.h"
#include "functions/leaf_indexes.h"
#include "functions/registry.h"
#include "functions/value_hash.h"

/* The user data of a probe function: its registry row and a per-connection
** depth, so that a query which calls the function again is refused rather
** than recursing without end. */
typedef struct probe_connection {
  sql_function row; /* first: sql_function_of reads it */
  int depth;
} probe_connection;

void *sql_probe_connection(const sql_function *row) {
  probe_connection *c = sqlite3_malloc(sizeof *c);
  if (c == NULL) return NULL;
  c->row = *row;
  c->depth = 0;
  return c;
}

typedef struct query_copy {
  int is_null;         /* the query's value was NULL */
  filter_view view;    /* parsed, pointing into blob */
  unsigned char *blob; /* from sql_aligned_alloc: one cache line a block */
  layer_index *layers; /* a layered filter's layers, read once */
} query_copy;

static void query_copy_free(void *p) {
  query_copy *copy = p;
  if (copy == NULL) return;
  leaf_indexes_free(copy->view.leaf_indexes); /* before the blob it indexes */
  sql_aligned_free(copy->blob);
  sqlite3_free(copy->layers);
  sqlite3_free(copy);
}

/* Sets the error for a failed prepare or step: rc's code, SQLite's text. */
static void query_failed(sqlite3_context *ctx, int rc, sqlite3 *db) {
  if (rc == SQLITE_NOMEM) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sql_error(ctx, "the query failed: %s", sqlite3_errmsg(db));
  sqlite3_result_error_code(ctx, rc);
}

/* Checks the one-statement, read-only, one-column shape before running. */
static int check_shape(sqlite3_context *ctx, sqlite3_stmt *stmt, const char *tail) {
  if (stmt == NULL) {
    sql_error(ctx, "the query is empty");
    return -1;
  }
  while (*tail == ' ' || *tail == '\t' || *tail == '\n' || *tail == '\r' ||
         *tail == ';')
    tail++;
  if (*tail != '\0') {
    sql_error(ctx, "the query must be a single statement");
    return -1;
  }
  if (!sqlite3_stmt_readonly(stmt)) {
    sql_error(ctx, "the query must only read (a SELECT)");
    return -1;
  }
  if (sqlite3_column_count(stmt) != 1) {
    sql_error(ctx, "the query must return one column (the filter), "
              "got %d", sqlite3_column_count(stmt));
    return -1;
  }
  return 0;
}

/* Copies the one row's value of a prepared, checked query into a new
** query_copy, or sets the error and returns NULL. */
static query_copy *read_one_row(sqlite3_context *ctx, sqlite3_stmt *stmt, sqlite3 *db) {
  int rc = sqlite3_step(stmt);
  if (rc == SQLITE_DONE) {
    sql_error(ctx, "the query returned no row");
    return NULL;
  }
  if (rc != SQLITE_ROW) {
    query_failed(ctx, rc, db);
    return NULL;
  }
  int type = sqlite3_column_type(stmt, 0);
  if (type != SQLITE_BLOB && type != SQLITE_NULL) {
    sql_error(ctx, "the query must return a filter BLOB, got %s",
              sql_type_name(type));
    return NULL;
  }
  const void *blob = sqlite3_column_blob(stmt, 0);
  int len = sqlite3_column_bytes(stmt, 0);
  if (type == SQLITE_BLOB && blob == NULL && len > 0) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  query_copy *copy = sqlite3_malloc(sizeof *copy);
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
      sql_error(ctx, "the query returned more than one row");
    else
      query_failed(ctx, rc, db);
    query_copy_free(copy);
    return NULL;
  }
  return copy;
}

/* Runs the query text once and returns its validated copy, or NULL after
** setting the error. */
static query_copy *run_query(sqlite3_context *ctx, sqlite3_value *query,
                              unsigned kind) {
  /* A query that calls this function again would recurse without end: the
  ** function's per-connection depth counter refuses the nested call. */
  probe_connection *conn = sqlite3_user_data(ctx);
  int *depth = &conn->depth;
  if (*depth > 0) {
    sql_error(ctx, "the query may not call %s itself", conn->row.name);
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
    query_failed(ctx, rc, db);
    return NULL;
  }
  query_copy *copy = NULL;
  if (check_shape(ctx, stmt, tail) == 0) {
    ++*depth;
    copy = read_one_row(ctx, stmt, db);
    --*depth;
  }
  sqlite3_finalize(stmt);
  if (copy == NULL || copy->is_null) return copy;
  char why[160];
  if (filter_parse(copy->blob, copy->view.blob_bytes, kind, &copy->view, why,
                   sizeof why) != 0) {
    sql_error(ctx, "%s", why);
    query_copy_free(copy);
    return NULL;
  }
  if (copy->view.header.kind == FILTER_KIND_LAYERED) {
    copy->layers = sqlite3_malloc(sizeof *copy->layers);
    if (copy->layers == NULL) {
      sqlite3_result_error_nomem(ctx);
      query_copy_free(copy);
      return NULL;
    }
    layer_index_of(&copy->view, copy->layers);
    copy->view.layers = copy->layers;
  }
  if (leaf_indexes_wanted(&copy->view)) {
    copy->view.leaf_indexes = leaf_indexes_new();
    if (copy->view.leaf_indexes == NULL) {
      sqlite3_result_error_nomem(ctx);
      query_copy_free(copy);
      return NULL;
    }
  }
  return copy;
}

/* The filter the query in argv[0] selects, kept for the statement.  ARG_OK
** with *view set; ARG_NULL when the query text or the stored value is NULL;
** ARG_ERROR after setting the error on ctx. */
static arg_status query_filter(sqlite3_context *ctx, sqlite3_value *query,
                               const query_copy **kept) {
  const query_copy *copy = sqlite3_get_auxdata(ctx, 0);
  if (copy == NULL) {
    int type = sqlite3_value_type(query);
    if (type == SQLITE_NULL) return ARG_NULL;
    if (type != SQLITE_TEXT) {
      sql_error(ctx, "the query must be TEXT, got %s",
                sql_type_name(type));
      return ARG_ERROR;
    }
    /* The kind from the registry row: looked up only when the query runs,
    ** not on every row. */
    query_copy *fresh = run_query(
        ctx, query, sql_function_of(ctx)->kind | FILTER_WANT_LAYERED);
    if (fresh == NULL) return ARG_ERROR;
    /* On failure set_auxdata frees the copy at once: ask for it back. */
    sqlite3_set_auxdata(ctx, 0, fresh, query_copy_free);
    copy = sqlite3_get_auxdata(ctx, 0);
    if (copy == NULL) {
      sqlite3_result_error_nomem(ctx);
      return ARG_ERROR;
    }
  }
  if (copy->is_null) return ARG_NULL;
  *kept = copy;
  return ARG_OK;
}

void sql_filter_probe(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  const query_copy *copy;
  arg_status st = query_filter(ctx, argv[0], &copy);
  if (st == ARG_OK) {
    filter_hash h;
    st = sql_hash_value(ctx, argv[1], copy->view.header.seed, &h);
    if (st == ARG_OK) {
      int maybe = sql_filter_contains(ctx, &copy->view, h);
      if (maybe >= 0) sqlite3_result_int(ctx, maybe);
    }
  }
  if (st == ARG_NULL) sqlite3_result_null(ctx);
}
