/*
** make bench-window: what a windowed store (a store that forgets) costs
** against a fixed bloom_store, as ratios measured side by side in one run.
** Every store is a bloom_store(fpr = 0.001, window = 86400, clock =
** 'events') fed explicit `at` values, so simulated days run at full speed;
** databases are files on disk, SQLite's default settings (rollback
** journal, synchronous = FULL, default cache) unless WAL is named.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   space    a steady rate of N items a window for three windows, G = 2, 4,
**            8 and 16, without capacity (the default), with
**            capacity = N, and with 1.05 N and 1.1 N (INFO): length(filter)
**            (the export: the live generations' layers at full size) after
**            each generation once the first generation has expired (the
**            store settled: (1 + 1/G) windows), for two windows, against a
**            fixed bloom_store(capacity = N, fpr = 0.001) holding N items;
**            chunk bytes (sum(length(data))) beside it.  Target: the
**            store's default G (read from a store made without it) with
**            capacity = N, as the fixed store is told, at most 1.6x (the
**            max over the samples; the mean is printed too); without
**            capacity, INFO.
**            An insert the store refuses is printed and fails the target.
**   insert   autocommit INSERT (value, at) into a windowed store (default G,
**            capacity = N) pre-filled for two windows, against INSERT
**            (value) into a fixed store of the same export size holding the
**            windowed store's live values; the same new values into both,
**            batches alternated, the order turned each round; default
**            settings, then WAL + synchronous = NORMAL.  Target: at most
**            1.3x (median of the rounds' ratios).
**   probe    a prepared SELECT EXISTS (SELECT 1 FROM s WHERE value = ?) of
**            absent values into the same two stores (target: at most 2x)
**            and of present ones (INFO; every one must answer 1); absent
**            probes into stores of G = 2, 4, 8 and 16 against the same
**            fixed store's (INFO: what G costs a probe).
**   expiry   a generation of 100K, 300K and 1M items (capacity sized so it
**            holds them in one layer) expired by the next autocommit
**            insert, whose `at` moves the events clock past it; the chunk
**            rows and file pages (freelist_count) it freed; beside it,
**            DELETE of the same rows copied into a plain table (id INTEGER
**            PRIMARY KEY, data BLOB) in the same database, autocommit.
**            Target: (store / plain) at 1M at most 1.5x (store / plain) at
**            100K: beyond what deleting its pages costs, expiring 1M items
**            costs no more than expiring 100K.
**   week     a simulated week: R items a day (window = 1 day, default G),
**            then ten times R for one hour (12:00 of day 4), then R again;
**            after each generation: the export's and the chunk rows' size
**            against the steady size (the median of the samples after the
**            first window, before the burst), the false-positive rate of
**            the export over a fixed set of never-inserted values
**            (bloom_test), and false negatives: every value stamped within
**            the last window tested on the export, and 10,000 of them
**            (SplitMix64, seed printed) probed through the store.  Without
**            capacity, with capacity = R, and without capacity at R / 10.
**            Targets: size within 1.2x steady at every sample after the
**            first window except while the burst's generation is live,
**            and after it expired; rate <= fpr at every sample; no false
**            negative.  A week whose insert the store refuses stops there
**            and fails.
**
** Environment (defaults in brackets; the default run takes about a minute
** on an idle 2-core machine, and a few tens of MB of disk):
**   WINDOW_BENCH_DIR      the databases' directory [/tmp]; window-*.db
**                         there are made again by every run, and removed
**   WINDOW_BENCH_ITEMS    N, items a window for space, insert and probe
**                         [1000000]
**   WINDOW_BENCH_EXPIRE   generation sizes timed by expiry, at most 8
**                         [100000,300000,1000000]
**   WINDOW_BENCH_RATE     R, items a day in the week [200000]
**   WINDOW_BENCH_DAYS     days simulated, at least 6 [7]
**   WINDOW_BENCH_PROBES   never-inserted values a week sample tests
**                         [1000000]
**   WINDOW_BENCH_ROUNDS   interleaved rounds of insert, probe and expiry,
**                         at most 15 [7]
** Usage: window BLOOM_SO
*/
#define _DEFAULT_SOURCE

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_NAME "window bench"
#include "machine.h"
#include "sqlbench.h"

#define DAY 86400LL
#define T0 1767225600LL /* 2026-01-01 00:00 UTC: a multiple of a day */
#define FPR 0.001
#define MAX_ROUNDS 15

/* Id streams: stored items, never-inserted values, the burst's items, the
** timed inserts' new ids (one stream per round and part). */
enum { S_ITEMS = 0, S_ABSENT = 1, S_BURST = 2, S_NEW = 16 };

static const char *dir = "/tmp";
static long long n_items, rate, days, absent_probes;
static int rounds;
static int default_g; /* the store's, read at the start */

static long long env_ll(const char *name, long long dflt) {
  const char *v = getenv(name);
  return v && *v ? atoll(v) : dflt;
}

/* The i-th 63-bit id of a stream: SplitMix64 of (stream, i). */
static sqlite3_int64 wid_of(uint64_t stream, uint64_t i) {
  uint64_t state = (stream << 40) + i;
  return (sqlite3_int64)(splitmix(&state) >> 1);
}

static void wid(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_int64(ctx, wid_of((uint64_t)sqlite3_value_int64(argv[0]),
                                   (uint64_t)sqlite3_value_int64(argv[1])));
}

