/*
** cuckoo_v110.h -- bench only: the cuckoo filter core of version 1.1.0
** (ext/core/cuckoo.{h,c} as they were before layout 1), frozen, its names
** prefixed v110_ and made static, so that tests/bench/cuckoo.c can time
** "today's" insert and lookup beside this version's in one run.  Layout 0
** only: a power of two of buckets, the other bucket by XOR, inserts by a
** random walk, slots read one by one.  Never used by the extension.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef BENCH_CUCKOO_V110_H
#define BENCH_CUCKOO_V110_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "core/hash.h"

#ifdef __GNUC__
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

/* Sizing: the fewest buckets that hold n at the sized load (see
** v110_cuckoo_sized_items), then the narrowest fingerprint whose model rate at n
** items is at most margin * p. */
#define V110_CUCKOO_MAX_LOAD 0.95
#define V110_CUCKOO_SIZING_MARGIN 0.97

/* Relocations tried before an insert gives up (and is undone).  The paper
** uses 500, which stops at 95.1% load in a filter of 4M slots (measured);
** 1000 reaches 96.6% there and costs an 8 KB undo log on the stack. */
#define V110_CUCKOO_MAX_KICKS 1000

typedef struct v110_cuckoo_sizing {
  uint64_t capacity;         /* n */
  double target_fpr;         /* p */
  uint64_t buckets;          /* a power of two */
  unsigned fingerprint_bits; /* f */
  uint64_t bytes;            /* blob size: header + body */
  double expected_fpr;       /* v110_cuckoo_model_fpr at n items */
} v110_cuckoo_sizing;

typedef enum {
  V110_CUCKOO_SIZING_OK = 0,
  V110_CUCKOO_SIZING_BAD_N,   /* n < 1 or above 2^63 - 1 */
  V110_CUCKOO_SIZING_BAD_P,   /* p not in [min_fpr, 1) or NaN */
  V110_CUCKOO_SIZING_TOO_BIG  /* the blob would exceed max_bytes */
} v110_cuckoo_sizing_status;

/* The most items a sizing puts in `buckets` buckets (slots = 4 * buckets):
**   floor(slots * 0.95)                             with 1 or 2 buckets,
**   floor(slots * min(0.95, 1 - 2 / sqrt(slots)))   beyond.
** Where the first insert fails varies more in a small filter (measured over
** 20,000 random fills of 16 slots: 1 in 1000 fails by the 14th item, the
** worst at the 11th); the square-root term keeps a build of n distinct
** values from failing there (measured at each sizing's largest n: at most 1
** failure in 10^5 fills for 4..128 buckets, none in 10^4 for 256..4096).
** From 2048 slots on, 95%. */
static uint64_t v110_cuckoo_sized_items(uint64_t buckets);

/* Sizes a filter for n items at rate p; min_fpr is the smallest p
** accepted (the SQL layer passes FILTER_MIN_FPR, as for Bloom). */
static v110_cuckoo_sizing_status v110_cuckoo_sizing_for(uint64_t n, double p, double min_fpr,
                                   uint64_t max_bytes, v110_cuckoo_sizing *sizing);

/* Sizes a filter that takes items until an insert is refused (a scalable
** store's layer): the buckets v110_cuckoo_sizing_for gives for n, capacity
** raised to v110_cuckoo_sized_items(buckets), and f the narrowest whose rate with
** every slot full (load 1) is within p.  However full such a filter gets,
** its model rate stays within p; expected_fpr is that rate at load 1. */
static v110_cuckoo_sizing_status v110_cuckoo_sizing_filled_for(uint64_t n, double p,
                                              double min_fpr, uint64_t max_bytes,
                                              v110_cuckoo_sizing *sizing);

