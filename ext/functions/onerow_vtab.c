/*
** Connect, best-index, next, eof and rowid for the one-row table-valued
** functions (see onerow_vtab.h).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "functions/onerow_vtab.h"

#include <stdarg.h>
#include <string.h>

int onerow_connect(sqlite3 *db, void *row, int argc, const char *const *argv,
                   sqlite3_vtab **out, char **err) {
  (void)argc; (void)argv; (void)err;
  const sql_function *function = row;
  const onerow_spec *s = function->module_spec;
  int rc = sqlite3_declare_vtab(db, s->schema);
  if (rc != SQLITE_OK) return rc;
  onerow_vtab *vtab = sqlite3_malloc(sizeof *vtab);
  if (vtab == NULL) return SQLITE_NOMEM;
  memset(vtab, 0, sizeof *vtab);
  vtab->function = function;
  vtab->spec = s;
  /* Pure functions of their arguments: safe in triggers and views even
  ** with trusted_schema=OFF. */
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *out = &vtab->base;
  return SQLITE_OK;
}

int onerow_disconnect(sqlite3_vtab *vtab) {
  sqlite3_free(vtab);
  return SQLITE_OK;
}

/* Arguments are equality constraints on the HIDDEN columns.  idxNum is the
** bitmask of the arguments given.  A plan in which any given argument is not
** usable yet is refused (SQLITE_CONSTRAINT) so that SQLite orders the join
** to supply it, as in the correlated bloom_info(t.f).  (Accepting it would
** leave SQLite to check "argument = value" against the HIDDEN column on
** every row, which reads NULL: no row would match.) */
int onerow_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info) {
  const onerow_vtab *v = (const onerow_vtab *)vtab;
  const onerow_spec *spec = v->spec;
  int use[ONEROW_MAX_ARGS], seen = 0, mask = 0;
  for (int a = 0; a < spec->args; a++) use[a] = -1;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    int a = c->iColumn - spec->first_arg;
    if (a < 0 || a >= spec->args || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
      continue;
    seen |= 1 << a;
    if (c->usable) use[a] = i;
  }
  int next_argv = 1;
  for (int a = 0; a < spec->args; a++) {
    if (use[a] < 0) continue;
    info->aConstraintUsage[use[a]].argvIndex = next_argv++;
    info->aConstraintUsage[use[a]].omit = 1;
    mask |= 1 << a;
  }
  if (seen & ~mask) return SQLITE_CONSTRAINT;
  int required = (1 << spec->required) - 1;
  if ((mask & required) != required) {
    sqlite3_free(vtab->zErrMsg);
    vtab->zErrMsg = sqlite3_mprintf("%s: %s", v->function->name, spec->usage);
    return SQLITE_ERROR;
  }
  info->idxNum = mask;
  info->estimatedCost = 1;
  info->estimatedRows = 1;
  info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
  return SQLITE_OK;
}

void onerow_args(const onerow_spec *spec, int idx_num, int argc,
                 sqlite3_value **argv, sqlite3_value **args) {
  int next = 0;
  for (int a = 0; a < spec->args; a++)
    args[a] = (idx_num & (1 << a)) && next < argc ? argv[next++] : NULL;
}

int onerow_filter_arg(sqlite3_vtab_cursor *cur, int idx_num, int argc,
                      sqlite3_value **argv, unsigned kind, filter_view *view,
                      int *found) {
  const onerow_spec *spec = ((onerow_vtab *)cur->pVtab)->spec;
  sqlite3_value *args[ONEROW_MAX_ARGS];
  onerow_args(spec, idx_num, argc, argv, args);
  *found = 0;
  char why[160];
  arg_status st = read_filter(args[0], kind, view, why, sizeof why);
  if (st == ARG_ERROR) return onerow_error(cur, "%s", why);
  *found = st == ARG_OK;
  return SQLITE_OK;
}

int onerow_error(sqlite3_vtab_cursor *cur, const char *fmt, ...) {
  const char *name = onerow_function(cur)->name;
  va_list ap;
  va_start(ap, fmt);
  char *detail = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  sqlite3_free(cur->pVtab->zErrMsg);
  cur->pVtab->zErrMsg =
      detail ? sqlite3_mprintf("%s: %s", name, detail) : NULL;
  sqlite3_free(detail);
  return cur->pVtab->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
}

int onerow_open(size_t size, sqlite3_vtab_cursor **out) {
  onerow_cursor *c = sqlite3_malloc64(size);
  if (c == NULL) return SQLITE_NOMEM;
  memset(c, 0, size);
  c->eof = 1;
  *out = &c->base;
  return SQLITE_OK;
}

int onerow_close(sqlite3_vtab_cursor *cur) {
  sqlite3_free(cur);
  return SQLITE_OK;
}

int onerow_next(sqlite3_vtab_cursor *cur) {
  ((onerow_cursor *)cur)->eof = 1;
  return SQLITE_OK;
}

int onerow_eof(sqlite3_vtab_cursor *cur) {
  return ((onerow_cursor *)cur)->eof;
}

int onerow_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  (void)cur;
  *rowid = 1;
  return SQLITE_OK;
}
