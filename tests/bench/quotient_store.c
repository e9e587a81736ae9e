/*
** make bench-quotient-store: what a quotient_store costs on disk against
** the bloom_store and cuckoo_store it could replace, measured side by side
** in one run (a file database under build/, SQLite's default settings
** unless said otherwise).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   space        bits per item as the database holds them (the pgsize of
**                the store's shadow tables and their indexes, from dbstat)
**                and in the export (8 * length(filter) / items), for a
**                growing quotient_store (no capacity) beside a scalable
**                bloom_store (no capacity) holding the same ids, at 1x,
**                10x, 100x, 1000x of 10,000 items, fpr 0.01 and 0.001; a
**                sized quotient_store (capacity = items) beside a fixed
**                bloom_store and cuckoo_store of that capacity; each again
**                after VACUUM (VACUUM INTO a copy, so that the stores go on
**                growing unpacked).  The growing stores grow in
**                transactions of 10,000 inserts (steady growth).
**   rate         the false-positive rate over QSTORE_BENCH_PROBES ids never
**                inserted (default 10^6) for each store above, after a
**                burst (a growing store filled in one transaction) and
**                after churn (each id inserted and deleted three times,
**                then inserted); false negatives over every member up to
**                10^5 items, a sample of 10^5 above
**   probe        a prepared SELECT EXISTS (SELECT 1 FROM q WHERE value = ?)
**                of absent ids, warm, against a fixed bloom_store holding
**                the same ids, the scalable bloom_store, and an INTEGER
**                PRIMARY KEY lookup in an ordinary table of the same ids;
**                rounds interleaved, their order turned each round
**   insert       autocommit INSERTs at SQLite's defaults (journal_mode =
**                DELETE, synchronous = FULL, a fresh connection) into a
**                growing and a sized quotient_store and a fixed bloom_store
**                holding 10^5 ids: median and p99.9 of the per-insert
**                latency; then with journal_mode = WAL, the pages each
**                commit writes (WAL frames, read back from the -wal file
**                and named by dbstat), apart for commits that split a leaf
**   ignore       insert if new, the idempotency table's write: a stream of
**                requests, one in 10 a repeat of an earlier one, each an
**                INSERT OR IGNORE of its own, in transactions of 10,000,
**                into a growing quotient_store(deletes = 0), the scalable
**                bloom_store and an INTEGER PRIMARY KEY table, batch by
**                batch in turn: us a request, repeats caught, new ids
**                taken for repeats (the skips a false positive makes), and
**                bits per distinct id in the database
**
** QSTORE_BENCH_QUICK=1: a smoke run (1x and 10x, 10^5 probes, about two
** minutes).  QSTORE_BENCH_MAX=n: the largest multiple of 10,000 (default 1000;
** 10000 means 10^8 items, hours); QSTORE_BENCH_MAX001: the same for fpr
** 0.001's growing stores (default 100: a growing quotient_store inserts at
** about 45 us an item, so 1000x at both rates alone takes 15 minutes);
** QSTORE_BENCH_SIZED_MAX: the largest multiple with sized, fixed and
** cuckoo stores beside the growing ones (default QSTORE_BENCH_MAX; above
** it the probes compare the growing stores and the table alone: a 10^8
** run then builds no store of 10^8 items but the growing ones, the
** scalable ones and the table);
** QSTORE_BENCH_BURST_MAX, QSTORE_BENCH_CHURN_MAX: the largest burst and
** churn stores (default 100 and 10); QSTORE_BENCH_ROUNDS=n the probe
** rounds (default 5); QSTORE_BENCH_INSERTS=n the autocommit inserts a
** store and round (default 1000, 5 rounds); QSTORE_BENCH_IGNORE=n the
** largest request stream (default 10^6, quick 10^5); QSTORE_BENCH_PARTS=
** space,churn,insert,ignore (any of them) runs only those parts.
** Usage: quotient_store BLOOM_SO DIR
*/
#define _DEFAULT_SOURCE

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_NAME "quotient_store bench"
#include "machine.h"
#include "sqlbench.h"

enum { FIRST = 10000, BATCH = 10000 };

/* Id streams. */
enum { STREAM_ITEMS = 0, STREAM_ABSENT = 1, STREAM_PROBES = 2, STREAM_NEW = 3 };

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* The i-th id of a stream: distinct 63-bit integers. */
static sqlite3_int64 id_of(uint64_t stream, uint64_t i) {
  return (sqlite3_int64)(mix((stream << 40) + i + 0x9e3779b97f4a7c15ULL) >> 1);
}

static void bench_id(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_int64(ctx, id_of((uint64_t)sqlite3_value_int64(argv[0]),
                                  (uint64_t)sqlite3_value_int64(argv[1])));
}

/* A connection at SQLite's defaults (journal_mode DELETE, synchronous
** FULL, page size 4096) with the extension and bench_id; `pragmas` after. */
static sqlite3 *open_plain(const char *path, const char *pragmas) {
  sqlite3 *db;
  if (sqlite3_open(path, &db) != SQLITE_OK) die(db, path);
  sqlite3_enable_load_extension(db, 1);
  char *err = NULL;
  if (sqlite3_load_extension(db, so_path, "sqlite3_bloom_init", &err) != SQLITE_OK) {
    fprintf(stderr, BENCH_NAME ": load %s: %s\n", so_path, err ? err : "?");
    exit(2);
  }
  if (sqlite3_create_function(db, "bench_id", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                              NULL, bench_id, NULL, NULL) != SQLITE_OK)
    die(db, "bench_id");
  if (pragmas) exec(db, pragmas);
  return db;
}

static void remove_db(const char *path) {
  const char *suffixes[] = {"", "-journal", "-wal", "-shm"};
  for (int i = 0; i < 4; i++) {
    char file[600];
    snprintf(file, sizeof file, "%s%s", path, suffixes[i]);
    unlink(file);
  }
}

static void add_ids(sqlite3 *db, const char *name, int stream, long long from,
                    long long to) {
  execf(db,
        "WITH RECURSIVE c(i) AS (SELECT %lld UNION ALL SELECT i + 1 "
        "FROM c WHERE i < %lld) INSERT INTO \"%w\"(value) SELECT "
        "bench_id(%d, i) FROM c",
        from, to, name, stream);
}

/* Ids [from, to] of the items added in transactions of BATCH. */
static void grow(sqlite3 *db, const char *name, long long from, long long to) {
  for (long long a = from; a <= to; a += BATCH) {
    long long b = a + BATCH - 1 < to ? a + BATCH - 1 : to;
    exec(db, "BEGIN");
    add_ids(db, name, STREAM_ITEMS, a, b);
    exec(db, "COMMIT");
  }
}

