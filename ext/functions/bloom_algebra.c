/*
** Filter algebra over filters of the same shape (version, kind, hash, seed,
** bits, hashes):
**
**   bloom_union(a, b)      bits ORed: holds everything either holds
**   bloom_intersect(a, b)  bits ANDed: holds everything both hold
**   bloom_merge(f)         aggregate union of every non-NULL f in a group
**
**   SELECT month, bloom_merge(f) FROM daily GROUP BY month;
**
** The header of the result: union and merge add the inserted counters and
** keep the larger capacity and target rate of the inputs (equal inputs
** stay as they are, so merging parts built with one n and p gives the bytes
** bloom_build gives over all their rows).  intersect keeps the smaller
** inserted counter (an upper bound on the values both sides received) and
** the larger capacity and rate.  A NULL argument gives NULL; merge skips
** NULLs and gives NULL when no filter was seen.
*/
#include "core/bloom.h"
#include "functions/filter_arg.h"
#include "functions/registry.h"

#include <string.h>

/* Combines the header of `into` (a serialized filter) with b's. */
static void combine_header(unsigned char *into, const filter_header *a,
                           const filter_header *b, int intersect) {
  filter_header h = *a;
  h.capacity = a->capacity > b->capacity ? a->capacity : b->capacity;
  h.target_fpr = a->target_fpr > b->target_fpr ? a->target_fpr : b->target_fpr;
  h.count = intersect ? (a->count < b->count ? a->count : b->count)
                      : saturating_add(a->count, b->count);
  filter_write_header(into, &h);
}

static void combine_pair(sqlite3_context *ctx, sqlite3_value **argv,
                         int intersect) {
  filter_view a, b;
  arg_status sa = sql_filter_arg(ctx, argv[0], FILTER_KIND_BLOOM, &a);
  if (sa == ARG_ERROR) return;
  arg_status sb = sql_filter_arg(ctx, argv[1], FILTER_KIND_BLOOM, &b);
  if (sb == ARG_ERROR) return;
  if (sa == ARG_NULL || sb == ARG_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  char why[160];
  if (bloom_shape_check(&a.header, &b.header, why, sizeof why) != 0) {
    sql_error(ctx, "%s", why);
    return;
  }
  size_t bytes = FILTER_HEADER_BYTES + a.body_bytes;
  unsigned char *out = sqlite3_malloc64(bytes);
  if (out == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  memcpy(out + FILTER_HEADER_BYTES, a.body, a.body_bytes);
  if (intersect)
    bloom_and(out + FILTER_HEADER_BYTES, b.body, b.body_bytes);
  else
    bloom_or(out + FILTER_HEADER_BYTES, b.body, b.body_bytes);
  combine_header(out, &a.header, &b.header, intersect);
  sqlite3_result_blob64(ctx, out, bytes, sqlite3_free);
}

void sql_bloom_union(sqlite3_context *ctx, int argc,
                            sqlite3_value **argv) {
  (void)argc;
  combine_pair(ctx, argv, 0);
}

void sql_bloom_intersect(sqlite3_context *ctx, int argc,
                                sqlite3_value **argv) {
  (void)argc;
  combine_pair(ctx, argv, 1);
}

typedef struct merge_state {
  unsigned char *blob; /* the union so far; NULL until the first filter */
  size_t bytes;
} merge_state;

void sql_bloom_merge_step(sqlite3_context *ctx, int argc,
                                 sqlite3_value **argv) {
  (void)argc;
  merge_state *s = sqlite3_aggregate_context(ctx, sizeof *s);
  if (s == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  filter_view f;
  if (sql_filter_arg(ctx, argv[0], FILTER_KIND_BLOOM, &f) != ARG_OK)
    return; /* NULL: skipped; error: already set */
  if (s->blob == NULL) {
    s->bytes = f.blob_bytes;
    s->blob = sqlite3_malloc64(s->bytes);
    if (s->blob == NULL) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    memcpy(s->blob, f.blob, s->bytes);
    return;
  }
  /* The running union was written by us, so it parses. */
  filter_view acc;
  filter_parse(s->blob, s->bytes, FILTER_KIND_BLOOM, &acc, NULL, 0);
  char why[160];
  if (bloom_shape_check(&acc.header, &f.header, why, sizeof why) != 0) {
    sql_error(ctx, "%s", why);
    return;
  }
  bloom_or(s->blob + FILTER_HEADER_BYTES, f.body, f.body_bytes);
  combine_header(s->blob, &acc.header, &f.header, 0);
}

void sql_bloom_merge_final(sqlite3_context *ctx) {
  merge_state *s = sqlite3_aggregate_context(ctx, 0);
  if (s == NULL || s->blob == NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  sqlite3_result_blob64(ctx, s->blob, s->bytes, sqlite3_free);
  s->blob = NULL;
}
