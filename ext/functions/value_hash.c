/*
** A SQL value's hash (value_hash.h).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "functions/value_hash.h"

filter_value_key value_key(sqlite3_value *value, filter_hash h) {
  filter_value_key k = {h, FILTER_TYPE_INTEGER, 8};
  int64_t integer;
  switch (sqlite3_value_type(value)) {
    case SQLITE_FLOAT:
      if (!filter_real_is_integer(sqlite3_value_double(value), &integer))
        k.type = FILTER_TYPE_REAL;
      break;
    case SQLITE_TEXT:
    case SQLITE_BLOB:
      k.type = sqlite3_value_type(value) == SQLITE_TEXT ? FILTER_TYPE_TEXT
                                                        : FILTER_TYPE_BLOB;
      k.length = (uint32_t)sqlite3_value_bytes(value);
      break;
    default:
      break;
  }
  return k;
}

arg_status value_hash_other(sqlite3_value *arg, int type, uint32_t seed,
                            filter_hash *out) {
  /* INTEGER is value_hash's own inline case. */
  switch (type) {
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