static void delete_ids(sqlite3 *db, const char *name, int stream, long long from,
                       long long to) {
  char *sql = sqlite3_mprintf("DELETE FROM \"%w\" WHERE value = ?1", name);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  for (long long i = from; i <= to; i++) {
    sqlite3_bind_int64(st, 1, id_of((uint64_t)stream, (uint64_t)i));
    if (sqlite3_step(st) != SQLITE_DONE) die(db, sql);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  sqlite3_free(sql);
}

/* Bytes of the pages of a store's shadow tables (and their indexes) in
** schema `schema`. */
static long long db_bytes(sqlite3 *db, const char *schema, const char *name) {
  return q_intf(db,
                "SELECT coalesce(sum(pgsize), 0) FROM dbstat(%Q) WHERE name IN "
                "(SELECT name FROM \"%w\".sqlite_master WHERE tbl_name IN "
                "('%q_config', '%q_chunks', '%q_directory'))",
                schema, schema, name, name, name);
}

/* Members among ids 1..n of the items not found: all of them up to
** 10^5, else 10^5 spread evenly. */
static long long false_negatives(sqlite3 *db, const char *name, long long n,
                                 long long *checked) {
  char *sql = sqlite3_mprintf("SELECT EXISTS (SELECT 1 FROM \"%w\" WHERE value = ?1)",
                              name);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  long long step = n <= 100000 ? 1 : n / 100000, missed = 0;
  *checked = 0;
  for (long long i = 1; i <= n; i += step) {
    sqlite3_bind_int64(st, 1, id_of(STREAM_ITEMS, (uint64_t)i));
    if (sqlite3_step(st) != SQLITE_ROW) die(db, sql);
    missed += sqlite3_column_int(st, 0) == 0;
    (*checked)++;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  sqlite3_free(sql);
  return missed;
}

/* Seconds per prepared EXISTS over `count` ids of a stream from `first`,
** and how many said yes. */
static double probe_cost_in(sqlite3 *db, const char *name, const char *column,
                            long long count, uint64_t stream, uint64_t first,
                            long long *hits, int txn) {
  char *sql = sqlite3_mprintf("SELECT EXISTS (SELECT 1 FROM \"%w\" WHERE \"%w\" = ?1)",
                              name, column);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  sqlite3_int64 *keys = malloc(sizeof *keys * (size_t)count);
  if (keys == NULL) die(db, "out of memory");
  for (long long i = 0; i < count; i++) keys[i] = id_of(stream, first + (uint64_t)i);
  *hits = 0;
  double t0 = now();
  if (txn) exec(db, "BEGIN");
  for (long long i = 0; i < count; i++) {
    sqlite3_bind_int64(st, 1, keys[i]);
    if (sqlite3_step(st) != SQLITE_ROW) die(db, sql);
    *hits += sqlite3_column_int(st, 0);
    sqlite3_reset(st);
  }
  if (txn) exec(db, "COMMIT");
  double t = (now() - t0) / (double)count;
  free(keys);
  sqlite3_finalize(st);
  sqlite3_free(sql);
  return t;
}

/* Probes in one read transaction: what the store's own lookup costs, not
** the lock and change-counter check each autocommit statement makes. */
static double probe_cost(sqlite3 *db, const char *name, const char *column,
                         long long count, uint64_t stream, uint64_t first,
                         long long *hits) {
  return probe_cost_in(db, name, column, count, stream, first, hits, 1);
}

static uint64_t fnv(const void *p, int n) {
  const unsigned char *s = p;
  uint64_t h = 0xcbf29ce484222325ULL;
  for (int i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ULL;
  return h;
}

/* The export's length and a digest of its bytes. */
static long long export_of(sqlite3 *db, const char *name, uint64_t *digest) {
  char *sql = sqlite3_mprintf("SELECT filter FROM \"%w\"", name);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
      sqlite3_step(st) != SQLITE_ROW)
    die(db, sql);
  const void *b = sqlite3_column_blob(st, 0);
  int n = sqlite3_column_bytes(st, 0);
  if (digest) *digest = fnv(b, n);
  sqlite3_finalize(st);
  sqlite3_free(sql);
  return n;
}

static long long probes_n = 1000000;

static uint64_t le(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

/* Where a layout-1 export's bits go (FORMAT.md, "Kind 4, layout 1"), in
** bits per item: the header and directory, each record's count byte and
** its sections' 3-byte words, the unary parts (c + 2^m bits a section),
** the low parts (c * (b - m)), the padding to whole bytes; and the mean
** key width b and d + b over the entries. */
static void breakdown(sqlite3 *db, const char *name, long long items, double fpr) {
  char *sql = sqlite3_mprintf("SELECT filter FROM \"%w\"", name);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
      sqlite3_step(st) != SQLITE_ROW)
    die(db, sql);
  const unsigned char *b = sqlite3_column_blob(st, 0);
  long long len = sqlite3_column_bytes(st, 0);
  long long L = (long long)le(b + 16, 8);
  const unsigned char *dir = b + 64, *rec = b + 64 + 16 * L;
  double sections = 0, unary = 0, low = 0, pad = 0, entries = 0, keybits = 0,
         depthbits = 0;
  long long start = 0;
  for (long long i = 0; i < L; i++) {
    uint64_t node = le(dir + 16 * i, 8);
    long long end = (long long)le(dir + 16 * i + 8, 8);
    int depth = 0;
    while ((node >> (depth + 1)) != 0) depth++;
    const unsigned char *r = rec + start;
    int S = r[0];
    long long pos = 1;
    for (int k = 0; k < S; k++) {
      unsigned w = (unsigned)le(r + pos, 3);
      unsigned c = w & 4095, kb = (w >> 12) & 127, m = (w >> 19) & 31;
      double bits = (double)c + (double)(1u << m) + (double)c * (kb - m);
      double bytes = ceil(bits / 8);
      sections += 1;
      unary += (double)c + (double)(1u << m);
      low += (double)c * (kb - m);
      pad += bytes * 8 - bits;
      entries += c;
      keybits += (double)c * kb;
      depthbits += (double)c * (kb + (unsigned)depth);
      pos += 3 + (long long)bytes;
    }
    start = end;
  }
  double n = (double)items;
  printf("  INFO   %s export, bits/item: header+directory %.2f, record bytes %.2f, "
         "section words %.2f (%.2f sections a leaf), unary %.2f, low parts %.2f, "
         "padding %.2f; entries/item %.3f, mean key b %.2f, mean d+b %.2f "
         "(log2(1/fpr) %.2f); %lld leaves of %.0f entries on average\n",
         name, (double)(64 + 16 * L) * 8 / n, (double)L * 8 / n,
         sections * 24 / n, sections / (double)L, unary / n, low / n, pad / n,
         entries / n, keybits / entries, depthbits / entries, log2(1 / fpr), L,
         entries / (double)L);
  (void)len;
  sqlite3_finalize(st);
  sqlite3_free(sql);
  /* How full the chunk rows' pages are: what db loses against exp. */
  long long payload = q_intf(db, "SELECT coalesce(sum(payload), 0) FROM "
                                 "dbstat WHERE name = '%q_chunks'", name);
  long long pages = q_intf(db, "SELECT coalesce(sum(pgsize), 0) FROM dbstat "
                               "WHERE name = '%q_chunks'", name);
  printf("  INFO   %s chunk pages: %.1f%% full (rows' bytes over the pages' "
         "bytes, dbstat)\n", name, pages ? 100.0 * (double)payload / (double)pages : 0.0);
}

typedef struct figures {
  long long items, db, vac, export_bytes, leaves, entries, hits, probes, fn, checked;
  double est;
  uint64_t digest;
  /* quotient_compact(filter): bytes, absent ids it let through, members
  ** it missed, its estimated_fpr (quotient stores only) */
  long long compact_bytes, compact_hits, compact_fn;
  double compact_est;
} figures;

/* quotient_test(?1, id) through t, whose ?1 is bound. */
static int blob_test(sqlite3 *db, sqlite3_stmt *t, sqlite3_int64 id) {
  sqlite3_bind_int64(t, 2, id);
  if (sqlite3_step(t) != SQLITE_ROW) die(db, "quotient_test");
  int yes = sqlite3_column_int(t, 0);
  sqlite3_reset(t);
  return yes;
}

/* The compacted export of a quotient store: its size, estimated rate, and
** its answers for the same absent ids and members as the store's. */
static void measure_compact(sqlite3 *db, const char *name, figures *f) {
  char *sql = sqlite3_mprintf("SELECT c, (SELECT estimated_fpr FROM "
                              "quotient_info(c)) FROM (SELECT "
                              "quotient_compact(filter) AS c FROM \"%w\")",
                              name);
  sqlite3_stmt *st, *t;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
      sqlite3_step(st) != SQLITE_ROW)
    die(db, sql);
  int n = sqlite3_column_bytes(st, 0);
  void *blob = malloc((size_t)n);
  if (blob == NULL) die(db, "out of memory");
  memcpy(blob, sqlite3_column_blob(st, 0), (size_t)n);
  f->compact_bytes = n;
  f->compact_est = sqlite3_column_double(st, 1);
  sqlite3_finalize(st);
  sqlite3_free(sql);
  if (sqlite3_prepare_v2(db, "SELECT quotient_test(?1, ?2)", -1, &t, NULL) !=
      SQLITE_OK)
    die(db, "quotient_test");
  sqlite3_bind_blob(t, 1, blob, n, SQLITE_STATIC);
  /* the absent ids the store's rate counts, then its members as
  ** false_negatives samples them */
  f->compact_hits = 0;
  for (long long i = 1; i <= f->probes; i++)
    f->compact_hits += blob_test(db, t, id_of(STREAM_ABSENT, (uint64_t)i));
  f->compact_fn = 0;
  long long step = f->items <= 100000 ? 1 : f->items / 100000;
  for (long long i = 1; i <= f->items; i += step)
    f->compact_fn += !blob_test(db, t, id_of(STREAM_ITEMS, (uint64_t)i));
  sqlite3_finalize(t);
  free(blob);
}

/* A store's space and rate (vac filled in later). */
static figures measure(sqlite3 *db, const char *name, const char *module,
                       long long items, long long probes) {
  figures f;
  memset(&f, 0, sizeof f);
  f.items = items;
  f.db = db_bytes(db, "main", name);
  f.export_bytes = export_of(db, name, &f.digest);
  f.leaves = -1;
  f.entries = -1;
  f.est = -1;
  if (strcmp(module, "quotient_store") == 0) {
    f.leaves = q_intf(db, "SELECT count(*) FROM \"%w_directory\"", name);
    f.entries = q_intf(db, "SELECT items FROM quotient_info((SELECT filter FROM "
                           "\"%w\"))", name);
    char *sql = sqlite3_mprintf("SELECT estimated_fpr FROM quotient_info((SELECT "
                                "filter FROM \"%w\"))", name);
    f.est = q_real(db, sql);
    sqlite3_free(sql);
  }
  f.probes = probes;
  f.compact_bytes = -1;
  if (strcmp(module, "quotient_store") == 0) measure_compact(db, name, &f);
  probe_cost(db, name, "value", probes, STREAM_ABSENT, 1, &f.hits);
  f.fn = false_negatives(db, name, items, &f.checked);
  return f;
}

static void vacuum_into(sqlite3 *db, const char *vac_path) {
  remove_db(vac_path);
  execf(db, "VACUUM INTO %Q", vac_path);
  execf(db, "ATTACH %Q AS vac", vac_path);
}

static void vacuum_done(sqlite3 *db, const char *vac_path) {
  exec(db, "DETACH vac");
  remove_db(vac_path);
}

static double log2_inv(double p) { return log2(1 / p); }

static void header_row(void) {
  printf("  %-22s %9s %6s %8s %8s %8s %8s %9s %8s %4s\n", "store", "items",
         "leaves", "db b/i", "vac b/i", "exp b/i", "target", "rate", "est",
         "FN");
}

/* One line of the space table; a target of 0 prints none. */
static void row(const char *label, const figures *f, double target) {
  char t[32] = "", est[32] = "", lv[32] = "-";
  if (target > 0) snprintf(t, sizeof t, "%.2f", target);
  if (f->est >= 0) snprintf(est, sizeof est, "%.5f", f->est);
  if (f->leaves >= 0) snprintf(lv, sizeof lv, "%lld", f->leaves);
  double n = (double)f->items;
  printf("  %-22s %9lld %6s %8.2f %8.2f %8.2f %8s %8.5f %8s %lld/%lld\n", label,
         f->items, lv, (double)f->db * 8 / n, (double)f->vac * 8 / n,
         (double)f->export_bytes * 8 / n, t, (double)f->hits / (double)f->probes,
         est, f->fn, f->checked);
  if (f->fn) failures++;
  if (f->compact_bytes < 0) return;
  printf("  %-22s %9s %6s %8s %8s %8.2f %8s %8.5f %8.5f %lld/%lld\n",
         "  quotient_compact", "", "", "", "", (double)f->compact_bytes * 8 / n, t,
         (double)f->compact_hits / (double)f->probes, f->compact_est,
         f->compact_fn, f->checked);
  if (f->compact_fn) failures++;
}

static void check(const char *what, double value, double limit) {
  target_of(what, value, limit, 1);
}

static long long env_ll(const char *name, long long dflt) {
  const char *v = getenv(name);
  return v && *v ? atoll(v) : dflt;
}

static double *rounds_of_alloc(int rounds) {
  double *v = calloc((size_t)rounds, sizeof *v);
  if (v == NULL) die(NULL, "out of memory");
  return v;
}

static int by_ll(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* ------------------------------------------------------------ insert */

static long long wal_frames; /* the WAL's frames after the last commit */

static int on_wal(void *arg, sqlite3 *db, const char *schema, int pages) {
  (void)arg;
  (void)db;
  (void)schema;
  wal_frames = pages;
  return SQLITE_OK;
}

/* The page numbers of WAL frames (from, to] (1-based) in `path`. */
static int wal_pages(const char *path, long long from, long long to, int page_size,
                     unsigned *out, int max) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return 0;
  int n = 0;
  for (long long k = from + 1; k <= to && n < max; k++) {
    unsigned char h[4];
    long off = 32 + (long)(k - 1) * (24 + page_size);
    if (fseek(f, off, SEEK_SET) != 0 || fread(h, 1, 4, f) != 4) break;
    out[n++] = (unsigned)h[0] << 24 | (unsigned)h[1] << 16 | (unsigned)h[2] << 8 | h[3];
  }
  fclose(f);
  return n;
}

enum { INS_STORES = 3 };

static void insert_part(const char *dir, long long preload, int per_round, int rounds) {
  char path[512], wal[540];
  snprintf(path, sizeof path, "%s/qstore-bench-insert.db", dir);
  snprintf(wal, sizeof wal, "%s-wal", path);
  remove_db(path);
  sqlite3 *db = open_plain(path, NULL);
  const char *names[INS_STORES] = {"qg", "qs", "fb"};
  const char *what[INS_STORES] = {"quotient_store, growing", "quotient_store, sized",
                                  "bloom_store, fixed"};
  /* The growing store first, in steps of 1,000 from `preload` until its
  ** leaves start to split again: leaves fill at the same pace, so splits
  ** come in waves, and the timed inserts start where one begins. */
  exec(db, "CREATE VIRTUAL TABLE qg USING quotient_store(fpr = 0.01)");
  exec(db, "BEGIN");
  add_ids(db, "qg", STREAM_ITEMS, 1, preload);
  exec(db, "COMMIT");
  long long leaves_at = q_int(db, "SELECT count(*) FROM qg_directory"), have = preload;
  while (q_int(db, "SELECT count(*) FROM qg_directory") == leaves_at &&
         have < 4 * preload) {
    exec(db, "BEGIN");
    add_ids(db, "qg", STREAM_ITEMS, have + 1, have + 1000);
    exec(db, "COMMIT");
    have += 1000;
  }
  long long cap = 2 * have;
  execf(db, "BEGIN;"
            "CREATE VIRTUAL TABLE qs USING quotient_store(capacity = %lld, fpr = 0.01);"
            "CREATE VIRTUAL TABLE fb USING bloom_store(capacity = %lld, fpr = 0.01);",
        cap, cap);
  for (int k = 1; k < INS_STORES; k++) add_ids(db, names[k], STREAM_ITEMS, 1, have);
  exec(db, "COMMIT");
  long long leaves_before = q_int(db, "SELECT count(*) FROM qg_directory");
  printf("\n## Autocommit INSERT at SQLite's defaults (journal_mode = %s, "
         "synchronous = %lld, cache_size = %lld, page_size = %lld)\n\n",
         "DELETE", q_int(db, "PRAGMA synchronous"), q_int(db, "PRAGMA cache_size"),
         q_int(db, "PRAGMA page_size"));
  printf("  three stores holding %lld ids (the growing one where a wave of splits "
         "starts: %lld leaves; the sized one and the bloom_store of capacity "
         "%lld), the same new ids inserted into each, one store after the "
         "other insert by insert (order turned each time), %d rounds of %d\n",
         have, leaves_before, cap, rounds, per_round);
  double *lat[INS_STORES];
  long long total = (long long)per_round * rounds;
  for (int k = 0; k < INS_STORES; k++) {
    lat[k] = malloc(sizeof(double) * (size_t)total);
    if (lat[k] == NULL) die(db, "out of memory");
  }
  uint64_t next[INS_STORES];
  sqlite3_stmt *st[INS_STORES];
  for (int k = 0; k < INS_STORES; k++) {
    next[k] = (uint64_t)have + 1;
    char *sql = sqlite3_mprintf("INSERT INTO \"%w\"(value) VALUES (?1)", names[k]);
    if (sqlite3_prepare_v2(db, sql, -1, &st[k], NULL) != SQLITE_OK) die(db, sql);
    sqlite3_free(sql);
  }
  double med_round[INS_STORES][64];
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < per_round; i++) {
      for (int j = 0; j < INS_STORES; j++) {
        int k = (j + i + r) % INS_STORES;
        sqlite3_bind_int64(st[k], 1, id_of(STREAM_ITEMS, next[k]++));
        double t0 = now();
        if (sqlite3_step(st[k]) != SQLITE_DONE) die(db, "insert");
        lat[k][(long long)r * per_round + i] = now() - t0;
        sqlite3_reset(st[k]);
      }
    }
    for (int k = 0; k < INS_STORES && r < 64; k++)
      med_round[k][r] = median(lat[k] + (long long)r * per_round, per_round);
  }
  long long leaves_after = q_int(db, "SELECT count(*) FROM qg_directory");
  printf("  the growing store split %lld leaves during them (%.2f%% of its "
         "inserts)\n", leaves_after - leaves_before,
         100.0 * (double)(leaves_after - leaves_before) / (double)total);
  double med[INS_STORES], p999[INS_STORES], mx[INS_STORES];
  for (int k = 0; k < INS_STORES; k++) {
    qsort(lat[k], (size_t)total, sizeof(double), by_ll);
    med[k] = lat[k][total / 2];
    p999[k] = lat[k][(long long)((double)total * 0.999)];
    mx[k] = lat[k][total - 1];
    printf("  INFO %-26s median %7.1f us, p99 %7.1f us, p99.9 %7.1f us, max %7.1f "
           "us (%lld inserts)\n", what[k], med[k] * 1e6,
           lat[k][(long long)((double)total * 0.99)] * 1e6, p999[k] * 1e6,
           mx[k] * 1e6, total);
  }
  int nr = rounds < 64 ? rounds : 64;
  double rg[64], rs[64];
  for (int r = 0; r < nr; r++) {
    rg[r] = med_round[0][r] / med_round[2][r];
    rs[r] = med_round[1][r] / med_round[2][r];
  }
  ratio_report("median insert, growing quotient vs fixed bloom_store", rg, nr, 1.1, 1);
  ratio_report("median insert, sized quotient vs fixed bloom_store", rs, nr, 1.1, 1);
  check("p99.9 / own median, growing quotient_store", p999[0] / med[0], 4.0);
  check("p99.9 / own median, sized quotient_store", p999[1] / med[1], 4.0);
  printf("  INFO p99.9 / own median, fixed bloom_store: %.2f; p99.9 against the "
         "bloom_store's p99.9: growing %.2f, sized %.2f\n", p999[2] / med[2],
         p999[0] / p999[2], p999[1] / p999[2]);
  long long leaves0 = q_int(db, "SELECT count(*) FROM qg_directory");
  for (int k = 0; k < INS_STORES; k++) sqlite3_finalize(st[k]);

  /* Pages written per commit, in WAL mode: each commit's frames. */
  exec(db, "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0");
  sqlite3_wal_hook(db, on_wal, NULL);
  int page_size = (int)q_int(db, "PRAGMA page_size");
  enum { MAXP = 64 };
  typedef struct commit_pages {
    int store, split, n;
    unsigned pg[MAXP];
  } commit_pages;
  int wal_n = per_round;
  commit_pages *cp = calloc((size_t)(wal_n * INS_STORES), sizeof *cp);
  int ncp = 0;
  for (int k = 0; k < INS_STORES; k++) {
    char *sql = sqlite3_mprintf("INSERT INTO \"%w\"(value) VALUES (?1)", names[k]);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) die(db, sql);
    sqlite3_free(sql);
    exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    wal_frames = 0;
    long long leaves = k < 2 ? q_intf(db, "SELECT count(*) FROM \"%w_directory\"",
                                      names[k])
                             : 0;
    for (int i = 0; i < wal_n; i++) {
      long long before = wal_frames;
      sqlite3_bind_int64(s, 1, id_of(STREAM_ITEMS, next[k]++));
      if (sqlite3_step(s) != SQLITE_DONE) die(db, "insert");
      sqlite3_reset(s);
      commit_pages *c = &cp[ncp++];
      c->store = k;
      c->n = wal_pages(wal, before, wal_frames, page_size, c->pg, MAXP);
      if (k < 2) {
        long long now_leaves =
            q_intf(db, "SELECT count(*) FROM \"%w_directory\"", names[k]);
        c->split = now_leaves != leaves;
        leaves = now_leaves;
      }
    }
    sqlite3_finalize(s);
  }
  sqlite3_wal_hook(db, NULL, NULL);
  exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  /* Name each page by dbstat (no autovacuum: pages stay where they are). */
  long long maxpage = q_int(db, "PRAGMA page_count");
  char (*owner)[16] = calloc((size_t)maxpage + 2, sizeof *owner);
  sqlite3_stmt *ds;
  if (sqlite3_prepare_v2(db, "SELECT pageno, name, pagetype FROM dbstat", -1, &ds,
                         NULL) != SQLITE_OK)
    die(db, "dbstat");
  while (sqlite3_step(ds) == SQLITE_ROW) {
    long long p = sqlite3_column_int64(ds, 0);
    const char *nm = (const char *)sqlite3_column_text(ds, 1);
    const char *ty = (const char *)sqlite3_column_text(ds, 2);
    if (p < 1 || p > maxpage) continue;
    const char *u = strchr(nm, '_');
    snprintf(owner[p], 16, "%s%s", u ? u + 1 : nm,
             ty && strcmp(ty, "internal") == 0 ? "*" : "");
  }
  sqlite3_finalize(ds);
  printf("\n  pages each autocommit INSERT writes (journal_mode = WAL, WAL frames of "
         "its commit, %d inserts a store; * = an interior b-tree page, page 1 "
         "= the database header)\n", wal_n);
  for (int k = 0; k < INS_STORES; k++) {
    for (int sp = 0; sp < 2; sp++) {
      long long commits = 0, frames = 0, maxf = 0, hist[8] = {0};
      const commit_pages *example = NULL;
      for (int i = 0; i < ncp; i++) {
        if (cp[i].store != k || cp[i].split != sp) continue;
        commits++;
        frames += cp[i].n;
        if (cp[i].n > maxf) {
          maxf = cp[i].n;
          example = &cp[i];
        }
        hist[cp[i].n < 7 ? cp[i].n : 7]++;
      }
      if (commits == 0) continue;
      printf("  INFO %-24s %-9s %5lld commits: %.2f pages each, max %lld; commits "
             "of 1..7+ pages: %lld %lld %lld %lld %lld %lld %lld\n", what[k],
             sp ? "splits" : "no split", commits, (double)frames / (double)commits,
             maxf, hist[1], hist[2], hist[3], hist[4], hist[5], hist[6], hist[7]);
      if (example) {
        printf("       its largest commit wrote:");
        for (int j = 0; j < example->n; j++)
          printf(" %u(%s)", example->pg[j],
                 example->pg[j] == 1                 ? "header"
                 : example->pg[j] <= (unsigned)maxpage ? owner[example->pg[j]]
                                                       : "?");
        printf("\n");
      }
    }
  }
  printf("  INFO the growing store had %lld leaves after the timed inserts, %lld "
         "after these\n", leaves0, q_int(db, "SELECT count(*) FROM qg_directory"));
  free(owner);
  free(cp);
  for (int k = 0; k < INS_STORES; k++) free(lat[k]);
  sqlite3_close(db);
  remove_db(path);
}

