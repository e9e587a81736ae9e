/*
** bloom_build(value, n, p): aggregate that adds every non-NULL value of the
** group to a Bloom filter sized for n items at false-positive rate p.
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
** hash of every non-NULL row is kept until the end of the group, where the
** distinct hashes are counted, the filter is sized for that count, and the
** hashes are inserted in sorted order (which walks the filter front to
** back).
**
** Out-of-cache filters: each insert is a write to a random cache line.  The
** hashes of a batch of rows are computed first and their blocks prefetched,
** so the misses of a batch overlap instead of queueing one after another.
*/
#include "sql_common.h"

#include <string.h>

#define BUILD_BATCH 32

typedef struct build_state {
  int started;
  int sized_from_data;   /* n was omitted or NULL */
  uint64_t n;            /* as given on the first row (0 when from data) */
  double p;
  uint64_t inserted;
  /* n given: the filter, filled as rows arrive */
  unsigned char *blob;
  uint64_t blob_bytes;
  uint64_t blocks;
  unsigned hashes;
  unsigned batched;
  filter_hash batch[BUILD_BATCH];
  /* sized from the data: every row's hash */
  filter_hash *seen;
  size_t seen_count, seen_alloc;
} build_state;

static const char fname[] = "bloom_build";

static void flush_batch(build_state *s) {
  unsigned char *bits = s->blob + FILTER_HEADER_BYTES;
  for (unsigned i = 0; i < s->batched; i++)
    __builtin_prefetch(bits + bloom_block_of(s->batch[i], s->blocks) *
                                  BLOOM_BLOCK_BYTES, 1);
  for (unsigned i = 0; i < s->batched; i++)
    bloom_insert(bits, s->blocks, s->hashes, s->batch[i]);
  s->batched = 0;
}

static int start_filter(sqlite3_context *ctx, build_state *s, uint64_t n) {
  bloom_plan plan;
  s->blob = sql_new_bloom(ctx, fname, n, s->p, &plan);
  if (s->blob == NULL) return -1;
  s->blob_bytes = plan.bytes;
  s->blocks = plan.bits / BLOOM_BLOCK_BITS;
  s->hashes = plan.hashes;
  return 0;
}

/* Reads n and p of this row: (value), (value, n) or (value, n, p). */
static int build_params(sqlite3_context *ctx, build_state *s, int argc,
                        sqlite3_value **argv) {
  uint64_t n = 0;
  double p = BLOOM_DEFAULT_FPR;
  int from_data = 1;
  if (argc >= 2) {
    arg_status st = sql_capacity_arg(ctx, fname, argv[1], &n);
    if (st == ARG_ERROR) return -1;
    from_data = st == ARG_NULL;
  }
  if (argc >= 3) {
    arg_status st = sql_fpr_arg(ctx, fname, argv[2], &p);
    if (st == ARG_ERROR) return -1;
    if (st == ARG_NULL) {
      sql_error(ctx, fname, "p must be a number in (0,1), got NULL");
      return -1;
    }
  }
  if (s->started) {
    if (from_data != s->sized_from_data || n != s->n || p != s->p) {
      sql_error(ctx, fname,
                "n and p must be the same on every row of a group "
                "(first row: n = %s%llu, p = %.17g; this row: n = %s%llu, "
                "p = %.17g)",
                s->sized_from_data ? "NULL " : "", (unsigned long long)s->n,
                s->p, from_data ? "NULL " : "", (unsigned long long)n, p);
      return -1;
    }
    return 0;
  }
  s->started = 1;
  s->sized_from_data = from_data;
  s->n = n;
  s->p = p;
  if (from_data) {
    /* Check p now rather than after the whole group was read. */
    bloom_plan plan;
    return sql_plan(ctx, fname, 1, p, &plan);
  }
  return start_filter(ctx, s, n);
}

static int remember(sqlite3_context *ctx, build_state *s, filter_hash h) {
  if (s->seen_count == s->seen_alloc) {
    size_t grow = s->seen_alloc ? s->seen_alloc * 2 : 1024;
    filter_hash *more = sqlite3_realloc64(s->seen, grow * sizeof *more);
    if (more == NULL) {
      sqlite3_result_error_nomem(ctx);
      return -1;
    }
    s->seen = more;
    s->seen_alloc = grow;
  }
  s->seen[s->seen_count++] = h;
  return 0;
}

static void sql_bloom_build_step(sqlite3_context *ctx, int argc,
                                 sqlite3_value **argv) {
  build_state *s = sqlite3_aggregate_context(ctx, sizeof *s);
  if (s == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (build_params(ctx, s, argc, argv) != 0) return;
  filter_hash h;
  arg_status st = sql_hash_value(ctx, argv[0], BLOOM_DEFAULT_SEED, &h);
  if (st != ARG_OK) return; /* NULL value: skipped; error: already set */
  if (s->sized_from_data) {
    if (remember(ctx, s, h) != 0) return;
  } else {
    s->batch[s->batched++] = h;
    if (s->batched == BUILD_BATCH) flush_batch(s);
  }
  s->inserted++;
}

static void sql_bloom_build_final(sqlite3_context *ctx) {
  build_state *s = sqlite3_aggregate_context(ctx, 0);
  if (s == NULL || !s->started) {
    sqlite3_result_null(ctx); /* no rows, like sum() */
    return;
  }
  /* Also reached after an error in a step: then free and return. */
  if (s->sized_from_data && s->blob == NULL) {
    size_t distinct = filter_hash_count_distinct(s->seen, s->seen_count);
    if (start_filter(ctx, s, distinct ? distinct : 1) == 0) {
      for (size_t i = 0; i < s->seen_count; i++)
        bloom_insert(s->blob + FILTER_HEADER_BYTES, s->blocks, s->hashes,
                     s->seen[i]);
    }
  }
  sqlite3_free(s->seen);
  s->seen = NULL;
  if (s->blob == NULL) return;
  flush_batch(s);
  filter_write_inserted(s->blob, s->inserted);
  /* Hand the buffer to SQLite: no copy of a possibly large filter. */
  sqlite3_result_blob64(ctx, s->blob, s->blob_bytes, sqlite3_free);
  s->blob = NULL;
}

int register_bloom_build(sqlite3 *db) {
  int rc = SQLITE_OK;
  for (int argc = 1; argc <= 3 && rc == SQLITE_OK; argc++)
    rc = sqlite3_create_function(
        db, "bloom_build", argc,
        SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL, NULL,
        sql_bloom_build_step, sql_bloom_build_final);
  return rc;
}