/* A new database dir/window-<name>.db with the extension and wid(stream,
** i): SQLite's default settings (open_db_with's WAL undone), or WAL with
** synchronous = NORMAL. */
static sqlite3 *open_fresh(const char *name, int wal) {
  char path[512];
  snprintf(path, sizeof path, "%s/window-%s.db", dir, name);
  const char *suffixes[] = {"", "-journal", "-wal", "-shm"};
  for (int i = 0; i < 4; i++) {
    char file[540];
    snprintf(file, sizeof file, "%s%s", path, suffixes[i]);
    unlink(file);
  }
  sqlite3 *db = open_db_with(
      path, wal ? "" : "PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL");
  if (sqlite3_create_function(db, "wid", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                              NULL, wid, NULL, NULL) != SQLITE_OK)
    die(db, "wid");
  return db;
}

static void close_db(sqlite3 *db, const char *name) {
  sqlite3_close(db);
  char path[512];
  snprintf(path, sizeof path, "%s/window-%s.db", dir, name);
  unlink(path);
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  return st;
}

/* The time of item i of a stream of n a window, from T0. */
static long long at_of(long long i, long long n, long long window) {
  return T0 + i * window / n;
}

/* Runs sql in a transaction of its own: NULL, or the error (rolled back;
** static until the next call). */
static const char *try_write(sqlite3 *db, char *sql) {
  static char msg[256];
  char *err = NULL;
  exec(db, "BEGIN");
  int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
  sqlite3_free(sql);
  if (rc == SQLITE_OK) {
    exec(db, "COMMIT");
    return NULL;
  }
  snprintf(msg, sizeof msg, "%s", err ? err : sqlite3_errmsg(db));
  sqlite3_free(err);
  if (!sqlite3_get_autocommit(db)) exec(db, "ROLLBACK");
  return msg;
}

/* Adds items [lo, hi) of S_ITEMS at n a window (`at` from at_of) to the
** windowed store `name`, in one transaction: NULL, or the error. */
static const char *add_items(sqlite3 *db, const char *name, long long lo,
                             long long hi, long long n) {
  if (hi <= lo) return NULL;
  return try_write(
      db, sqlite3_mprintf(
              "INSERT INTO \"%w\"(value, at) WITH RECURSIVE c(i) AS (SELECT "
              "%lld UNION ALL SELECT i + 1 FROM c WHERE i < %lld) SELECT "
              "wid(%d, i), %lld + i * %lld / %lld FROM c",
              name, lo, hi - 1, S_ITEMS, T0, DAY, n));
}

/* add_items, which must not fail. */
static void add_items_or_die(sqlite3 *db, const char *name, long long lo,
                             long long hi, long long n) {
  const char *err = add_items(db, name, lo, hi, n);
  if (err) {
    fprintf(stderr, BENCH_NAME ": %s\n", err);
    exit(2);
  }
}

/* Adds items [lo, hi) of a stream to the fixed store `name` (no `at`). */
static void add_fixed(sqlite3 *db, const char *name, int stream, long long lo,
                      long long hi) {
  if (hi <= lo) return;
  exec(db, "BEGIN");
  execf(db,
        "INSERT INTO \"%w\"(value) WITH RECURSIVE c(i) AS (SELECT %lld UNION "
        "ALL SELECT i + 1 FROM c WHERE i < %lld) SELECT wid(%d, i) FROM c",
        name, lo, hi - 1, stream);
  exec(db, "COMMIT");
}

static long long export_bytes(sqlite3 *db, const char *name) {
  return q_intf(db, "SELECT length(filter) FROM \"%w\"", name);
}

static long long chunk_bytes(sqlite3 *db, const char *name) {
  return q_intf(db, "SELECT coalesce(sum(length(data)), 0) FROM \"%w_chunks\"",
                name);
}

/* The most layers a live generation of `name` has. */
static long long max_layers(sqlite3 *db, const char *name) {
  return q_intf(db,
                "SELECT max(value) FROM \"%w_config\" WHERE key GLOB "
                "'gen.*.layers'",
                name);
}

static void print_range(const char *what, const double *v, int n,
                        const char *unit) {
  double lo, hi;
  minmax(v, n, &lo, &hi);
  printf("  INFO %-53s %8.2f %s (range %.2f-%.2f)\n", what, median(v, n), unit,
         lo, hi);
}

/* ------------------------------------------------------------- space */

