/*
** make bench (scalable part): what a store that grows in layers costs
** against the same store when small, and against a fixed store of the same
** size, as ratios measured side by side in one run.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   insert       new random ids into a scalable bloom_store(capacity =
**                10000, growth = 2, fpr = 0.01) holding 1x its first
**                capacity (10,000 ids) and into one holding 1000x (10M,
**                see below), a fixed store of 10M beside them (INFO):
**                autocommit single-row INSERTs (WAL, synchronous=NORMAL,
**                cache 256 MB) with the WAL checkpointed apart (automatic
**                checkpoints off, a checkpoint before each batch of 1,000
**                and one after it, timed on its own: INFO), then the same
**                with automatic checkpoints (INFO), and a bulk INSERT ...
**                SELECT of a batch in one transaction (INFO); rounds
**                interleaved, their order turned each round, the 1x store
**                made again before each round so that it stays at 1x
**   point probe  a prepared SELECT EXISTS (SELECT 1 FROM s WHERE value = ?)
**                of absent ids against the 1000x store (every layer is
**                asked) and against a fixed store whose capacity is the sum
**                of the layers', holding the same ids
**   bulk probe   bloom_probe('SELECT filter FROM s', v) per row over the
**                exported layered filter against the fixed store's; a
**                build whose bloom_probe refuses layered filters prints
**                SKIP with its error
**   space, rate  bits per item (length(filter) * 8 / items: the exported
**                blob, headers included) and the false-positive rate over
**                200,000 ids never inserted, at 1x, 10x, 100x and 1000x the
**                first capacity, beside a fixed store of capacity = items,
**                for bloom_store and cuckoo_store at fpr 0.01 and
**                bloom_store at 0.001 (1000x); and, from the chunk rows'
**                counters, how full each layer of the 1000x stores is and
**                the bits per item of their full layers alone (the best
**                point of the sawtooth a growing store's space follows)
**
** The first capacity is the default one (10,000): what a store created
** without capacity starts with.  With growth 2 the first k layers hold
** 10,000 * (2^k - 1) ids, so 10M ids (1000x) sit near the end of the tenth
** layer (10.23M): the next inserts open an eleventh as large as the ten
** together, whose chunk rows are written as inserts first reach them, and
** those first writes cost more than later ones.  The timed 1000x store is
** therefore taken past that point (on until its next layer opens, then
** AGEING_AFTER ids more), so that every run times the same steady state;
** the space and rate figures describe stores holding exactly 1x..1000x.
**
** The stores are built once in scalable.db under the bench folder
** (git-ignored, about 250 MB, a minute or two to build) and reused; the
** timed inserts go to stores of their own.  Ids are random 63-bit
** integers from a SQL function of the driver (SplitMix64 of a stream
** number and a counter), so every build holds the same ids.
** SCALABLE_BENCH_ROUNDS=n sets the interleaved rounds (default 7); the
** figures are their medians.
** Usage: scalable BLOOM_SO DIR
*/
#define _DEFAULT_SOURCE

#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_NAME "scalable bench"
#include "sqlbench.h"

enum { FIRST = 10000, GROWTH = 2 };

/* Id streams: the stores' items, ids never inserted (rates), the probe
** table of the bulk probe, and the timed inserts' new ids. */
enum { STREAM_ITEMS = 0, STREAM_ABSENT = 1, STREAM_PROBES = 2, STREAM_AGEING = 3,
       STREAM_NEW = 16 };

/* Ids added to the big timing store after the layer its growth opened. */
enum { AGEING_AFTER = 100000 };

/* SplitMix64's finalizer: a bijection, so distinct (stream, i) give
** distinct 64-bit words, and 63-bit ids that collide only when two words
** differ in their lowest bit alone. */
static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static sqlite3_int64 id_of(uint64_t stream, uint64_t i) {
  return (sqlite3_int64)(mix((stream << 40) + i + 0x9e3779b97f4a7c15ULL) >> 1);
}

/* bench_id(stream, i): the i-th id of a stream (i < 2^40). */
static void bench_id(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_int64(ctx, id_of((uint64_t)sqlite3_value_int64(argv[0]),
                                  (uint64_t)sqlite3_value_int64(argv[1])));
}

