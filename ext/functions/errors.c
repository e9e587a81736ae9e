/*
** Errors named after the SQL function (errors.h).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "functions/errors.h"

#include "functions/registry.h"

#include <stdarg.h>
#include <stdio.h>

const char *sql_type_name(int type) {
  switch (type) {
    case SQLITE_INTEGER: return "INTEGER";
    case SQLITE_FLOAT: return "REAL";
    case SQLITE_TEXT: return "TEXT";
    case SQLITE_BLOB: return "BLOB";
    default: return "NULL";
  }
}

void sql_error(sqlite3_context *ctx, const char *fmt, ...) {
  /* The name is looked up here, on the error path, so that no per-row
  ** call pays for it. */
  const char *fname = sql_function_of(ctx)->name;
  char detail[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  char *msg = sqlite3_mprintf("%s: %s", fname, detail);
  if (msg == NULL) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_error(ctx, msg, -1);
  sqlite3_free(msg);
}