static void section_space(void) {
  printf("\n## Space at a steady rate: %lld items a window, fpr = %g, "
         "SQLite's default settings\n\n",
         n_items, FPR);
  sqlite3 *db = open_fresh("space", 0);
  execf(db, "CREATE VIRTUAL TABLE f USING bloom_store(capacity = %lld, "
            "fpr = %g)",
        n_items, FPR);
  add_fixed(db, "f", S_ITEMS, 0, n_items);
  double fixed_export = (double)export_bytes(db, "f");
  double fixed_chunks = (double)chunk_bytes(db, "f");
  printf("fixed bloom_store(capacity = %lld, fpr = %g) holding %lld items: "
         "export %.0f bytes, chunk rows %.0f bytes\n\n",
         n_items, FPR, n_items, fixed_export, fixed_chunks);
  printf("| G | capacity | samples | export / fixed: max | mean | chunk "
         "bytes / fixed: max | mean | layers a generation (max) |\n");
  printf("|--:|---------:|--------:|------:|-----:|------:|-----:|--:|\n");
  const int gs[] = {2, 4, 8, 16};
  /* capacity: none (the default), N, and N with 5% and 10% to spare
  ** (INFO) */
  const char *caps[] = {"none", "N", "1.05 N", "1.1 N"};
  const long long cap_of[] = {0, n_items, n_items * 105 / 100,
                              n_items * 11 / 10};
  double target_max[2] = {0, 0};
  const char *target_err[2] = {NULL, NULL};
  static char err_copy[2][256];
  for (int gi = 0; gi < 4; gi++)
    for (int mode = 0; mode < 4; mode++) {
      int g = gs[gi];
      char args[160] = "";
      if (mode)
        snprintf(args, sizeof args, ", capacity = %lld", cap_of[mode]);
      execf(db, "CREATE VIRTUAL TABLE w USING bloom_store(fpr = %g, window = "
                "%lld, generations = %d, clock = 'events'%s)",
            FPR, DAY, g, args);
      double e_max = 0, e_sum = 0, c_max = 0, c_sum = 0;
      long long layers = 0;
      int samples = 0;
      const char *err = NULL;
      for (int k = 0; k < 3 * g + 1 && !err; k++) {
        err = add_items(db, "w", k * n_items / g, (k + 1) * n_items / g,
                        n_items);
        /* Steady: the first generation has expired (a store told no
        ** capacity sizes it from nothing). */
        if (err || k < g + 1) continue;
        double e = (double)export_bytes(db, "w") / fixed_export;
        double c = (double)chunk_bytes(db, "w") / fixed_chunks;
        long long l = max_layers(db, "w");
        e_max = e > e_max ? e : e_max;
        c_max = c > c_max ? c : c_max;
        e_sum += e;
        c_sum += c;
        layers = l > layers ? l : layers;
        samples++;
      }
      if (err)
        printf("| %d | %s | %d | insert failed: %s | | | | |\n", g, caps[mode],
               samples, err);
      else
        printf("| %d | %s | %d | %.2f | %.2f | %.2f | %.2f | %lld |\n", g,
               caps[mode], samples, e_max, e_sum / samples, c_max,
               c_sum / samples, layers);
      if (g == default_g && mode < 2) {
        target_max[mode] = e_max;
        if (err) {
          snprintf(err_copy[mode], sizeof err_copy[mode], "%s", err);
          target_err[mode] = err_copy[mode];
        }
      }
      exec(db, "DROP TABLE w");
    }
  printf("\n");
  /* The target is for a store told its items a window, as the fixed store
  ** it is measured against is; without capacity a generation is sized from
  ** the ones before it with three standard deviations to spare (INFO). */
  for (int mode = 0; mode < 2; mode++) {
    char name[96];
    snprintf(name, sizeof name, "space, G = %d, %s: export / fixed (max)",
             default_g, mode ? "capacity = N" : "no capacity");
    if (mode == 0 && !target_err[mode]) {
      printf("  INFO %-53s %6.2f\n", name, target_max[mode]);
    } else if (target_err[mode]) {
      printf("  %-58s  error   FAIL (%s)\n", name, target_err[mode]);
      failures++;
    } else {
      target_of(name, target_max[mode], 1.6, 1);
    }
  }
  close_db(db, "space");
}

/* ---------------------------------------------------- insert and probe */

#define PROBES 20000 /* probes of a kind a store a round */

/* Autocommit inserts of values wid(stream, 0..batch-1), into the windowed
** store (with `at` from *cursor on, at n_items a window) or the fixed one;
** microseconds an insert. */
static double timed_inserts(sqlite3_stmt *st, int windowed, int stream,
                            int batch, long long *cursor) {
  double t0 = now();
  for (int i = 0; i < batch; i++) {
    sqlite3_bind_int64(st, 1, wid_of((uint64_t)stream, (uint64_t)i));
    if (windowed)
      sqlite3_bind_int64(st, 2, at_of((*cursor)++, n_items, DAY));
    if (sqlite3_step(st) != SQLITE_DONE) die(sqlite3_db_handle(st), "insert");
    sqlite3_reset(st);
  }
  return (now() - t0) / batch * 1e6;
}

/* Prepared EXISTS probes of wid(stream, first + (shift + j * step) % len)
** for j < PROBES; nanoseconds a probe.  *hits counts the answers 1. */
static double timed_probes(sqlite3_stmt *st, int stream, long long first,
                           long long shift, long long step, long long len,
                           long long *hits) {
  double t0 = now();
  for (long long j = 0; j < PROBES; j++) {
    long long i = first + (shift + j * step) % len;
    sqlite3_bind_int64(st, 1, wid_of((uint64_t)stream, (uint64_t)i));
    if (sqlite3_step(st) != SQLITE_ROW) die(sqlite3_db_handle(st), "probe");
    *hits += sqlite3_column_int(st, 0);
    sqlite3_reset(st);
  }
  return (now() - t0) / PROBES * 1e9;
}

/* One side against the other, each round's ratio, reported by the median
** (sqlbench.h). */
static void ratio_rounds(const char *what, const double *a, const double *b,
                         int n, double limit, int target) {
  double r[MAX_ROUNDS] = {0};
  for (int i = 0; i < n; i++) r[i] = a[i] / b[i];
  ratio_report(what, r, n, limit, target);
}

/* Absent probes into windowed stores of G = 2, 4, 8 and 16 (capacity =
** 1.05 N: one layer a generation) filled for two windows, and into the
** fixed store (fixed), rounds interleaved: INFO. */
static void probe_sweep(sqlite3 *db, sqlite3_stmt *fixed) {
  const int gs[] = {2, 4, 8, 16};
  sqlite3_stmt *st[5];
  double ns[5][MAX_ROUNDS];
  for (int i = 0; i < 4; i++) {
    char name[16];
    snprintf(name, sizeof name, "g%d", gs[i]);
    execf(db, "CREATE VIRTUAL TABLE %s USING bloom_store(fpr = %g, window = "
              "%lld, generations = %d, clock = 'events', capacity = %lld)",
          name, FPR, DAY, gs[i], n_items * 105 / 100);
    for (int k = 0; k < 2 * gs[i]; k++)
      add_items_or_die(db, name, k * n_items / gs[i],
                       (k + 1) * n_items / gs[i], n_items);
    char *sql = sqlite3_mprintf(
        "SELECT EXISTS (SELECT 1 FROM %s WHERE value = ?)", name);
    st[i] = prepare(db, sql);
    sqlite3_free(sql);
  }
  st[4] = fixed;
  long long hits = 0;
  for (int r = 0; r < rounds; r++)
    for (int j = 0; j < 5; j++) {
      int i = (r + j) % 5;
      ns[i][r] = timed_probes(st[i], S_ABSENT, (long long)(r + 1) * PROBES, 0,
                              1, PROBES, &hits);
    }
  for (int i = 0; i < 4; i++) {
    char what[96];
    snprintf(what, sizeof what,
             "absent probe, G = %d (capacity = 1.05 N) / fixed", gs[i]);
    ratio_rounds(what, ns[i], ns[4], rounds, 0, 0);
    sqlite3_finalize(st[i]);
  }
}

