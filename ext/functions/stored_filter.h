/*
** A filter named by a query, read once per statement: the shared half of
** bloom_probe(query, value) and cuckoo_probe(query, value).
*/
#ifndef SQL_STORED_FILTER_H
#define SQL_STORED_FILTER_H

#include "functions/common.h"

/* The body of name(query, value).  query is the text of a one-row,
** one-column, read-only statement; the first call of a statement runs it,
** copies and validates the filter, and keeps it as SQLite auxiliary data on
** argument 0, so that while query is a constant (a literal or a bound
** parameter) a later row costs one lookup whatever the filter's size.  The
** result is 1 if the value may be in the filter, 0 if it certainly is not;
** NULL when the query text, the stored filter or the value is NULL; an
** error "<fname>: ..." for a query or filter it refuses. */
void stored_probe(sqlite3_context *ctx, sqlite3_value **argv,
                  const char *fname, unsigned kind);

/* Registers probe as name(query, value) with the flags a function that runs
** the SQL it is given needs, and a per-connection guard against a query
** that calls the function again. */
int register_stored_probe(sqlite3 *db, const char *name,
                          void (*probe)(sqlite3_context *, int,
                                        sqlite3_value **));

#endif
