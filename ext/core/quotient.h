/*
** The quotient filter (kind 4): blocks of sorted, Elias-Fano-coded hash
** keys near the information-theoretic bound.  Plain C: no SQLite header.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Layout (FORMAT.md, "Kind 4"): `blocks` blocks of `block_bytes` bytes.
** An entry with hash (h1, h2) lives in block floor(h1 * blocks / 2^64) as
** its key floor(h2 * V / 2^64), V = M * 2^l the block's own universe.  A
** block holds c, M and l in a 32-bit header, then its keys' high parts
** (key >> l) in unary, bucket after bucket (a 1 per entry, a 0 closing
** each of the M buckets), then the keys' low l bits, in key order.  A
** block's writer picks M and l for its c entries (the largest V that
** fits), so a crowded block loses precision instead of overflowing; a
** block with more entries than bits is "full" (M = 0) and answers maybe.
** A probe reads one block: its header, the unary part, one low field.
**
** Why fixed blocks that each own a range of h1: a probe costs one block
** read whatever the filter's size, with no directory; a store can keep
** the same blocks in page-sized chunks, and a block that fills can drop
** a low bit (V halves: every key becomes key >> 1, no value needed) or
** split its range by the top bit of h2 (key < V / 2 when V is even).
*/
#ifndef CORE_QUOTIENT_H
#define CORE_QUOTIENT_H

#include <stddef.h>
#include <stdint.h>

#include "core/bytes.h"
#include "core/format.h"
#include "core/hash.h"
#include "core/quotient_leaf.h"

/* The block header, a u32: c in bits 0-12, M in bits 13-25, l in 26-31. */
#define QUOTIENT_BLOCK_HEADER_BITS 32
#define QUOTIENT_MAX_COUNT 8191u   /* 13 bits */
#define QUOTIENT_MAX_BUCKETS 8191u /* 13 bits */
/* M * 2^l < 2^13 * 2^51 = 2^64: V is a u64, and an l-bit field read
** from any bit of a byte fits one 64-bit load (7 + 51 < 64). */
#define QUOTIENT_MAX_LOW_BITS 51u
/* Block sizes: multiples of 64 (whole cache lines); 1024 bytes keeps
** c + M within 13 bits. */
#define QUOTIENT_MIN_BLOCK_BYTES 64u
#define QUOTIENT_MAX_BLOCK_BYTES 1024u
#define QUOTIENT_SIZING_MARGIN 0.97

/* The position of the k-th set bit (from 0) of x, which has more than k,
** in a few word operations and one table read (quotient.c; the leaves of
** quotient_leaf.c use it too). */
unsigned quotient_select64(uint64_t x, unsigned k);

/* What a block header says. */
typedef struct quotient_shape {
  uint32_t count;   /* c: entries (a full block: at least min(c, 8191)) */
  uint32_t buckets; /* M: 0 with c > 0 is a full block */
  unsigned low_bits; /* l */
} quotient_shape;

/* The shape this version writes for c entries in a block of block_bytes:
** the largest V = M * 2^l, M = min(8191, bits - 32 - c * (l + 1)) >= 1,
** l in 0..51, the smallest l on a tie; full (M = 0, l = 0) when even l = 0
** leaves no bucket.  Returns V (0 for an empty or full block). */
uint64_t quotient_shape_for(uint64_t c, unsigned block_bytes,
                            quotient_shape *shape);

/* The model rate of a block of c entries in a universe of V keys: the
** chance that a random key equals one of c random keys, 1 - (1 - 1/V)^c;
** 0 for c = 0, 1 for a full block (V = 0) and for V = 1. */
double quotient_block_fpr(uint64_t c, uint64_t v);

/* The filter's model rate with lambda entries per block on average:
** sum over c of Pois(c; lambda) * quotient_block_fpr(c, V(c)). */
double quotient_model_fpr(double lambda, unsigned block_bytes);

/* The block sizes this version weighs for rate p (FORMAT.md): writes 1 or
** 3 of them into sizes, smallest first, and returns how many. */
unsigned quotient_block_sizes_for(double p, unsigned sizes[5]);

typedef struct quotient_sizing {
  uint64_t capacity;    /* n */
  double target_fpr;    /* p */
  unsigned block_bytes;
  uint64_t blocks;
  uint64_t bytes;       /* blob size: header + body */
  double expected_fpr;  /* the model's rate at n entries */
} quotient_sizing;

typedef enum {
  QUOTIENT_SIZING_OK = 0,
  QUOTIENT_SIZING_BAD_N,  /* n < 1 or above 2^63 - 1 */
  QUOTIENT_SIZING_BAD_P,  /* p not in [min_fpr, 1) or NaN */
  QUOTIENT_SIZING_TOO_BIG /* the blob would exceed max_bytes */
} quotient_sizing_status;

/* For each block size quotient_block_sizes_for weighs, the fewest blocks
** whose model rate at n entries is at most QUOTIENT_SIZING_MARGIN * p;
** then the size whose blob is smallest (the smaller size on a tie). */
quotient_sizing_status quotient_sizing_for(uint64_t n, double p,
                                           double min_fpr, uint64_t max_bytes,
                                           quotient_sizing *sizing);

