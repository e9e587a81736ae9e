/*
** Fuzz target "store": CREATE VIRTUAL TABLE ... USING bloom_store(<args>)
** (or cuckoo_store(<args>) when args begins with '~', quotient_store(<args>)
** on 512-byte pages when it begins with '^', the mark dropped)
** with arguments from the input, then shadow tables damaged by the input,
** then every statement a user can run on the store, from a connection that
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
** a list of operations.  Each is a byte choosing the operation (% 12), a
** byte `arg`, for operations 6 to 11 two more bytes `x` and `y`, then a
** slice of the input of arg % 16 bytes:
**   0  add the slice (a BLOB) through the store
**      (a cuckoo store may refuse it as full or holding 8 copies)
**   1  overwrite chunk <arg % 4> with the slice
**   2  delete chunk <arg % 4>
**   3  insert a chunk row <arg % 8 - 2> with the slice
**   4  set a configuration key (of a fixed, a scalable or, when the
**      arguments name a window, a windowed store) to an INTEGER, REAL,
**      TEXT or BLOB
**   5  delete a configuration key
**   6  add the slice with `at` = T + (int8)x spans + arg / 16 seconds, T the
**      store's time (the `time` row; for the wall clock, now if later), and
**      OR IGNORE when y is odd (a store without a window: no `at`)
**   7  set the `time` row to (floor(T / span) + (int8)x) spans + y / 16
**      seconds: a time moved spans ahead, as a write by the events clock
**      moves it, or back, or off a span's start
**   8  slot k = x % (G + 2) (one past the ring too): arg / 16 % 4 picks
**      gen.k.number set to the number of slot k nearest below
**      floor(T / span) + (int8)y (an older one is expired), gen.k.layers
**      or gen.k.layer.0.capacity set to (int8)y, or every gen.k. row
**      deleted
**   9  copy slot x % (G + 1)'s configuration and chunk rows to slot
**      y % (G + 2), numbered as the generation of that slot just before
**      it (arg / 16 % 3 rings older still): a generation, expired or live,
**      whose rows look whole
**  10  in slot x % (G + 2), chunk y % 4 of the slot: by y / 4 % 4,
**      overwrite it with the slice, delete it, insert it as the slice, or
**      insert it as zeros of the length of the slot's first row
**  11  by x % 4: INSERT INTO t(t) VALUES ('expire'), an unknown command
**      (the slice as TEXT), INSERT OR IGNORE the slice, DELETE the slice
**
** In a quotient store (no window, no slots), operations 8 to 10 damage
** what its leaves are kept in instead:
**   8  the directory row of chunk x % 8, by arg / 16 % 8: its node set to
**      (int8)y, doubled, its last bit flipped, set to the slice (a BLOB),
**      to y / 2.0, to 2^62 + y; the row deleted; a row (chunk x % 8 - 1,
**      node y) inserted
**   9  chunk x % L's leaf split in the directory alone (node doubled, a
**      last row with the sibling), its chunk row copied there when y is
**      odd: a directory that looks whole over records of the old depth
**  10  chunk y % 8's row, by y / 8 % 4: overwritten with the slice,
**      deleted, byte x % 64 of it set to arg, or made zeros of its length
**
** G, span and T are read from the configuration before each operation
** (G = 4, span = 1 when it does not hold them).  Slot k owns the chunk ids
** k * 2^40 .. (k + 1) * 2^40 - 1 (FORMAT.md, "Windowed stores").
**
** Invariants (abort on failure): a statement succeeds, or fails with an
** error that starts with the module's name (SQLite's own syntax errors in the
** CREATE text, out of memory, a full database and SQLITE_TOOBIG aside);
** no error is SQLITE_INTERNAL or the store's "internal error" (the guard
** that turns a step code that escaped into an error); every statement
** ends within 64 + (the rows it can return) + 1 calls of sqlite3_step, no
** row comes back with sqlite3_data_count() == 0, and sqlite3_finalize
** answers what the last step did (the bug class of a method that hands
** sqlite3_step's SQLITE_ROW to SQLite: a statement that never ends), and
** within 2 * 10^7 virtual machine instructions of its own and the
** store's statements (one that loops inside a step);
** an exported filter is a valid filter of the store's kind by FORMAT.md
** (bloom_spec.h), layered for a scalable or windowed store, layout 1 with
** every leaf whole and items the leaves' entries for a quotient store
** (quotient_spec.h);
** while the shadow tables are undamaged, the store and its export (probed
** with bloom_test, cuckoo_test or quotient_test) hold every value added
** since time last
** moved (operations 6, 7 and a DELETE may make a store forget), and they
** agree on every value asked (the added ones and a few from the input);
** the same again after the reader's own writes (a cuckoo store's DELETE of
** one added value among them: the other values stay).  Then the reader
** runs every statement a user can (probes of each storage class and IN,
** SELECT filter, length(filter), *, summary, count(*), a windowed store's
** generation columns, INSERT with and without `at` and OR IGNORE, DELETE,
** UPDATE, the 'expire' command, INSERT INTO t(filter)), inside a
** savepoint rolled back to, inside a transaction committed or rolled
** back, or in autocommit (by the last byte of the input); the first
** connection then runs the reads.  Each input gets its own in-memory
** database, shared between the two connections, and a page limit that
** keeps a huge capacity quick (it fails as a full database).
*/
#include "fuzz_common.h"
#include "lib/quotient_spec.h"

#include <time.h>

#define FZ_STORE_PAGES 256
#define FZ_OPS 12
/* Steps a statement may take beyond its rows and its final step. */
#define FZ_STEP_SLACK 64
/* The most rows a windowed store's generation columns give: G + 1. */
#define FZ_MAX_GENERATIONS 33
/* The chunk ids a windowed store's slot owns (FORMAT.md). */
#define FZ_SLOT_IDS ((int64_t)1 << 40)

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
** in slot 0, whose chunk ids the chunk operations reach; operations 8 to
** 10 reach the other slots. */
static const char *const bloom_window_keys[FZ_KEYS] = {
    "kind", "window", "capacity", "fpr", "generations", "clock", "time",
    "adaptive", "gen.0.number", "gen.0.layers", "gen.0.layer.0.bits",
    "gen.0.layer.0.hashes", "gen.0.layer.0.capacity", "gen.0.layer.0.fpr",
    "gen.0.layer.0.chunk_blocks", "gen.1.number", "gen.1.layers",
    "gen.1.layer.0.bits"};
