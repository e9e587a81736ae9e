/*
** Unit tests of the quotient filter core: block shapes and encoding against
** a bit-by-bit reading of FORMAT.md ("Kind 4") written here, the probe
** against a whole-block decode, no false negatives, the measured
** false-positive rate against p, the sizing's rule, damaged blocks, and
** the kind-4 header checks.  Every random stream has a fixed seed, printed
** as "# seed: ...".
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

#include "core/filter.h"
#include "core/format.h"
#include "core/quotient.h"
#include "lib/rng.h"
#include "lib/tap.h"

/* FORMAT.md's writer's shape, by its words: for l = 0 .. 51, M = min(8191,
** bits - 32 - c(l + 1)) while M >= 1; the largest M * 2^l, first on ties. */
static void spec_shape(uint64_t c, unsigned block_bytes, uint64_t *m,
                       unsigned *l, uint64_t *v) {
  *m = 0, *l = 0, *v = 0;
  long long budget = 8 * (long long)block_bytes - 32;
  for (unsigned ll = 0; ll <= 51 && c > 0; ll++) {
    long long mm = budget - (long long)c * (ll + 1);
    if (mm < 1) break;
    if (mm > 8191) mm = 8191;
    unsigned __int128 vv = (unsigned __int128)mm << ll;
    if (vv > *v) *v = (uint64_t)vv, *m = (uint64_t)mm, *l = ll;
  }
}

static int get_bit(const unsigned char *b, uint64_t t) {
  return b[t / 8] >> (t % 8) & 1;
}

/* FORMAT.md's block, written bit by bit from the h2 values (any order). */
static void spec_block(unsigned char *out, unsigned block_bytes,
                       const uint64_t *h2s, size_t c) {
  uint64_t m, v;
  unsigned l;
  spec_shape(c, block_bytes, &m, &l, &v);
  memset(out, 0, block_bytes);
  uint64_t cc = c > 8191 ? 8191 : c;
  uint32_t header = (uint32_t)cc | (uint32_t)m << 13 | (uint32_t)l << 26;
  for (int i = 0; i < 4; i++) out[i] = (unsigned char)(header >> (8 * i));
  if (v == 0) return;
  uint64_t *keys = malloc(c * sizeof *keys);
  for (size_t i = 0; i < c; i++)
    keys[i] = (uint64_t)(((unsigned __int128)h2s[i] * v) >> 64);
  for (size_t i = 1; i < c; i++) /* insertion sort: a test's few keys */
    for (size_t j = i; j > 0 && keys[j - 1] > keys[j]; j--) {
      uint64_t t = keys[j];
      keys[j] = keys[j - 1];
      keys[j - 1] = t;
    }
  uint64_t pos = 32; /* the unary part, bucket by bucket */
  size_t i = 0;
  for (uint64_t q = 0; q < m; q++) {
    while (i < c && keys[i] >> l == q) {
      out[pos / 8] = (unsigned char)(out[pos / 8] | 1 << (pos % 8));
      pos++, i++;
    }
    pos++; /* the bucket's closing 0 */
  }
  for (i = 0; i < c; i++)
    for (unsigned k = 0; k < l; k++, pos++)
      if (keys[i] >> k & 1)
        out[pos / 8] = (unsigned char)(out[pos / 8] | 1 << (pos % 8));
  free(keys);
}

