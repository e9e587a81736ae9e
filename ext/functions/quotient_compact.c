/*
** quotient_compact(filter [, p]): the quotient filter in fewer bytes, for
** shipping: its leaves merged and its keys cut while the estimated rate
** stays within p (default: the filter's own target_fpr).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   SELECT quotient_compact(filter) FROM seen;          -- a store's export
**   SELECT quotient_compact(filter, 0.05) FROM seen;    -- coarser, smaller
**
** Every value the filter answers "maybe" the result answers "maybe": what
** changes is the rate of the others, up to QCOMPACT_RATE_MARGIN of p
** (quotient_info's estimated_fpr says how far).  A store's export comes
** with short leaves sized for its page writes, and, from a growing store,
** with keys longer than a finished filter needs (core/quotient_compact.h);
** this is the form to ship.  A filter of blocks (quotient_build's) comes
** back as it is: its sizing is already the compact one.  The header keeps
** everything but the number of leaves, and target_fpr becomes p when one
** is given.  A result that would not be smaller is the input.
*/
#include <string.h>

#include "core/quotient_compact.h"
#include "functions/filter_arg.h"
#include "functions/params.h"
#include "functions/registry.h"

static void largest_leaf(void *ctx, const qleaf_info *leaf) {
  uint64_t *most = ctx;
  if (leaf->entries > *most) *most = leaf->entries;
}

/* The compacted blob of f's leaves at rate p into *out (*bytes, its body
** of *leaves leaves; the caller writes the header), or *out NULL when it
** would not be smaller; SQLITE_OK, or an error code with the message set
** on ctx. */
static int compact(sqlite3_context *ctx, const filter_view *f, double p,
                   int given, unsigned char **out, size_t *bytes,
                   uint64_t *leaves) {
  *out = NULL;
  qleaves_summary sum;
  uint64_t most = 0;
  char why[200];
  if (qleaves_stats(f->body, f->body_bytes, f->header.blocks, &sum,
                    largest_leaf, &most, why, sizeof why) != 0) {
    sql_error(ctx, "%s", why);
    return SQLITE_CORRUPT;
  }
  if (given && sum.estimated_fpr > p) {
    sql_error(ctx, "the filter's estimated rate %g is above p = %g: keys "
              "can lose bits, never gain them", sum.estimated_fpr, p);
    return SQLITE_ERROR;
  }
  if (most < QCOMPACT_MOST_ENTRIES) most = QCOMPACT_MOST_ENTRIES;
  uint64_t *hist = sqlite3_malloc64(QCOMPACT_HISTOGRAM * sizeof *hist);
  qleaf_entry *scratch = sqlite3_malloc64(most * sizeof *scratch);
  int rc = SQLITE_NOMEM;
  qcompact_plan plan = {0, 0, 0};
  qcompact_size size = {0, 0};
  if (hist && scratch) {
    rc = SQLITE_CORRUPT; /* what qleaves_stats accepted decodes */
    if (qcompact_plan_for(f->body, f->body_bytes, f->header.blocks,
                          p * QCOMPACT_RATE_MARGIN, hist, scratch,
                          (size_t)most, &plan) == 0 &&
        qcompact_body(f->body, f->body_bytes, f->header.blocks, &plan,
                      scratch, (size_t)most, NULL, &size) == 0)
      rc = SQLITE_OK;
  }
  if (rc == SQLITE_OK && FILTER_HEADER_BYTES + size.bytes < f->blob_bytes) {
    *bytes = FILTER_HEADER_BYTES + size.bytes;
    *out = sqlite3_malloc64(*bytes);
    if (*out == NULL)
      rc = SQLITE_NOMEM;
    else if (qcompact_body(f->body, f->body_bytes, f->header.blocks, &plan,
                           scratch, (size_t)most,
                           *out + FILTER_HEADER_BYTES, &size) != 0) {
      sqlite3_free(*out);
      *out = NULL;
      rc = SQLITE_CORRUPT;
    } else {
      *leaves = size.leaves;
    }
  }
  sqlite3_free(hist);
  sqlite3_free(scratch);
  if (rc == SQLITE_NOMEM) sqlite3_result_error_nomem(ctx);
  if (rc == SQLITE_CORRUPT) sql_error(ctx, "a leaf does not decode");
  return rc;
}

void sql_quotient_compact(sqlite3_context *ctx, int argc,
                          sqlite3_value **argv) {
  filter_view f;
  arg_status st = sql_filter_arg(ctx, argv[0], FILTER_KIND_QUOTIENT, &f);
  if (st == ARG_NULL) sqlite3_result_null(ctx);
  if (st != ARG_OK) return;
  filter_header h = f.header;
  if (argc > 1 && sql_fpr_arg(ctx, argv[1], &h.target_fpr) != ARG_OK) return;
  unsigned char *out = NULL;
  size_t bytes = f.blob_bytes;
  if (f.header.block_bytes == 0 &&
      compact(ctx, &f, h.target_fpr, argc > 1, &out, &bytes, &h.blocks) !=
          SQLITE_OK)
    return;
  if (out == NULL) { /* blocks, or no smaller: the input's bytes */
    out = sql_copy_filter(ctx, &f);
    if (out == NULL) return;
    bytes = f.blob_bytes;
  }
  if (f.header.block_bytes == 0) filter_write_header(out, &h);
  sqlite3_result_blob64(ctx, out, bytes, sqlite3_free);
}
