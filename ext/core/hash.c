/*
** Value hashing: canonical encoding of SQL values fed to MurmurHash3
** x64_128 from Debian's libmurmurhash (linked statically).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "core/hash.h"
#include "core/bytes.h"

#include <murmurhash.h>
#include <stdlib.h>
#include <string.h>

static filter_hash murmur(const void *data, size_t len, uint32_t seed) {
  uint64_t out[2];
  /* libmurmurhash reads nothing when len is 0, but give it a real pointer. */
  static const unsigned char empty[1] = {0};
  lmmh_x64_128(len ? data : empty, (unsigned int)len, seed, out);
  filter_hash h = {out[0], out[1]};
  return h;
}

filter_hash filter_hash_integer(int64_t v, uint32_t seed) {
  unsigned char le[8];
  store_le64(le, (uint64_t)v);
  return murmur(le, sizeof le, seed + FILTER_TYPE_INTEGER);
}

int filter_real_is_integer(double v, int64_t *i) {
  /* [-2^63, 2^63) is exactly the range of int64; both bounds are exact
  ** doubles, so the cast below is defined. */
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return 0;
  *i = (int64_t)v;
  return (double)*i == v;
}

filter_hash filter_hash_real(double v, uint32_t seed) {
  int64_t i;
  if (filter_real_is_integer(v, &i)) return filter_hash_integer(i, seed);
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  unsigned char le[8];
  store_le64(le, bits);
  return murmur(le, sizeof le, seed + FILTER_TYPE_REAL);
}

filter_hash filter_hash_bytes(unsigned type, const void *data, size_t len,
                              uint32_t seed) {
  return murmur(data, len, seed + type);
}

static int hash_cmp(const void *pa, const void *pb) {
  const filter_hash *a = pa, *b = pb;
  if (a->h1 != b->h1) return a->h1 < b->h1 ? -1 : 1;
  if (a->h2 != b->h2) return a->h2 < b->h2 ? -1 : 1;
  return 0;
}

/* Sorts count items of `size` bytes and keeps the first of each run of
** equal ones at the front: how many remain. */
static size_t unique_sorted(void *items, size_t count, size_t size,
                            int (*cmp)(const void *, const void *)) {
  if (count == 0) return 0;
  qsort(items, count, size, cmp);
  unsigned char *at = items;
  size_t kept = 1;
  for (size_t i = 1; i < count; i++)
    if (cmp(at + (kept - 1) * size, at + i * size) != 0)
      memmove(at + kept++ * size, at + i * size, size);
  return kept;
}

size_t filter_hash_unique(filter_hash *hashes, size_t count) {
  return unique_sorted(hashes, count, sizeof *hashes, hash_cmp);
}

static int key_cmp(const void *pa, const void *pb) {
  const filter_value_key *a = pa, *b = pb;
  int c = hash_cmp(&a->hash, &b->hash);
  if (c != 0) return c;
  if (a->type != b->type) return a->type < b->type ? -1 : 1;
  if (a->length != b->length) return a->length < b->length ? -1 : 1;
  return 0;
}

size_t filter_value_key_unique(filter_value_key *keys, size_t count) {
  return unique_sorted(keys, count, sizeof *keys, key_cmp);
}
