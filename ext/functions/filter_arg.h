/*
** Reading a filter argument: a BLOB validated in O(1) by filter_parse, or
** the already validated filter a bloom_ref column refers to.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef FUNCTIONS_FILTER_ARG_H
#define FUNCTIONS_FILTER_ARG_H

#include "core/format.h"
#include "core/hash.h"
#include "functions/errors.h"

/* The pointer type under which bloom_ref hands a parsed filter_view to the
** other functions (sqlite3_result_pointer / sqlite3_value_pointer). */
#define FILTER_REF_TYPE "bloom_filter_ref"

/* Reads a filter of the given kind (0: any; with FILTER_WANT_LAYERED a
** layered filter of that kind too, format.h) into *view.  ARG_NULL for SQL
** NULL; ARG_ERROR with the reason in err (read_filter) or set on ctx
** (sql_filter_arg). */
arg_status read_filter(sqlite3_value *arg, unsigned kind, filter_view *view,
                       char *err, size_t err_size);
arg_status sql_filter_arg(sqlite3_context *ctx, sqlite3_value *arg,
                          unsigned kind, filter_view *view);

/* sql_filter_arg without a copy, for the per-row probes: *view points at
** the bloom_ref's own parsed filter, or at *storage, filled by parsing. */
arg_status sql_filter_ref(sqlite3_context *ctx, sqlite3_value *arg, unsigned kind,
                          filter_view *storage, const filter_view **view);

/* filter_contains with the error of a damaged quotient block set on ctx:
** 1 or 0 as the filter answers, -1 after setting the error. */
int sql_filter_contains(sqlite3_context *ctx, const filter_view *f,
                        filter_hash h);

/* A fresh copy of a filter's blob, for the functions that return a
** changed filter; NULL after setting SQLITE_NOMEM on ctx. */
unsigned char *sql_copy_filter(sqlite3_context *ctx, const filter_view *f);

#endif
