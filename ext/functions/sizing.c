/*
** Sizing within the blob length limit (sizing.h).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "functions/sizing.h"

#include "functions/aligned.h"

void sql_sizing_failed(sqlite3_context *ctx, int too_big,
                     uint64_t n, double p) {
  if (too_big) {
    int limit = sqlite3_limit(sqlite3_context_db_handle(ctx),
                              SQLITE_LIMIT_LENGTH, -1);
    sql_error(ctx, "a filter for n = %llu at p = %g exceeds the blob size limit "
              "of %d bytes",
              (unsigned long long)n, p, limit);
    sqlite3_result_error_code(ctx, SQLITE_TOOBIG);
  } else {
    sql_error(ctx, "invalid n = %llu or p = %g", (unsigned long long)n,
              p);
  }
}

int sql_bloom_sizing(sqlite3_context *ctx, uint64_t n, double p,
             bloom_sizing *sizing) {
  int limit = sqlite3_limit(sqlite3_context_db_handle(ctx),
                            SQLITE_LIMIT_LENGTH, -1);
  bloom_sizing_status st = bloom_sizing_for(n, p, (uint64_t)limit, sizing);
  if (st == BLOOM_SIZING_OK) return 0;
  sql_sizing_failed(ctx, st == BLOOM_SIZING_TOO_BIG, n, p);
  return -1;
}

unsigned char *sql_new_bloom(sqlite3_context *ctx, uint64_t n, double p, bloom_sizing *sizing) {
  if (sql_bloom_sizing(ctx, n, p, sizing) != 0) return NULL;
  unsigned char *blob = sql_aligned_alloc(sizing->bytes);
  if (blob == NULL) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  bloom_write_empty(blob, sizing);
  return blob;
}
