/*
** cuckoo_add(filter, value): a new filter holding one more copy of value.
** A NULL filter gives NULL; a NULL value gives the filter unchanged (NULL is
** never added, as for Bloom).  The input is never modified, and the result
** has exactly its size, so a trigger's
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
*/
#include "functions/common.h"
#include "core/cuckoo.h"


static void sql_cuckoo_add(sqlite3_context *ctx, int argc,
                           sqlite3_value **argv) {
  static const char fname[] = "cuckoo_add";
  (void)argc;
  filter_view f;
  arg_status st = sql_filter_arg(ctx, fname, argv[0], FILTER_KIND_CUCKOO, &f);
  if (st == ARG_NULL) sqlite3_result_null(ctx);
  if (st != ARG_OK) return;
  filter_hash h;
  st = sql_hash_value(ctx, argv[1], f.h.seed, &h);
  if (st == ARG_NULL) /* a copy: argv[0] may be a bloom_ref reference */
    sqlite3_result_blob64(ctx, f.blob, f.blob_bytes, SQLITE_TRANSIENT);
  if (st != ARG_OK) return;
  unsigned char *out = sql_copy_filter(ctx, &f);
  if (out == NULL) return;
  uint64_t slots = f.h.buckets * CUCKOO_SLOTS_PER_BUCKET;
  switch (cuckoo_insert(out + FILTER_HEADER_BYTES, f.h.buckets,
                        f.h.fingerprint_bits, h)) {
    case CUCKOO_OK:
      /* items <= slots holds for every blob that parses; a hand-made one
      ** with a wrong count must still give a blob that parses. */
      filter_write_inserted(out, f.h.inserted < slots ? f.h.inserted + 1
                                                      : slots);
      sqlite3_result_blob64(ctx, out, f.blob_bytes, sqlite3_free);
      return;
    case CUCKOO_TOO_MANY_COPIES:
      sql_error(ctx, fname,
                "the value does not fit: its two buckets already hold %u "
                "copies of its fingerprint, the most a filter holds",
                cuckoo_max_copies(f.h.buckets));
      break;
    case CUCKOO_FULL:
      if (f.h.buckets == 1) /* no other bucket to relocate to */
        sql_error(ctx, fname,
                  "the filter is full: its one bucket holds %llu items; "
                  "rebuild it with a larger n",
                  (unsigned long long)f.h.inserted);
      else
        sql_error(ctx, fname,
                  "the filter is full: no room for the value after %d "
                  "relocations (%llu items in %llu slots); rebuild it with "
                  "a larger n",
                  CUCKOO_MAX_KICKS, (unsigned long long)f.h.inserted,
                  (unsigned long long)slots);
      break;
  }
  sqlite3_free(out);
}

int register_cuckoo_add(sqlite3 *db) {
  return sqlite3_create_function(
      db, "cuckoo_add", 2,
      SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
      sql_cuckoo_add, NULL, NULL);
}