/* open_db, with bench_id. */
static sqlite3 *open_bench_db(const char *path) {
  sqlite3 *db = open_db(path);
  if (sqlite3_create_function(db, "bench_id", 2,
                              SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                              bench_id, NULL, NULL) != SQLITE_OK)
    die(db, "bench_id");
  return db;
}

static void target(const char *name, double ratio, double limit) {
  target_of(name, ratio, limit, 1);
}

/* Adds ids [from, to] of a stream to store `name` (in the transaction
** open, if any). */
static void add_ids(sqlite3 *db, const char *name, int stream, long long from,
                    long long to) {
  execf(db,
        "WITH RECURSIVE c(i) AS (SELECT %lld UNION ALL SELECT i + 1 "
        "FROM c WHERE i < %lld) INSERT INTO \"%w\"(value) SELECT "
        "bench_id(%d, i) FROM c",
        from, to, name, stream);
}

/* Makes store `name` holding the first n items, in one transaction (the
** one open, if any). */
static void make_store(sqlite3 *db, const char *name, const char *module,
                       const char *args, long long n) {
  int own = sqlite3_get_autocommit(db);
  if (own) exec(db, "BEGIN");
  execf(db, "CREATE VIRTUAL TABLE \"%w\" USING %s(%s)", name, module, args);
  add_ids(db, name, STREAM_ITEMS, 1, n);
  if (own) exec(db, "COMMIT");
}

/* The sum of a scalable store's layers' capacities. */
static long long layers_capacity(sqlite3 *db, const char *name) {
  return q_intf(db, "SELECT sum(value) FROM \"%w_config\" WHERE key LIKE "
                    "'layer.%%.capacity'", name);
}

static const long long multiples[] = {1, 10, 100, 1000};
#define POINTS 4

/* FNV-1a over the extension's file, in hex: which build made the stores. */
static void so_digest(char out[32]) {
  FILE *f = fopen(so_path, "rb");
  if (f == NULL) {
    fprintf(stderr, "scalable bench: cannot read %s\n", so_path);
    exit(2);
  }
  uint64_t h = 0xcbf29ce484222325ULL;
  int c;
  while ((c = getc(f)) != EOF) h = (h ^ (uint64_t)c) * 0x100000001b3ULL;
  fclose(f);
  snprintf(out, 32, "%016llx", (unsigned long long)h);
}

