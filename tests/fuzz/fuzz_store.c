/*
** Fuzz target "store": CREATE VIRTUAL TABLE ... USING bloom_store(<args>)
** (or cuckoo_store(<args>) when args begins with '~', the '~' dropped)
** with arguments from the input, then shadow tables damaged by the input,
** then every way of reading and writing the store from a connection that
** connects afresh (so a damaged configuration is read, not remembered).
**
** Input: [args][0x0A][ops]: args is the text inside bloom_store(...), ops
** a list of operations, each a first byte choosing the operation and the
** bytes after it giving its operands:
**   0  add a value (a slice of the input, as a BLOB) through the store
**      (a cuckoo store may refuse it as full or holding 8 copies)
**   1  overwrite chunk <id> with a slice of the input
**   2  delete chunk <id>
**   3  insert a chunk row <id> with a slice of the input
**   4  set a configuration key (of a fixed or a scalable store) to an
**      INTEGER, REAL, TEXT or BLOB
**   5  delete a configuration key
**
** Invariants (abort on failure): a statement succeeds, or fails with an
** error that starts with the module's name (SQLite's own syntax errors in the
** CREATE text, out of memory, a full database and SQLITE_TOOBIG aside);
** an exported filter is a valid filter of the store's kind by FORMAT.md
** (bloom_spec.h), layered for a scalable store;
** while the shadow tables are undamaged the export holds every value
** added.  Each input gets its own in-memory database, shared between the
** two connections, and a page limit that keeps a huge capacity quick (it
** fails as a full database).
*/
#include "fuzz_common.h"

#define FZ_STORE_PAGES 256

/* A fixed store's keys, then a scalable store's (FORMAT.md, "Stores"). */
#define FZ_KEYS 16
static const char *const bloom_keys[FZ_KEYS] = {
    "kind", "version", "capacity", "fpr", "bits", "hashes", "seed",
    "chunk_blocks", "layers", "growth", "tightening", "layer.0.bits",
    "layer.1.hashes", "layer.1.capacity", "layer.0.fpr", "layer.2.chunk_blocks"};
static const char *const cuckoo_keys[FZ_KEYS] = {
    "kind", "version", "capacity", "fpr", "buckets", "fingerprint_bits",
    "seed", "chunk_buckets", "layers", "growth", "tightening",
    "layer.0.buckets", "layer.1.fingerprint_bits", "layer.1.capacity",
    "layer.0.fpr", "layer.2.chunk_buckets"};

/* The store of this input: its module and configuration keys. */
static int is_cuckoo;
static const char *const *config_keys = bloom_keys;

/* An open connection to the shared in-memory database `uri`, with the
** extension registered and the limits of the run. */
static sqlite3 *connect_to(const char *uri) {
  sqlite3 *db = NULL;
  if (sqlite3_open_v2(uri, &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                          SQLITE_OPEN_URI,
                      NULL) != SQLITE_OK)
    fz_die("open %s: %s", uri, db ? sqlite3_errmsg(db) : "?");
  char *err = NULL;
  if (sqlite3_bloom_init(db, &err, NULL) != SQLITE_OK)
    fz_die("sqlite3_bloom_init: %s", err ? err : "?");
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, FZ_BLOB_LIMIT);
  char pages[64];
  snprintf(pages, sizeof pages, "PRAGMA max_page_count = %d", FZ_STORE_PAGES);
  sqlite3_exec(db, pages, NULL, NULL, NULL);
  return db;
}

/* An error that is allowed: ours, named, or one SQLite gives on its own. */
static void check_error(sqlite3 *db, int rc, const char *what) {
  int primary = rc & 0xff;
  if (primary == SQLITE_NOMEM || primary == SQLITE_FULL ||
      primary == SQLITE_TOOBIG)
    return;
  const char *msg = sqlite3_errmsg(db);
  const char *name = is_cuckoo ? "cuckoo_store: " : "bloom_store: ";
  if (strncmp(msg, name, strlen(name)) != 0)
    fz_die("%s: error %d does not name %s %s", what, rc, name, msg);
}

