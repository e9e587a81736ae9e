/*
** The keys of a group's values (core/hash.h, filter_value_key), for
** building from the distinct ones: values that hash alike but differ in
** type or length stay apart.  When the buffer fills, repeats are dropped
** first, so memory follows the number of distinct values rather than of
** rows.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef FUNCTIONS_COLLECTOR_H
#define FUNCTIONS_COLLECTOR_H

#include <stddef.h>

#include "core/hash.h"
#include "functions/api.h"

typedef struct hash_collector {
  filter_value_key *keys;
  size_t count, alloc;
} hash_collector;

/* Appends k.  Returns 0; -1 after setting SQLITE_NOMEM; or 1 (nothing set)
** when, with max_distinct > 0, the group holds more distinct values. */
int collector_add(sqlite3_context *ctx, hash_collector *c, filter_value_key k,
                  size_t max_distinct);
/* Sorts (by hash first) and drops repeats: the distinct values' keys are
** keys[0..return). */
size_t collector_distinct(hash_collector *c);
void collector_free(hash_collector *c);

#endif
