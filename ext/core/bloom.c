/*
** Bloom filter core: sizing by the blocked filter's own false-positive
** model, the one-cache-line bit layout, and statistics.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Why blocked: a probe of a classic Bloom filter touches k random cache
** lines; out of cache that is k DRAM misses.  Here every item lives in one
** 512-bit block, so a probe costs one miss.  The price is a few percent more
** bits at p >= 0.1% (the sizing below pays it so the rate still meets p).
*/
#include "core/bloom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t bloom_block_of(filter_hash h, uint64_t blocks) {
  return mul_high64(h.h1, blocks);
}

/* The bit positions of an item inside its block.  Position i is the 9-bit
** chunk i % 7 (low chunk first) of the word w_j = h1 + j*h2 (mod 2^64) with
** j = i / 7 + 1: Kirsch-Mitzenmacher double hashing makes the words, and
** the chunking makes every position depend on different hash bits.  (The
** top 9 bits of h1 + i*h2 would be an arithmetic progression mod 512: only
** a few hundred distinct patterns per block, and triple the false
** positives.) */
#define BLOOM_CHUNKS_PER_WORD 7
_Static_assert(BLOOM_CHUNKS_PER_WORD == 7,
               "bloom_insert and bloom_contains unroll 7 chunks");

/* Sets bit c mod 512 of the block (only c's low 9 bits count), in its
** little-endian 64-bit word as chunk_is_set below reads it. */
static inline void set_chunk(unsigned char *block, uint64_t c) {
  unsigned char *word = block + ((c >> 6) & 7) * 8;
  store_le64(word, load_le64(word) | (uint64_t)1 << (c & 63));
}

/* Each bit set in its little-endian 64-bit word and a whole word's 7
** chunks unrolled, as bloom_contains tests them: 69 instructions an insert
** at k = 6 under callgrind, where a loop over bytes took 111 (the same
** bits: a filter's bytes do not change). */
void bloom_insert(unsigned char *bits, uint64_t blocks, unsigned k,
                  filter_hash h) {
  unsigned char *block = bits + bloom_block_of(h, blocks) * BLOOM_BLOCK_BYTES;
  uint64_t word = h.h1;
  unsigned left = k;
  for (; left >= BLOOM_CHUNKS_PER_WORD; left -= BLOOM_CHUNKS_PER_WORD) {
    word += h.h2;
    uint64_t w = word;
    set_chunk(block, w);
    set_chunk(block, w >> 9);
    set_chunk(block, w >> 18);
    set_chunk(block, w >> 27);
    set_chunk(block, w >> 36);
    set_chunk(block, w >> 45);
    set_chunk(block, w >> 54);
  }
  /* The first `left` chunks of the next word: every bit of an item at
  ** k < 7 (k is 6 at p = 1%).  k is the filter's, so each test goes the
  ** same way on every insert. */
  uint64_t w = word + h.h2;
  if (left > 0) set_chunk(block, w);
  if (left > 1) set_chunk(block, w >> 9);
  if (left > 2) set_chunk(block, w >> 18);
  if (left > 3) set_chunk(block, w >> 27);
  if (left > 4) set_chunk(block, w >> 36);
  if (left > 5) set_chunk(block, w >> 45);
}

void bloom_lagged_init(bloom_lagged *in, unsigned char *bits, uint64_t blocks,
                       unsigned k) {
  memset(in, 0, sizeof *in);
  in->bits = bits;
  in->blocks = blocks;
  in->k = k;
}

void bloom_lagged_flush(bloom_lagged *in) {
  for (unsigned i = 0; i < in->pending; i++)
    bloom_insert(in->bits, in->blocks, in->k, in->waiting[i]);
  in->pending = 0;
  in->next = 0;
}

/* No early exit: a branch on each bit would make the CPU wait for this
** block's cache miss before it could start the next row's, and an
** out-of-cache probe (the 10M-item lines of `make bench`) would cost about
** half as much again.  A whole word's 7 chunks are unrolled (k is 7 at
** p = 1%, so one word is the common case), and each bit is tested in its
** little-endian 64-bit word: bit b of a block is bit b % 64 of word b / 64,
** the same bit as bit b % 8 of byte b / 8, and the shift needs no mask
** (callgrind: about 77 instructions a probe at k = 7, against 130 for a
** loop over bytes). */

