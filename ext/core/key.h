/*
** Composite keys: several SQL values encoded as one BLOB, so that
** bloom_build(bloom_key(tenant, request), n, p) can index a multi-column
** key.  Every part is tagged with its storage class and length, so
** ('ab', 'c') and ('a', 'bc') differ; numbers are canonical, so 42 and 42.0
** agree (FORMAT.md, "Composite keys").  Plain C: no SQLite header.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef CORE_KEY_H
#define CORE_KEY_H

#include <stddef.h>
#include <stdint.h>

/* Bytes one part takes: 9 for a number, 5 + len for TEXT or BLOB. */
#define KEY_NUMBER_BYTES 9
static inline uint64_t key_bytes_part_size(size_t len) { return 5 + (uint64_t)len; }

/* Each writes one part at dst and returns the bytes written. */
size_t key_put_integer(unsigned char *dst, int64_t v);
size_t key_put_real(unsigned char *dst, double v); /* v is not NaN */
/* type is FILTER_TYPE_TEXT or FILTER_TYPE_BLOB; len < 2^32. */
size_t key_put_bytes(unsigned char *dst, unsigned type, const void *data,
                     size_t len);

#endif
