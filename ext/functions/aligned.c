/*
** Cache-line-aligned filter copies (aligned.h).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "functions/aligned.h"

#include <stddef.h>
#include <stdint.h>

/* The blob starts 1 to 64 bytes into the allocation; the byte just before
** it holds that distance, for sql_aligned_free. */
#define BLOB_ALIGN 64
unsigned char *sql_aligned_alloc(sqlite3_uint64 bytes) {
  unsigned char *raw = sqlite3_malloc64(bytes + BLOB_ALIGN);
  if (raw == NULL) return NULL;
  size_t shift = BLOB_ALIGN - (size_t)((uintptr_t)raw % BLOB_ALIGN);
  raw[shift - 1] = (unsigned char)shift;
  return raw + shift;
}

void sql_aligned_free(void *blob) {
  if (blob == NULL) return;
  unsigned char *start = blob;
  sqlite3_free(start - start[-1]);
}
