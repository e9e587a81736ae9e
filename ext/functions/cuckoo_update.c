/*
** cuckoo_add(filter, value): a new filter holding one more copy of value.
** A NULL filter gives NULL; a NULL value gives the filter unchanged (NULL is
** never added, as for Bloom).  The input is never modified, and the result
** has exactly its size, so a trigger's
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   UPDATE filters SET f = cuckoo_add(f, NEW.email) WHERE name = 'users';
**
** rewrites only the pages that changed.
**
** The filter is a multiset: adding a value twice and deleting it once
** leaves it in.  A value fits at most 8 times (4 slots in each of its two
** buckets).  When the value does not fit, because the filter is full or
** the value is already there 8 times, the call is an error and nothing is
** lost: the filter stays as it was (the result is never produced, and the
** core undoes its relocations besides).
**
** cuckoo_delete(filter, value): a new filter with one copy of value
** removed.  A NULL filter gives NULL; a NULL value, or a value whose
** fingerprint is in neither of its buckets, gives the filter unchanged
** (not an error).  Same size as the input, which is never modified.
**
**   UPDATE filters SET f = cuckoo_delete(f, OLD.email) WHERE name = 'users';
**
** Delete only what you added.  Deleting a value that was never added but
** tests 1 (a false positive) removes the fingerprint of another value that
** shares its buckets and fingerprint, and that value then tests 0: a false
** negative.  Triggers that delete exactly what they added keep the filter
** exact (sql/cuckoo_sync.sql).
**
** A layered filter: cuckoo_add places the value in its newest (last)
** layer, and an error when that layer is full says so (a store adds the
** next layer; a blob cannot grow here).  cuckoo_delete removes one copy
** from the one layer that holds the fingerprint, and nothing when several
** do (as the stores).  The outer count follows the layers'.
*/
#include "core/cuckoo.h"
#include "core/layered.h"
#include "functions/filter_arg.h"
#include "functions/registry.h"
#include "functions/value_hash.h"

/* The input's bytes as the result, copied: argv[0] may be a bloom_ref
** reference rather than a BLOB of its own. */
static void unchanged(sqlite3_context *ctx, const filter_view *f) {
  sqlite3_result_blob64(ctx, f->blob, f->blob_bytes, SQLITE_TRANSIENT);
}

/* The head both functions share: the cuckoo filter in argv[0] and the hash
** of argv[1].  ARG_OK with both read; otherwise the call is answered: NULL
** for a NULL filter, the filter unchanged for a NULL value, or an error. */
static arg_status read_update(sqlite3_context *ctx, sqlite3_value **argv,
                              filter_view *f, filter_hash *h) {
  arg_status st = sql_filter_arg(
      ctx, argv[0], FILTER_KIND_CUCKOO | FILTER_WANT_LAYERED, f);
  if (st == ARG_NULL) sqlite3_result_null(ctx);
  if (st != ARG_OK) return st;
  st = sql_hash_value(ctx, argv[1], f->header.seed, h);
  if (st == ARG_NULL) unchanged(ctx, f); /* NULL is never added or removed */
  return st;
}

/* A layer's new counter in the copy, and the outer count moved by as much:
** a layered cuckoo filter's count is the exact sum of its layers' (items
** never exceed slots, so the sum cannot saturate). */
static void write_count(unsigned char *out, const filter_view *f,
                        const filter_view *layer, uint64_t count) {
  filter_write_count(out + (layer->blob - f->blob), count);
  if (f->header.kind == FILTER_KIND_LAYERED)
    filter_write_count(out, f->header.count - layer->header.count + count);
}

void sql_cuckoo_add(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  filter_view f, layer;
  filter_hash h;
  if (read_update(ctx, argv, &f, &h) != ARG_OK) return;
  filter_layer_walk w = filter_layers_newest(&f);
  filter_layer_prev(&w, &layer); /* the newest takes the value */
  unsigned char *out = sql_copy_filter(ctx, &f);
  if (out == NULL) return;
  uint64_t slots = layer.header.buckets * CUCKOO_SLOTS_PER_BUCKET;
  cuckoo_status st = cuckoo_insert(out + (layer.body - f.blob),
                                   cuckoo_shape_of(&layer.header), h);
  if (st == CUCKOO_OK) {
    /* items <= slots holds for every blob that parses; a hand-made one
    ** with a wrong count must still give a blob that parses. */
    write_count(out, &f, &layer, layer.header.count < slots
                                     ? layer.header.count + 1
                                     : slots);
    sqlite3_result_blob64(ctx, out, f.blob_bytes, sqlite3_free);
    return;
  }
  char why[200];
  cuckoo_insert_failure(st, layer.header.buckets, layer.header.count, why,
                        sizeof why);
  if (f.header.kind == FILTER_KIND_LAYERED)
    sql_error(ctx, "%s (the newest layer of a layered filter, layer %u)", why,
              f.header.layers - 1);
  else if (st == CUCKOO_FULL)
    sql_error(ctx, "%s; rebuild it with a larger n", why);
  else
    sql_error(ctx, "%s", why);
  sqlite3_free(out);
}

void sql_cuckoo_delete(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  filter_view f, layer;
  filter_hash h;
  if (read_update(ctx, argv, &f, &h) != ARG_OK) return;
  /* Look before changing.  One copy leaves the one layer whose buckets
  ** hold the fingerprint.  None: the input unchanged.  Several: one of
  ** them may hold another value's colliding copy, and removing that one
  ** would make the other value a false negative, so nothing is removed
  ** (the value stays "maybe"), as the stores do. */
  filter_layer_walk w = filter_layers_newest(&f);
  unsigned holders = 0;
  layer = f; /* the holder, once found */
  for (unsigned i = filter_layer_count(&f); i-- > 0;) {
    filter_view here;
    filter_layer_prev(&w, &here);
    if (cuckoo_contains(here.body, cuckoo_shape_of(&here.header), h) &&
        holders++ == 0)
      layer = here;
  }
  if (holders == 1) {
    unsigned char *out = sql_copy_filter(ctx, &f);
    if (out == NULL) return;
    cuckoo_remove(out + (layer.body - f.blob), cuckoo_shape_of(&layer.header),
                  h);
    /* A hand-made blob may say 0 items and still hold fingerprints. */
    write_count(out, &f, &layer,
                layer.header.count ? layer.header.count - 1 : 0);
    sqlite3_result_blob64(ctx, out, f.blob_bytes, sqlite3_free);
    return;
  }
  unchanged(ctx, &f);
}
