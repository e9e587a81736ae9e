/*
** bloom_empty(n, p): a new empty filter for n items at rate p (p defaults
** to 0.01), the same bytes bloom_build gives over a group of only NULLs.
**
**   INSERT INTO filters VALUES ('orders', bloom_empty(1000000, 0.01));
*/
#include "functions/common.h"

static void sql_bloom_empty(sqlite3_context *ctx, int argc,
                            sqlite3_value **argv) {
  static const char fname[] = "bloom_empty";
  uint64_t n;
  double p = BLOOM_DEFAULT_FPR;
  arg_status st = sql_capacity_arg(ctx, fname, argv[0], &n);
  if (st == ARG_ERROR) return;
  if (st == ARG_NULL) {
    sql_error(ctx, fname, "n must be an integer >= 1, got NULL");
    return;
  }
  if (argc > 1) {
    if (sql_fpr_arg(ctx, fname, argv[1], &p) != ARG_OK) return;
  }
  bloom_plan plan;
  unsigned char *blob = sql_new_bloom(ctx, fname, n, p, &plan);
  if (blob) sqlite3_result_blob64(ctx, blob, plan.bytes, sql_aligned_free);
}

int register_bloom_empty(sqlite3 *db) {
  int rc = SQLITE_OK;
  for (int argc = 1; argc <= 2 && rc == SQLITE_OK; argc++)
    rc = sqlite3_create_function(
        db, "bloom_empty", argc,
        SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
        sql_bloom_empty, NULL, NULL);
  return rc;
}