static const char *const cuckoo_window_keys[FZ_KEYS] = {
    "kind", "window", "capacity", "fpr", "generations", "clock", "time",
    "adaptive", "gen.0.number", "gen.0.layers", "gen.0.layer.0.buckets",
    "gen.0.layer.0.fingerprint_bits", "gen.0.layer.0.capacity",
    "gen.0.layer.0.fpr", "gen.0.layer.0.chunk_buckets", "gen.1.number",
    "gen.1.layers", "gen.1.layer.0.buckets"};
/* A quotient store's (FORMAT.md, "Kind 4: quotient_store"), then keys it
** does not write. */
static const char *const quotient_keys[FZ_KEYS] = {
    "kind", "version", "capacity", "fpr", "seed", "affinity", "leaf_items",
    "leaf_bytes", "base_depth", "sized", "row_reserve", "narrow_leaves",
    "layers", "growth", "layer.0.leaf_items", "rows_by_range",
    "narrow_below", "deletes"};

/* The store of this input: its module, configuration keys, and whether
** CREATE made it windowed (it then has the columns at, generation, ...). */
static int is_cuckoo;
static int is_quotient;
static int is_windowed;

/* The store's module, and the start of each of its errors. */
static const char *module_name(void) {
  return is_quotient ? "quotient_store" : is_cuckoo ? "cuckoo_store"
                                                    : "bloom_store";
}
static const char *const *config_keys = bloom_keys;

/* A statement that loops inside one step (a method that reads chunk rows
** without end) never returns to count its steps: the progress handler
** counts the virtual machine instructions of every statement it runs,
** the store's own included, and a statement past FZ_MAX_PROGRESS calls of
** FZ_PROGRESS_OPS instructions (far more than a store of FZ_STORE_PAGES
** pages needs) does not end. */
#define FZ_PROGRESS_OPS 1000
#define FZ_MAX_PROGRESS 20000
static long progress_calls;
static const char *progress_sql;

static int on_progress(void *unused) {
  (void)unused;
  if (++progress_calls > FZ_MAX_PROGRESS)
    fz_die("%s: does not end: more than %d virtual machine instructions",
           progress_sql ? progress_sql : "a statement",
           FZ_MAX_PROGRESS * FZ_PROGRESS_OPS);
  return 0;
}

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
  sqlite3_progress_handler(db, FZ_PROGRESS_OPS, on_progress, NULL);
  char pages[64];
  snprintf(pages, sizeof pages, "PRAGMA max_page_count = %d", FZ_STORE_PAGES);
  sqlite3_exec(db, pages, NULL, NULL, NULL);
  return db;
}

/* 1 if msg is the store's internal error: "<module>: internal error...".
** Not "internal error" anywhere in the text: an error may quote the input
** (CREATE arguments, a command), and the fuzzer soon writes the words
** there. */
static int internal_error(const char *msg) {
  const char *name = module_name();
  size_t n = strlen(name);
  return strncmp(msg, name, n) == 0 &&
         strncmp(msg + n, ": internal error", 16) == 0;
}

/* An error that is allowed: ours, named, or one SQLite gives on its own.
** Never an internal error: the store answers one when a code of
** sqlite3_step escaped a function (a statement that never ends, else). */
static void check_error(sqlite3 *db, int rc, const char *what) {
  int primary = rc & 0xff;
  const char *msg = sqlite3_errmsg(db);
  if (primary == SQLITE_INTERNAL || internal_error(msg))
    fz_die("%s: error %d: %s", what, rc, msg);
  if (primary == SQLITE_NOMEM || primary == SQLITE_FULL ||
      primary == SQLITE_TOOBIG)
    return;
  const char *name = module_name();
  if (strncmp(msg, name, strlen(name)) != 0 || strncmp(msg + strlen(name), ": ", 2) != 0)
    fz_die("%s: error %d does not name %s: %s", what, rc, name, msg);
}

/* A value to bind: a BLOB, INTEGER, REAL, TEXT or NULL. */
typedef struct probe_value {
  int type; /* SQLITE_BLOB, SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT or
               SQLITE_NULL */
  const unsigned char *p;
  size_t n;
  sqlite3_int64 i;
  double d;
} probe_value;

static probe_value blob_value(const unsigned char *p, size_t n) {
  probe_value v = {SQLITE_BLOB, p, n, 0, 0.0};
  return v;
}

static probe_value int_value(sqlite3_int64 i) {
  probe_value v = {SQLITE_INTEGER, NULL, 0, i, 0.0};
  return v;
}

/* What one statement gave. */
typedef struct outcome {
  int rc;              /* SQLITE_DONE, or the error (of prepare or step) */
  int rows;
  int type;            /* column 0's storage class in the first row */
  sqlite3_int64 i;     /* column 0 of the first row as an INTEGER */
  unsigned char *blob; /* exactly sized copy of a BLOB column 0, or NULL */
  size_t len;
} outcome;

#define FZ_MAX_BINDS 8

