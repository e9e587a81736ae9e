/*
** Cuckoo filter core: sizing, fingerprint packing, and insertion by random
** walk with an undo log.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Why bit-packed slots: a fingerprint of f bits costs f bits, so at 95%
** load a filter spends f / 0.95 bits per item; rounding slots up to whole
** bytes would cost up to 7 more bits each.  A slot is read with at most 9
** byte loads, and a probe reads 8 slots: O(1), in place.
**
** Why an undo log: an insert that fails after relocating other items must
** not lose any of them.  Each relocation is a swap of the fingerprint in
** hand with a stored one; replaying the swaps backwards puts every
** fingerprint back where it was, so a failed insert leaves the body as it
** found it, byte for byte.
*/
#include "core/cuckoo.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


#define SLOTS CUCKOO_SLOTS_PER_BUCKET


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

/* The bucket from h1, the fingerprint from h2's high bits: independent, so
** a shared bucket says nothing about the fingerprint.  Layout 0 takes h1's
** low bits (a mask), layout 1 its high bits scaled onto [0, buckets) (a
** multiply-high: any bucket count, no division).  Inline here: the walk
** and the probes call them for every bucket. */
static inline cuckoo_key key_of(filter_hash h, cuckoo_shape s) {
  cuckoo_key k;
  k.bucket = s.layout == CUCKOO_LAYOUT_SUB ? mul_high64(h.h1, s.buckets)
                                           : h.h1 & (s.buckets - 1);
  k.fingerprint = 1 + mul_high64(h.h2, fingerprint_mask(s.f));
  return k;
}

static inline uint64_t alt_of(uint64_t bucket, uint64_t fp, cuckoo_shape s) {
  if (s.layout == CUCKOO_LAYOUT_SUB) {
    /* c odd in [1, buckets - 1]; (c - bucket) mod buckets by one
    ** conditional addition.  buckets is even, so c - bucket is odd and the
    ** two buckets always differ. */
    uint64_t c = 1 + 2 * mul_high64(fmix64(fp), s.buckets >> 1);
    uint64_t other = c - bucket;
    return c >= bucket ? other : other + s.buckets;
  }
  /* d >= 1, so the two buckets always differ (with one bucket there is no
  ** other); masking fmix64 instead would give d = 0, a single bucket, to
  ** 1 in `buckets` items, which hurts small filters. */
  if (s.buckets < 2) return bucket;
  return bucket ^ (1 + mul_high64(fmix64(fp), s.buckets - 1));
}

cuckoo_key cuckoo_key_of(filter_hash h, cuckoo_shape s) {
  return key_of(h, s);
}

uint64_t cuckoo_alt_bucket(uint64_t bucket, uint64_t fp, cuckoo_shape s) {
  return alt_of(bucket, fp, s);
}

unsigned cuckoo_max_copies(uint64_t buckets) {
  return buckets < 2 ? SLOTS : 2 * SLOTS;
}

