/*
** bloom_count(filter): the estimated number of distinct items in a Bloom
** filter, -(m/k) ln(1 - bits_set/m) rounded to an INTEGER: the figure
** bloom_info reports as estimated_items.  NULL for a NULL filter and for a
** filter whose every bit is set (no estimate exists).  Counts the set bits,
** so it reads the whole filter.  A layered filter gives the sum of its
** layers' estimates (NULL if any layer is full).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   SELECT bloom_count(f) FROM filters WHERE name = 'visited';
*/
#include "core/bloom.h"
#include "core/layered.h"
#include "functions/filter_arg.h"
#include "functions/registry.h"

#include <math.h>

void sql_bloom_count(sqlite3_context *ctx, int argc,
                            sqlite3_value **argv) {
  (void)argc;
  filter_view f;
  arg_status st = sql_filter_arg(
      ctx, argv[0], FILTER_KIND_BLOOM | FILTER_WANT_LAYERED, &f);
  if (st == ARG_NULL) sqlite3_result_null(ctx);
  if (st != ARG_OK) return;
  double items = 0.0;
  filter_layer_walk w = filter_layers_of(&f);
  for (unsigned i = 0; i < filter_layer_count(&f); i++) {
    filter_view layer;
    filter_layer_next(&w, &layer);
    items += bloom_stats_of(layer.body, layer.header.bits,
                            layer.header.hashes).estimated_items;
  }
  if (isinf(items))
    sqlite3_result_null(ctx);
  else
    sqlite3_result_int64(ctx, (sqlite3_int64)llround(items));
}