/* Runs sql with binds[k] bound to ?(k + 1), stepping it to its end, and
** returns its final code (SQLITE_DONE or a checked error).  max_rows: the
** most rows it can return; past 64 more steps than that it never ends, an
** invariant broken.  A row without columns, or a finalize that answers
** otherwise than the last step, are too.  *out, when given, gets the
** outcome (free out->blob). */
static int exec_sql(sqlite3 *db, const char *sql, const probe_value *binds,
                    int n_binds, int max_rows, outcome *out) {
  outcome o;
  memset(&o, 0, sizeof o);
  sqlite3_stmt *st = NULL;
  progress_calls = 0;
  progress_sql = sql;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) {
    check_error(db, rc, sql);
    o.rc = rc;
    if (out) *out = o;
    else free(o.blob);
    return rc;
  }
  /* Exactly sized copies of the BLOBs and TEXTs bound, for ASan. */
  unsigned char *copies[FZ_MAX_BINDS] = {NULL};
  /* A statement that takes fewer parameters (a slot's zeros) binds fewer. */
  if (n_binds > sqlite3_bind_parameter_count(st))
    n_binds = sqlite3_bind_parameter_count(st);
  for (int k = 0; k < n_binds && k < FZ_MAX_BINDS; k++) {
    const probe_value *v = &binds[k];
    int b;
    switch (v->type) {
      case SQLITE_INTEGER: b = sqlite3_bind_int64(st, k + 1, v->i); break;
      case SQLITE_FLOAT: b = sqlite3_bind_double(st, k + 1, v->d); break;
      case SQLITE_NULL: b = sqlite3_bind_null(st, k + 1); break;
      case SQLITE_TEXT:
        copies[k] = fz_copy(v->p, v->n);
        b = sqlite3_bind_text64(st, k + 1, (const char *)copies[k], v->n,
                                SQLITE_STATIC, SQLITE_UTF8);
        break;
      default:
        copies[k] = fz_copy(v->p, v->n);
        b = sqlite3_bind_blob64(st, k + 1, copies[k], v->n, SQLITE_STATIC);
        break;
    }
    if (b != SQLITE_OK && (b & 0xff) != SQLITE_TOOBIG)
      fz_die("%s: bind ?%d: error %d", sql, k + 1, b);
  }
  int steps = 0;
  for (;;) {
    rc = sqlite3_step(st);
    if (++steps > FZ_STEP_SLACK + max_rows + 1)
      fz_die("%s: does not end: step %d answers %d, the statement can "
             "return %d rows", sql, steps, rc, max_rows);
    if (rc != SQLITE_ROW) break;
    if (sqlite3_data_count(st) == 0)
      fz_die("%s: step %d answers SQLITE_ROW with no columns", sql, steps);
    if (o.rows++ == 0) {
      o.type = sqlite3_column_type(st, 0);
      o.i = sqlite3_column_int64(st, 0);
      if (o.type == SQLITE_BLOB) {
        o.len = (size_t)sqlite3_column_bytes(st, 0);
        o.blob = fz_copy(sqlite3_column_blob(st, 0), o.len);
      }
    }
  }
  if (rc != SQLITE_DONE) check_error(db, rc, sql);
  int fin = sqlite3_finalize(st);
  if (fin != (rc == SQLITE_DONE ? SQLITE_OK : rc))
    fz_die("%s: the last step answered %d, sqlite3_finalize %d", sql, rc,
           fin);
  for (int k = 0; k < FZ_MAX_BINDS; k++) free(copies[k]);
  o.rc = rc;
  if (out) *out = o;
  else free(o.blob);
  return rc;
}

/* exec_sql with at most one BLOB bound to ?1 and one row. */
static int run(sqlite3 *db, const char *sql, const unsigned char *bind,
               size_t bind_len) {
  probe_value v = blob_value(bind, bind_len);
  return exec_sql(db, sql, &v, bind ? 1 : 0, 1, NULL);
}

/* The values added through the store, and the time each was added in:
** one added before the store last moved its time may be forgotten. */
typedef struct added_values {
  unsigned char bytes[16][16];
  size_t len[16];
  int epoch[16];
  size_t count;
} added_values;

static void remember(added_values *added, const unsigned char *p, size_t n,
                     int epoch) {
  if (added->count == 16) return;
  memcpy(added->bytes[added->count], p, n);
  added->len[added->count] = n;
  added->epoch[added->count++] = epoch;
}

/* 1 if a damaging statement ran and changed a row (one that changes
** nothing leaves the store whole, and its invariants checked). */
static int changed(sqlite3 *db, int rc) {
  return rc == SQLITE_DONE && sqlite3_changes(db) > 0;
}

/* What one probe statement answers for v bound to ?<idx> (and blob to ?1
** when given): the first column of its row as 0 or 1, or -1 when it fails
** or answers something else. */
static int ask(sqlite3 *db, const char *sql, const unsigned char *blob,
               size_t len, const probe_value *v, int idx) {
  probe_value binds[2];
  binds[0] = blob_value(blob, len);
  binds[idx - 1] = *v;
  outcome o;
  exec_sql(db, sql, binds, idx, 1, &o);
  int answer = -1;
  if (o.rc == SQLITE_DONE && o.rows == 1 && o.type == SQLITE_INTEGER &&
      (o.i == 0 || o.i == 1))
    answer = (int)o.i;
  free(o.blob);
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
             is_quotient ? "SELECT quotient_test(?1, ?2)"
             : is_cuckoo ? "SELECT cuckoo_test(?1, ?2)"
                         : "SELECT bloom_test(?1, ?2)",
             blob, len, v, 2);
}

/* Dies unless blob is a valid filter of the store's kind by FORMAT.md. */
static void check_export_valid(const unsigned char *blob, size_t len) {
  if (is_quotient) {
    uint64_t items = 0;
    if (!spec_qleaves_valid(blob, len) || !spec_qleaves_all_valid(blob, &items))
      fz_die("the export is not a valid layout-1 quotient filter (%zu bytes)",
             len);
    if (items != le64(blob + 40))
      fz_die("the export's items is %llu, its leaves hold %llu",
             (unsigned long long)le64(blob + 40), (unsigned long long)items);
    return;
  }
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
  for (size_t k = 0; k <= 8 && k <= ops_len; k++) out[n++] = blob_value(ops, k);
  out[n++] = int_value(1);
  probe_value x = {SQLITE_TEXT, (const unsigned char *)"x", 1, 0, 0.0};
  out[n++] = x;
  out[n++] = int_value((sqlite3_int64)fz_le(ops, ops_len, 8));
  return n;
}

