/*
** A filter named by a query, read once per statement: the shared half of
** bloom_probe(query, value) and cuckoo_probe(query, value).
*/
#ifndef SQL_STORED_FILTER_H
#define SQL_STORED_FILTER_H

#include "sql_common.h"

/* The filter that argv[0], the text of a one-row, one-column, read-only
** query, selects.  The first call of a statement runs the query, copies and
** validates the blob, and keeps it as SQLite auxiliary data on argument 0;
** while that argument is a constant (a literal or a bound parameter),
** later rows get it back in one call, whatever the filter's size.
**
** ARG_OK with *view set; ARG_NULL when the query text or the stored value
** is NULL; ARG_ERROR after setting an error "<fname>: ..." on ctx. */
arg_status stored_filter(sqlite3_context *ctx, const char *fname,
                         sqlite3_value *query, unsigned kind,
                         const filter_view **view);

/* Registers probe as name(query, value) with the flags a function that runs
** the SQL it is given needs, and a per-connection guard against a query
** that calls the function again. */
int register_stored_probe(sqlite3 *db, const char *name,
                          void (*probe)(sqlite3_context *, int,
                                        sqlite3_value **));

#endif
