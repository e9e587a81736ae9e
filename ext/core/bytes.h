/*
** Byte order and wide arithmetic every part of the core needs: the format's
** little-endian fields, whatever the host's order, and the high half of a
** 64 x 64-bit product, which maps a uniform 64-bit hash onto [0, n) without
** a division (Lemire's multiply-shift).  Plain C: no SQLite header.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef CORE_BYTES_H
#define CORE_BYTES_H

#include <stdint.h>
#include <string.h>

/* The loads are on every probe's path (filter_parse): memcpy makes them one
** unaligned load on little-endian hosts. */
static inline uint64_t load_le64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}
static inline uint32_t load_le32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  return v;
}
/* The stores mirror the loads: filter_hash_integer stores the value's 8
** bytes before every hash, and gcc -O2 keeps a byte-by-byte loop as 8
** shifts and byte stores. */
static inline void store_le64(unsigned char *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  memcpy(p, &v, sizeof v);
}
static inline void store_le32(unsigned char *p, uint32_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  memcpy(p, &v, sizeof v);
}

/* a + b, stopping at UINT64_MAX (the counters of a header). */
static inline uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* floor(a * b / 2^64): for a uniform a, a uniform value in [0, b). */
static inline uint64_t mul_high64(uint64_t a, uint64_t b) {
#ifdef __SIZEOF_INT128__
  return (uint64_t)(((unsigned __int128)a * b) >> 64);
#else
  uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32;
  uint64_t b_lo = b & 0xffffffffu, b_hi = b >> 32;
  uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo;
  uint64_t lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
  uint64_t mid = (lo_lo >> 32) + (hi_lo & 0xffffffffu) + lo_hi;
  return hi_hi + (hi_lo >> 32) + (mid >> 32);
#endif
}

/* The bits set in x.  By hand: without -mpopcnt, which a portable build
** cannot assume, __builtin_popcountll is a call into libgcc's table, and a
** probe of a quotient block or leaf counts every word of a unary part. */
static inline unsigned bits_popcount64(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555u);
  x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
  return (unsigned)((x * 0x0101010101010101u) >> 56);
}

/* The index of the lowest set bit of x (64 for x = 0). */
static inline unsigned bits_low64(uint64_t x) {
#if defined(__GNUC__)
  return x ? (unsigned)__builtin_ctzll(x) : 64u;
#else
  unsigned n = 0;
  if (x == 0) return 64u;
  while (!(x & 1)) {
    x >>= 1;
    n++;
  }
  return n;
#endif
}

/* The index of the highest set bit of x (0 for x = 0). */
static inline unsigned bits_top64(uint64_t x) {
#if defined(__GNUC__)
  return 63u - (unsigned)__builtin_clzll(x | 1);
#else
  unsigned n = 0;
  while (x >>= 1) n++;
  return n;
#endif
}

#endif
