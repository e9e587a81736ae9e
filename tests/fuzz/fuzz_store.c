/*
** Fuzz target "store": CREATE VIRTUAL TABLE ... USING bloom_store(<args>)
** (or cuckoo_store(<args>) when args begins with '~', the '~' dropped)
** with arguments from the input, then shadow tables damaged by the input,
** then every way of reading and writing the store from a connection that
** connects afresh (so a damaged configuration is read, not remembered).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Input: [args][0x0A][ops]: args is the text inside bloom_store(...), ops
** a list of operations, each a first byte choosing the operation and the
** bytes after it giving its operands:
**   0  add a value (a slice of the input, as a BLOB) through the store
**      (a cuckoo store may refuse it as full or holding 8 copies)
**   1  overwrite chunk <id> with a slice of the input
**   2  delete chunk <id>
**   3  insert a chunk row <id> with a slice of the input
**   4  set a configuration key (of a fixed, a scalable or, when the
**      arguments name a window, a windowed store) to an INTEGER, REAL,
**      TEXT or BLOB
**   5  delete a configuration key
**
** Invariants (abort on failure): a statement succeeds, or fails with an
** error that starts with the module's name (SQLite's own syntax errors in the
** CREATE text, out of memory, a full database and SQLITE_TOOBIG aside);
** an exported filter is a valid filter of the store's kind by FORMAT.md
** (bloom_spec.h), layered for a scalable or windowed store;
** while the shadow tables are undamaged, the store and its export (probed
** with bloom_test or cuckoo_test) both hold every value added, and they
** agree on every value asked (the added ones and a few from the input);
** the same again after the reader's own writes (a cuckoo store's DELETE of
** one added value among them: the other values stay).  Each input gets
** its own in-memory database, shared between the two connections, and a
** page limit that keeps a huge capacity quick (it fails as a full
** database).
*/
#include "fuzz_common.h"

#define FZ_STORE_PAGES 256

/* A fixed store's keys, then a scalable store's (FORMAT.md, "Stores"). */
#define FZ_KEYS 18
static const char *const bloom_keys[FZ_KEYS] = {
    "kind", "version", "capacity", "fpr", "bits", "hashes", "seed",
    "chunk_blocks", "layers", "growth", "tightening", "layer.0.bits",
    "layer.1.hashes", "layer.1.capacity", "layer.0.fpr", "layer.2.chunk_blocks",
    "layer.0.hashes", "bits"};
static const char *const cuckoo_keys[FZ_KEYS] = {
    "kind", "version", "capacity", "fpr", "buckets", "fingerprint_bits",
    "seed", "chunk_buckets", "layers", "growth", "tightening",
    "layer.0.buckets", "layer.1.fingerprint_bits", "layer.1.capacity",
    "layer.0.fpr", "layer.2.chunk_buckets", "layout", "layer.0.layout"};

/* A windowed store's (FORMAT.md, "Windowed stores"): generation 0 lies
** in slot 0, whose chunk ids the chunk operations reach. */
static const char *const bloom_window_keys[FZ_KEYS] = {
    "kind", "window", "capacity", "fpr", "generations", "clock", "time",
    "adaptive", "gen.0.number", "gen.0.layers", "gen.0.layer.0.bits",
    "gen.0.layer.0.hashes", "gen.0.layer.0.capacity", "gen.0.layer.0.fpr",
    "gen.0.layer.0.chunk_blocks", "gen.1.number"};
static const char *const cuckoo_window_keys[FZ_KEYS] = {
    "kind", "window", "capacity", "fpr", "generations", "clock", "time",
    "adaptive", "gen.0.number", "gen.0.layers", "gen.0.layer.0.buckets",
    "gen.0.layer.0.fingerprint_bits", "gen.0.layer.0.capacity",
    "gen.0.layer.0.fpr", "gen.0.layer.0.chunk_buckets", "gen.1.number"};

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

/* A value to probe with: a BLOB, or an INTEGER or TEXT the store hashes
** by its own type. */
typedef struct probe_value {
  int type; /* SQLITE_BLOB, SQLITE_INTEGER or SQLITE_TEXT */
  const unsigned char *p;
  size_t n;
  sqlite3_int64 i;
} probe_value;

/* What one probe statement answers for v bound to ?<idx>: the first column
** of its row as 0 or 1, or -1 when it fails or answers something else. */
static int ask(sqlite3 *db, const char *sql, const unsigned char *blob,
               size_t len, const probe_value *v, int idx) {
  sqlite3_stmt *q = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
    check_error(db, sqlite3_errcode(db), sql);
    return -1;
  }
  if (blob) fz_bind_blob(q, 1, blob, len);
  unsigned char *copy = NULL;
  switch (v->type) {
    case SQLITE_INTEGER: sqlite3_bind_int64(q, idx, v->i); break;
    case SQLITE_TEXT:
      sqlite3_bind_text(q, idx, (const char *)v->p, (int)v->n, SQLITE_STATIC);
      break;
    default:
      copy = fz_copy(v->p, v->n); /* exactly sized, for ASan */
      fz_bind_blob(q, idx, copy, v->n);
      break;
  }
  int answer = -1;
  int rc = sqlite3_step(q);
  if (rc == SQLITE_ROW && sqlite3_column_type(q, 0) == SQLITE_INTEGER) {
    sqlite3_int64 a = sqlite3_column_int64(q, 0);
    if (a == 0 || a == 1) answer = (int)a;
  } else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    check_error(db, rc, sql);
  }
  sqlite3_finalize(q);
  free(copy);
  return answer;
}

/* The store's answer for v: its rows with value = v (0 or 1). */
static int store_says(sqlite3 *db, const probe_value *v) {
  return ask(db, "SELECT count(*) FROM s WHERE value = ?1", NULL, 0, v, 1);
}

