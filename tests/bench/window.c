/*
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** make bench-window: what a store that forgets (bloom_store with a window)
** costs, as ratios measured side by side in one run.
**
**   space    the export's bytes after two windows at a steady rate
**            (capacity = the items of one window, fpr 0.001, the events
**            clock) over a fixed store's sized for one window, for
**            G = 2, 4, 8 and without capacity at G = 4
**   insert   autocommit single-row INSERTs (WAL, synchronous = NORMAL)
**            into the windowed store (G = 4, wall clock) and into a fixed
**            store of the same bytes; rounds interleaved, medians
**   probe    a prepared SELECT EXISTS of absent ids, the same two stores
**   expiry   the one INSERT whose write deletes an expired generation of
**            100K items, and one of 1M: time against the chunk rows it
**            deletes
**   a week   events clock, window one day, a steady rate then ten times
**            it for an hour: the size at each 6-hour checkpoint against
**            the size once the first window passed, the false-positive
**            rate over never-inserted ids, and every id inserted within
**            its window answered
**
** Databases go to DIR/window-*.db and are removed after.  WINDOW_BENCH_N
** sets the items per window (default 200000); WINDOW_BENCH_ROUNDS the
** timed rounds (default 5).
** Usage: window BLOOM_SO DIR
*/
#define _DEFAULT_SOURCE
#define BENCH_NAME "bench-window"

#include <sqlite3.h>

#include "sqlbench.h"

static long items_per_window = 200000;
static int rounds = 5;
static const char *dir;

/* ids: a stream's SplitMix64 values, as a SQL function id(stream, i). */
static void sql_id(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  uint64_t s = (uint64_t)sqlite3_value_int64(argv[0]) * 0x100000000ULL +
               (uint64_t)sqlite3_value_int64(argv[1]);
  sqlite3_result_int64(ctx, (sqlite3_int64)(splitmix(&s) >> 1));
}

static sqlite3 *open_bench(const char *name) {
  char path[600];
  snprintf(path, sizeof path, "%s/window-%s.db", dir, name);
  remove(path);
  sqlite3 *db = open_db(path);
  sqlite3_create_function(db, "id", 2, SQLITE_UTF8, NULL, sql_id, NULL, NULL);
  return db;
}

static void close_bench(sqlite3 *db, const char *name) {
  char path[600], extra[620];
  sqlite3_close(db);
  snprintf(path, sizeof path, "%s/window-%s.db", dir, name);
  remove(path);
  snprintf(extra, sizeof extra, "%s-wal", path);
  remove(extra);
  snprintf(extra, sizeof extra, "%s-shm", path);
  remove(extra);
}

/* Inserts ids [from, to) of stream 1 into w, stamped evenly over
** [t0, t0 + seconds), in one statement. */
static void add_ids(sqlite3 *db, long from, long to, sqlite3_int64 t0,
                    double seconds) {
  execf(db, "WITH RECURSIVE s(i) AS (SELECT %ld UNION ALL SELECT i + 1 FROM "
        "s WHERE i + 1 < %ld) INSERT INTO w(value, at) SELECT id(1, i), "
        "%lld + CAST((i - %ld) * %f AS INTEGER) FROM s", from, to,
        (long long)t0, from, to > from ? seconds / (double)(to - from) : 0.0);
}

static sqlite3_int64 export_bytes(sqlite3 *db, const char *table) {
  return q_intf(db, "SELECT length(filter) FROM \"%w\"", table);
}

/* --- space ------------------------------------------------------------- */

/* Two windows of ids at a steady rate, an hour at a time, into w. */
static void two_windows(sqlite3 *db) {
  long per_hour = items_per_window / 24;
  for (long h = 0; h < 48; h++)
    add_ids(db, h * per_hour, (h + 1) * per_hour, 1700006400 + h * 3600, 3600);
}

static double space_ratio(int generations, int with_capacity) {
  sqlite3 *db = open_bench("space");
  char capacity[64] = "";
  if (with_capacity)
    snprintf(capacity, sizeof capacity, ", capacity = %ld", items_per_window);
  execf(db, "CREATE VIRTUAL TABLE w USING bloom_store(fpr = 0.001, window = "
        "86400, generations = %d, clock = 'events'%s); CREATE VIRTUAL TABLE "
        "f USING bloom_store(fpr = 0.001, capacity = %ld)", generations,
        capacity, items_per_window);
  two_windows(db);
  double ratio =
      (double)export_bytes(db, "w") / (double)export_bytes(db, "f");
  close_bench(db, "space");
  return ratio;
}

static void bench_space(void) {
  printf("space at a steady rate, fpr 0.001, %ld items a window: the "
         "export's bytes over a fixed store's for one window\n",
         items_per_window);
  int gs[] = {2, 4, 8};
  for (int i = 0; i < 3; i++) {
    double r = space_ratio(gs[i], 1);
    if (gs[i] == 4)
      target_of("G = 4 (the default), capacity given", r, 1.6, 1);
    else
      printf("  G = %d, capacity given %43.2f   INFO\n", gs[i], r);
  }
  printf("  G = 4, no capacity (sized from the generation before) %11.2f"
         "   INFO\n", space_ratio(4, 0));
}

