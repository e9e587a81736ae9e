/*
** bloom_ref(filter): table-valued function that takes a filter once per
** statement and hands it on by reference, for probing many rows:
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   SELECT count(*)
**     FROM bloom_ref((SELECT f FROM filters WHERE name = 'visited')) AS r
**     CROSS JOIN urls
**    WHERE bloom_test(r.filter, urls.url);
**
** Why it exists: SQLite copies a BLOB argument that comes from a scalar
** subquery, a join or a CTE into the function's argument on every row, so
** bloom_test((SELECT f ...), x) costs time proportional to the filter's
** size per row (milliseconds a row for a filter of megabytes: the
** subquery line of `make bench`).  Here the subquery is
** evaluated once; xFilter validates it and keeps one copy in the cursor.
** CROSS JOIN keeps bloom_ref as the outer loop, so that happens once.
**
** Why a pointer and not a BLOB: the column is a reference made with SQLite's
** pointer-passing interface (sqlite3_result_pointer, type FILTER_REF_TYPE).
** Every function of this extension reads it (read_filter in filter_arg.c)
** without a copy or a re-parse; to the rest of SQL it is NULL.  A BLOB
** returned with SQLITE_STATIC would be cheaper to explain but unsafe: max()
** and similar keep such a value without copying it, and a correlated
** bloom_ref(t.f) frees the previous copy on each new row, so they would read
** freed memory.  A pointer value is never kept that way: built-ins see NULL,
** and a materialized row stores NULL.
**
** Columns: filter (the reference), source HIDDEN (the argument).  Any kind of
** filter is accepted, layered ones included.  A NULL argument gives no
** row; a malformed filter is an error.
*/
#include "core/layered.h"
#include "functions/aligned.h"
#include "functions/leaf_indexes.h"
#include "functions/onerow_vtab.h"

#include <string.h>

enum { COL_FILTER, COL_SOURCE };

const onerow_spec sql_ref_spec = {
    .schema = "CREATE TABLE x(filter, source HIDDEN)",
    .first_arg = COL_SOURCE,
    .args = 1,
    .required = 1,
    .usage = "needs a filter argument, as in "
             "FROM bloom_ref((SELECT f FROM filters WHERE ...)) AS r",
};

typedef struct ref_cursor {
  onerow_cursor base;
  unsigned char *blob; /* the cursor's own copy */
  filter_view view;    /* parsed, pointing into blob */
  layer_index *layers; /* a layered filter's layers, read once */
} ref_cursor;

static int ref_open(sqlite3_vtab *vtab, sqlite3_vtab_cursor **out) {
  (void)vtab;
  return onerow_open(sizeof(ref_cursor), out);
}

static int ref_close(sqlite3_vtab_cursor *cur) {
  leaf_indexes_free(((ref_cursor *)cur)->view.leaf_indexes);
  sql_aligned_free(((ref_cursor *)cur)->blob);
  sqlite3_free(((ref_cursor *)cur)->layers);
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int ref_filter(sqlite3_vtab_cursor *cur, int idx_num,
                      const char *idx_str, int argc, sqlite3_value **argv) {
  (void)idx_str;
  ref_cursor *c = (ref_cursor *)cur;
  c->base.eof = 1;
  leaf_indexes_free(c->view.leaf_indexes); /* the last row's filter's */
  c->view.leaf_indexes = NULL;
  sql_aligned_free(c->blob);
  c->blob = NULL;
  filter_view f;
  int found;
  int rc = onerow_filter_arg(cur, idx_num, argc, argv, FILTER_WANT_LAYERED,
                             &f, &found);
  if (rc != SQLITE_OK || !found) return rc;
  c->blob = sql_aligned_alloc(f.blob_bytes);
  if (c->blob == NULL) return SQLITE_NOMEM;
  memcpy(c->blob, f.blob, f.blob_bytes);
  /* The copy holds the same bytes, so it parses the same way. */
  filter_parse(c->blob, f.blob_bytes, FILTER_WANT_LAYERED, &c->view, NULL, 0);
  if (c->view.header.kind == FILTER_KIND_LAYERED) {
    if (c->layers == NULL) c->layers = sqlite3_malloc(sizeof *c->layers);
    if (c->layers == NULL) return SQLITE_NOMEM;
    layer_index_of(&c->view, c->layers);
    c->view.layers = c->layers;
  }
  if (leaf_indexes_wanted(&c->view)) {
    c->view.leaf_indexes = leaf_indexes_new();
    if (c->view.leaf_indexes == NULL) return SQLITE_NOMEM;
  }
  c->base.eof = 0;
  return SQLITE_OK;
}

static int ref_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                      int col) {
  ref_cursor *c = (ref_cursor *)cur;
  if (col == COL_FILTER)
    sqlite3_result_pointer(ctx, &c->view, FILTER_REF_TYPE, NULL);
  else
    sqlite3_result_null(ctx);
  return SQLITE_OK;
}

const sqlite3_module sql_ref_module =
    ONEROW_MODULE(ref_open, ref_close, ref_filter, ref_column);
