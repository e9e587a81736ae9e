/*
** counting.c -- what a counting Bloom filter would cost, beside the
** extension's cuckoo filter, for a filter that must support deletion.
** Bench only: the counting filter lives here, never in ext/.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   build/bench/counting          (make bench-counting; make bench runs it)
**   env: BENCH_ROUNDS (default 5), BENCH_COUNTING_N (items, a comma-separated
**        list; default 10000,100000,1000000,3000000,10000000)
**
** The counting filter keeps the extension's Bloom layout and swaps each bit
** for a 4-bit counter: a 64-byte block (one cache line) holds 128 counters,
** counter c in byte c/2 (low nibble for even c).  An item picks its block
** as the Bloom filter does, floor(h1 * blocks / 2^64), and k counters in it
** from 7-bit chunks of h1 + j*h2 (nine chunks per word), so insert, probe
** and delete each touch one cache line, as a Bloom probe does.  Four bits
** because that is the classic choice (Fan et al., Summary Cache): a counter
** past 15 is rare at the design load.  Keeping 512 counters per block
** would need two lines per block; 128 counters in one line keeps the one
** miss per operation, at the price of more items per position, which
** the sizing below accounts for.
**
** Sizing: the fewest blocks, at the best k, whose model rate at n items is
** at most 0.97 p (the extension's margin).  The model is exact for
** independent uniform positions: a block takes i items with Poisson
** probability, i.e. t = i*k increments; the number X of non-zero counters
** after t increments follows from a recurrence, and a probe of k positions
** all non-zero has probability (X/128)^k.
**
** Overflow: a counter that reaches 15 saturates and from then on is never
** decremented (its true count is unknown), so it is stuck non-zero.  Delete
** first checks that all k counters are non-zero (as cuckoo_remove first
** finds the fingerprint) and refuses otherwise; a delete that passes that
** check for an item never added (a false positive) decrements other items'
** counters and can make them test negative.
**
** Timing: hashes are computed beforehand (the same filter_hash for every
** kind), so ns/op is the filter operation alone, in a loop of independent
** operations (misses of consecutive operations may overlap), median over
** rounds; probes are half members, half absent, shuffled.  Delete removes
** half the members in random order from a fresh copy of the built filter.
*/
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/bloom.h"
#include "core/cuckoo.h"
#include "core/hash.h"

#define MAX_ROUNDS 50
#define BLOCK_COUNTERS 128
#define COUNTER_MAX 15
#define MARGIN 0.97
#define ABSENT_BASE 4000000000000LL
#define NONMEMBER_DELETES 1000

