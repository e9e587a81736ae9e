/*
** Unit tests of the cuckoo filter core: slot packing, keys, sizing,
** insert/lookup/delete, load at first failure, the undo of a failed insert,
** the copies limit, the false-positive rate, and the kind-2 header checks.
** Every random stream has a fixed seed, printed as "# seed: ...".  Sizing
** is judged against FORMAT.md's rule, implemented here independently
** (tests/lib/cuckoo_spec.h), and header checks against tests/lib/bloom_spec.h.
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
#include <time.h>

#include "core/bloom.h"
#include "core/cuckoo.h"
#include "core/format.h"
#include "core/hash.h"
#include "lib/bloom_spec.h"
#include "lib/rng.h"
#include "lib/cuckoo_spec.h"
#include "lib/tap.h"

static filter_hash random_hash(uint64_t *state) {
  filter_hash h;
  h.h1 = splitmix64(state);
  h.h2 = splitmix64(state);
  return h;
}

static int rel_close(double a, double b, double tol) {
  if (a == b) return 1;
  double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
  return fabs(a - b) <= tol * m;
}

/* The sizing for n, p by FORMAT.md, or exit(2). */
static spec_cuckoo_sizing my_sizing(uint64_t n, double p) {
  spec_cuckoo_sizing sp;
  if (!spec_cuckoo_sizing_for(n, p, &sp)) {
    tap_diag("no width meets n = %llu, p = %g", (unsigned long long)n, p);
    exit(2);
  }
  return sp;
}

/* A new empty filter (header + body) sized for n, p. */
static unsigned char *new_filter(uint64_t n, double p, cuckoo_sizing *sizing) {
  if (cuckoo_sizing_for(n, p, FILTER_MIN_FPR, UINT64_MAX, sizing) !=
      CUCKOO_SIZING_OK) {
    tap_diag("cannot size n = %llu, p = %g", (unsigned long long)n, p);
    exit(2);
  }
  unsigned char *blob = malloc(sizing->bytes);
  if (blob == NULL) exit(2);
  cuckoo_write_empty(blob, sizing);
  return blob;
}

/* A new empty filter of a given shape (layout 0 included, which no sizing
** of this version gives), capacity n. */
static unsigned char *new_shaped(uint64_t buckets, unsigned f, unsigned layout,
                                 uint64_t n, cuckoo_sizing *sizing) {
  memset(sizing, 0, sizeof *sizing);
  sizing->capacity = n;
  sizing->target_fpr = 0.01;
  sizing->buckets = buckets;
  sizing->fingerprint_bits = f;
  sizing->layout = layout;
  sizing->bytes = FILTER_HEADER_BYTES + cuckoo_body_bytes(buckets, f);
  unsigned char *blob = malloc(sizing->bytes);
  if (blob == NULL) exit(2);
  cuckoo_write_empty(blob, sizing);
  return blob;
}

static void test_packing(void) {
  uint64_t rng = seed_print(0x5EED0001, "packing");
  int ok = 1;
  for (unsigned f = CUCKOO_MIN_FINGERPRINT_BITS;
       f <= CUCKOO_MAX_FINGERPRINT_BITS; f++) {
    enum { SLOTS = 64 }; /* 16 buckets */
    uint64_t want[SLOTS];
    uint64_t mask = f == 64 ? UINT64_MAX : ((uint64_t)1 << f) - 1;
    size_t bytes = (size_t)cuckoo_body_bytes(SLOTS / 4, f);
    unsigned char *body = calloc(1, bytes);
    for (int s = 0; s < SLOTS; s++) {
      want[s] = splitmix64(&rng) & mask;
      cuckoo_slot_set(body, (uint64_t)s, f, want[s]);
    }
    /* Rewrite every other slot: its neighbours must not change. */
    for (int s = 0; s < SLOTS; s += 2) {
      want[s] = ~want[s] & mask;
      cuckoo_slot_set(body, (uint64_t)s, f, want[s]);
    }
    for (int s = 0; s < SLOTS; s++)
      if (cuckoo_slot_get(body, (uint64_t)s, f) != want[s]) ok = 0;
    /* Bit j*f + i of the body is bit i of slot j, least significant first. */
    for (int s = 0; s < SLOTS && ok; s++)
      for (unsigned i = 0; i < f; i++) {
        uint64_t bit = (uint64_t)s * f + i;
        unsigned got = (unsigned)(body[bit / 8] >> (bit % 8)) & 1u;
        if (got != ((want[s] >> i) & 1u)) ok = 0;
      }
    free(body);
  }
  tap_ok(ok, "slots of 4..64 bits pack LSB-first and leave neighbours alone");

  unsigned char body[5] = {0};
  cuckoo_slot_set(body, 1, 10, 0x3FF);
  tap_ok(body[0] == 0 && body[1] == 0xFC && body[2] == 0x0F && body[3] == 0,
         "10-bit slot 1 is body bits 10..19 (bytes 01 FC 0F as documented)");
}

/* FORMAT.md's placement, written from the document alone: layout 0
** (XOR), layout 1 (subtraction), with 128-bit products. */
static uint64_t my_high(uint64_t a, uint64_t b) {
  __extension__ typedef unsigned __int128 u128;
  return (uint64_t)(((u128)a * b) >> 64);
}

static void my_place(filter_hash h, uint64_t buckets, unsigned f,
                     unsigned layout, uint64_t *fp, uint64_t *i1,
                     uint64_t *i2) {
  *fp = 1 + my_high(h.h2, f == 64 ? UINT64_MAX : ((uint64_t)1 << f) - 1);
  if (layout == 1) {
    *i1 = my_high(h.h1, buckets);
    uint64_t c = 1 + 2 * my_high(spec_fmix64(*fp), buckets / 2);
    *i2 = (uint64_t)(((__int128)c - (__int128)*i1 + (__int128)buckets) %
                     (__int128)buckets);
  } else {
    *i1 = h.h1 % buckets;
    uint64_t d = buckets == 1 ? 0 : 1 + my_high(spec_fmix64(*fp), buckets - 1);
    *i2 = *i1 ^ d;
  }
}