/* The false-positive rate at `load` (items / slots): a probe compares its
** fingerprint with the occupied slots of its two buckets, 8 * load on
** average (4 * load with one bucket), each equal with chance 1/(2^f - 1):
**   1 - (1 - 1/(2^f - 1))^(8 * load)
** By Jensen's inequality this is an upper bound on the mean rate. */
static double v110_cuckoo_model_fpr(double load, unsigned f, uint64_t buckets);

/* Body bytes for a valid shape: ceil(buckets * 4 * f / 8).  The caller
** keeps buckets / 2 * f within 64 bits. */
static uint64_t v110_cuckoo_body_bytes(uint64_t buckets, unsigned f);

/* Header of a new empty filter for a sizing (seed 0, items 0). */
static filter_header v110_cuckoo_header_for(const v110_cuckoo_sizing *sizing);

/* Writes a complete empty filter (sizing->bytes bytes) into dst. */
static void v110_cuckoo_write_empty(unsigned char *dst, const v110_cuckoo_sizing *sizing);

/* Where an item lives: its first bucket and its fingerprint. */
typedef struct v110_cuckoo_key {
  uint64_t bucket;
  uint64_t fingerprint;
} v110_cuckoo_key;

static v110_cuckoo_key v110_cuckoo_key_of(filter_hash h, uint64_t buckets, unsigned f);
/* The other bucket of a fingerprint stored in `bucket`. */
static uint64_t v110_cuckoo_alt_bucket(uint64_t bucket, uint64_t fp, uint64_t buckets);

/* Slot j of the array (j < buckets * 4): read and write in place. */
static uint64_t v110_cuckoo_slot_get(const unsigned char *body, uint64_t slot, unsigned f);
static void v110_cuckoo_slot_set(unsigned char *body, uint64_t slot, unsigned f,
                     uint64_t fp);

typedef enum {
  V110_CUCKOO_OK = 0,
  V110_CUCKOO_FULL,            /* no room within V110_CUCKOO_MAX_KICKS relocations */
  V110_CUCKOO_TOO_MANY_COPIES, /* both buckets already hold only this fingerprint */
  V110_CUCKOO_UNREACHABLE      /* a v110_cuckoo_buckets' locate failed */
} v110_cuckoo_status;

/* v110_cuckoo_buckets: the bucket array seen through an accessor rather than as
** one contiguous body, so that it may be cut into separately stored pieces
** (a store's chunk rows) across which relocations move fingerprints.
**
** locate(ctx, bucket, for_write, &first) returns the bytes holding the
** bucket, with *first set to the index of its first slot in those bytes
** (for v110_cuckoo_slot_get/set), or NULL when the bucket cannot be reached;
** the operation then stops and undoes every change it made.  for_write is
** 1 just before one of the bucket's slots is set, so that the owner knows
** which pieces really change.  A bucket located once during an operation
** must be located again without failing (the undo relies on it). */
typedef struct v110_cuckoo_buckets {
  unsigned char *(*locate)(void *ctx, uint64_t bucket, int for_write,
                           uint64_t *first_slot);
  void *ctx;
  uint64_t buckets;
  unsigned f;
} v110_cuckoo_buckets;

/* v110_cuckoo_insert through the accessor: the same walk, the same bytes; on any
** status but V110_CUCKOO_OK every bucket is as it was. */
static v110_cuckoo_status v110_cuckoo_buckets_insert(const v110_cuckoo_buckets *bk, filter_hash h);
/* 1 if the item's fingerprint is in one of its buckets, 0 if not, -1 when
** a bucket cannot be reached. */
static int v110_cuckoo_buckets_contains(const v110_cuckoo_buckets *bk, filter_hash h);
/* v110_cuckoo_remove through the accessor: 1 removed, 0 absent, -1 unreachable
** (nothing changed). */
static int v110_cuckoo_buckets_remove(const v110_cuckoo_buckets *bk, filter_hash h);

/* Adds one copy of the item.  On any status but V110_CUCKOO_OK the body is left
** exactly as it was: every relocation is undone. */
static v110_cuckoo_status v110_cuckoo_insert(unsigned char *body, uint64_t buckets, unsigned f,
                            filter_hash h);