static int rounds = 5;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *xalloc(size_t bytes) {
  void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (p == NULL) {
    fprintf(stderr, "counting: out of memory (%zu bytes)\n", bytes);
    exit(2);
  }
  memset(p, 0, (bytes + 63) / 64 * 64);
  return p;
}

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static void shuffle(filter_hash *a, size_t n, uint64_t seed) {
  for (size_t i = n; i > 1; i--) {
    size_t j = (size_t)(splitmix64(&seed) % i);
    filter_hash t = a[i - 1];
    a[i - 1] = a[j];
    a[j] = t;
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  double s[MAX_ROUNDS];
  memcpy(s, v, sizeof(double) * (size_t)n);
  qsort(s, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* ------------------------------------------------ counting Bloom filter */

typedef struct counting {
  unsigned char *body;
  uint64_t blocks;
  unsigned k;
} counting;

static inline unsigned char *block_of(const counting *c, filter_hash h) {
  return c->body +
         (uint64_t)(((unsigned __int128)h.h1 * c->blocks) >> 64) * 64;
}

/* The k counter indices of h, 7 bits each. */
static inline void positions(const counting *c, filter_hash h, unsigned *pos) {
  unsigned i = 0;
  for (uint64_t j = 1; i < c->k; j++) {
    uint64_t w = h.h1 + j * h.h2;
    for (unsigned chunk = 0; chunk < 9 && i < c->k; chunk++, w >>= 7)
      pos[i++] = (unsigned)(w & 127);
  }
}

static inline unsigned get(const unsigned char *blk, unsigned pos) {
  return (blk[pos >> 1] >> ((pos & 1) * 4)) & 15;
}

static inline void put(unsigned char *blk, unsigned pos, unsigned v) {
  unsigned shift = (pos & 1) * 4;
  blk[pos >> 1] = (unsigned char)((blk[pos >> 1] & ~(15u << shift)) | (v << shift));
}

static void counting_insert(counting *c, filter_hash h) {
  unsigned pos[64];
  unsigned char *blk = block_of(c, h);
  positions(c, h, pos);
  for (unsigned i = 0; i < c->k; i++) {
    unsigned v = get(blk, pos[i]);
    if (v < COUNTER_MAX) put(blk, pos[i], v + 1); /* at 15 it stays: stuck */
  }
}

static int counting_contains(const counting *c, filter_hash h) {
  const unsigned char *blk = block_of(c, h);
  unsigned i = 0;
  for (uint64_t j = 1; i < c->k; j++) {
    uint64_t w = h.h1 + j * h.h2;
    for (unsigned chunk = 0; chunk < 9 && i < c->k; chunk++, w >>= 7, i++)
      if (get(blk, (unsigned)(w & 127)) == 0) return 0;
  }
  return 1;
}

/* 1 if removed; 0 if a counter was zero (not present: nothing changes). */
static int counting_remove(counting *c, filter_hash h) {
  unsigned pos[64];
  unsigned char *blk = block_of(c, h);
  positions(c, h, pos);
  for (unsigned i = 0; i < c->k; i++)
    if (get(blk, pos[i]) == 0) return 0;
  for (unsigned i = 0; i < c->k; i++) {
    unsigned v = get(blk, pos[i]);
    if (v < COUNTER_MAX) put(blk, pos[i], v - 1);
  }
  return 1;
}

static uint64_t counters_at(const counting *c, unsigned value) {
  uint64_t at = 0;
  for (uint64_t b = 0; b < c->blocks; b++)
    for (unsigned p = 0; p < BLOCK_COUNTERS; p++)
      at += get(c->body + b * 64, p) == value;
  return at;
}

/* Model rate of `blocks` blocks holding n items with k counters each. */
static double counting_model(double n, uint64_t blocks, unsigned k) {
  double lambda = n / (double)blocks;
  unsigned imax = (unsigned)(lambda + 12 * sqrt(lambda) + 30);
  unsigned tmax = imax * k;
  /* occ[x]: chance that x of the 128 counters are non-zero after t
  ** increments at uniform positions. */
  double occ[BLOCK_COUNTERS + 1] = {1.0}, next[BLOCK_COUNTERS + 1];
  double rate = 0, pois = exp(-lambda);
  unsigned i = 0;
  for (unsigned t = 0; t <= tmax; t++) {
    if (t == i * k) {
      double hit = 0;
      for (unsigned x = 1; x <= BLOCK_COUNTERS; x++)
        hit += occ[x] * pow((double)x / BLOCK_COUNTERS, (double)k);
      rate += pois * hit;
      i++;
      pois *= lambda / (double)i;
    }
    for (unsigned x = 0; x <= BLOCK_COUNTERS; x++) {
      double stay = occ[x] * (double)x / BLOCK_COUNTERS;
      double grow = x ? occ[x - 1] * (double)(BLOCK_COUNTERS - x + 1) / BLOCK_COUNTERS : 0;
      next[x] = stay + grow;
    }
    memcpy(occ, next, sizeof occ);
  }
  return rate;
}

static double best_k(double n, uint64_t blocks, unsigned *k_out) {
  double best = 2;
  for (unsigned k = 1; k <= 24; k++) {
    double r = counting_model(n, blocks, k);
    if (r < best) { best = r; *k_out = k; }
  }
  return best;
}

/* The fewest blocks meeting MARGIN * p at n items (binary search: the best
** rate falls as blocks grow). */
static double counting_sizing(uint64_t n, double p, uint64_t *blocks, unsigned *k) {
  /* Start at 64 items per block (far above any p worth asking for), so the
  ** model never sums a huge Poisson. */
  uint64_t lo = n / 64 > 1 ? n / 64 : 1, hi = lo;
  unsigned kk = 1;
  while (best_k((double)n, hi, &kk) > MARGIN * p) { lo = hi + 1; hi *= 2; }
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (best_k((double)n, mid, &kk) <= MARGIN * p) hi = mid; else lo = mid + 1;
  }
  *blocks = hi;
  return best_k((double)n, hi, k);
}

/* ------------------------------------------------------ the three kinds */

enum { COUNTING, CUCKOO, BLOOM, NKINDS };
static const char *const KIND_NAMES[NKINDS] = {
    "counting Bloom, 4-bit", "cuckoo (extension)", "Bloom (extension, no delete)"};

typedef struct kind {
  counting cb;            /* COUNTING */
  cuckoo_shape shape;     /* CUCKOO */
  uint64_t bloom_blocks;  /* BLOOM */
  unsigned bloom_k;
  unsigned char *body;
  size_t bytes;
  double model_fpr;
} kind;

static void k_insert(int which, kind *s, unsigned char *body, filter_hash h,
                     uint64_t *failed) {
  switch (which) {
  case COUNTING: {
    counting c = s->cb;
    c.body = body;
    counting_insert(&c, h);
    break;
  }
  case CUCKOO:
    if (cuckoo_insert(body, s->shape, h) != CUCKOO_OK) ++*failed;
    break;
  default:
    bloom_insert(body, s->bloom_blocks, s->bloom_k, h);
  }
}

static int k_contains(int which, const kind *s, const unsigned char *body,
                      filter_hash h) {
  switch (which) {
  case COUNTING: {
    counting c = s->cb;
    c.body = (unsigned char *)body;
    return counting_contains(&c, h);
  }
  case CUCKOO:
    return cuckoo_contains(body, s->shape, h);
  default:
    return bloom_contains(body, s->bloom_blocks, s->bloom_k, h);
  }
}

static int k_remove(int which, kind *s, unsigned char *body, filter_hash h) {
  if (which == COUNTING) {
    counting c = s->cb;
    c.body = body;
    return counting_remove(&c, h);
  }
  return cuckoo_remove(body, s->shape, h);
}

typedef struct result {
  double bits_per_item, model_fpr, fpr;
  double insert_ns[MAX_ROUNDS], probe_ns[MAX_ROUNDS], delete_ns[MAX_ROUNDS];
  uint64_t insert_failed, fneg_after_delete, stuck, fp_deleted, fneg_nonmember;
  uint64_t absent;
  size_t bytes;
} result;

static void run_one(uint64_t n, double p, result res[NKINDS], double *hash_ns) {
  kind s[NKINDS];
  memset(s, 0, sizeof s);
  /* Sizing. */
  s[COUNTING].model_fpr =
      counting_sizing(n, p, &s[COUNTING].cb.blocks, &s[COUNTING].cb.k);
  s[COUNTING].bytes = (size_t)s[COUNTING].cb.blocks * 64;
  cuckoo_sizing cp;
  if (cuckoo_sizing_for(n, p, FILTER_MIN_FPR, UINT64_MAX, &cp) != CUCKOO_SIZING_OK) {
    fprintf(stderr, "counting: no cuckoo sizing\n");
    exit(2);
  }
  s[CUCKOO].shape = cuckoo_shape_of_sizing(&cp);
  s[CUCKOO].bytes = (size_t)cuckoo_body_bytes(cp.buckets, cp.fingerprint_bits);
  s[CUCKOO].model_fpr = cp.expected_fpr;
  bloom_sizing bp;
  if (bloom_sizing_for(n, p, UINT64_MAX, &bp) != BLOOM_SIZING_OK) {
    fprintf(stderr, "counting: no Bloom sizing\n");
    exit(2);
  }
  s[BLOOM].bloom_blocks = bp.bits / 512;
  s[BLOOM].bloom_k = bp.hashes;
  s[BLOOM].bytes = (size_t)(bp.bits / 8);
  s[BLOOM].model_fpr = bp.expected_fpr;

  /* Hashes: members 1..n, absent values far above; the probe mix. */
  uint64_t n_absent = p < 0.005 ? 4 * n : 2 * n;
  if (n_absent < 2000000) n_absent = 2000000;
  filter_hash *mem = malloc(n * sizeof *mem), *abs_h = malloc(n_absent * sizeof *abs_h);
  filter_hash *mix = malloc(2 * n * sizeof *mix);
  if (!mem || !abs_h || !mix) { fprintf(stderr, "counting: out of memory\n"); exit(2); }
  for (uint64_t i = 0; i < n; i++) mem[i] = filter_hash_integer((int64_t)i + 1, 0);
  /* Timed again once the array's pages are in. */
  double t0 = now_ns();
  for (uint64_t i = 0; i < n; i++) mem[i] = filter_hash_integer((int64_t)i + 1, 0);
  *hash_ns = (now_ns() - t0) / (double)n;
  for (uint64_t i = 0; i < n_absent; i++)
    abs_h[i] = filter_hash_integer(ABSENT_BASE + (int64_t)i, 0);
  for (uint64_t i = 0; i < n; i++) { mix[2 * i] = mem[i]; mix[2 * i + 1] = abs_h[i]; }
  shuffle(mix, 2 * n, 20261123);
  filter_hash *del = malloc(n * sizeof *del);
  if (!del) { fprintf(stderr, "counting: out of memory\n"); exit(2); }
  memcpy(del, mem, n * sizeof *del);
  shuffle(del, n, 20261124);

  for (int w = 0; w < NKINDS; w++) {
    s[w].body = xalloc(s[w].bytes);
    res[w].bytes = s[w].bytes;
    res[w].bits_per_item = 8.0 * (double)s[w].bytes / (double)n;
    res[w].model_fpr = s[w].model_fpr;
  }
  size_t most = 0;
  for (int w = 0; w < NKINDS; w++) {
    if (s[w].bytes > most) most = s[w].bytes;
    res[w].absent = n_absent;
  }
  unsigned char *work = xalloc(most);

  volatile uint64_t sink = 0;
  for (int r = 0; r < rounds; r++) {
    for (int j = 0; j < NKINDS; j++) {
      int w = (j + r) % NKINDS;
      /* Insert (into the work copy, from empty), timed; the first round's
      ** result becomes the filter the others measure. */
      memset(work, 0, s[w].bytes);
      uint64_t failed = 0;
      double a = now_ns();
      for (uint64_t i = 0; i < n; i++) k_insert(w, &s[w], work, mem[i], &failed);
      res[w].insert_ns[r] = (now_ns() - a) / (double)n;
      if (r == 0) {
        memcpy(s[w].body, work, s[w].bytes);
        res[w].insert_failed = failed;
      }
      /* Probe: half members, half absent. */
      uint64_t hits = 0;
      a = now_ns();
      for (uint64_t i = 0; i < 2 * n; i++) hits += (uint64_t)k_contains(w, &s[w], s[w].body, mix[i]);
      res[w].probe_ns[r] = (now_ns() - a) / (double)(2 * n);
      sink ^= hits;
      /* Delete half the members from a fresh copy. */
      if (w != BLOOM) {
        memcpy(work, s[w].body, s[w].bytes);
        uint64_t removed = 0;
        a = now_ns();
        for (uint64_t i = 0; i < n / 2; i++) removed += (uint64_t)k_remove(w, &s[w], work, del[i]);
        res[w].delete_ns[r] = (now_ns() - a) / (double)(n / 2);
        if (removed != n / 2) {
          fprintf(stderr, "counting: %s removed %llu of %llu members\n",
                  KIND_NAMES[w], (unsigned long long)removed,
                  (unsigned long long)(n / 2));
          exit(1);
        }
        if (r == 0) {
          uint64_t fn = 0;
          for (uint64_t i = n / 2; i < n; i++) fn += !k_contains(w, &s[w], work, del[i]);
          res[w].fneg_after_delete = fn;
        }
      }
    }
  }

  for (int w = 0; w < NKINDS; w++) {
    uint64_t fp = 0, fn = 0;
    for (uint64_t i = 0; i < n; i++) fn += !k_contains(w, &s[w], s[w].body, mem[i]);
    if (fn != 0 && res[w].insert_failed == 0) {
      fprintf(stderr, "counting: %s has %llu false negatives\n", KIND_NAMES[w],
              (unsigned long long)fn);
      exit(1);
    }
    for (uint64_t i = 0; i < n_absent; i++) fp += (uint64_t)k_contains(w, &s[w], s[w].body, abs_h[i]);
    res[w].fpr = (double)fp / (double)n_absent;
    if (w == BLOOM) continue;
    /* Deleting non-members: only those that pass the presence check (false
    ** positives) change anything.  Count members lost. */
    memcpy(work, s[w].body, s[w].bytes);
    uint64_t deleted = 0;
    for (uint64_t i = 0; i < n_absent && deleted < NONMEMBER_DELETES; i++)
      deleted += (uint64_t)k_remove(w, &s[w], work, abs_h[i]);
    res[w].fp_deleted = deleted;
    fn = 0;
    for (uint64_t i = 0; i < n; i++) fn += !k_contains(w, &s[w], work, mem[i]);
    res[w].fneg_nonmember = fn;
  }
  counting c0 = s[COUNTING].cb;
  c0.body = s[COUNTING].body;
  res[COUNTING].stuck = counters_at(&c0, COUNTER_MAX);

  for (int w = 0; w < NKINDS; w++) free(s[w].body);
  free(work);
  free(mem);
  free(abs_h);
  free(mix);
  free(del);
  (void)sink;
}

/* One item added `times` times, then removed as often, into an empty filter
** of the sizing's shape: what a multiset does to each kind. */
static void repeats(uint64_t n, double p, int times) {
  uint64_t blocks;
  unsigned k;
  counting_sizing(n, p, &blocks, &k);
  counting c = {xalloc((size_t)blocks * 64), blocks, k};
  filter_hash h = filter_hash_integer(42, 0);
  for (int i = 0; i < times; i++) counting_insert(&c, h);
  int removed = 0;
  for (int i = 0; i < times; i++) removed += counting_remove(&c, h);
  uint64_t stuck = counters_at(&c, COUNTER_MAX);
  printf("- counting Bloom: one item added %d times: %llu counter(s) reach 15 "
         "and stick; %d removes succeed, and the item still tests %d (its "
         "counters never return to 0: a permanent false positive in that "
         "block).\n",
         times, (unsigned long long)stuck, removed, counting_contains(&c, h));
  free(c.body);

  cuckoo_sizing cp;
  cuckoo_sizing_for(n, p, FILTER_MIN_FPR, UINT64_MAX, &cp);
  unsigned char *body = xalloc((size_t)cuckoo_body_bytes(cp.buckets, cp.fingerprint_bits));
  int added = 0;
  cuckoo_status st = CUCKOO_OK;
  for (int i = 0; i < times; i++) {
    st = cuckoo_insert(body, cuckoo_shape_of_sizing(&cp), h);
    if (st != CUCKOO_OK) break;
    added++;
  }
  removed = 0;
  for (int i = 0; i < times; i++)
    removed += cuckoo_remove(body, cuckoo_shape_of_sizing(&cp), h);
  printf("- cuckoo: the same item: %d copies accepted, the next add refused "
         "(%s); %d removes succeed and it then tests %d.\n",
         added,
         st == CUCKOO_TOO_MANY_COPIES ? "too many copies"
         : st == CUCKOO_FULL          ? "full"
                                      : "none refused",
         removed, cuckoo_contains(body, cuckoo_shape_of_sizing(&cp), h));
  free(body);
}

/* Bits per item and measured rate over the sizes reported: least, most. */
static double span[2][NKINDS][2][2]; /* [p][kind][bits, rate][lo, hi] */
static int spans;

static void report(uint64_t n) {
  static const double PS[2] = {0.01, 0.001};
  result res[2][NKINDS];
  double hash_ns[2];
  memset(res, 0, sizeof res);
  for (int pi = 0; pi < 2; pi++) run_one(n, PS[pi], res[pi], &hash_ns[pi]);
  for (int pi = 0; pi < 2; pi++)
    for (int w = 0; w < NKINDS; w++) {
      double v[2] = {res[pi][w].bits_per_item, res[pi][w].fpr};
      for (int k = 0; k < 2; k++) {
        if (spans == 0 || v[k] < span[pi][w][k][0]) span[pi][w][k][0] = v[k];
        if (spans == 0 || v[k] > span[pi][w][k][1]) span[pi][w][k][1] = v[k];
      }
    }
  spans++;

  printf("\n#### n = %llu items (hashing a value, not included: %.1f ns)\n\n",
         (unsigned long long)n, hash_ns[0]);
  printf("| p     | kind                         | bytes    | bits/item | model FPR "
         "| measured FPR | insert ns | probe ns | delete ns | FN after delete |\n");
  printf("|-------|------------------------------|----------|-----------|-----------"
         "|--------------|-----------|----------|-----------|-----------------|\n");
  for (int pi = 0; pi < 2; pi++)
    for (int w = 0; w < NKINDS; w++) {
      result *x = &res[pi][w];
      char del_ns[32], fn[32];
      if (w == BLOOM) {
        snprintf(del_ns, sizeof del_ns, "-");
        snprintf(fn, sizeof fn, "-");
      } else {
        snprintf(del_ns, sizeof del_ns, "%.1f", median(x->delete_ns, rounds));
        snprintf(fn, sizeof fn, "%llu", (unsigned long long)x->fneg_after_delete);
      }
      printf("| %-5s | %-28s | %5.2f MB | %9.2f | %8.4f%% | %11.4f%% | %9.1f "
             "| %8.1f | %9s | %15s |\n",
             pi ? "0.001" : "0.01", KIND_NAMES[w], (double)x->bytes / 1048576.0,
             x->bits_per_item, 100 * x->model_fpr, 100 * x->fpr,
             median(x->insert_ns, rounds), median(x->probe_ns, rounds), del_ns, fn);
    }
  printf("\nFPR over %llu absent values at 1%%, %llu at 0.1%%.  Counting / "
         "cuckoo: bits/item %.2fx at 1%% and %.2fx at 0.1%%; probe %.2fx and "
         "%.2fx; delete %.2fx and %.2fx.\n",
         (unsigned long long)res[0][0].absent, (unsigned long long)res[1][0].absent,
         res[0][COUNTING].bits_per_item / res[0][CUCKOO].bits_per_item,
         res[1][COUNTING].bits_per_item / res[1][CUCKOO].bits_per_item,
         median(res[0][COUNTING].probe_ns, rounds) / median(res[0][CUCKOO].probe_ns, rounds),
         median(res[1][COUNTING].probe_ns, rounds) / median(res[1][CUCKOO].probe_ns, rounds),
         median(res[0][COUNTING].delete_ns, rounds) / median(res[0][CUCKOO].delete_ns, rounds),
         median(res[1][COUNTING].delete_ns, rounds) / median(res[1][CUCKOO].delete_ns, rounds));
  for (int pi = 0; pi < 2; pi++)
    printf("p = %s: %llu counter(s) at 15 (stuck) in the counting filter at n "
           "items; cuckoo inserts refused: %llu.  Deleting %llu non-members "
           "that test positive (false positives) made %llu member(s) test "
           "negative in the counting filter; %llu such deletes in the cuckoo "
           "filter made %llu.\n",
           pi ? "0.001" : "0.01", (unsigned long long)res[pi][COUNTING].stuck,
           (unsigned long long)res[pi][CUCKOO].insert_failed,
           (unsigned long long)res[pi][COUNTING].fp_deleted,
           (unsigned long long)res[pi][COUNTING].fneg_nonmember,
           (unsigned long long)res[pi][CUCKOO].fp_deleted,
           (unsigned long long)res[pi][CUCKOO].fneg_nonmember);
}

int main(void) {
  if (getenv("BENCH_ROUNDS")) rounds = atoi(getenv("BENCH_ROUNDS"));
  if (rounds < 1 || rounds > MAX_ROUNDS) rounds = 5;
  /* By default a range of n, log-spaced: the cuckoo filter's size per item
  ** no longer depends on where n falls between powers of two. */
  uint64_t ns[8];
  int nn = 0;
  const char *env = getenv("BENCH_COUNTING_N");
  if (env) {
    for (const char *q = env; *q && nn < 8;) {
      char *end;
      uint64_t v = strtoull(q, &end, 10);
      if (end == q) break;
      ns[nn++] = v < 1000 ? 1000 : v;
      q = *end == ',' ? end + 1 : end;
    }
  }
  if (nn == 0) {
    const uint64_t range[] = {10000, 100000, 1000000, 3000000, 10000000};
    for (size_t i = 0; i < sizeof range / sizeof range[0]; i++)
      ns[nn++] = range[i];
  }
  printf("\n### Deletion: counting Bloom filter vs the extension's cuckoo filter "
         "(C, outside SQLite)\n\n");
  printf("ns/op = median over %d rounds of a loop of independent operations on "
         "precomputed hashes; probes are half members, half absent; delete "
         "removes half the members (FN after delete: members left that test "
         "negative).  Counting filter: 4-bit counters, 128 to a 64-byte block, "
         "k of them in one block per item, sized by its own model to 0.97 p.\n",
         rounds);
  for (int i = 0; i < nn; i++) report(ns[i]);
  printf("\nOver the %d sizes, least .. most:\n\n| p | kind | bits/item | "
         "measured FPR |\n|---|---|---:|---:|\n", spans);
  for (int pi = 0; pi < 2; pi++)
    for (int w = 0; w < NKINDS; w++)
      printf("| %s | %s | %.2f .. %.2f | %.4f%% .. %.4f%% |\n",
             pi ? "0.001" : "0.01", KIND_NAMES[w], span[pi][w][0][0],
             span[pi][w][0][1], 100 * span[pi][w][1][0],
             100 * span[pi][w][1][1]);
  printf("\nWhat can go wrong:\n");
  repeats(ns[0], 0.01, 20);
  printf("- Deleting a non-member that tests negative changes nothing in either "
         "kind (both check first); without that check a counting filter would "
         "decrement other items' counters.\n");
  return 0;
}