static void test_keys(void) {
  uint64_t rng = seed_print(0x5EED0002, "keys");
  int fp_ok = 1, alt_ok = 1, spec_ok = 1;
  const uint64_t sizes[2][6] = {
      {1, 2, 4, 1024, (uint64_t)1 << 40, (uint64_t)1 << 61},
      {2, 4, 6, 1000, ((uint64_t)1 << 40) + 2, ((uint64_t)1 << 62) - 2}};
  for (int i = 0; i < 40000; i++) {
    filter_hash h = random_hash(&rng);
    unsigned f = 4 + (unsigned)(splitmix64(&rng) % 61);
    unsigned layout = (unsigned)(i & 1);
    uint64_t buckets = sizes[layout][(i / 2) % 6];
    cuckoo_shape s = {buckets, f, layout};
    cuckoo_key k = cuckoo_key_of(h, s);
    uint64_t max = f == 64 ? UINT64_MAX : ((uint64_t)1 << f) - 1;
    if (k.fingerprint == 0 || k.fingerprint > max || k.bucket >= buckets)
      fp_ok = 0;
    uint64_t other = cuckoo_alt_bucket(k.bucket, k.fingerprint, s);
    if (other >= buckets ||
        cuckoo_alt_bucket(other, k.fingerprint, s) != k.bucket ||
        (buckets > 1 && other == k.bucket))
      alt_ok = 0;
    uint64_t fp, i1, i2;
    my_place(h, buckets, f, layout, &fp, &i1, &i2);
    if (fp != k.fingerprint || i1 != k.bucket || i2 != other) {
      if (spec_ok) tap_diag("  layout %u, %llu buckets, f %u: fp %llu i1 %llu "
                            "i2 %llu; FORMAT.md %llu %llu %llu", layout,
                            (unsigned long long)buckets, f,
                            (unsigned long long)k.fingerprint,
                            (unsigned long long)k.bucket,
                            (unsigned long long)other, (unsigned long long)fp,
                            (unsigned long long)i1, (unsigned long long)i2);
      spec_ok = 0;
    }
  }
  filter_hash lo = {0, 0}, hi = {UINT64_MAX, UINT64_MAX};
  cuckoo_shape s8 = {8, 4, 0}, s8w = {8, 64, 0}, s6 = {6, 4, 1};
  fp_ok = fp_ok && cuckoo_key_of(lo, s8).fingerprint == 1 &&
          cuckoo_key_of(hi, s8).fingerprint == 15 &&
          cuckoo_key_of(hi, s8w).fingerprint == UINT64_MAX &&
          cuckoo_key_of(lo, s6).bucket == 0 &&
          cuckoo_key_of(hi, s6).bucket == 5;
  tap_ok(fp_ok, "fingerprints are in 1..2^f-1 (never 0), buckets in range "
         "(both layouts)");
  tap_ok(alt_ok, "the other bucket differs (buckets > 1) and maps back "
         "(both layouts, up to 2^62 buckets)");
  tap_ok(spec_ok, "40,000 placements are FORMAT.md's: i1, i2 and fp by "
         "layout 0's XOR and layout 1's subtraction");
}