/* --- insert, probe ------------------------------------------------------ */

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, by_value);
  return v[n / 2];
}

/* Seconds for n statements `sql` with ?1 = id(stream, i). */
static double timed(sqlite3 *db, const char *sql, int stream, int n) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  uint64_t s = (uint64_t)stream << 40;
  double t = now();
  for (int i = 0; i < n; i++) {
    sqlite3_bind_int64(st, 1, (sqlite3_int64)(splitmix(&s) >> 1));
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) die(db, sql);
    sqlite3_reset(st);
  }
  t = now() - t;
  sqlite3_finalize(st);
  return t;
}

static void bench_insert_probe(void) {
  sqlite3 *db = open_bench("speed");
  /* at the steady state: two windows in, G + 1 generations live; inserts
  ** without `at` go to the store's time */
  execf(db, "CREATE VIRTUAL TABLE w USING bloom_store(fpr = 0.001, window = "
        "'1 day', capacity = %ld, clock = 'events')", items_per_window);
  two_windows(db);
  /* the fixed store of the same bytes: its capacity found by bloom_plan */
  sqlite3_int64 bytes = export_bytes(db, "w");
  sqlite3_int64 cap = items_per_window;
  while (q_intf(db, "SELECT bits / 8 FROM bloom_plan(%lld, 0.001)",
                (long long)cap) < bytes)
    cap += cap / 8;
  execf(db, "CREATE VIRTUAL TABLE f USING bloom_store(fpr = 0.001, capacity "
        "= %lld); INSERT INTO f(value) SELECT id(1, value) FROM (WITH "
        "RECURSIVE s(value) AS (SELECT 0 UNION ALL SELECT value + 1 FROM s "
        "WHERE value < %ld) SELECT value FROM s)", (long long)cap,
        items_per_window);
  double ins[2][16], probe[2][16];
  const char *names[2] = {"w", "f"};
  for (int r = 0; r < rounds && r < 16; r++)
    for (int k = 0; k < 2; k++) {
      int j = (r + k) % 2; /* the order turned each round */
      char sql[160];
      snprintf(sql, sizeof sql, "INSERT INTO %s(value) VALUES (?1)",
               names[j]);
      ins[j][r] = timed(db, sql, 10 + r, 2000);
      snprintf(sql, sizeof sql, "SELECT EXISTS (SELECT 1 FROM %s WHERE value "
               "= ?1)", names[j]);
      probe[j][r] = timed(db, sql, 100 + r, 20000);
    }
  double iw = median(ins[0], rounds), iff = median(ins[1], rounds);
  double pw = median(probe[0], rounds), pf = median(probe[1], rounds);
  printf("insert and probe: a windowed store (G = 4, two windows in, %lld "
         "bytes) and a fixed store of capacity %lld\n", (long long)bytes,
         (long long)cap);
  printf("  autocommit insert: windowed %.1f us, fixed %.1f us      INFO\n",
         iw / 2000 * 1e6, iff / 2000 * 1e6);
  target_of("autocommit insert, windowed / fixed", iw / iff, 1.3, 1);
  printf("  absent probe: windowed %.2f us, fixed %.2f us          INFO\n",
         pw / 20000 * 1e6, pf / 20000 * 1e6);
  target_of("probe of an absent id, windowed / fixed", pw / pf, 2.0, 1);
  close_bench(db, "speed");
}

/* --- expiry ------------------------------------------------------------ */

/* Seconds of a plain DELETE of `rows` rows as large as the store's chunks,
** from a table of them in the same database, read first as the store's
** were: what freeing those pages costs SQLite alone. */
static double plain_delete(sqlite3 *db, sqlite3_int64 rows) {
  execf(db, "CREATE TABLE plain(id INTEGER PRIMARY KEY, data BLOB NOT NULL);"
        "WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE"
        " i + 1 < %lld) INSERT INTO plain SELECT (1 << 40) + i, randomblob("
        "(SELECT max(length(data)) FROM w_chunks)) FROM s", (long long)rows);
  q_int(db, "SELECT sum(length(data)) FROM plain");
  exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  double t = now();
  exec(db, "DELETE FROM plain WHERE id BETWEEN 1 << 40 AND (2 << 40) - 1");
  return now() - t;
}

/* Seconds of the INSERT that expires a generation of n items, of a plain
** DELETE of as many rows (*plain), and the chunk rows deleted. */
static double expiry_of(long n, double *plain, sqlite3_int64 *rows) {
  sqlite3 *db = open_bench("expiry");
  execf(db, "CREATE VIRTUAL TABLE w USING bloom_store(fpr = 0.001, window = "
        "4000, generations = 4, capacity = %ld, clock = 'events')", 4 * n);
  add_ids(db, 0, n, 1000000, 900);  /* one generation of n */
  *rows = q_int(db, "SELECT count(*) FROM w_chunks");
  exec(db, "INSERT INTO w(value, at) VALUES (1, 1004000)");
  /* generation 1000 is live until the store's time reaches 1005000; the
  ** WAL emptied first, so that no automatic checkpoint lands in the time */
  exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  double t = now();
  exec(db, "INSERT INTO w(value, at) VALUES (2, 1005000)");
  t = now() - t;
  if (q_int(db, "SELECT count(*) FROM w WHERE generation = 1000") != 0)
    die(db, "the generation did not expire");
  *plain = plain_delete(db, *rows);
  close_bench(db, "expiry");
  return t;
}

