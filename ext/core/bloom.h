/*
** The Bloom filter itself: sizing, bit layout, probe, statistics.
** Plain C: no SQLite header.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Layout (FORMAT.md): m bits in blocks of 512 bits (one cache line).  For an
** item with hash (h1, h2), the block is floor(h1 * blocks / 2^64), and bit
** i (0 <= i < k) of that block is 9-bit chunk i mod 7, low chunk first, of
** the word h1 + (i/7 + 1) * h2 (mod 2^64).  One probe touches one cache
** line.
*/
#ifndef CORE_BLOOM_H
#define CORE_BLOOM_H

#include <stddef.h>
#include <stdint.h>

#include "core/bytes.h"
#include "core/format.h"
#include "core/hash.h"

typedef struct bloom_sizing {
  uint64_t capacity;    /* n */
  double target_fpr;    /* p */
  uint64_t bits;        /* m, a multiple of 512 */
  uint32_t hashes;      /* k */
  uint64_t bytes;       /* blob size: header + m/8 */
  double expected_fpr;  /* the model's rate at n items for this m and k */
} bloom_sizing;

typedef enum {
  BLOOM_SIZING_OK = 0,
  BLOOM_SIZING_BAD_N,      /* n < 1 */
  BLOOM_SIZING_BAD_P,      /* p not in [FILTER_MIN_FPR, 1) or NaN */
  BLOOM_SIZING_TOO_BIG     /* the blob would exceed max_bytes */
} bloom_sizing_status;

/* Chooses m and k for n items at rate p: the fewest blocks whose model
** rate, at the best k, is at most BLOOM_SIZING_MARGIN * p. */
#define BLOOM_SIZING_MARGIN 0.97
bloom_sizing_status bloom_sizing_for(uint64_t n, double p, uint64_t max_bytes,
                                 bloom_sizing *sizing);

/* The false-positive rate of a 512-bit-blocked filter with lambda items per
** block on average and k bits per item (FORMAT.md gives the formula):
**   sum_i Pois(i; lambda) * r(i*k),
** r(t) = m^k * (1 + k(k-1)/2 * v / m^2), the rate of a block that took t
** bit throws, with m and v the mean and variance of its fill ratio.        */
double bloom_model_fpr(double lambda, unsigned k);

/* Header of a new empty filter for a sizing. */
filter_header bloom_header_for(const bloom_sizing *sizing);

/* Writes a complete empty filter (sizing->bytes bytes) into dst. */
void bloom_write_empty(unsigned char *dst, const bloom_sizing *sizing);

/* If a and b differ in shape (version, kind, hash, seed, bits, hashes),
** names the first field that differs and both values in err and returns -1;
** 0 when they can be combined bit for bit. */
int bloom_shape_check(const filter_header *a, const filter_header *b,
                      char *err, size_t err_size);

/* dst |= src and dst &= src over n bytes. */
void bloom_or(unsigned char *dst, const unsigned char *src, size_t n);
void bloom_and(unsigned char *dst, const unsigned char *src, size_t n);

/* Sets the k bits of h in bits[] (blocks * 64 bytes). */
void bloom_insert(unsigned char *bits, uint64_t blocks, unsigned k,
                  filter_hash h);
/* 1 if all k bits of h are set, else 0. */
int bloom_contains(const unsigned char *bits, uint64_t blocks, unsigned k,
                   filter_hash h);
/* Index of the block h falls in: floor(h1 * blocks / 2^64). */
uint64_t bloom_block_of(filter_hash h, uint64_t blocks);

/* One hash against many blocks (a layered filter's layers, where k
** differs by layer): the bits an item sets in its block as eight words,
** word w holding block bits 64w..64w+63 (bit j of the block is bit j mod 64
** of the little-endian word at byte 8 * (j / 64)).  Testing a block is then
** eight ANDs with no branch, where bloom_contains computes its k bits anew
** for every block. */
typedef struct bloom_mask {
  uint64_t word[BLOOM_BLOCK_BYTES / 8];
} bloom_mask;

/* The distinct values among width[0..n) in ascending order into
** distinct[] (their number is returned), and in rank[i] the place of
** width[i] among them: the widths bloom_masks_of takes, for n filters
** (layers) of various k probed with one hash.  Each width is 1..64. */
unsigned bloom_width_ladder(const unsigned *width, unsigned n,
                            unsigned *distinct, unsigned char *rank);

/* masks[j] = the first widths[j] of the k bits of h, for count widths in
** ascending order, each 1..BLOOM_MAX_HASHES. */
void bloom_masks_of(filter_hash h, const unsigned *widths, unsigned count,
                    bloom_mask *masks);

/* 1 if every bit of m is set in the 64-byte block: bloom_contains for the
** item and width m was made from. */
static inline int bloom_block_holds(const unsigned char *block,
                                    const bloom_mask *m) {
  uint64_t missing = 0;
  for (unsigned w = 0; w < BLOOM_BLOCK_BYTES / 8; w++)
    missing |= m->word[w] & ~load_le64(block + 8 * w);
  return missing == 0;
}

/* Inserts many items into a filter larger than the cache, where each insert
** is a write to a random cache line.  An insert trails its hash by
** BLOOM_INSERT_LAG hashes and its block is prefetched when the hash arrives,
** so the misses of consecutive inserts overlap instead of queueing one after
** another.  The bits are only complete after bloom_lagged_flush. */
#define BLOOM_INSERT_LAG 16

typedef struct bloom_lagged {
  unsigned char *bits;
  uint64_t blocks;
  unsigned k;
  unsigned pending; /* hashes waiting in `waiting`, at most the lag */
  unsigned next;    /* slot of the oldest once `waiting` is full */
  filter_hash waiting[BLOOM_INSERT_LAG];
} bloom_lagged;

void bloom_lagged_init(bloom_lagged *in, unsigned char *bits, uint64_t blocks,
                       unsigned k);
void bloom_lagged_flush(bloom_lagged *in);

/* Inline: it runs once per row of a build. */
static inline void bloom_lagged_insert(bloom_lagged *in, filter_hash h) {
  if (in->pending < BLOOM_INSERT_LAG) {
    in->waiting[in->pending++] = h;
  } else {
    bloom_insert(in->bits, in->blocks, in->k, in->waiting[in->next]);
    in->waiting[in->next] = h;
    in->next = (in->next + 1) % BLOOM_INSERT_LAG;
  }
  __builtin_prefetch(in->bits + bloom_block_of(h, in->blocks) * BLOOM_BLOCK_BYTES,
                     1);
}

typedef struct bloom_stats {
  uint64_t bits_set;
  double fill_ratio;
  double estimated_items; /* -(m/k) ln(1 - bits_set/m); INFINITY when full */
  double estimated_fpr;   /* mean over blocks of (set bits / 512)^k */
} bloom_stats;

bloom_stats bloom_stats_of(const unsigned char *bits, uint64_t m, unsigned k);

#endif
