/*
** bloom: probabilistic membership filters as SQLite BLOB values.
**
**   .load ./bloom
**   CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);
**   INSERT INTO filters SELECT 'visited', bloom_build(url, 1000000, 0.01)
**     FROM visited;
**   SELECT bloom_test(f, 'https://example.com/a') FROM filters
**    WHERE name = 'visited';
**   SELECT name, i.* FROM filters, bloom_info(filters.f) AS i;
**
** This file is the entry point: it registers the SQL functions, which live
** in sql_<name>.c files (bloom_union, bloom_intersect and bloom_merge share
** sql_bloom_algebra.c; bloom_version is here) over the plain-C core
** (filter_format.c, filter_hash.c, filter_key.c, bloom_core.c,
** cuckoo_core.c).
*/
#define BLOOM_EXT_MAIN
#include "functions/common.h"
#undef sqlite3_api /* the variable itself, for its definition and the CAS */
SQLITE_EXTENSION_INIT1
#ifndef SQLITE_CORE
static int claim_api(const sqlite3_api_routines *api) {
  const sqlite3_api_routines *unset = NULL;
  return __atomic_compare_exchange_n(&sqlite3_api, &unset, api, 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ||
         unset == api;
}
#define sqlite3_api (__atomic_load_n(&sqlite3_api, __ATOMIC_ACQUIRE))
#endif

#define BLOOM_VERSION "1.0.0"

int register_bloom_build(sqlite3 *db);
int register_bloom_test(sqlite3 *db);
int register_bloom_info(sqlite3 *db);
int register_bloom_ref(sqlite3 *db);
int register_bloom_probe(sqlite3 *db);
int register_bloom_empty(sqlite3 *db);
int register_bloom_add(sqlite3 *db);
int register_bloom_algebra(sqlite3 *db);
int register_bloom_count(sqlite3 *db);
int register_bloom_plan(sqlite3 *db);
int register_bloom_key(sqlite3 *db);
int register_cuckoo_build(sqlite3 *db);
int register_cuckoo_test(sqlite3 *db);
int register_cuckoo_add(sqlite3 *db);
int register_cuckoo_delete(sqlite3 *db);
int register_cuckoo_info(sqlite3 *db);
int register_cuckoo_probe(sqlite3 *db);

/* bloom_version(): the extension's version as TEXT. */
static void sql_bloom_version(sqlite3_context *ctx, int argc,
                              sqlite3_value **argv) {
  (void)argc; (void)argv;
  sqlite3_result_text(ctx, BLOOM_VERSION, -1, SQLITE_STATIC);
}

static int register_bloom_version(sqlite3 *db) {
  return sqlite3_create_function(
      db, "bloom_version", 0, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
      NULL, sql_bloom_version, NULL, NULL);
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
  ** it once; every later load must bring the same table (one SQLite library
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
  int (*const registrations[])(sqlite3 *) = {
      register_bloom_version, register_bloom_build, register_bloom_test,
      register_bloom_info, register_bloom_ref, register_bloom_probe,
      register_bloom_empty,
      register_bloom_add, register_bloom_algebra, register_bloom_count,
      register_bloom_plan, register_bloom_key, register_cuckoo_build,
      register_cuckoo_test, register_cuckoo_add, register_cuckoo_delete,
      register_cuckoo_info, register_cuckoo_probe,
  };
  for (size_t i = 0; i < sizeof registrations / sizeof registrations[0]; i++) {
    int rc = registrations[i](db);
    if (rc != SQLITE_OK) {
      /* The library stays mapped (linked -z nodelete), so what did register
      ** keeps working. */
      if (err) *err = sqlite3_mprintf("bloom: registering its functions "
                                      "failed: %s", sqlite3_errstr(rc));
      return rc;
    }
  }
  return SQLITE_OK;
}