/* ------------------------------------------------------------ main */

/* The ignore part: requests [from, to] of the stream into `name`, each
** its own INSERT OR IGNORE, in one transaction; request i is a repeat of
** an earlier one when i % 10 == 0.  Adds the changes to *counted and the
** repeats counted as new to *missed; returns the seconds it took. */
static double ignore_batch(sqlite3 *db, const char *name, long long from,
                           long long to, long long *counted,
                           long long *missed) {
  char *sql = sqlite3_mprintf("INSERT OR IGNORE INTO \"%w\"(value) VALUES (?1)",
                              name);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  double t0 = now();
  exec(db, "BEGIN");
  for (long long i = from; i <= to; i++) {
    int repeat = i % 10 == 0;
    /* a repeat names an earlier request that was new (its index not a
    ** multiple of 10) */
    uint64_t j = repeat ? mix((uint64_t)i) % (uint64_t)(i - 1) + 1 : (uint64_t)i;
    if (repeat && j % 10 == 0) j--;
    sqlite3_bind_int64(st, 1, id_of(STREAM_NEW, j));
    if (sqlite3_step(st) != SQLITE_DONE) die(db, sql);
    int changes = sqlite3_changes(db);
    *counted += changes;
    *missed += repeat && changes;
    sqlite3_reset(st);
  }
  exec(db, "COMMIT");
  double secs = now() - t0;
  sqlite3_finalize(st);
  sqlite3_free(sql);
  return secs;
}

