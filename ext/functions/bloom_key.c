/*
** bloom_key(v1, v2, ...): one BLOB that encodes several values without
** ambiguity, for multi-column keys:
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   SELECT bloom_build(bloom_key(tenant_id, request_id), 1000000, 0.01)
**     FROM processed;
**   SELECT bloom_test(f, bloom_key(:tenant, :request)) FROM filters ...;
**
** NULL if any part is NULL (such a key is never added, and probes answer
** NULL), as SQL's = never matches NULL.  Numbers follow the value rules:
** 42 and 42.0 give the same key.
*/
#include "core/hash.h"
#include "core/key.h"
#include "functions/errors.h"
#include "functions/registry.h"

/* The bytes v's part takes, into *size: 1, or 0 when v is NULL (the key is
** NULL), or -1 when reading v ran out of memory. */
static int part_size(sqlite3_value *v, uint64_t *size) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_NULL: return 0;
    case SQLITE_INTEGER:
    case SQLITE_FLOAT: *size = KEY_NUMBER_BYTES; return 1;
    case SQLITE_TEXT:
      /* Make the text UTF-8 before asking its length in bytes. */
      if (sqlite3_value_text(v) == NULL) return -1;
      *size = key_bytes_part_size((size_t)sqlite3_value_bytes(v));
      return 1;
    default: {
      /* A zeroblob is expanded here, which can fail for lack of memory. */
      int len = sqlite3_value_bytes(v);
      if (sqlite3_value_blob(v) == NULL && len > 0) return -1;
      *size = key_bytes_part_size((size_t)len);
      return 1;
    }
  }
}

/* Writes v's part (v not NULL, read once by part_size) at dst; returns the
** bytes written. */
static size_t put_part(unsigned char *dst, sqlite3_value *v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: return key_put_integer(dst, sqlite3_value_int64(v));
    case SQLITE_FLOAT: return key_put_real(dst, sqlite3_value_double(v));
    case SQLITE_TEXT:
      return key_put_bytes(dst, FILTER_TYPE_TEXT, sqlite3_value_text(v),
                           (size_t)sqlite3_value_bytes(v));
    default:
      return key_put_bytes(dst, FILTER_TYPE_BLOB, sqlite3_value_blob(v),
                           (size_t)sqlite3_value_bytes(v));
  }
}

void sql_bloom_key(sqlite3_context *ctx, int argc,
                          sqlite3_value **argv) {
  if (argc < 1) {
    sql_error(ctx, "needs at least one value");
    return;
  }
  /* First pass: size, and NULL if any part is NULL. */
  uint64_t total = 0;
  for (int i = 0; i < argc; i++) {
    uint64_t size = 0;
    int st = part_size(argv[i], &size);
    if (st == 0) sqlite3_result_null(ctx);
    if (st < 0) sqlite3_result_error_nomem(ctx);
    if (st <= 0) return;
    total += size;
  }
  int limit = sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1);
  if (total > (uint64_t)limit) {
    sql_error(ctx, "the key would be %llu bytes, over the limit of %d",
              (unsigned long long)total, limit);
    sqlite3_result_error_code(ctx, SQLITE_TOOBIG);
    return;
  }
  unsigned char *key = sqlite3_malloc64(total ? total : 1);
  if (key == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  size_t at = 0;
  for (int i = 0; i < argc; i++) at += put_part(key + at, argv[i]);
  sqlite3_result_blob64(ctx, key, at, sqlite3_free);
}