static void section_ops(int wal) {
  const int g = default_g;
  int batch = wal ? 1000 : 500;
  printf("\n## Autocommit INSERT%s: %s\n\n", wal ? "" : " and probes",
         wal ? "WAL, synchronous = NORMAL"
             : "SQLite's default settings (rollback journal, synchronous = "
               "FULL)");
  sqlite3 *db = open_fresh(wal ? "ops-wal" : "ops", wal);
  execf(db, "CREATE VIRTUAL TABLE w USING bloom_store(fpr = %g, window = "
            "%lld, clock = 'events', capacity = %lld)",
        FPR, DAY, n_items);
  for (int k = 0; k < 2 * g; k++)
    add_items_or_die(db, "w", k * n_items / g, (k + 1) * n_items / g,
                     n_items);
  long long live_lo = 2 * n_items - (g + 1) * n_items / g;
  /* A fixed store of the windowed one's export size, holding its live
  ** values: its size from a fixed store of N (an export is its layers at
  ** full size, whatever they hold). */
  long long w_bytes = export_bytes(db, "w");
  execf(db, "CREATE VIRTUAL TABLE sizing USING bloom_store(capacity = %lld, "
            "fpr = %g)",
        n_items, FPR);
  long long capacity =
      (long long)((double)n_items * (double)w_bytes /
                  (double)export_bytes(db, "sizing"));
  exec(db, "DROP TABLE sizing");
  execf(db, "CREATE VIRTUAL TABLE f USING bloom_store(capacity = %lld, "
            "fpr = %g)",
        capacity, FPR);
  add_fixed(db, "f", S_ITEMS, live_lo, 2 * n_items);
  printf("windowed bloom_store(fpr = %g, window = %lld, clock = 'events', "
         "capacity = N), G = %d, N = %lld items a window, filled for 2 "
         "windows: %lld layers a generation, export %lld bytes; fixed bloom_store(capacity = %lld, fpr = %g) "
         "holding its %lld live values: export %lld bytes.  Batches of %d "
         "inserts, %d rounds.\n\n",
         FPR, DAY, g, n_items, max_layers(db, "w"), w_bytes, capacity, FPR,
         2 * n_items - live_lo,
         export_bytes(db, "f"), batch, rounds);
  sqlite3_stmt *ins_w = prepare(db, "INSERT INTO w(value, at) VALUES (?, ?)");
  sqlite3_stmt *ins_f = prepare(db, "INSERT INTO f(value) VALUES (?)");
  long long cursor = 2 * n_items;
  double us_w[MAX_ROUNDS], us_f[MAX_ROUNDS];
  /* One untimed batch each: the caches as in a service. */
  timed_inserts(ins_w, 1, S_NEW + 15, batch, &cursor);
  timed_inserts(ins_f, 0, S_NEW + 15, batch, &cursor);
  for (int r = 0; r < rounds; r++)
    for (int j = 0; j < 2; j++) {
      if ((r + j) % 2 == 0)
        us_w[r] = timed_inserts(ins_w, 1, S_NEW + r, batch, &cursor);
      else
        us_f[r] = timed_inserts(ins_f, 0, S_NEW + r, batch, &cursor);
    }
  sqlite3_finalize(ins_w);
  sqlite3_finalize(ins_f);
  char what[96];
  snprintf(what, sizeof what, "windowed INSERT, %s", wal ? "WAL" : "defaults");
  print_range(what, us_w, rounds, "us");
  snprintf(what, sizeof what, "fixed INSERT, %s", wal ? "WAL" : "defaults");
  print_range(what, us_f, rounds, "us");
  snprintf(what, sizeof what, "autocommit INSERT windowed / fixed, %s",
           wal ? "WAL" : "defaults");
  ratio_rounds(what, us_w, us_f, rounds, 1.3, 1);
  if (!wal) {
    sqlite3_stmt *pw =
        prepare(db, "SELECT EXISTS (SELECT 1 FROM w WHERE value = ?)");
    sqlite3_stmt *pf =
        prepare(db, "SELECT EXISTS (SELECT 1 FROM f WHERE value = ?)");
    double aw[MAX_ROUNDS], af[MAX_ROUNDS], hw[MAX_ROUNDS], hf[MAX_ROUNDS];
    long long fp_w = 0, fp_f = 0, hits_w = 0, hits_f = 0;
    /* Present values: spread over the items of the two windows still live
    ** now that the timed inserts have opened a generation (its first
    ** insert expired the oldest), the same in both stores. */
    long long now_gen = (cursor - 1) * g / n_items;
    long long present_lo = (now_gen - g) * n_items / g;
    if (present_lo < live_lo) present_lo = live_lo;
    long long len = 2 * n_items - present_lo;
    long long step = len / PROBES;
    if (step < 1) step = 1;
    timed_probes(pw, S_ABSENT, 0, 0, 1, PROBES, &fp_w); /* warm */
    timed_probes(pf, S_ABSENT, 0, 0, 1, PROBES, &fp_f);
    fp_w = fp_f = 0;
    for (int r = 0; r < rounds; r++)
      for (int j = 0; j < 2; j++) {
        long long first = (long long)(r + 1) * PROBES;
        if ((r + j) % 2 == 0) {
          aw[r] = timed_probes(pw, S_ABSENT, first, 0, 1, PROBES, &fp_w);
          hw[r] = timed_probes(pw, S_ITEMS, present_lo, r, step, len, &hits_w);
        } else {
          af[r] = timed_probes(pf, S_ABSENT, first, 0, 1, PROBES, &fp_f);
          hf[r] = timed_probes(pf, S_ITEMS, present_lo, r, step, len, &hits_f);
        }
      }
    probe_sweep(db, pf);
    sqlite3_finalize(pw);
    sqlite3_finalize(pf);
    print_range("windowed probe, absent", aw, rounds, "ns");
    print_range("fixed probe, absent", af, rounds, "ns");
    print_range("windowed probe, present", hw, rounds, "ns");
    print_range("fixed probe, present", hf, rounds, "ns");
    ratio_rounds("probe of an absent value, windowed / fixed", aw, af, rounds,
                 2.0, 1);
    ratio_rounds("probe of a present value, windowed / fixed", hw, hf, rounds,
                 0, 0);
    long long n = (long long)rounds * PROBES;
    printf("  INFO present values found: windowed %lld of %lld, fixed %lld of "
           "%lld; absent ones answered 1: windowed %lld, fixed %lld of %lld\n",
           hits_w, n, hits_f, n, fp_w, fp_f, n);
    if (hits_w != n) {
      printf("  FAIL a present value was missed by the windowed store\n");
      failures++;
    }
  }
  close_db(db, wal ? "ops-wal" : "ops");
}