static void test_sizing(void) {
  /* The independent rule reproduces FORMAT.md's worked example: 4 buckets
  ** hold at most 5 items, 6 buckets 11; cuckoo_build(v, 10, 0.01) is 6
  ** buckets of 9-bit fingerprints, 91 bytes (8 bits give 0.013). */
  spec_cuckoo_sizing ex = my_sizing(10, 0.01);
  tap_ok(spec_cuckoo_items(2) == 7 && spec_cuckoo_items(4) == 5 &&
             spec_cuckoo_items(6) == 11 && ex.buckets == 6 && ex.f == 9 &&
             ex.bytes == 91 && spec_cuckoo_fpr(10.0 / 24.0, 8, 6) > 0.0097,
         "the test's FORMAT.md sizing rule gives the document's worked "
         "example (n = 10, p = 0.01: 6 buckets, f = 9, 91 bytes)");

  int items_bad = 0;
  uint64_t brng = 0x5EED0B;
  for (uint64_t i = 0; i < 6000; i++) {
    /* powers of two up to 2^40, every even count to 4096, random evens */
    uint64_t b = i < 41     ? (uint64_t)1 << i
                 : i < 2089 ? 2 * (i - 40)
                            : 2 + 2 * (splitmix64(&brng) % ((uint64_t)1 << 40));
    if (cuckoo_sized_items(b, CUCKOO_LAYOUT_SUB) != spec_cuckoo_items(b)) {
      if (items_bad++ < 5)
        tap_diag("  %llu buckets: cuckoo_sized_items %llu, FORMAT.md %llu",
                 (unsigned long long)b,
                 (unsigned long long)cuckoo_sized_items(b, CUCKOO_LAYOUT_SUB),
                 (unsigned long long)spec_cuckoo_items(b));
    }
  }
  TAP_EQ_U64(items_bad, 0,
             "cuckoo_sized_items(B) = floor(4B * L) for 6,000 B up to 2^41");

  int model_bad = 0;
  const double loads[] = {0, 0.01, 0.25, 0.5, 0.9, 0.95, 1.0};
  for (unsigned f = 4; f <= 64; f++)
    for (int i = 0; i < 7; i++)
      for (uint64_t b = 1; b <= 4; b *= 2) {
        double got = cuckoo_model_fpr(loads[i], f, b);
        double want = spec_cuckoo_fpr(loads[i], f, b);
        if (!rel_close(got, want, 1e-9) && model_bad++ < 5)
          tap_diag("  load %g f %u B %llu: cuckoo_model_fpr %.17g, FORMAT.md "
                   "%.17g", loads[i], f, (unsigned long long)b, got, want);
      }
  TAP_EQ_U64(model_bad, 0,
             "cuckoo_model_fpr = 1 - (1 - 1/(2^f - 1))^(8 load) (4 load with "
             "one bucket) within 1e-9 relative");

  const double ps[] = {0.5, 0.1, 0.01, 0.001, 1e-6, 1e-12};
  /* n = 1, 4, 13, ... and both sides of bucket boundaries up to 3 * 2^20
  ** buckets (the most B holds, and one more), B = 2^e and 3 * 2^e + 2. */
  enum { GEOMETRIC = 14, EDGES = 21 };
  uint64_t ns[GEOMETRIC + 4 * EDGES];
  int nn = 0;
  for (uint64_t n = 1; nn < GEOMETRIC; n = n * 3 + 1) ns[nn++] = n;
  for (int e = 1; e <= EDGES; e++) {
    uint64_t bs[2] = {(uint64_t)1 << e, 3 * ((uint64_t)1 << e) + 2};
    for (int j = 0; j < 2; j++) {
      ns[nn++] = spec_cuckoo_items(bs[j]);
      ns[nn++] = spec_cuckoo_items(bs[j]) + 1;
    }
  }
  int bad = 0, cases = 0;
  for (int j = 0; j < nn; j++) {
    uint64_t n = ns[j];
    for (int i = 0; i < 6; i++) {
      cuckoo_sizing pl;
      spec_cuckoo_sizing sp = my_sizing(n, ps[i]);
      cases++;
      int rc = (int)cuckoo_sizing_for(n, ps[i], FILTER_MIN_FPR, UINT64_MAX, &pl);
      if (rc != CUCKOO_SIZING_OK || pl.buckets != sp.buckets ||
          pl.fingerprint_bits != sp.f || pl.bytes != sp.bytes ||
          !rel_close(pl.expected_fpr, sp.fpr, 1e-9) ||
          (double)n / (4.0 * (double)pl.buckets) > 0.95) {
        if (bad++ < 5)
          tap_diag("  n %llu p %g: rc %d, buckets %llu f %u bytes %llu fpr "
                   "%.6g; FORMAT.md: %llu, %u, %llu, %.6g",
                   (unsigned long long)n, ps[i], rc,
                   (unsigned long long)pl.buckets, pl.fingerprint_bits,
                   (unsigned long long)pl.bytes, pl.expected_fpr,
                   (unsigned long long)sp.buckets, sp.f,
                   (unsigned long long)sp.bytes, sp.fpr);
      }
    }
  }
  tap_ok(bad == 0 && cases > 0,
         "%d sizings (n = 1..12M and at bucket boundaries, p = "
         "0.5..1e-12) are FORMAT.md's: fewest "
         "buckets at load <= L, narrowest fingerprint meeting 0.97 p, "
         "ceil(4Bf/8) body bytes, the model rate (%d differ)", cases, bad);
  cuckoo_sizing pl;
  tap_ok(cuckoo_sizing_for(1000, 0.01, FILTER_MIN_FPR, 100, &pl) ==
                 CUCKOO_SIZING_TOO_BIG &&
             cuckoo_sizing_for(0, 0.01, FILTER_MIN_FPR, UINT64_MAX, &pl) ==
                 CUCKOO_SIZING_BAD_N &&
             cuckoo_sizing_for(10, 1.0, FILTER_MIN_FPR, UINT64_MAX, &pl) ==
                 CUCKOO_SIZING_BAD_P &&
             cuckoo_sizing_for(10, NAN, FILTER_MIN_FPR, UINT64_MAX, &pl) ==
                 CUCKOO_SIZING_BAD_P &&
             cuckoo_sizing_for((uint64_t)INT64_MAX, 1e-12, FILTER_MIN_FPR,
                             UINT64_MAX, &pl) == CUCKOO_SIZING_TOO_BIG,
         "sizings refuse n = 0, p = 1, NaN, and what exceeds the byte limit");
  cuckoo_sizing_for(10, 0.01, FILTER_MIN_FPR, UINT64_MAX, &pl);
  unsigned char *blob = malloc(pl.bytes);
  cuckoo_write_empty(blob, &pl);
  tap_ok(pl.bytes == ex.bytes && blob[5] == 2 && blob[12] == ex.f &&
             blob[13] == 4 && blob[14] == 1 && blob[15] == 0 &&
             load_le64(blob + 16) == ex.buckets &&
             load_le64(blob + 24) == 10 && load_le64(blob + 40) == 0 &&
             spec_cuckoo_valid(blob, (size_t)pl.bytes),
         "an empty filter's header: kind 2, f at 12, 4 at 13, layout 1 at "
         "14, buckets at 16");
  free(blob);
}

