/*
** A query's rows (store.h, "cursor.c"): a row for each probed value that
** may be present (value = x, value IN (...)), the summary row (value
** NULL, filter the export), or the schedule's own rows; what each column
** gives; the rowid that lets a DELETE name a probed value.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include <string.h>

#include "store/store.h"

void cursor_reset(store_cursor *c) {
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


/* Adds value as a row of the cursor if the store may hold it. */
static int probe_into(store *s, store_cursor *c, sqlite3_value *value,
                      int room) {
  filter_hash h;
  int maybe;
  int rc = items_probe(s, value, &h, &maybe);
  if (rc != SQLITE_OK || !maybe) return rc;
  if (c->count == room) return SQLITE_OK; /* cannot happen: room is exact */
  c->values[c->count] = sqlite3_value_dup(value);
  if (c->values[c->count] == NULL) return SQLITE_NOMEM;
  c->hashes[c->count] = h;
  c->count++;
  return SQLITE_OK;
}

/* value = x: a row if x may be present, its value kept for xColumn. */
static int probe_equal(store *s, store_cursor *c, sqlite3_value *value) {
  int maybe;
  int rc = items_probe(s, value, &c->eq_hash, &maybe);
  if (rc != SQLITE_OK || !maybe) return rc;
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

/* value IN (...): a row for each value that may be present. */
static int probe_list(store *s, store_cursor *c, sqlite3_value *list) {
  int room = 0, rc;
  sqlite3_value *v;
  for (rc = sqlite3_vtab_in_first(list, &v); rc == SQLITE_OK && v;
       rc = sqlite3_vtab_in_next(list, &v))
    room++;
  if (rc != SQLITE_OK && rc != SQLITE_DONE) return rc;
  if (room == 0) return SQLITE_OK;
  c->values = sqlite3_malloc64((sqlite3_uint64)room * sizeof *c->values);
  c->hashes = sqlite3_malloc64((sqlite3_uint64)room * sizeof *c->hashes);
  if (c->values == NULL || c->hashes == NULL) return SQLITE_NOMEM;
  for (rc = sqlite3_vtab_in_first(list, &v); rc == SQLITE_OK && v;
       rc = sqlite3_vtab_in_next(list, &v)) {
    int prc = probe_into(s, c, v, room);
    if (prc != SQLITE_OK) return prc;
  }
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int cursor_start(store *s, store_cursor *c, int plan, sqlite3_value **argv) {
  cursor_reset(c);
  /* Outside a write transaction no DELETE can follow: forget the rows. */
  if (!s->in_write) s->marked_count = 0;
  c->plan = plan;
  if (plan == PLAN_NONE) return SQLITE_OK;
  int rc = chunks_revalidate(s);
  if (rc == SQLITE_OK && s->config.schedule->tick)
    rc = s->config.schedule->tick(s);
  if (rc != SQLITE_OK) return rc;
  if (plan == PLAN_FILTER) {
    c->count = 1; /* the filter row; its column is read lazily */
    return SQLITE_OK;
  }
  if (plan == PLAN_ROWS) {
    c->count = s->config.schedule->row_count(s);
    c->row_read = -1;
    return SQLITE_OK;
  }
  return plan == PLAN_EQ ? probe_equal(s, c, argv[0])
                         : probe_list(s, c, argv[0]);
}

/* Own column i of the schedule's row, the row read once for all its
** columns. */
static int row_column(store *s, store_cursor *c, sqlite3_context *ctx,
                      int i) {
  if (!(s->config.schedule->row_columns >> i & 1)) return SQLITE_OK; /* NULL */
  if (c->row_read != c->next) {
    int rc = s->config.schedule->row_at(s, c->next, &c->row);
    if (rc != SQLITE_OK) return rc;
    c->row_read = c->next;
  }
  if (c->row.reals >> i & 1)
    sqlite3_result_double(ctx, c->row.r[i]);
  else
    sqlite3_result_int64(ctx, c->row.v[i]);
  return SQLITE_OK;
}

int cursor_column(store *s, store_cursor *c, sqlite3_context *ctx, int col) {
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
  if (col == COL_FILTER && c->plan == PLAN_FILTER) return store_export(s, ctx);
  if (col >= COL_OWN && c->plan == PLAN_ROWS)
    return row_column(s, c, ctx, col - COL_OWN);
  if (col == COL_SUMMARY) {
    char *text = config_summary(s);
    if (text == NULL) return SQLITE_NOMEM;
    sqlite3_result_text(ctx, text, -1, sqlite3_free);
  }
  return SQLITE_OK;
}

/* A probe row's rowid numbers its hash among those marked (from 1); the
** filter row's is 0. */
int cursor_rowid(store *s, store_cursor *c, sqlite3_int64 *rowid) {
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