/* Writes a complete empty filter (sizing->bytes bytes, count 0). */
void quotient_write_empty(unsigned char *dst, const quotient_sizing *sizing);

/* The block of h: floor(h1 * blocks / 2^64). */
static inline uint64_t quotient_block_of(filter_hash h, uint64_t blocks) {
  return mul_high64(h.h1, blocks);
}

/* Encodes the c entries whose h2 are h2s[0..c) into one block (whose
** block_bytes bytes it overwrites).  Sorts h2s in place. */
void quotient_encode_block(unsigned char *block, unsigned block_bytes,
                           uint64_t *h2s, size_t c);

/* Reads a block's header and checks it: the fields agree with each other
** and the block's size, and the unary part holds exactly c ones.  0 with
** *shape filled; -1 with the reason in err otherwise. */
int quotient_block_check(const unsigned char *block, unsigned block_bytes,
                         quotient_shape *shape, char *err, size_t err_size);

/* Bytes 12-15 of a filter of leaves (layout 1), as one u32: block size 0,
** byte 14 the layout. */
#define QUOTIENT_LEAVES_SHAPE 0x10000u

/* What probing a quotient filter needs of its header. */
typedef struct quotient_quick {
  const unsigned char *body;
  size_t body_bytes;
  uint64_t blocks;       /* layout 1: leaves */
  uint32_t seed;
  unsigned block_bytes;  /* layout 1: 0 */
} quotient_quick;

/* 0 with *q filled if blob[0..len) is a valid quotient filter, exactly when
** filter_parse(blob, len, FILTER_KIND_QUOTIENT, ...) accepts it; -1
** otherwise, with no reason (filter_parse words it).  As filter_bloom_quick
** does for Bloom filters: a few compares of 8-byte header words, for
** quotient_test, which validates its filter argument on every row. */
static inline int filter_quotient_quick(const void *blob, size_t len,
                                        quotient_quick *q) {
  const uint64_t head =
      FILTER_MAGIC_LE32 | (uint64_t)FILTER_VERSION << 8 * FILTER_OFF_VERSION |
      (uint64_t)FILTER_KIND_QUOTIENT << 8 * FILTER_OFF_KIND |
      (uint64_t)FILTER_HASH_MURMUR3_X64_128 << 8 * FILTER_OFF_HASH;
  const unsigned char *b = blob;
  if (b == NULL || len < FILTER_HEADER_BYTES) return -1;
  uint32_t shape = load_le32(b + FILTER_OFF_BLOCK_BYTES); /* bytes 12-15 */
  uint64_t blocks = load_le64(b + FILTER_OFF_BLOCKS);
  uint64_t capacity = load_le64(b + FILTER_OFF_CAPACITY);
  uint64_t fpr_bits = load_le64(b + FILTER_OFF_TARGET_FPR);
  double fpr;
  memcpy(&fpr, &fpr_bits, sizeof fpr);
  size_t body = len - FILTER_HEADER_BYTES;
  if (load_le64(b + FILTER_OFF_MAGIC) != head ||
      (load_le64(b + FILTER_OFF_RESERVED) |
       load_le64(b + FILTER_OFF_RESERVED + 8)) != 0 ||
      capacity - 1 >= (uint64_t)INT64_MAX || !(fpr > 0.0 && fpr < 1.0))
    return -1;
  if (shape == QUOTIENT_LEAVES_SHAPE) { /* layout 1: leaves */
    if (qleaves_check_header(b + FILTER_HEADER_BYTES, body, blocks) != 0)
      return -1;
    shape = 0;
  } else if (shape < QUOTIENT_MIN_BLOCK_BYTES ||
             shape > QUOTIENT_MAX_BLOCK_BYTES || shape % 64 != 0 ||
             blocks == 0 || (uint64_t)body % shape != 0 ||
             (uint64_t)body / shape != blocks) {
    return -1;
  }
  q->body = b + FILTER_HEADER_BYTES;
  q->body_bytes = body;
  q->blocks = blocks;
  q->seed = load_le32(b + FILTER_OFF_SEED);
  q->block_bytes = shape;
  return 0;
}

/* 1 if the filter may hold h, 0 if it certainly does not, -1 if h's block
** is damaged (quotient_block_check refuses it). */
int quotient_contains(const unsigned char *body, uint64_t blocks,
                      unsigned block_bytes, filter_hash h);

/* Either layout: block_bytes 0 is a filter of `blocks` leaves (layout 1,
** core/quotient_leaf.h) in body_bytes bytes. */
static inline int quotient_any_contains(const unsigned char *body,
                                        size_t body_bytes, uint64_t blocks,
                                        unsigned block_bytes, filter_hash h) {
  return block_bytes == 0 ? qleaves_contains(body, body_bytes, blocks, h)
                          : quotient_contains(body, blocks, block_bytes, h);
}

typedef struct quotient_stats {
  uint64_t full_blocks;  /* blocks whose entries did not fit (M = 0) */
  double estimated_fpr;  /* mean over blocks of quotient_block_fpr */
} quotient_stats;

/* Checks every block and sums the statistics; -1 with the reason (the
** block's number first) in err when a block is damaged. */
int quotient_stats_of(const unsigned char *body, uint64_t blocks,
                      unsigned block_bytes, quotient_stats *stats, char *err,
                      size_t err_size);

#endif