static void test_basic(unsigned layout) {
  cuckoo_sizing pl;
  /* layout 1 as sized for n = 100; layout 0 as version 1.1.0 sized it */
  unsigned char *blob = layout ? new_filter(100, 0.01, &pl)
                               : new_shaped(32, 10, 0, 100, &pl);
  unsigned char *body = blob + FILTER_HEADER_BYTES;
  tap_diag("layout %u", layout);
  uint64_t rng = seed_print(0x5EED0003, "basic");
  filter_hash h[50];
  int ok = 1;
  for (int i = 0; i < 50; i++) {
    h[i] = random_hash(&rng);
    if (cuckoo_insert(body, cuckoo_shape_of_sizing(&pl), h[i]) !=
        CUCKOO_OK)
      ok = 0;
  }
  for (int i = 0; i < 50; i++)
    if (!cuckoo_contains(body, cuckoo_shape_of_sizing(&pl), h[i])) ok = 0;
  tap_ok(ok, "50 inserted items all test 1");
  /* Multiset: twice in, once out, still in; out again, gone. */
  cuckoo_insert(body, cuckoo_shape_of_sizing(&pl), h[0]);
  int r1 = cuckoo_remove(body, cuckoo_shape_of_sizing(&pl), h[0]);
  int still = cuckoo_contains(body, cuckoo_shape_of_sizing(&pl), h[0]);
  int r2 = cuckoo_remove(body, cuckoo_shape_of_sizing(&pl), h[0]);
  int gone = !cuckoo_contains(body, cuckoo_shape_of_sizing(&pl), h[0]);
  tap_ok(r1 && still && r2 && gone,
         "added twice, removed once: in; removed again: out");
  ok = 1;
  for (int i = 1; i < 50; i++) {
    if (!cuckoo_remove(body, cuckoo_shape_of_sizing(&pl), h[i])) ok = 0;
    for (int j = i + 1; j < 50; j++)
      if (!cuckoo_contains(body, cuckoo_shape_of_sizing(&pl), h[j]))
        ok = 0;
  }
  int empty = 1;
  for (uint64_t s = 0; s < pl.buckets * 4; s++)
    if (cuckoo_slot_get(body, s, pl.fingerprint_bits) != 0) empty = 0;
  tap_ok(ok && empty,
         "removing items one by one never loses another; all gone at the end");
  free(blob);
}

/* Inserts random items from `seed` into a filter sized for n, at most
** `limit` of them, stopping at the first failure; returns how many went in.
** The same seed and limit give the same bytes. */
static uint64_t fill(unsigned char *body, const cuckoo_sizing *pl,
                     uint64_t seed, uint64_t limit) {
  uint64_t rng = seed, items = 0;
  while (items < limit &&
         cuckoo_insert(body, cuckoo_shape_of_sizing(pl),
                       random_hash(&rng)) == CUCKOO_OK)
    items++;
  return items;
}

/* Fills a filter sized for n until the first insert fails; returns the
** occupancy then.  *undone (when asked): the failed insert, replayed on a
** copy of the filter just before it, leaves the body byte for byte as it
** was, and every item added before still tests 1. */
static double fill_until_failure(uint64_t n, uint64_t seed, int *undone) {
  cuckoo_sizing pl;
  unsigned char *blob = new_filter(n, 0.01, &pl);
  unsigned char *body = blob + FILTER_HEADER_BYTES;
  size_t body_bytes = (size_t)(pl.bytes - FILTER_HEADER_BYTES);
  uint64_t items = fill(body, &pl, seed, UINT64_MAX);
  if (undone) {
    unsigned char *before = malloc(body_bytes);
    memset(body, 0, body_bytes);
    fill(body, &pl, seed, items);
    memcpy(before, body, body_bytes);
    uint64_t rng = seed;
    for (uint64_t i = 0; i < items; i++) random_hash(&rng);
    cuckoo_status st = cuckoo_insert(body, cuckoo_shape_of_sizing(&pl),
                                     random_hash(&rng));
    *undone = st == CUCKOO_FULL && memcmp(before, body, body_bytes) == 0;
    rng = seed;
    for (uint64_t i = 0; i < items && *undone; i++)
      if (!cuckoo_contains(body, cuckoo_shape_of_sizing(&pl),
                           random_hash(&rng)))
        *undone = 0;
    free(before);
  }
  free(blob);
  return (double)items / (4.0 * (double)pl.buckets);
}

static void test_load(void) {
  const uint64_t ns[] = {1000, 10000, 100000, 1000000};
  for (int i = 0; i < 4; i++) {
    uint64_t seed = seed_print(0x10AD0000 + (uint64_t)i, "load");
    int undone = 1;
    /* The replay doubles the cost: skip it for the largest filter. */
    double load = fill_until_failure(ns[i], seed, i < 3 ? &undone : NULL);
    tap_ok(load >= 0.95,
           "a filter built for n = %llu is %.2f%% full at the first failure",
           (unsigned long long)ns[i], 100.0 * load);
    if (i < 3)
      tap_ok(undone,
             "the failed insert (n = %llu) left the body byte for byte as it "
             "was, and every item added before tests 1",
             (unsigned long long)ns[i]);
  }
}

