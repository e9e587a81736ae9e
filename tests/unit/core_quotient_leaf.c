/*
** Unit tests of quotient leaves (core/quotient_leaf.h): a record written
** and read back, every entry found by its hash, the measured rate of a
** leaf against the sum of its entries' shares, a split that keeps every
** entry in the child that owns it, damaged records refused or answered
** -1 without a read past them, and a blob of leaves (layout 1) probed and
** checked.  Every random stream has a fixed seed, printed as "# seed:".
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
#include "core/quotient_leaf.h"
#include "lib/rng.h"
#include "lib/tap.h"

#define MAX 3000

static filter_hash random_hash_in(uint64_t node) {
  unsigned d = qleaf_depth(node);
  filter_hash h = {rng_next(), rng_next()};
  if (d > 0)
    h.h1 = (node - ((uint64_t)1 << d)) << (64 - d) |
           (d == 64 ? 0 : h.h1 >> d);
  return h;
}

/* A leaf of n entries at node: hashes[i]'s entry has widths[i] bits. */
static size_t make_leaf(uint64_t node, size_t n, const unsigned *widths,
                        unsigned nwidths, filter_hash *hashes,
                        qleaf_entry *e) {
  unsigned d = qleaf_depth(node);
  for (size_t i = 0; i < n; i++) {
    hashes[i] = random_hash_in(node);
    unsigned b = widths[rng_next() % nwidths];
    e[i] = (qleaf_entry){qleaf_key(hashes[i], d, b), b};
  }
  qleaf_sort(e, n);
  return n;
}

static void round_trip(void) {
  static qleaf_entry e[MAX], back[MAX];
  static filter_hash hashes[MAX];
  static unsigned char rec[MAX * 10];
  const unsigned widths[] = {24, 17, 9, 3, 0};
  int good = 1, found = 1;
  for (unsigned trial = 0; trial < 40; trial++) {
    uint64_t node = trial == 0 ? 1 : (1u << (trial % 20)) + trial;
    size_t n = 1 + rng_next() % 1500;
    make_leaf(node, n, widths, 1 + trial % 5, hashes, e);
    size_t len = qleaf_encode(e, n, rec), count, used;
    good &= len == qleaf_encoded_bytes(e, n);
    good &= qleaf_length(rec, len, &used) == 0 && used == len;
    good &= qleaf_decode(rec, len, back, MAX, &count, NULL, 0) == 0 &&
            count == n && memcmp(back, e, n * sizeof *e) == 0;
    for (size_t i = 0; i < n; i++)
      found &= qleaf_contains(rec, len, qleaf_depth(node), hashes[i]) == 1;
  }
  tap_ok(good, "40 leaves of 1 to 1500 entries of 1 to 5 widths decode as "
               "written");
  tap_ok(found, "every entry's hash is found in its leaf (no false "
                "negative)");
  size_t count;
  unsigned char empty[1] = {0};
  tap_ok(qleaf_decode(empty, 1, back, MAX, &count, NULL, 0) == 0 &&
             count == 0 && qleaf_contains(empty, 1, 5, hashes[0]) == 0,
         "an empty leaf (one zero byte) holds nothing");
}

/* A leaf's measured rate for random hashes it owns is the sum over its
** entries of 2^-b, within 4 standard deviations. */
static void rate(void) {
  static qleaf_entry e[MAX];
  static filter_hash hashes[MAX];
  static unsigned char rec[MAX * 10];
  const unsigned widths[] = {14, 12, 10};
  uint64_t node = 37;
  size_t n = make_leaf(node, 900, widths, 3, hashes, e);
  size_t len = qleaf_encode(e, n, rec);
  /* Keys of different widths are prefixes of one bit string: the exact
  ** rate is the share of the 2^14 prefixes of 14 bits that some entry's
  ** key begins. */
  static unsigned char hit[1 << 14];
  memset(hit, 0, sizeof hit);
  for (size_t i = 0; i < n; i++) {
    unsigned spare = 14 - e[i].bits;
    for (uint64_t v = e[i].key << spare; v < (e[i].key + 1) << spare; v++)
      hit[v] = 1;
  }
  double expect = 0;
  for (int v = 0; v < 1 << 14; v++) expect += hit[v];
  expect /= 1 << 14;
  long trials = 400000, hits = 0;
  for (long t = 0; t < trials; t++)
    hits += qleaf_contains(rec, len, qleaf_depth(node), random_hash_in(node));
  double got = (double)hits / (double)trials;
  double sd = sqrt(expect * (1 - expect) / (double)trials);
  tap_ok(fabs(got - expect) <= 4 * sd, "a leaf's rate %.5f is the share of "
         "hashes its keys begin, %.5f (within 4 sd = %.5f)", got, expect, 4 * sd);
}

