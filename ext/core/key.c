/*
** Composite key encoding (FORMAT.md, "Composite keys").
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "core/key.h"

#include <string.h>

#include "core/bytes.h"
#include "core/hash.h"

size_t key_put_integer(unsigned char *dst, int64_t v) {
  dst[0] = FILTER_TYPE_INTEGER;
  store_le64(dst + 1, (uint64_t)v);
  return KEY_NUMBER_BYTES;
}

size_t key_put_real(unsigned char *dst, double v) {
  /* The same canonical form as filter_hash_real: integral values inside
  ** the int64 range are integers. */
  if (v >= -9223372036854775808.0 && v < 9223372036854775808.0) {
    int64_t i = (int64_t)v;
    if ((double)i == v) return key_put_integer(dst, i);
  }
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  dst[0] = FILTER_TYPE_REAL;
  store_le64(dst + 1, bits);
  return KEY_NUMBER_BYTES;
}

size_t key_put_bytes(unsigned char *dst, unsigned type, const void *data,
                     size_t len) {
  dst[0] = (unsigned char)type;
  store_le32(dst + 1, (uint32_t)len);
  if (len) memcpy(dst + 5, data, len);
  return 5 + len;
}
