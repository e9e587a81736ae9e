/*
** The SQL surface of the extension as one array, the registry: a row per
** SQL name, from which bloom_ext.c registers every function and every error
** message takes its "<name>: " prefix.  A function finds its own row through
** sqlite3_user_data (sql_function_of), so no SQL name is written twice.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Below the row type, one section per file of functions/ declares the
** callbacks that file gives the registry.
*/
#ifndef FUNCTIONS_REGISTRY_H
#define FUNCTIONS_REGISTRY_H

#include "functions/api.h"

typedef void (*sql_call)(sqlite3_context *, int, sqlite3_value **);

typedef struct sql_function {
  const char *name;
  int min_args, max_args;  /* registered once per count; max -1: variadic */
  int flags;               /* SQLITE_UTF8 | ... */
  unsigned kind;           /* FILTER_KIND_* it reads; 0: either or none */
  sql_call scalar;         /* a scalar function, or */
  sql_call step;           /* an aggregate */
  void (*final)(sqlite3_context *);
  const sqlite3_module *module; /* or a table-valued function, */
  const void *module_spec;      /* its onerow_spec (onerow_vtab.h) */
  /* Per-connection user data in place of the row (freed by SQLite with
  ** sqlite3_free): a struct that begins with a copy of the row, so that
  ** sql_function_of works on it too.  NULL: the row itself. */
  void *(*connection_data)(const struct sql_function *row);
} sql_function;

/* The row a function was registered from. */
static inline const sql_function *sql_function_of(sqlite3_context *ctx) {
  return (const sql_function *)sqlite3_user_data(ctx);
}

/* Flags of a function whose result depends on its arguments alone and that
** is safe anywhere, triggers and views under trusted_schema=OFF included. */
#define SQL_PURE (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)

/* membership.c */
void sql_bloom_test(sqlite3_context *, int, sqlite3_value **);
void sql_cuckoo_test(sqlite3_context *, int, sqlite3_value **);
void sql_quotient_test(sqlite3_context *, int, sqlite3_value **);
/* probe.c: bloom_probe, cuckoo_probe, quotient_probe */
void sql_filter_probe(sqlite3_context *, int, sqlite3_value **);
void *sql_probe_connection(const sql_function *row);
/* info.c: bloom_info, cuckoo_info, quotient_info, bloom_layers */
extern const sqlite3_module sql_info_module, sql_layers_module;
extern const struct info_spec sql_bloom_info_spec, sql_cuckoo_info_spec,
    sql_quotient_info_spec, sql_layers_spec;

/* quotient_leaves.c: quotient_leaves */
extern const sqlite3_module sql_quotient_leaves_module;
extern const struct onerow_spec sql_quotient_leaves_spec;
/* bloom_build.c */
void sql_bloom_build_step(sqlite3_context *, int, sqlite3_value **);
void sql_bloom_build_final(sqlite3_context *);
/* cuckoo_build.c */
void sql_cuckoo_build_step(sqlite3_context *, int, sqlite3_value **);
void sql_cuckoo_build_final(sqlite3_context *);
/* quotient_build.c */
void sql_quotient_build_step(sqlite3_context *, int, sqlite3_value **);
void sql_quotient_build_final(sqlite3_context *);
/* quotient_compact.c */
void sql_quotient_compact(sqlite3_context *, int, sqlite3_value **);
/* bloom_add.c */
void sql_bloom_add(sqlite3_context *, int, sqlite3_value **);
/* cuckoo_update.c: cuckoo_add, cuckoo_delete */
void sql_cuckoo_add(sqlite3_context *, int, sqlite3_value **);
void sql_cuckoo_delete(sqlite3_context *, int, sqlite3_value **);
/* bloom_algebra.c: bloom_union, bloom_intersect, bloom_merge */
void sql_bloom_union(sqlite3_context *, int, sqlite3_value **);
void sql_bloom_intersect(sqlite3_context *, int, sqlite3_value **);
void sql_bloom_merge_step(sqlite3_context *, int, sqlite3_value **);
void sql_bloom_merge_final(sqlite3_context *);
/* bloom_count.c */
void sql_bloom_count(sqlite3_context *, int, sqlite3_value **);
/* bloom_empty.c */
void sql_bloom_empty(sqlite3_context *, int, sqlite3_value **);
/* bloom_key.c */
void sql_bloom_key(sqlite3_context *, int, sqlite3_value **);
/* bloom_ref.c */
extern const sqlite3_module sql_ref_module;
extern const struct onerow_spec sql_ref_spec;
/* bloom_plan.c */
extern const sqlite3_module sql_plan_module;
extern const struct onerow_spec sql_plan_spec;

#endif
