/*
** Errors named after the SQL function that raises them, and the names of
** SQLite's storage classes for their messages.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef FUNCTIONS_ERRORS_H
#define FUNCTIONS_ERRORS_H

#include <stddef.h>

#include "functions/api.h"

/* Outcome of reading an argument. */
typedef enum { ARG_OK = 0, ARG_NULL = 1, ARG_ERROR = -1 } arg_status;

/* Sets an error "<name>: <printf message>" on ctx, where name is the SQL
** name of the function ctx belongs to (its registry row, registry.h). */
void sql_error(sqlite3_context *ctx, const char *fmt, ...);

/* "INTEGER", "REAL", "TEXT", "BLOB" or "NULL" for a SQLITE_* type code. */
const char *sql_type_name(int type);

#endif