static void split(void) {
  static qleaf_entry e[MAX], left[MAX], right[MAX];
  static filter_hash hashes[MAX];
  static unsigned char l_rec[MAX * 10], r_rec[MAX * 10];
  const unsigned widths[] = {20, 1, 0};
  int good = 1, shares = 1;
  for (int trial = 0; trial < 20; trial++) {
    uint64_t node = 2 + (uint64_t)trial;
    unsigned d = qleaf_depth(node);
    size_t n = make_leaf(node, 1 + rng_next() % 800, widths, 3, hashes, e);
    size_t nl, nr;
    qleaf_split(e, n, left, &nl, right, &nr);
    qleaf_encode(left, nl, l_rec);
    qleaf_encode(right, nr, r_rec);
    double before = 0, after = 0;
    for (size_t i = 0; i < n; i++) before += ldexp(1.0, -(int)(d + e[i].bits));
    for (size_t i = 0; i < nl; i++)
      after += ldexp(1.0, -(int)(d + 1 + left[i].bits));
    for (size_t i = 0; i < nr; i++)
      after += ldexp(1.0, -(int)(d + 1 + right[i].bits));
    size_t whole = 0; /* entries of no bit go to both children */
    for (size_t i = 0; i < n; i++) whole += e[i].bits == 0;
    shares &= fabs(after - before) <= 1e-12 + ldexp((double)whole, -(int)d) &&
              nl + nr == n + whole;
    for (size_t i = 0; i < n; i++) {
      uint64_t child = qleaf_node_of(hashes[i], d + 1);
      const unsigned char *rec = child == 2 * node ? l_rec : r_rec;
      good &= (child == 2 * node || child == 2 * node + 1) &&
              qleaf_contains(rec, MAX * 10, d + 1, hashes[i]) == 1;
    }
  }
  tap_ok(good, "after a split every entry is found in the child that owns "
               "its hash");
  tap_ok(shares, "a split keeps each entry's share 2^-(depth + bits) (an "
                 "entry of no bit: copied to both)");
}

static void damage(void) {
  static qleaf_entry e[MAX], back[MAX];
  static filter_hash hashes[MAX];
  const unsigned widths[] = {16, 8};
  size_t n = make_leaf(9, 300, widths, 2, hashes, e);
  size_t len = qleaf_encoded_bytes(e, n);
  unsigned char *rec = malloc(len);
  qleaf_encode(e, n, rec);
  int refused = 0, changed = 1, answered = 1, trials = 3000;
  for (int t = 0; t < trials; t++) {
    unsigned char *copy = malloc(len);
    memcpy(copy, rec, len);
    size_t at = rng_next() % len;
    copy[at] ^= (unsigned char)(1u << (rng_next() % 8));
    size_t count;
    if (qleaf_decode(copy, len, back, MAX, &count, NULL, 0) != 0)
      refused++;
    else
      changed &= count != n || memcmp(back, e, n * sizeof *e) != 0;
    for (int k = 0; k < 20; k++) {
      int r = qleaf_contains(copy, len, 3, hashes[rng_next() % n]);
      answered &= r >= -1 && r <= 1;
    }
    free(copy);
  }
  free(rec);
  tap_ok(refused > 0 && changed, "every one-bit flip is refused (%d of %d) "
         "or reads as other entries (a key's low bits)", refused, trials);
  tap_ok(answered, "probes of flipped records answer 1, 0 or -1 within "
                   "their bytes (ASan checks the reads)");
  unsigned char too_many[2] = {66, 0};
  size_t count;
  tap_ok(qleaf_decode(too_many, 2, back, MAX, &count, NULL, 0) != 0 &&
             qleaf_contains(too_many, 2, 0, hashes[0]) == -1,
         "a record of 66 sections is refused");
}