static void ignore_part(const char *dir, long long most) {
  char path[512];
  snprintf(path, sizeof path, "%s/qstore-ignore.db", dir);
  remove_db(path);
  sqlite3 *db = open_plain(path, NULL);
  printf("\n== insert if new: INSERT OR IGNORE of a stream of requests, one in "
         "10 a repeat, each its own statement, in transactions of %d (file "
         "database, SQLite's defaults: journal_mode DELETE, synchronous FULL, "
         "2 MB cache)\n", BATCH);
  printf("  %-10s %-34s %9s %9s %10s %12s %9s\n", "requests", "store",
         "us/req", "ratio", "repeats", "new skipped", "db b/i");
  exec(db, "CREATE VIRTUAL TABLE q USING quotient_store(fpr = 0.01, deletes = 0);"
           "CREATE VIRTUAL TABLE s USING bloom_store(fpr = 0.01);"
           "CREATE TABLE pk(value INTEGER PRIMARY KEY)");
  const char *names[3] = {"q", "s", "pk"};
  const char *labels[3] = {"quotient_store(deletes = 0)",
                           "bloom_store (scalable)", "INTEGER PRIMARY KEY"};
  long long counted[3] = {0, 0, 0}, missed[3] = {0, 0, 0}, have = 0;
  for (long long n = 100000; n <= most; n *= 10) {
    double secs[3] = {0, 0, 0}; /* this decade's requests */
    for (long long a = have + 1; a <= n; a += BATCH) {
      long long b = a + BATCH - 1 < n ? a + BATCH - 1 : n;
      /* the order turned each batch, as load moves */
      for (int k = 0; k < 3; k++) {
        int x = (int)((k + a / BATCH) % 3);
        secs[x] += ignore_batch(db, names[x], a, b, &counted[x], &missed[x]);
      }
    }
    long long requests = n - have, repeats = n / 10, fresh = n - repeats;
    have = n;
    for (int x = 0; x < 3; x++) {
      double us = secs[x] / (double)requests * 1e6;
      long long skipped = fresh - (counted[x] - missed[x]);
      printf("  %-10lld %-34s %9.2f %9.2f %4lld of %-4lld %5lld (%.3f%%) %9.2f\n",
             n, labels[x], us, secs[x] / secs[2], repeats - missed[x], repeats,
             skipped, 100.0 * (double)skipped / (double)fresh,
             8.0 * (double)(x == 2 ? q_intf(db, "SELECT sum(pgsize) FROM dbstat "
                                        "WHERE name IN ('pk')")
                               : db_bytes(db, "main", names[x])) /
                 (double)counted[x]);
      if (x < 2) {
        check("insert if new: repeats counted as new", (double)missed[x], 0);
        check("insert if new: new ids skipped / (fpr * new)",
              (double)skipped / (0.01 * (double)fresh), 1);
      } else {
        check("insert if new: the table's new ids", (double)(counted[x] - fresh), 0);
      }
    }
  }
  printf("  us/req: the time of the requests of this row's decade alone; ratio: "
         "against the PRIMARY KEY table's; db b/i: bits a distinct id added\n");
  sqlite3_close(db);
  remove_db(path);
}

