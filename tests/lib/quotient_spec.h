/*
** Kind 4 (quotient filter) read from ext/FORMAT.md alone, for the tests
** and the fuzz targets: the header checks (spec_quotient_valid), a block's
** checks (spec_quotient_block_valid), and a probe of one block by decoding
** all of it (spec_quotient_block_has); layout 1 ("Kind 4, layout 1:
** quotient leaves"): the header and directory checks in O(1)
** (spec_qleaves_valid) and every leaf's (spec_qleaves_all_valid).  Bit by
** bit, in the document's words; no code shared with ext/.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef QUOTIENT_SPEC_H
#define QUOTIENT_SPEC_H

#include "bloom_spec.h"

/* 1 if the header checks of FORMAT.md accept b[0..len) as kind 4. */
static inline int spec_quotient_valid(const unsigned char *b, size_t len) {
  if (!spec_common_valid(b, len, 4)) return 0;
  unsigned bb = (unsigned)b[12] | (unsigned)b[13] << 8;
  if (b[14] != 0 || b[15] != 0) return 0;
  if (bb < 64 || bb > 1024 || bb % 64 != 0) return 0;
  uint64_t blocks = le64(b + 16);
  __extension__ typedef unsigned __int128 u128;
  return blocks >= 1 && (u128)(len - SPEC_HEADER) == (u128)blocks * bb;
}

static inline unsigned spec_quotient_block_bytes(const unsigned char *b) {
  return (unsigned)b[12] | (unsigned)b[13] << 8;
}

static inline int spec_quotient_bit(const unsigned char *block, uint64_t t) {
  return block[t / 8] >> (t % 8) & 1;
}

/* 1 if a block of bb bytes is empty, full or coded by FORMAT.md's rules. */
static inline int spec_quotient_block_valid(const unsigned char *block,
                                            unsigned bb) {
  uint32_t word = le32(block);
  uint64_t c = word & 8191, m = word >> 13 & 8191, l = word >> 26;
  if (c == 0) return m == 0 && l == 0;
  if (m == 0) return l == 0;
  if (l > 51 || 32 + c + m + c * l > 8 * (uint64_t)bb) return 0;
  uint64_t ones = 0;
  for (uint64_t t = 0; t < c + m; t++)
    ones += (uint64_t)spec_quotient_bit(block, 32 + t);
  return ones == c;
}

/* 1 if every block of a blob spec_quotient_valid accepted is valid. */
static inline int spec_quotient_blocks_valid(const unsigned char *b) {
  unsigned bb = spec_quotient_block_bytes(b);
  uint64_t blocks = le64(b + 16);
  for (uint64_t i = 0; i < blocks; i++)
    if (!spec_quotient_block_valid(b + SPEC_HEADER + i * bb, bb)) return 0;
  return 1;
}

/* ---- layout 1: leaves ---------------------------------------------------- */

/* 1 if the O(1) checks of "Kind 4, layout 1" accept b[0..len): the common
** header checks, block_bytes 0, byte 14 = 1, byte 15 = 0, L >= 1,
** floor(body / 16) >= L, and the last directory entry's end = the records
** area's size. */
static inline int spec_qleaves_valid(const unsigned char *b, size_t len) {
  if (!spec_common_valid(b, len, 4)) return 0;
  if (b[12] != 0 || b[13] != 0 || b[14] != 1 || b[15] != 0) return 0;
  uint64_t L = le64(b + 16), body = (uint64_t)len - SPEC_HEADER;
  if (L < 1 || body / 16 < L) return 0;
  return le64(b + SPEC_HEADER + 16 * (L - 1) + 8) == body - 16 * L;
}