/* The exported filter's answer for v. */
static int export_says(sqlite3 *db, const unsigned char *blob, size_t len,
                       const probe_value *v) {
  return ask(db,
             is_cuckoo ? "SELECT cuckoo_test(?1, ?2)"
                       : "SELECT bloom_test(?1, ?2)",
             blob, len, v, 2);
}

/* Dies unless blob is a valid filter of the store's kind by FORMAT.md. */
static void check_export_valid(const unsigned char *blob, size_t len) {
  /* A scalable store exports a layered filter. */
  int valid = len > 5 && blob[5] == 3
                  ? spec_layered_valid(blob, len, is_cuckoo ? 2 : 1)
              : is_cuckoo ? spec_cuckoo_valid(blob, len)
                          : spec_bloom_valid(blob, len);
  if (!valid)
    fz_die("the export is not a valid %s filter (%zu bytes)",
           is_cuckoo ? "cuckoo" : "Bloom", len);
}

/* The values asked besides the added ones: a few from the input (which
** were added only by chance), of each storage class the store hashes. */
#define FZ_EXTRA_PROBES 12
static size_t extra_probes(const uint8_t *ops, size_t ops_len,
                           probe_value *out) {
  size_t n = 0;
  for (size_t k = 0; k <= 8 && k <= ops_len; k++) {
    probe_value v = {SQLITE_BLOB, ops, k, 0};
    out[n++] = v;
  }
  probe_value one = {SQLITE_INTEGER, NULL, 0, 1};
  out[n++] = one;
  probe_value x = {SQLITE_TEXT, (const unsigned char *)"x", 1, 0};
  out[n++] = x;
  uint64_t u = 0;
  for (size_t k = 0; k < 8 && k < ops_len; k++) u |= (uint64_t)ops[k] << (8 * k);
  probe_value from_input = {SQLITE_INTEGER, NULL, 0, (sqlite3_int64)u};
  out[n++] = from_input;
  return n;
}

/* With the shadow tables undamaged: the exported filter (blob) holds every
** added value that must still be there (all but skip, when skip is not
** NULL), and it answers as the store does for every added value and every
** extra probe. */
static void check_export_agrees(sqlite3 *db, const unsigned char *blob,
                                size_t len, const added_values *added,
                                const probe_value *skip,
                                const probe_value *extra, size_t n_extra,
                                const char *when) {
  for (size_t i = 0; i < added->count; i++) {
    probe_value v = {SQLITE_BLOB, added->bytes[i], added->len[i], 0};
    int from_export = export_says(db, blob, len, &v);
    int from_store = store_says(db, &v);
    int must_hold = skip == NULL || skip->n != v.n ||
                    memcmp(skip->p, v.p, v.n) != 0;
    if (must_hold && from_export != 1)
      fz_die("%s: the exported filter misses added value %zu (answers %d)",
             when, i, from_export);
    if (from_export != from_store)
      fz_die("%s: added value %zu: the export says %d, the store %d", when,
             i, from_export, from_store);
  }
  for (size_t i = 0; i < n_extra; i++) {
    int from_export = export_says(db, blob, len, &extra[i]);
    int from_store = store_says(db, &extra[i]);
    if (from_export < 0 || from_export != from_store)
      fz_die("%s: probe %zu: the export says %d, the store %d", when, i,
             from_export, from_store);
  }
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

/* 1 if the arguments name a window (the word anywhere will do). */
static int names_window(const uint8_t *args, size_t n) {
  for (size_t i = 0; i + 6 <= n; i++)
    if (memcmp(args + i, "window", 6) == 0) return 1;
  return 0;
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
  if (names_window(data, args_len))
    config_keys = is_cuckoo ? cuckoo_window_keys : bloom_window_keys;
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
  if (exported == SQLITE_DONE && blob) check_export_valid(blob, len);
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
  probe_value extra[FZ_EXTRA_PROBES];
  size_t n_extra = extra_probes(ops, ops_len, extra);
  if (!damaged && blob)
    check_export_agrees(reader, blob, len, &added, NULL, extra, n_extra,
                        "after the inserts");
  run(reader, "SELECT count(*) FROM s WHERE value IN (1, 'x', ?1)", ops,
      ops_len > 8 ? 8 : ops_len, NULL, NULL);
  run(reader, "INSERT INTO s(value) VALUES (?1)", ops, ops_len > 4 ? 4 : ops_len,
      NULL, NULL);
  if (blob)
    run(reader, "INSERT INTO s(filter) VALUES (?1)", blob, len, NULL, NULL);
  if (added.count > 0)
    run(reader, "DELETE FROM s WHERE value = ?1", added.bytes[0],
        added.len[0], NULL, NULL);
  if (!damaged) {
    /* The reader's writes only add, but for that DELETE (a cuckoo store
    ** may drop the one value it names; a Bloom store refuses it). */
    unsigned char *again = NULL;
    size_t again_len = 0;
    int rc2 = run(reader, "SELECT filter FROM s", NULL, 0, &again, &again_len);
    if (rc2 == SQLITE_DONE && again) {
      check_export_valid(again, again_len);
      probe_value first = {SQLITE_BLOB, added.bytes[0], added.len[0], 0};
      check_export_agrees(reader, again, again_len, &added,
                          is_cuckoo && added.count > 0 ? &first : NULL, extra,
                          n_extra, "after the reader's writes");
    } else if ((rc2 & 0xff) != SQLITE_TOOBIG) {
      fz_die("an undamaged store did not export its filter again");
    }
    free(again);
  }
  free(blob);
  sqlite3_close(reader);
  sqlite3_close(writer);
  return 0;
}
