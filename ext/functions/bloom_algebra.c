/*
** Filter algebra over filters of the same shape (version, kind, hash, seed,
** bits, hashes):
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
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
**
** Two layered filters combine layer by layer, when they have as many
** layers and each pair of layers has one shape; each layer's header as
** above, the outer header the first argument's with the larger target
** rate and the layers' sums.  A layered filter and a plain one do not
** combine (an error): which layer would the plain one match?
*/
#include "core/bloom.h"
#include "core/bytes.h"
#include "core/layered.h"
#include "functions/filter_arg.h"
#include "functions/registry.h"

#include <stdio.h>
#include <string.h>

/* Combines the header of `into` (a serialized filter) with b's; *a becomes
** the header written. */
static void combine_header(unsigned char *into, filter_header *a,
                           const filter_header *b, int intersect) {
  filter_header h = *a;
  h.capacity = a->capacity > b->capacity ? a->capacity : b->capacity;
  h.target_fpr = a->target_fpr > b->target_fpr ? a->target_fpr : b->target_fpr;
  h.count = intersect ? (a->count < b->count ? a->count : b->count)
                      : saturating_add(a->count, b->count);
  filter_write_header(into, &h);
  *a = h;
}

/* One filter of kind 1 at `into` (a's bytes) combined with b. */
static void combine_plain(unsigned char *into, filter_view *a,
                          const filter_view *b, int intersect) {
  if (intersect)
    bloom_and(into + FILTER_HEADER_BYTES, b->body, b->body_bytes);
  else
    bloom_or(into + FILTER_HEADER_BYTES, b->body, b->body_bytes);
  combine_header(into, &a->header, &b->header, intersect);
}

/* Combines b into `into`, which holds a's bytes (a may be a view of it).
** a_layers, when not NULL, holds a's layers as filter_layer_next gives them
** (a holder that combines into the same bytes again keeps them, rather
** than parse a's layers anew each time); NULL: they are read here.  0 on
** success, with the headers of *a and of a_layers those now in `into`, so
** the views describe it; otherwise -1 with the reason in why, and `into`
** may be partly combined (both callers drop it: the error ends the
** statement). */
static int combine_into(unsigned char *into, filter_view *a,
                        filter_view *a_layers, const filter_view *b,
                        int intersect, char *why, size_t why_size) {
  int layered = a->header.kind == FILTER_KIND_LAYERED;
  if (layered != (b->header.kind == FILTER_KIND_LAYERED)) {
    snprintf(why, why_size, "a layered filter combines only with a layered "
             "filter (the %s argument is not layered)",
             layered ? "second" : "first");
    return -1;
  }
  if (!layered) {
    if (bloom_shape_check(&a->header, &b->header, why, why_size) != 0)
      return -1;
    combine_plain(into, a, b, intersect);
    return 0;
  }
  if (a->header.layers != b->header.layers) {
    snprintf(why, why_size, "the filters differ in layers: %u vs %u",
             a->header.layers, b->header.layers);
    return -1;
  }
  /* One pass: each pair checked, then combined; the outer sums from the
  ** layers' new headers. */
  filter_view read, y;
  filter_layer_walk wa = filter_layers_of(a), wb = filter_layers_of(b);
  uint64_t capacity = 0, count = 0;
  for (unsigned i = 0; i < a->header.layers; i++) {
    char shape[160];
    filter_view *x = a_layers ? &a_layers[i] : &read;
    if (a_layers == NULL) filter_layer_next(&wa, &read);
    filter_layer_next(&wb, &y);
    if (bloom_shape_check(&x->header, &y.header, shape, sizeof shape) != 0) {
      snprintf(why, why_size, "layer %u: %s", i, shape);
      return -1;
    }
    combine_plain(into + (x->blob - a->blob), x, &y, intersect);
    capacity += x->header.capacity;
    if (capacity > (uint64_t)INT64_MAX) capacity = (uint64_t)INT64_MAX;
    count = saturating_add(count, x->header.count);
  }
  if (b->header.target_fpr > a->header.target_fpr)
    a->header.target_fpr = b->header.target_fpr;
  a->header.capacity = capacity;
  a->header.count = count;
  filter_write_header(into, &a->header);
  return 0;
}

static void combine_pair(sqlite3_context *ctx, sqlite3_value **argv,
                         int intersect) {
  const unsigned want = FILTER_KIND_BLOOM | FILTER_WANT_LAYERED;
  filter_view a, b;
  arg_status sa = sql_filter_arg(ctx, argv[0], want, &a);
  if (sa == ARG_ERROR) return;
  arg_status sb = sql_filter_arg(ctx, argv[1], want, &b);
  if (sb == ARG_ERROR) return;
  if (sa == ARG_NULL || sb == ARG_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  unsigned char *out = sql_copy_filter(ctx, &a);
  if (out == NULL) return;
  char why[200];
  if (combine_into(out, &a, NULL, &b, intersect, why, sizeof why) != 0) {
    sqlite3_free(out);
    sql_error(ctx, "%s", why);
    return;
  }
  sqlite3_result_blob64(ctx, out, a.blob_bytes, sqlite3_free);
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

/* The union so far and its parsed view, kept across rows: the blob is ours
** and never moves, and combine_into keeps the view's headers current, so
** a row parses only its argument. */
typedef struct merge_state {
  unsigned char *blob; /* the union so far; NULL until the first filter */
  size_t bytes;
  filter_view acc;     /* of blob */
  filter_view *layers; /* layered: acc's layers, from sqlite3_malloc64 */
} merge_state;

/* Takes a copy of the first filter f as the running union. */
static int merge_start(merge_state *s, const filter_view *f) {
  const unsigned want = FILTER_KIND_BLOOM | FILTER_WANT_LAYERED;
  s->bytes = f->blob_bytes;
  s->blob = sqlite3_malloc64(s->bytes);
  if (s->blob == NULL) return -1;
  memcpy(s->blob, f->blob, s->bytes);
  /* A copy of a valid filter, so it parses. */
  filter_parse(s->blob, s->bytes, want, &s->acc, NULL, 0);
  if (s->acc.header.kind != FILTER_KIND_LAYERED) return 0;
  unsigned n = s->acc.header.layers;
  s->layers = sqlite3_malloc64(n * sizeof *s->layers);
  if (s->layers == NULL) return -1;
  filter_layer_walk w = filter_layers_of(&s->acc);
  for (unsigned i = 0; i < n; i++) filter_layer_next(&w, &s->layers[i]);
  return 0;
}

void sql_bloom_merge_step(sqlite3_context *ctx, int argc,
                                 sqlite3_value **argv) {
  (void)argc;
  merge_state *s = sqlite3_aggregate_context(ctx, sizeof *s);
  if (s == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  const unsigned want = FILTER_KIND_BLOOM | FILTER_WANT_LAYERED;
  filter_view f;
  if (sql_filter_arg(ctx, argv[0], want, &f) != ARG_OK)
    return; /* NULL: skipped; error: already set */
  if (s->blob == NULL) {
    if (merge_start(s, &f) != 0) sqlite3_result_error_nomem(ctx);
    return;
  }
  char why[200];
  if (combine_into(s->blob, &s->acc, s->layers, &f, 0, why, sizeof why) != 0)
    sql_error(ctx, "%s", why);
}

void sql_bloom_merge_final(sqlite3_context *ctx) {
  merge_state *s = sqlite3_aggregate_context(ctx, 0);
  if (s == NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  sqlite3_free(s->layers);
  s->layers = NULL;
  if (s->blob == NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  sqlite3_result_blob64(ctx, s->blob, s->bytes, sqlite3_free);
  s->blob = NULL;
}