static void test_copies(void) {
  cuckoo_sizing pl;
  unsigned char *blob = new_filter(1000, 0.01, &pl);
  unsigned char *body = blob + FILTER_HEADER_BYTES;
  size_t body_bytes = (size_t)(pl.bytes - FILTER_HEADER_BYTES);
  filter_hash h = filter_hash_integer(7, 0);
  int ok = 1;
  for (int i = 0; i < 8; i++)
    if (cuckoo_insert(body, cuckoo_shape_of_sizing(&pl), h) != CUCKOO_OK)
      ok = 0;
  unsigned char *before = malloc(body_bytes);
  memcpy(before, body, body_bytes);
  /* Refused before any relocation: a walk that failed would say
  ** CUCKOO_FULL, not CUCKOO_TOO_MANY_COPIES. */
  cuckoo_status st = cuckoo_insert(body, cuckoo_shape_of_sizing(&pl), h);
  tap_ok(ok && st == CUCKOO_TOO_MANY_COPIES &&
             memcmp(before, body, body_bytes) == 0,
         "8 copies fit, the 9th is refused at once (too many copies, not a "
         "failed walk), body unchanged");
  /* Absent value: nothing removed, nothing changed. */
  filter_hash absent = filter_hash_integer(8, 0);
  tap_ok(cuckoo_remove(body, cuckoo_shape_of_sizing(&pl), absent) == 0 &&
             memcmp(before, body, body_bytes) == 0,
         "removing an absent value removes nothing");
  int out = 1;
  for (int i = 0; i < 8; i++)
    out &= cuckoo_remove(body, cuckoo_shape_of_sizing(&pl), h);
  tap_ok(out && !cuckoo_contains(body, cuckoo_shape_of_sizing(&pl), h),
         "8 removes take the 8 copies out");
  free(before);
  free(blob);

  blob = new_shaped(1, 7, 0, 1, &pl); /* one bucket: layout 0 only */
  body = blob + FILTER_HEADER_BYTES;
  ok = pl.buckets == 1;
  for (int i = 0; i < 4; i++)
    ok &= cuckoo_insert(body, cuckoo_shape_of_sizing(&pl), h) == CUCKOO_OK;
  ok &= cuckoo_insert(body, cuckoo_shape_of_sizing(&pl), h) ==
        CUCKOO_TOO_MANY_COPIES;
  ok &= cuckoo_insert(body, cuckoo_shape_of_sizing(&pl), absent) ==
        CUCKOO_FULL;
  tap_ok(ok, "one bucket (layout 0): 4 copies, then too many copies; "
         "another item: full");
  free(blob);

  blob = new_filter(1, 0.01, &pl); /* layout 1's least: 2 buckets */
  body = blob + FILTER_HEADER_BYTES;
  ok = pl.buckets == 2 && pl.layout == CUCKOO_LAYOUT_SUB;
  for (int i = 0; i < 8; i++)
    ok &= cuckoo_insert(body, cuckoo_shape_of_sizing(&pl), h) == CUCKOO_OK;
  ok &= cuckoo_insert(body, cuckoo_shape_of_sizing(&pl), h) ==
        CUCKOO_TOO_MANY_COPIES;
  ok &= cuckoo_insert(body, cuckoo_shape_of_sizing(&pl), absent) ==
        CUCKOO_FULL;
  tap_ok(ok, "n = 1 (layout 1): 2 buckets, 8 copies, then too many copies; "
         "another item: full");
  free(blob);
}

/* Measured rate at capacity on 1,000,000 absent probes.  The model is an
** upper bound on the mean rate and is <= 0.97 p by construction; with 10^6
** probes at a rate near p, one standard deviation is sqrt(p/10^6) =
** 1% of p at p = 0.01 (3% at 0.001), so p sits 3 (1) sigma above the worst
** possible mean: a fixed seed keeps the answer stable, a bug (e.g. a lost
** fingerprint bit) moves it by far more. */
static void test_fpr(void) {
  const double ps[] = {0.01, 0.001};
  /* 95% load (the most 4096 buckets hold); 76% load */
  const uint64_t ns[] = {spec_cuckoo_items(4096), 100000};
  for (int i = 0; i < 2; i++) {
    cuckoo_sizing pl;
    unsigned char *blob = new_filter(ns[i], ps[i], &pl);
    unsigned char *body = blob + FILTER_HEADER_BYTES;
    uint64_t rng = seed_print(0xF0F0 + (uint64_t)i, "fpr");
    uint64_t failed = 0;
    for (uint64_t k = 0; k < ns[i]; k++)
      if (cuckoo_insert(body, cuckoo_shape_of_sizing(&pl),
                        random_hash(&rng)) != CUCKOO_OK) {
        if (failed++ < 3) tap_diag("insert %llu failed", (unsigned long long)k);
      }
    TAP_EQ_U64(failed, 0, "n = %llu, p = %g: every one of the n inserts worked",
               (unsigned long long)ns[i], ps[i]);
    uint64_t hits = 0, probes = 1000000;
    for (uint64_t k = 0; k < probes; k++)
      hits += (uint64_t)cuckoo_contains(body, cuckoo_shape_of_sizing(&pl),
                                        random_hash(&rng));
    double rate = (double)hits / (double)probes;
    tap_ok(rate <= ps[i],
           "n = %llu, p = %g (f = %u, load %.3f): measured %.5f, model %.5f",
           (unsigned long long)ns[i], ps[i], pl.fingerprint_bits,
           (double)ns[i] / (4.0 * (double)pl.buckets), rate, pl.expected_fpr);
    free(blob);
  }
}

/* Answers depend only on the multiset stored: two insertion orders give
** the same answer for every probe; one order twice gives the same bytes. */
static void test_order(void) {
  cuckoo_sizing pl;
  unsigned char *a = new_filter(3000, 0.05, &pl);
  unsigned char *b = new_filter(3000, 0.05, &pl);
  unsigned char *c = new_filter(3000, 0.05, &pl);
  uint64_t seed = seed_print(0x0DE7, "order"), rng = seed;
  enum { N = 2900 };
  filter_hash *h = malloc(N * sizeof *h);
  for (int i = 0; i < N; i++) h[i] = random_hash(&rng);
  for (int i = 0; i < N; i++) {
    cuckoo_insert(a + 64, cuckoo_shape_of_sizing(&pl), h[i]);
    cuckoo_insert(b + 64, cuckoo_shape_of_sizing(&pl), h[N - 1 - i]);
    cuckoo_insert(c + 64, cuckoo_shape_of_sizing(&pl), h[i]);
  }
  int same = 1;
  uint64_t positives = 0;
  for (int k = 0; k < 200000; k++) {
    filter_hash p = random_hash(&rng);
    int x = cuckoo_contains(a + 64, cuckoo_shape_of_sizing(&pl), p);
    positives += (uint64_t)x;
    if (x != cuckoo_contains(b + 64, cuckoo_shape_of_sizing(&pl), p))
      same = 0;
  }
  tap_ok(same && positives > 0 && memcmp(a, b, pl.bytes) != 0,
         "orders that place items differently answer alike on 200,000 probes "
         "(%llu false positives each)", (unsigned long long)positives);
  tap_ok(memcmp(a, c, pl.bytes) == 0, "the same order gives the same bytes");
  free(h);
  free(a);
  free(b);
  free(c);
}