/* Runs sql with an optional BLOB bound to ?1; returns the step's result
** code (SQLITE_ROW, SQLITE_DONE, or a checked error).  When want_blob,
** the first column of the first row is copied to *out. */
static int run(sqlite3 *db, const char *sql, const unsigned char *bind,
               size_t bind_len, unsigned char **out, size_t *out_len) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) {
    check_error(db, rc, sql);
    return rc;
  }
  if (bind) fz_bind_blob(st, 1, bind, bind_len);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW && out && sqlite3_column_type(st, 0) == SQLITE_BLOB) {
    *out_len = (size_t)sqlite3_column_bytes(st, 0);
    *out = fz_copy(sqlite3_column_blob(st, 0), *out_len);
  }
  while (rc == SQLITE_ROW) rc = sqlite3_step(st);
  if (rc != SQLITE_DONE) check_error(db, rc, sql);
  sqlite3_finalize(st);
  return rc;
}

/* Applies the damage and value operations; returns 1 if any touched a
** shadow table. */
typedef struct added_values {
  unsigned char bytes[16][16];
  size_t len[16];
  size_t count;
} added_values;

/* 1 if a damaging statement ran and changed a row (one that changes
** nothing leaves the store whole, and its invariants checked). */
static int changed(sqlite3 *db, int rc) {
  return rc == SQLITE_DONE && sqlite3_changes(db) > 0;
}

