/*
** make bench (store part): what a bloom_store costs, as ratios against
** plain SQLite work measured in the same run.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   trigger insert   one autocommit INSERT into an INTEGER PRIMARY KEY
**                    table holding as many ids as the store's capacity,
**                    whose AFTER INSERT trigger adds the id to a store,
**                    against the same INSERT into a table without trigger
**                    (WAL, synchronous=NORMAL), at capacity 1M and 10M
**                    (and STORE_BENCH_LARGEST, e.g. 100000000), warm (the
**                    store's pages in SQLite's cache) and cold (a fresh
**                    connection, and the OS cache dropped when run as
**                    root); the bloom_add trigger on a BLOB column beside
**                    it at 1M and 10M
**   bulk insert      INSERT INTO store(value) SELECT id FROM ids (random
**                    63-bit ids, one transaction) against inserting the
**                    same ids into an INTEGER PRIMARY KEY table
**   point probe      a prepared SELECT EXISTS (SELECT 1 FROM store WHERE
**                    value = ?) against the same EXISTS on the table
**   bulk probe       bloom_probe('SELECT filter FROM store', v) per row
**                    against bloom_probe over the same filter kept as a
**                    BLOB; and reading `filter` against reading a BLOB of
**                    the same size
**   space            the shadow tables' pages (dbstat) against the bytes
**                    of the equivalent blob
**   cuckoo_store     INFO, no targets: the trigger inserts at 1M and 10M,
**                    the EXISTS probe at 10M and an autocommit DELETE of
**                    a present value, for a cuckoo_store loaded with a
**                    cuckoo_build of the same ids
**
** Databases are built once under the bench folder (store-*.db, git-ignored)
** and reused; each store is filled by merging a bloom_build over its ids
** (the same bytes as inserting them, and the fast way to load a big store).
** STORE_BENCH_BIG sets the size of the bulk, probe and space figures
** (default 10000000); STORE_BENCH_LARGEST adds a third, larger database
** for the trigger-insert figures.
** Usage: store BLOOM_SO DIR
*/
#define _DEFAULT_SOURCE

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_NAME "store bench"
#include "sqlbench.h"

/* Timed rounds of the trigger inserts. */
#define ROUNDS 6

static uint64_t rng = 0x5707e5eedULL;
static uint64_t next_id(void) { return splitmix(&rng) >> 1; }

