/*
** The store's errors (store.h, "errors.c"): the message every failing
** method leaves in the virtual table, "<module>: ...", and the one way
** damage in the shadow tables is answered, SQLITE_CORRUPT_VTAB, as FTS5 and
** R*Tree answer theirs.  Below every other file of the store: it calls
** none of them.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include <stdarg.h>
#include <stdio.h>

#include "store/store.h"

/* Sets the message from fmt and answers rc (SQLITE_NOMEM if the message
** cannot be made). */
static int set_message(store *s, int rc, const char *fmt, va_list ap) {
  char detail[256];
  vsnprintf(detail, sizeof detail, fmt, ap);
  sqlite3_free(s->base.zErrMsg);
  s->base.zErrMsg = sqlite3_mprintf("%s: %s", s->function->name, detail);
  return s->base.zErrMsg ? rc : SQLITE_NOMEM;
}

int store_error(store *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = set_message(s, SQLITE_ERROR, fmt, ap);
  va_end(ap);
  return rc;
}

/* Every answer to damage passes here: a debugger's breakpoint finds where
** a store was judged damaged (FTS5's FTS5_CORRUPT, R*Tree's
** RTREE_IS_CORRUPT serve alike). */
#ifdef __GNUC__
__attribute__((noinline))
#endif
int store_corrupt_code(void) {
  return SQLITE_CORRUPT_VTAB;
}

int store_corrupt(store *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = set_message(s, store_corrupt_code(), fmt, ap);
  va_end(ap);
  return rc;
}