/* FORMAT.md's probe over one block, decoding every entry. */
static int spec_probe(const unsigned char *b, uint64_t h2) {
  uint32_t header = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
                    (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
  uint64_t c = header & 8191, m = header >> 13 & 8191;
  unsigned l = header >> 26;
  if (c == 0) return 0;
  if (m == 0) return 1;
  uint64_t v = m << l;
  uint64_t key = (uint64_t)(((unsigned __int128)h2 * v) >> 64);
  uint64_t pos = 32, q = 0, i = 0, lows = 32 + c + m;
  while (q < m) {
    if (get_bit(b, pos)) {
      uint64_t low = 0;
      for (unsigned k = 0; k < l; k++)
        low |= (uint64_t)get_bit(b, lows + i * l + k) << k;
      if ((q << l | low) == key) return 1;
      i++;
    } else {
      q++;
    }
    pos++;
  }
  return 0;
}

static void test_shapes(void) {
  unsigned sizes[] = {64, 256, 512, 1024};
  int same = 1;
  for (int s = 0; s < 4; s++)
    for (uint64_t c = 0; c < 9000; c++) {
      uint64_t m, v;
      unsigned l;
      spec_shape(c, sizes[s], &m, &l, &v);
      quotient_shape got;
      uint64_t gv = quotient_shape_for(c, sizes[s], &got);
      if (gv != v || got.buckets != m || got.low_bits != l) {
        tap_diag("c = %llu, %u bytes: V %llu M %u l %u, spec V %llu M %llu "
                 "l %u", (unsigned long long)c, sizes[s],
                 (unsigned long long)gv, got.buckets, got.low_bits,
                 (unsigned long long)v, (unsigned long long)m, l);
        same = 0;
        s = 4;
        break;
      }
    }
  tap_ok(same, "shapes: the largest V = M * 2^l as FORMAT.md words it, "
         "c = 0..8999, 64 to 1024-byte blocks");
}

static void test_blocks(void) {
  uint64_t st = seed_print(0x71756f7469656e74ULL, "blocks");
  unsigned sizes[] = {64, 128, 256, 1024};
  int same = 1, agree = 1, found = 1, checked = 1;
  uint64_t h2s[3000], copy[3000];
  unsigned char mine[1024], spec[1024];
  for (int round = 0; round < 400 && same && agree; round++) {
    unsigned bb = sizes[round % 4];
    size_t c = (size_t)(splitmix64(&st) % (round % 7 == 0 ? 3000 : 300));
    for (size_t i = 0; i < c; i++) {
      h2s[i] = splitmix64(&st);
      /* copies: a value twice, and keys that share a bucket */
      if (i > 0 && splitmix64(&st) % 8 == 0) h2s[i] = h2s[i - 1];
    }
    memcpy(copy, h2s, c * sizeof *h2s);
    quotient_encode_block(mine, bb, copy, c);
    spec_block(spec, bb, h2s, c);
    if (memcmp(mine, spec, bb) != 0) {
      tap_diag("round %d: %zu entries in %u bytes differ", round, c, bb);
      same = 0;
    }
    quotient_shape s;
    if (quotient_block_check(mine, bb, &s, NULL, 0) != 0) checked = 0;
    filter_hash h;
    h.h1 = 0;
    for (size_t i = 0; i < c; i++) {
      h.h2 = h2s[i];
      if (quotient_contains(mine, 1, bb, h) != 1) found = 0;
    }
    for (int k = 0; k < 300; k++) {
      h.h2 = splitmix64(&st);
      if (quotient_contains(mine, 1, bb, h) != spec_probe(mine, h.h2)) {
        agree = 0;
        tap_diag("round %d: a probe differs from the whole-block decode",
                 round);
        break;
      }
    }
  }
  tap_ok(same, "blocks: encoded bit for bit as FORMAT.md says, copies and "
         "full blocks included");
  tap_ok(checked, "blocks: every written block passes the block check");
  tap_ok(found, "blocks: every entry is found");
  tap_ok(agree, "blocks: the probe agrees with a whole-block decode");
}

/* A bucket of more entries than a 64-bit word holds (100 copies of one
** key, then others): the probe's run of ones crosses words. */
static void test_long_bucket(void) {
  uint64_t st = seed_print(0x6c6f6e67ULL, "long bucket");
  uint64_t h2s[160], copy[160];
  unsigned char b[1024];
  int found = 1, agree = 1;
  for (int i = 0; i < 160; i++)
    h2s[i] = i < 100 ? 0x123456789abcdefULL : splitmix64(&st);
  memcpy(copy, h2s, sizeof h2s);
  quotient_encode_block(b, 1024, copy, 160);
  filter_hash h = {0, 0};
  for (int i = 0; i < 160; i++) {
    h.h2 = h2s[i];
    found &= quotient_contains(b, 1, 1024, h) == 1;
  }
  for (int k = 0; k < 20000; k++) {
    h.h2 = splitmix64(&st);
    agree &= quotient_contains(b, 1, 1024, h) == spec_probe(b, h.h2);
  }
  tap_ok(found && agree, "a bucket of 100 copies: every entry found, and "
         "every probe agrees with a whole-block decode");
}

static void test_damage(void) {
  uint64_t st = seed_print(0x64616d616765ULL, "damage");
  uint64_t h2s[200];
  unsigned char b[256];
  for (int i = 0; i < 200; i++) h2s[i] = splitmix64(&st);
  quotient_encode_block(b, 256, h2s, 200);
  quotient_shape s;
  char why[160];
  unsigned char d[256];
  filter_hash h = {0, 0};
  int refused = 1;
  /* one more, one fewer entry in the header; a unary bit flipped */
  memcpy(d, b, 256);
  d[0] ^= 1;
  refused &= quotient_block_check(d, 256, &s, why, sizeof why) == -1;
  refused &= quotient_contains(d, 1, 256, h) == -1;
  memcpy(d, b, 256);
  d[10] ^= 0x10;
  refused &= quotient_block_check(d, 256, &s, why, sizeof why) == -1;
  refused &= quotient_contains(d, 1, 256, h) == -1;
  tap_ok(refused, "damage: a header count or unary bit that disagree is "
         "refused by the check and the probe (%s)", why);
  uint32_t bad[] = {
      0u | 5u << 13,              /* empty with buckets */
      7u | 3u << 26,              /* full with low bits */
      1u | 1u << 13 | 52u << 26,  /* 52 low bits */
      100u | 8000u << 13 | 1u << 26, /* more bits than 256 bytes */
  };
  int each = 1;
  for (int i = 0; i < 4; i++) {
    memset(d, 0, sizeof d);
    for (int k = 0; k < 4; k++) d[k] = (unsigned char)(bad[i] >> (8 * k));
    each &= quotient_block_check(d, 256, &s, why, sizeof why) == -1;
    each &= quotient_contains(d, 1, 256, h) == -1;
  }
  tap_ok(each, "damage: inconsistent header fields are refused");
  memset(d, 0, sizeof d);
  d[0] = 9; /* full: 9 entries, no bucket */
  tap_ok(quotient_contains(d, 1, 256, h) == 1 &&
         quotient_block_check(d, 256, &s, NULL, 0) == 0,
         "a full block answers maybe");
}

static unsigned char *build(uint64_t n, double p, uint64_t seed,
                            filter_hash *items, quotient_sizing *sz) {
  if (quotient_sizing_for(n, p, FILTER_MIN_FPR, UINT64_MAX, sz) !=
      QUOTIENT_SIZING_OK)
    exit(2);
  unsigned char *blob = malloc(sz->bytes);
  quotient_write_empty(blob, sz);
  uint64_t st = seed;
  for (uint64_t i = 0; i < n; i++) {
    items[i].h1 = splitmix64(&st);
    items[i].h2 = splitmix64(&st);
  }
  /* group by block with a counting pass */
  uint64_t *count = calloc(sz->blocks + 1, sizeof *count);
  for (uint64_t i = 0; i < n; i++)
    count[quotient_block_of(items[i], sz->blocks) + 1]++;
  for (uint64_t b = 0; b < sz->blocks; b++) count[b + 1] += count[b];
  uint64_t *h2s = malloc(n * sizeof *h2s), *at = malloc(sz->blocks * 8);
  memcpy(at, count, sz->blocks * 8);
  for (uint64_t i = 0; i < n; i++)
    h2s[at[quotient_block_of(items[i], sz->blocks)]++] = items[i].h2;
  for (uint64_t b = 0; b < sz->blocks; b++)
    quotient_encode_block(blob + 64 + b * sz->block_bytes, sz->block_bytes,
                          h2s + count[b], count[b + 1] - count[b]);
  filter_write_count(blob, n);
  free(count), free(h2s), free(at);
  return blob;
}

static void test_rates(void) {
  struct { uint64_t n; double p; } cases[] = {
      {2000, 0.01}, {200000, 0.01}, {200000, 0.001}, {50000, 0.0001},
      {30000, 1e-6}};
  for (int c = 0; c < 5; c++) {
    uint64_t n = cases[c].n;
    double p = cases[c].p;
    quotient_sizing sz;
    filter_hash *items = malloc(n * sizeof *items);
    uint64_t seed = seed_print(0x1000 + (uint64_t)c, "rate build");
    unsigned char *blob = build(n, p, seed, items, &sz);
    filter_view f;
    int parsed = filter_parse(blob, sz.bytes, FILTER_KIND_QUOTIENT, &f,
                              NULL, 0) == 0;
    uint64_t missed = 0, fp = 0, probes = (uint64_t)(200.0 / p);
    if (probes < 2000000) probes = 2000000;
    if (probes > 20000000) probes = 20000000;
    for (uint64_t i = 0; i < n && parsed; i++)
      if (filter_contains(&f, items[i]) != 1) missed++;
    uint64_t st = seed_print(0x2000 + (uint64_t)c, "rate probes");
    for (uint64_t i = 0; i < probes && parsed; i++) {
      filter_hash h = {splitmix64(&st), splitmix64(&st)};
      fp += (uint64_t)filter_contains(&f, h);
    }
    double rate = (double)fp / (double)probes;
    tap_ok(parsed && missed == 0, "n = %llu, p = %g: no false negative",
           (unsigned long long)n, p);
    tap_ok(rate <= p, "n = %llu, p = %g: measured rate %.6g <= p over %llu "
           "probes (%.3f bits per item, model %.6g)", (unsigned long long)n,
           p, rate, (unsigned long long)probes, 8.0 * (double)sz.bytes /
           (double)n, sz.expected_fpr);
    free(items), free(blob);
  }
}

static void test_sizing(void) {
  int ok = 1;
  double ps[] = {0.5, 0.01, 0.001, 1e-5, 1e-12};
  uint64_t ns[] = {1, 10, 1000, 123457, 100000000};
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 5; j++) {
      quotient_sizing s;
      if (quotient_sizing_for(ns[j], ps[i], FILTER_MIN_FPR, UINT64_MAX, &s) !=
          QUOTIENT_SIZING_OK) {
        ok = 0;
        continue;
      }
      double t = ps[i] * 0.97, dn = (double)ns[j];
      if (!(quotient_model_fpr(dn / (double)s.blocks, s.block_bytes) <= t))
        ok = 0;
      if (s.blocks > 1 &&
          quotient_model_fpr(dn / (double)(s.blocks - 1), s.block_bytes) <= t)
        ok = 0;
      if (s.bytes != 64 + s.blocks * s.block_bytes) ok = 0;
    }
  tap_ok(ok, "sizing: the fewest blocks whose model rate is within 0.97 p");
  quotient_sizing s;
  tap_ok(quotient_sizing_for(0, 0.01, FILTER_MIN_FPR, UINT64_MAX, &s) ==
                 QUOTIENT_SIZING_BAD_N &&
             quotient_sizing_for(10, 1.0, FILTER_MIN_FPR, UINT64_MAX, &s) ==
                 QUOTIENT_SIZING_BAD_P &&
             quotient_sizing_for(10, NAN, FILTER_MIN_FPR, UINT64_MAX, &s) ==
                 QUOTIENT_SIZING_BAD_P &&
             quotient_sizing_for(100000, 0.01, FILTER_MIN_FPR, 10000, &s) ==
                 QUOTIENT_SIZING_TOO_BIG,
         "sizing: bad n, bad p, too big");
  /* the rule a store relies on: half the universe is every key >> 1 */
  uint64_t st = seed_print(0x68616c66ULL, "halving");
  int halves = 1;
  for (int i = 0; i < 100000; i++) {
    uint64_t h2 = splitmix64(&st), m = 1 + splitmix64(&st) % 8191;
    unsigned l = 1 + (unsigned)(splitmix64(&st) % 51);
    uint64_t k = (uint64_t)(((unsigned __int128)h2 * (m << l)) >> 64);
    uint64_t k2 = (uint64_t)(((unsigned __int128)h2 * (m << (l - 1))) >> 64);
    if (k2 != k >> 1) halves = 0;
  }
  tap_ok(halves, "a key in V / 2 is the key in V shifted right by one");
}

