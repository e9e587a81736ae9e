/*
** A SQL value's hash, by the rules of core/hash.h: what counts as the same
** value is decided here and nowhere else in the SQL layer.
*/
#ifndef FUNCTIONS_VALUE_HASH_H
#define FUNCTIONS_VALUE_HASH_H

#include "core/hash.h"
#include "functions/errors.h"

/* Hashes a value whose sqlite3_value_type is `type`.  ARG_NULL for NULL;
** ARG_ERROR when out of memory (a TEXT value converted to UTF-8), with
** nothing set: for callers without a function context (virtual tables). */
arg_status value_hash(sqlite3_value *arg, int type, uint32_t seed,
                      filter_hash *out);

/* Hashes a value. ARG_NULL for NULL; ARG_ERROR (out of memory) after
** setting the error on ctx. */
arg_status sql_hash_value(sqlite3_context *ctx, sqlite3_value *arg,
                          uint32_t seed, filter_hash *out);
/* The same for a value whose sqlite3_value_type the caller already has. */
arg_status sql_hash_typed(sqlite3_context *ctx, sqlite3_value *arg, int type,
                          uint32_t seed, filter_hash *out);

#endif