/* With the shadow tables undamaged: the exported filter (blob) holds every
** added value that must still be there (those added since the store's time
** last moved, but skip, when skip is not NULL), and it answers as the store
** does for every added value and every extra probe. */
static void check_export_agrees(sqlite3 *db, const unsigned char *blob,
                                size_t len, const added_values *added,
                                int epoch, const probe_value *skip,
                                const probe_value *extra, size_t n_extra,
                                const char *when) {
  for (size_t i = 0; i < added->count; i++) {
    probe_value v = blob_value(added->bytes[i], added->len[i]);
    int from_export = export_says(db, blob, len, &v);
    int from_store = store_says(db, &v);
    int must_hold = added->epoch[i] == epoch &&
                    (skip == NULL || skip->n != v.n ||
                     memcmp(skip->p, v.p, v.n) != 0);
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

/* --- the windowed store's time ----------------------------------------- */

/* Arithmetic on times the input chose, wrapping rather than overflowing. */
static int64_t wrap_add(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}
static int64_t wrap_mul(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a * (uint64_t)b);
}
static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return a % b != 0 && (a < 0) != (b < 0) ? q - 1 : q;
}

/* A windowed store's clock, as its configuration rows say. */
typedef struct store_clock {
  int64_t span, generations; /* 1 and 4 when the rows do not hold them */
  int64_t now;               /* T: the store's time */
  int64_t current;           /* floor(T / span), the newest generation */
  int wall;
} store_clock;

static store_clock read_clock(sqlite3 *db) {
  store_clock c = {1, 4, 0, 0, 0};
  int64_t window = 0, generations = 0;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db,
                         "SELECT key, value FROM s_config WHERE key IN "
                         "('window', 'generations', 'time', 'clock')",
                         -1, &st, NULL) == SQLITE_OK) {
    /* An ordinary table of at most four rows: it ends. */
    while (sqlite3_step(st) == SQLITE_ROW) {
      const char *key = (const char *)sqlite3_column_text(st, 0);
      if (key == NULL) continue;
      int64_t v = sqlite3_column_int64(st, 1);
      if (strcmp(key, "window") == 0) window = v;
      else if (strcmp(key, "generations") == 0) generations = v;
      else if (strcmp(key, "time") == 0) c.now = v;
      else {
        const unsigned char *t = sqlite3_column_text(st, 1);
        c.wall = t != NULL && strcmp((const char *)t, "wall") == 0;
      }
    }
  }
  sqlite3_finalize(st);
  if (window >= 1 && window <= ((int64_t)1 << 32) && generations >= 1 &&
      generations <= 32) {
    c.generations = generations;
    c.span = (window + generations - 1) / generations;
  }
  if (c.wall && (int64_t)time(NULL) > c.now) c.now = (int64_t)time(NULL);
  c.current = floor_div(c.now, c.span);
  return c;
}

/* The generation of slot k at or before generation g: n mod (G + 1) = k. */
static int64_t number_in_slot(const store_clock *c, int64_t g, int64_t k) {
  int64_t ring = c->generations + 1;
  int64_t off = (g - k) % ring;
  if (off < 0) off += ring;
  return wrap_add(g, -off);
}

/* --- the operations ----------------------------------------------------- */

typedef struct op_state {
  added_values added;
  int epoch;   /* bumped when the store may have forgotten a value */
  int damaged; /* a shadow table changed by hand */
} op_state;

/* Operation 6: an add stamped `at`.  A value it puts in a live generation
** is remembered; an `at` past the newest generation moves the events
** clock (what it passes is forgotten), and fails on the wall clock. */
static void add_at(sqlite3 *db, op_state *o, const unsigned char *slice,
                   size_t take, uint8_t arg, uint8_t x, uint8_t y) {
  if (!is_windowed) {
    if (run(db, "INSERT INTO s(value) VALUES (?1)", slice, take) ==
        SQLITE_DONE)
      remember(&o->added, slice, take, o->epoch);
    return;
  }
  store_clock c = read_clock(db);
  int64_t at = wrap_add(wrap_add(c.now, wrap_mul((int8_t)x, c.span)),
                        arg / 16);
  probe_value binds[2] = {blob_value(slice, take), int_value(at)};
  int rc = exec_sql(db,
                    y & 1 ? "INSERT OR IGNORE INTO s(value, at) VALUES "
                            "(?1, ?2)"
                          : "INSERT INTO s(value, at) VALUES (?1, ?2)",
                    binds, 2, 0, NULL);
  if (rc != SQLITE_DONE || at < 0) return;
  int64_t g = floor_div(at, c.span);
  if (g > c.current) o->epoch++;
  /* On the wall clock, only in the newest generation: the clock moves on
  ** while the run goes, and an older one may expire meanwhile. */
  if (g >= wrap_add(c.current, c.wall ? 0 : -c.generations))
    remember(&o->added, slice, take, o->epoch);
}

/* Operation 7: the time row moved.  Forward to a span's start, it is what
** a later write would write; else it may be damage. */
static void set_time(sqlite3 *db, op_state *o, uint8_t x, uint8_t y) {
  store_clock c = read_clock(db);
  int64_t t = wrap_add(wrap_mul(wrap_add(c.current, (int8_t)x), c.span),
                       y / 16);
  probe_value v = int_value(t);
  int rc = exec_sql(db, "UPDATE s_config SET value = ?1 WHERE key = 'time'",
                    &v, 1, 0, NULL);
  if (!changed(db, rc)) return;
  if ((int8_t)x >= 0 && y / 16 == 0) o->epoch++;
  else o->damaged = 1;
}

/* Operation 8: a generation's rows set or deleted. */
static void set_generation(sqlite3 *db, op_state *o, uint8_t arg, uint8_t x,
                           uint8_t y) {
  store_clock c = read_clock(db);
  int64_t k = x % (c.generations + 2);
  char sql[200];
  probe_value v = int_value((int8_t)y);
  switch (arg / 16 % 4) {
    case 0:
      v.i = number_in_slot(&c, wrap_add(c.current, (int8_t)y), k);
      snprintf(sql, sizeof sql,
               "INSERT OR REPLACE INTO s_config VALUES ('gen.%lld.number', "
               "?1)", (long long)k);
      break;
    case 1:
      snprintf(sql, sizeof sql,
               "INSERT OR REPLACE INTO s_config VALUES ('gen.%lld.layers', "
               "?1)", (long long)k);
      break;
    case 2:
      snprintf(sql, sizeof sql,
               "UPDATE s_config SET value = ?1 WHERE key = "
               "'gen.%lld.layer.0.capacity'", (long long)k);
      break;
    default:
      snprintf(sql, sizeof sql,
               "DELETE FROM s_config WHERE key >= 'gen.%lld.' AND key < "
               "'gen.%lld/'", (long long)k, (long long)k);
      o->damaged |= changed(db, exec_sql(db, sql, NULL, 0, 0, NULL));
      return;
  }
  o->damaged |= changed(db, exec_sql(db, sql, &v, 1, 0, NULL));
}

