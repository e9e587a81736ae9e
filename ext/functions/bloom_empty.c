/*
** bloom_empty(n, p): a new empty filter for n items at rate p (p defaults
** to 0.01), the same bytes bloom_build gives over a group of only NULLs.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   INSERT INTO filters VALUES ('orders', bloom_empty(1000000, 0.01));
*/
#include "functions/aligned.h"
#include "functions/params.h"
#include "functions/registry.h"
#include "functions/sizing.h"

void sql_bloom_empty(sqlite3_context *ctx, int argc,
                            sqlite3_value **argv) {
  uint64_t n;
  double p = FILTER_DEFAULT_FPR;
  arg_status st = sql_capacity_arg(ctx, argv[0], &n);
  if (st == ARG_ERROR) return;
  if (st == ARG_NULL) {
    sql_error(ctx, "n must be an integer >= 1, got NULL");
    return;
  }
  if (argc > 1) {
    if (sql_fpr_arg(ctx, argv[1], &p) != ARG_OK) return;
  }
  bloom_sizing sizing;
  unsigned char *blob = sql_new_bloom(ctx, n, p, &sizing);
  if (blob) sqlite3_result_blob64(ctx, blob, sizing.bytes, sql_aligned_free);
}
