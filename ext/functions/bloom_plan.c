/*
** bloom_plan(n [, p]): table-valued function, the sizing calculator.  One
** row: what bloom_build(value, n, p) would make (p defaults to 0.01).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   SELECT * FROM bloom_plan(1000000, 0.01);
**
**   capacity INTEGER, target_fpr REAL, bits INTEGER, hashes INTEGER,
**   bytes INTEGER, bits_per_item REAL, expected_fpr REAL
**
** expected_fpr is the filter's false-positive model evaluated at n items
** for the chosen bits and hashes, not the target echoed back.  The sizing is
** reported even when bytes exceeds the connection's blob limit (then
** bloom_build would fail with SQLITE_TOOBIG).
*/
#include "core/bloom.h"
#include "functions/onerow_vtab.h"
#include "functions/params.h"

enum {
  COL_CAPACITY, COL_TARGET_FPR, COL_BITS, COL_HASHES, COL_BYTES,
  COL_BITS_PER_ITEM, COL_EXPECTED_FPR,
  COL_N, COL_P /* HIDDEN: the arguments */
};

const onerow_spec sql_plan_spec = {
    .schema = "CREATE TABLE x(capacity INTEGER, target_fpr REAL,"
              " bits INTEGER, hashes INTEGER, bytes INTEGER,"
              " bits_per_item REAL, expected_fpr REAL, n HIDDEN, p HIDDEN)",
    .first_arg = COL_N,
    .args = 2,
    .required = 1,
    .usage = "needs n, as in SELECT * FROM bloom_plan(1000000, 0.01)",
};

typedef struct plan_cursor {
  onerow_cursor base;
  bloom_sizing sizing;
} plan_cursor;

static int plan_open(sqlite3_vtab *vtab, sqlite3_vtab_cursor **out) {
  (void)vtab;
  return onerow_open(sizeof(plan_cursor), out);
}

static int plan_filter(sqlite3_vtab_cursor *cur, int idx_num,
                       const char *idx_str, int argc, sqlite3_value **argv) {
  (void)idx_str;
  plan_cursor *c = (plan_cursor *)cur;
  sqlite3_value *args[2];
  onerow_args(&sql_plan_spec, idx_num, argc, argv, args);
  c->base.eof = 1;
  uint64_t n;
  double p = FILTER_DEFAULT_FPR;
  char why[128];
  arg_status st = read_capacity(args[0], &n, why, sizeof why);
  if (st == ARG_ERROR) return onerow_error(cur, "%s", why);
  if (st == ARG_NULL) return onerow_error(cur, "n must be an integer >= 1, got NULL");
  if (args[1]) {
    if (read_fpr(args[1], &p, why, sizeof why) != ARG_OK)
      return onerow_error(cur, "%s", why);
  }
  /* Any sizing whose figures fit SQLite's INTEGER (bits < 2^63), even one
  ** far over the connection's blob limit. */
  if (bloom_sizing_for(n, p, FILTER_HEADER_BYTES + (uint64_t)INT64_MAX / 8,
                     &c->sizing) != BLOOM_SIZING_OK)
    return onerow_error(cur, "no filter of fewer than 2^63 bits holds n = %llu at p = %g",
                        (unsigned long long)n, p);
  c->base.eof = 0;
  return SQLITE_OK;
}

static int plan_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                       int col) {
  const bloom_sizing *p = &((plan_cursor *)cur)->sizing;
  switch (col) {
    case COL_CAPACITY: sqlite3_result_int64(ctx, (sqlite3_int64)p->capacity); break;
    case COL_TARGET_FPR: sqlite3_result_double(ctx, p->target_fpr); break;
    case COL_BITS: sqlite3_result_int64(ctx, (sqlite3_int64)p->bits); break;
    case COL_HASHES: sqlite3_result_int64(ctx, p->hashes); break;
    case COL_BYTES: sqlite3_result_int64(ctx, (sqlite3_int64)p->bytes); break;
    case COL_BITS_PER_ITEM:
      sqlite3_result_double(ctx, (double)p->bits / (double)p->capacity);
      break;
    case COL_EXPECTED_FPR: sqlite3_result_double(ctx, p->expected_fpr); break;
    default: sqlite3_result_null(ctx); break;
  }
  return SQLITE_OK;
}

const sqlite3_module sql_plan_module =
    ONEROW_MODULE(plan_open, onerow_close, plan_filter, plan_column);