/* A leaf's index answers every probe as the walk of its record does, for
** members and random hashes, with keys of 0 to 31 bits (one of 0 bits
** answers for everything); a key of 32 bits makes no index. */
static void index_agrees(void) {
  static qleaf_entry e[MAX], copy[MAX];
  static filter_hash hashes[MAX];
  static unsigned char rec[MAX * 10];
  static uint32_t span[MAX];
  const unsigned widths[] = {31, 20, 13, 7, 1, 0};
  int agree = 1, members = 1;
  long probes = 0;
  for (unsigned trial = 0; trial < 30; trial++) {
    uint64_t node = 16 + trial;
    unsigned d = qleaf_depth(node);
    size_t n = make_leaf(node, 1 + rng_next() % 900, widths,
                         trial % 3 == 0 ? 6 : 3, hashes, e);
    size_t len = qleaf_encode(e, n, rec);
    memcpy(copy, e, n * sizeof *e);
    int64_t k = qleaf_index(copy, n, span);
    if (k < 0) {
      agree = 0;
      continue;
    }
    for (size_t i = 0; i < n; i++)
      members &= qleaf_in_index(span, (uint32_t)k,
                                (uint32_t)qleaf_key(hashes[i], d, 32)) == 1;
    for (int t = 0; t < 20000; t++, probes++) {
      filter_hash h = random_hash_in(node);
      agree &= qleaf_in_index(span, (uint32_t)k,
                              (uint32_t)qleaf_key(h, d, 32)) ==
               qleaf_contains(rec, len, d, h);
    }
  }
  tap_ok(members, "a leaf's index finds every entry's hash");
  tap_ok(agree, "a leaf's index answers %ld random probes as its record does",
         probes);
  /* Entries crowded at one end: a probe's first guess lies far from
  ** its interval, and it must step all the way; the answer is checked
  ** against each entry's interval, read directly. */
  int crowded = 1;
  for (unsigned end = 0; end < 3; end++) {
    size_t n = 500;
    for (size_t i = 0; i < n; i++)
      e[i] = (qleaf_entry){(end ? 0x78000000u : 0x100u) + 4 * i, 31};
    e[n] = (qleaf_entry){end ? 0x7FFu : 0x3FFu, 12}; /* a wide one */
    n++;
    if (end == 2) { /* nested, one first hash, the narrowest first */
      n = 0;
      e[n++] = (qleaf_entry){0x40000000u, 31};
      e[n++] = (qleaf_entry){0x80000u, 20};
      e[n++] = (qleaf_entry){0x40u, 7};
      e[n++] = (qleaf_entry){1u, 1};
      e[n++] = (qleaf_entry){0x41u, 7};
    }
    memcpy(copy, e, n * sizeof *e);
    int64_t k = qleaf_index(copy, n, span);
    /* around every entry's interval's ends, both ends of the space, and
    ** random points */
    uint64_t xs[4 * 501 + 2 + 1000];
    size_t nx = 0;
    for (size_t i = 0; i < n; i++) {
      uint64_t lo = e[i].key << (32 - e[i].bits);
      uint64_t hi = lo + ((uint64_t)1 << (32 - e[i].bits)) - 1;
      xs[nx++] = lo - 1;
      xs[nx++] = lo;
      xs[nx++] = hi;
      xs[nx++] = hi + 1;
    }
    xs[nx++] = 0;
    xs[nx++] = 0xFFFFFFFFu;
    for (int t = 0; t < 1000; t++) xs[nx++] = rng_next() & 0xFFFFFFFFu;
    for (size_t j = 0; j < nx; j++) {
      uint32_t x = (uint32_t)xs[j];
      int want = 0;
      for (size_t i = 0; i < n; i++)
        want |= (x >> (32 - e[i].bits)) == e[i].key;
      crowded &= k > 0 && qleaf_in_index(span, (uint32_t)k, x) == want;
    }
  }
  tap_ok(crowded, "a leaf's index answers right when its entries crowd one end, or nest");
  qleaf_entry wide = {1, 32};
  tap_ok(qleaf_index(&wide, 1, span) == -1,
         "a key of 32 bits makes no index");
}