/* A leaf record r[0..len) read at depth d: 1 if it is exactly its sections
** and none is damaged ("A leaf's record"), with *entries the sum of c.
** With shape_only, only what a probe must check ("Body": the record fills
** exactly its bytes, so its sections' fields are in range and in order),
** not the unary parts, the keys' order or the padding. */
static inline int spec_qleaf_record_checked(const unsigned char *r,
                                            uint64_t len, unsigned d,
                                            uint64_t *entries, int shape_only) {
  *entries = 0;
  if (len < 1 || r[0] > 65) return 0;
  uint64_t o = 1;
  unsigned last_b = 1000;
  for (unsigned k = 0; k < r[0]; k++) {
    if (len - o < 3) return 0;
    uint32_t w = (uint32_t)r[o] | (uint32_t)r[o + 1] << 8 | (uint32_t)r[o + 2] << 16;
    unsigned c = w & 4095, bits = w >> 12 & 127, m = w >> 19 & 31;
    if (c < 1 || bits > 64 || d + bits > 128 ||
        m > (bits < 16 ? bits : 16) || bits >= last_b)
      return 0;
    last_b = bits;
    unsigned l = bits - m;
    uint64_t unary = c + ((uint64_t)1 << m), total = unary + (uint64_t)c * l;
    uint64_t bytes = (total + 7) / 8;
    if (len - o - 3 < bytes) return 0;
    const unsigned char *p = r + o + 3;
    if (shape_only) {
      *entries += c;
      o += 3 + bytes;
      continue;
    }
    /* the unary part: exactly c ones and 2^m zeros; keys ascending */
    uint64_t ones = 0, q = 0, i = 0, prev_hi = 0, prev_lo = 0;
    for (uint64_t t = 0; t < unary; t++) {
      if (spec_quotient_bit(p, t)) {
        if (q >= ((uint64_t)1 << m) || i >= c) return 0; /* a one too many */
        uint64_t lo = 0;
        for (unsigned j = 0; j < l; j++)
          lo |= (uint64_t)spec_quotient_bit(p, unary + i * l + j) << j;
        if (i > 0 && (q < prev_hi || (q == prev_hi && lo < prev_lo))) return 0;
        prev_hi = q;
        prev_lo = lo;
        ones++;
        i++;
      } else {
        q++;
      }
    }
    if (ones != c || q != ((uint64_t)1 << m)) return 0;
    for (uint64_t t = total; t < 8 * bytes; t++)
      if (spec_quotient_bit(p, t)) return 0; /* padding bits are 0 */
    *entries += c;
    o += 3 + bytes;
  }
  return o == len;
}

static inline int spec_qleaf_record_valid(const unsigned char *r, uint64_t len,
                                          unsigned d, uint64_t *entries) {
  return spec_qleaf_record_checked(r, len, d, entries, 0);
}

/* The depth of a node (1 to 2^63 - 1, else 64: no node). */
static inline unsigned spec_qnode_depth(uint64_t node) {
  if (node == 0) return 64;
  unsigned d = 63;
  while (!(node >> d & 1)) d--;
  return d;
}

/* 1 if the nodes of a blob spec_qleaves_valid accepted, in directory
** order, cover the hash space exactly once, each at depth 0 to 62. */
static inline int spec_qleaves_cover(const unsigned char *b) {
  __extension__ typedef unsigned __int128 u128;
  uint64_t L = le64(b + 16);
  u128 next = 0;
  for (uint64_t i = 0; i < L; i++) {
    uint64_t node = le64(b + SPEC_HEADER + 16 * i);
    unsigned d = spec_qnode_depth(node);
    if (d > 62) return 0;
    u128 start = (u128)(node - ((uint64_t)1 << d)) << (64 - d);
    if (start != next) return 0;
    next = start + ((u128)1 << (64 - d));
  }
  return next == (u128)1 << 64;
}

/* 1 if leaf i of a blob spec_qleaves_valid accepted is whole by itself:
** its node of depth 0 to 62, its bounds in the area in order, its record
** valid at its depth; *entries its entries. */
static inline int spec_qleaf_valid(const unsigned char *b, uint64_t i,
                                   uint64_t *entries) {
  uint64_t L = le64(b + 16);
  const unsigned char *dir = b + SPEC_HEADER, *area = dir + 16 * L;
  uint64_t area_n = le64(dir + 16 * (L - 1) + 8);
  uint64_t lo = i ? le64(dir + 16 * (i - 1) + 8) : 0, hi = le64(dir + 16 * i + 8);
  unsigned d = spec_qnode_depth(le64(dir + 16 * i));
  *entries = 0;
  if (d > 62 || lo > hi || hi > area_n) return 0;
  return spec_qleaf_record_valid(area + lo, hi - lo, d, entries);
}

/* 1 if every leaf of a blob spec_qleaves_valid accepted is whole and the
** leaves cover the hash space once; *items (when not NULL) the entries of
** all leaves. */
static inline int spec_qleaves_all_valid(const unsigned char *b,
                                         uint64_t *items) {
  if (!spec_qleaves_cover(b)) return 0;
  uint64_t sum = 0, L = le64(b + 16);
  for (uint64_t i = 0; i < L; i++) {
    uint64_t entries;
    if (!spec_qleaf_valid(b, i, &entries)) return 0;
    sum += entries;
  }
  if (items) *items = sum;
  return 1;
}

#endif