/* ------------------------------------------------------------ expiry */

#define MAX_SIZES 8

/* Generations of sizes[] items each expired by an autocommit insert, beside
** the autocommit DELETE of the same rows from a plain table. */
static void section_expiry(int wal, const long long *sizes, int n_sizes) {
  const int g = default_g;
  const long long span = DAY / g;
  int n_rounds = rounds;
  printf("\n## Expiring a generation: %s\n\n",
         wal ? "WAL, synchronous = NORMAL"
             : "SQLite's default settings (rollback journal, synchronous = "
               "FULL)");
  sqlite3 *db = open_fresh(wal ? "expire-wal" : "expire", wal);
  exec(db, "CREATE TABLE plain(id INTEGER PRIMARY KEY, data BLOB NOT NULL)");
  double t_store[MAX_SIZES][MAX_ROUNDS], t_plain[MAX_SIZES][MAX_ROUNDS];
  long long rows[MAX_SIZES], pages[MAX_SIZES], layers[MAX_SIZES];
  for (int s = 0; s < n_sizes; s++) {
    /* Layer 0 holds 1.25x the generation: one layer, not full. */
    execf(db, "CREATE VIRTUAL TABLE e%d USING bloom_store(fpr = %g, window = "
              "%lld, clock = 'events', capacity = %lld)",
          s, FPR, DAY, sizes[s] * g * 5 / 4);
  }
  for (int r = 0; r < n_rounds; r++)
    for (int s0 = 0; s0 < n_sizes; s0++) {
      int s = (s0 + r) % n_sizes; /* the order turns each round */
      char name[16];
      snprintf(name, sizeof name, "e%d", s);
      /* Generation a, well past the last round's (expired by this fill's
      ** first insert), filled with sizes[s] items over its span. */
      long long a = T0 + (long long)r * 12 * span;
      long long n = sizes[s];
      exec(db, "BEGIN");
      execf(db,
            "INSERT INTO %s(value, at) WITH RECURSIVE c(i) AS (SELECT 0 "
            "UNION ALL SELECT i + 1 FROM c WHERE i < %lld) SELECT "
            "wid(%d, %lld + i), %lld + i * %lld / %lld FROM c",
            name, n - 1, S_NEW + 8, (long long)(r * n_sizes + s) << 24, a,
            span, n);
      long long slot = (a / span) % (g + 1);
      long long lo = slot << 40, hi = ((slot + 1) << 40) - 1;
      execf(db, "DELETE FROM plain; INSERT INTO plain SELECT id, data FROM "
                "%s_chunks WHERE id BETWEEN %lld AND %lld",
            name, lo, hi);
      exec(db, "COMMIT");
      rows[s] = q_intf(db, "SELECT count(*) FROM %s_chunks WHERE id BETWEEN "
                           "%lld AND %lld",
                       name, lo, hi);
      layers[s] = max_layers(db, name);
      char *expire = sqlite3_mprintf(
          "INSERT INTO %s(value, at) VALUES (wid(%d, %d), %lld)", name,
          S_NEW + 9, r * n_sizes + s, a + (g + 1) * span);
      char *del = sqlite3_mprintf(
          "DELETE FROM plain WHERE id BETWEEN %lld AND %lld", lo, hi);
      for (int j = 0; j < 2; j++) {
        if (wal) exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
        if ((r + j) % 2 == 0) {
          long long free0 = q_int(db, "PRAGMA freelist_count");
          double t0 = now();
          exec(db, expire);
          t_store[s][r] = (now() - t0) * 1e3;
          pages[s] = q_int(db, "PRAGMA freelist_count") - free0;
        } else {
          double t0 = now();
          exec(db, del);
          t_plain[s][r] = (now() - t0) * 1e3;
        }
      }
      sqlite3_free(expire);
      sqlite3_free(del);
      long long left = q_intf(db, "SELECT count(*) FROM %s_chunks WHERE id "
                                  "BETWEEN %lld AND %lld",
                              name, lo, hi);
      if (left > 1) { /* the new generation's own rows: one chunk */
        printf("  FAIL %s: %lld chunk rows of the expired generation left\n",
               name, left);
        failures++;
      }
    }
  printf("| items | layers | chunk rows freed | file pages freed | expiring "
         "insert, ms | DELETE from a plain table, ms | store / plain | store "
         "us a row freed |\n");
  printf("|------:|--:|------:|------:|------:|------:|-----:|-----:|\n");
  double ratio[MAX_SIZES];
  for (int s = 0; s < n_sizes; s++) {
    double lo_s, hi_s, lo_p, hi_p, rr[MAX_ROUNDS] = {0}, lo_r, hi_r;
    minmax(t_store[s], n_rounds, &lo_s, &hi_s);
    minmax(t_plain[s], n_rounds, &lo_p, &hi_p);
    for (int r = 0; r < n_rounds; r++) rr[r] = t_store[s][r] / t_plain[s][r];
    minmax(rr, n_rounds, &lo_r, &hi_r);
    ratio[s] = median(rr, n_rounds);
    double ms = median(t_store[s], n_rounds);
    printf("| %lld | %lld | %lld | %lld | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) "
           "| %.2f (%.2f-%.2f) | %.2f |\n",
           sizes[s], layers[s], rows[s], pages[s], ms, lo_s, hi_s,
           median(t_plain[s], n_rounds), lo_p, hi_p, ratio[s], lo_r, hi_r,
           rows[s] ? ms * 1e3 / (double)rows[s] : 0.0);
  }
  printf("(medians of %d rounds, ranges in brackets)\n\n", n_rounds);
  if (n_sizes > 1) {
    char what[96];
    snprintf(what, sizeof what, "expiry %lld / %lld items, over plain, %s",
             sizes[n_sizes - 1], sizes[0], wal ? "WAL" : "defaults");
    target_of(what, ratio[n_sizes - 1] / ratio[0], 1.5, 1);
  }
  close_db(db, wal ? "expire-wal" : "expire");
}

