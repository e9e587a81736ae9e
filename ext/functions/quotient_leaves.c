/*
** quotient_leaves(filter): one row per leaf of a quotient filter of leaves
** (kind 4, layout 1: what SELECT filter FROM a quotient_store gives), in
** the order of the hash ranges they own, as bloom_layers gives a row per
** layer: how far the store has split, and where its bits go.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Columns: leaf INTEGER (0, 1, ...), node INTEGER (2^depth + the prefix of
** h1 it owns), depth INTEGER, entries INTEGER, bytes INTEGER (its record),
** sections INTEGER (key widths), min_bits and max_bits INTEGER (its
** narrowest and widest keys; NULL when empty), estimated_fpr REAL (its
** share of the filter's rate: the sum of 2^-(depth + bits) over its
** entries).  It checks every leaf, so it reads the whole filter; damage is
** an error, and a filter of blocks (layout 0) has no leaves: an error
** that says quotient_info describes it.
*/
#include <string.h>

#include "core/quotient_leaf.h"
#include "functions/onerow_vtab.h"

typedef struct leaves_cursor {
  onerow_cursor base;
  qleaf_info *rows;
  uint64_t row, count, room;
  int failed; /* out of memory while collecting */
} leaves_cursor;

static int leaves_open(sqlite3_vtab *vtab, sqlite3_vtab_cursor **out) {
  (void)vtab;
  return onerow_open(sizeof(leaves_cursor), out);
}

static int leaves_close(sqlite3_vtab_cursor *cur) {
  sqlite3_free(((leaves_cursor *)cur)->rows);
  return onerow_close(cur);
}

static void collect(void *ctx, const qleaf_info *leaf) {
  leaves_cursor *c = ctx;
  if (c->failed) return;
  if (c->count == c->room) {
    uint64_t room = c->room ? 2 * c->room : 64;
    qleaf_info *rows = sqlite3_realloc64(c->rows, room * sizeof *rows);
    if (rows == NULL) {
      c->failed = 1;
      return;
    }
    c->rows = rows;
    c->room = room;
  }
  c->rows[c->count++] = *leaf;
}

/* Every row is made here, while the argument's blob is sure to be there. */
static int leaves_filter(sqlite3_vtab_cursor *cur, int idx_num,
                         const char *idx_str, int argc, sqlite3_value **argv) {
  (void)idx_str;
  leaves_cursor *c = (leaves_cursor *)cur;
  c->base.eof = 1;
  c->count = c->row = 0;
  c->failed = 0;
  filter_view f;
  int found;
  int rc = onerow_filter_arg(cur, idx_num, argc, argv, FILTER_KIND_QUOTIENT,
                             &f, &found);
  if (rc != SQLITE_OK || !found) return rc;
  if (f.header.block_bytes != 0)
    return onerow_error(cur, "the filter has blocks, not leaves (a "
                        "quotient_build filter): quotient_info describes it");
  qleaves_summary sum;
  char why[200];
  if (qleaves_stats(f.body, f.body_bytes, f.header.blocks, &sum, collect, c,
                    why, sizeof why) != 0)
    return onerow_error(cur, "%s", why);
  if (c->failed) return SQLITE_NOMEM;
  c->base.eof = c->count == 0;
  return SQLITE_OK;
}

static int leaves_next(sqlite3_vtab_cursor *cur) {
  leaves_cursor *c = (leaves_cursor *)cur;
  if (++c->row >= c->count) c->base.eof = 1;
  return SQLITE_OK;
}

static int leaves_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((const leaves_cursor *)cur)->row;
  return SQLITE_OK;
}

/* As for the one-row functions, but not unique: many rows come. */
static int leaves_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info) {
  int rc = onerow_best_index(vtab, info);
  if (rc == SQLITE_OK) {
    info->idxFlags = 0;
    info->estimatedRows = 1000;
  }
  return rc;
}

enum { COL_LEAF, COL_NODE, COL_DEPTH, COL_ENTRIES, COL_BYTES, COL_SECTIONS,
       COL_MIN_BITS, COL_MAX_BITS, COL_ESTIMATED_FPR };

static sqlite3_int64 clamp(uint64_t v) {
  return v > (uint64_t)INT64_MAX ? INT64_MAX : (sqlite3_int64)v;
}

static int leaves_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                         int col) {
  const leaves_cursor *c = (const leaves_cursor *)cur;
  const qleaf_info *r = &c->rows[c->row];
  switch (col) {
  case COL_LEAF: sqlite3_result_int64(ctx, clamp(r->index)); break;
  case COL_NODE: sqlite3_result_int64(ctx, clamp(r->node)); break;
  case COL_DEPTH: sqlite3_result_int(ctx, (int)r->depth); break;
  case COL_ENTRIES: sqlite3_result_int64(ctx, clamp(r->entries)); break;
  case COL_BYTES: sqlite3_result_int64(ctx, clamp(r->bytes)); break;
  case COL_SECTIONS: sqlite3_result_int(ctx, (int)r->sections); break;
  case COL_MIN_BITS:
  case COL_MAX_BITS:
    if (r->sections == 0)
      sqlite3_result_null(ctx);
    else
      sqlite3_result_int(ctx, (int)(col == COL_MIN_BITS ? r->min_bits
                                                         : r->max_bits));
    break;
  case COL_ESTIMATED_FPR: sqlite3_result_double(ctx, r->estimated_fpr); break;
  default: sqlite3_result_null(ctx); /* the hidden argument */
  }
  return SQLITE_OK;
}

const onerow_spec sql_quotient_leaves_spec = {
    .schema = "CREATE TABLE x(leaf INTEGER, node INTEGER, depth INTEGER, "
              "entries INTEGER, bytes INTEGER, sections INTEGER, min_bits "
              "INTEGER, max_bits INTEGER, estimated_fpr REAL, filter HIDDEN)",
    .first_arg = COL_ESTIMATED_FPR + 1,
    .args = 1,
    .required = 1,
    .usage = "needs a filter argument, as in SELECT * FROM "
             "quotient_leaves((SELECT filter FROM store))",
};

const sqlite3_module sql_quotient_leaves_module = {
    .iVersion = 0, .xCreate = NULL, .xConnect = onerow_connect,
    .xBestIndex = leaves_best_index, .xDisconnect = onerow_disconnect,
    .xDestroy = onerow_disconnect, .xOpen = leaves_open,
    .xClose = leaves_close, .xFilter = leaves_filter, .xNext = leaves_next,
    .xEof = onerow_eof, .xColumn = leaves_column, .xRowid = leaves_rowid,
};
