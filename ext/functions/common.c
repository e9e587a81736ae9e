/*
** Argument reading and error reporting shared by every SQL function.
*/
#include "functions/common.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/cuckoo.h"

static const char *sql_type_name(int type) {
  switch (type) {
    case SQLITE_INTEGER: return "INTEGER";
    case SQLITE_FLOAT: return "REAL";
    case SQLITE_TEXT: return "TEXT";
    case SQLITE_BLOB: return "BLOB";
    default: return "NULL";
  }
}

void sql_error(sqlite3_context *ctx, const char *fname, const char *fmt, ...) {
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

static arg_status read_filter_ref(sqlite3_value *arg, unsigned kind,
                                  filter_view *storage, const filter_view **view,
                           char *err, size_t err_size) {
  int type = sqlite3_value_type(arg);
  if (type == SQLITE_NULL) {
    /* Or a bloom_ref column: a pointer value, NULL to everything else,
    ** whose filter was parsed once when the statement read it. */
    const filter_view *ref = sqlite3_value_pointer(arg, FILTER_REF_TYPE);
    if (ref == NULL) return ARG_NULL;
    if (kind && ref->h.kind != kind) {
      snprintf(err, err_size, "got a %s filter, expected a %s filter",
               filter_kind_name(ref->h.kind), filter_kind_name(kind));
      return ARG_ERROR;
    }
    *view = ref;
    return ARG_OK;
  }
  if (type != SQLITE_BLOB) {
    snprintf(err, err_size, "the filter must be a BLOB, got %s",
             sql_type_name(type));
    return ARG_ERROR;
  }
  const void *blob = sqlite3_value_blob(arg);
  int len = sqlite3_value_bytes(arg);
  if (filter_parse(blob, (size_t)len, kind, storage, err, err_size) != 0)
    return ARG_ERROR;
  *view = storage;
  return ARG_OK;
}

arg_status read_filter(sqlite3_value *arg, unsigned kind, filter_view *view,
                       char *err, size_t err_size) {
  const filter_view *found;
  arg_status st = read_filter_ref(arg, kind, view, &found, err, err_size);
  if (st == ARG_OK && found != view) *view = *found;
  return st;
}

/* read_filter without a copy, for the per-row probes: *view points at the
** bloom_ref's own parsed filter, or at *storage, filled by parsing. */
static arg_status sql_filter_ref(sqlite3_context *ctx, const char *fname,
                                 sqlite3_value *arg, unsigned kind,
                                 filter_view *storage,
                                 const filter_view **view) {
  char why[160];
  arg_status st = read_filter_ref(arg, kind, storage, view, why, sizeof why);
  if (st == ARG_ERROR) sql_error(ctx, fname, "%s", why);
  return st;
}

arg_status sql_filter_arg(sqlite3_context *ctx, const char *fname,
                          sqlite3_value *arg, unsigned kind, filter_view *view) {
  char why[160];
  arg_status st = read_filter(arg, kind, view, why, sizeof why);
  if (st == ARG_ERROR) sql_error(ctx, fname, "%s", why);
  return st;
}

arg_status sql_hash_value(sqlite3_context *ctx, sqlite3_value *arg,
                          uint32_t seed, filter_hash *out) {
  return sql_hash_typed(ctx, arg, sqlite3_value_type(arg), seed, out);
}

arg_status sql_hash_typed(sqlite3_context *ctx, sqlite3_value *arg, int type,
                          uint32_t seed, filter_hash *out) {
  switch (type) {
    case SQLITE_INTEGER:
      *out = filter_hash_integer(sqlite3_value_int64(arg), seed);
      return ARG_OK;
    case SQLITE_FLOAT:
      *out = filter_hash_real(sqlite3_value_double(arg), seed);
      return ARG_OK;
    case SQLITE_TEXT: {
      /* Always UTF-8, whatever the database encoding. */
      const unsigned char *text = sqlite3_value_text(arg);
      if (text == NULL) {
        sqlite3_result_error_nomem(ctx);
        return ARG_ERROR;
      }
      *out = filter_hash_bytes(FILTER_TYPE_TEXT, text,
                               (size_t)sqlite3_value_bytes(arg), seed);
      return ARG_OK;
    }
    case SQLITE_BLOB: {
      int len = sqlite3_value_bytes(arg);
      const void *blob = sqlite3_value_blob(arg);
      if (blob == NULL && len > 0) {
        sqlite3_result_error_nomem(ctx);
        return ARG_ERROR;
      }
      *out = filter_hash_bytes(FILTER_TYPE_BLOB, blob, (size_t)len, seed);
      return ARG_OK;
    }
    default:
      return ARG_NULL;
  }
}

int view_contains(const filter_view *f, filter_hash h) {
  if (f->h.kind == FILTER_KIND_CUCKOO)
    return cuckoo_contains(f->body, f->h.buckets, f->h.fingerprint_bits, h);
  return bloom_contains(f->body, f->h.bits / BLOOM_BLOCK_BITS, f->h.hashes, h);
}

void sql_test_value(sqlite3_context *ctx, const char *fname, unsigned kind,
                    sqlite3_value **argv) {
  /* The value's type first: NULL answers NULL before the filter is looked
  ** at, and the hash below reuses it rather than asking again. */
  int type = sqlite3_value_type(argv[1]);
  if (type == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  filter_view parsed;
  const filter_view *f;
  arg_status st = sql_filter_ref(ctx, fname, argv[0], kind, &parsed, &f);
  if (st == ARG_NULL) sqlite3_result_null(ctx);
  if (st != ARG_OK) return;
  filter_hash h;
  if (sql_hash_typed(ctx, argv[1], type, f->h.seed, &h) != ARG_OK) return;
  sqlite3_result_int(ctx, view_contains(f, h));
}

unsigned char *sql_copy_filter(sqlite3_context *ctx, const filter_view *f) {
  unsigned char *out = sqlite3_malloc64(f->blob_bytes);
  if (out == NULL) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  memcpy(out, f->blob, f->blob_bytes);
  return out;
}

arg_status read_capacity(sqlite3_value *arg, uint64_t *n, char *err,
                         size_t err_size) {
  switch (sqlite3_value_type(arg)) {
    case SQLITE_INTEGER: {
      sqlite3_int64 v = sqlite3_value_int64(arg);
      if (v >= 1) {
        *n = (uint64_t)v;
        return ARG_OK;
      }
      snprintf(err, err_size, "n must be an integer >= 1, got %lld", v);
      return ARG_ERROR;
    }
    case SQLITE_FLOAT: {
      double v = sqlite3_value_double(arg);
      /* 2^63 is exact as a double; anything at or above it is out of range. */
      if (v >= 1.0 && v < 9223372036854775808.0 && floor(v) == v) {
        *n = (uint64_t)v;
        return ARG_OK;
      }
      snprintf(err, err_size, "n must be an integer >= 1, got %.17g", v);
      return ARG_ERROR;
    }
    case SQLITE_NULL:
      return ARG_NULL;
    default:
      snprintf(err, err_size, "n must be an integer >= 1, got %s",
               sql_type_name(sqlite3_value_type(arg)));
      return ARG_ERROR;
  }
}

arg_status read_fpr(sqlite3_value *arg, double *p, char *err,
                    size_t err_size) {
  int type = sqlite3_value_type(arg);
  if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
    double v = sqlite3_value_double(arg);
    if (v >= BLOOM_MIN_FPR && v < 1.0) {
      *p = v;
      return ARG_OK;
    }
    snprintf(err, err_size, "p must be a number with %g <= p < 1, got %.17g",
             BLOOM_MIN_FPR, v);
    return ARG_ERROR;
  }
  snprintf(err, err_size, "p must be a number with %g <= p < 1, got %s",
           BLOOM_MIN_FPR, sql_type_name(type));
  return ARG_ERROR;
}

arg_status sql_capacity_arg(sqlite3_context *ctx, const char *fname,
                            sqlite3_value *arg, uint64_t *n) {
  char why[128];
  arg_status st = read_capacity(arg, n, why, sizeof why);
  if (st == ARG_ERROR) sql_error(ctx, fname, "%s", why);
  return st;
}

arg_status sql_fpr_arg(sqlite3_context *ctx, const char *fname,
                       sqlite3_value *arg, double *p) {
  char why[128];
  arg_status st = read_fpr(arg, p, why, sizeof why);
  if (st == ARG_ERROR) sql_error(ctx, fname, "%s", why);
  return st;
}

void sql_plan_failed(sqlite3_context *ctx, const char *fname, int too_big,
                     uint64_t n, double p) {
  if (too_big) {
    int limit = sqlite3_limit(sqlite3_context_db_handle(ctx),
                              SQLITE_LIMIT_LENGTH, -1);
    sql_error(ctx, fname,
              "a filter for n = %llu at p = %g exceeds the blob size limit "
              "of %d bytes",
              (unsigned long long)n, p, limit);
    sqlite3_result_error_code(ctx, SQLITE_TOOBIG);
  } else {
    sql_error(ctx, fname, "invalid n = %llu or p = %g", (unsigned long long)n,
              p);
  }
}

int sql_plan(sqlite3_context *ctx, const char *fname, uint64_t n, double p,
             bloom_plan *plan) {
  int limit = sqlite3_limit(sqlite3_context_db_handle(ctx),
                            SQLITE_LIMIT_LENGTH, -1);
  bloom_plan_status st = bloom_plan_for(n, p, (uint64_t)limit, plan);
  if (st == BLOOM_PLAN_OK) return 0;
  sql_plan_failed(ctx, fname, st == BLOOM_PLAN_TOO_BIG, n, p);
  return -1;
}

/* A later row with the first row's n and p, told without validating. */
static int same_params(int argc, sqlite3_value **argv, const group_params *g) {
  int n_type = argc >= 2 ? sqlite3_value_type(argv[1]) : SQLITE_NULL;
  if (n_type != g->n_type) return 0;
  if (n_type == SQLITE_INTEGER &&
      sqlite3_value_int64(argv[1]) != (sqlite3_int64)g->n)
    return 0;
  if (n_type == SQLITE_FLOAT && sqlite3_value_double(argv[1]) != g->n_value)
    return 0;
  return argc < 3 || (sqlite3_value_type(argv[2]) == SQLITE_FLOAT &&
                      sqlite3_value_double(argv[2]) == g->p);
}

int sql_group_params(sqlite3_context *ctx, const char *fname, int argc,
                     sqlite3_value **argv, group_params *g) {
  if (g->started && same_params(argc, argv, g)) return 0;
  uint64_t n = 0;
  double p = BLOOM_DEFAULT_FPR;
  int from_data = 1;
  if (argc >= 2) {
    arg_status st = sql_capacity_arg(ctx, fname, argv[1], &n);
    if (st == ARG_ERROR) return -1;
    from_data = st == ARG_NULL;
  }
  if (argc >= 3) {
    if (sql_fpr_arg(ctx, fname, argv[2], &p) != ARG_OK) return -1;
  }
  if (!g->started) {
    g->started = 1;
    g->sized_from_data = from_data;
    g->n = n;
    g->p = p;
    g->n_type = argc >= 2 ? sqlite3_value_type(argv[1]) : SQLITE_NULL;
    g->n_value = (double)n;
    return 1;
  }
  if (from_data != g->sized_from_data || n != g->n || p != g->p) {
    sql_error(ctx, fname,
              "n and p must be the same on every row of a group "
              "(first row: n = %s%llu, p = %.17g; this row: n = %s%llu, "
              "p = %.17g)",
              g->sized_from_data ? "NULL " : "", (unsigned long long)g->n, g->p,
              from_data ? "NULL " : "", (unsigned long long)n, p);
    return -1;
  }
  return 0;
}

int collector_add(sqlite3_context *ctx, hash_collector *c, filter_hash h,
                  size_t max_distinct) {
  if (c->count == c->alloc) {
    if (c->count > 0) {
      c->count = filter_hash_unique(c->hashes, c->count);
      if (max_distinct && c->count > max_distinct) return 1;
    }
    /* Grow only when dropping repeats freed less than half the buffer. */
    if (c->count >= c->alloc / 2) {
      size_t grow = c->alloc ? c->alloc * 2 : 1024;
      filter_hash *more = sqlite3_realloc64(c->hashes, grow * sizeof *more);
      if (more == NULL) {
        sqlite3_result_error_nomem(ctx);
        return -1;
      }
      c->hashes = more;
      c->alloc = grow;
    }
  }
  c->hashes[c->count++] = h;
  return 0;
}

size_t collector_distinct(hash_collector *c) {
  c->count = filter_hash_unique(c->hashes, c->count);
  return c->count;
}

void collector_free(hash_collector *c) {
  sqlite3_free(c->hashes);
  c->hashes = NULL;
  c->count = c->alloc = 0;
}

unsigned char *sql_new_bloom(sqlite3_context *ctx, const char *fname,
                             uint64_t n, double p, bloom_plan *plan) {
  if (sql_plan(ctx, fname, n, p, plan) != 0) return NULL;
  unsigned char *blob = sql_aligned_alloc(plan->bytes);
  if (blob == NULL) {
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  bloom_write_empty(blob, plan);
  return blob;
}

/* The blob starts 1 to 64 bytes into the allocation; the byte just before
** it holds that distance, for sql_aligned_free. */
#define BLOB_ALIGN 64
unsigned char *sql_aligned_alloc(sqlite3_uint64 bytes) {
  unsigned char *raw = sqlite3_malloc64(bytes + BLOB_ALIGN);
  if (raw == NULL) return NULL;
  size_t shift = BLOB_ALIGN - (size_t)((uintptr_t)raw % BLOB_ALIGN);
  raw[shift - 1] = (unsigned char)shift;
  return raw + shift;
}

void sql_aligned_free(void *blob) {
  if (blob == NULL) return;
  unsigned char *start = blob;
  sqlite3_free(start - start[-1]);
}
