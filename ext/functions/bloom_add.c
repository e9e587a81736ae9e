/*
** bloom_add(filter, value, ...): a new filter with each non-NULL value
** added.  NULL filter gives NULL.  The input is never modified; the result
** has exactly the input's size, so that
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   UPDATE filters SET f = bloom_add(f, NEW.id) WHERE name = 'orders';
**
** in a trigger lets SQLite rewrite only the pages whose bits changed.
**
** A layered filter takes the values into its newest (last) layer, the one
** a growing store fills; the outer count follows the layer's.
*/
#include "core/bloom.h"
#include "core/layered.h"
#include "functions/filter_arg.h"
#include "functions/registry.h"
#include "functions/value_hash.h"

void sql_bloom_add(sqlite3_context *ctx, int argc,
                          sqlite3_value **argv) {
  if (argc < 2) {
    sql_error(ctx, "needs a filter and at least one value");
    return;
  }
  filter_view f;
  arg_status st = sql_filter_arg(
      ctx, argv[0], FILTER_KIND_BLOOM | FILTER_WANT_LAYERED, &f);
  if (st == ARG_NULL) sqlite3_result_null(ctx);
  if (st != ARG_OK) return;
  unsigned char *out = sql_copy_filter(ctx, &f);
  if (out == NULL) return;
  /* The layer that takes the values (the last), and where it sits in the
  ** copy. */
  filter_view newest;
  filter_layer_walk w = filter_layers_newest(&f);
  filter_layer_prev(&w, &newest);
  unsigned char *layer = out + (newest.blob - f.blob);
  uint64_t blocks = newest.header.bits / BLOOM_BLOCK_BITS, added = 0;
  for (int i = 1; i < argc; i++) {
    filter_hash h;
    st = sql_hash_value(ctx, argv[i], f.header.seed, &h);
    if (st == ARG_ERROR) {
      sqlite3_free(out);
      return;
    }
    if (st == ARG_NULL) continue;
    bloom_insert(layer + FILTER_HEADER_BYTES, blocks, newest.header.hashes, h);
    added++;
  }
  filter_write_count(layer, saturating_add(newest.header.count, added));
  /* The outer count is the layers' sum, saturated: adding to it is the
  ** same sum. */
  if (f.header.kind == FILTER_KIND_LAYERED)
    filter_write_count(out, saturating_add(f.header.count, added));
  sqlite3_result_blob64(ctx, out, f.blob_bytes, sqlite3_free);
}