static void bench_expiry(void) {
  long sizes[2] = {100000, 1000000};
  double beyond[2];
  printf("expiry: the INSERT whose write deletes an expired generation, "
         "against a plain DELETE of as many rows (medians of %d)\n", rounds);
  for (int i = 0; i < 2; i++) {
    double t[16], plain[16], extra[16];
    sqlite3_int64 rows = 0;
    for (int r = 0; r < rounds; r++) {
      t[r] = expiry_of(sizes[i], &plain[r], &rows);
      extra[r] = t[r] - plain[r];
    }
    beyond[i] = median(extra, rounds);
    printf("  %7ld items, %5lld chunk rows: %7.2f ms, plain DELETE %7.2f ms, "
           "beyond %6.2f ms   INFO\n", sizes[i], (long long)rows,
           median(t, rounds) * 1e3, median(plain, rounds) * 1e3,
           beyond[i] * 1e3);
  }
  /* beyond the pages freed: the fixed part, a few rows (0.1 ms at least,
  ** the timer's noise) */
  double floor = 1e-4;
  target_of("1M over 100K, beyond the pages freed",
            (beyond[1] > floor ? beyond[1] : floor) /
                (beyond[0] > floor ? beyond[0] : floor), 1.5, 1);
}

/* --- a simulated week -------------------------------------------------- */

typedef struct week {
  sqlite3 *db;
  long count, per_hour;
  sqlite3_int64 steady, worst_size, missed;
  double worst_fp;
} week;

static void week_checkpoint(week *k, long hour) {
  long window_ids = 24 * k->per_hour;
  long from = k->count > window_ids ? k->count - window_ids : 0;
  k->missed += q_intf(k->db, "WITH RECURSIVE s(i) AS (SELECT %ld UNION ALL "
                      "SELECT i + 1 FROM s WHERE i + 1 < %ld) SELECT "
                      "count(*) FROM s WHERE NOT EXISTS (SELECT 1 FROM w "
                      "WHERE value = id(1, i))", from, k->count);
  double fp = (double)q_int(k->db, "WITH RECURSIVE s(i) AS (SELECT 0 UNION "
                            "ALL SELECT i + 1 FROM s WHERE i < 99999) SELECT "
                            "count(*) FROM s WHERE EXISTS (SELECT 1 FROM w "
                            "WHERE value = id(2, i))") / 100000.0;
  if (fp > k->worst_fp) k->worst_fp = fp;
  sqlite3_int64 size = export_bytes(k->db, "w");
  if (hour == 30) k->steady = size;
  /* after the first window and the burst's generations aside */
  int burst_live = hour >= 72 && hour <= 72 + 30 + 6;
  if (hour >= 30 && !burst_live && size > k->worst_size) k->worst_size = size;
}

static void bench_week(void) {
  week k = {0};
  k.db = open_bench("week");
  k.per_hour = items_per_window / 24;
  exec(k.db, "CREATE VIRTUAL TABLE w USING bloom_store(fpr = 0.001, window "
       "= '1 day', clock = 'events')");
  for (long h = 0; h < 7 * 24; h++) {
    long n = h == 72 ? 10 * k.per_hour : k.per_hour; /* the burst */
    add_ids(k.db, k.count, k.count + n, 1700006400 + h * 3600, 3600);
    k.count += n;
    if ((h + 1) % 6 == 0) week_checkpoint(&k, h + 1);
  }
  printf("a simulated week, events clock, window 1 day, %ld ids an hour, "
         "ten times that in hour 72\n", k.per_hour);
  printf("  ids missed inside their window: %lld; worst false-positive "
         "rate %.5f   INFO\n", (long long)k.missed, k.worst_fp);
  if (k.missed) failures++;
  target_of("false-positive rate, worst over the week / fpr",
            k.worst_fp / 0.001, 1.0, 1);
  target_of("size once a window passed (burst aside) / steady size",
            (double)k.worst_size / (double)k.steady, 1.2, 1);
  close_bench(k.db, "week");
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: window BLOOM_SO DIR\n");
    return 2;
  }
  so_path = argv[1];
  dir = argv[2];
  const char *n = getenv("WINDOW_BENCH_N"), *r = getenv("WINDOW_BENCH_ROUNDS");
  if (n) items_per_window = atol(n);
  if (r) rounds = atoi(r);
  if (items_per_window < 1000 || rounds < 1 || rounds > 16) {
    fprintf(stderr, "WINDOW_BENCH_N >= 1000, 1 <= WINDOW_BENCH_ROUNDS <= 16\n");
    return 2;
  }
  bench_space();
  bench_insert_probe();
  bench_expiry();
  bench_week();
  printf("%s\n", failures ? "some targets missed" : "every target met");
  return failures ? 1 : 0;
}
