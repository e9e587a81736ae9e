/*
** Sizing a new filter within the connection's blob length limit, and the
** errors when it cannot be done.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef FUNCTIONS_SIZING_H
#define FUNCTIONS_SIZING_H

#include "core/bloom.h"
#include "functions/errors.h"

/* Sets the error for a sizing that failed: SQLITE_TOOBIG when too_big. */
void sql_sizing_failed(sqlite3_context *ctx, int too_big,
                       uint64_t n, double p);

/* Sizes a Bloom filter for n, p within the connection's blob length limit;
** sets the error (SQLITE_TOOBIG when too large) and returns -1 on failure. */
int sql_bloom_sizing(sqlite3_context *ctx, uint64_t n,
                     double p, bloom_sizing *sizing);

/* Allocates an empty Bloom filter for n, p and fills *sizing.  NULL after
** setting the error on ctx.  The blob comes from sql_aligned_alloc: free it
** with sql_aligned_free. */
unsigned char *sql_new_bloom(sqlite3_context *ctx, uint64_t n, double p, bloom_sizing *sizing);

#endif