/* 1 if the item's fingerprint is in one of its buckets, else 0. */
static int v110_cuckoo_contains(const unsigned char *body, uint64_t buckets, unsigned f,
                    filter_hash h);
/* Removes one copy of the item's fingerprint from its buckets: 1 if one
** was removed, 0 (body untouched) if none was there.  Only items that were
** added may be removed: removing a false positive removes the fingerprint
** of another item, which then tests 0. */
static int v110_cuckoo_remove(unsigned char *body, uint64_t buckets, unsigned f,
                  filter_hash h);

/* Why an insert failed, as one line into out[0..size): the words both
** v110_cuckoo_add and v110_cuckoo_store use.  items is the count stored, or
** UINT64_MAX when the caller does not know it. */
static void v110_cuckoo_insert_failure(v110_cuckoo_status st, uint64_t buckets, uint64_t items,
                           char *out, size_t size);

/* The most copies of one item a filter holds: 8, or 4 with one bucket. */
static unsigned v110_cuckoo_max_copies(uint64_t buckets);


#define V110_SLOTS CUCKOO_SLOTS_PER_BUCKET


/* MurmurHash3's 64-bit finalizer: spreads a fingerprint's few bits over
** the whole word before it picks the XOR distance. */
static uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

/* 2^f - 1 without shifting by 64. */
static uint64_t fingerprint_mask(unsigned f) {
  return f >= 64 ? UINT64_MAX : ((uint64_t)1 << f) - 1;
}

static v110_cuckoo_key v110_cuckoo_key_of(filter_hash h, uint64_t buckets, unsigned f) {
  v110_cuckoo_key k;
  /* The bucket from h1's low bits, the fingerprint from h2's high bits:
  ** independent, so a shared bucket says nothing about the fingerprint. */
  k.bucket = h.h1 & (buckets - 1);
  k.fingerprint = 1 + mul_high64(h.h2, fingerprint_mask(f));
  return k;
}

static uint64_t v110_cuckoo_alt_bucket(uint64_t bucket, uint64_t fp, uint64_t buckets) {
  /* d >= 1, so the two buckets always differ (with one bucket there is no
  ** other); masking fmix64 instead would give d = 0, a single bucket, to
  ** 1 in `buckets` items, which hurts small filters. */
  if (buckets < 2) return bucket;
  return bucket ^ (1 + mul_high64(fmix64(fp), buckets - 1));
}

static unsigned v110_cuckoo_max_copies(uint64_t buckets) {
  return buckets < 2 ? V110_SLOTS : 2 * V110_SLOTS;
}

/* A slot spans at most 9 bytes (7 bits of offset + 64 bits).  slot * f is
** below the body's size in bits, which fits in 64 bits for any blob that
** fits in memory. */
static uint64_t v110_cuckoo_slot_get(const unsigned char *body, uint64_t slot,
                         unsigned f) {
  uint64_t bit = slot * f;
  const unsigned char *p = body + (bit >> 3);
  unsigned shift = (unsigned)(bit & 7), done = 0;
  uint64_t v = 0;
  while (done < f) {
    unsigned take = 8 - shift < f - done ? 8 - shift : f - done;
    uint64_t part = (uint64_t)(*p++ >> shift) & ((1u << take) - 1u);
    v |= part << done;
    done += take;
    shift = 0;
  }
  return v;
}

static void v110_cuckoo_slot_set(unsigned char *body, uint64_t slot, unsigned f,
                     uint64_t fp) {
  uint64_t bit = slot * f;
  unsigned char *p = body + (bit >> 3);
  unsigned shift = (unsigned)(bit & 7), done = 0;
  while (done < f) {
    unsigned take = 8 - shift < f - done ? 8 - shift : f - done;
    unsigned mask = ((1u << take) - 1u) << shift;
    unsigned part = (unsigned)((fp >> done) & ((1u << take) - 1u)) << shift;
    *p = (unsigned char)((*p & ~mask) | part);
    p++;
    done += take;
    shift = 0;
  }
}

