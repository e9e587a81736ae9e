/*
** bloom_build(value, n, p): aggregate that adds every non-NULL value of the
** group to a Bloom filter sized for n items at false-positive rate p.
**
**   SELECT bloom_build(url, 1000000, 0.01) FROM visited;
**
** n and p come from the first row; a later row with other values is an
** error.  A group with no rows gives NULL; a group of only NULLs gives an
** empty filter.  Bits are ORed in, so the result does not depend on row
** order.
**
** Out-of-cache filters: each insert is a write to a random cache line.  The
** hashes of a batch of rows are computed first and their blocks prefetched,
** so the misses of a batch overlap instead of queueing one after another.
*/
#include "sql_common.h"

#include <string.h>

#define BUILD_BATCH 32

typedef struct build_state {
  unsigned char *blob;   /* header + bits; NULL until the first row */
  uint64_t blob_bytes;
  uint64_t blocks;
  unsigned hashes;
  uint32_t seed;
  uint64_t inserted;
  uint64_t n;            /* as given on the first row */
  double p;
  unsigned batched;
  filter_hash batch[BUILD_BATCH];
} build_state;

static void flush_batch(build_state *s) {
  unsigned char *bits = s->blob + FILTER_HEADER_BYTES;
  for (unsigned i = 0; i < s->batched; i++)
    __builtin_prefetch(bits + bloom_block_of(s->batch[i], s->blocks) *
                                  BLOOM_BLOCK_BYTES, 1);
  for (unsigned i = 0; i < s->batched; i++)
    bloom_insert(bits, s->blocks, s->hashes, s->batch[i]);
  s->batched = 0;
}

/* Reads n and p of this row; on the first row also allocates the filter. */
static int build_params(sqlite3_context *ctx, build_state *s,
                        sqlite3_value **argv) {
  static const char fname[] = "bloom_build";
  uint64_t n;
  double p;
  arg_status st = sql_capacity_arg(ctx, fname, argv[1], &n);
  if (st == ARG_ERROR) return -1;
  if (st == ARG_NULL) {
    sql_error(ctx, fname, "n must be an integer >= 1, got NULL");
    return -1;
  }
  st = sql_fpr_arg(ctx, fname, argv[2], &p);
  if (st == ARG_ERROR) return -1;
  if (st == ARG_NULL) {
    sql_error(ctx, fname, "p must be a number in (0,1), got NULL");
    return -1;
  }
  if (s->blob) {
    if (n != s->n || p != s->p) {
      sql_error(ctx, fname,
                "n and p must be the same on every row of a group "
                "(first row: n = %llu, p = %.17g; this row: n = %llu, p = %.17g)",
                (unsigned long long)s->n, s->p, (unsigned long long)n, p);
      return -1;
    }
    return 0;
  }
  bloom_plan plan;
  if (sql_plan(ctx, fname, n, p, &plan) != 0) return -1;
  s->blob = sqlite3_malloc64(plan.bytes);
  if (s->blob == NULL) {
    sqlite3_result_error_nomem(ctx);
    return -1;
  }
  filter_header h = bloom_header_for(&plan);
  filter_write_header(s->blob, &h);
  memset(s->blob + FILTER_HEADER_BYTES, 0, plan.bytes - FILTER_HEADER_BYTES);
  s->blob_bytes = plan.bytes;
  s->blocks = plan.bits / BLOOM_BLOCK_BITS;
  s->hashes = plan.hashes;
  s->seed = h.seed;
  s->n = n;
  s->p = p;
  return 0;
}

static void sql_bloom_build_step(sqlite3_context *ctx, int argc,
                                 sqlite3_value **argv) {
  (void)argc;
  build_state *s = sqlite3_aggregate_context(ctx, sizeof *s);
  if (s == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (build_params(ctx, s, argv) != 0) return;
  filter_hash h;
  arg_status st = sql_hash_value(ctx, argv[0], s->seed, &h);
  if (st != ARG_OK) return; /* NULL value: skipped; error: already set */
  s->batch[s->batched++] = h;
  s->inserted++;
  if (s->batched == BUILD_BATCH) flush_batch(s);
}

static void sql_bloom_build_final(sqlite3_context *ctx) {
  build_state *s = sqlite3_aggregate_context(ctx, 0);
  if (s == NULL || s->blob == NULL) {
    sqlite3_result_null(ctx); /* no rows, like sum() */
    return;
  }
  flush_batch(s);
  filter_write_inserted(s->blob, s->inserted);
  /* Hand the buffer to SQLite: no copy of a possibly large filter. */
  sqlite3_result_blob64(ctx, s->blob, s->blob_bytes, sqlite3_free);
  s->blob = NULL;
}

int register_bloom_build(sqlite3 *db) {
  return sqlite3_create_function(
      db, "bloom_build", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
      NULL, NULL, sql_bloom_build_step, sql_bloom_build_final);
}