/* A slot spans at most 9 bytes (7 bits of offset + 64 bits).  slot * f is
** below the body's size in bits, which fits in 64 bits for any blob that
** fits in memory. */
uint64_t cuckoo_slot_get(const unsigned char *body, uint64_t slot,
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

void cuckoo_slot_set(unsigned char *body, uint64_t slot, unsigned f,
                     uint64_t fp) {
  uint64_t bit = slot * f;
  unsigned char *p = body + (bit >> 3);
  unsigned shift = (unsigned)(bit & 7), done = 0;
  if (f <= 56) {
    /* the slot's bytes into one word, changed, written back: exactly the
    ** bytes that hold the slot */
    unsigned n = (shift + f + 7) / 8;
    uint64_t w = 0, mask = (((uint64_t)1 << f) - 1) << shift;
    for (unsigned i = 0; i < n; i++) w |= (uint64_t)p[i] << (8 * i);
    w = (w & ~mask) | ((fp << shift) & mask);
    for (unsigned i = 0; i < n; i++) p[i] = (unsigned char)(w >> (8 * i));
    return;
  }
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

/* The 4 slots from `first` on (one bucket): with f <= 14 the bucket's 4f
** bits and their offset fit one 64-bit word, gathered from exactly the
** bytes that hold them (never a byte past the bucket); wider slots one by
** one. */
static inline void bucket_get(const unsigned char *bytes, uint64_t first,
                              unsigned f, uint64_t v[SLOTS]) {
  if (f <= 14) {
    uint64_t bit = first * f;
    const unsigned char *p = bytes + (bit >> 3);
    unsigned shift = (unsigned)(bit & 7), n = (shift + 4 * f + 7) / 8;
    uint64_t w = 0, mask = ((uint64_t)1 << f) - 1;
    for (unsigned i = 0; i < n; i++) w |= (uint64_t)p[i] << (8 * i);
    w >>= shift;
    for (int s = 0; s < SLOTS; s++) v[s] = (w >> (unsigned)s * f) & mask;
    return;
  }
  for (int s = 0; s < SLOTS; s++)
    v[s] = cuckoo_slot_get(bytes, first + (uint64_t)s, f);
}

/* The bytes of bucket b and the index of its first slot in them; NULL when
** the accessor cannot reach it. */
static unsigned char *locate_body(void *ctx, uint64_t bucket, int for_write,
                                  uint64_t *first_slot);

static inline unsigned char *at(const cuckoo_buckets *bk, uint64_t b,
                                int for_write, uint64_t *first) {
  if (bk->locate == locate_body) { /* the contiguous body: no call */
    *first = b * SLOTS;
    return bk->ctx;
  }
  return bk->locate(bk->ctx, b, for_write, first);
}

/* The first slot of bucket b (0..3) holding fp; SLOTS if none; -1 if b is
** out of reach. */
static int find(const cuckoo_buckets *bk, uint64_t b, uint64_t fp) {
  uint64_t first;
  const unsigned char *bytes = at(bk, b, 0, &first);
  if (bytes == NULL) return -1;
  for (int s = 0; s < SLOTS; s++)
    if (cuckoo_slot_get(bytes, first + (uint64_t)s, bk->shape.f) == fp) return s;
  return SLOTS;
}

/* Bucket b's 4 slots into v[]: 0, or -1 if b is out of reach. */
static int read_bucket(const cuckoo_buckets *bk, uint64_t b,
                       uint64_t v[SLOTS]) {
  uint64_t first;
  const unsigned char *bytes = at(bk, b, 0, &first);
  if (bytes == NULL) return -1;
  bucket_get(bytes, first, bk->shape.f, v);
  return 0;
}

/* The first empty slot of v[], or SLOTS. */
static int empty_in(const uint64_t v[SLOTS]) {
  for (int s = 0; s < SLOTS; s++)
    if (v[s] == 0) return s;
  return SLOTS;
}

/* Sets slot s of bucket b (located before in this operation): 0, or -1 if
** the accessor broke its promise and cannot reach it again. */
static int set_slot(const cuckoo_buckets *bk, uint64_t b, int s, uint64_t fp) {
  uint64_t first;
  unsigned char *bytes = at(bk, b, 1, &first);
  if (bytes == NULL) return -1;
  cuckoo_slot_set(bytes, first + (uint64_t)s, bk->shape.f, fp);
  return 0;
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
static void undo(const cuckoo_buckets *bk, const uint64_t *path, unsigned count,
                 uint64_t hand) {
  for (unsigned n = count; n-- > 0;) {
    uint64_t first;
    unsigned char *bytes = at(bk, path[n] / SLOTS, 1, &first);
    if (bytes == NULL) continue; /* broken promise: cannot undo this one */
    uint64_t slot = first + path[n] % SLOTS;
    uint64_t stored = cuckoo_slot_get(bytes, slot, bk->shape.f);
    cuckoo_slot_set(bytes, slot, bk->shape.f, hand);
    hand = stored;
  }
}

/* The walk when both of an item's buckets are full.  Each step has a
** fingerprint in hand and candidates: the slots of its full bucket(s),
** both of the item's buckets at the first step, then the one bucket the
** walk reached.  If some candidate's fingerprint has an empty slot in its
** other bucket (candidates in order), it moves there and the hand takes
** its slot: done.  Otherwise the hand swaps with a random candidate, and
** the displaced fingerprint goes on from its other bucket.  Looking one
** step ahead reads the candidates' other buckets together (independent
** reads, whose cache misses overlap) instead of following one random path
** bucket after bucket: filling to 95% takes far fewer steps (FORMAT.md,
** "How this version places fingerprints").  Every swap is logged and
** undone when the walk fails. */
static cuckoo_status walk(const cuckoo_buckets *bk, uint64_t fp, uint64_t i1,
                          uint64_t i2, const uint64_t v1[SLOTS],
                          const uint64_t v2[SLOTS]) {
  enum { MOST = 2 * SLOTS };
  uint64_t path[CUCKOO_MAX_KICKS]; /* the slot of each swap, in order */
  uint64_t rng = fmix64(fp ^ (i1 * 0x9E3779B97F4A7C15ULL)) | 1;
  uint64_t hand = fp;
  /* the candidates: bucket, slot's fingerprint; slot c % SLOTS */
  uint64_t from[MOST], here[MOST];
  int count = MOST;
  for (int c = 0; c < SLOTS; c++) {
    from[c] = i1, here[c] = v1[c];
    from[SLOTS + c] = i2, here[SLOTS + c] = v2[c];
  }
  for (unsigned n = 0; n < CUCKOO_MAX_KICKS; n++) {
    uint64_t alt[MOST], there[MOST][SLOTS], first[MOST];
    const unsigned char *bytes[MOST];
    for (int c = 0; c < count; c++) {
      alt[c] = alt_of(from[c], here[c], bk->shape);
      bytes[c] = at(bk, alt[c], 0, &first[c]);
      if (bytes[c] == NULL) {
        undo(bk, path, n, hand);
        return CUCKOO_UNREACHABLE;
      }
#ifdef __GNUC__
      __builtin_prefetch(bytes[c] + first[c] * bk->shape.f / 8);
#endif
    }
    for (int c = 0; c < count; c++) {
      bucket_get(bytes[c], first[c], bk->shape.f, there[c]);
      int e = empty_in(there[c]);
      if (e < SLOTS) {
        /* here[c] moves to its other bucket; the hand takes its slot */
        if (set_slot(bk, alt[c], e, here[c]) != 0 ||
            set_slot(bk, from[c], c % SLOTS, hand) != 0) {
          undo(bk, path, n, hand);
          return CUCKOO_UNREACHABLE;
        }
        return CUCKOO_OK;
      }
    }
    int j = (int)(next_random(&rng) >> (count == MOST ? 61 : 62));
    if (set_slot(bk, from[j], j % SLOTS, hand) != 0) {
      undo(bk, path, n, hand);
      return CUCKOO_UNREACHABLE;
    }
    path[n] = from[j] * SLOTS + (uint64_t)(j % SLOTS);
    hand = here[j];
    for (int c = 0; c < SLOTS; c++) from[c] = alt[j], here[c] = there[j][c];
    count = SLOTS;
  }
  undo(bk, path, CUCKOO_MAX_KICKS, hand);
  return CUCKOO_FULL;
}

/* The breadth-first search for the shortest way to make room, tried before
** the walk.  A node is a full bucket reached by moving one fingerprint:
** the item's two buckets, then the other buckets of their fingerprints,
** and so on, at most SEARCH_NODES of them (whose children are looked at:
** at most 4 moves).  The first other
** bucket found with an empty slot ends the search: the fingerprints along
** the way move one bucket each, deepest first, and the item takes the
** first one's slot.  Nothing changes until a way is found, so a search
** that finds none leaves the buckets as they were, for the walk.  A table
** near full (95% and more) would otherwise relocate along a long random
** path: in a store every relocation changes another chunk row, and at 95%
** the walk changed 7 rows an insert where the shortest ways change 2 to
** 4. */
enum { SEARCH_NODES = 2 + 8 + 32 + 128 };

typedef struct search_node {
  uint64_t bucket;
  uint64_t fp[SLOTS];
  int parent; /* -1 for the item's two buckets */
  int slot;   /* the slot of the parent whose fingerprint moves here */
} search_node;

/* 1 if bucket b is node n or one of its ancestors. */
static int on_path(const search_node *nodes, int n, uint64_t b) {
  for (; n >= 0; n = nodes[n].parent)
    if (nodes[n].bucket == b) return 1;
  return 0;
}

/* Moves along the way to node `at`'s slot s, whose fingerprint goes to
** slot e of bucket `to`: CUCKOO_OK, or CUCKOO_UNREACHABLE with every move
** undone when the accessor breaks its promise. */
static cuckoo_status move_along(const cuckoo_buckets *bk,
                                const search_node *nodes, int at, int s,
                                uint64_t to, int e, uint64_t fp) {
  uint64_t done_bucket[SEARCH_NODES + 1], done_old[SEARCH_NODES + 1];
  int done_slot[SEARCH_NODES + 1], done = 0;
  uint64_t b = to, value = nodes[at].fp[s], old = 0;
  int slot = e;
  for (;;) {
    if (set_slot(bk, b, slot, value) != 0) {
      while (done-- > 0) /* back, last first */
        set_slot(bk, done_bucket[done], done_slot[done], done_old[done]);
      return CUCKOO_UNREACHABLE;
    }
    done_bucket[done] = b, done_slot[done] = slot, done_old[done++] = old;
    if (at < 0) return CUCKOO_OK;
    /* the slot just emptied takes the fingerprint of its parent's slot, or
    ** the item's at the top */
    b = nodes[at].bucket;
    slot = s;
    old = nodes[at].fp[s];
    value = nodes[at].parent < 0 ? fp : nodes[nodes[at].parent].fp[nodes[at].slot];
    s = nodes[at].slot;
    at = nodes[at].parent;
  }
}

/* *found: 1 if a way was found and taken (the status says how taking it
** went), 0 if none within SEARCH_NODES (nothing changed). */
static cuckoo_status search(const cuckoo_buckets *bk, uint64_t fp,
                            uint64_t i1, uint64_t i2, const uint64_t v1[SLOTS],
                            const uint64_t v2[SLOTS], int *found) {
  search_node nodes[SEARCH_NODES];
  int count = 2;
  nodes[0].bucket = i1, nodes[0].parent = -1, nodes[0].slot = -1;
  nodes[1].bucket = i2, nodes[1].parent = -1, nodes[1].slot = -1;
  memcpy(nodes[0].fp, v1, sizeof nodes[0].fp);
  memcpy(nodes[1].fp, v2, sizeof nodes[1].fp);
  *found = 0;
  for (int n = 0; n < count; n++) {
    uint64_t child[SLOTS], first[SLOTS];
    const unsigned char *bytes[SLOTS];
    /* the four other buckets, asked for together */
    for (int s = 0; s < SLOTS; s++) {
      child[s] = alt_of(nodes[n].bucket, nodes[n].fp[s], bk->shape);
      bytes[s] = NULL;
      if (on_path(nodes, n, child[s])) continue;
      bytes[s] = at(bk, child[s], 0, &first[s]);
      if (bytes[s] == NULL) return CUCKOO_UNREACHABLE;
#ifdef __GNUC__
      __builtin_prefetch(bytes[s] + first[s] * bk->shape.f / 8);
#endif
    }
    for (int s = 0; s < SLOTS; s++) {
      if (bytes[s] == NULL) continue;
      uint64_t v[SLOTS];
      bucket_get(bytes[s], first[s], bk->shape.f, v);
      int e = empty_in(v);
      if (e < SLOTS) {
        *found = 1;
        return move_along(bk, nodes, n, s, child[s], e, fp);
      }
      if (count < SEARCH_NODES) {
        search_node *c = &nodes[count++];
        c->bucket = child[s], c->parent = n, c->slot = s;
        memcpy(c->fp, v, sizeof c->fp);
      }
    }
  }
  return CUCKOO_OK;
}

cuckoo_status cuckoo_buckets_insert(const cuckoo_buckets *bk, filter_hash h) {
  cuckoo_key k = key_of(h, bk->shape);
  uint64_t fp = k.fingerprint, i1 = k.bucket,
           i2 = alt_of(i1, fp, bk->shape);
  uint64_t v1[SLOTS], v2[SLOTS] = {0, 0, 0, 0};
  if (read_bucket(bk, i1, v1) != 0) return CUCKOO_UNREACHABLE;
  /* Room in the first bucket: there (it then holds at most 3 copies, so
  ** the two at most 7, below the limit), without reading the second, a
  ** cache miss saved; a build, whose hashes come sorted, reads its first
  ** buckets in order (layout 1 takes them from h1's high bits). */
  int e = empty_in(v1);
  if (e < SLOTS)
    return set_slot(bk, i1, e, fp) == 0 ? CUCKOO_OK : CUCKOO_UNREACHABLE;
  if (i2 != i1 && read_bucket(bk, i2, v2) != 0) return CUCKOO_UNREACHABLE;
  /* Both buckets full of this very fingerprint: no relocation can help
  ** (each copy can only move to the other bucket of the same pair), so
  ** say so at once instead of walking CUCKOO_MAX_KICKS steps. */
  unsigned copies = 0;
  for (int s = 0; s < SLOTS; s++)
    copies += (unsigned)(v1[s] == fp) + (unsigned)(v2[s] == fp);
  if (copies >= cuckoo_max_copies(bk->shape.buckets))
    return CUCKOO_TOO_MANY_COPIES;
  if (i2 == i1) return CUCKOO_FULL; /* one bucket: nowhere to move to */
  e = empty_in(v2);
  if (e < SLOTS)
    return set_slot(bk, i2, e, fp) == 0 ? CUCKOO_OK : CUCKOO_UNREACHABLE;
  int found;
  cuckoo_status st = search(bk, fp, i1, i2, v1, v2, &found);
  if (found || st != CUCKOO_OK) return st;
  return walk(bk, fp, i1, i2, v1, v2);
}

int cuckoo_buckets_contains(const cuckoo_buckets *bk, filter_hash h) {
  cuckoo_key k = key_of(h, bk->shape);
  int s = find(bk, k.bucket, k.fingerprint);
  if (s != SLOTS) return s < 0 ? -1 : 1;
  uint64_t i2 = alt_of(k.bucket, k.fingerprint, bk->shape);
  s = find(bk, i2, k.fingerprint);
  return s < 0 ? -1 : s < SLOTS;
}

int cuckoo_buckets_remove(const cuckoo_buckets *bk, filter_hash h) {
  cuckoo_key k = key_of(h, bk->shape);
  uint64_t b = k.bucket;
  int s = find(bk, b, k.fingerprint);
  if (s < 0) return -1;
  if (s == SLOTS) {
    b = alt_of(k.bucket, k.fingerprint, bk->shape);
    s = find(bk, b, k.fingerprint);
    if (s < 0) return -1;
    if (s == SLOTS) return 0;
  }
  uint64_t first;
  unsigned char *bytes = at(bk, b, 1, &first);
  if (bytes == NULL) return -1;
  cuckoo_slot_set(bytes, first + (uint64_t)s, bk->shape.f, 0);
  return 1;
}

/* The contiguous body: every bucket in one buffer. */
static unsigned char *locate_body(void *ctx, uint64_t bucket, int for_write,
                                  uint64_t *first_slot) {
  (void)for_write;
  *first_slot = bucket * SLOTS;
  return ctx;
}

static cuckoo_buckets body_buckets(unsigned char *body, cuckoo_shape s) {
  cuckoo_buckets bk = {locate_body, body, s};
  return bk;
}

cuckoo_status cuckoo_insert(unsigned char *body, cuckoo_shape s,
                            filter_hash h) {
  cuckoo_buckets bk = body_buckets(body, s);
  return cuckoo_buckets_insert(&bk, h);
}

/* The probes' hot path, read straight from the body: both buckets always,
** and no branch on what the first held (whether a member sits in its first
** or second bucket is a coin the branch predictor cannot call, more so in
** a full table); the two reads are independent, so their misses overlap. */
int cuckoo_contains(const unsigned char *body, cuckoo_shape s,
                    filter_hash h) {
  cuckoo_key k = key_of(h, s);
  uint64_t fp = k.fingerprint, v[SLOTS], w[SLOTS];
  uint64_t other = alt_of(k.bucket, fp, s);
  bucket_get(body, k.bucket * SLOTS, s.f, v);
  bucket_get(body, other * SLOTS, s.f, w);
  return (v[0] == fp) | (v[1] == fp) | (v[2] == fp) | (v[3] == fp) |
         (w[0] == fp) | (w[1] == fp) | (w[2] == fp) | (w[3] == fp);
}

int cuckoo_remove(unsigned char *body, cuckoo_shape s, filter_hash h) {
  cuckoo_buckets bk = body_buckets(body, s);
  return cuckoo_buckets_remove(&bk, h);
}

double cuckoo_model_fpr(double load, unsigned f, uint64_t buckets) {
  if (!(load > 0.0)) return 0.0;
  double compared = (double)cuckoo_max_copies(buckets) * load;
  double one = 1.0 / (ldexp(1.0, (int)f) - 1.0);
  /* 1 - (1 - one)^compared, accurate when one is tiny. */
  return -expm1(compared * log1p(-one));
}

uint64_t cuckoo_body_bytes(uint64_t buckets, unsigned f) {
  return buckets < 2 ? (SLOTS * (uint64_t)f + 7) / 8 : buckets / 2 * f;
}

uint64_t cuckoo_sized_items(uint64_t buckets, unsigned layout) {
  double slots = SLOTS * (double)buckets;
  double load = CUCKOO_MAX_LOAD;
  /* With one or two buckets every item may use every slot: no luck is
  ** involved.  Beyond, the fill at first failure varies by ~1/sqrt(slots);
  ** more in layout 1, whose bucket pairs are half as many (an even bucket
  ** with an odd one). */
  double spread = layout == CUCKOO_LAYOUT_SUB ? 2.6 : 2.0;
  if (buckets > 2 && 1.0 - spread / sqrt(slots) < load)
    load = 1.0 - spread / sqrt(slots);
  return (uint64_t)floor(slots * load);
}

/* Sizes for n items in the fewest buckets; f for the filter's load at n
** items, or with every slot full (fill_slots: a filter that takes items
** until one is refused). */
static cuckoo_sizing_status size_for(uint64_t n, double p, double min_fpr,
                                 uint64_t max_bytes, int fill_slots,
                                 unsigned layout, cuckoo_sizing *sizing) {
  if (n < 1 || n > (uint64_t)INT64_MAX) return CUCKOO_SIZING_BAD_N;
  if (!(p >= min_fpr && p < 1.0)) return CUCKOO_SIZING_BAD_P;
  uint64_t buckets;
  if (layout == CUCKOO_LAYOUT_SUB) {
    /* The fewest buckets, an even number, that hold n: 2 for up to 7,
    ** otherwise by bisection over half the count from 4 buckets on, where
    ** cuckoo_sized_items never decreases (5, 11, 17, 23, ...). */
    uint64_t lo = 1, hi = (uint64_t)1 << 60;
    if (n > cuckoo_sized_items(2 * hi, layout)) return CUCKOO_SIZING_TOO_BIG;
    if (n <= cuckoo_sized_items(2, layout)) hi = 1;
    while (hi - lo > 1) {
      uint64_t mid = lo + (hi - lo) / 2;
      if (n <= cuckoo_sized_items(2 * mid, layout))
        hi = mid;
      else
        lo = mid;
    }
    buckets = 2 * hi;
  } else {
    /* Layout 0: the fewest buckets, a power of two, that hold n (only a
    ** store that began with layout 0 still adds such layers). */
    buckets = 1;
    while (n > cuckoo_sized_items(buckets, layout)) {
      if (buckets >= (uint64_t)1 << 61) return CUCKOO_SIZING_TOO_BIG;
      buckets <<= 1;
    }
  }
  if (fill_slots) n = cuckoo_sized_items(buckets, layout);
  double load = fill_slots ? 1.0 : (double)n / (SLOTS * (double)buckets);
  /* The narrowest fingerprint meeting the target at that load.  Every p in
  ** [1e-12, 1) is met by some f <= 64: at f = 64 the rate is ~4e-19. */
  unsigned f = CUCKOO_MIN_FINGERPRINT_BITS;
  double rate = cuckoo_model_fpr(load, f, buckets);
  while (!(rate <= p * CUCKOO_SIZING_MARGIN) &&
         f < CUCKOO_MAX_FINGERPRINT_BITS) {
    f++;
    rate = cuckoo_model_fpr(load, f, buckets);
  }
  if (!(rate <= p * CUCKOO_SIZING_MARGIN)) return CUCKOO_SIZING_BAD_P;
  /* buckets / 2 * f + 64 must fit in 64 bits before it is compared. */
  if (buckets / 2 > (UINT64_MAX - FILTER_HEADER_BYTES) / f)
    return CUCKOO_SIZING_TOO_BIG;
  uint64_t bytes = FILTER_HEADER_BYTES + cuckoo_body_bytes(buckets, f);
  if (bytes > max_bytes) return CUCKOO_SIZING_TOO_BIG;
  sizing->capacity = n;
  sizing->target_fpr = p;
  sizing->buckets = buckets;
  sizing->fingerprint_bits = f;
  sizing->layout = layout;
  sizing->bytes = bytes;
  sizing->expected_fpr = rate;
  return CUCKOO_SIZING_OK;
}

cuckoo_sizing_status cuckoo_sizing_for(uint64_t n, double p, double min_fpr,
                                   uint64_t max_bytes, cuckoo_sizing *sizing) {
  return size_for(n, p, min_fpr, max_bytes, 0, CUCKOO_LAYOUT_SUB, sizing);
}

cuckoo_sizing_status cuckoo_sizing_for_layout(uint64_t n, double p,
                                              double min_fpr,
                                              uint64_t max_bytes,
                                              unsigned layout,
                                              cuckoo_sizing *sizing) {
  return size_for(n, p, min_fpr, max_bytes, 0, layout, sizing);
}

cuckoo_sizing_status cuckoo_sizing_filled_for(uint64_t n, double p,
                                              double min_fpr, uint64_t max_bytes,
                                              unsigned layout,
                                              cuckoo_sizing *sizing) {
  return size_for(n, p, min_fpr, max_bytes, 1, layout, sizing);
}

filter_header cuckoo_header_for(const cuckoo_sizing *sizing) {
  filter_header h =
      filter_header_new(FILTER_KIND_CUCKOO, sizing->capacity, sizing->target_fpr);
  h.fingerprint_bits = sizing->fingerprint_bits;
  h.slots_per_bucket = SLOTS;
  h.buckets = sizing->buckets;
  h.cuckoo_layout = sizing->layout;
  return h;
}

void cuckoo_write_empty(unsigned char *dst, const cuckoo_sizing *sizing) {
  filter_header h = cuckoo_header_for(sizing);
  filter_write_header(dst, &h);
  /* dst holds sizing->bytes bytes, so the count fits a size_t (32 bits on
  ** wasm32). */
  memset(dst + FILTER_HEADER_BYTES, 0, (size_t)(sizing->bytes - FILTER_HEADER_BYTES));
}

void cuckoo_insert_failure(cuckoo_status st, uint64_t buckets, uint64_t items,
                           char *out, size_t size) {
  char count[64] = "";
  if (st == CUCKOO_TOO_MANY_COPIES) {
    snprintf(out, size, "the value does not fit: its two buckets already "
             "hold %u copies of its fingerprint, the most a filter holds",
             cuckoo_max_copies(buckets));
  } else if (st == CUCKOO_FULL && buckets == 1) {
    /* no other bucket to relocate to */
    if (items != UINT64_MAX)
      snprintf(count, sizeof count, " %llu items", (unsigned long long)items);
    snprintf(out, size, "the filter is full: its one bucket holds%s",
             items != UINT64_MAX ? count : " 4 items");
  } else if (st == CUCKOO_FULL) {
    if (items != UINT64_MAX)
      snprintf(count, sizeof count, "%llu items in ", (unsigned long long)items);
    snprintf(out, size, "the filter is full: no room for the value after %d "
             "relocations (%s%llu slots)", CUCKOO_MAX_KICKS, count,
             (unsigned long long)(buckets * SLOTS));
  } else {
    snprintf(out, size, "a bucket could not be read");
  }
}