/* Bit 0 is the block's bit c mod 512 (only c's low 9 bits count). */
static inline uint64_t chunk_is_set(const unsigned char *block, uint64_t c) {
  return load_le64(block + ((c >> 6) & 7) * 8) >> (c & 63);
}

int bloom_contains(const unsigned char *bits, uint64_t blocks, unsigned k,
                   filter_hash h) {
  const unsigned char *block =
      bits + bloom_block_of(h, blocks) * BLOOM_BLOCK_BYTES;
  uint64_t word = h.h1;
  uint64_t all = 1;
  unsigned left = k;
  for (; left >= BLOOM_CHUNKS_PER_WORD; left -= BLOOM_CHUNKS_PER_WORD) {
    word += h.h2;
    uint64_t w = word;
    all &= chunk_is_set(block, w) & chunk_is_set(block, w >> 9) &
           chunk_is_set(block, w >> 18) & chunk_is_set(block, w >> 27) &
           chunk_is_set(block, w >> 36) & chunk_is_set(block, w >> 45) &
           chunk_is_set(block, w >> 54);
  }
  if (left > 0) {
    word += h.h2;
    uint64_t chunks = word;
    for (unsigned c = 0; c < left; c++, chunks >>= 9)
      all &= chunk_is_set(block, chunks);
  }
  return (int)(all & 1);
}

unsigned bloom_width_ladder(const unsigned *width, unsigned n,
                            unsigned *distinct, unsigned char *rank) {
  /* Widths are 1..64: bit w - 1 of one word marks each present. */
  uint64_t present = 0;
  for (unsigned i = 0; i < n; i++) present |= (uint64_t)1 << (width[i] - 1);
  unsigned count = 0;
  for (unsigned w = 1; w <= BLOOM_MAX_HASHES; w++)
    if (present >> (w - 1) & 1) distinct[count++] = w;
  for (unsigned i = 0; i < n; i++)
    rank[i] = (unsigned char)__builtin_popcountll(
        present & (((uint64_t)1 << (width[i] - 1)) - 1));
  return count;
}

void bloom_masks_of(filter_hash h, const unsigned *widths, unsigned count,
                    bloom_mask *masks) {
  bloom_mask m = {{0}};
  uint64_t word = h.h1, chunks = 0;
  unsigned i = 0;
  for (unsigned j = 0; j < count; j++) {
    for (; i < widths[j]; i++, chunks >>= 9) {
      if (i % BLOOM_CHUNKS_PER_WORD == 0) chunks = word += h.h2;
      unsigned bit = (unsigned)(chunks & 511);
      m.word[bit >> 6] |= (uint64_t)1 << (bit & 63);
    }
    masks[j] = m;
  }
}

/* x^k by squaring: exact IEEE operations, so the same on every platform. */
static double ipow(double x, unsigned k) {
  double r = 1.0;
  while (k) {
    if (k & 1) r *= x;
    x *= x;
    k >>= 1;
  }
  return r;
}

/* The rate of one block that received t = i*k bit throws: E[(X/B)^k] for
** its occupancy X.  (E[X/B])^k alone is optimistic by Jensen's inequality
** (1% low at k = 6, 19% at k = 27); the second-order term with the
** occupancy's variance brings it within 0.1% of the exact value for
** k <= 12 and 1.5% at k = 27 (checked against the exact Markov chain).
** clear1 = (1 - 1/B)^t, clear2 = (1 - 2/B)^t. */
static double block_rate(double clear1, double clear2, unsigned k) {
  const double b = BLOOM_BLOCK_BITS;
  double fill = 1.0 - clear1;
  if (!(fill > 0.0)) return 0.0;
  double var = (b * (b - 1.0) * clear2 + b * clear1 - b * b * clear1 * clear1) /
               (b * b);
  if (var < 0.0) var = 0.0; /* rounding, when the block is nearly full */
  double kk = (double)k;
  return ipow(fill, k) * (1.0 + kk * (kk - 1.0) / 2.0 * var / (fill * fill));
}