static const long long multiples[] = {1, 10, 100, 1000, 10000};
#define POINTS 5

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: quotient_store BLOOM_SO DIR\n");
    return 2;
  }
  so_path = argv[1];
  const char *dir = argv[2];
  int quick = env_ll("QSTORE_BENCH_QUICK", 0) != 0;
  long long max = env_ll("QSTORE_BENCH_MAX", quick ? 10 : 1000);
  long long max001 = env_ll("QSTORE_BENCH_MAX001", quick ? 10 : 100);
  long long sized_max = env_ll("QSTORE_BENCH_SIZED_MAX", max);
  long long burst_max = env_ll("QSTORE_BENCH_BURST_MAX", quick ? 10 : 100);
  long long churn_max = env_ll("QSTORE_BENCH_CHURN_MAX", quick ? 1 : 10);
  int rounds = (int)env_ll("QSTORE_BENCH_ROUNDS", quick ? 3 : 5);
  int per_round = (int)env_ll("QSTORE_BENCH_INSERTS", quick ? 300 : 1000);
  probes_n = env_ll("QSTORE_BENCH_PROBES", quick ? 100000 : 1000000);
  const char *parts = getenv("QSTORE_BENCH_PARTS");
  int do_space = !parts || strstr(parts, "space"), do_churn = !parts || strstr(parts, "churn"),
      do_insert = !parts || strstr(parts, "insert"),
      do_ignore = !parts || strstr(parts, "ignore");
  long long ignore_most = env_ll("QSTORE_BENCH_IGNORE", quick ? 100000 : 1000000);
  if (!do_space) max = 0;
  if (!do_churn) burst_max = churn_max = 0;
  if (rounds < 1) rounds = 1;
  if (rounds > 64) rounds = 64;
  if (max001 > max) max001 = max;
  double t_start = now();
  print_machine();
  print_disk(dir);
  char load[32];
  read_loadavg(load, sizeof load);
  printf("load:     %s (1-minute average at the start)\n", load);

  char path[512], vac[540];
  snprintf(path, sizeof path, "%s/qstore-bench.db", dir);
  snprintf(vac, sizeof vac, "%s/qstore-bench-vac.db", dir);
  remove_db(path);
  /* Defaults, but a 256 MB page cache: it changes no page, only how fast
  ** the stores are built and how warm the probes run. */
  sqlite3 *db = open_plain(path, "PRAGMA cache_size = -262144");
  printf("\n== quotient_store (file database %s, journal_mode = %s, page_size "
         "%lld, cache 256 MB; grown in transactions of %d)\n", path, "DELETE",
         q_int(db, "PRAGMA page_size"), BATCH);
  printf("  b/i = bits per item: db = the shadow tables' pages (dbstat pgsize), "
         "vac = the same after VACUUM, exp = 8 * length(filter) / items; rate "
         "over %lld absent ids (%s); est = quotient_info's estimated_fpr; FN = "
         "members not found / checked\n", probes_n,
         "200,000 for bloom_store and cuckoo_store");
  const double fprs[2] = {0.01, 0.001};
  exec(db, "CREATE VIRTUAL TABLE q0 USING quotient_store(fpr = 0.01);"
           "CREATE VIRTUAL TABLE s0 USING bloom_store(fpr = 0.01);"
           "CREATE VIRTUAL TABLE q1 USING quotient_store(fpr = 0.001);"
           "CREATE VIRTUAL TABLE s1 USING bloom_store(fpr = 0.001);"
           "CREATE TABLE pk(value INTEGER PRIMARY KEY);");
  long long have = 0;
  uint64_t digest[POINTS] = {0};
  double ratio1000[2] = {0, 0};
  long long other_probes = probes_n < 200000 ? probes_n : 200000;
  for (int k = 0; k < POINTS && multiples[k] <= max; k++) {
    long long n = FIRST * multiples[k], before = have;
    double t0 = now();
    grow(db, "q0", have + 1, n);
    double tq = now() - t0;
    grow(db, "s0", have + 1, n);
    grow(db, "pk", have + 1, n);
    if (multiples[k] <= max001) {
      grow(db, "q1", have + 1, n);
      grow(db, "s1", have + 1, n);
    }
    have = n;
    int sized = multiples[k] <= sized_max;
    /* Sized and fixed stores of capacity n. */
    for (int p = 0; p < 2 && sized; p++) {
      execf(db, "BEGIN;"
                "CREATE VIRTUAL TABLE z%d USING quotient_store(capacity = %lld, fpr = %g);"
                "CREATE VIRTUAL TABLE f%d USING bloom_store(capacity = %lld, fpr = %g);"
                "CREATE VIRTUAL TABLE c%d USING cuckoo_store(capacity = %lld, fpr = %g);",
            p, n, fprs[p], p, n, fprs[p], p, n, fprs[p]);
      char nm[8];
      const char *pre = "zfc";
      for (int j = 0; j < 3; j++) {
        snprintf(nm, sizeof nm, "%c%d", pre[j], p);
        add_ids(db, nm, STREAM_ITEMS, 1, n);
      }
      exec(db, "COMMIT");
    }
    printf("\n### %lldx: %lld items (growing quotient_store at fpr 0.01 grew at "
           "%.1f us an insert)\n", multiples[k], n, tq / (double)(n - before) * 1e6);
    figures fq[2], fs[2], fz[2], ff[2], fc[2];
    int have1 = multiples[k] <= max001;
    for (int p = 0; p < 2; p++) {
      char a[8];
      if (p == 0 || have1) {
        snprintf(a, sizeof a, "q%d", p);
        fq[p] = measure(db, a, "quotient_store", n, probes_n);
        snprintf(a, sizeof a, "s%d", p);
        fs[p] = measure(db, a, "bloom_store", n, other_probes);
      }
      if (!sized) continue;
      snprintf(a, sizeof a, "z%d", p);
      fz[p] = measure(db, a, "quotient_store", n, probes_n);
      snprintf(a, sizeof a, "f%d", p);
      ff[p] = measure(db, a, "bloom_store", n, other_probes);
      snprintf(a, sizeof a, "c%d", p);
      fc[p] = measure(db, a, "cuckoo_store", n, other_probes);
    }
    digest[k] = fq[0].digest;
    vacuum_into(db, vac);
    for (int p = 0; p < 2; p++) {
      char a[8];
      if (p == 0 || have1) {
        snprintf(a, sizeof a, "q%d", p);
        fq[p].vac = db_bytes(db, "vac", a);
        snprintf(a, sizeof a, "s%d", p);
        fs[p].vac = db_bytes(db, "vac", a);
      }
      if (!sized) continue;
      snprintf(a, sizeof a, "z%d", p);
      fz[p].vac = db_bytes(db, "vac", a);
      snprintf(a, sizeof a, "f%d", p);
      ff[p].vac = db_bytes(db, "vac", a);
      snprintf(a, sizeof a, "c%d", p);
      fc[p].vac = db_bytes(db, "vac", a);
    }
    vacuum_done(db, vac);
    header_row();
    for (int p = 0; p < 2; p++) {
      char label[64];
      double l2 = log2_inv(fprs[p]);
      if (p == 0 || have1) {
        snprintf(label, sizeof label, "quotient growing %g", fprs[p]);
        row(label, &fq[p], l2 + 5);
        snprintf(label, sizeof label, "bloom scalable %g", fprs[p]);
        row(label, &fs[p], 0);
      }
      if (!sized) continue;
      snprintf(label, sizeof label, "quotient sized %g", fprs[p]);
      row(label, &fz[p], l2 + 2.5);
      snprintf(label, sizeof label, "bloom fixed %g", fprs[p]);
      row(label, &ff[p], 0);
      snprintf(label, sizeof label, "cuckoo fixed %g", fprs[p]);
      row(label, &fc[p], 0);
    }
    for (int p = 0; p < 2; p++) {
      char a[8];
      if (p == 0 || have1) {
        snprintf(a, sizeof a, "q%d", p);
        breakdown(db, a, n, fprs[p]);
      }
      if (!sized) continue;
      snprintf(a, sizeof a, "z%d", p);
      breakdown(db, a, n, fprs[p]);
    }
    for (int p = 0; p < 2; p++) {
      char what[96];
      double l2 = log2_inv(fprs[p]);
      if (p == 0 || have1) {
        snprintf(what, sizeof what, "growing %g, db bits/item - log2(1/eps)", fprs[p]);
        check(what, (double)fq[p].db * 8 / (double)n - l2, 5);
        snprintf(what, sizeof what, "growing %g, export bits/item - log2(1/eps)",
                 fprs[p]);
        check(what, (double)fq[p].export_bytes * 8 / (double)n - l2, 5);
        snprintf(what, sizeof what, "growing %g, compacted bits/item - log2(1/eps)",
                 fprs[p]);
        check(what, (double)fq[p].compact_bytes * 8 / (double)n - l2, 5);
        snprintf(what, sizeof what, "growing %g, rate / fpr", fprs[p]);
        check(what, (double)fq[p].hits / (double)fq[p].probes / fprs[p], 1);
        snprintf(what, sizeof what, "growing %g, compacted rate / fpr", fprs[p]);
        check(what, (double)fq[p].compact_hits / (double)fq[p].probes / fprs[p], 1);
        if (multiples[k] == 1000) ratio1000[p] = (double)fq[p].db / (double)fs[p].db;
        snprintf(what, sizeof what, "growing %g, db bytes vs scalable bloom_store",
                 fprs[p]);
        if (multiples[k] >= 1000)
          check(what, (double)fq[p].db / (double)fs[p].db, 0.65);
        else
          printf("  INFO %-53s %6.2f\n", what, (double)fq[p].db / (double)fs[p].db);
      }
      if (!sized) continue;
      snprintf(what, sizeof what, "sized %g, db bits/item - log2(1/eps)", fprs[p]);
      check(what, (double)fz[p].db * 8 / (double)n - l2, 2.5);
      snprintf(what, sizeof what, "sized %g, export bits/item - log2(1/eps)", fprs[p]);
      check(what, (double)fz[p].export_bytes * 8 / (double)n - l2, 2.5);
      snprintf(what, sizeof what, "sized %g, compacted bits/item - log2(1/eps)",
               fprs[p]);
      check(what, (double)fz[p].compact_bytes * 8 / (double)n - l2, 2.5);
      snprintf(what, sizeof what, "sized %g, rate / fpr", fprs[p]);
      check(what, (double)fz[p].hits / (double)fz[p].probes / fprs[p], 1);
      snprintf(what, sizeof what, "sized %g, compacted rate / fpr", fprs[p]);
      check(what, (double)fz[p].compact_hits / (double)fz[p].probes / fprs[p], 1);
    }

    /* Probe cost, warm: the growing store against a fixed bloom_store of
    ** the same ids (f0, when the sized stores were built), the scalable
    ** one (s0) and the table (pk). */
    for (int txn = 1; txn >= 0; txn--) {
      const char *pn[4] = {"q0", sized ? "f0" : NULL, "s0", "pk"};
      double *pt[4];
      long long count = quick ? 20000 : txn ? 100000 : 50000, hits;
      for (int j = 0; j < 4; j++) {
        pt[j] = rounds_of_alloc(rounds);
        if (pn[j])
          probe_cost_in(db, pn[j], "value", count, STREAM_PROBES, 1, &hits, 1); /* warm */
      }
      for (int r = 0; r < rounds; r++)
        for (int j = 0; j < 4; j++) {
          int m = (j + r) % 4;
          if (pn[m])
            pt[m][r] = probe_cost_in(db, pn[m], "value", count, STREAM_PROBES,
                                     1 + (uint64_t)r * (uint64_t)count, &hits, txn);
        }
      char fixed[32] = "-";
      if (sized) snprintf(fixed, sizeof fixed, "%.2f us", median(pt[1], rounds) * 1e6);
      printf("  INFO EXISTS of an absent id, warm, %s (median of %d rounds of "
             "%lld): quotient %.2f us, fixed bloom %s, scalable bloom %.2f us, "
             "PRIMARY KEY %.2f us\n",
             txn ? "in one read transaction" : "each its own autocommit statement",
             rounds, count, median(pt[0], rounds) * 1e6, fixed,
             median(pt[2], rounds) * 1e6, median(pt[3], rounds) * 1e6);
      double r1[64], r2[64], r3[64];
      for (int r = 0; r < rounds; r++) {
        r1[r] = sized ? pt[0][r] / pt[1][r] : 0;
        r2[r] = pt[0][r] / pt[2][r];
        r3[r] = pt[0][r] / pt[3][r];
      }
      char what[96];
      const char *how = txn ? "" : ", autocommit";
      snprintf(what, sizeof what, "probe, growing quotient vs fixed bloom%s", how);
      if (sized) ratio_report(what, r1, rounds, 1.05, txn);
      snprintf(what, sizeof what, "probe, growing quotient vs scalable bloom%s", how);
      ratio_report(what, r2, rounds, 0.9, txn && multiples[k] >= 1000);
      snprintf(what, sizeof what, "probe, growing quotient vs PRIMARY KEY%s", how);
      ratio_report(what, r3, rounds, 0, 0);
      for (int j = 0; j < 4; j++) free(pt[j]);
    }
    if (sized)
      exec(db, "DROP TABLE z0; DROP TABLE f0; DROP TABLE c0;"
               "DROP TABLE z1; DROP TABLE f1; DROP TABLE c1;");
    fflush(stdout);
  }
  if (ratio1000[0] > 0)
    printf("\n  INFO at 1000x, growing quotient / scalable bloom_store db bytes: "
           "%.2f (fpr 0.01)\n", ratio1000[0]);
  if (ratio1000[1] > 0)
    printf("  INFO the same at fpr 0.001: %.2f\n", ratio1000[1]);

  /* Burst and churn. */
  printf("\n### Burst (one transaction) and churn (each id inserted and deleted "
         "three times, then inserted; transactions of %d ids), growing, fpr "
         "0.01\n", BATCH);
  header_row();
  for (int k = 0; k < POINTS && multiples[k] <= burst_max && multiples[k] <= max;
       k++) {
    long long n = FIRST * multiples[k];
    exec(db, "BEGIN; CREATE VIRTUAL TABLE b0 USING quotient_store(fpr = 0.01)");
    add_ids(db, "b0", STREAM_ITEMS, 1, n);
    exec(db, "COMMIT");
    figures f = measure(db, "b0", "quotient_store", n, probes_n);
    vacuum_into(db, vac);
    f.vac = db_bytes(db, "vac", "b0");
    vacuum_done(db, vac);
    char label[64];
    snprintf(label, sizeof label, "burst %lldx", multiples[k]);
    row(label, &f, log2_inv(0.01) + 5);
    printf("  INFO   its filter is %s the steadily grown store's at %lldx\n",
           f.digest == digest[k] ? "byte for byte" : "NOT", multiples[k]);
    check("burst, rate / fpr", (double)f.hits / (double)f.probes / 0.01, 1);
    exec(db, "DROP TABLE b0");
  }
  for (int k = 0; k < POINTS && multiples[k] <= churn_max; k++) {
    long long n = FIRST * multiples[k];
    double t0 = now();
    exec(db, "CREATE VIRTUAL TABLE h0 USING quotient_store(fpr = 0.01)");
    for (long long a = 1; a <= n; a += BATCH) {
      long long b = a + BATCH - 1 < n ? a + BATCH - 1 : n;
      exec(db, "BEGIN");
      for (int c = 0; c < 3; c++) {
        add_ids(db, "h0", STREAM_ITEMS, a, b);
        delete_ids(db, "h0", STREAM_ITEMS, a, b);
      }
      add_ids(db, "h0", STREAM_ITEMS, a, b);
      exec(db, "COMMIT");
    }
    double t = now() - t0;
    figures f = measure(db, "h0", "quotient_store", n, probes_n);
    vacuum_into(db, vac);
    f.vac = db_bytes(db, "vac", "h0");
    vacuum_done(db, vac);
    char label[64];
    snprintf(label, sizeof label, "churn %lldx", multiples[k]);
    row(label, &f, log2_inv(0.01) + 5);
    printf("  INFO   entries left %lld for %lld members (deletes refused or "
           "taking another's entry leave the rest); %.1f us an operation\n",
           f.entries, n, t / (double)(7 * n) * 1e6);
    check("churn, rate / fpr", (double)f.hits / (double)f.probes / 0.01, 1);
    exec(db, "DROP TABLE h0");
  }
  sqlite3_close(db);
  remove_db(path);

  if (do_insert) insert_part(dir, 100000, per_round, rounds);
  if (do_ignore) ignore_part(dir, ignore_most);

  printf("\n  quotient_store targets failed: %d (%.0f s)\n", failures,
         now() - t_start);
  return 0;
}
