/*
** Helpers shared by the SQL bindings: reading and validating arguments,
** hashing a SQL value, and reporting errors named after the SQL function.
*/
#ifndef SQL_COMMON_H
#define SQL_COMMON_H

#include <sqlite3ext.h>

#include "core/bloom.h"
#include "core/format.h"
#include "core/hash.h"

/* Every binding file but bloom_ext.c uses the api pointer defined there. */
#ifndef BLOOM_EXT_MAIN
SQLITE_EXTENSION_INIT3
#endif
/* Every read of the api pointer is an atomic load, so that a load of the
** extension in another thread (whose CAS ThreadSanitizer counts as a
** write even when it fails) is no data race.  Free on x86-64 and arm64. */
#ifndef SQLITE_CORE
#define sqlite3_api (__atomic_load_n(&sqlite3_api, __ATOMIC_ACQUIRE))
#endif

/* Outcome of reading an argument. */
typedef enum { ARG_OK = 0, ARG_NULL = 1, ARG_ERROR = -1 } arg_status;

/* Sets an error "<fname>: <printf message>" on ctx. */
void sql_error(sqlite3_context *ctx, const char *fname, const char *fmt, ...);

/* The pointer type under which bloom_ref hands a parsed filter_view to the
** other functions (sqlite3_result_pointer / sqlite3_value_pointer). */
#define FILTER_REF_TYPE "bloom_filter_ref"

/* Reads a filter blob of the given kind (0: any) and validates it, or takes
** the already validated filter a bloom_ref column refers to.
** ARG_NULL for SQL NULL; ARG_ERROR with the reason in err (read_filter) or
** set on ctx (sql_filter_arg). */
arg_status read_filter(sqlite3_value *arg, unsigned kind, filter_view *view,
                       char *err, size_t err_size);
arg_status sql_filter_arg(sqlite3_context *ctx, const char *fname,
                          sqlite3_value *arg, unsigned kind, filter_view *view);

/* Hashes a value by the rules of filter_hash.h. ARG_NULL for NULL;
** ARG_ERROR (out of memory) after setting the error on ctx. */
arg_status sql_hash_value(sqlite3_context *ctx, sqlite3_value *arg,
                          uint32_t seed, filter_hash *out);
/* The same for a value whose sqlite3_value_type the caller already has. */
arg_status sql_hash_typed(sqlite3_context *ctx, sqlite3_value *arg, int type,
                          uint32_t seed, filter_hash *out);

/* 1 if a validated filter of either kind may hold h, 0 if it certainly
** does not. */
int view_contains(const filter_view *f, filter_hash h);

/* The body of bloom_test / cuckoo_test (argv: filter, value): NULL if
** either is NULL, else view_contains; an error "<fname>: ..." for a filter
** that is not a valid one of `kind`.  The filter may be a bloom_ref
** reference, used without a copy. */
void sql_test_value(sqlite3_context *ctx, const char *fname, unsigned kind,
                    sqlite3_value **argv);

/* A fresh copy of a filter's blob, for the functions that return a
** changed filter; NULL after setting SQLITE_NOMEM on ctx. */
unsigned char *sql_copy_filter(sqlite3_context *ctx, const filter_view *f);

/* n: an INTEGER >= 1, or a REAL with such an integral value.  The
** read_ forms write the reason into err; the sql_ forms set it on ctx. */
arg_status read_capacity(sqlite3_value *arg, uint64_t *n, char *err,
                         size_t err_size);
arg_status sql_capacity_arg(sqlite3_context *ctx, const char *fname,
                            sqlite3_value *arg, uint64_t *n);
/* p: an INTEGER or REAL with BLOOM_MIN_FPR <= p < 1; NULL is an error too
** (no function takes a NULL p): never ARG_NULL. */
arg_status read_fpr(sqlite3_value *arg, double *p, char *err, size_t err_size);
arg_status sql_fpr_arg(sqlite3_context *ctx, const char *fname,
                       sqlite3_value *arg, double *p);

/* The parameters of a building aggregate, (value [, n [, p]]): n omitted or
** NULL means "size from the data"; p omitted means BLOOM_DEFAULT_FPR. */
typedef struct group_params {
  int started;         /* the first row was read */
  int sized_from_data; /* n omitted or NULL */
  uint64_t n;          /* 0 when sized from the data */
  double p;
  /* The first row's arguments as SQLite gave them, so that a later row is
  ** checked by comparing, not by validating again. */
  int n_type;
  double n_value;      /* exact for every valid n: integral and < 2^63 */
} group_params;

/* Reads this row's n and p.  Returns 1 on the group's first row (recorded
** in *g), 0 on a later row with the same values, -1 after setting an error
** (bad values, or values that differ from the first row's). */
int sql_group_params(sqlite3_context *ctx, const char *fname, int argc,
                     sqlite3_value **argv, group_params *g);

/* Sets the error for a plan that failed: SQLITE_TOOBIG when too_big. */
void sql_plan_failed(sqlite3_context *ctx, const char *fname, int too_big,
                     uint64_t n, double p);

/* The hashes of a group's values, for building from the distinct ones.
** When the buffer fills, repeats are dropped first, so memory follows the
** number of distinct values rather than of rows. */
typedef struct hash_collector {
  filter_hash *hashes;
  size_t count, alloc;
} hash_collector;

/* Appends h.  Returns 0; -1 after setting SQLITE_NOMEM; or 1 (nothing set)
** when, with max_distinct > 0, the group holds more distinct values. */
int collector_add(sqlite3_context *ctx, hash_collector *c, filter_hash h,
                  size_t max_distinct);
/* Sorts and drops repeats: the distinct hashes are hashes[0..return). */
size_t collector_distinct(hash_collector *c);
void collector_free(hash_collector *c);

/* Sizes a plan for n, p within the connection's blob length limit; sets
** the error (SQLITE_TOOBIG when too large) and returns -1 on failure. */
int sql_plan(sqlite3_context *ctx, const char *fname, uint64_t n, double p,
             bloom_plan *plan);

/* Allocates an empty filter for n, p (sized by sql_plan) and fills *plan.
** NULL after setting the error on ctx.  The blob comes from
** sql_aligned_alloc: free it with sql_aligned_free. */
unsigned char *sql_new_bloom(sqlite3_context *ctx, const char *fname,
                             uint64_t n, double p, bloom_plan *plan);

/* Memory for a filter blob of `bytes` whose body, after the 64-byte header,
** starts on a 64-byte boundary, so that each 512-bit block is one cache
** line.  sqlite3_malloc64 alone gives 8- or 16-byte alignment, which spreads
** most blocks over two lines, and the cost then depends on where the copy
** lands: measured over a 12 MB filter, bloom_probe took 130-155 ns a row
** with an unaligned copy against 83-92 aligned, and bloom_build 0-2 ns a row
** more.  For the copies kept and probed for many rows (bloom_build's filter,
** bloom_probe's and bloom_ref's copies).  NULL when out of memory; free only
** with sql_aligned_free (NULL is allowed), which also serves as the
** destructor given to sqlite3_result_blob64. */
unsigned char *sql_aligned_alloc(sqlite3_uint64 bytes);
void sql_aligned_free(void *blob);


#endif
