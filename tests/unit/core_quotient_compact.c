/*
** Unit tests of compacting a filter of leaves (core/quotient_compact.h):
** the result is a sound blob of leaves, smaller, answering "maybe" for
** every hash the input does (no false negative, ever), with an estimated
** rate within the rate given and a measured one to match; without a rate
** to spend it answers exactly as the input; keys that would pass 64 bits
** stop a merge, and a leaf whose cut keys would overflow a section goes out
** as it came.  Every random stream has a fixed seed, printed as "# seed:".
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/quotient_compact.h"
#include "lib/rng.h"
#include "lib/tap.h"

#define MOST_LEAVES 64
#define MOST_ENTRIES 8000

/* A blob body of leaves (no header) and the hashes it holds. */
typedef struct blob {
  unsigned char *body;
  size_t bytes;
  uint64_t leaves;
  filter_hash *hashes;
  size_t items;
} blob;

static filter_hash hash_in(uint64_t node) {
  unsigned d = qleaf_depth(node);
  filter_hash h = {rng_next(), rng_next()};
  if (d > 0) h.h1 = (node - ((uint64_t)1 << d)) << (64 - d) | h.h1 >> d;
  return h;
}

/* Leaves at nodes[0..count) (covering the hash space in order), n entries
** each, of a width drawn from widths: the generations a growing store's
** leaves hold. */
static blob make_blob(const uint64_t *nodes, uint64_t count, size_t n,
                      const unsigned *widths, unsigned nwidths) {
  static qleaf_entry e[MOST_ENTRIES];
  blob b;
  b.leaves = count;
  b.items = 0;
  b.hashes = malloc(count * n * sizeof *b.hashes);
  b.body = calloc(1, count * (16 + 12 * n + 200));
  size_t end = 0;
  for (uint64_t i = 0; i < count; i++) {
    unsigned d = qleaf_depth(nodes[i]);
    for (size_t j = 0; j < n; j++) {
      filter_hash h = hash_in(nodes[i]);
      unsigned w = widths[rng_next() % nwidths];
      b.hashes[b.items++] = h;
      e[j] = (qleaf_entry){qleaf_key(h, d, w), w};
    }
    qleaf_sort(e, n);
    end += qleaf_encode(e, n, b.body + 16 * count + end);
    store_le64(b.body + 16 * i, nodes[i]);
    store_le64(b.body + 16 * i + 8, end);
  }
  b.bytes = 16 * count + end;
  return b;
}

/* Compacts b at rate into *out (malloc'ed); 0 or -1. */
static int compact(const blob *b, double rate, unsigned char **out,
                   qcompact_size *size, qcompact_plan *plan) {
  static uint64_t hist[QCOMPACT_HISTOGRAM];
  static qleaf_entry scratch[MOST_ENTRIES];
  *out = NULL;
  if (qcompact_plan_for(b->body, b->bytes, b->leaves, rate, hist, scratch,
                        MOST_ENTRIES, plan) != 0 ||
      qcompact_body(b->body, b->bytes, b->leaves, plan, scratch, MOST_ENTRIES,
                    NULL, size) != 0)
    return -1;
  *out = malloc(size->bytes);
  return qcompact_body(b->body, b->bytes, b->leaves, plan, scratch,
                       MOST_ENTRIES, *out, size);
}

static void largest(void *ctx, const qleaf_info *leaf) {
  uint64_t *most = ctx;
  if (leaf->entries > *most) *most = leaf->entries;
}

/* A growing store's shape: the left half in 16 leaves of depth 5, the
** right in 32 of depth 6, three generations of key widths. */
static blob grown(void) {
  uint64_t nodes[48];
  for (uint64_t i = 0; i < 16; i++) nodes[i] = 32 + i;
  for (uint64_t i = 0; i < 32; i++) nodes[16 + i] = 64 + 32 + i;
  const unsigned widths[] = {16, 18, 20};
  return make_blob(nodes, 48, 300, widths, 3);
}

