/*
** Memory for a filter blob of `bytes` whose body, after the 64-byte header,
** starts on a 64-byte boundary, so that each 512-bit block is one cache
** line.  sqlite3_malloc64 alone gives 8- or 16-byte alignment, which spreads
** most blocks over two lines, and a probe's cost then depends on where the
** copy lands (`make bench` shows the probe of the large filter, whose copy
** is aligned, against the bound form, whose buffer the caller chose).  For
** the copies kept and probed for many rows: bloom_build's filter,
** bloom_probe's and bloom_ref's copies.  NULL when out of memory; free only
** with sql_aligned_free (NULL is allowed), which also serves as the
** destructor given to sqlite3_result_blob64.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef FUNCTIONS_ALIGNED_H
#define FUNCTIONS_ALIGNED_H

#include "functions/api.h"

unsigned char *sql_aligned_alloc(sqlite3_uint64 bytes);
void sql_aligned_free(void *blob);

#endif
