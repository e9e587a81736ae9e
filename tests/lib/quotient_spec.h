/*
** Kind 4 (quotient filter) read from ext/FORMAT.md alone, for the tests
** and the fuzz targets: the header checks (spec_quotient_valid), a block's
** checks (spec_quotient_block_valid), and a probe of one block by decoding
** all of it (spec_quotient_block_has).  Bit by bit, in the document's
** words; no code shared with ext/.
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

#endif
