/*
** Bytes of a filter blob as the tests read and craft them: little-endian
** fields (FORMAT.md stores every field little-endian), a bit count, and
** exactly sized heap copies, so that reading one byte past a blob shows
** under ASan.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef TESTS_BLOB_H
#define TESTS_BLOB_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "le.h"
#include "tap.h"


static inline uint64_t popcount_bytes(const unsigned char *p, size_t n) {
  uint64_t c = 0;
  for (size_t i = 0; i < n; i++)
    for (unsigned char b = p[i]; b; b &= (unsigned char)(b - 1)) c++;
  return c;
}

/* An exactly sized heap copy (at least 1 byte allocated, so that a 0-length
** blob is still bound as a BLOB, not NULL); exit(2) when out of memory. */
static inline unsigned char *dup_exact(const void *src, size_t len) {
  unsigned char *p = malloc(len ? len : 1);
  if (!p) {
    tap_diag("out of memory");
    exit(2);
  }
  if (len) memcpy(p, src, len);
  return p;
}

#endif