/* The bytes of bucket b and the index of its first slot in them; NULL when
** the accessor cannot reach it. */
static unsigned char *at(const v110_cuckoo_buckets *bk, uint64_t b, int for_write,
                         uint64_t *first) {
  return bk->locate(bk->ctx, b, for_write, first);
}

/* The first slot of bucket b (0..3) holding fp; V110_SLOTS if none; -1 if b is
** out of reach. */
static int find(const v110_cuckoo_buckets *bk, uint64_t b, uint64_t fp) {
  uint64_t first;
  const unsigned char *bytes = at(bk, b, 0, &first);
  if (bytes == NULL) return -1;
  for (int s = 0; s < V110_SLOTS; s++)
    if (v110_cuckoo_slot_get(bytes, first + (uint64_t)s, bk->f) == fp) return s;
  return V110_SLOTS;
}

/* Puts fp in the first empty slot of bucket b: 1 if placed, 0 if the bucket
** is full, -1 if out of reach (nothing changed). */
static int put(const v110_cuckoo_buckets *bk, uint64_t b, uint64_t fp) {
  int s = find(bk, b, 0);
  if (s < 0) return -1;
  if (s == V110_SLOTS) return 0;
  uint64_t first;
  unsigned char *bytes = at(bk, b, 1, &first);
  if (bytes == NULL) return -1;
  v110_cuckoo_slot_set(bytes, first + (uint64_t)s, bk->f, fp);
  return 1;
}

/* Copies of fp in bucket b, or -1 if out of reach. */
static int copies_in(const v110_cuckoo_buckets *bk, uint64_t b, uint64_t fp) {
  uint64_t first;
  const unsigned char *bytes = at(bk, b, 0, &first);
  if (bytes == NULL) return -1;
  int n = 0;
  for (uint64_t s = 0; s < V110_SLOTS; s++)
    n += v110_cuckoo_slot_get(bytes, first + s, bk->f) == fp;
  return n;
}

