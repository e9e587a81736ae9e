/*
** cuckoo_build(value, n [, p]): aggregate that builds a cuckoo filter for n
** items at false-positive rate p (default 0.01) holding each distinct
** non-NULL value of the group once.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   SELECT cuckoo_build(email, 100000, 0.001) FROM users;
**   SELECT cuckoo_build(email, NULL) FROM users;    -- sized from the data
**
** Why de-duplicate: a cuckoo filter stores one fingerprint per copy, and
** holds at most 8 copies of a value, so a column in which one value repeats
** would overflow it.  Why by more than the hash: two values of different
** storage classes or lengths can hash alike (core/hash.h), and one copy
** for both would let cuckoo_delete of either take the other's only one, a
** false negative.  The group's keys (hash, type, length) are collected,
** sorted and made unique (in place, whenever the buffer fills, so memory
** follows the number of distinct values, not of rows), then inserted in
** sorted order: the result depends only on the set of values, never on
** row order.
**
** n and p come from the first row, as for bloom_build; n NULL sizes the
** filter for the number of distinct values.  No rows gives NULL; only NULLs
** give an empty filter.  More distinct values than the filter can place is
** an error that says the capacity was exceeded: never a filter that
** silently lost items.
*/
#include "core/cuckoo.h"
#include "functions/collector.h"
#include "functions/group.h"
#include "functions/registry.h"
#include "functions/sizing.h"
#include "functions/value_hash.h"

typedef struct cbuild_state {
  group_state group; /* first: sql_group_row reads it */
  cuckoo_sizing sizing; /* n given: sized on the first row */
  hash_collector seen;  /* the hashes seen, repeats dropped now and then */
} cbuild_state;

/* Sizes within the connection's blob length limit, before allocating. */
static int size_cuckoo(sqlite3_context *ctx, uint64_t n, double p,
                       cuckoo_sizing *out) {
  int limit = sqlite3_limit(sqlite3_context_db_handle(ctx),
                            SQLITE_LIMIT_LENGTH, -1);
  cuckoo_sizing_status st =
      cuckoo_sizing_for(n, p, FILTER_MIN_FPR, (uint64_t)limit, out);
  if (st == CUCKOO_SIZING_OK) return 0;
  sql_sizing_failed(ctx, st == CUCKOO_SIZING_TOO_BIG, n, p);
  return -1;
}

/* On the group's first row: size (checking n, p and the size now rather
** than after the group). */
static int cuckoo_build_first_row(sqlite3_context *ctx, group_state *g) {
  cbuild_state *s = (cbuild_state *)g; /* its first member */
  return size_cuckoo(ctx, g->sized_from_data ? 1 : g->n, g->p, &s->sizing);
}

void sql_cuckoo_build_step(sqlite3_context *ctx, int argc,
                           sqlite3_value **argv) {
  cbuild_state *s = sqlite3_aggregate_context(ctx, sizeof *s);
  filter_hash h;
  if (sql_group_row(ctx, argc, argv, s ? &s->group : NULL, cuckoo_build_first_row,
                    &h) != 1)
    return; /* NULL values are skipped */
  /* With n given, more distinct values than slots can never fit: stop
  ** reading the group (0: no ceiling, sized from the data). */
  uint64_t slots = s->group.sized_from_data
                       ? 0
                       : s->sizing.buckets * CUCKOO_SLOTS_PER_BUCKET;
  int rc = collector_add(ctx, &s->seen, value_key(argv[0], h), (size_t)slots);
  if (rc == 1)
    sql_error(ctx, "capacity exceeded: more than %llu distinct values, and a "
              "filter for n = %llu has %llu slots",
              (unsigned long long)slots, (unsigned long long)s->group.n,
              (unsigned long long)slots);
  if (rc != 0) s->group.failed = 1;
}

/* Inserts the distinct hashes into a new filter; NULL after setting the
** error when one cannot be placed. */
static unsigned char *fill(sqlite3_context *ctx, cbuild_state *s,
                           size_t distinct) {
  uint64_t slots = s->sizing.buckets * CUCKOO_SLOTS_PER_BUCKET;
  if (distinct > slots) {
    sql_error(ctx, "capacity exceeded: %llu distinct values, and a filter for "
              "n = %llu has %llu slots",
              (unsigned long long)distinct,
              (unsigned long long)s->sizing.capacity, (unsigned long long)slots);
    return NULL;
  }
  unsigned char *blob = sqlite3_malloc64(s->sizing.bytes);
  if (blob == NULL) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  cuckoo_write_empty(blob, &s->sizing);
  unsigned char *body = blob + FILTER_HEADER_BYTES;
  for (size_t i = 0; i < distinct; i++) {
    if (cuckoo_insert(body, cuckoo_shape_of_sizing(&s->sizing),
                      s->seen.keys[i].hash) != CUCKOO_OK) {
      sql_error(ctx, "capacity exceeded: %llu distinct values do not fit in a "
                "filter for n = %llu (%llu slots; %llu placed)",
                (unsigned long long)distinct,
                (unsigned long long)s->sizing.capacity,
                (unsigned long long)slots, (unsigned long long)i);
      sqlite3_free(blob);
      return NULL;
    }
  }
  filter_write_count(blob, distinct);
  return blob;
}

void sql_cuckoo_build_final(sqlite3_context *ctx) {
  cbuild_state *s = sqlite3_aggregate_context(ctx, 0);
  if (s == NULL || !s->group.started) {
    sqlite3_result_null(ctx); /* no rows, like sum() */
    return;
  }
  /* Also reached after an error in a step: then only free. */
  unsigned char *blob = NULL;
  if (!s->group.failed) {
    size_t distinct = collector_distinct(&s->seen);
    if (!s->group.sized_from_data ||
        size_cuckoo(ctx, distinct ? distinct : 1, s->group.p, &s->sizing) == 0)
      blob = fill(ctx, s, distinct);
  }
  collector_free(&s->seen);
  if (blob == NULL) return;
  sqlite3_result_blob64(ctx, blob, s->sizing.bytes, sqlite3_free);
}
