/*
** An independent reader of the filter blob format, written from
** ext/FORMAT.md alone (it shares no code with ext/), so the tests and the
** fuzz targets can compare the extension's verdict on a blob with the
** document's: spec_bloom_valid() applies checks 1-4 (kind 1),
** spec_cuckoo_valid() checks 1-3 and 5 (kind 2), spec_layered_valid() the
** rules of kind 3, and spec_layered_build() assembles a kind-3 blob from
** its layers.  A cuckoo body's size is
** compared in 128-bit arithmetic here (buckets * 4 * f cannot wrap), a
** different way from the extension's divisions; a Bloom body's as
** bits / 8 == length - 64, the way FORMAT.md prescribes.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef BLOOM_SPEC_H
#define BLOOM_SPEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "le.h"

#define SPEC_HEADER 64
#define SPEC_BLOCK_BITS 512u

/* MurmurHash3's 64-bit finalizer (fmix64), which FORMAT.md uses in the
** hash itself and, for cuckoo filters, to spread a fingerprint before it
** picks the other bucket. */
static inline uint64_t spec_fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

/* Header field offsets (FORMAT.md, "Header"). */
enum {
  SPEC_OFF_VERSION = 4, SPEC_OFF_KIND = 5, SPEC_OFF_HASH = 6,
  SPEC_OFF_FLAGS = 7, SPEC_OFF_SEED = 8, SPEC_OFF_HASHES = 12,
  SPEC_OFF_BITS = 16, SPEC_OFF_CAPACITY = 24, SPEC_OFF_FPR = 32,
  SPEC_OFF_INSERTED = 40, SPEC_OFF_RESERVED = 48
};

/* FORMAT.md's checks 1-3 (common to every kind) for the given kind. */
static inline int spec_common_valid(const unsigned char *b, size_t len,
                                    unsigned kind) {
  if (b == NULL || len < SPEC_HEADER) return 0;
  if (memcmp(b, "BLMF", 4) != 0) return 0;
  if (b[SPEC_OFF_VERSION] != 1 || b[SPEC_OFF_KIND] != kind ||
      b[SPEC_OFF_HASH] != 1 || b[SPEC_OFF_FLAGS] != 0)
    return 0;
  for (int i = SPEC_OFF_RESERVED; i < SPEC_HEADER; i++)
    if (b[i] != 0) return 0;
  uint64_t capacity = le64(b + SPEC_OFF_CAPACITY);
  if (capacity < 1 || capacity > (uint64_t)INT64_MAX) return 0;
  double p = le_double(b + SPEC_OFF_FPR);
  return p > 0.0 && p < 1.0;
}

/* 1 if FORMAT.md's checks 1-4 accept b[0..len) as a Bloom filter. */
static inline int spec_bloom_valid(const unsigned char *b, size_t len) {
  if (!spec_common_valid(b, len, 1)) return 0;
  uint32_t k = le32(b + SPEC_OFF_HASHES);
  if (k < 1 || k > 64) return 0;
  uint64_t bits = le64(b + SPEC_OFF_BITS);
  if (bits == 0 || bits % SPEC_BLOCK_BITS != 0) return 0;
  return bits / 8 == (uint64_t)(len - SPEC_HEADER);
}

/* 1 if FORMAT.md's checks 1-3 and 5 accept b[0..len) as a cuckoo filter:
** 4 slots per bucket, layout 0 or 1 (byte 14), f in 4..64, buckets a power
** of two (layout 0) or even (layout 1), a body of exactly
** ceil(buckets * 4 * f / 8) bytes, items <= 4 * buckets. */
static inline int spec_cuckoo_valid(const unsigned char *b, size_t len) {
  if (!spec_common_valid(b, len, 2)) return 0;
  unsigned f = b[12], layout = b[14];
  if (b[13] != 4 || layout > 1 || b[15] != 0) return 0;
  if (f < 4 || f > 64) return 0;
  uint64_t buckets = le64(b + 16);
  if (buckets == 0) return 0;
  if (layout == 0 && (buckets & (buckets - 1)) != 0) return 0;
  if (layout == 1 && buckets % 2 != 0) return 0;
  __extension__ typedef unsigned __int128 u128;
  u128 body_bits = (u128)buckets * 4 * f;
  if ((u128)(len - SPEC_HEADER) != (body_bits + 7) / 8) return 0;
  return (u128)le64(b + SPEC_OFF_INSERTED) <= (u128)buckets * 4;
}

/* The bytes of a layered filter's directory: 8 a layer, padded with zeros
** to a multiple of 64 (FORMAT.md, "Kind 3"). */
static inline size_t spec_layered_directory(unsigned layers) {
  return 64 * (((size_t)layers + 7) / 8);
}