/* Opens scalable.db, made by an earlier run with the same bloom.so or
** now: the figures' stores, the timed inserts' stores, the probe tables. */
static sqlite3 *prepare_db(const char *dir) {
  char path[512], digest[32];
  snprintf(path, sizeof path, "%s/scalable.db", dir);
  so_digest(digest);
  sqlite3 *db = open_bench_db(path);
  if (q_int(db, "SELECT count(*) FROM pragma_table_info('ready') WHERE name = "
               "'so_digest'") == 1 &&
      q_intf(db, "SELECT count(*) FROM ready WHERE so_digest = %Q", digest) == 1)
    return db;
  /* How full a layer may get decides the stores' shape: stores made by
  ** another build of the extension are made again. */
  sqlite3_close(db);
  const char *suffixes[] = {"", "-wal", "-shm"};
  for (int i = 0; i < 3; i++) {
    char file[540];
    snprintf(file, sizeof file, "%s%s", path, suffixes[i]);
    unlink(file);
  }
  db = open_bench_db(path);
  fprintf(stderr, "scalable bench: building %s (once per build of the "
          "extension, a minute or two)\n", path);
  double t0 = now();
  char name[32], scalable[128], fixed[128];
  snprintf(scalable, sizeof scalable, "capacity = %d, growth = %d, fpr = 0.01",
           FIRST, GROWTH);
  for (int k = 0; k < POINTS; k++) {
    long long n = FIRST * multiples[k];
    snprintf(fixed, sizeof fixed, "capacity = %lld, fpr = 0.01", n);
    snprintf(name, sizeof name, "s%lld", multiples[k]);
    make_store(db, name, "bloom_store", scalable, n);
    snprintf(name, sizeof name, "f%lld", multiples[k]);
    make_store(db, name, "bloom_store", fixed, n);
    snprintf(name, sizeof name, "c%lld", multiples[k]);
    make_store(db, name, "cuckoo_store", scalable, n);
    snprintf(name, sizeof name, "cf%lld", multiples[k]);
    make_store(db, name, "cuckoo_store", fixed, n);
  }
  long long big = FIRST * 1000LL;
  snprintf(fixed, sizeof fixed, "capacity = %lld, fpr = 0.01",
           layers_capacity(db, "s1000"));
  make_store(db, "fsum", "bloom_store", fixed, big);
  /* The big timing store: 1000x, then on until the next layer opens and
  ** has its chunk rows (see the header). */
  exec(db, "BEGIN");
  make_store(db, "t1000", "bloom_store", scalable, big);
  long long layers = q_int(db, "SELECT value FROM t1000_config WHERE key = 'layers'");
  long long n = big;
  while (n < 2 * big &&
         q_int(db, "SELECT value FROM t1000_config WHERE key = 'layers'") == layers) {
    add_ids(db, "t1000", STREAM_AGEING, n + 1, n + 10000);
    n += 10000;
  }
  add_ids(db, "t1000", STREAM_AGEING, n + 1, n + AGEING_AFTER);
  exec(db, "COMMIT");
  snprintf(fixed, sizeof fixed, "capacity = %lld, fpr = 0.01", big);
  make_store(db, "tf1000", "bloom_store", fixed, big);
  snprintf(scalable, sizeof scalable, "capacity = %d, growth = %d, fpr = 0.001",
           FIRST, GROWTH);
  make_store(db, "p1000", "bloom_store", scalable, big);
  snprintf(fixed, sizeof fixed, "capacity = %lld, fpr = 0.001", big);
  make_store(db, "pf1000", "bloom_store", fixed, big);
  execf(db,
        "BEGIN; CREATE TABLE absent(v INTEGER); CREATE TABLE probes(v INTEGER);"
        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE "
        "i < 200000) INSERT INTO absent SELECT bench_id(%d, i) FROM c;"
        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE "
        "i < 1000000) INSERT INTO probes SELECT bench_id(%d, i) FROM c;"
        "CREATE TABLE ready(so_digest TEXT); INSERT INTO ready VALUES (%Q);"
        "COMMIT; PRAGMA wal_checkpoint(TRUNCATE)",
        STREAM_ABSENT, STREAM_PROBES, digest);
  fprintf(stderr, "scalable bench: built in %.0f s\n", now() - t0);
  return db;
}

/* Seconds per autocommit INSERT of `count` new ids into store `name`. */
static double insert_cost(sqlite3 *db, const char *name, int count,
                          uint64_t stream, uint64_t *next) {
  char *sql = sqlite3_mprintf("INSERT INTO \"%w\"(value) VALUES (?1)", name);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  double t0 = now();
  for (int i = 0; i < count; i++) {
    sqlite3_bind_int64(st, 1, id_of(stream, (*next)++));
    if (sqlite3_step(st) != SQLITE_DONE) die(db, sql);
    sqlite3_reset(st);
  }
  double t = (now() - t0) / count;
  sqlite3_finalize(st);
  sqlite3_free(sql);
  return t;
}

/* Seconds per id of a bulk INSERT ... SELECT of `count` new ids in one
** transaction (the id generation included, the same for both stores). */
static double bulk_cost(sqlite3 *db, const char *name, int count,
                        uint64_t stream, uint64_t *next) {
  double t0 = now();
  exec(db, "BEGIN");
  add_ids(db, name, (int)stream, (long long)*next, (long long)*next + count - 1);
  exec(db, "COMMIT");
  *next += (uint64_t)count;
  return (now() - t0) / count;
}

/* A fresh store at 1x its first capacity, for the timed inserts. */
static void make_small(sqlite3 *db) {
  char args[128];
  snprintf(args, sizeof args, "capacity = %d, growth = %d, fpr = 0.01", FIRST,
           GROWTH);
  exec(db, "DROP TABLE IF EXISTS t1");
  make_store(db, "t1", "bloom_store", args, FIRST);
}

