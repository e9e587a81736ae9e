/*
** bloom_count(filter): the estimated number of distinct items in a Bloom
** filter, -(m/k) ln(1 - bits_set/m) rounded to an INTEGER: the figure
** bloom_info reports as estimated_items.  NULL for a NULL filter and for a
** filter whose every bit is set (no estimate exists).  Counts the set bits,
** so it reads the whole filter.
**
**   SELECT bloom_count(f) FROM filters WHERE name = 'visited';
*/
#include "core/bloom.h"
#include "functions/filter_arg.h"
#include "functions/registry.h"

#include <math.h>

void sql_bloom_count(sqlite3_context *ctx, int argc,
                            sqlite3_value **argv) {
  (void)argc;
  filter_view f;
  arg_status st = sql_filter_arg(ctx, argv[0],
                                 FILTER_KIND_BLOOM, &f);
  if (st == ARG_NULL) sqlite3_result_null(ctx);
  if (st != ARG_OK) return;
  bloom_stats s = bloom_stats_of(f.body, f.header.bits, f.header.hashes);
  if (isinf(s.estimated_items))
    sqlite3_result_null(ctx);
  else
    sqlite3_result_int64(ctx, (sqlite3_int64)llround(s.estimated_items));
}