static void test_unique(void) {
  filter_hash h[6] = {{3, 1}, {1, 2}, {3, 1}, {1, 1}, {1, 2}, {3, 1}};
  size_t n = filter_hash_unique(h, 6);
  tap_ok(n == 3 && h[0].h1 == 1 && h[0].h2 == 1 && h[1].h1 == 1 &&
             h[1].h2 == 2 && h[2].h1 == 3 && filter_hash_unique(h, 0) == 0,
         "unique hashes: sorted, repeats dropped");
}

/* Parses a copy in a buffer of exactly len bytes (so ASan sees any
** over-read); if accepted, runs every operation on it. */
static int parse_exact(const unsigned char *src, size_t len, unsigned want,
                       char *err, size_t err_size) {
  unsigned char *copy = malloc(len ? len : 1);
  memcpy(copy, src, len);
  filter_view v;
  int rc = filter_parse(copy, len, want, &v, err, err_size);
  if (rc == 0 && v.header.kind == FILTER_KIND_CUCKOO) {
    unsigned char *body = copy + FILTER_HEADER_BYTES;
    uint64_t rng = 99;
    for (int i = 0; i < 64; i++) {
      filter_hash h = random_hash(&rng);
      cuckoo_insert(body, cuckoo_shape_of(&v.header), h);
      cuckoo_contains(body, cuckoo_shape_of(&v.header), h);
      cuckoo_remove(body, cuckoo_shape_of(&v.header), h);
    }
  }
  free(copy);
  return rc;
}

static int rejects(const unsigned char *blob, size_t len, const char *want) {
  char err[200] = "";
  int rc = parse_exact(blob, len, 0, err, sizeof err);
  if (rc == 0 || strstr(err, want) == NULL) {
    tap_diag("  parse rc %d, message \"%s\", expected \"%s\"", rc, err, want);
    return 0;
  }
  return 1;
}

