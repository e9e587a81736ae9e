/*
** Reading a filter argument (filter_arg.h).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "functions/filter_arg.h"

#include "core/filter.h"
#include "functions/leaf_indexes.h"

#include <stdio.h>
#include <string.h>

static arg_status read_filter_ref(sqlite3_value *arg, unsigned kind,
                                  filter_view *storage, const filter_view **view,
                           char *err, size_t err_size) {
  int type = sqlite3_value_type(arg);
  if (type == SQLITE_NULL) {
    /* Or a bloom_ref column: a pointer value, NULL to everything else,
    ** whose filter was parsed once when the statement read it. */
    const filter_view *ref = sqlite3_value_pointer(arg, FILTER_REF_TYPE);
    if (ref == NULL) return ARG_NULL;
    /* The kind asked for, the common case, without a call. */
    if (ref->header.kind != (kind & 0xffu) &&
        filter_kind_check(&ref->header, kind, err, err_size) != 0)
      return ARG_ERROR;
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

arg_status sql_filter_ref(sqlite3_context *ctx, sqlite3_value *arg, unsigned kind,
                                 filter_view *storage,
                                 const filter_view **view) {
  char why[160];
  arg_status st = read_filter_ref(arg, kind, storage, view, why, sizeof why);
  if (st == ARG_ERROR) sql_error(ctx, "%s", why);
  return st;
}

arg_status sql_filter_arg(sqlite3_context *ctx, sqlite3_value *arg,
                          unsigned kind, filter_view *view) {
  char why[160];
  arg_status st = read_filter(arg, kind, view, why, sizeof why);
  if (st == ARG_ERROR) sql_error(ctx, "%s", why);
  return st;
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

int sql_filter_contains(sqlite3_context *ctx, const filter_view *f,
                        filter_hash h) {
  int maybe = f->leaf_indexes
                  ? leaf_indexes_contains(f->leaf_indexes, f->body,
                                          f->body_bytes, f->header.blocks, h)
                  : filter_contains(f, h);
  if (maybe >= 0) return maybe;
  /* Only a quotient filter's block or leaf answers -1: word what is
  ** wrong. */
  if (f->header.block_bytes == 0) {
    sql_error(ctx, "leaf %lld is damaged",
              (long long)qleaves_find(f->body, f->body_bytes, f->header.blocks,
                                      h));
    return -1;
  }
  uint64_t b = quotient_block_of(h, f->header.blocks);
  quotient_shape shape;
  char why[160] = "";
  quotient_block_check(f->body + b * f->header.block_bytes,
                       f->header.block_bytes, &shape, why, sizeof why);
  sql_error(ctx, "block %llu is damaged: %s", (unsigned long long)b, why);
  return -1;
}
