/*
** bloom_test(filter, value), cuckoo_test(filter, value) and
** quotient_test(filter, value): 1 if value may be in the filter, 0 if it
** certainly is not, NULL if either argument is NULL.  One body, given
** the kind by a one-line entry point per SQL name (a constant, rather than
** the registry row, which would cost a call a row).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   SELECT bloom_test(f, 'https://example.com/a') FROM filters
**    WHERE name = 'visited';
**   SELECT cuckoo_test(f, 'alice@example.com') FROM filters
**    WHERE name = 'users';
**
** Cost per call: one O(1) header check, one hash, and one cache line (a
** Bloom block) or two buckets (cuckoo), read in place through the pointer
** SQLite hands over; nothing is copied.  The filter is validated on every
** row and nothing is kept between rows by its address, so no other blob
** at the same address can be mistaken for it.  A quotient filter of
** leaves keeps its leaves' indexes (leaf_indexes.h) between rows, but as
** SQLite's auxiliary data on the filter argument, which SQLite keeps only
** while the argument is a constant of the statement.  A Bloom filter
** BLOB, the common case, is checked by filter_bloom_quick without building
** a filter_view.  Given a bloom_ref column, even the header check was
** done once for the whole statement; bloom_probe and cuckoo_probe
** (probe.c) do the same from a query.
*/
#include "core/filter.h"
#include "functions/filter_arg.h"
#include "functions/leaf_indexes.h"
#include "functions/registry.h"
#include "functions/value_hash.h"

/* The leaf indexes of a filter of leaves passed as argument 0, kept as
** SQLite's auxiliary data on it: while the argument is a constant (a
** bound parameter, a literal) SQLite keeps them for the whole statement
** and drops them when it is reset, so its probes index the leaves as they
** come, as a bloom_ref's do; for any other argument SQLite drops them
** after the call, and the set, new on each row, never gets as far as
** making its slots.  NULL (out of memory): the probe walks. */
static leaf_indexes *leaf_indexes_of(sqlite3_context *ctx) {
  leaf_indexes *x = sqlite3_get_auxdata(ctx, 0);
  if (x) return x;
  x = leaf_indexes_new();
  if (x == NULL) return NULL;
  /* On failure set_auxdata frees x at once: ask for it back. */
  sqlite3_set_auxdata(ctx, 0, x, leaf_indexes_free);
  return sqlite3_get_auxdata(ctx, 0);
}

static inline void filter_test(sqlite3_context *ctx, sqlite3_value **argv,
                               unsigned kind) {
  /* The value's type first: NULL answers NULL before the filter is looked
  ** at, and the hash below reuses it rather than asking again. */
  int type = sqlite3_value_type(argv[1]);
  if (type == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  bloom_quick q;
  if (kind == FILTER_KIND_BLOOM &&
      sqlite3_value_type(argv[0]) == SQLITE_BLOB &&
      filter_bloom_quick(sqlite3_value_blob(argv[0]),
                         (size_t)sqlite3_value_bytes(argv[0]), &q) == 0) {
    filter_hash qh;
    if (sql_hash_typed(ctx, argv[1], type, q.seed, &qh) != ARG_OK) return;
    sqlite3_result_int(ctx, bloom_contains(q.body, q.blocks, q.k, qh));
    return;
  }
  quotient_quick qq;
  if (kind == FILTER_KIND_QUOTIENT &&
      sqlite3_value_type(argv[0]) == SQLITE_BLOB &&
      filter_quotient_quick(sqlite3_value_blob(argv[0]),
                            (size_t)sqlite3_value_bytes(argv[0]), &qq) == 0) {
    filter_hash qh;
    if (sql_hash_typed(ctx, argv[1], type, qq.seed, &qh) != ARG_OK) return;
    leaf_indexes *x = qq.block_bytes == 0 ? leaf_indexes_of(ctx) : NULL;
    int maybe = x ? leaf_indexes_contains(x, qq.body, qq.body_bytes,
                                          qq.blocks, qh)
                  : quotient_any_contains(qq.body, qq.body_bytes, qq.blocks,
                                          qq.block_bytes, qh);
    /* a damaged block: the general path below words the error */
    if (maybe >= 0) {
      sqlite3_result_int(ctx, maybe);
      return;
    }
  }
  /* A bloom_ref reference, a cuckoo or layered filter, or a blob a quick
  ** check refused: the general path, which also words the error. */
  filter_view parsed;
  const filter_view *f;
  arg_status st = sql_filter_ref(ctx, argv[0], kind | FILTER_WANT_LAYERED,
                                  &parsed, &f);
  if (st == ARG_NULL) sqlite3_result_null(ctx);
  if (st != ARG_OK) return;
  filter_hash h;
  if (sql_hash_typed(ctx, argv[1], type, f->header.seed, &h) != ARG_OK) return;
  int maybe = kind == FILTER_KIND_QUOTIENT ? sql_filter_contains(ctx, f, h)
                                           : filter_contains(f, h);
  if (maybe >= 0) sqlite3_result_int(ctx, maybe);
}

void sql_bloom_test(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  filter_test(ctx, argv, FILTER_KIND_BLOOM);
}

void sql_cuckoo_test(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  filter_test(ctx, argv, FILTER_KIND_CUCKOO);
}

void sql_quotient_test(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  filter_test(ctx, argv, FILTER_KIND_QUOTIENT);
}
