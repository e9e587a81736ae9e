/*
** bloom_build(value, n, p): aggregate that adds every non-NULL value of the
** group to a Bloom filter sized for n items at false-positive rate p.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   SELECT bloom_build(url, 1000000, 0.01) FROM visited;
**   SELECT bloom_build(url) FROM visited;           -- sized from the data
**   SELECT bloom_build(url, NULL, 0.001) FROM visited;
**
** n and p come from the first row; a later row with other values is an
** error.  A group with no rows gives NULL; a group of only NULLs gives an
** empty filter.  Bits are ORed in, so the result does not depend on row
** order.
**
** Sized from the data (n omitted or NULL; p defaults to 0.01): the 16-byte
** hashes of the group's values are collected (repeats dropped whenever the
** buffer fills, so memory follows the distinct values), counted at the end,
** and the filter sized for that count is filled in sorted order (which walks
** it front to back).
**
** Out-of-cache filters: each insert is a write to a random cache line, so
** rows go through bloom_lagged (core/bloom.h), which prefetches a row's
** block and sets its bits BLOOM_INSERT_LAG rows later.
*/
#include "core/bloom.h"
#include "functions/aligned.h"
#include "functions/collector.h"
#include "functions/group.h"
#include "functions/registry.h"
#include "functions/sizing.h"
#include "functions/value_hash.h"

#include <string.h>

typedef struct build_state {
  group_state group; /* first: sql_group_row reads it */
  uint64_t inserted;
  /* n given: the filter, filled as rows arrive */
  unsigned char *blob;
  uint64_t blob_bytes;
  bloom_lagged inserts; /* into blob's body */
  /* sized from the data: the hashes seen */
  hash_collector seen;
} build_state;

static int start_filter(sqlite3_context *ctx, build_state *s, uint64_t n) {
  bloom_sizing sizing;
  s->blob = sql_new_bloom(ctx, n, s->group.p, &sizing);
  if (s->blob == NULL) return -1;
  s->blob_bytes = sizing.bytes;
  bloom_lagged_init(&s->inserts, s->blob + FILTER_HEADER_BYTES,
                    sizing.bits / BLOOM_BLOCK_BITS, sizing.hashes);
  return 0;
}

/* On the group's first row: the filter (n given) or a check of p alone
** (sized from the data). */
static int bloom_build_first_row(sqlite3_context *ctx, group_state *g) {
  build_state *s = (build_state *)g; /* its first member */
  if (s->group.sized_from_data) {
    bloom_sizing sizing;
    return sql_bloom_sizing(ctx, 1, s->group.p, &sizing);
  }
  return start_filter(ctx, s, s->group.n);
}

void sql_bloom_build_step(sqlite3_context *ctx, int argc,
                          sqlite3_value **argv) {
  build_state *s = sqlite3_aggregate_context(ctx, sizeof *s);
  filter_hash h;
  if (sql_group_row(ctx, argc, argv, s ? &s->group : NULL, bloom_build_first_row,
                    &h) != 1)
    return; /* NULL values are skipped */
  if (s->group.sized_from_data) {
    if (collector_add(ctx, &s->seen, value_key(argv[0], h), 0) != 0) {
      s->group.failed = 1;
      return;
    }
  } else {
    bloom_lagged_insert(&s->inserts, h);
  }
  s->inserted++;
}

void sql_bloom_build_final(sqlite3_context *ctx) {
  build_state *s = sqlite3_aggregate_context(ctx, 0);
  if (s == NULL || !s->group.started) {
    sqlite3_result_null(ctx); /* no rows, like sum() */
    return;
  }
  /* Also reached after an error in a step: then only free. */
  if (!s->group.failed && s->group.sized_from_data) {
    size_t distinct = collector_distinct(&s->seen);
    if (start_filter(ctx, s, distinct ? distinct : 1) == 0) {
      /* Sorted by h1, so the inserts walk the filter front to back. */
      for (size_t i = 0; i < distinct; i++)
        bloom_insert(s->inserts.bits, s->inserts.blocks, s->inserts.k,
                     s->seen.keys[i].hash);
    }
  }
  collector_free(&s->seen);
  if (s->blob == NULL) return;
  if (s->group.failed) {
    sql_aligned_free(s->blob);
    s->blob = NULL;
    return;
  }
  bloom_lagged_flush(&s->inserts);
  filter_write_count(s->blob, s->inserted);
  /* Hand the buffer to SQLite: no copy of a possibly large filter. */
  sqlite3_result_blob64(ctx, s->blob, s->blob_bytes, sql_aligned_free);
  s->blob = NULL;
}