static int apply_ops(sqlite3 *db, const uint8_t *ops, size_t n,
                     added_values *added) {
  int damaged = 0;
  size_t i = 0;
  while (i < n) {
    uint8_t op = ops[i++] % 6;
    uint8_t arg = i < n ? ops[i++] : 0;
    size_t take = arg % 16;
    if (take > n - i) take = n - i;
    const unsigned char *slice = ops + i;
    i += take;
    char sql[160];
    switch (op) {
      case 0:
        if (run(db, "INSERT INTO s(value) VALUES (?1)", slice, take, NULL,
                NULL) == SQLITE_DONE &&
            added->count < 16) {
          memcpy(added->bytes[added->count], slice, take);
          added->len[added->count++] = take;
        }
        break;
      case 1:
        snprintf(sql, sizeof sql,
                 "UPDATE s_chunks SET data = ?1 WHERE id = %d", arg % 4);
        damaged |= changed(db, run(db, sql, slice, take, NULL, NULL));
        break;
      case 2:
        snprintf(sql, sizeof sql, "DELETE FROM s_chunks WHERE id = %d", arg % 4);
        damaged |= changed(db, run(db, sql, NULL, 0, NULL, NULL));
        break;
      case 3:
        snprintf(sql, sizeof sql,
                 "INSERT OR REPLACE INTO s_chunks VALUES (%d, ?1)",
                 (int)(arg % 8) - 2);
        damaged |= changed(db, run(db, sql, slice, take, NULL, NULL));
        break;
      case 4: {
        const char *key = config_keys[arg % FZ_KEYS];
        static const char *const forms[] = {
            "CAST(hex(?1) AS INTEGER)", "0x7fffffffffffffff - length(?1)",
            "length(?1) / 7.0", "hex(?1)", "?1", "-length(?1)"};
        snprintf(sql, sizeof sql,
                 "UPDATE s_config SET value = %s WHERE key = '%s'",
                 forms[(arg / FZ_KEYS) % 6], key);
        damaged |= changed(db, run(db, sql, slice, take, NULL, NULL));
        break;
      }
      default:
        snprintf(sql, sizeof sql, "DELETE FROM s_config WHERE key = '%s'",
                 config_keys[arg % FZ_KEYS]);
        damaged |= changed(db, run(db, sql, NULL, 0, NULL, NULL));
        break;
    }
  }
  return damaged;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static unsigned long runs;
  is_cuckoo = size > 0 && data[0] == '~';
  config_keys = is_cuckoo ? cuckoo_keys : bloom_keys;
  if (is_cuckoo) {
    data++;
    size--;
  }
  const uint8_t *nl = memchr(data, '\n', size);
  size_t args_len = nl ? (size_t)(nl - data) : size;
  if (args_len > 200) return 0;
  const uint8_t *ops = nl ? nl + 1 : data + size;
  size_t ops_len = (size_t)(data + size - ops);

  char uri[96];
  snprintf(uri, sizeof uri, "file:fuzzstore%lu?mode=memory&cache=shared",
           runs++);
  sqlite3 *writer = connect_to(uri);
  char *create = sqlite3_mprintf(
      "CREATE VIRTUAL TABLE s USING %s(%.*s)",
      is_cuckoo ? "cuckoo_store" : "bloom_store", (int)args_len, data);
  if (create == NULL) fz_die("out of memory");
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(writer, create, -1, &st, NULL);
  sqlite3_free(create);
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) check_error(writer, rc, "CREATE");
  }
  /* A prepare error is SQLite parsing the text: not ours to check. */
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    sqlite3_close(writer);
    return 0;
  }
  added_values added;
  added.count = 0;
  int damaged = apply_ops(writer, ops, ops_len, &added);

  /* A second connection connects afresh: the configuration is read now. */
  sqlite3 *reader = connect_to(uri);
  unsigned char *blob = NULL;
  size_t len = 0;
  int exported = run(reader, "SELECT filter FROM s", NULL, 0, &blob, &len);
  if (exported == SQLITE_DONE && blob) {
    /* A scalable store exports a layered filter. */
    int valid = len > 5 && blob[5] == 3
                    ? spec_layered_valid(blob, len, is_cuckoo ? 2 : 1)
                : is_cuckoo ? spec_cuckoo_valid(blob, len)
                            : spec_bloom_valid(blob, len);
    if (!valid)
      fz_die("the export is not a valid %s filter (%zu bytes)",
             is_cuckoo ? "cuckoo" : "Bloom", len);
  }
  for (size_t i = 0; i < added.count; i++) {
    /* No false negative: an added value has its row. */
    rc = run(reader, "SELECT 1 FROM s WHERE value = ?1 AND value = ?1",
             added.bytes[i], added.len[i], NULL, NULL);
    if (!damaged && rc != SQLITE_DONE)
      fz_die("an undamaged store failed a probe");
    sqlite3_stmt *q = NULL;
    if (!damaged &&
        sqlite3_prepare_v2(reader, "SELECT count(*) FROM s WHERE value = ?1",
                           -1, &q, NULL) == SQLITE_OK) {
      fz_bind_blob(q, 1, added.bytes[i], added.len[i]);
      if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) != 1)
        fz_die("an added value tests absent");
    }
    sqlite3_finalize(q);
  }
  /* A filter longer than the run's blob limit is SQLITE_TOOBIG, rightly. */
  if (!damaged && blob == NULL && (exported & 0xff) != SQLITE_TOOBIG)
    fz_die("an undamaged store did not export its filter");
  run(reader, "SELECT count(*) FROM s WHERE value IN (1, 'x', ?1)", ops,
      ops_len > 8 ? 8 : ops_len, NULL, NULL);
  run(reader, "INSERT INTO s(value) VALUES (?1)", ops, ops_len > 4 ? 4 : ops_len,
      NULL, NULL);
  if (blob)
    run(reader, "INSERT INTO s(filter) VALUES (?1)", blob, len, NULL, NULL);
  if (added.count > 0)
    run(reader, "DELETE FROM s WHERE value = ?1", added.bytes[0],
        added.len[0], NULL, NULL);
  free(blob);
  sqlite3_close(reader);
  sqlite3_close(writer);
  return 0;
}
