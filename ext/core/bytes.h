/*
** Byte order and wide arithmetic every part of the core needs: the format's
** little-endian fields, whatever the host's order, and the high half of a
** 64 x 64-bit product, which maps a uniform 64-bit hash onto [0, n) without
** a division (Lemire's multiply-shift); and the bit counts of the quotient
** filter's probes, with the popcnt instruction where the build or the CPU
** has it (BITS_COUNTING).  Plain C: no SQLite header.
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

/* Defined where the loader may choose between two copies of a function
** that counts bits, one built for popcnt (x86-64 ELF, gcc or clang, a build
** that may not assume the instruction): bits_cpu_has_popcnt then asks
** cpuid, for the resolver of a GNU ifunc.  The loader calls a resolver
** once, when it loads the library, and keeps the choice in the GOT, which
** is read-only after relocation: __builtin_cpu_supports would read libgcc's
** writable CPU model, and the extension keeps no writable global.
** BLOOM_NO_IFUNC leaves it undefined, so that tests can build the portable
** copy on a CPU that has popcnt.  A resolver is not instrumented: it may
** run while the loader relocates, before a sanitizer's runtime is ready
** and before the GOT entries that instrumentation reads (a fuzz target,
** whose coverage counts stack depth through one, crashed there); and
** `used`, since clang sees no call of a function an attribute names. */
#if !defined(__POPCNT__) && defined(__x86_64__) && defined(__ELF__) && \
    defined(__GNUC__) && !defined(BLOOM_NO_IFUNC)
#define BITS_IFUNC_POPCNT 1
#include <cpuid.h>
#if defined(__clang__)
#define BITS_NOT_INSTRUMENTED                                              \
  __attribute__((no_instrument_function,                                  \
                 no_sanitize("address", "thread", "undefined", "memory",  \
                             "coverage")))
#else
#define BITS_NOT_INSTRUMENTED                                              \
  __attribute__((no_instrument_function,                                  \
                 no_sanitize("address", "thread", "undefined")))
#endif
#define BITS_RESOLVER __attribute__((used)) BITS_NOT_INSTRUMENTED
/* cpuid's leaf 1, which every x86-64 CPU has, by the macro: the function
** __get_cpuid would be a call, instrumented, where no optimizer inlines */
__attribute__((always_inline)) BITS_NOT_INSTRUMENTED static inline int
bits_cpu_has_popcnt(void) {
  unsigned a, b, c, d;
  __cpuid(1, a, b, c, d);
  (void)a;
  (void)b;
  (void)d;
  return (c & bit_POPCNT) != 0;
}
#endif

/* BITS_COUNTING(type, name, ARGS, BODY) defines the function `type
** name(ARGS)` whose body is BODY(popcount), a macro given the count of bits
** to use: __builtin_popcountll where the build may use popcnt (-mpopcnt,
** -march=...); with BITS_IFUNC_POPCNT, two copies, name_plain counting by
** hand and name_popcnt built for popcnt, and `name` the ifunc that
** chooses one (hidden, not static: clang 14 gives a static ifunc default
** visibility, which would export it from the library); otherwise the copy
** that counts by hand.  ARGS is a macro of the parameters. */
#define BITS_POPCOUNT_INSTRUCTION(x) ((unsigned)__builtin_popcountll(x))
#if defined(__POPCNT__)
#define BITS_COUNTING(type, name, ARGS, BODY)                              \
  static inline type name(ARGS) { BODY(BITS_POPCOUNT_INSTRUCTION) }
#elif defined(BITS_IFUNC_POPCNT)
#define BITS_COUNTING(type, name, ARGS, BODY)                              \
  static type name##_plain(ARGS) { BODY(bits_popcount64) }                 \
  __attribute__((target("popcnt"))) static type name##_popcnt(ARGS) {      \
    BODY(BITS_POPCOUNT_INSTRUCTION)                                        \
  }                                                                        \
  typedef type name##_fn(ARGS);                                            \
  BITS_RESOLVER static name##_fn *name##_resolve(void) {                   \
    return bits_cpu_has_popcnt() ? name##_popcnt : name##_plain;           \
  }                                                                        \
  __attribute__((visibility("hidden"))) type name(ARGS)                    \
      __attribute__((ifunc(#name "_resolve")));
#else
#define BITS_COUNTING(type, name, ARGS, BODY)                              \
  static inline type name(ARGS) { BODY(bits_popcount64) }
#endif

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