double bloom_model_fpr(double lambda, unsigned k) {
  if (!(lambda > 0.0)) return 0.0;
  /* With this many items per block every bit is set for any k we allow:
  ** the rate is 1 to double precision, and no target below 1 accepts it. */
  if (lambda > 1e5) return 1.0;
  const double keep1 = ipow(1.0 - 1.0 / BLOOM_BLOCK_BITS, k);
  const double keep2 = ipow(1.0 - 2.0 / BLOOM_BLOCK_BITS, k);
  const double log_lambda = log(lambda);
  /* Poisson mass beyond lambda + 12 sqrt(lambda) + 30 is below 1e-30. */
  const double last = lambda + 12.0 * sqrt(lambda) + 30.0;
  double sum = 0.0, log_pmf = -lambda, clear1 = 1.0, clear2 = 1.0;
  for (double i = 0.0; i <= last; i += 1.0) {
    if (i > 0.0) {
      log_pmf += log_lambda - log(i);
      clear1 *= keep1;
      clear2 *= keep2;
    }
    double rate = block_rate(clear1, clear2, k);
    sum += exp(log_pmf) * (rate < 1.0 ? rate : 1.0);
  }
  return sum;
}

/* The best k for lambda items per block, and its rate.  The rate is
** unimodal in k, so walk downhill from the classic guess. */
static double best_rate(double lambda, unsigned *k_out) {
  double guess = (double)BLOOM_BLOCK_BITS / lambda * 0.6931471805599453;
  unsigned k = guess < 1.0 ? 1u
               : guess > BLOOM_MAX_HASHES ? BLOOM_MAX_HASHES
                                          : (unsigned)(guess + 0.5);
  double f = bloom_model_fpr(lambda, k);
  while (k > 1) {
    double down = bloom_model_fpr(lambda, k - 1);
    if (!(down < f)) break;
    f = down;
    k--;
  }
  while (k < BLOOM_MAX_HASHES) {
    double up = bloom_model_fpr(lambda, k + 1);
    if (!(up < f)) break;
    f = up;
    k++;
  }
  *k_out = k;
  return f;
}

bloom_sizing_status bloom_sizing_for(uint64_t n, double p, uint64_t max_bytes,
                                 bloom_sizing *sizing) {
  if (n < 1 || n > (uint64_t)INT64_MAX) return BLOOM_SIZING_BAD_N;
  if (!(p >= FILTER_MIN_FPR && p < 1.0)) return BLOOM_SIZING_BAD_P;
  const double target = p * BLOOM_SIZING_MARGIN;
  const double dn = (double)n;

  uint64_t max_blocks = max_bytes <= FILTER_HEADER_BYTES
                            ? 0
                            : (max_bytes - FILTER_HEADER_BYTES) / BLOOM_BLOCK_BYTES;
  /* bits = blocks * 512 must fit in 64 bits. */
  if (max_blocks > UINT64_MAX / BLOOM_BLOCK_BITS)
    max_blocks = UINT64_MAX / BLOOM_BLOCK_BITS;
  /* No layout does better than the classic optimum, so start there. */
  double classic_bits = ceil(-dn * log(p) / (0.6931471805599453 * 0.6931471805599453));
  double lo_d = floor(classic_bits / BLOOM_BLOCK_BITS);
  if (lo_d > (double)max_blocks) return BLOOM_SIZING_TOO_BIG;
  uint64_t lo = lo_d < 1.0 ? 1 : (uint64_t)lo_d;
  if (max_blocks < 1) return BLOOM_SIZING_TOO_BIG;

  unsigned k;
  double rate = best_rate(dn / (double)lo, &k);
  uint64_t hi = lo;
  if (!(rate <= target)) {
    /* Find a block count that meets the target, then bisect (lo, hi]. */
    unsigned k_hi = k;
    double rate_hi = rate;
    for (;;) {
      if (hi >= max_blocks) return BLOOM_SIZING_TOO_BIG;
      lo = hi;
      hi = hi > max_blocks / 2 ? max_blocks : hi * 2;
      rate_hi = best_rate(dn / (double)hi, &k_hi);
      if (rate_hi <= target) break;
    }
    while (hi - lo > 1) {
      uint64_t mid = lo + (hi - lo) / 2;
      unsigned k_mid;
      double rate_mid = best_rate(dn / (double)mid, &k_mid);
      if (rate_mid <= target) {
        hi = mid;
        k_hi = k_mid;
        rate_hi = rate_mid;
      } else {
        lo = mid;
      }
    }
    k = k_hi;
    rate = rate_hi;
  }
  /* When the block count overshoots the target (small n), the fewest hashes
  ** that still meet it make every probe cheaper. */
  for (unsigned fewer = 1; fewer < k; fewer++) {
    double r = bloom_model_fpr(dn / (double)hi, fewer);
    if (r <= target) {
      k = fewer;
      rate = r;
      break;
    }
  }
  sizing->capacity = n;
  sizing->target_fpr = p;
  sizing->bits = hi * BLOOM_BLOCK_BITS;
  sizing->hashes = k;
  sizing->bytes = bloom_blob_bytes(sizing->bits);
  sizing->expected_fpr = rate;
  return BLOOM_SIZING_OK;
}