/* Operation 9: slot a's generation copied to slot b, as an older one. */
static void copy_slot(sqlite3 *db, op_state *o, uint8_t arg, uint8_t x,
                      uint8_t y) {
  store_clock c = read_clock(db);
  int64_t a = x % (c.generations + 1), b = y % (c.generations + 2);
  int64_t ring = c.generations + 1;
  char sql[300];
  snprintf(sql, sizeof sql,
           "INSERT OR REPLACE INTO s_config SELECT 'gen.%lld.' || "
           "substr(key, %d), value FROM s_config WHERE key >= 'gen.%lld.' "
           "AND key < 'gen.%lld/'",
           (long long)b, snprintf(NULL, 0, "gen.%lld.", (long long)a) + 1,
           (long long)a, (long long)a);
  o->damaged |= changed(db, exec_sql(db, sql, NULL, 0, 0, NULL));
  /* Its number: the generation of slot b just before slot a's, or rings
  ** older. */
  int64_t back = (a - b) % ring;
  if (back <= 0) back += ring;
  snprintf(sql, sizeof sql,
           "UPDATE s_config SET value = (SELECT value - %lld FROM s_config "
           "WHERE key = 'gen.%lld.number') WHERE key = 'gen.%lld.number'",
           (long long)(back + ring * (arg / 16 % 3)), (long long)a,
           (long long)b);
  o->damaged |= changed(db, exec_sql(db, sql, NULL, 0, 0, NULL));
  snprintf(sql, sizeof sql,
           "INSERT OR REPLACE INTO s_chunks SELECT id - %lld, data FROM "
           "s_chunks WHERE id BETWEEN %lld AND %lld",
           (long long)((a - b) * FZ_SLOT_IDS), (long long)(a * FZ_SLOT_IDS),
           (long long)((a + 1) * FZ_SLOT_IDS - 1));
  o->damaged |= changed(db, exec_sql(db, sql, NULL, 0, 0, NULL));
}

/* Operation 10: a chunk row of any slot. */
static void slot_chunk(sqlite3 *db, op_state *o, const unsigned char *slice,
                       size_t take, uint8_t x, uint8_t y) {
  store_clock c = read_clock(db);
  long long first = (long long)(x % (c.generations + 2) * FZ_SLOT_IDS);
  long long id = first + y % 4;
  char sql[300];
  switch (y / 4 % 4) {
    case 0:
      snprintf(sql, sizeof sql, "UPDATE s_chunks SET data = ?1 WHERE id = %lld",
               id);
      break;
    case 1:
      snprintf(sql, sizeof sql, "DELETE FROM s_chunks WHERE id = %lld", id);
      break;
    case 2:
      snprintf(sql, sizeof sql,
               "INSERT OR REPLACE INTO s_chunks VALUES (%lld, ?1)", id);
      break;
    default:
      snprintf(sql, sizeof sql,
               "INSERT OR REPLACE INTO s_chunks SELECT %lld, "
               "zeroblob(length(data)) FROM s_chunks WHERE id >= %lld "
               "ORDER BY id LIMIT 1", id, first);
      break;
  }
  probe_value v = blob_value(slice, take);
  o->damaged |= changed(db, exec_sql(db, sql, &v, 1, 0, NULL));
}

/* Operations 8 to 10 in a quotient store: its directory and chunk rows. */
static void quotient_damage(sqlite3 *db, op_state *o, uint8_t op,
                            const unsigned char *slice, size_t take,
                            uint8_t arg, uint8_t x, uint8_t y) {
  char sql[400];
  probe_value v = blob_value(slice, take);
  int binds = 0;
  if (op == 8) {
    int chunk = x % 8;
    unsigned how = arg / 16 % 8;
    if (how < 6) {
      char value[80];
      switch (how) {
        case 0: snprintf(value, sizeof value, "%d", (int)(int8_t)y); break;
        case 1: snprintf(value, sizeof value, "node * 2"); break;
        case 2: snprintf(value, sizeof value, "(node | 1) - (node & 1)"); break;
        case 3: snprintf(value, sizeof value, "?1"); break;
        case 4: snprintf(value, sizeof value, "%d / 2.0", y); break;
        default: snprintf(value, sizeof value, "4611686018427387904 + %d", y);
      }
      snprintf(sql, sizeof sql,
               "UPDATE s_directory SET node = %s WHERE chunk = %d", value,
               chunk);
      binds = how == 3;
    } else if (how == 6) {
      snprintf(sql, sizeof sql, "DELETE FROM s_directory WHERE chunk = %d",
               chunk);
    } else {
      snprintf(sql, sizeof sql,
               "INSERT OR REPLACE INTO s_directory VALUES (%d, %d)", chunk - 1,
               y);
    }
    o->damaged |= changed(db, exec_sql(db, sql, &v, binds, 0, NULL));
    return;
  }
  if (op == 9) {
    /* the new row first, while the old node is there to read */
    snprintf(sql, sizeof sql,
             "INSERT INTO s_directory SELECT (SELECT max(chunk) + 1 FROM "
             "s_directory), node * 2 + 1 FROM s_directory WHERE chunk = "
             "%d %% (SELECT count(*) FROM s_directory)", x);
    int rc = exec_sql(db, sql, NULL, 0, 0, NULL);
    if (!changed(db, rc)) return;
    o->damaged = 1;
    snprintf(sql, sizeof sql,
             "UPDATE s_directory SET node = node * 2 WHERE chunk = %d %% "
             "((SELECT count(*) FROM s_directory) - 1)", x);
    exec_sql(db, sql, NULL, 0, 0, NULL);
    if (y & 1) {
      snprintf(sql, sizeof sql,
               "INSERT OR REPLACE INTO s_chunks SELECT (SELECT max(chunk) "
               "FROM s_directory), data FROM s_chunks WHERE id = %d %% "
               "((SELECT count(*) FROM s_directory) - 1)", x);
      exec_sql(db, sql, NULL, 0, 0, NULL);
    }
    return;
  }
  /* The (y % 8)-th row in id order: a store's rows lie at its ranges'
  ** ids (rows_by_range), or at the chunk numbers of one made before. */
  char id[80];
  snprintf(id, sizeof id, "(SELECT id FROM s_chunks ORDER BY id LIMIT 1 "
           "OFFSET %d)", y % 8);
  switch (y / 8 % 4) {
    case 0:
      snprintf(sql, sizeof sql, "UPDATE s_chunks SET data = ?1 WHERE id = %s",
               id);
      binds = 1;
      break;
    case 1:
      snprintf(sql, sizeof sql, "DELETE FROM s_chunks WHERE id = %s", id);
      break;
    case 2:
      /* one byte set: the row's bytes before it, arg, the bytes after */
      snprintf(sql, sizeof sql,
               "UPDATE s_chunks SET data = CAST(substr(data, 1, %d) || "
               "x'%02x' || substr(data, %d) AS BLOB) WHERE id = %s AND "
               "length(data) > %d", x % 64, arg, x % 64 + 2, id, x % 64);
      break;
    default:
      snprintf(sql, sizeof sql,
               "UPDATE s_chunks SET data = zeroblob(length(data)) WHERE "
               "id = %s", id);
      break;
  }
  o->damaged |= changed(db, exec_sql(db, sql, &v, binds, 0, NULL));
}

