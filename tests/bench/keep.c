/*
** make bench-keep: what keeping a bloom_store by trigger costs an
** autocommit INSERT at SQLite's default settings (no cache_size, no mmap;
** WAL, synchronous = NORMAL, automatic checkpoints), as an application
** that followed the README would run it.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   plain   INSERT INTO plain(id, response) VALUES (?, ?): a table of
**           BASE rows, no trigger
**   kept    the same into a table whose AFTER INSERT trigger adds the id
**           to a fixed bloom_store(capacity = C, fpr = 0.001)
**   floor   the same into a table whose trigger changes one random row of
**           a table of the store's size, one row per page: the least any
**           structure that changes one random page per insert costs
**
** for C in KEEP_BENCH_SIZES (default 1000000,10000000; add 100000000 for
** the largest) and for INTEGER ids and random 32-hex-digit TEXT ids (a
** TEXT PRIMARY KEY).  Rounds interleave the three; medians and ranges.
** Per insert it reports the WAL frames its commit wrote (checkpoints as
** SQLite's default makes them, at 1000 frames) and SQLite's page-cache
** misses.  Databases are built once under the bench folder (keep-*.db).
** Usage: keep BLOOM_SO DIR
*/
#define _DEFAULT_SOURCE

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_NAME "keep bench"
#include "sqlbench.h"

#define BASE 1000000  /* rows in each base table */
#define BATCH 1000    /* timed inserts of a flow in one round */
#define ROUNDS 11

static uint64_t rng = 0x6b656570ULL;
static uint64_t next_rand(void) { return splitmix(&rng); }

/* A new id of the kind: a random 63-bit integer or 32 hex digits. */
static void bind_id(sqlite3_stmt *st, int text) {
  if (!text) {
    sqlite3_bind_int64(st, 1, (sqlite3_int64)(next_rand() >> 1));
    return;
  }
  char hex[33];
  snprintf(hex, sizeof hex, "%016llx%016llx", (unsigned long long)next_rand(),
           (unsigned long long)next_rand());
  sqlite3_bind_text(st, 1, hex, 32, SQLITE_TRANSIENT);
}

/* WAL frames appended, counted by a hook that checkpoints as SQLite's
** default hook does (PASSIVE at 1000 frames). */
static long long frames_written;
static int last_frames;
static int wal_hook(void *arg, sqlite3 *db, const char *schema, int frames) {
  (void)arg;
  frames_written += frames >= last_frames ? frames - last_frames : frames;
  last_frames = frames;
  if (frames >= 1000) {
    sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, NULL,
                              NULL);
    last_frames = 0; /* the next writer restarts the log */
  }
  return SQLITE_OK;
}

/* The database at path with SQLite's defaults but for WAL and
** synchronous = NORMAL (open_db_with, no further pragmas). */
static sqlite3 *open_default(const char *path) { return open_db_with(path, ""); }

static void fill_base(sqlite3 *db, const char *table, int text) {
  sqlite3_stmt *st;
  char *sql = sqlite3_mprintf("INSERT INTO %s VALUES (?1, zeroblob(64))",
                              table);
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  sqlite3_free(sql);
  exec(db, "BEGIN");
  for (int i = 0; i < BASE; i++) {
    bind_id(st, text);
    if (sqlite3_step(st) != SQLITE_DONE) die(db, "fill");
    sqlite3_reset(st);
  }
  exec(db, "COMMIT");
  sqlite3_finalize(st);
}

/* keep-C.db: for each id kind k (int, text), tables plain_k, kept_k and
** floor_k of BASE rows, store s_k kept by kept_k's trigger, and pad_k, as
** many one-page rows as s_k has chunks, changed by floor_k's trigger. */
static sqlite3 *prepare_db(const char *dir, long long capacity) {
  char path[512];
  snprintf(path, sizeof path, "%s/keep-%lld.db", dir, capacity);
  sqlite3 *db = open_default(path);
  if (q_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'ready'") ==
      1)
    return db;
  fprintf(stderr, "keep bench: building %s (once)\n", path);
  const char *kinds[] = {"int", "text"};
  for (int k = 0; k < 2; k++) {
    const char *key = k ? "id TEXT PRIMARY KEY" : "id INTEGER PRIMARY KEY";
    const char *t = kinds[k];
    execf(db, "CREATE TABLE plain_%s(%s, response BLOB);"
              "CREATE TABLE kept_%s(%s, response BLOB);"
              "CREATE TABLE floor_%s(%s, response BLOB);"
              "CREATE VIRTUAL TABLE s_%s USING bloom_store(capacity = %lld, "
              "fpr = 0.001)",
          t, key, t, key, t, key, t, capacity);
    char name[32];
    const char *flows[] = {"plain", "kept", "floor"};
    for (int f = 0; f < 3; f++) {
      snprintf(name, sizeof name, "%s_%s", flows[f], t);
      fill_base(db, name, k);
    }
    sqlite3_int64 chunks = q_intf(db, "SELECT count(*) FROM s_%s_chunks", t);
    /* n stays a 2-byte integer, so each change rewrites the row in place,
    ** as the store's chunk row is. */
    execf(db, "CREATE TABLE pad_%s(id INTEGER PRIMARY KEY, n INTEGER, "
              "data BLOB);"
              "INSERT INTO pad_%s WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL "
              "SELECT x + 1 FROM r WHERE x < %lld) SELECT x, 1000, "
              "zeroblob(3960) FROM r;"
              "CREATE TRIGGER kept_%s_ai AFTER INSERT ON kept_%s BEGIN "
              "INSERT INTO s_%s(value) VALUES (NEW.id); END;"
              "CREATE TRIGGER floor_%s_ai AFTER INSERT ON floor_%s BEGIN "
              "UPDATE pad_%s SET n = 1000 + (n + 1) %% 30000 WHERE id = "
              "1 + abs(random() %% %lld); END;",
          t, t, (long long)chunks, t, t, t, t, t, t, (long long)chunks);
  }
  exec(db, "CREATE TABLE ready(x); PRAGMA wal_checkpoint(TRUNCATE)");
  return db;
}