/* Seconds per run of a prepared EXISTS over `count` ids of a stream, and
** the number that said yes. */
static double probe_cost(sqlite3 *db, const char *name, int count,
                         uint64_t stream, uint64_t first, long long *hits) {
  char *sql = sqlite3_mprintf("SELECT EXISTS (SELECT 1 FROM \"%w\" WHERE value = ?1)",
                              name);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  sqlite3_int64 *keys = malloc(sizeof *keys * (size_t)count);
  for (int i = 0; i < count; i++) keys[i] = id_of(stream, first + (uint64_t)i);
  *hits = 0;
  double t0 = now();
  for (int i = 0; i < count; i++) {
    sqlite3_bind_int64(st, 1, keys[i]);
    if (sqlite3_step(st) != SQLITE_ROW) die(db, sql);
    *hits += sqlite3_column_int(st, 0);
    sqlite3_reset(st);
  }
  double t = (now() - t0) / count;
  free(keys);
  sqlite3_finalize(st);
  sqlite3_free(sql);
  return t;
}

/* Runs a query to its end: seconds, or -1 with the error in why. */
static double run_once(sqlite3 *db, const char *sql, char *why, size_t size) {
  double t0 = now();
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc == SQLITE_OK) {
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    }
  }
  if (rc != SQLITE_DONE) {
    snprintf(why, size, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return -1;
  }
  sqlite3_finalize(st);
  return now() - t0;
}