static void spends_the_rate(void) {
  blob b = grown();
  qleaves_summary in, out_sum;
  char why[160];
  tap_ok(qleaves_stats(b.body, b.bytes, b.leaves, &in, NULL, NULL, why,
                       sizeof why) == 0, "the input is a sound blob of leaves");
  const double p = 0.01, rate = 0.97 * p;
  unsigned char *out;
  qcompact_size size;
  qcompact_plan plan;
  int rc = compact(&b, rate, &out, &size, &plan);
  uint64_t most = 0;
  tap_ok(rc == 0 && qleaves_stats(out, size.bytes, size.leaves, &out_sum,
                                  largest, &most, why, sizeof why) == 0,
         "the result is a sound blob of leaves (%llu leaves from %llu)",
         (unsigned long long)size.leaves, (unsigned long long)b.leaves);
  tap_ok(size.bytes < b.bytes && size.leaves < b.leaves &&
             most <= QCOMPACT_MOST_ENTRIES,
         "smaller: %zu bytes from %zu, leaves of at most %llu entries",
         size.bytes, b.bytes, (unsigned long long)most);
  tap_ok(in.estimated_fpr < rate && out_sum.estimated_fpr <= rate &&
             out_sum.estimated_fpr > 0.5 * rate,
         "the estimated rate goes from %.5f to %.5f, within %.5f",
         in.estimated_fpr, out_sum.estimated_fpr, rate);
  int fn = 0;
  for (size_t i = 0; i < b.items; i++)
    fn += qleaves_contains(out, size.bytes, size.leaves, b.hashes[i]) != 1;
  tap_ok(fn == 0, "no false negative: all %zu entries' hashes found (%d "
         "missed)", b.items, fn);
  long probes = 400000, yes = 0, lost = 0;
  for (long i = 0; i < probes; i++) {
    filter_hash h = {rng_next(), rng_next()};
    int before = qleaves_contains(b.body, b.bytes, b.leaves, h);
    int after = qleaves_contains(out, size.bytes, size.leaves, h);
    yes += after == 1;
    lost += before == 1 && after != 1;
  }
  tap_ok(lost == 0, "every random hash the input answers maybe, the result "
         "does too (%ld lost)", lost);
  double measured = (double)yes / (double)probes;
  tap_ok(measured <= p && measured > 0.5 * out_sum.estimated_fpr,
         "measured rate %.5f over %ld random hashes: at most p = %.2f, near "
         "the estimate %.5f", measured, probes, p, out_sum.estimated_fpr);
  free(out);
  free(b.body);
  free(b.hashes);
}

static void merges_only(void) {
  blob b = grown();
  qleaves_summary in;
  qleaves_stats(b.body, b.bytes, b.leaves, &in, NULL, NULL, NULL, 0);
  unsigned char *out;
  qcompact_size size;
  qcompact_plan plan;
  int rc = compact(&b, 0.5 * in.estimated_fpr, &out, &size, &plan);
  tap_ok(rc == 0 && plan.total == QCOMPACT_NO_CUT && size.bytes < b.bytes,
         "below the input's own estimate nothing is cut, and the merge "
         "still saves (%zu bytes from %zu)", size.bytes, b.bytes);
  long differ = 0;
  for (long i = 0; i < 300000; i++) {
    filter_hash h = {rng_next(), rng_next()};
    differ += qleaves_contains(b.body, b.bytes, b.leaves, h) !=
              qleaves_contains(out, size.bytes, size.leaves, h);
  }
  for (size_t i = 0; i < b.items; i++)
    differ += qleaves_contains(out, size.bytes, size.leaves, b.hashes[i]) != 1;
  tap_ok(differ == 0, "uncut, the result answers as the input, hash for "
         "hash (%ld differ)", differ);
  free(out);
  free(b.body);
  free(b.hashes);
}

static void wide_keys_stay(void) {
  const uint64_t nodes[] = {4, 5, 6, 7};
  const unsigned widths[] = {64, 40};
  blob b = make_blob(nodes, 4, 50, widths, 2);
  unsigned char *out;
  qcompact_size size;
  qcompact_plan plan;
  int rc = compact(&b, 1e-30, &out, &size, &plan);
  qleaves_summary sum;
  tap_ok(rc == 0 && size.leaves == 4 &&
             qleaves_stats(out, size.bytes, size.leaves, &sum, NULL, NULL,
                           NULL, 0) == 0 && sum.entries == 200,
         "keys of 64 bits at depth 2 cannot gain a bit: four leaves stay "
         "four (%llu)", (unsigned long long)size.leaves);
  free(out);
  free(b.body);
  free(b.hashes);
}

static void crowded_leaf_verbatim(void) {
  const uint64_t nodes[] = {1};
  const unsigned widths[] = {30, 29};
  blob b = make_blob(nodes, 1, 6000, widths, 2);
  unsigned char *out;
  qcompact_size size;
  qcompact_plan plan;
  /* 6000 keys cut to 14 bits: about 5,000 distinct, past a section's 4095 */
  int rc = compact(&b, 0.4, &out, &size, &plan);
  tap_ok(rc == 0 && plan.total == 14 && size.bytes == b.bytes &&
             memcmp(out, b.body, b.bytes) == 0,
         "a leaf whose cut keys would overflow a section goes out as it "
         "came (cut to %u bits planned)", plan.total);
  free(out);
  free(b.body);
  free(b.hashes);
}

int main(void) {
  rng_seed(0x2545f4914f6cdd1dull, "quotient compaction");
  spends_the_rate();
  merges_only();
  wide_keys_stay();
  crowded_leaf_verbatim();
  return tap_done();
}
