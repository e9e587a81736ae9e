/*
** A building aggregate's n and p, the same on every row (group.h).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "functions/group.h"

#include "core/format.h"
#include "functions/params.h"
#include "functions/value_hash.h"

/* Reads this row's n and p.  Returns 1 on the group's first row (recorded
** in *g), 0 on a later row with the same values, -1 after setting an error
** (bad values, or values that differ from the first row's). */
static int read_params(sqlite3_context *ctx, int argc, sqlite3_value **argv,
                       group_state *g) {
  if (g->started && sql_group_same_params(argc, argv, g)) return 0;
  uint64_t n = 0;
  double p = FILTER_DEFAULT_FPR;
  int from_data = 1;
  if (argc >= 2) {
    arg_status st = sql_capacity_arg(ctx, argv[1], &n);
    if (st == ARG_ERROR) return -1;
    from_data = st == ARG_NULL;
  }
  if (argc >= 3) {
    if (sql_fpr_arg(ctx, argv[2], &p) != ARG_OK) return -1;
  }
  if (!g->started) {
    g->started = 1;
    g->sized_from_data = from_data;
    g->n = n;
    g->p = p;
    g->n_type = argc >= 2 ? sqlite3_value_type(argv[1]) : SQLITE_NULL;
    g->n_value = (double)n;
    return 1;
  }
  if (from_data != g->sized_from_data || n != g->n || p != g->p) {
    sql_error(ctx, "n and p must be the same on every row of a group "
              "(first row: n = %s%llu, p = %.17g; this row: n = %s%llu, "
              "p = %.17g)",
              g->sized_from_data ? "NULL " : "", (unsigned long long)g->n, g->p,
              from_data ? "NULL " : "", (unsigned long long)n, p);
    return -1;
  }
  return 0;
}

int sql_group_row_slow(sqlite3_context *ctx, int argc, sqlite3_value **argv,
                       group_state *g,
                       int (*first_row)(sqlite3_context *ctx, group_state *g),
                       filter_hash *h) {
  if (g == NULL) {
    sqlite3_result_error_nomem(ctx);
    return -1;
  }
  int first = read_params(ctx, argc, argv, g);
  if (first == 1) first = first_row(ctx, g);
  if (first == 0) {
    arg_status st = sql_hash_value(ctx, argv[0], FILTER_DEFAULT_SEED, h);
    if (st != ARG_ERROR) return st == ARG_OK;
  }
  g->failed = 1;
  return -1;
}
