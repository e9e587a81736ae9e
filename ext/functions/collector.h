/*
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** The hashes of a group's values, for building from the distinct ones.
** When the buffer fills, repeats are dropped first, so memory follows the
** number of distinct values rather than of rows.
*/
#ifndef FUNCTIONS_COLLECTOR_H
#define FUNCTIONS_COLLECTOR_H

#include <stddef.h>

#include "core/hash.h"
#include "functions/api.h"

typedef struct hash_collector {
  filter_hash *hashes;
  size_t count, alloc;
} hash_collector;

/* Appends h.  Returns 0; -1 after setting SQLITE_NOMEM; or 1 (nothing set)
** when, with max_distinct > 0, the group holds more distinct values. */
int collector_add(sqlite3_context *ctx, hash_collector *c, filter_hash h,
                  size_t max_distinct);
/* Sorts and drops repeats: the distinct hashes are hashes[0..return). */
size_t collector_distinct(hash_collector *c);
void collector_free(hash_collector *c);

#endif
