/*
** bloom: probabilistic membership filters as SQLite BLOB values.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   .load ./bloom
**   CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);
**   INSERT INTO filters SELECT 'visited', bloom_build(url, 1000000, 0.01)
**     FROM visited;
**   SELECT bloom_test(f, 'https://example.com/a') FROM filters
**    WHERE name = 'visited';
**   SELECT name, i.* FROM filters, bloom_info(filters.f) AS i;
**
** This file is the entry point: the registry of every SQL name the extension
** offers, and the init function that registers them.  The functions live in
** functions/ (registry.h says which file holds which) and the stores in
** store/, over the plain-C core in core/.  ARCHITECTURE.md beside this file describes the layers.
*/
#include <stddef.h>

#include <sqlite3ext.h>
/* The api pointer itself, defined and claimed before functions/api.h turns
** every later use of it into an atomic load. */
SQLITE_EXTENSION_INIT1
#ifndef SQLITE_CORE
static int claim_api(const sqlite3_api_routines *api) {
  const sqlite3_api_routines *unset = NULL;
  return __atomic_compare_exchange_n(&sqlite3_api, &unset, api, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ||
         unset == api;
}
#endif

#define BLOOM_EXT_MAIN
#include "core/format.h"
#include "functions/api.h"
#include "functions/registry.h"
#include "store/store.h"
#include "sqlite3_bloom.h"

/* bloom_version(): the extension's version (BLOOM_VERSION) as TEXT. */
static void sql_bloom_version(sqlite3_context *ctx, int argc,
                              sqlite3_value **argv) {
  (void)argc; (void)argv;
  sqlite3_result_text(ctx, BLOOM_VERSION, -1, SQLITE_STATIC);
}

#define BLOOM FILTER_KIND_BLOOM
#define CUCKOO FILTER_KIND_CUCKOO
#define QUOTIENT FILTER_KIND_QUOTIENT

/* Functions that run the SQL they are given (the *_probe functions): not
** DETERMINISTIC, since the result follows a table's contents, and
** DIRECTONLY, since such a function has no place in triggers, views or the
** schema. */
#define SQL_QUERYING (SQLITE_UTF8 | SQLITE_DIRECTONLY)

#define SCALAR(name, lo, hi, flags, kind, fn) \
  {name, lo, hi, flags, kind, fn, NULL, NULL, NULL, NULL, NULL}
#define AGGREGATE(name, lo, hi, kind, step, final) \
  {name, lo, hi, SQL_PURE, kind, NULL, step, final, NULL, NULL, NULL}
#define TABLE(name, kind, module, spec) \
  {name, 0, 0, 0, kind, NULL, NULL, NULL, &module, &spec, NULL}
#define STORE(name, kind, module) \
  {name, 0, 0, 0, kind, NULL, NULL, NULL, &module, NULL, NULL}

static const sql_function functions[] = {
    SCALAR("bloom_version", 0, 0, SQL_PURE, 0, sql_bloom_version),
    AGGREGATE("bloom_build", 1, 3, BLOOM, sql_bloom_build_step,
              sql_bloom_build_final),
    SCALAR("bloom_test", 2, 2, SQL_PURE, BLOOM, sql_bloom_test),
    {"bloom_probe", 2, 2, SQL_QUERYING, BLOOM, sql_filter_probe, NULL, NULL,
     NULL, NULL, sql_probe_connection},
    TABLE("bloom_info", BLOOM, sql_info_module, sql_bloom_info_spec),
    TABLE("bloom_layers", 0, sql_layers_module, sql_layers_spec),
    TABLE("bloom_ref", 0, sql_ref_module, sql_ref_spec),
    SCALAR("bloom_empty", 1, 2, SQL_PURE, BLOOM, sql_bloom_empty),
    SCALAR("bloom_add", -1, -1, SQL_PURE, BLOOM, sql_bloom_add),
    SCALAR("bloom_union", 2, 2, SQL_PURE, BLOOM, sql_bloom_union),
    SCALAR("bloom_intersect", 2, 2, SQL_PURE, BLOOM, sql_bloom_intersect),
    AGGREGATE("bloom_merge", 1, 1, BLOOM, sql_bloom_merge_step,
              sql_bloom_merge_final),
    SCALAR("bloom_count", 1, 1, SQL_PURE, BLOOM, sql_bloom_count),
    TABLE("bloom_plan", BLOOM, sql_plan_module, sql_plan_spec),
    SCALAR("bloom_key", -1, -1, SQL_PURE, 0, sql_bloom_key),
    AGGREGATE("cuckoo_build", 2, 3, CUCKOO, sql_cuckoo_build_step,
              sql_cuckoo_build_final),
    SCALAR("cuckoo_test", 2, 2, SQL_PURE, CUCKOO, sql_cuckoo_test),
    {"cuckoo_probe", 2, 2, SQL_QUERYING, CUCKOO, sql_filter_probe, NULL, NULL,
     NULL, NULL, sql_probe_connection},
    SCALAR("cuckoo_add", 2, 2, SQL_PURE, CUCKOO, sql_cuckoo_add),
    SCALAR("cuckoo_delete", 2, 2, SQL_PURE, CUCKOO, sql_cuckoo_delete),
    TABLE("cuckoo_info", CUCKOO, sql_info_module, sql_cuckoo_info_spec),
    AGGREGATE("quotient_build", 2, 3, QUOTIENT, sql_quotient_build_step,
              sql_quotient_build_final),
    SCALAR("quotient_test", 2, 2, SQL_PURE, QUOTIENT, sql_quotient_test),
    SCALAR("quotient_compact", 1, 2, SQL_PURE, QUOTIENT, sql_quotient_compact),
    {"quotient_probe", 2, 2, SQL_QUERYING, QUOTIENT, sql_filter_probe, NULL,
     NULL, NULL, NULL, sql_probe_connection},
    TABLE("quotient_info", QUOTIENT, sql_info_module, sql_quotient_info_spec),
    TABLE("quotient_leaves", QUOTIENT, sql_quotient_leaves_module,
          sql_quotient_leaves_spec),
    STORE("bloom_store", BLOOM, store_module),
    STORE("cuckoo_store", CUCKOO, store_module),
    STORE("quotient_store", QUOTIENT, store_module),
};

/* Registers one row: a module, or a function once per argument count. */
static int register_function(sqlite3 *db, const sql_function *row) {
  if (row->module)
    return sqlite3_create_module(db, row->name, row->module, (void *)row);
  int rc = SQLITE_OK;
  for (int args = row->min_args; args <= row->max_args && rc == SQLITE_OK;
       args++) {
    void *user_data = (void *)row;
    void (*destroy)(void *) = NULL;
    if (row->connection_data) {
      user_data = row->connection_data(row);
      if (user_data == NULL) return SQLITE_NOMEM;
      destroy = sqlite3_free; /* SQLite calls it, also when it fails */
    }
    rc = sqlite3_create_function_v2(db, row->name, args, row->flags,
                                    user_data, row->scalar, row->step,
                                    row->final, destroy);
  }
  return rc;
}

#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
int sqlite3_bloom_init(sqlite3 *db, char **err,
                       const sqlite3_api_routines *api) {
#ifndef SQLITE_CORE
  /* SQLITE_EXTENSION_INIT2 stores the pointer on every load: a data race
  ** when connections in several threads load the extension at once.  Store
  ** it once; every later load must bring the same API (one SQLite library
  ** per process), and a second, different one is refused. */
  if (!claim_api(api)) {
    if (err) *err = api->mprintf("bloom: already loaded by another SQLite "
                                 "library in this process");
    return SQLITE_ERROR;
  }
#else
  (void)err;
  (void)api;
#endif
  for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
    int rc = register_function(db, &functions[i]);
    if (rc != SQLITE_OK) {
      /* The library stays mapped (linked -z nodelete), so what did register
      ** keeps working. */
      if (err) *err = sqlite3_mprintf("bloom: registering %s failed: %s",
                                      functions[i].name, sqlite3_errstr(rc));
      return rc;
    }
  }
  return SQLITE_OK;
}