/* -------------------------------------------------------------- week */

#define STORE_SAMPLE 10000 /* values of the window probed through the store */
#define MAX_GENS 512

static void close_week(sqlite3 *db, sqlite3_stmt *a, sqlite3_stmt *b,
                       sqlite3_stmt *c, sqlite3_stmt *d) {
  sqlite3_finalize(a);
  sqlite3_finalize(b);
  sqlite3_finalize(c);
  sqlite3_finalize(d);
  close_db(db, "week");
}

/* One simulated week (or more) into a new store; with_cap: capacity = R. */
static void run_week(int with_cap) {
  const int g = default_g;
  const long long span = DAY / g;
  const long long burst_at = T0 + 3 * DAY + 12 * 3600; /* day 4, 12:00 */
  const long long burst_n = 9 * rate / 24; /* ten times R for the hour */
  const int burst_gen = (int)((burst_at - T0) / span);
  int gens = (int)(days * g);
  if (gens > MAX_GENS) gens = MAX_GENS;
  uint64_t seed = 0x77696e646f77ULL + (uint64_t)with_cap;
  char tag[64];
  snprintf(tag, sizeof tag, "%s, R = %lld",
           with_cap ? "capacity = R" : "no capacity", rate);
  printf("\n### %s, R = %lld a day: bloom_store(fpr = %g, window = %lld, "
         "clock = 'events'%s)\n\nstore probes of values in the window: %d a "
         "sample, SplitMix64 seed 0x%llx\n\n",
         with_cap ? "With capacity" : "Without capacity", rate, FPR, DAY,
         with_cap ? ", capacity = R" : "", STORE_SAMPLE,
         (unsigned long long)seed);
  sqlite3 *db = open_fresh("week", 0);
  char cap[64] = "";
  if (with_cap) snprintf(cap, sizeof cap, ", capacity = %lld", rate);
  execf(db, "CREATE VIRTUAL TABLE w USING bloom_store(fpr = %g, window = "
            "%lld, clock = 'events'%s)",
        FPR, DAY, cap);
  sqlite3_stmt *fp_st = prepare(
      db, "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c "
          "WHERE i < ?2 - 1) SELECT sum(bloom_test(?1, wid(1, i))) FROM c");
  /* Values of the window the export tests 0: items ?2..?3 and the burst's,
  ** those stamped at ?4 or later. */
  char *fn_sql = sqlite3_mprintf(
      "WITH RECURSIVE c(i) AS (SELECT ?2 UNION ALL SELECT i + 1 FROM c WHERE "
      "i < ?3 - 1), d(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM d WHERE j "
      "< %lld), v(x, at) AS (SELECT wid(%d, i), %lld + i * %lld / %lld FROM "
      "c UNION ALL SELECT wid(%d, j), %lld + j * 3600 / %lld FROM d) SELECT "
      "count(*), coalesce(sum(NOT bloom_test(?1, x)), 0) FROM v WHERE at >= "
      "?4 AND at <= ?5",
      burst_n - 1, S_ITEMS, T0, DAY, rate, S_BURST, burst_at, burst_n);
  sqlite3_stmt *fn_st = prepare(db, fn_sql);
  sqlite3_free(fn_sql);
  sqlite3_stmt *probe =
      prepare(db, "SELECT EXISTS (SELECT 1 FROM w WHERE value = ?)");
  sqlite3_stmt *filter_st = prepare(db, "SELECT filter FROM w");
  static double e_of[MAX_GENS], c_of[MAX_GENS], fp_of[MAX_GENS];
  static long long fn_of[MAX_GENS], checked_of[MAX_GENS], layers_of[MAX_GENS],
      items_of[MAX_GENS], t_of[MAX_GENS];
  char failed[320] = "";
  for (int k = 0; k < gens; k++) {
    long long lo_at = T0 + k * span, hi_at = lo_at + span;
    long long lo = k * rate / g, hi = (k + 1) * rate / g;
    char *sql;
    if (hi_at > burst_at && lo_at < burst_at + 3600)
      sql = sqlite3_mprintf(
          "INSERT INTO w(value, at) WITH RECURSIVE c(i) AS (SELECT %lld "
          "UNION ALL SELECT i + 1 FROM c WHERE i < %lld), d(j) AS (SELECT 0 "
          "UNION ALL SELECT j + 1 FROM d WHERE j < %lld) SELECT x, at FROM "
          "(SELECT wid(%d, i) x, %lld + i * %lld / %lld at FROM c UNION ALL "
          "SELECT wid(%d, j), %lld + j * 3600 / %lld FROM d) WHERE at >= "
          "%lld AND at < %lld ORDER BY at",
          lo, hi - 1, burst_n - 1, S_ITEMS, T0, DAY, rate, S_BURST, burst_at,
          burst_n, lo_at, hi_at);
    else
      sql = sqlite3_mprintf(
          "INSERT INTO w(value, at) WITH RECURSIVE c(i) AS (SELECT %lld "
          "UNION ALL SELECT i + 1 FROM c WHERE i < %lld) SELECT wid(%d, i), "
          "%lld + i * %lld / %lld FROM c",
          lo, hi - 1, S_ITEMS, T0, DAY, rate);
    const char *err = try_write(db, sql);
    if (err) { /* the week stops here: the generation's items were lost */
      snprintf(failed, sizeof failed, "day %lld %02lld:00: %s",
               (lo_at - T0) / DAY + 1, (lo_at - T0) % DAY / 3600, err);
      gens = k;
      break;
    }
    long long t = at_of(hi - 1, rate, DAY); /* the store's time */
    t_of[k] = t;
    e_of[k] = (double)export_bytes(db, "w");
    c_of[k] = (double)chunk_bytes(db, "w");
    layers_of[k] = max_layers(db, "w");
    items_of[k] = q_int(db, "SELECT sum(items) FROM w");
    if (sqlite3_step(filter_st) != SQLITE_ROW) die(db, "filter");
    const void *blob = sqlite3_column_blob(filter_st, 0);
    int len = sqlite3_column_bytes(filter_st, 0);
    sqlite3_bind_blob(fp_st, 1, blob, len, SQLITE_TRANSIENT);
    sqlite3_bind_blob(fn_st, 1, blob, len, SQLITE_TRANSIENT);
    sqlite3_reset(filter_st);
    sqlite3_bind_int64(fp_st, 2, absent_probes);
    if (sqlite3_step(fp_st) != SQLITE_ROW) die(db, "fp");
    fp_of[k] = (double)sqlite3_column_int64(fp_st, 0) / (double)absent_probes;
    sqlite3_reset(fp_st);
    long long first = hi - rate - rate / g - 1;
    sqlite3_bind_int64(fn_st, 2, first < 0 ? 0 : first);
    sqlite3_bind_int64(fn_st, 3, hi);
    sqlite3_bind_int64(fn_st, 4, t - DAY);
    sqlite3_bind_int64(fn_st, 5, t);
    if (sqlite3_step(fn_st) != SQLITE_ROW) die(db, "fn");
    checked_of[k] = sqlite3_column_int64(fn_st, 0);
    fn_of[k] = sqlite3_column_int64(fn_st, 1);
    sqlite3_reset(fn_st);
    /* Through the store: random values stamped within the window. */
    for (int j = 0; j < STORE_SAMPLE; j++) {
      long long i;
      do
        i = (long long)(splitmix(&seed) % (uint64_t)hi);
      while (at_of(i, rate, DAY) < t - DAY);
      sqlite3_bind_int64(probe, 1, wid_of(S_ITEMS, (uint64_t)i));
      if (sqlite3_step(probe) != SQLITE_ROW) die(db, "probe");
      if (!sqlite3_column_int(probe, 0)) fn_of[k]++;
      sqlite3_reset(probe);
    }
    checked_of[k] += STORE_SAMPLE;
  }
  /* Steady: the median of the samples after the first window, before the
  ** burst. */
  double steady_e[MAX_GENS], steady_c[MAX_GENS];
  int n_steady = 0;
  for (int k = g; k < burst_gen && k < gens; k++) {
    steady_e[n_steady] = e_of[k];
    steady_c[n_steady++] = c_of[k];
  }
  if (failed[0]) {
    printf("  week, %-52s  error   FAIL (%s)\n", tag, failed);
    failures++;
    if (gens == 0) {
      close_week(db, fp_st, fn_st, probe, filter_st);
      return;
    }
  }
  double se = n_steady ? median(steady_e, n_steady) : gens ? e_of[gens - 1] : 1;
  double sc = n_steady ? median(steady_c, n_steady) : gens ? c_of[gens - 1] : 1;
  printf("steady size (median of %d samples, day 2 to the burst): export "
         "%.0f bytes, chunk rows %.0f bytes\n\n",
         n_steady, se, sc);
  printf("| store time | live items | layers (max) | export / steady | chunk "
         "bytes / steady | FP rate | values checked | false negatives |\n");
  printf("|------------|-----------:|--:|------:|------:|---------:|-------:|"
         "--:|\n");
  double worst_out = 0, worst_after = 0, worst_in = 0, worst_fp = 0;
  double worst_c_out = 0;
  long long fn_total = 0;
  for (int k = 0; k < gens; k++) {
    double re = e_of[k] / se, rc = c_of[k] / sc;
    const char *note = "";
    if (k >= burst_gen && k <= burst_gen + g) {
      note = " (burst live)";
      worst_in = re > worst_in ? re : worst_in;
    } else if (k >= g) {
      worst_out = re > worst_out ? re : worst_out;
      worst_c_out = rc > worst_c_out ? rc : worst_c_out;
      if (k > burst_gen + g) worst_after = re > worst_after ? re : worst_after;
    } else {
      note = " (first window)";
    }
    if (k >= g) worst_fp = fp_of[k] > worst_fp ? fp_of[k] : worst_fp;
    fn_total += fn_of[k];
    long long dt = t_of[k] - T0;
    printf("| day %lld %02lld:%02lld%s | %lld | %lld | %.2f | %.2f | %.6f | "
           "%lld | %lld |\n",
           dt / DAY + 1, dt % DAY / 3600, dt % 3600 / 60, note, items_of[k],
           layers_of[k], re, rc, fp_of[k], checked_of[k], fn_of[k]);
  }
  printf("\n");
  char what[128];
  printf("  INFO week, %s: export / steady while the burst is live, max %.2f; "
         "chunk bytes / steady outside it, max %.2f\n",
         tag, worst_in, worst_c_out);
  if (!failed[0]) { /* a week cut short has no targets of its own */
    snprintf(what, sizeof what, "week, %s: export / steady, burst aside", tag);
    target_of(what, worst_out, 1.2, 1);
    snprintf(what, sizeof what, "week, %s: export / steady after burst expired",
             tag);
    target_of(what, worst_after, 1.2, 1);
    snprintf(what, sizeof what, "week, %s: FP rate / fpr (max)", tag);
    target_of(what, worst_fp / FPR, 1.0, 1);
    snprintf(what, sizeof what, "week, %s: false negatives", tag);
    target_of(what, (double)fn_total, 0, 1);
  }
  close_week(db, fp_st, fn_st, probe, filter_st);
}