/* xorshift64*, seeded from the item itself: the walk, and so the bytes of
** the result, depend only on the filter and the item (the SQL functions
** are deterministic), and no state outlives the call. */
static uint64_t next_random(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

/* Swaps back the first `count` relocations of path (global slot numbers),
** last first: the fingerprint in hand at the end is the new item's again.
** Every bucket on the path was located before, so it is reached again. */
static void undo(const v110_cuckoo_buckets *bk, const uint64_t *path, unsigned count,
                 uint64_t hand) {
  for (unsigned n = count; n-- > 0;) {
    uint64_t first;
    unsigned char *bytes = at(bk, path[n] / V110_SLOTS, 1, &first);
    if (bytes == NULL) continue; /* broken promise: cannot undo this one */
    uint64_t slot = first + path[n] % V110_SLOTS;
    uint64_t stored = v110_cuckoo_slot_get(bytes, slot, bk->f);
    v110_cuckoo_slot_set(bytes, slot, bk->f, hand);
    hand = stored;
  }
}

static v110_cuckoo_status v110_cuckoo_buckets_insert(const v110_cuckoo_buckets *bk, filter_hash h) {
  v110_cuckoo_key k = v110_cuckoo_key_of(h, bk->buckets, bk->f);
  uint64_t i1 = k.bucket,
           i2 = v110_cuckoo_alt_bucket(i1, k.fingerprint, bk->buckets);
  /* Both buckets full of this very fingerprint: no relocation can help
  ** (each copy can only move to the other bucket of the same pair), so
  ** say so at once instead of walking V110_CUCKOO_MAX_KICKS steps. */
  int c1 = copies_in(bk, i1, k.fingerprint);
  int c2 = i2 != i1 ? copies_in(bk, i2, k.fingerprint) : 0;
  if (c1 < 0 || c2 < 0) return V110_CUCKOO_UNREACHABLE;
  if ((unsigned)(c1 + c2) >= v110_cuckoo_max_copies(bk->buckets))
    return V110_CUCKOO_TOO_MANY_COPIES;
  int r = put(bk, i1, k.fingerprint);
  if (r != 0) return r > 0 ? V110_CUCKOO_OK : V110_CUCKOO_UNREACHABLE;
  if (i2 == i1) return V110_CUCKOO_FULL; /* one bucket: nowhere to move to */
  r = put(bk, i2, k.fingerprint);
  if (r != 0) return r > 0 ? V110_CUCKOO_OK : V110_CUCKOO_UNREACHABLE;

  uint64_t path[V110_CUCKOO_MAX_KICKS]; /* the slot of each swap, in order */
  uint64_t rng = fmix64(k.fingerprint ^ (i1 * 0x9E3779B97F4A7C15ULL)) | 1;
  uint64_t b = next_random(&rng) >> 63 ? i2 : i1;
  uint64_t hand = k.fingerprint;
  for (unsigned n = 0; n < V110_CUCKOO_MAX_KICKS; n++) {
    uint64_t j = next_random(&rng) >> 62, first;
    unsigned char *bytes = at(bk, b, 1, &first);
    if (bytes == NULL) {
      undo(bk, path, n, hand);
      return V110_CUCKOO_UNREACHABLE;
    }
    uint64_t victim = v110_cuckoo_slot_get(bytes, first + j, bk->f);
    v110_cuckoo_slot_set(bytes, first + j, bk->f, hand);
    path[n] = b * V110_SLOTS + j;
    hand = victim;
    b = v110_cuckoo_alt_bucket(b, hand, bk->buckets);
    r = put(bk, b, hand);
    if (r > 0) return V110_CUCKOO_OK;
    if (r < 0) {
      undo(bk, path, n + 1, hand);
      return V110_CUCKOO_UNREACHABLE;
    }
  }
  undo(bk, path, V110_CUCKOO_MAX_KICKS, hand);
  return V110_CUCKOO_FULL;
}

static int v110_cuckoo_buckets_contains(const v110_cuckoo_buckets *bk, filter_hash h) {
  v110_cuckoo_key k = v110_cuckoo_key_of(h, bk->buckets, bk->f);
  int s = find(bk, k.bucket, k.fingerprint);
  if (s != V110_SLOTS) return s < 0 ? -1 : 1;
  uint64_t i2 = v110_cuckoo_alt_bucket(k.bucket, k.fingerprint, bk->buckets);
  s = find(bk, i2, k.fingerprint);
  return s < 0 ? -1 : s < V110_SLOTS;
}

static int v110_cuckoo_buckets_remove(const v110_cuckoo_buckets *bk, filter_hash h) {
  v110_cuckoo_key k = v110_cuckoo_key_of(h, bk->buckets, bk->f);
  uint64_t b = k.bucket;
  int s = find(bk, b, k.fingerprint);
  if (s < 0) return -1;
  if (s == V110_SLOTS) {
    b = v110_cuckoo_alt_bucket(k.bucket, k.fingerprint, bk->buckets);
    s = find(bk, b, k.fingerprint);
    if (s < 0) return -1;
    if (s == V110_SLOTS) return 0;
  }
  uint64_t first;
  unsigned char *bytes = at(bk, b, 1, &first);
  if (bytes == NULL) return -1;
  v110_cuckoo_slot_set(bytes, first + (uint64_t)s, bk->f, 0);
  return 1;
}

/* The contiguous body: every bucket in one buffer. */
static unsigned char *locate_body(void *ctx, uint64_t bucket, int for_write,
                                  uint64_t *first_slot) {
  (void)for_write;
  *first_slot = bucket * V110_SLOTS;
  return ctx;
}

static v110_cuckoo_buckets body_buckets(unsigned char *body, uint64_t buckets,
                               unsigned f) {
  v110_cuckoo_buckets bk = {locate_body, body, buckets, f};
  return bk;
}

static v110_cuckoo_status v110_cuckoo_insert(unsigned char *body, uint64_t buckets, unsigned f,
                            filter_hash h) {
  v110_cuckoo_buckets bk = body_buckets(body, buckets, f);
  return v110_cuckoo_buckets_insert(&bk, h);
}

/* The probes' hot path, read straight from the body. */
static int v110_cuckoo_contains(const unsigned char *body, uint64_t buckets, unsigned f,
                    filter_hash h) {
  v110_cuckoo_key k = v110_cuckoo_key_of(h, buckets, f);
  for (int pass = 0; pass < 2; pass++) {
    uint64_t b = pass ? v110_cuckoo_alt_bucket(k.bucket, k.fingerprint, buckets)
                      : k.bucket;
    for (uint64_t s = b * V110_SLOTS; s < b * V110_SLOTS + V110_SLOTS; s++)
      if (v110_cuckoo_slot_get(body, s, f) == k.fingerprint) return 1;
  }
  return 0;
}

static int v110_cuckoo_remove(unsigned char *body, uint64_t buckets, unsigned f,
                  filter_hash h) {
  v110_cuckoo_buckets bk = body_buckets(body, buckets, f);
  return v110_cuckoo_buckets_remove(&bk, h);
}

static double v110_cuckoo_model_fpr(double load, unsigned f, uint64_t buckets) {
  if (!(load > 0.0)) return 0.0;
  double compared = (double)v110_cuckoo_max_copies(buckets) * load;
  double one = 1.0 / (ldexp(1.0, (int)f) - 1.0);
  /* 1 - (1 - one)^compared, accurate when one is tiny. */
  return -expm1(compared * log1p(-one));
}

static uint64_t v110_cuckoo_body_bytes(uint64_t buckets, unsigned f) {
  return buckets < 2 ? (V110_SLOTS * (uint64_t)f + 7) / 8 : buckets / 2 * f;
}

static uint64_t v110_cuckoo_sized_items(uint64_t buckets) {
  double slots = V110_SLOTS * (double)buckets;
  double load = V110_CUCKOO_MAX_LOAD;
  /* With one or two buckets every item may use every slot: no luck is
  ** involved.  Beyond, the fill at first failure varies by ~1/sqrt(slots). */
  if (buckets > 2 && 1.0 - 2.0 / sqrt(slots) < load)
    load = 1.0 - 2.0 / sqrt(slots);
  return (uint64_t)floor(slots * load);
}

/* Sizes for n items in the fewest buckets; f for the filter's load at n
** items, or with every slot full (fill_slots: a filter that takes items
** until one is refused). */
static v110_cuckoo_sizing_status size_for(uint64_t n, double p, double min_fpr,
                                 uint64_t max_bytes, int fill_slots,
                                 v110_cuckoo_sizing *sizing) {
  if (n < 1 || n > (uint64_t)INT64_MAX) return V110_CUCKOO_SIZING_BAD_N;
  if (!(p >= min_fpr && p < 1.0)) return V110_CUCKOO_SIZING_BAD_P;
  uint64_t buckets = 1;
  while (n > v110_cuckoo_sized_items(buckets)) {
    if (buckets >= (uint64_t)1 << 61) return V110_CUCKOO_SIZING_TOO_BIG;
    buckets <<= 1;
  }
  if (fill_slots) n = v110_cuckoo_sized_items(buckets);
  double load = fill_slots ? 1.0 : (double)n / (V110_SLOTS * (double)buckets);
  /* The narrowest fingerprint meeting the target at that load.  Every p in
  ** [1e-12, 1) is met by some f <= 64: at f = 64 the rate is ~4e-19. */
  unsigned f = CUCKOO_MIN_FINGERPRINT_BITS;
  double rate = v110_cuckoo_model_fpr(load, f, buckets);
  while (!(rate <= p * V110_CUCKOO_SIZING_MARGIN) &&
         f < CUCKOO_MAX_FINGERPRINT_BITS) {
    f++;
    rate = v110_cuckoo_model_fpr(load, f, buckets);
  }
  if (!(rate <= p * V110_CUCKOO_SIZING_MARGIN)) return V110_CUCKOO_SIZING_BAD_P;
  /* buckets / 2 * f + 64 must fit in 64 bits before it is compared. */
  if (buckets / 2 > (UINT64_MAX - FILTER_HEADER_BYTES) / f)
    return V110_CUCKOO_SIZING_TOO_BIG;
  uint64_t bytes = FILTER_HEADER_BYTES + v110_cuckoo_body_bytes(buckets, f);
  if (bytes > max_bytes) return V110_CUCKOO_SIZING_TOO_BIG;
  sizing->capacity = n;
  sizing->target_fpr = p;
  sizing->buckets = buckets;
  sizing->fingerprint_bits = f;
  sizing->bytes = bytes;
  sizing->expected_fpr = rate;
  return V110_CUCKOO_SIZING_OK;
}

static v110_cuckoo_sizing_status v110_cuckoo_sizing_for(uint64_t n, double p, double min_fpr,
                                   uint64_t max_bytes, v110_cuckoo_sizing *sizing) {
  return size_for(n, p, min_fpr, max_bytes, 0, sizing);
}

static v110_cuckoo_sizing_status v110_cuckoo_sizing_filled_for(uint64_t n, double p,
                                              double min_fpr, uint64_t max_bytes,
                                              v110_cuckoo_sizing *sizing) {
  return size_for(n, p, min_fpr, max_bytes, 1, sizing);
}

static filter_header v110_cuckoo_header_for(const v110_cuckoo_sizing *sizing) {
  filter_header h =
      filter_header_new(FILTER_KIND_CUCKOO, sizing->capacity, sizing->target_fpr);
  h.fingerprint_bits = sizing->fingerprint_bits;
  h.slots_per_bucket = V110_SLOTS;
  h.buckets = sizing->buckets;
  return h;
}

static void v110_cuckoo_write_empty(unsigned char *dst, const v110_cuckoo_sizing *sizing) {
  filter_header h = v110_cuckoo_header_for(sizing);
  filter_write_header(dst, &h);
  memset(dst + FILTER_HEADER_BYTES, 0, sizing->bytes - FILTER_HEADER_BYTES);
}

static void v110_cuckoo_insert_failure(v110_cuckoo_status st, uint64_t buckets, uint64_t items,
                           char *out, size_t size) {
  char count[64] = "";
  if (st == V110_CUCKOO_TOO_MANY_COPIES) {
    snprintf(out, size, "the value does not fit: its two buckets already "
             "hold %u copies of its fingerprint, the most a filter holds",
             v110_cuckoo_max_copies(buckets));
  } else if (st == V110_CUCKOO_FULL && buckets == 1) {
    /* no other bucket to relocate to */
    if (items != UINT64_MAX)
      snprintf(count, sizeof count, " %llu items", (unsigned long long)items);
    snprintf(out, size, "the filter is full: its one bucket holds%s",
             items != UINT64_MAX ? count : " 4 items");
  } else if (st == V110_CUCKOO_FULL) {
    if (items != UINT64_MAX)
      snprintf(count, sizeof count, "%llu items in ", (unsigned long long)items);
    snprintf(out, size, "the filter is full: no room for the value after %d "
             "relocations (%s%llu slots)", V110_CUCKOO_MAX_KICKS, count,
             (unsigned long long)(buckets * V110_SLOTS));
  } else {
    snprintf(out, size, "a bucket could not be read");
  }
}

#ifdef __GNUC__
#pragma GCC diagnostic pop
#endif

#endif
