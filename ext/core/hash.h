/*
** How a value becomes a 128-bit hash (FORMAT.md, "Hashing values").
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** SQL's `=` decides what counts as the same item: an INTEGER and a REAL
** with the same numeric value hash alike (42 = 42.0, -0.0 = 0), TEXT is
** hashed as UTF-8, BLOB as its bytes, and storage classes never collide on
** purpose because each class hashes with its own seed offset.
** Plain C: no SQLite header.
*/
#ifndef CORE_HASH_H
#define CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Type codes, added to the filter's seed to form MurmurHash3's seed. */
#define FILTER_TYPE_INTEGER 1
#define FILTER_TYPE_REAL 2
#define FILTER_TYPE_TEXT 3
#define FILTER_TYPE_BLOB 4

typedef struct filter_hash {
  uint64_t h1, h2;
} filter_hash;

filter_hash filter_hash_integer(int64_t v, uint32_t seed);
/* A REAL with an integral value inside the int64 range hashes as that
** integer; any other REAL hashes as its IEEE-754 bits.  v must not be NaN
** (SQLite never stores one). */
filter_hash filter_hash_real(double v, uint32_t seed);
/* type is FILTER_TYPE_TEXT or FILTER_TYPE_BLOB. len must be < 2^32. */
filter_hash filter_hash_bytes(unsigned type, const void *data, size_t len,
                              uint32_t seed);

/* 1 if v is a REAL that hashes as an INTEGER (an integral value in
** [-2^63, 2^63)), that integer in *i. */
int filter_real_is_integer(double v, int64_t *i);

/* Sorts hashes[0..count) and drops repeats: returns how many distinct
** hashes remain at the front. */
size_t filter_hash_unique(filter_hash *hashes, size_t count);

/* A value as a build tells values apart: its hash, and the type code
** (FILTER_TYPE_*) and length of the bytes hashed.  Values of different
** type codes or lengths may hash alike (MurmurHash3 mixes its seed into a
** value under 16 bytes only as seed ^ length, and zero bytes at the end
** of such a value add nothing), so the hash alone does not tell them
** apart; for one type code and one length under 16 bytes the hash is a
** one-to-one function of the bytes. */
typedef struct filter_value_key {
  filter_hash hash;
  uint32_t type;   /* FILTER_TYPE_*: an integral REAL's is INTEGER */
  uint32_t length; /* bytes hashed */
} filter_value_key;

/* Sorts keys[0..count) by hash, then type, then length, and drops repeats:
** returns how many distinct values remain at the front. */
size_t filter_value_key_unique(filter_value_key *keys, size_t count);

#endif