typedef struct flow_result {
  double us[ROUNDS];
  double frames, misses; /* per insert, over all rounds */
} flow_result;

/* BATCH autocommit inserts into table; seconds. */
static double timed_inserts(sqlite3 *db, const char *table, int text,
                            flow_result *r) {
  sqlite3_stmt *st;
  char *sql = sqlite3_mprintf("INSERT INTO %s VALUES (?1, zeroblob(64))",
                              table);
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  sqlite3_free(sql);
  int hit, miss0, miss1;
  sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_MISS, &miss0, &hit, 1);
  long long frames0 = frames_written;
  double t0 = now();
  for (int i = 0; i < BATCH; i++) {
    bind_id(st, text);
    if (sqlite3_step(st) != SQLITE_DONE) die(db, table);
    sqlite3_reset(st);
  }
  double t = now() - t0;
  sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_MISS, &miss1, &hit, 0);
  r->frames += (double)(frames_written - frames0) / BATCH / ROUNDS;
  r->misses += (double)miss1 / BATCH / ROUNDS;
  sqlite3_finalize(st);
  return t;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(const double *v, int n) {
  double s[ROUNDS];
  memcpy(s, v, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, by_value);
  return s[n / 2];
}

/* Each round's kept / other, then the median and range of those. */
static void ratio_line(const char *what, const flow_result *a,
                       const flow_result *b, double limit, int target) {
  double r[ROUNDS];
  for (int i = 0; i < ROUNDS; i++) r[i] = a->us[i] / b->us[i];
  ratio_report(what, r, ROUNDS, limit, target);
}

static void run_size(const char *dir, long long capacity) {
  sqlite3 *db = prepare_db(dir, capacity);
  /* Ids a run inserts must be new to the tables, which keep every run's:
  ** the clock picks where the sequence goes on. */
  rng ^= (uint64_t)(now() * 1e9) * 0x2545f4914f6cdd1dULL;
  sqlite3_wal_hook(db, wal_hook, NULL);
  const char *kinds[] = {"int", "text"};
  for (int k = 0; k < 2; k++) {
    flow_result res[3];
    memset(res, 0, sizeof res);
    const char *flows[] = {"plain", "kept", "floor"};
    char name[32];
    /* One untimed batch each: the connection's caches as in a service. */
    for (int f = 0; f < 3; f++) {
      flow_result scratch = {{0}, 0, 0};
      snprintf(name, sizeof name, "%s_%s", flows[f], kinds[k]);
      timed_inserts(db, name, k, &scratch);
    }
    for (int round = 0; round < ROUNDS; round++)
      for (int j = 0; j < 3; j++) {
        int f = (round + j) % 3; /* the order turns each round */
        snprintf(name, sizeof name, "%s_%s", flows[f], kinds[k]);
        res[f].us[round] = timed_inserts(db, name, k, &res[f]) / BATCH * 1e6;
      }
    printf("  INFO %s ids, capacity %lld: per insert plain %.1f us, "
           "store-kept %.1f us, floor %.1f us; WAL frames %.2f / %.2f / "
           "%.2f; page-cache misses %.2f / %.2f / %.2f\n",
           kinds[k], capacity, median(res[0].us, ROUNDS),
           median(res[1].us, ROUNDS), median(res[2].us, ROUNDS), res[0].frames,
           res[1].frames, res[2].frames, res[0].misses, res[1].misses,
           res[2].misses);
    char what[96];
    snprintf(what, sizeof what, "store-kept vs plain INSERT, %s, %lld",
             kinds[k], capacity);
    ratio_line(what, &res[1], &res[0], 1.3, 0);
    snprintf(what, sizeof what, "one random page per insert vs plain, %s, %lld",
             kinds[k], capacity);
    ratio_line(what, &res[2], &res[0], 1.3, 0);
    snprintf(what, sizeof what, "store-kept vs its floor, %s, %lld", kinds[k],
             capacity);
    ratio_line(what, &res[1], &res[2], 1.1, 1);
  }
  sqlite3_close(db);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: keep BLOOM_SO DIR\n");
    return 2;
  }
  so_path = argv[1];
  const char *sizes = getenv("KEEP_BENCH_SIZES");
  char list[256];
  snprintf(list, sizeof list, "%s", sizes && *sizes ? sizes : "1000000,10000000");
  printf("== keeping a bloom_store by trigger, SQLite's default settings "
         "(WAL, synchronous=NORMAL, default cache_size, no mmap; SQLite %s)\n",
         sqlite3_libversion());
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
    run_size(argv[2], atoll(tok));
  printf("  keep targets failed: %d\n", failures);
  return failures ? 1 : 0;
}
