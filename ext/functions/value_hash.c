/*
** A SQL value's hash (value_hash.h).
*/
#include "functions/value_hash.h"

arg_status value_hash(sqlite3_value *arg, int type, uint32_t seed,
                      filter_hash *out) {
  switch (type) {
    case SQLITE_INTEGER:
      *out = filter_hash_integer(sqlite3_value_int64(arg), seed);
      return ARG_OK;
    case SQLITE_FLOAT:
      *out = filter_hash_real(sqlite3_value_double(arg), seed);
      return ARG_OK;
    case SQLITE_TEXT: {
      /* Always UTF-8, whatever the database encoding. */
      const unsigned char *text = sqlite3_value_text(arg);
      if (text == NULL) return ARG_ERROR;
      *out = filter_hash_bytes(FILTER_TYPE_TEXT, text,
                               (size_t)sqlite3_value_bytes(arg), seed);
      return ARG_OK;
    }
    case SQLITE_BLOB: {
      int len = sqlite3_value_bytes(arg);
      const void *blob = sqlite3_value_blob(arg);
      if (blob == NULL && len > 0) return ARG_ERROR;
      *out = filter_hash_bytes(FILTER_TYPE_BLOB, blob, (size_t)len, seed);
      return ARG_OK;
    }
    default:
      return ARG_NULL;
  }
}

arg_status sql_hash_typed(sqlite3_context *ctx, sqlite3_value *arg, int type,
                          uint32_t seed, filter_hash *out) {
  arg_status st = value_hash(arg, type, seed, out);
  if (st == ARG_ERROR) sqlite3_result_error_nomem(ctx);
  return st;
}

arg_status sql_hash_value(sqlite3_context *ctx, sqlite3_value *arg,
                          uint32_t seed, filter_hash *out) {
  return sql_hash_typed(ctx, arg, sqlite3_value_type(arg), seed, out);
}
