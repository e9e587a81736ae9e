/*
** The shared frame of this extension's table-valued functions (bloom_info,
** bloom_ref, bloom_plan, cuckoo_info): eponymous virtual tables that take their
** arguments through HIDDEN columns and produce at most one row.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** A module fills in an onerow_spec and supplies xOpen/xClose/xFilter/
** xColumn; connect, best-index, next, eof and rowid come from here.  The
** module is registered with its registry row (registry.h) as client data:
** the row gives the SQL name for errors, the kind, and the spec.
*/
#ifndef FUNCTIONS_ONEROW_VTAB_H
#define FUNCTIONS_ONEROW_VTAB_H

#include "functions/filter_arg.h"
#include "functions/registry.h"

#define ONEROW_MAX_ARGS 4

typedef struct onerow_spec {
  const char *schema; /* CREATE TABLE x(...) with the HIDDEN args last */
  int first_arg;      /* column index of the first HIDDEN argument */
  int args;           /* how many HIDDEN arguments */
  int required;       /* the first `required` of them must be given */
  const char *usage;  /* shown when a required argument is missing */
} onerow_spec;

typedef struct onerow_vtab {
  sqlite3_vtab base;
  const sql_function *function; /* the registry row */
  const onerow_spec *spec;      /* function->module_spec */
} onerow_vtab;

/* Every cursor starts with this. */
typedef struct onerow_cursor {
  sqlite3_vtab_cursor base;
  int eof;
} onerow_cursor;

int onerow_connect(sqlite3 *db, void *row, int argc, const char *const *argv,
                   sqlite3_vtab **out, char **err);
int onerow_disconnect(sqlite3_vtab *vtab);
int onerow_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info);
int onerow_next(sqlite3_vtab_cursor *cur);
int onerow_eof(sqlite3_vtab_cursor *cur);
int onerow_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid);

/* The registry row of the function a cursor belongs to. */
static inline const sql_function *onerow_function(sqlite3_vtab_cursor *cur) {
  return ((const onerow_vtab *)cur->pVtab)->function;
}

/* In xFilter: puts the given arguments in args[0..spec->args) by position,
** NULL for those not given. */
void onerow_args(const onerow_spec *spec, int idx_num, int argc,
                 sqlite3_value **argv, sqlite3_value **args);

/* In xFilter of a function whose only argument is a filter of `kind` (0:
** any): reads and validates it into *view.  Returns SQLITE_OK with *found
** set (0 for a NULL filter: no row), or an error code with the table's
** error set. */
int onerow_filter_arg(sqlite3_vtab_cursor *cur, int idx_num, int argc,
                      sqlite3_value **argv, unsigned kind, filter_view *view,
                      int *found);

/* In xFilter: sets "<name>: <message>" as the table's error; returns the
** code to return (SQLITE_ERROR, or SQLITE_NOMEM if even that failed). */
int onerow_error(sqlite3_vtab_cursor *cur, const char *fmt, ...);

/* Allocates a zeroed cursor of `size` bytes, at eof. */
int onerow_open(size_t size, sqlite3_vtab_cursor **out);

/* xClose for a cursor that owns nothing but itself. */
int onerow_close(sqlite3_vtab_cursor *cur);

#define ONEROW_MODULE(open, close, filter, column)                          \
  {                                                                          \
    .iVersion = 0, .xCreate = NULL, .xConnect = onerow_connect,              \
    .xBestIndex = onerow_best_index, .xDisconnect = onerow_disconnect,       \
    .xDestroy = onerow_disconnect, .xOpen = (open), .xClose = (close),       \
    .xFilter = (filter), .xNext = onerow_next, .xEof = onerow_eof,           \
    .xColumn = (column), .xRowid = onerow_rowid,                             \
  }

#endif
