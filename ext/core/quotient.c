/*
** Quotient filter core (quotient.h): block shapes, the sizing model,
** encoding, the probe, statistics.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Bit t of a block is bit t mod 8 of its byte t / 8.  The unary part
** starts at bit 32 (byte 4), so its 64-bit words are loads at bytes
** 4 + 8j; the last may reach past the block, and is then read byte by
** byte (a block may end the blob).
*/
#include "core/quotient.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t quotient_shape_for(uint64_t c, unsigned block_bytes,
                            quotient_shape *shape) {
  uint64_t budget = 8u * (uint64_t)block_bytes - QUOTIENT_BLOCK_HEADER_BITS;
  uint64_t best = 0;
  shape->count = (uint32_t)(c < QUOTIENT_MAX_COUNT ? c : QUOTIENT_MAX_COUNT);
  shape->buckets = 0;
  shape->low_bits = 0;
  if (c == 0) return 0;
  for (unsigned l = 0; l <= QUOTIENT_MAX_LOW_BITS; l++) {
    /* c * (l + 1) + 1 <= budget, or no bucket is left */
    if (c >= budget || c * (l + 1) >= budget) break;
    uint64_t m = budget - c * (l + 1);
    if (m > QUOTIENT_MAX_BUCKETS) m = QUOTIENT_MAX_BUCKETS;
    uint64_t v = m << l;
    if (v > best) {
      best = v;
      shape->buckets = (uint32_t)m;
      shape->low_bits = l;
    }
  }
  return best;
}

double quotient_block_fpr(uint64_t c, uint64_t v) {
  if (c == 0) return 0.0;
  if (v <= 1) return 1.0;
  return -expm1((double)c * log1p(-1.0 / (double)v));
}

double quotient_model_fpr(double lambda, unsigned block_bytes) {
  if (!(lambda > 0)) return 0.0;
  if (lambda > 1e5) return 1.0; /* every block full */
  double L = log(lambda);
  double last = lambda + 12.0 * sqrt(lambda) + 30.0;
  double sum = 0.0, lp = -lambda;
  for (uint64_t i = 0; (double)i <= last; i++) {
    if (i > 0) lp = lp + (L - log((double)i));
    quotient_shape s;
    uint64_t v = quotient_shape_for(i, block_bytes, &s);
    sum = sum + exp(lp) * quotient_block_fpr(i, v);
  }
  return sum;
}

unsigned quotient_block_sizes_for(double p, unsigned sizes[5]) {
  /* 256 bytes (4 cache lines) down to p = 2^-8; then whichever of 256,
  ** 320, 384, 448 and 512 makes the smallest blob, down to 2^-16; then
  ** 1024.  The fewer entries a block holds, the more their number varies
  ** from block to block, and a crowded block pays in key bits: at 0.1%,
  ** 256-byte blocks take 12.37 bits per item, 512-byte ones 12.16; and
  ** among five sizes one rounds a small filter's block count up by little
  ** (FORMAT.md, "Kind 4", has the figures). */
  if (p >= 0x1p-8) {
    sizes[0] = 256;
    return 1;
  }
  if (p >= 0x1p-16) {
    for (unsigned i = 0; i < 5; i++) sizes[i] = 256 + 64 * i;
    return 5;
  }
  sizes[0] = 1024;
  return 1;
}

/* The fewest blocks of bb bytes for n at rate p; 0 if none within
** max_bytes. */
static uint64_t blocks_for(uint64_t n, double p, unsigned bb,
                           uint64_t max_bytes, double *expected) {
  if (max_bytes < FILTER_HEADER_BYTES + (uint64_t)bb) return 0;
  uint64_t max_blocks = (max_bytes - FILTER_HEADER_BYTES) / bb;
  double target = p * QUOTIENT_SIZING_MARGIN;
  double dn = (double)n;
  /* Double until the rate is met, then bisect: lo fails (0: none tried),
  ** hi meets it. */
  uint64_t lo = 0, hi = 1;
  double rate = quotient_model_fpr(dn / (double)hi, bb);
  while (!(rate <= target)) {
    if (hi >= max_blocks) return 0;
    lo = hi;
    hi = hi > max_blocks / 2 ? max_blocks : 2 * hi;
    rate = quotient_model_fpr(dn / (double)hi, bb);
  }
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2;
    double r = quotient_model_fpr(dn / (double)mid, bb);
    if (r <= target) {
      hi = mid;
      rate = r;
    } else {
      lo = mid;
    }
  }
  *expected = rate;
  return hi;
}