/* A leaf's stretch of a guard passes every hash its index holds:
** members, random hashes, and both ends of every interval, keys of 0 to
** 31 bits, at the bits qleaf_guard_bits gives, at 4 (part of a word)
** and at 0 (one bit: a leaf as deep as its guard).
** It leaves the bits around it as they were.  And it turns most others
** away: with keys of 31 bits each interval sets one bit of at least 8 an
** interval, so at most 1 - e^(-1/8) (11.8%) of the hashes the index does
** not hold pass, on average. */
static void guard_agrees(void) {
  static qleaf_entry e[MAX];
  static filter_hash hashes[MAX];
  static uint32_t span[MAX];
  static uint64_t bits[(size_t)1 << 12]; /* 4 stretches of r <= 16 bits */
  const unsigned widths[] = {31, 20, 13, 7, 1, 0};
  int passes = 1, kept = 1;
  long probes = 0, absent = 0, through = 0;
  for (unsigned trial = 0; trial < 60; trial++) {
    uint64_t node = 16 + trial;
    unsigned d = qleaf_depth(node), kinds = trial % 3 ? trial % 3 * 3 : 1;
    size_t n = make_leaf(node, 1 + rng_next() % 900, widths,
                         kinds > 6 ? 6 : kinds, hashes, e);
    int64_t k = qleaf_index(e, n, span);
    /* also 4 bits (part of a word) and 0 (a leaf as deep as its guard) */
    unsigned r = trial % 4 != 3   ? qleaf_guard_bits((uint64_t)k)
                 : trial % 8 == 7 ? 0
                                  : 4;
    if (k < 0 || r > 16) {
      passes = 0;
      continue;
    }
    /* the leaf's stretch is the third of four, the others all set or
    ** all clear */
    uint64_t first = (uint64_t)2 << r, around = trial & 1 ? UINT64_MAX : 0;
    memset(bits, (int)(around & 0xFF), sizeof bits);
    qleaf_guard(span, (uint32_t)k, r, bits, first);
    for (uint64_t j = 0; j < (uint64_t)4 << r; j++)
      if (j < first || j >= first + ((uint64_t)1 << r))
        kept &= qleaf_in_guard(bits, j) == (int)(around & 1);
    for (size_t i = 0; i < n; i++, probes++) {
      uint32_t x = (uint32_t)qleaf_key(hashes[i], d, 32);
      passes &= qleaf_in_guard(bits, first + ((uint64_t)x >> (32 - r)));
    }
    for (int64_t i = 0; i < k; i++, probes += 2) {
      uint64_t a = qleaf_span_first(span[i]), z = qleaf_span_last(span[i]);
      passes &= qleaf_in_guard(bits, first + (a >> (32 - r))) &&
                qleaf_in_guard(bits, first + (z >> (32 - r)));
    }
    for (int t = 0; t < 20000; t++, probes++) {
      uint32_t x = (uint32_t)qleaf_key(random_hash_in(node), d, 32);
      int held = qleaf_in_index(span, (uint32_t)k, x);
      int pass = qleaf_in_guard(bits, first + ((uint64_t)x >> (32 - r)));
      passes &= pass || !held;
      if (kinds == 1 && r >= 6 && !held) {
        absent++;
        through += pass;
      }
    }
    qleaf_guard_open(bits, first, r);
    for (uint64_t j = 0; j < (uint64_t)1 << r; j++)
      kept &= qleaf_in_guard(bits, first + j);
    qleaf_guard(span, 0, r, bits, first); /* an empty index */
    for (uint64_t j = 0; j < (uint64_t)4 << r; j++)
      kept &= qleaf_in_guard(bits, j) ==
              (j < first || j >= first + ((uint64_t)1 << r) ? (int)(around & 1)
                                                            : 0);
  }
  tap_ok(passes,
         "a leaf's guard passes every hash its index holds (%ld probes)",
         probes);
  tap_ok(kept, "a leaf's guard sets and clears its own bits and no other; "
         "opened, it sets them all, and an empty index clears them all");
  double share = absent ? (double)through / (double)absent : 1;
  tap_ok(absent > 0 && share <= 0.118,
         "a leaf's guard lets %.1f%% of %ld hashes its index does not hold "
         "through (at most 11.8%%)", 100 * share, absent);
  tap_ok(qleaf_guard_bits(0) == 6 && qleaf_guard_bits(8) == 6 &&
             qleaf_guard_bits(9) == 7 && qleaf_guard_bits(4095) == 15,
         "a guard has 8 bits an entry or more, and one word at least");
}

/* A blob body of four leaves (nodes 4, 10, 11, 3) by hand. */
static void leaves_blob(void) {
  static qleaf_entry e[MAX];
  static filter_hash hashes[4][200];
  const uint64_t nodes[] = {4, 10, 11, 3};
  const unsigned widths[] = {18};
  unsigned char body[4 * 16 + 4 * 800];
  size_t end = 0;
  for (int i = 0; i < 4; i++) {
    size_t n = make_leaf(nodes[i], 200, widths, 1, hashes[i], e);
    end += qleaf_encode(e, n, body + 64 + end);
    store_le64(body + 16 * i, nodes[i]);
    store_le64(body + 16 * i + 8, end);
  }
  size_t bytes = 64 + end;
  int found = 1;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 200; j++)
      found &= qleaves_contains(body, bytes, 4, hashes[i][j]) == 1;
  qleaves_summary sum;
  char why[160];
  tap_ok(qleaves_check_header(body, bytes, 4) == 0 &&
             qleaves_stats(body, bytes, 4, &sum, NULL, NULL, why,
                           sizeof why) == 0 &&
             sum.entries == 800 && sum.min_depth == 1 && sum.max_depth == 3,
         "a blob of four leaves passes both checks: 800 entries, depths 1-3");
  tap_ok(found, "every entry is found through the directory");
  store_le64(body + 16, 11); /* node 10 -> 11: a gap and a repeat */
  tap_ok(qleaves_stats(body, bytes, 4, &sum, NULL, NULL, why, sizeof why) != 0,
         "a directory with a gap is refused (%s)", why);
  store_le64(body + 16, 10);
  tap_ok(qleaves_check_header(body, bytes - 1, 4) != 0 &&
             qleaves_check_header(body, 63, 4) != 0,
         "a body shorter than its directory says is refused in O(1)");
}

int main(void) {
  rng_seed(0x9e3779b97f4a7c15ull, "quotient leaves");
  round_trip();
  rate();
  split();
  damage();
  index_agrees();
  guard_agrees();
  leaves_blob();
  return tap_done();
}