static void test_header(void) {
  quotient_sizing sz;
  quotient_sizing_for(5000, 0.01, FILTER_MIN_FPR, UINT64_MAX, &sz);
  unsigned char *blob = malloc(sz.bytes);
  quotient_write_empty(blob, &sz);
  filter_view f;
  char why[160];
  tap_ok(filter_parse(blob, sz.bytes, FILTER_KIND_QUOTIENT, &f, why,
                      sizeof why) == 0 &&
             f.header.blocks == sz.blocks && f.header.block_bytes == 256,
         "header: an empty filter parses, %llu blocks of 256 bytes",
         (unsigned long long)sz.blocks);
  struct { int off; unsigned char val; size_t len_delta; } bad[] = {
      {12, 0x90, 0}, /* block size 144 + 256: not a multiple of 64 */
      {13, 0x08, 0}, /* 2048 + 0: too large */
      {12, 0x20, 0}, /* 32 bytes (with byte 13 cleared below) */
      {14, 1, 0}, {15, 1, 0}, {16, 0, 0}, /* blocks changed */
      {0, 'B', 1}, /* one byte short */
  };
  int all = 1;
  for (int i = 0; i < 7; i++) {
    unsigned char *d = malloc(sz.bytes);
    memcpy(d, blob, sz.bytes);
    if (i == 2) d[13] = 0;
    if (i == 5) d[16] = (unsigned char)(d[16] + 1);
    else d[bad[i].off] = bad[i].val;
    if (filter_parse(d, sz.bytes - bad[i].len_delta, 0, &f, why,
                     sizeof why) == 0) {
      tap_diag("case %d accepted", i);
      all = 0;
    }
    free(d);
  }
  tap_ok(all, "header: bad block sizes, bytes 14-15, block count, length "
         "are refused");
  {
    /* a size that is a multiple of 64 but not a power of two reads */
    quotient_sizing s3 = sz;
    s3.block_bytes = 384;
    s3.blocks = 3;
    s3.bytes = 64 + 3 * 384;
    unsigned char *d = malloc(s3.bytes);
    quotient_write_empty(d, &s3);
    tap_ok(filter_parse(d, s3.bytes, FILTER_KIND_QUOTIENT, &f, why,
                        sizeof why) == 0 && f.header.block_bytes == 384,
           "header: 384-byte blocks are valid");
    free(d);
  }
  tap_ok(filter_parse(blob, sz.bytes, FILTER_KIND_BLOOM, &f, why,
                      sizeof why) == -1 &&
             strstr(why, "quotient") != NULL,
         "header: a quotient filter is not a bloom filter (%s)", why);
  free(blob);
}

int main(void) {
  test_shapes();
  test_blocks();
  test_long_bucket();
  test_damage();
  test_sizing();
  test_header();
  test_rates();
  return tap_done();
}