/* Operation 11: a write a user makes, between the damage. */
static void user_write(sqlite3 *db, op_state *o, const unsigned char *slice,
                       size_t take, uint8_t x) {
  probe_value v = blob_value(slice, take);
  switch (x % 4) {
    case 0:
      if (is_windowed)
        exec_sql(db, "INSERT INTO s(s) VALUES ('expire')", NULL, 0, 0, NULL);
      break;
    case 1:
      v.type = SQLITE_TEXT;
      if (is_windowed)
        exec_sql(db, "INSERT INTO s(s) VALUES (?1)", &v, 1, 0, NULL);
      break;
    case 2:
      if (exec_sql(db, "INSERT OR IGNORE INTO s(value) VALUES (?1)", &v, 1, 0,
                   NULL) == SQLITE_DONE)
        remember(&o->added, slice, take, o->epoch);
      break;
    default:
      /* A cuckoo store forgets one copy: the value, or one that collides. */
      if (exec_sql(db, "DELETE FROM s WHERE value = ?1", &v, 1, 0, NULL) ==
          SQLITE_DONE)
        o->epoch++;
      break;
  }
}

static void apply_ops(sqlite3 *db, const uint8_t *ops, size_t n,
                      op_state *o) {
  size_t i = 0;
  while (i < n) {
    uint8_t op = ops[i++] % FZ_OPS;
    uint8_t arg = i < n ? ops[i++] : 0;
    uint8_t x = 0, y = 0;
    if (op >= 6) {
      x = i < n ? ops[i++] : 0;
      y = i < n ? ops[i++] : 0;
    }
    size_t take = arg % 16;
    if (take > n - i) take = n - i;
    const unsigned char *slice = ops + i;
    i += take;
    char sql[160];
    switch (op) {
      case 0:
        if (run(db, "INSERT INTO s(value) VALUES (?1)", slice, take) ==
            SQLITE_DONE)
          remember(&o->added, slice, take, o->epoch);
        break;
      case 1:
        snprintf(sql, sizeof sql,
                 "UPDATE s_chunks SET data = ?1 WHERE id = %d", arg % 4);
        o->damaged |= changed(db, run(db, sql, slice, take));
        break;
      case 2:
        snprintf(sql, sizeof sql, "DELETE FROM s_chunks WHERE id = %d", arg % 4);
        o->damaged |= changed(db, run(db, sql, NULL, 0));
        break;
      case 3:
        snprintf(sql, sizeof sql,
                 "INSERT OR REPLACE INTO s_chunks VALUES (%d, ?1)",
                 (int)(arg % 8) - 2);
        o->damaged |= changed(db, run(db, sql, slice, take));
        break;
      case 4: {
        const char *key = config_keys[arg % FZ_KEYS];
        static const char *const forms[] = {
            "CAST(hex(?1) AS INTEGER)", "0x7fffffffffffffff - length(?1)",
            "length(?1) / 7.0", "hex(?1)", "?1", "-length(?1)"};
        snprintf(sql, sizeof sql,
                 "UPDATE s_config SET value = %s WHERE key = '%s'",
                 forms[(arg / FZ_KEYS) % 6], key);
        o->damaged |= changed(db, run(db, sql, slice, take));
        break;
      }
      case 5:
        snprintf(sql, sizeof sql, "DELETE FROM s_config WHERE key = '%s'",
                 config_keys[arg % FZ_KEYS]);
        o->damaged |= changed(db, run(db, sql, NULL, 0));
        break;
      case 6: add_at(db, o, slice, take, arg, x, y); break;
      case 7: set_time(db, o, x, y); break;
      case 8:
      case 9:
      case 10:
        if (is_quotient) quotient_damage(db, o, op, slice, take, arg, x, y);
        else if (op == 8) set_generation(db, o, arg, x, y);
        else if (op == 9) copy_slot(db, o, arg, x, y);
        else slot_chunk(db, o, slice, take, x, y);
        break;
      default: user_write(db, o, slice, take, x); break;
    }
  }
}

/* --- every statement a user can run ------------------------------------- */

/* What the statements bind: a value of each storage class, a filter to
** merge (the export, when there was one) and one from the input. */
typedef struct user_input {
  probe_value values[5]; /* INTEGER, REAL, TEXT, BLOB, NULL */
  probe_value filter, junk;
  uint8_t choice; /* the transaction (% 4), and the `at` offsets (/ 4) */
} user_input;

