/*
** quotient_build(value, n [, p]): aggregate that builds a quotient filter
** (kind 4) for n items at false-positive rate p (default 0.01) holding
** each distinct non-NULL value of the group once.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   SELECT quotient_build(email, 100000, 0.001) FROM users;
**   SELECT quotient_build(email, NULL) FROM users;    -- sized from the data
**
** A block stores its entries sorted, so the build needs them all before
** it writes one: the group's keys (hash, type, length) are collected and
** made unique as cuckoo_build does (two values are one when all three are
** equal, so that a store that deletes later never takes another value's
** copy), sorted by hash, and each block's run of them encoded at once.
** The bytes depend only on the set of values.  More distinct values than
** n is an error: the sizing promises p only up to n.
*/
#include "core/quotient.h"
#include "functions/collector.h"
#include "functions/group.h"
#include "functions/registry.h"
#include "functions/sizing.h"
#include "functions/value_hash.h"

typedef struct qbuild_state {
  group_state group;      /* first: sql_group_row reads it */
  quotient_sizing sizing; /* n given: sized on the first row */
  hash_collector seen;
} qbuild_state;

static int size_quotient(sqlite3_context *ctx, uint64_t n, double p,
                         quotient_sizing *out) {
  int limit = sqlite3_limit(sqlite3_context_db_handle(ctx),
                            SQLITE_LIMIT_LENGTH, -1);
  quotient_sizing_status st =
      quotient_sizing_for(n, p, FILTER_MIN_FPR, (uint64_t)limit, out);
  if (st == QUOTIENT_SIZING_OK) return 0;
  sql_sizing_failed(ctx, st == QUOTIENT_SIZING_TOO_BIG, n, p);
  return -1;
}

static int quotient_build_first_row(sqlite3_context *ctx, group_state *g) {
  qbuild_state *s = (qbuild_state *)g; /* its first member */
  return size_quotient(ctx, g->sized_from_data ? 1 : g->n, g->p, &s->sizing);
}

void sql_quotient_build_step(sqlite3_context *ctx, int argc,
                             sqlite3_value **argv) {
  qbuild_state *s = sqlite3_aggregate_context(ctx, sizeof *s);
  filter_hash h;
  if (sql_group_row(ctx, argc, argv, s ? &s->group : NULL,
                    quotient_build_first_row, &h) != 1)
    return; /* NULL values are skipped */
  size_t most = s->group.sized_from_data ? 0 : (size_t)s->group.n;
  int rc = collector_add(ctx, &s->seen, value_key(argv[0], h), most);
  if (rc == 1)
    sql_error(ctx, "capacity exceeded: more than n = %llu distinct values",
              (unsigned long long)s->group.n);
  if (rc != 0) s->group.failed = 1;
}

/* Encodes the sorted distinct keys block by block into a new blob; NULL
** after setting the error. */
static unsigned char *fill(sqlite3_context *ctx, qbuild_state *s,
                           size_t distinct) {
  if (distinct > s->sizing.capacity) {
    sql_error(ctx, "capacity exceeded: %llu distinct values, more than n = "
              "%llu", (unsigned long long)distinct,
              (unsigned long long)s->sizing.capacity);
    return NULL;
  }
  unsigned char *blob = sqlite3_malloc64(s->sizing.bytes);
  if (blob == NULL) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  quotient_write_empty(blob, &s->sizing);
  unsigned char *body = blob + FILTER_HEADER_BYTES;
  const filter_value_key *keys = s->seen.keys;
  uint64_t *h2s = NULL;
  size_t room = 0;
  for (size_t i = 0; i < distinct;) {
    uint64_t b = quotient_block_of(keys[i].hash, s->sizing.blocks);
    size_t end = i + 1;
    while (end < distinct &&
           quotient_block_of(keys[end].hash, s->sizing.blocks) == b)
      end++;
    if (end - i > room) {
      room = end - i > 2 * room ? end - i : 2 * room;
      uint64_t *more = sqlite3_realloc64(h2s, room * sizeof *more);
      if (more == NULL) {
        sqlite3_free(h2s);
        sqlite3_free(blob);
        sqlite3_result_error_nomem(ctx);
        return NULL;
      }
      h2s = more;
    }
    for (size_t j = i; j < end; j++) h2s[j - i] = keys[j].hash.h2;
    quotient_encode_block(body + b * s->sizing.block_bytes,
                          s->sizing.block_bytes, h2s, end - i);
    i = end;
  }
  sqlite3_free(h2s);
  filter_write_count(blob, distinct);
  return blob;
}

void sql_quotient_build_final(sqlite3_context *ctx) {
  qbuild_state *s = sqlite3_aggregate_context(ctx, 0);
  if (s == NULL || !s->group.started) {
    sqlite3_result_null(ctx); /* no rows, like sum() */
    return;
  }
  unsigned char *blob = NULL;
  if (!s->group.failed) {
    size_t distinct = collector_distinct(&s->seen);
    if (!s->group.sized_from_data ||
        size_quotient(ctx, distinct ? distinct : 1, s->group.p,
                      &s->sizing) == 0)
      blob = fill(ctx, s, distinct);
  }
  collector_free(&s->seen);
  if (blob == NULL) return;
  sqlite3_result_blob64(ctx, blob, s->sizing.bytes, sqlite3_free);
}