quotient_sizing_status quotient_sizing_for(uint64_t n, double p,
                                           double min_fpr, uint64_t max_bytes,
                                           quotient_sizing *sizing) {
  if (n < 1 || n > (uint64_t)INT64_MAX) return QUOTIENT_SIZING_BAD_N;
  if (!(p >= min_fpr && p < 1.0)) return QUOTIENT_SIZING_BAD_P;
  unsigned sizes[5];
  unsigned count = quotient_block_sizes_for(p, sizes);
  int found = 0;
  for (unsigned i = 0; i < count; i++) {
    double rate = 0.0;
    uint64_t k = blocks_for(n, p, sizes[i], max_bytes, &rate);
    /* the smaller blob; on a tie the smaller block, the first */
    if (k == 0 || (found && k * sizes[i] >= sizing->blocks *
                                                sizing->block_bytes))
      continue;
    found = 1;
    sizing->block_bytes = sizes[i];
    sizing->blocks = k;
    sizing->expected_fpr = rate;
  }
  if (!found) return QUOTIENT_SIZING_TOO_BIG;
  sizing->capacity = n;
  sizing->target_fpr = p;
  sizing->bytes = FILTER_HEADER_BYTES + sizing->blocks * sizing->block_bytes;
  return QUOTIENT_SIZING_OK;
}

void quotient_write_empty(unsigned char *dst, const quotient_sizing *sizing) {
  filter_header h = filter_header_new(FILTER_KIND_QUOTIENT, sizing->capacity,
                                      sizing->target_fpr);
  h.block_bytes = sizing->block_bytes;
  h.blocks = sizing->blocks;
  filter_write_header(dst, &h);
  /* bytes fits a size_t: the sizing kept it under the caller's max_bytes,
  ** a blob length limit */
  memset(dst + FILTER_HEADER_BYTES, 0,
         (size_t)(sizing->bytes - FILTER_HEADER_BYTES));
}

/* Sets bit t of a block. */
static void set_bit(unsigned char *block, uint64_t t) {
  block[t / 8] = (unsigned char)(block[t / 8] | 1u << (t % 8));
}