/* Room for one figure a round. */
static double *rounds_of(int rounds) {
  double *v = calloc((size_t)rounds, sizeof *v);
  if (v == NULL) die(NULL, "out of memory");
  return v;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of n figures (sorts them). */
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Reads every chunk row of a store into SQLite's cache. */
static void warm(sqlite3 *db, const char *name) {
  q_intf(db, "SELECT sum(length(data)) FROM \"%w_chunks\"", name);
}

/* A store's size and measured rate. */
typedef struct figures {
  long long items, bytes, layers, hits;
  double bits_per_item, rate;
} figures;

static figures measure(sqlite3 *db, const char *name, long long items) {
  figures f;
  f.items = items;
  f.bytes = q_intf(db, "SELECT length(filter) FROM \"%w\"", name);
  f.layers = q_intf(db, "SELECT coalesce((SELECT value FROM \"%w_config\" "
                        "WHERE key = 'layers'), 1)", name);
  f.hits = q_intf(db, "SELECT count(*) FROM \"%w\" WHERE value IN (SELECT v "
                      "FROM absent)", name);
  long long probes = q_int(db, "SELECT count(*) FROM absent");
  f.bits_per_item = (double)f.bytes * 8 / (double)items;
  f.rate = (double)f.hits / (double)probes;
  return f;
}

/* Items per layer of a scalable bloom_store, from the counters that end
** its chunk rows, against each layer's capacity; and its bits per item if
** every layer held exactly its capacity (the best point of the sawtooth a
** growing store's space follows) against a fixed filter of as many items
** (bloom_plan). */
/* Bits per item of a scalable store whose layers are all exactly full,
** against a fixed store of that count, from bloom_plan's sizes (computed,
** not measured): the fewest layers of FIRST * g^i items at fpr * (1 - r) *
** r^i that hold 1000x. */
static double schedule_ratio(sqlite3 *db, int g, double r, double fpr) {
  char *sql = sqlite3_mprintf(
      "WITH RECURSIVE l(i, cap, total) AS (SELECT 0, %d, %d UNION ALL "
      "SELECT i + 1, cap * %d, total + cap * %d FROM l WHERE total < %lld), "
      "sized AS (SELECT (SELECT bits FROM bloom_plan(cap, %.17g * (1 - %.17g) "
      "* pow(%.17g, i))) AS bits FROM l) "
      "SELECT (SELECT sum(bits) FROM sized) * 1.0 / (SELECT bits FROM "
      "bloom_plan((SELECT max(total) FROM l), %.17g))",
      FIRST, FIRST, g, g, 1000LL * FIRST, fpr, r, r, fpr);
  double ratio = q_real(db, sql);
  sqlite3_free(sql);
  return ratio;
}

static void print_layers(sqlite3 *db, const char *name, double fpr) {
  long long layers = q_intf(db, "SELECT value FROM \"%w_config\" WHERE key = 'layers'",
                            name);
  if (layers < 2 || layers > 64) return;
  long long first_chunk[65], capacity[64], bits[64];
  long long at = 0;
  for (long long i = 0; i < layers; i++) {
    bits[i] = q_intf(db, "SELECT value FROM \"%w_config\" WHERE key = "
                         "'layer.%lld.bits'", name, i);
    long long per = q_intf(db, "SELECT value FROM \"%w_config\" WHERE key = "
                               "'layer.%lld.chunk_blocks'", name, i);
    capacity[i] = q_intf(db, "SELECT value FROM \"%w_config\" WHERE key = "
                             "'layer.%lld.capacity'", name, i);
    first_chunk[i] = at;
    at += (bits[i] / 512 + per - 1) / per;
  }
  first_chunk[layers] = at;
  long long count[64] = {0};
  char *sql = sqlite3_mprintf("SELECT id, data FROM \"%w_chunks\"", name);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  while (sqlite3_step(st) == SQLITE_ROW) {
    long long id = sqlite3_column_int64(st, 0);
    const unsigned char *b = sqlite3_column_blob(st, 1);
    int len = sqlite3_column_bytes(st, 1);
    uint64_t c = 0;
    for (int j = 7; j >= 0 && len >= 8; j--) c = c << 8 | b[len - 8 + j];
    for (long long i = 0; i < layers; i++)
      if (id >= first_chunk[i] && id < first_chunk[i + 1]) count[i] += (long long)c;
  }
  sqlite3_finalize(st);
  sqlite3_free(sql);
  printf("  INFO %s, items/capacity by layer:", name);
  long long all_capacity = 0, all_bits = 0;
  for (long long i = 0; i < layers; i++) {
    printf(" %.3f", (double)count[i] / (double)capacity[i]);
    all_capacity += capacity[i];
    all_bits += bits[i];
  }
  printf("\n");
  char sizing_sql[128];
  snprintf(sizing_sql, sizeof sizing_sql,
           "SELECT bits FROM bloom_plan(%lld, %g)", all_capacity, fpr);
  long long fixed_bits = q_int(db, sizing_sql);
  printf("  INFO %s with every layer exactly full (%lld items): %.2f bits/item;"
         " a fixed filter of as many: %.2f; ratio %.2f\n", name, all_capacity,
         (double)all_bits / (double)all_capacity,
         (double)fixed_bits / (double)all_capacity,
         (double)all_bits / (double)fixed_bits);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: scalable BLOOM_SO DIR\n");
    return 2;
  }
  so_path = argv[1];
  const char *dir = argv[2];
  const char *rounds_env = getenv("SCALABLE_BENCH_ROUNDS");
  int rounds = rounds_env ? atoi(rounds_env) : 7;
  if (rounds < 1) rounds = 1;
  double t_start = now();

  printf("\n== scalable stores (first capacity %d, growth %d; WAL, "
         "synchronous=NORMAL, cache 256 MB, mmap 1 GB)\n", FIRST, GROWTH);
  sqlite3 *db = prepare_db(dir);
  char name[160], why[512];

  /* Inserts, rounds interleaved and their order turned each round; a
  ** fixed store of the big one's final count beside them (INFO).  New ids
  ** come from a stream chosen by the clock, so that a run does not add
  ** again what an earlier run added to the big stores. */
  uint64_t stream = STREAM_NEW + (uint64_t)time(NULL) % 1000000;
  uint64_t next = 1;
  enum { SINGLE = 1000, BATCH = 10000, STORES = 3 };
  const char *ins[STORES] = {"t1", "t1000", "tf1000"};
  double *one[STORES], *bulk[STORES], *nockpt[STORES];
  for (int k = 0; k < STORES; k++) {
    one[k] = rounds_of(rounds);
    bulk[k] = rounds_of(rounds);
    nockpt[k] = rounds_of(rounds);
  }
  warm(db, "t1000");
  warm(db, "tf1000");
  for (int r = 0; r < rounds; r++) {
    make_small(db);
    warm(db, "t1");
    for (int j = 0; j < STORES; j++) {
      int k = (j + r) % STORES;
      one[k][r] = insert_cost(db, ins[k], SINGLE, stream, &next);
    }
    for (int j = 0; j < STORES; j++) {
      int k = (j + r) % STORES;
      bulk[k][r] = bulk_cost(db, ins[k], BATCH, stream, &next);
    }
  }
  /* The same autocommit inserts with the WAL checkpointed apart, as an
  ** application does that turns automatic checkpoints off and runs them
  ** from another thread (SQLite's documentation of wal_autocheckpoint):
  ** what the insert itself costs.  Each batch starts from an empty WAL; the
  ** checkpoint of what the batch left is timed on its own. */
  exec(db, "PRAGMA wal_autocheckpoint = 0");
  double *ckpt[STORES];
  for (int k = 0; k < STORES; k++) ckpt[k] = rounds_of(rounds);
  for (int r = 0; r < rounds; r++) {
    make_small(db);
    warm(db, "t1");
    for (int j = 0; j < STORES; j++) {
      int k = (j + r) % STORES;
      exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
      nockpt[k][r] = insert_cost(db, ins[k], SINGLE, stream, &next);
      double t0 = now();
      exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
      ckpt[k][r] = (now() - t0) / SINGLE;
    }
  }
  exec(db, "PRAGMA wal_autocheckpoint = 1000");
  double m1[STORES], mb[STORES], mn[STORES], mc[STORES];
  for (int k = 0; k < STORES; k++) {
    m1[k] = median(one[k], rounds) * 1e6;
    mb[k] = median(bulk[k], rounds) * 1e6;
    mn[k] = median(nockpt[k], rounds) * 1e6;
    mc[k] = median(ckpt[k], rounds) * 1e6;
  }
  printf("  INFO per autocommit insert (%d a round, median of %d rounds), the"
         " WAL checkpointed apart: %.1f us at 1x, %.1f us at 1000x, %.1f us"
         " fixed store of 1000x's items\n", SINGLE, rounds, mn[0], mn[1],
         mn[2]);
  printf("  INFO   that checkpoint, per insert: %.1f us, %.1f us, %.1f us\n",
         mc[0], mc[1], mc[2]);
  printf("  INFO   with automatic checkpoints: %.1f us, %.1f us, %.1f us"
         " (1000x / 1x %.2f, 1000x / fixed %.2f: the checkpoint writes back"
         " the distinct pages of the last 1,000 commits, about 10 in all at"
         " 1x, one per insert in a large store)\n", m1[0], m1[1], m1[2],
         m1[1] / m1[0], m1[1] / m1[2]);
  printf("  INFO per id of a bulk INSERT ... SELECT of %d in one transaction:"
         " %.2f us at 1x, %.2f us at 1000x, %.2f us fixed (the pages a batch"
         " dirties: 10 at 1x, most of the newest layer's at 1000x)\n", BATCH,
         mb[0], mb[1], mb[2]);
  target("autocommit insert at 1000x vs at 1x", mn[1] / mn[0], 1.3);

  /* Point probes of absent ids: every layer of the scalable store is
  ** asked. */
  warm(db, "s1000");
  warm(db, "fsum");
  double *ps = rounds_of(rounds), *pf = rounds_of(rounds);
  long long hits;
  enum { PROBES = 100000 };
  for (int r = 0; r < rounds; r++) {
    uint64_t first = (uint64_t)r * PROBES + 1;
    int f = r % 2; /* which goes first */
    for (int j = 0; j < 2; j++) {
      if ((j ^ f) == 0)
        ps[r] = probe_cost(db, "s1000", PROBES, stream + 1000000, first, &hits);
      else
        pf[r] = probe_cost(db, "fsum", PROBES, stream + 1000000, first, &hits);
    }
  }
  double mps = median(ps, rounds), mpf = median(pf, rounds);
  printf("  INFO prepared EXISTS, absent ids: %.2f us scalable (%lld layers),"
         " %.2f us fixed (capacity %lld)\n", mps * 1e6,
         q_int(db, "SELECT value FROM s1000_config WHERE key = 'layers'"),
         mpf * 1e6, layers_capacity(db, "s1000"));
  target("point probe at 1000x vs a fixed store of its size", mps / mpf, 2.0);

  /* Bulk probes over the exported filters. */
  double *bs = rounds_of(rounds), *bf = rounds_of(rounds);
  const char *layered_q = "SELECT count(*) FROM probes WHERE bloom_probe("
                          "'SELECT filter FROM s1000', v)";
  const char *fixed_q = "SELECT count(*) FROM probes WHERE bloom_probe("
                        "'SELECT filter FROM fsum', v)";
  if (run_once(db, layered_q, why, sizeof why) < 0) {
    printf("  SKIP: bloom_probe over a layered filter: %s\n", why);
  } else {
    if (run_once(db, fixed_q, why, sizeof why) < 0) die(db, why); /* warm both */
    for (int r = 0; r < rounds; r++) {
      int f = r % 2;
      for (int j = 0; j < 2; j++) {
        double t = run_once(db, (j ^ f) == 0 ? layered_q : fixed_q, why, sizeof why);
        if (t < 0) die(db, why);
        if ((j ^ f) == 0)
          bs[r] = t;
        else
          bf[r] = t;
      }
    }
    long long rows = q_int(db, "SELECT count(*) FROM probes");
    double mbs = median(bs, rounds), mbf = median(bf, rounds);
    printf("  INFO bloom_probe per row over %lld rows: %.1f ns layered,"
           " %.1f ns fixed\n", rows, mbs / (double)rows * 1e9,
           mbf / (double)rows * 1e9);
    target("bloom_probe over the layered filter vs the fixed one", mbs / mbf, 2.0);
  }

  /* Space and rate. */
  printf("  INFO bits/item = length(filter) * 8 / items; rate over %lld ids"
         " never inserted\n", q_int(db, "SELECT count(*) FROM absent"));
  printf("  INFO %-12s %9s %6s %10s %8s %10s %8s %6s\n", "store", "items",
         "layers", "bits/item", "rate", "fixed b/i", "rate", "ratio");
  const char *kinds[] = {"bloom", "cuckoo"};
  const char *scal[] = {"s", "c"}, *fixd[] = {"f", "cf"};
  double ratio1000 = 0;
  for (int kind = 0; kind < 2; kind++) {
    for (int k = 0; k < POINTS; k++) {
      long long n = FIRST * multiples[k];
      char a[16], b[16];
      snprintf(a, sizeof a, "%s%lld", scal[kind], multiples[k]);
      snprintf(b, sizeof b, "%s%lld", fixd[kind], multiples[k]);
      figures s = measure(db, a, n), f = measure(db, b, n);
      double ratio = s.bits_per_item / f.bits_per_item;
      if (kind == 0 && k == POINTS - 1) ratio1000 = ratio;
      snprintf(name, sizeof name, "%s %lldx", kinds[kind], multiples[k]);
      printf("  INFO %-12s %9lld %6lld %10.2f %7.3f%% %10.2f %7.3f%% %6.2f\n",
             name, n, s.layers, s.bits_per_item,
             s.rate * 100, f.bits_per_item, f.rate * 100, ratio);
    }
  }
  figures p = measure(db, "p1000", FIRST * 1000LL),
          pf1 = measure(db, "pf1000", FIRST * 1000LL);
  printf("  INFO %-12s %9lld %6lld %10.2f %7.3f%% %10.2f %7.3f%% %6.2f\n",
         "1000x 0.001", p.items, p.layers, p.bits_per_item, p.rate * 100,
         pf1.bits_per_item, pf1.rate * 100, p.bits_per_item / pf1.bits_per_item);
  print_layers(db, "s1000", 0.01);
  print_layers(db, "p1000", 0.001);
  printf("  INFO bits per item at 1000x vs a fixed store, fpr 0.01: %.2f\n",
         ratio1000);
  printf("  INFO the same with every layer exactly full, from bloom_plan's"
         " sizes, fpr 0.001:");
  const double tightenings[] = {0.5, 0.8, 0.85, 0.9, 0.95};
  for (int g = 2; g <= 4; g += 2)
    for (size_t t = 0; t < sizeof tightenings / sizeof *tightenings; t++)
      printf("%s growth %d r %.2f: %.2f", t ? "," : "\n  INFO  ", g,
             tightenings[t], schedule_ratio(db, g, tightenings[t], 0.001));
  printf("\n");
  target("bits per item at 1000x vs a fixed store, fpr 0.001",
         p.bits_per_item / pf1.bits_per_item, 1.5);

  sqlite3_close(db);
  printf("  scalable targets failed: %d (%.0f s)\n", failures, now() - t_start);
  return 0;
}
