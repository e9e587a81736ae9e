/*
** The sizing arguments n and p (params.h).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "functions/params.h"

#include <math.h>
#include <stdio.h>

#include "core/format.h"

arg_status read_capacity(sqlite3_value *arg, uint64_t *n, char *err,
                         size_t err_size) {
  switch (sqlite3_value_type(arg)) {
    case SQLITE_INTEGER: {
      sqlite3_int64 v = sqlite3_value_int64(arg);
      if (v >= 1) {
        *n = (uint64_t)v;
        return ARG_OK;
      }
      snprintf(err, err_size, "n must be an integer >= 1, got %lld", v);
      return ARG_ERROR;
    }
    case SQLITE_FLOAT: {
      double v = sqlite3_value_double(arg);
      /* 2^63 is exact as a double; anything at or above it is out of range. */
      if (v >= 1.0 && v < 9223372036854775808.0 && floor(v) == v) {
        *n = (uint64_t)v;
        return ARG_OK;
      }
      snprintf(err, err_size, "n must be an integer >= 1, got %.17g", v);
      return ARG_ERROR;
    }
    case SQLITE_NULL:
      return ARG_NULL;
    default:
      snprintf(err, err_size, "n must be an integer >= 1, got %s",
               sql_type_name(sqlite3_value_type(arg)));
      return ARG_ERROR;
  }
}

arg_status read_fpr(sqlite3_value *arg, double *p, char *err,
                    size_t err_size) {
  int type = sqlite3_value_type(arg);
  if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
    double v = sqlite3_value_double(arg);
    if (v >= FILTER_MIN_FPR && v < 1.0) {
      *p = v;
      return ARG_OK;
    }
    snprintf(err, err_size, "p must be a number with %g <= p < 1, got %.17g",
             FILTER_MIN_FPR, v);
    return ARG_ERROR;
  }
  snprintf(err, err_size, "p must be a number with %g <= p < 1, got %s",
           FILTER_MIN_FPR, sql_type_name(type));
  return ARG_ERROR;
}

arg_status sql_capacity_arg(sqlite3_context *ctx, sqlite3_value *arg, uint64_t *n) {
  char why[128];
  arg_status st = read_capacity(arg, n, why, sizeof why);
  if (st == ARG_ERROR) sql_error(ctx, "%s", why);
  return st;
}

arg_status sql_fpr_arg(sqlite3_context *ctx, sqlite3_value *arg, double *p) {
  char why[128];
  arg_status st = read_fpr(arg, p, why, sizeof why);
  if (st == ARG_ERROR) sql_error(ctx, "%s", why);
  return st;
}