static void user_reads(sqlite3 *db, const user_input *u) {
  for (int k = 0; k < 5; k++)
    exec_sql(db, "SELECT value FROM s WHERE value = ?1", &u->values[k], 1, 1,
             NULL);
  exec_sql(db, "SELECT value, filter, summary FROM s WHERE value = ?1",
           &u->values[3], 1, 1, NULL);
  exec_sql(db, "SELECT EXISTS (SELECT 1 FROM s WHERE value = ?1)",
           &u->values[0], 1, 1, NULL);
  exec_sql(db, "SELECT count(*) FROM s WHERE value IS ?1", &u->values[4], 1,
           1, NULL);
  exec_sql(db, "SELECT value FROM s WHERE value IN (?1, ?2, ?3, ?4, ?5)",
           u->values, 5, 5, NULL);
  exec_sql(db, "SELECT count(*) FROM s WHERE value IN (?1, ?2, ?3, ?4, ?5)",
           u->values, 5, 1, NULL);
  outcome o;
  exec_sql(db, "SELECT filter FROM s", NULL, 0, 1, &o);
  if (o.blob) check_export_valid(o.blob, o.len);
  free(o.blob);
  exec_sql(db, "SELECT length(filter) FROM s", NULL, 0, 1, NULL);
  exec_sql(db, "SELECT * FROM s", NULL, 0, 1, NULL);
  exec_sql(db, "SELECT summary FROM s", NULL, 0, 1, NULL);
  exec_sql(db, "SELECT count(*) FROM s", NULL, 0, 1, NULL);
  exec_sql(db, "SELECT value FROM s", NULL, 0, 1, NULL);
  if (!is_windowed) return;
  exec_sql(db, "SELECT generation, start, \"end\", expires, items, fpr FROM s",
           NULL, 0, FZ_MAX_GENERATIONS, NULL);
  exec_sql(db, "SELECT items, value FROM s WHERE value = ?1", &u->values[3],
           1, FZ_MAX_GENERATIONS, NULL);
}

static void user_writes(sqlite3 *db, const user_input *u) {
  for (int k = 0; k < 5; k++)
    exec_sql(db, "INSERT INTO s(value) VALUES (?1)", &u->values[k], 1, 0,
             NULL);
  exec_sql(db, "INSERT OR IGNORE INTO s(value) VALUES (?1)", &u->values[2], 1,
           0, NULL);
  exec_sql(db, "INSERT INTO s(filter) VALUES (?1)", &u->junk, 1, 0, NULL);
  exec_sql(db, "INSERT INTO s(filter) VALUES (?1)", &u->filter, 1, 0, NULL);
  exec_sql(db, "DELETE FROM s WHERE value = ?1", &u->values[3], 1, 0, NULL);
  exec_sql(db, "DELETE FROM s WHERE value IN (?1, ?2, ?3, ?4, ?5)", u->values,
           5, 0, NULL);
  exec_sql(db, "DELETE FROM s", NULL, 0, 0, NULL);
  exec_sql(db, "UPDATE s SET value = ?1 WHERE value = ?1", &u->values[0], 1,
           0, NULL);
  if (!is_windowed) return;
  /* `at` around the store's time: past every live generation, the oldest
  ** and newest live ones, the next, a few spans ahead. */
  store_clock c = read_clock(db);
  const int64_t spans[] = {-(c.generations + 1), -c.generations, -1, 0, 1, 3};
  for (int k = 0; k < 6; k++) {
    probe_value binds[2] = {
        u->values[k % 4],
        int_value(wrap_add(wrap_mul(wrap_add(c.current, spans[k]), c.span),
                           u->choice / 4 % 8))};
    exec_sql(db,
             k == 2 ? "INSERT OR IGNORE INTO s(value, at) VALUES (?1, ?2)"
                    : "INSERT INTO s(value, at) VALUES (?1, ?2)",
             binds, 2, 0, NULL);
  }
  exec_sql(db, "INSERT INTO s(s) VALUES ('expire')", NULL, 0, 0, NULL);
  exec_sql(db, "INSERT INTO s(s) VALUES (?1)", &u->values[2], 1, 0, NULL);
}

/* Reads, writes, reads again (the writes waiting in the store's cache). */
static void user_statements(sqlite3 *db, const user_input *u) {
  user_reads(db, u);
  user_writes(db, u);
  user_reads(db, u);
}

/* A transaction left open by a failed COMMIT or RELEASE is rolled back. */
static void end_transaction(sqlite3 *db) {
  if (!sqlite3_get_autocommit(db)) exec_sql(db, "ROLLBACK", NULL, 0, 0, NULL);
}

/* Every statement inside a savepoint that is rolled back to, inside a
** transaction committed or rolled back, or in autocommit: one of the
** three, by the input (all three would take the run to a third of its
** speed for no more paths). */
static void every_statement(sqlite3 *db, const user_input *u) {
  switch (u->choice % 4) {
    case 0:
      exec_sql(db, "SAVEPOINT fz", NULL, 0, 0, NULL);
      user_statements(db, u);
      exec_sql(db, "ROLLBACK TO fz", NULL, 0, 0, NULL);
      user_reads(db, u);
      exec_sql(db, "RELEASE fz", NULL, 0, 0, NULL);
      break;
    case 1:
    case 2:
      exec_sql(db, "BEGIN", NULL, 0, 0, NULL);
      user_statements(db, u);
      exec_sql(db, u->choice % 4 == 1 ? "ROLLBACK" : "COMMIT", NULL, 0, 0,
               NULL);
      break;
    default: user_statements(db, u); break;
  }
  end_transaction(db);
}

/* 1 if the arguments name a window (the word anywhere will do). */
static int names_window(const uint8_t *args, size_t n) {
  for (size_t i = 0; i + 6 <= n; i++)
    if (memcmp(args + i, "window", 6) == 0) return 1;
  return 0;
}