static void test_parse(void) {
  cuckoo_sizing pl;
  unsigned char *good = new_filter(100, 0.01, &pl);
  size_t len = (size_t)pl.bytes;
  /* The shape FORMAT.md sizes for n = 100, p = 0.01 (32 buckets, f = 10). */
  const spec_cuckoo_sizing sp = my_sizing(100, 0.01);
  const unsigned long long nb = sp.buckets, slots = 4 * nb;
  tap_ok(len == sp.bytes && load_le64(good + 16) == nb && good[12] == sp.f,
         "cuckoo_build's shape for n = 100, p = 0.01: %llu buckets, f = %u, "
         "%zu bytes (FORMAT.md: %llu, %u, %llu)",
         (unsigned long long)load_le64(good + 16), good[12], len, nb, sp.f,
         (unsigned long long)sp.bytes);
  char msg[200], want[200];
  unsigned char *b = malloc(len + 64);
  char err[200];
  tap_ok(parse_exact(good, len, FILTER_KIND_CUCKOO, err, sizeof err) == 0,
         "a fresh cuckoo filter parses");

  int ok = 1;
  for (size_t cut = 0; cut < len; cut++)
    if (parse_exact(good, cut, 0, err, sizeof err) == 0) ok = 0;
  memcpy(b, good, len);
  b[len] = 0;
  ok &= rejects(b, len + 1, "blob holds");
  tap_ok(ok, "every truncation, and one trailing byte, is refused");

#define MUTATE(stmt, name, what)                \
  do {                                          \
    memcpy(b, good, len);                       \
    stmt;                                       \
    tap_ok(rejects(b, len, what), "%s", name);  \
  } while (0)
  snprintf(msg, sizeof msg, "bucket count %llu: odd (layout 1)", nb + 1);
  MUTATE(store_le64(b + 16, nb + 1), msg, "not a positive even number");
  MUTATE(store_le64(b + 16, 0), "bucket count 0",
         "not a positive even number");
  snprintf(msg, sizeof msg, "layout 0 with %llu buckets: not a power of two",
           nb + 2);
  MUTATE((b[14] = 0, store_le64(b + 16, nb + 2)), msg, "not a power of two");
  MUTATE((b[14] = 0, store_le64(b + 16, 0)), "layout 0, bucket count 0",
         "not a power of two");
  snprintf(msg, sizeof msg, "bucket count %llu with the body of %llu", 2 * nb,
           nb);
  MUTATE(store_le64(b + 16, 2 * nb), msg, "blob holds");
  MUTATE(store_le64(b + 16, (uint64_t)1 << 63),
         "bucket count 2^63 (buckets * f wraps) is refused", "blob holds");
  MUTATE(b[12] = 3, "fingerprint width 3", "fingerprint width 3 out of range");
  MUTATE(b[12] = 65, "fingerprint width 65",
         "fingerprint width 65 out of range");
  snprintf(msg, sizeof msg, "fingerprint width %u with the body of %u",
           sp.f + 1, sp.f);
  MUTATE(b[12] = (unsigned char)(sp.f + 1), msg, "blob holds");
  MUTATE(b[13] = 8, "8 slots per bucket", "slots per bucket is 8");
  MUTATE(b[14] = 2, "layout 2", "cuckoo layout 2 unknown");
  MUTATE(b[14] = 255, "layout 255", "cuckoo layout 255 unknown");
  MUTATE(b[15] = 1, "byte 15 not zero", "header byte 15 is not 0");
  snprintf(msg, sizeof msg, "item count %llu > %llu slots", slots + 1, slots);
  snprintf(want, sizeof want, "item count %llu exceeds", slots + 1);
  MUTATE(store_le64(b + 40, slots + 1), msg, want);
  MUTATE(store_le64(b + 40, UINT64_MAX), "item count 2^64-1",
         "exceeds the slot count");
  MUTATE(b[5] = 5, "kind 5", "unknown filter kind 5");
  MUTATE(b[5] = 3, "kind 3 (layered) where a plain filter is asked for",
         "a layered filter is not accepted");
  MUTATE(store_le64(b + 24, 0), "capacity 0", "capacity 0");
  MUTATE(b[50] = 1, "a reserved byte", "reserved header byte 50");
#undef MUTATE
  memcpy(b, good, len);
  store_le64(b + 40, slots);
  tap_ok(parse_exact(b, len, 0, err, sizeof err) == 0,
         "item count = slot count (%llu) is accepted", slots);

  err[0] = 0;
  filter_view v;
  tap_ok(filter_parse(good, len, FILTER_KIND_BLOOM, &v, err, sizeof err) != 0 &&
             strcmp(err, "got a cuckoo filter, expected a bloom filter") == 0,
         "asked for a bloom filter: \"%s\"", err);
  bloom_sizing bp;
  bloom_sizing_for(10, 0.01, UINT64_MAX, &bp);
  unsigned char *bloom = malloc(bp.bytes);
  bloom_write_empty(bloom, &bp);
  err[0] = 0;
  tap_ok(filter_parse(bloom, bp.bytes, FILTER_KIND_CUCKOO, &v, err,
                      sizeof err) != 0 &&
             strcmp(err, "got a bloom filter, expected a cuckoo filter") == 0,
         "asked for a cuckoo filter: \"%s\"", err);
  tap_ok(strcmp(filter_kind_name(FILTER_KIND_CUCKOO), "cuckoo") == 0,
         "kind 2 is named cuckoo");
  free(bloom);

  /* Random header damage: whatever parses must be safe to use (ASan). */
  uint64_t rng = seed_print(0xF022, "parse fuzz");
  int accepted = 0, disagree = 0;
  for (int i = 0; i < 20000; i++) {
    memcpy(b, good, len);
    int flips = 1 + (int)(splitmix64(&rng) % 3);
    for (int k = 0; k < flips; k++) {
      uint64_t r = splitmix64(&rng);
      size_t at = (size_t)(r % 48);
      b[at] = (unsigned char)(r >> 8);
    }
    size_t l = len - (size_t)(splitmix64(&rng) % 2) * (size_t)(splitmix64(&rng) % 40);
    int parsed = parse_exact(b, l, 0, err, sizeof err) == 0;
    /* FORMAT.md's verdict (a flipped kind byte may make it a Bloom
    ** filter, which filter_parse with no kind asked for also accepts). */
    int valid = spec_cuckoo_valid(b, l) || spec_bloom_valid(b, l);
    accepted += parsed;
    if (parsed != valid && disagree++ < 3)
      tap_diag("  damaged header %d (%zu bytes): parse %s, FORMAT.md %s (%s)",
               i, l, parsed ? "accepts" : "refuses",
               valid ? "accepts" : "refuses", parsed ? "" : err);
  }
  tap_ok(disagree == 0,
         "20,000 damaged headers: parse accepts exactly those FORMAT.md "
         "accepts (%d, used without fault), %d disagree", accepted, disagree);
  free(b);
  free(good);
}

/* ---- the cuckoo_buckets versions over a chunked locator --------------------------
** The buckets cut into separate buffers of CHUNK_BUCKETS buckets each (an
** even number that is not a power of two, so chunk edges fall at no bucket
** boundary the algorithm could favour), as a store keeps them. */
#define CHUNK_BUCKETS 6

typedef struct chunked {
  unsigned char **chunks;
  size_t count, bytes; /* chunks, bytes of each (the last may use fewer) */
  unsigned char *written; /* per chunk: located with for_write */
  long calls, fail_at;    /* locate calls so far; fail at that call (0: never) */
  unsigned char *seen;    /* per bucket: located during this operation */
} chunked;

static unsigned char *locate_chunked(void *ctx, uint64_t bucket, int for_write,
                                     uint64_t *first) {
  chunked *c = ctx;
  /* The failure comes at the first call from the Nth on that asks for a
  ** bucket not yet located in this operation (the accessor's contract: one
  ** located once is reached again, as a store's cache ensures). */
  if (++c->calls >= c->fail_at && c->fail_at > 0 && !c->seen[bucket]) {
    c->fail_at = -1;
    return NULL;
  }
  c->seen[bucket] = 1;
  uint64_t id = bucket / CHUNK_BUCKETS;
  if (for_write) c->written[id] = 1;
  *first = (bucket % CHUNK_BUCKETS) * 4;
  return c->chunks[id];
}

static chunked chunked_new(uint64_t buckets, unsigned f) {
  chunked c;
  memset(&c, 0, sizeof c);
  c.count = (size_t)((buckets + CHUNK_BUCKETS - 1) / CHUNK_BUCKETS);
  c.bytes = CHUNK_BUCKETS / 2 * f;
  c.chunks = malloc(c.count * sizeof *c.chunks);
  c.written = calloc(c.count, 1);
  c.seen = calloc(buckets, 1);
  for (size_t i = 0; i < c.count; i++) c.chunks[i] = calloc(c.bytes, 1);
  return c;
}

