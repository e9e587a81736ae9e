/*
** A group's distinct hashes (collector.h).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "functions/collector.h"

int collector_add(sqlite3_context *ctx, hash_collector *c, filter_value_key k,
                  size_t max_distinct) {
  if (c->count == c->alloc) {
    if (c->count > 0) {
      c->count = filter_value_key_unique(c->keys, c->count);
      if (max_distinct && c->count > max_distinct) return 1;
    }
    /* Grow only when dropping repeats freed less than half the buffer. */
    if (c->count >= c->alloc / 2) {
      size_t grow = c->alloc ? c->alloc * 2 : 1024;
      filter_value_key *more = sqlite3_realloc64(c->keys, grow * sizeof *more);
      if (more == NULL) {
        sqlite3_result_error_nomem(ctx);
        return -1;
      }
      c->keys = more;
      c->alloc = grow;
    }
  }
  c->keys[c->count++] = k;
  return 0;
}

size_t collector_distinct(hash_collector *c) {
  c->count = filter_value_key_unique(c->keys, c->count);
  return c->count;
}

void collector_free(hash_collector *c) {
  sqlite3_free(c->keys);
  c->keys = NULL;
  c->count = c->alloc = 0;
}