/* A database holding: ids(id) n random ids; plain(id) and kept(id) copies,
** kept with a trigger into store `seen` (capacity n); blobkept(id) with a
** bloom_add trigger on filters.f; built once. */
static sqlite3 *prepare_db(const char *dir, long long n, int with_blob) {
  char path[512];
  snprintf(path, sizeof path, "%s/store-%lld.db", dir, n);
  int fresh = access(path, F_OK) != 0;
  sqlite3 *db = open_db(path);
  if (!fresh && q_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'ready'") == 1)
    return db;
  fprintf(stderr, "store bench: building %s (once)\n", path);
  /* Random 63-bit ids generated in increasing order (random gaps of mean
  ** 2^62 / n), so that they append to the INTEGER PRIMARY KEY table
  ** instead of splitting pages all over it: a random-order build of 100M
  ** rows did not finish in 25 minutes here. */
  exec(db, "CREATE TABLE IF NOT EXISTS ids(id INTEGER PRIMARY KEY)");
  sqlite3_stmt *ins;
  if (sqlite3_prepare_v2(db, "INSERT INTO ids VALUES (?1)", -1, &ins, NULL) !=
      SQLITE_OK)
    die(db, "prepare");
  exec(db, "BEGIN");
  rng = 0x5707e5eedULL ^ (uint64_t)n;
  uint64_t gap = ((uint64_t)1 << 62) / (uint64_t)n, id = 0;
  for (long long i = 0; i < n; i++) {
    id += 1 + next_id() % (2 * gap);
    sqlite3_bind_int64(ins, 1, (sqlite3_int64)id);
    sqlite3_step(ins);
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  char sql[1024];
  snprintf(sql, sizeof sql,
           "CREATE TABLE plain(id INTEGER PRIMARY KEY);"
           "INSERT INTO plain SELECT id FROM ids;"
           "CREATE TABLE kept(id INTEGER PRIMARY KEY);"
           "INSERT INTO kept SELECT id FROM ids;"
           "CREATE VIRTUAL TABLE seen USING bloom_store(capacity = %lld, fpr = 0.01);"
           "INSERT INTO seen(filter) SELECT bloom_build(id, %lld, 0.01) FROM ids;"
           "CREATE TRIGGER kept_seen AFTER INSERT ON kept BEGIN"
           "  INSERT INTO seen(value) VALUES (NEW.id); END;"
           "CREATE TABLE blobs(f BLOB);"
           "INSERT INTO blobs SELECT filter FROM seen;",
           n, n);
  exec(db, sql);
  if (with_blob) {
    snprintf(sql, sizeof sql,
             "CREATE TABLE blobkept(id INTEGER PRIMARY KEY);"
             "INSERT INTO blobkept SELECT id FROM ids;"
             "CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);"
             "INSERT INTO filters SELECT 'ids', bloom_build(id, %lld, 0.01) FROM ids;"
             "CREATE TRIGGER blobkept_f AFTER INSERT ON blobkept BEGIN"
             "  UPDATE filters SET f = bloom_add(f, NEW.id) WHERE name = 'ids'; END;",
             n);
    exec(db, sql);
  }
  exec(db, "CREATE TABLE ready(x); COMMIT; PRAGMA wal_checkpoint(TRUNCATE)");
  return db;
}

/* Adds, once, a cuckoo_store `cseen` (capacity n) holding the ids, and
** ckept(id), a copy of ids whose trigger inserts into it. */
static void prepare_cuckoo(sqlite3 *db, long long n) {
  if (q_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'cready'") == 1)
    return;
  fprintf(stderr, "store bench: adding the cuckoo store (once)\n");
  execf(db,
        "BEGIN;"
        "CREATE TABLE ckept(id INTEGER PRIMARY KEY);"
        "INSERT INTO ckept SELECT id FROM ids;"
        "CREATE VIRTUAL TABLE cseen USING cuckoo_store(capacity = %lld, fpr = 0.01);"
        "INSERT INTO cseen(filter) SELECT cuckoo_build(id, %lld, 0.01) FROM ids;"
        "CREATE TRIGGER ckept_cseen AFTER INSERT ON ckept BEGIN"
        "  INSERT INTO cseen(value) VALUES (NEW.id); END;"
        "CREATE TABLE cready(x); COMMIT; PRAGMA wal_checkpoint(TRUNCATE)",
        n, n);
}

/* Seconds per autocommit INSERT of `count` new ids into `table`. */
static double insert_cost(sqlite3 *db, const char *table, int count) {
  char sql[128];
  snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (?1)", table);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  double t0 = now();
  for (int i = 0; i < count; i++) {
    sqlite3_bind_int64(st, 1, (sqlite3_int64)next_id());
    if (sqlite3_step(st) != SQLITE_DONE) die(db, sql);
    sqlite3_reset(st);
  }
  double t = (now() - t0) / count;
  sqlite3_finalize(st);
  return t;
}

/* One round of 2,000 inserts into `plain` and 2,000 into `kept` (a table
** with a store's trigger), added to *plain and *kept; odd rounds start
** with `kept`, so that WAL checkpoints (every 1000 pages, in whichever
** insert crosses) fall on both alike. */
static void insert_pair(sqlite3 *db, const char *kept_table, int round,
                        double *plain, double *kept) {
  int kept_first = round % 2;
  if (kept_first) *kept += insert_cost(db, kept_table, 2000);
  *plain += insert_cost(db, "plain", 2000);
  if (!kept_first) *kept += insert_cost(db, kept_table, 2000);
}

/* Seconds per run of a one-parameter statement over `count` random ids
** (nearly all absent, as most incoming ids of an idempotency check are). */
static double probe_cost(sqlite3 *db, const char *sql, int count) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  sqlite3_int64 *keys = malloc(sizeof *keys * (size_t)count);
  for (int i = 0; i < count; i++) keys[i] = (sqlite3_int64)next_id();
  double t0 = now();
  long long hits = 0;
  for (int i = 0; i < count; i++) {
    sqlite3_bind_int64(st, 1, keys[i]);
    if (sqlite3_step(st) == SQLITE_ROW) hits += sqlite3_column_int(st, 0);
    sqlite3_reset(st);
  }
  double t = (now() - t0) / count;
  (void)hits;
  free(keys);
  sqlite3_finalize(st);
  return t;
}

/* Reads every page of the store and of the tables' right edges into
** SQLite's cache: the warm case. */
static void warm_store(sqlite3 *db) {
  exec(db, "SELECT length(filter) FROM seen");
  exec(db, "SELECT count(*) FROM seen_chunks WHERE length(data) > 0");
}

static double run_once(sqlite3 *db, const char *sql) {
  double t0 = now();
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (sqlite3_column_type(st, 0) == SQLITE_BLOB)
      (void)sqlite3_column_blob(st, 0);
  }
  sqlite3_finalize(st);
  return now() - t0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: store BLOOM_SO DIR\n");
    return 2;
  }
  so_path = argv[1];
  /* The databases keep the rows each run inserts: new ids every run. */
  rng ^= (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL;
  const char *dir = argv[2];
  const char *big_env = getenv("STORE_BENCH_BIG");
  long long big = big_env ? atoll(big_env) : 10000000;
  long long small = 1000000;
  const char *largest_env = getenv("STORE_BENCH_LARGEST");
  long long largest = largest_env ? atoll(largest_env) : 0;

  printf("\n== bloom_store (WAL, synchronous=NORMAL, cache 256 MB, mmap 1 GB)\n");
  sqlite3 *db1 = prepare_db(dir, small, 1);
  sqlite3 *dbb = prepare_db(dir, big, 1);
  sqlite3 *dbl = largest > big ? prepare_db(dir, largest, 0) : NULL;
  char name[128];

  /* Cold: fresh connections (and no OS cache, if we may drop it); the
  ** first inserts read the pages they touch from the file. */
  double cold_plain = 0, cold_kept = 0;
  long long cold_n = dbl ? largest : big;
  if (dbl) sqlite3_close(dbl);
  int dropped = drop_os_cache();
  sqlite3 *dbc = prepare_db(dir, cold_n, 0);
  cold_kept = insert_cost(dbc, "kept", 500);
  sqlite3_close(dbc);
  drop_os_cache();
  dbc = prepare_db(dir, cold_n, 0);
  cold_plain = insert_cost(dbc, "plain", 500);
  if (dbl) {
    dbl = dbc;
    warm_store(dbl);
  } else {
    sqlite3_close(dbc);
  }
  warm_store(db1);
  warm_store(dbb);

  /* Trigger-kept inserts, interleaved so every size sees the same machine. */
  double plain1 = 0, kept1 = 0, plainb = 0, keptb = 0, plainl = 0, keptl = 0;
  for (int round = 0; round < ROUNDS; round++) {
    insert_pair(db1, "kept", round, &plain1, &kept1);
    insert_pair(dbb, "kept", round, &plainb, &keptb);
    if (dbl) insert_pair(dbl, "kept", round, &plainl, &keptl);
  }
  double blob1 = insert_cost(db1, "blobkept", 200);
  double blobb = insert_cost(dbb, "blobkept", 20);
  printf("  INFO per autocommit insert, warm: plain %.1f us, store-kept %.1f us (%lld);"
         " plain %.1f us, store-kept %.1f us (%lld)\n",
         plain1 / ROUNDS * 1e6, kept1 / ROUNDS * 1e6, small,
         plainb / ROUNDS * 1e6, keptb / ROUNDS * 1e6, big);
  if (dbl)
    printf("  INFO per autocommit insert, warm: plain %.1f us, store-kept %.1f us (%lld)\n",
           plainl / ROUNDS * 1e6, keptl / ROUNDS * 1e6, largest);
  printf("  INFO per autocommit insert, cold (%s): plain %.1f us, store-kept %.1f us (%lld)\n",
         dropped ? "fresh connection, OS cache dropped" : "fresh connection",
         cold_plain * 1e6, cold_kept * 1e6, cold_n);
  printf("  INFO bloom_add trigger on a BLOB column: %.1f us (%lld), %.1f us (%lld)\n",
         blob1 * 1e6, small, blobb * 1e6, big);
  snprintf(name, sizeof name, "trigger insert vs plain INSERT, %lld", small);
  target_of(name, kept1 / plain1, 2.0, 1);
  snprintf(name, sizeof name, "trigger insert vs plain INSERT, %lld", big);
  target_of(name, keptb / plainb, 2.0, 1);
  snprintf(name, sizeof name, "trigger insert at %lld vs at %lld", big, small);
  target_of(name, (keptb / plainb) / (kept1 / plain1), 1.3, 1);
  if (dbl) {
    snprintf(name, sizeof name, "trigger insert vs plain INSERT, %lld", largest);
    target_of(name, keptl / plainl, 2.0, 1);
    snprintf(name, sizeof name, "trigger insert at %lld vs at %lld", largest, small);
    target_of(name, (keptl / plainl) / (kept1 / plain1), 1.3, 1);
    sqlite3_close(dbl);
  }

  /* cuckoo_store beside it, INFO only: trigger inserts against the plain
  ** INSERT, interleaved as above; EXISTS against the table; and an
  ** autocommit DELETE of a present value. */
  printf("  -- cuckoo_store beside it (INFO)\n");
  prepare_cuckoo(db1, small);
  prepare_cuckoo(dbb, big);
  exec(db1, "SELECT count(*) FROM cseen_chunks WHERE length(data) > 0");
  exec(dbb, "SELECT count(*) FROM cseen_chunks WHERE length(data) > 0");
  double cplain1 = 0, ckept1 = 0, cplainb = 0, ckeptb = 0;
  for (int round = 0; round < ROUNDS; round++) {
    insert_pair(db1, "ckept", round, &cplain1, &ckept1);
    insert_pair(dbb, "ckept", round, &cplainb, &ckeptb);
  }
  printf("  INFO per autocommit insert, warm: plain %.1f us, cuckoo-kept %.1f us"
         " (%lld, ratio %.2f); plain %.1f us, cuckoo-kept %.1f us (%lld, ratio"
         " %.2f)\n", cplain1 / ROUNDS * 1e6, ckept1 / ROUNDS * 1e6, small,
         ckept1 / cplain1, cplainb / ROUNDS * 1e6, ckeptb / ROUNDS * 1e6, big,
         ckeptb / cplainb);
  double cp_table = 0, cp_store = 0;
  for (int round = 0; round < 3; round++) {
    cp_table += probe_cost(dbb, "SELECT EXISTS (SELECT 1 FROM plain WHERE id = ?1)", 100000);
    cp_store += probe_cost(dbb, "SELECT EXISTS (SELECT 1 FROM cseen WHERE value = ?1)", 100000);
  }
  printf("  INFO prepared EXISTS, %lld: table %.2f us, cuckoo store %.2f us"
         " (ratio %.2f)\n", big, cp_table / 3 * 1e6, cp_store / 3 * 1e6,
         cp_store / cp_table);
  {
    enum { DELETES = 2000 };
    sqlite3_int64 *victims = malloc(sizeof *victims * DELETES);
    sqlite3_stmt *st;
    char pick[160];
    snprintf(pick, sizeof pick, "SELECT id FROM ids LIMIT %d OFFSET %lld",
             DELETES, (long long)(next_id() % (uint64_t)(big - DELETES)));
    if (victims == NULL || sqlite3_prepare_v2(dbb, pick, -1, &st, NULL) != SQLITE_OK)
      die(dbb, pick);
    int got = 0;
    while (got < DELETES && sqlite3_step(st) == SQLITE_ROW)
      victims[got++] = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(dbb, "DELETE FROM cseen WHERE value = ?1", -1, &st,
                           NULL) != SQLITE_OK)
      die(dbb, "DELETE");
    double td = now();
    for (int i = 0; i < got; i++) {
      sqlite3_bind_int64(st, 1, victims[i]);
      if (sqlite3_step(st) != SQLITE_DONE) die(dbb, "DELETE");
      sqlite3_reset(st);
    }
    td = (now() - td) / (got ? got : 1);
    sqlite3_finalize(st);
    free(victims);
    printf("  INFO autocommit DELETE of a present value, %lld: %.1f us\n", big,
           td * 1e6);
  }

  /* Bulk: the big database's ids into a new store and a new table. */
  char sql[512];
  exec(dbb, "DROP TABLE IF EXISTS bulk_t; DROP TABLE IF EXISTS bulk_s");
  snprintf(sql, sizeof sql,
           "CREATE TABLE bulk_t(id INTEGER PRIMARY KEY);"
           "CREATE VIRTUAL TABLE bulk_s USING bloom_store(capacity = %lld);", big);
  exec(dbb, sql);
  double t0 = now();
  exec(dbb, "BEGIN; INSERT INTO bulk_t SELECT id FROM ids; COMMIT");
  double bulk_table = now() - t0;
  t0 = now();
  exec(dbb, "BEGIN; INSERT INTO bulk_s(value) SELECT id FROM ids; COMMIT");
  double bulk_store = now() - t0;
  printf("  INFO bulk insert of %lld ids: table %.2f s, store %.2f s\n", big,
         bulk_table, bulk_store);
  target_of("bulk insert into a store vs into an INTEGER PRIMARY KEY table",
         bulk_store / bulk_table, 2.0, 1);
  exec(dbb, "DROP TABLE bulk_t; DROP TABLE bulk_s");

  /* Point probes, interleaved. */
  double p_table = 0, p_store = 0;
  for (int round = 0; round < 3; round++) {
    p_table += probe_cost(dbb, "SELECT EXISTS (SELECT 1 FROM plain WHERE id = ?1)", 100000);
    p_store += probe_cost(dbb, "SELECT EXISTS (SELECT 1 FROM seen WHERE value = ?1)", 100000);
  }
  printf("  INFO prepared EXISTS: table %.2f us, store %.2f us\n",
         p_table / 3 * 1e6, p_store / 3 * 1e6);
  target_of("point probe of a store vs EXISTS on INTEGER PRIMARY KEY",
         p_store / p_table, 1.5, 1);

  /* Bulk probes and reading the filter. */
  double b_store = 0, b_blob = 0, r_store = 0, r_blob = 0;
  for (int round = 0; round < 3; round++) {
    b_blob += run_once(dbb, "SELECT count(*) FROM plain WHERE bloom_probe("
                            "'SELECT f FROM blobs', id + 1)");
    b_store += run_once(dbb, "SELECT count(*) FROM plain WHERE bloom_probe("
                             "'SELECT filter FROM seen', id + 1)");
  }
  /* Reading a filter takes milliseconds: more rounds, the first two (the
  ** allocator settling on blocks of this size) not counted. */
  for (int round = 0; round < 3 * 10 + 2; round++) {
    double blob = run_once(dbb, "SELECT f FROM blobs");
    double store = run_once(dbb, "SELECT filter FROM seen");
    if (round >= 2) {
      r_blob += blob / 10;
      r_store += store / 10;
    }
  }
  printf("  INFO bloom_probe over %lld rows: BLOB %.2f s, store %.2f s; reading"
         " the filter: BLOB %.1f ms, store %.1f ms\n", big, b_blob / 3,
         b_store / 3, r_blob / 3 * 1e3, r_store / 3 * 1e3);
  target_of("bloom_probe over a store's filter vs over the BLOB", b_store / b_blob,
         1.1, 1);
  target_of("reading a store's filter vs reading a BLOB of its size",
         r_store / r_blob, 2.0, 1);

  /* Space. */
  sqlite3_int64 pages = q_int(dbb, "SELECT sum(pgsize) FROM dbstat WHERE name IN "
                                   "('seen_chunks', 'seen_config')");
  sqlite3_int64 blob_bytes = q_int(dbb, "SELECT length(f) FROM blobs");
  printf("  INFO space: shadow tables %lld bytes, the blob %lld bytes\n",
         (long long)pages, (long long)blob_bytes);
  target_of("store's pages vs the blob's bytes", (double)pages / (double)blob_bytes,
         1.10, 1);

  /* The timed inserts added a few thousand rows a run: well within what a
  ** store of this capacity holds at its rate. */
  sqlite3_close(db1);
  sqlite3_close(dbb);
  printf("  store targets failed: %d\n", failures);
  return 0;
}
