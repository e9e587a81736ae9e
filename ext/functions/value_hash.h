/*
** A SQL value's hash, by the rules of core/hash.h: what counts as the same
** value is decided here and nowhere else in the SQL layer.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef FUNCTIONS_VALUE_HASH_H
#define FUNCTIONS_VALUE_HASH_H

#include "core/hash.h"
#include "functions/errors.h"

/* value_hash for every type but INTEGER. */
arg_status value_hash_other(sqlite3_value *arg, int type, uint32_t seed,
                            filter_hash *out);

/* Hashes a value whose sqlite3_value_type is `type`.  ARG_NULL for NULL;
** ARG_ERROR when out of memory (a TEXT value converted to UTF-8), with
** nothing set: for callers without a function context (virtual tables).
** Inline, INTEGER first: it runs on every row of a probe or a build, and
** the calls it replaced cost more than the hash's own setup. */
static inline arg_status value_hash(sqlite3_value *arg, int type,
                                    uint32_t seed, filter_hash *out) {
  if (type == SQLITE_INTEGER) {
    *out = filter_hash_integer(sqlite3_value_int64(arg), seed);
    return ARG_OK;
  }
  return value_hash_other(arg, type, seed, out);
}

/* The same, setting SQLITE_NOMEM on ctx when out of memory. */
static inline arg_status sql_hash_typed(sqlite3_context *ctx,
                                        sqlite3_value *value, int type,
                                        uint32_t seed, filter_hash *out) {
  arg_status st = value_hash(value, type, seed, out);
  if (st == ARG_ERROR) sqlite3_result_error_nomem(ctx);
  return st;
}

/* The key that tells the non-NULL value apart from others (core/hash.h),
** from its hash h: after the hash, so that a TEXT value's length is that
** of its UTF-8 bytes. */
filter_value_key value_key(sqlite3_value *value, filter_hash h);

/* The same, asking the value's type. */
static inline arg_status sql_hash_value(sqlite3_context *ctx,
                                        sqlite3_value *value, uint32_t seed,
                                        filter_hash *out) {
  return sql_hash_typed(ctx, value, sqlite3_value_type(value), seed, out);
}

#endif
