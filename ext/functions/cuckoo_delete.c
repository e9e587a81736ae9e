/*
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
*/
#include "functions/common.h"
#include "core/cuckoo.h"


static void sql_cuckoo_delete(sqlite3_context *ctx, int argc,
                              sqlite3_value **argv) {
  static const char fname[] = "cuckoo_delete";
  (void)argc;
  filter_view f;
  arg_status st = sql_filter_arg(ctx, fname, argv[0], FILTER_KIND_CUCKOO, &f);
  if (st == ARG_NULL) sqlite3_result_null(ctx);
  if (st != ARG_OK) return;
  filter_hash h;
  st = sql_hash_value(ctx, argv[1], f.h.seed, &h);
  if (st == ARG_ERROR) return;
  /* Look before changing: an absent value gives the input's bytes (copied:
  ** argv[0] may be a bloom_ref reference, not a BLOB). */
  if (st == ARG_NULL ||
      !cuckoo_contains(f.body, f.h.buckets, f.h.fingerprint_bits, h)) {
    sqlite3_result_blob64(ctx, f.blob, f.blob_bytes, SQLITE_TRANSIENT);
    return;
  }
  unsigned char *out = sql_copy_filter(ctx, &f);
  if (out == NULL) return;
  cuckoo_remove(out + FILTER_HEADER_BYTES, f.h.buckets, f.h.fingerprint_bits,
                h);
  /* A hand-made blob may say 0 items and still hold fingerprints. */
  filter_write_inserted(out, f.h.inserted ? f.h.inserted - 1 : 0);
  sqlite3_result_blob64(ctx, out, f.blob_bytes, sqlite3_free);
}

int register_cuckoo_delete(sqlite3 *db) {
  return sqlite3_create_function(
      db, "cuckoo_delete", 2,
      SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
      sql_cuckoo_delete, NULL, NULL);
}