/* Writes the low `width` bits of v at bit t, bit by bit (a build writes
** each field once; clarity over speed). */
static void put_bits(unsigned char *block, uint64_t t, uint64_t v,
                     unsigned width) {
  for (unsigned i = 0; i < width; i++)
    if (v >> i & 1u) set_bit(block, t + i);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

void quotient_encode_block(unsigned char *block, unsigned block_bytes,
                           uint64_t *h2s, size_t c) {
  memset(block, 0, block_bytes);
  quotient_shape s;
  uint64_t v = quotient_shape_for(c, block_bytes, &s);
  uint32_t header = s.count | s.buckets << 13 | (uint32_t)s.low_bits << 26;
  store_le32(block, header);
  if (v == 0) return; /* empty, or full: no keys */
  qsort(h2s, c, sizeof *h2s, cmp_u64);
  uint64_t lows = QUOTIENT_BLOCK_HEADER_BITS + c + s.buckets;
  uint64_t mask = ((uint64_t)1 << s.low_bits) - 1;
  for (size_t i = 0; i < c; i++) {
    uint64_t key = mul_high64(h2s[i], v); /* nondecreasing in h2 */
    set_bit(block, QUOTIENT_BLOCK_HEADER_BITS + (key >> s.low_bits) + i);
    put_bits(block, lows + i * s.low_bits, key & mask, s.low_bits);
  }
}

static int fail(char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t err_size, const char *fmt, ...) {
  if (err && err_size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* Up to 8 bytes from p, little-endian, no further than end. */
static inline uint64_t load_upto64(const unsigned char *p,
                                   const unsigned char *end) {
  if (end - p >= 8) return load_le64(p);
  uint64_t v = 0;
  for (int i = 0; p + i < end; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* Word j of the unary part (bits 32 + 64j ...), masked to its first
** `valid` bits (1..64). */
static inline uint64_t unary_word(const unsigned char *block,
                                  unsigned block_bytes, uint64_t j,
                                  uint64_t valid) {
  uint64_t w = load_upto64(block + 4 + 8 * j, block + block_bytes);
  return valid >= 64 ? w : w & (((uint64_t)1 << valid) - 1);
}


/* in_byte[b][r]: the position of the r-th set bit of the byte b (8 when
** b has no more): a table, so that a probe's select has no loop. */
static const unsigned char in_byte[256][8] = {
#define R(b, r) (unsigned char)nth_bit(b, r)
#define ROW(b) {R(b, 0), R(b, 1), R(b, 2), R(b, 3), R(b, 4), R(b, 5), \
                R(b, 6), R(b, 7)}
#define NB(b, r, i) (((b) >> (i) & 1) && \
                     ((((b) & ((1u << (i)) - 1)) * 0x8040201u >> 3 & \
                       0x11111111u) * 0x11111111u >> 28) == (r))
#define nth_bit(b, r)                                                  \
  (NB(b, r, 0) ? 0 : NB(b, r, 1) ? 1 : NB(b, r, 2) ? 2 : NB(b, r, 3) ? 3 \
   : NB(b, r, 4) ? 4 : NB(b, r, 5) ? 5 : NB(b, r, 6) ? 6               \
   : NB(b, r, 7) ? 7 : 8)
#define ROW4(b) ROW(b), ROW(b + 1), ROW(b + 2), ROW(b + 3)
#define ROW16(b) ROW4(b), ROW4(b + 4), ROW4(b + 8), ROW4(b + 12)
#define ROW64(b) ROW16(b), ROW16(b + 16), ROW16(b + 32), ROW16(b + 48)
    ROW64(0u), ROW64(64u), ROW64(128u), ROW64(192u)
#undef ROW64
#undef ROW16
#undef ROW4
#undef nth_bit
#undef NB
#undef ROW
#undef R
};

/* The position of the k-th set bit (0-based) of x, which has more than k:
** the bytes' running counts find its byte (the bytes whose count is at
** most k, counted by a borrow in each byte), the table the bit. */
unsigned quotient_select64(uint64_t x, unsigned k) {
  uint64_t s = x - ((x >> 1) & 0x5555555555555555u);
  s = (s & 0x3333333333333333u) + ((s >> 2) & 0x3333333333333333u);
  s = (s + (s >> 4)) & 0x0f0f0f0f0f0f0f0fu;
  uint64_t prefix = s * 0x0101010101010101u; /* byte i: bytes 0..i, <= 64 */
  uint64_t above = ((prefix | 0x8080808080808080u) -
                    (uint64_t)(k + 1) * 0x0101010101010101u) &
                   0x8080808080808080u; /* byte i: its count is above k */
  unsigned byte = bits_low64(above) >> 3; /* the first byte above k */
  unsigned before = byte ? (unsigned)(prefix >> (8 * byte - 8)) & 0xffu : 0;
  unsigned b = (unsigned)(x >> (8 * byte)) & 0xffu;
  return 8 * byte + in_byte[b][k - before];
}

/* The header's fields, checked against each other and the block size
** (not the unary part). */
static int read_header(const unsigned char *block, unsigned block_bytes,
                       quotient_shape *s, char *err, size_t err_size) {
  uint32_t h = load_le32(block);
  s->count = h & QUOTIENT_MAX_COUNT;
  s->buckets = h >> 13 & QUOTIENT_MAX_BUCKETS;
  s->low_bits = h >> 26;
  if (s->count == 0) {
    if (s->buckets != 0 || s->low_bits != 0)
      return fail(err, err_size, "an empty block with %u buckets and %u low "
                  "bits", s->buckets, s->low_bits);
    return 0;
  }
  if (s->buckets == 0) {
    if (s->low_bits != 0)
      return fail(err, err_size, "a full block with %u low bits",
                  s->low_bits);
    return 0;
  }
  if (s->low_bits > QUOTIENT_MAX_LOW_BITS)
    return fail(err, err_size, "%u low bits, more than %u", s->low_bits,
                QUOTIENT_MAX_LOW_BITS);
  uint64_t used = QUOTIENT_BLOCK_HEADER_BITS + (uint64_t)s->count +
                  s->buckets + (uint64_t)s->count * s->low_bits;
  if (used > 8u * (uint64_t)block_bytes)
    return fail(err, err_size, "%u entries of %u low bits in %u buckets "
                "take %llu bits, more than the block's %u", s->count,
                s->low_bits, s->buckets, (unsigned long long)used,
                8u * block_bytes);
  return 0;
}

int quotient_block_check(const unsigned char *block, unsigned block_bytes,
                         quotient_shape *shape, char *err, size_t err_size) {
  if (read_header(block, block_bytes, shape, err, err_size) != 0) return -1;
  if (shape->count == 0 || shape->buckets == 0) return 0;
  uint64_t bits = (uint64_t)shape->count + shape->buckets, ones = 0;
  for (uint64_t j = 0; 64 * j < bits; j++)
    ones += bits_popcount64(unary_word(block, block_bytes, j, bits - 64 * j));
  if (ones != shape->count)
    return fail(err, err_size, "the unary part holds %llu entries, the "
                "header says %u", (unsigned long long)ones, shape->count);
  return 0;
}

/* One pass over a unary part of `bits` bits, without a branch that
** depends on the data: returns its count of ones (a probe checks it is c,
** so that every index it computes is one of the c entries), and finds the
** word that holds the closing 0 of bucket q (*at_word) and the zeros
** before that word (*zeros_before). */
#define UNARY_SCAN_BODY(POPCOUNT)                                         \
  uint64_t ones = 0, zeros = 0, full = bits / 64, j = 0;                  \
  uint64_t at = 0, before_at = 0;                                          \
  /* whole words: 4 + 8 (j + 1) <= 4 + bits / 8 <= block_bytes */         \
  for (; j < full; j++) {                                                  \
    uint64_t w = load_le64(block + 4 + 8 * j);                             \
    unsigned o = POPCOUNT(w);                                              \
    int before = zeros <= q;                                               \
    at = before ? j : at;                                                  \
    before_at = before ? zeros : before_at;                                \
    zeros += 64 - o;                                                       \
    ones += o;                                                             \
  }                                                                        \
  if (bits % 64) {                                                         \
    uint64_t w = unary_word(block, block_bytes, j, bits % 64);             \
    unsigned o = POPCOUNT(w);                                              \
    int before = zeros <= q;                                               \
    at = before ? j : at;                                                  \
    before_at = before ? zeros : before_at;                                \
    ones += o;                                                             \
  }                                                                        \
  *at_word = at;                                                           \
  *zeros_before = before_at;                                               \
  return ones;

#define UNARY_SCAN_ARGS                                                    \
  const unsigned char *block, unsigned block_bytes, uint64_t bits,         \
      uint64_t q, uint64_t *at_word, uint64_t *zeros_before
/* popcnt where the build or the CPU has it (core/bytes.h) */
BITS_COUNTING(uint64_t, quotient_unary_scan, UNARY_SCAN_ARGS, UNARY_SCAN_BODY)

int quotient_contains(const unsigned char *body, uint64_t blocks,
                      unsigned block_bytes, filter_hash h) {
  const unsigned char *block =
      body + quotient_block_of(h, blocks) * block_bytes;
  const unsigned char *end = block + block_bytes;
  /* The block's other lines while the first is read: the low field the
  ** probe needs is known only after the unary part is decoded. */
  for (unsigned off = 64; off < block_bytes; off += 64)
    __builtin_prefetch(block + off);
  quotient_shape s;
  if (read_header(block, block_bytes, &s, NULL, 0) != 0) return -1;
  if (s.count == 0) return 0;
  if (s.buckets == 0) return 1; /* full: anything may be there */
  uint64_t v = (uint64_t)s.buckets << s.low_bits;
  uint64_t key = mul_high64(h.h2, v);
  uint64_t q = key >> s.low_bits;
  uint64_t mask = ((uint64_t)1 << s.low_bits) - 1;
  /* One pass over the unary part, without a branch that depends on the
  ** data: the count of ones, which must be c (so that every index below
  ** is one of the c entries), and the word that holds bucket q's closing
  ** 0 with the zeros before it. */
  uint64_t bits = (uint64_t)s.count + s.buckets;
  uint64_t words = (bits + 63) / 64, at_word, zeros_before;
  if (quotient_unary_scan(block, block_bytes, bits, q, &at_word,
                          &zeros_before) !=
      s.count)
    return -1;
  uint64_t valid = at_word + 1 < words ? 64 : bits - 64 * at_word;
  uint64_t word = unary_word(block, block_bytes, at_word, valid);
  uint64_t holes = ~word &
                   (valid >= 64 ? UINT64_MAX : ((uint64_t)1 << valid) - 1);
  unsigned at = quotient_select64(holes, (unsigned)(q - zeros_before));
  uint64_t close = 64 * at_word + at;
  /* Bucket q's entries are the run of ones just before its closing 0: in
  ** the same word, or, when the run reaches the word's first bit, read
  ** from the up to 56 bits before the 0. */
  uint64_t gap = at == 0 ? 0 : ~word << (64 - at); /* bit at - 1 on top */
  uint64_t run = gap == 0 ? at : (uint64_t)__builtin_clzll(gap);
  if (run == at && close > 0) {
    uint64_t e = QUOTIENT_BLOCK_HEADER_BITS + close; /* block bit of the 0 */
    uint64_t from = e > 56 + QUOTIENT_BLOCK_HEADER_BITS
                        ? e - 56 : QUOTIENT_BLOCK_HEADER_BITS;
    uint64_t span = e - from; /* 1..56 bits, all in the unary part */
    uint64_t w = load_upto64(block + from / 8, end) >> (from % 8);
    uint64_t gaps = ~w << (64 - span); /* bit e - 1 at the top */
    run = gaps == 0 ? span : (uint64_t)__builtin_clzll(gaps);
    if (run == span)
      while (from > QUOTIENT_BLOCK_HEADER_BITS &&
             ((unsigned)block[(from - 1) / 8] >> ((from - 1) % 8) & 1u)) {
        from--; /* a bucket of more than 56 entries, bit by bit */
        run++;
      }
  }
  uint64_t r = key & mask;
  uint64_t lows = QUOTIENT_BLOCK_HEADER_BITS + bits;
  for (uint64_t i = close - q - run; i < close - q; i++) {
    uint64_t pos = lows + i * s.low_bits;
    uint64_t low = load_upto64(block + pos / 8, end) >> (pos % 8) & mask;
    if (low == r) return 1;
  }
  return 0;
}

int quotient_stats_of(const unsigned char *body, uint64_t blocks,
                      unsigned block_bytes, quotient_stats *stats, char *err,
                      size_t err_size) {
  stats->full_blocks = 0;
  double sum = 0.0;
  for (uint64_t b = 0; b < blocks; b++) {
    quotient_shape s;
    char why[160];
    if (quotient_block_check(body + b * block_bytes, block_bytes, &s, why,
                             sizeof why) != 0)
      return fail(err, err_size, "block %llu is damaged: %s",
                  (unsigned long long)b, why);
    if (s.count > 0 && s.buckets == 0) stats->full_blocks++;
    sum = sum + quotient_block_fpr(s.count, (uint64_t)s.buckets << s.low_bits);
  }
  stats->estimated_fpr = sum / (double)blocks;
  return 0;
}