static void section_week(void) {
  printf("\n## A simulated week: R = %lld items a day, window = 1 day, G = %d, "
         "ten times R for an hour from day 4 12:00, %lld days; SQLite's "
         "default settings; a sample after each generation (%.1f hours), FP "
         "rate over %lld never-inserted values tested on the export\n",
         rate, default_g, days, 24.0 / default_g, absent_probes);
  run_week(0);
  run_week(1);
  /* The default store (no capacity) at a tenth of the rate, which its first
  ** generation can take. */
  long long full_rate = rate;
  rate = rate / 10 / 24 * 24;
  run_week(0);
  rate = full_rate;
}

/* -------------------------------------------------------------- main */

/* The store's default G, as a store made without `generations` records it:
** the figures the targets name are for the default. */
static int read_default_g(void) {
  sqlite3 *db = open_fresh("default", 0);
  execf(db, "CREATE VIRTUAL TABLE d USING bloom_store(window = 86400)");
  int g = (int)q_int(db, "SELECT value FROM d_config WHERE key = "
                         "'generations'");
  close_db(db, "default");
  return g;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: window BLOOM_SO\n");
    return 2;
  }
  so_path = argv[1];
  const char *d = getenv("WINDOW_BENCH_DIR");
  if (d && *d) dir = d;
  n_items = env_ll("WINDOW_BENCH_ITEMS", 1000000) / 16 * 16;
  rate = env_ll("WINDOW_BENCH_RATE", 200000) / 24 * 24;
  days = env_ll("WINDOW_BENCH_DAYS", 7);
  absent_probes = env_ll("WINDOW_BENCH_PROBES", 1000000);
  rounds = (int)env_ll("WINDOW_BENCH_ROUNDS", 7);
  if (rounds < 1) rounds = 1;
  if (rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
  if (n_items < 16 || rate < 24 || days < 6 || absent_probes < 1) {
    fprintf(stderr, BENCH_NAME ": WINDOW_BENCH_ITEMS >= 16, "
            "WINDOW_BENCH_RATE >= 24, WINDOW_BENCH_DAYS >= 6\n");
    return 2;
  }
  long long sizes[MAX_SIZES];
  int n_sizes = 0;
  char list[256];
  const char *e = getenv("WINDOW_BENCH_EXPIRE");
  snprintf(list, sizeof list, "%s",
           e && *e ? e : "100000,300000,1000000");
  for (char *tok = strtok(list, ","); tok && n_sizes < MAX_SIZES;
       tok = strtok(NULL, ","))
    if (atoll(tok) > 0) sizes[n_sizes++] = atoll(tok);

  default_g = read_default_g();
  char load0[64], load1[64];
  read_loadavg(load0, sizeof load0);
  print_machine();
  print_disk(dir);
  printf("\n# Windowed stores (make bench-window)\n\nload average at the "
         "start: %s; databases under %s; N = %lld, R = %lld, %d rounds; "
         "the store's default G = %d\n",
         load0, dir, n_items, rate, rounds, default_g);
  fflush(stdout);
  double t0 = now();
  section_space();
  fflush(stdout);
  section_ops(0);
  section_ops(1);
  fflush(stdout);
  section_expiry(0, sizes, n_sizes);
  section_expiry(1, sizes, n_sizes);
  fflush(stdout);
  section_week();
  read_loadavg(load1, sizeof load1);
  printf("\nload average at the end: %s; %.0f s in all\n", load1, now() - t0);
  printf("window bench: %s (%d target%s failed)\n",
         failures ? "FAIL" : "PASS", failures, failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}