/* 1 if FORMAT.md's "Kind 3" accepts b[0..len) as a layered filter whose
** layers are of kind layer_kind (0: either).  Sums in 128 bits. */
static inline int spec_layered_valid(const unsigned char *b, size_t len,
                                     unsigned layer_kind) {
  if (!spec_common_valid(b, len, 3)) return 0;
  unsigned lk = b[12], layers = b[13];
  if (lk != 1 && lk != 2) return 0;
  if (layer_kind && lk != layer_kind) return 0;
  if (layers < 1 || layers > 64) return 0;
  if ((unsigned)b[14] + 256u * b[15] < 1) return 0;
  double t = le_double(b + 16);
  if (!(t > 0.0 && t <= 1.0)) return 0;
  /* The directory, padded with zeros to a multiple of 64 bytes. */
  size_t directory = spec_layered_directory(layers);
  if (len - SPEC_HEADER < directory) return 0;
  for (size_t i = 8 * (size_t)layers; i < directory; i++)
    if (b[SPEC_HEADER + i] != 0) return 0;
  __extension__ typedef unsigned __int128 u128;
  u128 sum = 0, capacity = 0, count = 0;
  size_t at = SPEC_HEADER + directory;
  for (unsigned i = 0; i < layers; i++) sum += le64(b + SPEC_HEADER + 8 * i);
  if (sum != (u128)(len - at)) return 0;
  for (unsigned i = 0; i < layers; i++) {
    size_t n = (size_t)le64(b + SPEC_HEADER + 8 * i);
    const unsigned char *l = b + at;
    if (!(lk == 1 ? spec_bloom_valid(l, n) : spec_cuckoo_valid(l, n)))
      return 0;
    if (le32(l + SPEC_OFF_SEED) != le32(b + SPEC_OFF_SEED)) return 0;
    capacity += le64(l + SPEC_OFF_CAPACITY);
    count += le64(l + SPEC_OFF_INSERTED);
    at += n;
  }
  if (capacity > (u128)INT64_MAX) capacity = (u128)INT64_MAX;
  if (count > (u128)UINT64_MAX) count = (u128)UINT64_MAX;
  return capacity == le64(b + SPEC_OFF_CAPACITY) &&
         count == le64(b + SPEC_OFF_INSERTED);
}

/* A layered blob assembled from complete layers by FORMAT.md ("Kind 3")
** alone: header (layer kind and seed from layer 0; capacity and count the
** layers' sums, saturating), directory, layers.  Exactly sized, from
** malloc; *out_len gets its length. */
static inline unsigned char *spec_layered_build(
    const unsigned char *const *layers, const size_t *lens, unsigned n,
    unsigned growth, double tightening, double fpr, size_t *out_len) {
  size_t directory = spec_layered_directory(n);
  size_t len = SPEC_HEADER + directory;
  __extension__ typedef unsigned __int128 u128;
  u128 capacity = 0, count = 0;
  for (unsigned i = 0; i < n; i++) {
    len += lens[i];
    capacity += le64(layers[i] + SPEC_OFF_CAPACITY);
    count += le64(layers[i] + SPEC_OFF_INSERTED);
  }
  if (capacity > (u128)INT64_MAX) capacity = (u128)INT64_MAX;
  if (count > (u128)UINT64_MAX) count = (u128)UINT64_MAX;
  unsigned char *b = calloc(1, len);
  if (b == NULL) return NULL;
  memcpy(b, "BLMF", 4);
  b[4] = 1;
  b[5] = 3;
  b[6] = 1;
  memcpy(b + 8, layers[0] + 8, 4);
  b[12] = layers[0][5];
  b[13] = (unsigned char)n;
  b[14] = (unsigned char)(growth & 255);
  b[15] = (unsigned char)(growth >> 8);
  put_le_double(b + 16, tightening);
  put_le64(b + 24, (uint64_t)capacity);
  put_le_double(b + 32, fpr);
  put_le64(b + 40, (uint64_t)count);
  size_t at = SPEC_HEADER + directory;
  for (unsigned i = 0; i < n; i++) {
    put_le64(b + SPEC_HEADER + 8 * i, lens[i]);
    memcpy(b + at, layers[i], lens[i]);
    at += lens[i];
  }
  *out_len = len;
  return b;
}

/* Two valid Bloom filters combine bit for bit when version, kind, hash,
** seed, bits and hashes agree: header bytes 4..23 (flags, also in that
** range, are 0 in both). */
static inline int spec_same_shape(const unsigned char *a,
                                  const unsigned char *b) {
  return memcmp(a + 4, b + 4, 20) == 0;
}

#endif