filter_header bloom_header_for(const bloom_sizing *sizing) {
  filter_header h =
      filter_header_new(FILTER_KIND_BLOOM, sizing->capacity, sizing->target_fpr);
  h.hashes = sizing->hashes;
  h.bits = sizing->bits;
  return h;
}

bloom_stats bloom_stats_of(const unsigned char *bits, uint64_t m, unsigned k) {
  bloom_stats s;
  uint64_t blocks = m / BLOOM_BLOCK_BITS;
  uint64_t set = 0;
  double fpr_sum = 0.0;
  for (uint64_t b = 0; b < blocks; b++) {
    unsigned in_block = 0;
    for (unsigned w = 0; w < BLOOM_BLOCK_BYTES / 8; w++) {
      uint64_t word;
      memcpy(&word, bits + b * BLOOM_BLOCK_BYTES + w * 8, sizeof word);
      in_block += (unsigned)__builtin_popcountll(word);
    }
    set += in_block;
    fpr_sum += ipow((double)in_block / BLOOM_BLOCK_BITS, k);
  }
  s.bits_set = set;
  s.fill_ratio = (double)set / (double)m;
  s.estimated_items =
      set == m ? INFINITY : -((double)m / k) * log1p(-s.fill_ratio);
  s.estimated_fpr = fpr_sum / (double)blocks;
  return s;
}

void bloom_write_empty(unsigned char *dst, const bloom_sizing *sizing) {
  filter_header h = bloom_header_for(sizing);
  filter_write_header(dst, &h);
  /* dst holds sizing->bytes bytes, so the count fits a size_t (32 bits on
  ** wasm32). */
  memset(dst + FILTER_HEADER_BYTES, 0, (size_t)(sizing->bytes - FILTER_HEADER_BYTES));
}

int bloom_shape_check(const filter_header *a, const filter_header *b,
                      char *err, size_t err_size) {
  const char *field = NULL;
  unsigned long long va = 0, vb = 0;
#define SHAPE_FIELD(name)                 \
  if (!field && a->name != b->name) {     \
    field = #name;                        \
    va = (unsigned long long)a->name;     \
    vb = (unsigned long long)b->name;     \
  }
  SHAPE_FIELD(version)
  SHAPE_FIELD(kind)
  SHAPE_FIELD(hash)
  SHAPE_FIELD(seed)
  SHAPE_FIELD(bits)
  SHAPE_FIELD(hashes)
#undef SHAPE_FIELD
  if (!field) return 0;
  snprintf(err, err_size, "the filters differ in %s: %llu vs %llu", field, va,
           vb);
  return -1;
}

void bloom_or(unsigned char *dst, const unsigned char *src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] |= src[i];
}

void bloom_and(unsigned char *dst, const unsigned char *src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] &= src[i];
}