static void chunked_free(chunked *c) {
  for (size_t i = 0; i < c->count; i++) free(c->chunks[i]);
  free(c->chunks);
  free(c->written);
  free(c->seen);
}

/* The chunks laid end to end, body_bytes of them. */
static void chunked_join(const chunked *c, unsigned char *out,
                         size_t body_bytes) {
  for (size_t i = 0; i < c->count; i++) {
    size_t at = i * c->bytes;
    size_t n = body_bytes - at < c->bytes ? body_bytes - at : c->bytes;
    memcpy(out + at, c->chunks[i], n);
  }
}

static void test_buckets_accessor(void) {
  cuckoo_sizing pl;
  unsigned char *blob = new_filter(3000, 0.01, &pl);
  unsigned char *body = blob + FILTER_HEADER_BYTES;
  size_t body_bytes = (size_t)(pl.bytes - FILTER_HEADER_BYTES);
  unsigned f = pl.fingerprint_bits;
  chunked c = chunked_new(pl.buckets, f);
  cuckoo_buckets bk = {locate_chunked, &c, cuckoo_shape_of_sizing(&pl)};
  unsigned char *joined = malloc(body_bytes);
  unsigned char **before = malloc(c.count * sizeof *before);
  for (size_t i = 0; i < c.count; i++) before[i] = malloc(c.bytes);
  uint64_t rng = seed_print(0x5EED0010, "cuckoo_buckets: random inserts and removes");
  filter_hash *added = malloc(pl.buckets * 4 * sizeof *added);
  size_t live = 0;
  int same = 1, statuses = 1, only_written = 1, contains = 1, full = 0;
  for (int op = 0; op < 20000; op++) {
    for (size_t i = 0; i < c.count; i++) memcpy(before[i], c.chunks[i], c.bytes);
    memset(c.written, 0, c.count);
    /* Mostly inserts, so that the filter fills and walks happen. */
    if (live > 0 && splitmix64(&rng) % 4 == 0) {
      size_t k = (size_t)(splitmix64(&rng) % live);
      int a = cuckoo_remove(body, cuckoo_shape_of_sizing(&pl), added[k]);
      int b = cuckoo_buckets_remove(&bk, added[k]);
      if (a != b) statuses = 0;
      added[k] = added[--live];
    } else {
      filter_hash h = random_hash(&rng);
      if (splitmix64(&rng) % 8 == 0 && live > 0) h = added[0]; /* copies */
      cuckoo_status a = cuckoo_insert(body, cuckoo_shape_of_sizing(&pl), h);
      cuckoo_status b = cuckoo_buckets_insert(&bk, h);
      if (a != b) statuses = 0;
      if (a == CUCKOO_OK) added[live++] = h;
      if (a == CUCKOO_FULL) full++;
    }
    chunked_join(&c, joined, body_bytes);
    if (memcmp(joined, body, body_bytes) != 0) same = 0;
    for (size_t i = 0; i < c.count; i++)
      if (!c.written[i] && memcmp(before[i], c.chunks[i], c.bytes) != 0)
        only_written = 0;
  }
  for (size_t k = 0; k < live; k++)
    if (cuckoo_buckets_contains(&bk, added[k]) != 1) contains = 0;
  tap_ok(same && statuses,
         "20,000 random inserts and removes over %zu chunks of %d buckets: "
         "the same statuses and bytes as the contiguous body (%d inserts "
         "found it full)", c.count, CHUNK_BUCKETS, full);
  tap_ok(full > 0, "the run reached a full filter (relocations crossed "
         "chunks and were undone)");
  tap_ok(only_written, "a chunk never located for writing never changed");
  tap_ok(contains, "every item still stored tests 1 through the accessor");

  /* A locator that fails at call N: every buffer as it was. */
  int unchanged = 1, failed = 0, tried = 0;
  for (int round = 0; round < 3000; round++) {
    filter_hash h = random_hash(&rng);
    int remove = round % 3 == 0 && live > 0;
    if (remove) h = added[splitmix64(&rng) % live];
    for (size_t i = 0; i < c.count; i++) memcpy(before[i], c.chunks[i], c.bytes);
    c.calls = 0;
    memset(c.seen, 0, pl.buckets);
    /* Most walks are short; some reach hundreds of calls. */
    c.fail_at = 1 + (long)(splitmix64(&rng) % (round % 2 ? 12 : 3000));
    int r = remove ? cuckoo_buckets_remove(&bk, h) : (int)cuckoo_buckets_insert(&bk, h);
    int unreachable = remove ? r == -1 : r == CUCKOO_UNREACHABLE;
    tried++;
    if (unreachable) {
      failed++;
      for (size_t i = 0; i < c.count; i++)
        if (memcmp(before[i], c.chunks[i], c.bytes) != 0) unchanged = 0;
    } else if (c.fail_at < 0) {
      unchanged = 0; /* it met the failure and went on */
    }
    /* Put the pieces back as the body is, for the next round. */
    for (size_t i = 0; i < c.count; i++) memcpy(c.chunks[i], before[i], c.bytes);
    c.fail_at = 0;
  }
  tap_ok(unchanged && failed > 100,
         "a locate failing at call N: %d of %d operations met it, each "
         "stopped with every chunk unchanged", failed, tried);
  c.fail_at = 0;
  for (size_t i = 0; i < c.count; i++) free(before[i]);
  free(before);
  free(added);
  free(joined);
  chunked_free(&c);
  free(blob);
}

int main(void) {
  test_packing();
  test_keys();
  test_sizing();
  test_basic(1);
  test_basic(0);
  test_load();
  test_copies();
  test_fpr();
  test_order();
  test_unique();
  test_parse();
  test_buckets_accessor();
  return tap_done();
}