/* 1 if the store CREATE made has an `at` column: it is windowed. */
static int has_at_column(sqlite3 *db) {
  outcome o;
  exec_sql(db, "SELECT count(*) FROM pragma_table_xinfo('s') WHERE name = "
               "'at'", NULL, 0, 1, &o);
  free(o.blob);
  return o.rc == SQLITE_DONE && o.i == 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static unsigned long runs;
  is_cuckoo = size > 0 && data[0] == '~';
  is_quotient = size > 0 && data[0] == '^';
  config_keys = is_quotient ? quotient_keys : is_cuckoo ? cuckoo_keys : bloom_keys;
  if (is_cuckoo || is_quotient) {
    data++;
    size--;
  }
  const uint8_t *nl = memchr(data, '\n', size);
  size_t args_len = nl ? (size_t)(nl - data) : size;
  if (args_len > 200) return 0;
  if (names_window(data, args_len) && !is_quotient)
    config_keys = is_cuckoo ? cuckoo_window_keys : bloom_window_keys;
  const uint8_t *ops = nl ? nl + 1 : data + size;
  size_t ops_len = (size_t)(data + size - ops);

  char uri[96];
  snprintf(uri, sizeof uri, "file:fuzzstore%lu?mode=memory&cache=shared",
           runs++);
  sqlite3 *writer = connect_to(uri);
  /* A quotient store's leaves: at most 69 entries on 512-byte pages. */
  if (is_quotient) sqlite3_exec(writer, "PRAGMA page_size = 512", NULL, NULL, NULL);
  char *create = sqlite3_mprintf("CREATE VIRTUAL TABLE s USING %s(%.*s)",
                                 module_name(), (int)args_len, data);
  if (create == NULL) fz_die("out of memory");
  sqlite3_stmt *st = NULL;
  progress_calls = 0;
  progress_sql = "CREATE";
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
  is_windowed = has_at_column(writer);
  op_state o;
  memset(&o, 0, sizeof o);
  apply_ops(writer, ops, ops_len, &o);
  const added_values *added = &o.added;
  int damaged = o.damaged;

  /* A second connection connects afresh: the configuration is read now. */
  sqlite3 *reader = connect_to(uri);
  outcome exported;
  exec_sql(reader, "SELECT filter FROM s", NULL, 0, 1, &exported);
  unsigned char *blob = exported.blob;
  size_t len = exported.len;
  if (blob) check_export_valid(blob, len);
  for (size_t i = 0; i < added->count; i++) {
    /* No false negative: an added value has its row. */
    rc = run(reader, "SELECT 1 FROM s WHERE value = ?1 AND value = ?1",
             added->bytes[i], added->len[i]);
    if (!damaged && rc != SQLITE_DONE)
      fz_die("an undamaged store failed a probe");
    probe_value v = blob_value(added->bytes[i], added->len[i]);
    if (!damaged && added->epoch[i] == o.epoch && store_says(reader, &v) == 0)
      fz_die("an added value tests absent");
  }
  /* A filter longer than the run's blob limit is SQLITE_TOOBIG, rightly. */
  if (!damaged && blob == NULL && (exported.rc & 0xff) != SQLITE_TOOBIG)
    fz_die("an undamaged store did not export its filter");
  probe_value extra[FZ_EXTRA_PROBES];
  size_t n_extra = extra_probes(ops, ops_len, extra);
  if (!damaged && blob)
    check_export_agrees(reader, blob, len, added, o.epoch, NULL, extra,
                        n_extra, "after the inserts");
  probe_value in_values[1] = {blob_value(ops, ops_len > 8 ? 8 : ops_len)};
  exec_sql(reader, "SELECT count(*) FROM s WHERE value IN (1, 'x', ?1)",
           in_values, 1, 1, NULL);
  run(reader, "INSERT INTO s(value) VALUES (?1)", ops,
      ops_len > 4 ? 4 : ops_len);
  if (blob) run(reader, "INSERT INTO s(filter) VALUES (?1)", blob, len);
  if (added->count > 0)
    run(reader, "DELETE FROM s WHERE value = ?1", added->bytes[0],
        added->len[0]);
  if (!damaged) {
    /* The reader's writes only add, but for that DELETE (a cuckoo store
    ** may drop the one value it names; a Bloom store refuses it). */
    outcome again;
    exec_sql(reader, "SELECT filter FROM s", NULL, 0, 1, &again);
    if (again.rc == SQLITE_DONE && again.blob) {
      check_export_valid(again.blob, again.len);
      probe_value first = blob_value(added->bytes[0], added->len[0]);
      check_export_agrees(reader, again.blob, again.len, added, o.epoch,
                          (is_cuckoo || is_quotient) && added->count > 0
                              ? &first : NULL,
                          extra, n_extra, "after the reader's writes");
    } else if ((again.rc & 0xff) != SQLITE_TOOBIG) {
      fz_die("an undamaged store did not export its filter again");
    }
    free(again.blob);
  }

  /* Then every statement, damaged or not: each must end, and fail only
  ** with the store's own error. */
  user_input u;
  memset(&u, 0, sizeof u);
  u.values[0] = int_value((sqlite3_int64)fz_le(ops, ops_len, 8));
  u.values[1].type = SQLITE_FLOAT;
  u.values[1].d = (double)(ops_len > 0 ? ops[0] : 0) / 4.0;
  u.values[2].type = SQLITE_TEXT;
  u.values[2].p = ops;
  u.values[2].n = ops_len > 3 ? 3 : ops_len;
  u.values[3] = added->count > 0 ? blob_value(added->bytes[0], added->len[0])
                                 : blob_value(ops, ops_len > 5 ? 5 : ops_len);
  u.values[4].type = SQLITE_NULL;
  u.filter = blob ? blob_value(blob, len) : blob_value(ops, 0);
  u.junk = blob_value(ops, ops_len > 80 ? 80 : ops_len);
  u.choice = ops_len > 0 ? ops[ops_len - 1] : 0;
  every_statement(reader, &u);
  /* The first connection, whose store saw the other's commits, reads. */
  user_reads(writer, &u);
  free(blob);
  sqlite3_close(reader);
  sqlite3_close(writer);
  return 0;
}
