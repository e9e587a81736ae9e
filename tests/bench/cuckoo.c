/*
** cuckoo.c -- the cuckoo filter's two layouts side by side, in one run:
** layout 1 (any even number of buckets, what cuckoo_build writes now)
** against layout 0 (a power of two of buckets, what version 1.1.0 wrote,
** which the extension still reads and changes).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   build/bench/cuckoo BLOOM_SO   (make bench-cuckoo; make bench runs it)
**   env: BENCH_ROUNDS (default 5), BENCH_CUCKOO_ACCURACY_MAX (largest n
**        whose accuracy is measured, default 10000000),
**        BENCH_CUCKOO_DIR (where the store databases go, default /tmp),
**        BENCH_CUCKOO_ONLY (the sections to run, as digits: "35"),
**        BENCH_CLOCK=cpu (the thread's CPU clock instead of the wall clock)
**
** 1. Space: bits per item of cuckoo_build (the sizing, header included) at
**    40 log-spaced n from 10,000 to 100,000,000, p = 1% and 0.1%, beside
**    layout 0's sizing and bloom_build's.  From the sizings: no filter is
**    built at the largest n.
** 2. Accuracy at capacity: filters of n items (n up to the env's limit),
**    every member tests 1, and the rate over 4,000,000 absent probes.
** 3. The core's insert (filling an empty filter to n items, in a build's
**    order and in random order) and lookup (half members), ns each, at the
**    same n: layout 1 against layout 0 with version 1.1.0's core (a frozen
**    copy, cuckoo_v110.h: today's insert and lookup) and with this
**    version's; in cache (1e5, 1e6) and out of cache (1e7).
** 4. SQL probes, bound cuckoo_test(?1, v) and cuckoo_probe('SELECT ...', v),
**    over 1,000,000 rows: the excess over a count(*) scan of the same rows,
**    for the two layouts' filters of the same n items (1e5, 1e6, 1e7).
** 5. cuckoo_store: autocommit INSERT into a store of capacity 1,000,000
**    holding 500,000 and 950,000 items, and of capacity 996,147 (where
**    version 1.1.0's table is as full as this version's) holding 950,000,
**    layout 1 against a store laid out as version 1.1.0 made it (its rows
**    rewritten to layout 0: a power of two of buckets, no layout row), WAL,
**    synchronous = NORMAL, checkpointed between batches (not timed), with
**    the pages each insert wrote.
** 6. cuckoo_store over its whole life: stores of 8 capacities from 100,000
**    to 400,000 filled from empty to capacity by autocommit inserts, both
**    layouts, the mean time and pages an insert (1.1.0's table is between
**    half and 95% full at capacity, this version's 95%).
**
** Rounds alternate the two layouts (A B, then B A) and print the ratio of
** each round: the machine is shared, so a range is given, not a point.
*/
#define _DEFAULT_SOURCE
#define BENCH_NAME "cuckoo"

#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/bloom.h"
#include "core/cuckoo.h"
#include "core/hash.h"
#include "cuckoo_v110.h"
#include "sqlbench.h"

#define MAX_ROUNDS 21
static int rounds = 5;

/* Seconds on the wall clock, or on the thread's CPU clock with
** BENCH_CLOCK=cpu (time the scheduler gave to other processes left out). */
static clockid_t clock_of_run = CLOCK_MONOTONIC;

static double tnow(void) {
  struct timespec ts;
  clock_gettime(clock_of_run, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(const double *v, int n) {
  double s[MAX_ROUNDS];
  memcpy(s, v, sizeof(double) * (size_t)n);
  qsort(s, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void range_of(const double *v, int n, double *lo, double *hi) {
  *lo = *hi = v[0];
  for (int i = 1; i < n; i++) {
    if (v[i] < *lo) *lo = v[i];
    if (v[i] > *hi) *hi = v[i];
  }
}

static void *xalloc(size_t bytes) {
  void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (p == NULL) {
    fprintf(stderr, "cuckoo: out of memory (%zu bytes)\n", bytes);
    exit(2);
  }
  memset(p, 0, (bytes + 63) / 64 * 64);
  return p;
}

static void load_avg(char *buf, size_t n) {
  FILE *fp = fopen("/proc/loadavg", "r");
  buf[0] = 0;
  if (fp) {
    if (fgets(buf, (int)n, fp)) buf[strcspn(buf, "\n")] = 0;
    fclose(fp);
  }
}

static void print_machine(void) {
  char model[256] = "unknown", line[512], load[128];
  FILE *fp = fopen("/proc/cpuinfo", "r");
  while (fp && fgets(line, sizeof line, fp))
    if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
      snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
      model[strcspn(model, "\n")] = 0;
      break;
    }
  if (fp) fclose(fp);
  struct utsname un;
  if (uname(&un) != 0) strcpy(un.release, "?");
  time_t t = time(NULL);
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
  load_avg(load, sizeof load);
  printf("## Machine\n\n");
  printf("CPU:     %s; %ld CPUs online; L1d %ld KiB, L2 %ld KiB (sysconf)\n",
         model, sysconf(_SC_NPROCESSORS_ONLN),
         sysconf(_SC_LEVEL1_DCACHE_SIZE) / 1024,
         sysconf(_SC_LEVEL2_CACHE_SIZE) / 1024);
  printf("SQLite:  %s, kernel %s, %s\n", sqlite3_libversion(), un.release,
         date);
  printf("load:    %s (/proc/loadavg at the start)\n", load);
  printf("rounds:  %d, layouts interleaved; clock: %s\n\n", rounds,
         clock_of_run == CLOCK_MONOTONIC ? "wall" : "thread CPU");
}

/* ------------------------------------------------------------- 1. space */

static void section_space(void) {
  printf("## 1. Bits per item by the sizings (header included)\n\n");
  const double ps[2] = {0.01, 0.001};
  const double limit[2] = {11.2, 14.5};
  enum { SIZES = 40 };
  double lo[2][3], hi[2][3];
  int below_bloom[2] = {0, 0};
  printf("| n | cuckoo 1%% | 1.1.0's 1%% | Bloom 1%% | cuckoo 0.1%% | 1.1.0's "
         "0.1%% | Bloom 0.1%% |\n|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int i = 0; i < SIZES; i++) {
    uint64_t n = (uint64_t)llround(1e4 * pow(1e4, (double)i / (SIZES - 1)));
    printf("| %llu", (unsigned long long)n);
    for (int j = 0; j < 2; j++) {
      cuckoo_sizing now, old;
      bloom_sizing b;
      if (cuckoo_sizing_for(n, ps[j], FILTER_MIN_FPR, UINT64_MAX, &now) ||
          cuckoo_sizing_for_layout(n, ps[j], FILTER_MIN_FPR, UINT64_MAX,
                                   CUCKOO_LAYOUT_XOR, &old) ||
          bloom_sizing_for(n, ps[j], UINT64_MAX, &b) != BLOOM_SIZING_OK) {
        fprintf(stderr, "cuckoo: cannot size n = %llu\n",
                (unsigned long long)n);
        exit(2);
      }
      double v[3] = {8.0 * (double)now.bytes / (double)n,
                     8.0 * (double)old.bytes / (double)n,
                     8.0 * (double)b.bytes / (double)n};
      for (int k = 0; k < 3; k++) {
        if (i == 0 || v[k] < lo[j][k]) lo[j][k] = v[k];
        if (i == 0 || v[k] > hi[j][k]) hi[j][k] = v[k];
      }
      below_bloom[j] += v[0] < v[2];
      printf(" | %.2f | %.2f | %.2f", v[0], v[1], v[2]);
    }
    printf(" |\n");
  }
  printf("\nOver those %d n, bits per item (least .. most):\n", SIZES);
  for (int j = 0; j < 2; j++)
    printf("  p = %g: cuckoo_build %.2f .. %.2f; layout 0 (1.1.0) %.2f .. "
           "%.2f; bloom_build %.2f .. %.2f; cuckoo smaller than Bloom at "
           "%d of %d\n", ps[j], lo[j][0], hi[j][0], lo[j][1], hi[j][1],
           lo[j][2], hi[j][2], below_bloom[j], SIZES);
  printf("\n");
  target_of("cuckoo bits/item at p = 1%, most over n", hi[0][0], limit[0], 1);
  target_of("cuckoo bits/item at p = 0.1%, most over n", hi[1][0], limit[1],
            1);
  target_of("n at 0.1% where cuckoo is smaller than Bloom (of 40)",
            below_bloom[1], SIZES, 0);
  printf("\n");
}

/* ---------------------------------------------------------- 2. accuracy */

typedef struct filter {
  unsigned char *body;
  cuckoo_shape shape;
  uint64_t bytes;
} filter;

static filter new_filter(uint64_t n, double p, unsigned layout) {
  cuckoo_sizing z;
  if (cuckoo_sizing_for_layout(n, p, FILTER_MIN_FPR, UINT64_MAX, layout, &z)) {
    fprintf(stderr, "cuckoo: cannot size %llu\n", (unsigned long long)n);
    exit(2);
  }
  filter f = {xalloc(z.bytes), cuckoo_shape_of_sizing(&z), z.bytes};
  cuckoo_write_empty(f.body, &z);
  return f;
}

static unsigned char *body_of(const filter *f) {
  return f->body + FILTER_HEADER_BYTES;
}

/* The i-th member's hash: an SQL INTEGER 2i + 1, as cuckoo_build hashes
** it, so that the same filters serve the SQL probes. */
static filter_hash member(uint64_t i) {
  return filter_hash_integer((int64_t)(2 * i + 1), 0);
}

/* Inserts members 0..n-1; the failures. */
static uint64_t fill(filter *f, uint64_t n) {
  uint64_t failed = 0;
  for (uint64_t i = 0; i < n; i++)
    failed += cuckoo_insert(body_of(f), f->shape, member(i)) != CUCKOO_OK;
  return failed;
}

static void section_accuracy(uint64_t max_n) {
  printf("## 2. At capacity: every member tests 1; the rate over 4,000,000 "
         "absent values\n\n");
  printf("| n | p | buckets | f | bits/item | failed inserts | false "
         "negatives | measured rate | model |\n"
         "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  const double ps[2] = {0.01, 0.001};
  int bad = 0;
  for (uint64_t n = 10000; n <= max_n; n *= 10) {
    uint64_t sizes[2] = {n, n * 3};
    for (int s = 0; s < 2; s++) {
      if (sizes[s] > max_n) continue;
      for (int j = 0; j < 2; j++) {
        uint64_t m = sizes[s];
        filter f = new_filter(m, ps[j], CUCKOO_LAYOUT_SUB);
        uint64_t failed = fill(&f, m), missing = 0, hits = 0;
        for (uint64_t i = 0; i < m; i++)
          missing += !cuckoo_contains(body_of(&f), f.shape, member(i));
        enum { PROBES = 4000000 };
        for (uint64_t i = 0; i < PROBES; i++)
          hits += (uint64_t)cuckoo_contains(
              body_of(&f), f.shape, filter_hash_integer(-(int64_t)i - 1, 0));
        double rate = (double)hits / PROBES;
        double model = cuckoo_model_fpr(
            (double)m / (4.0 * (double)f.shape.buckets), f.shape.f,
            f.shape.buckets);
        printf("| %llu | %g | %llu | %u | %.2f | %llu | %llu | %.4f%% | "
               "%.4f%% |\n", (unsigned long long)m, ps[j],
               (unsigned long long)f.shape.buckets, f.shape.f,
               8.0 * (double)f.bytes / (double)m, (unsigned long long)failed,
               (unsigned long long)missing, 100 * rate, 100 * model);
        bad += failed != 0 || missing != 0 || rate > ps[j];
        free(f.body);
      }
    }
  }
  printf("\n");
  target_of("sizes with a failed insert, a false negative or rate > p", bad,
            0, 1);
  printf("\n");
}

/* ---------------------------------------------------- 3. core speed */

/* Layout 0 with version 1.1.0's core (cuckoo_v110.h): its insert and
** lookup, on a body of its own sizing for n. */
typedef struct old_filter {
  unsigned char *blob;
  uint64_t buckets;
  unsigned f;
} old_filter;

static old_filter old_new(uint64_t n) {
  v110_cuckoo_sizing z;
  if (v110_cuckoo_sizing_for(n, 0.01, FILTER_MIN_FPR, UINT64_MAX, &z)) {
    fprintf(stderr, "cuckoo: 1.1.0 cannot size %llu\n",
            (unsigned long long)n);
    exit(2);
  }
  old_filter o = {xalloc(z.bytes), z.buckets, z.fingerprint_bits};
  v110_cuckoo_write_empty(o.blob, &z);
  return o;
}

/* The hashes a build inserts: members 0..n-1, sorted as cuckoo_build sorts
** them (ascending (h1, h2)), or in the order given (an add at a time). */
static filter_hash *members_of(uint64_t n, int sorted) {
  filter_hash *h = malloc(sizeof *h * (size_t)n);
  if (h == NULL) exit(2);
  for (uint64_t i = 0; i < n; i++) h[i] = member(i);
  if (sorted) filter_hash_unique(h, (size_t)n);
  return h;
}

static void section_core(void) {
  printf("## 3. The core: insert (filling to n) and lookup (half members), "
         "ns each\n\n"
         "Layout 1 with this version's core, against layout 0 with version "
         "1.1.0's core (today's: its sizing, random walk, slots read one by "
         "one; tests/bench/cuckoo_v110.h) and with this version's.  Inserts "
         "in cuckoo_build's order (hashes sorted) and in random order (as "
         "cuckoo_add and a store add).\n\n");
  const uint64_t ns[3] = {100000, 1000000, 10000000};
  printf("| n | MB: 1 / 1.1.0 | op | layout 1 | layout 0, 1.1.0's core | "
         "ratio per round | layout 0, this core | ratio per round |\n"
         "|---:|---:|---|---:|---:|---:|---:|---:|\n");
  for (int s = 0; s < 3; s++) {
    uint64_t n = ns[s];
    enum { BUILD, ADD, LOOKUP, OPS };
    const char *op_name[OPS] = {"insert, build order", "insert, random order",
                                "lookup"};
    double t[OPS][3][MAX_ROUNDS], r_old[OPS][MAX_ROUNDS],
        r_same[OPS][MAX_ROUNDS];
    uint64_t bytes[2] = {0, 0};
    filter_hash *sorted = members_of(n, 1), *random = members_of(n, 0);
    filter_hash *probe = malloc(sizeof *probe * (size_t)n);
    uint64_t rng = 42, sink = 0;
    for (uint64_t i = 0; i < n; i++)
      probe[i] = splitmix64(&rng) & 1
                     ? member(splitmix64(&rng) % n)
                     : filter_hash_integer(-(int64_t)(i + 1), 0);
    for (int r = 0; r < rounds; r++) {
      for (int k = 0; k < 3; k++) {
        /* 0: layout 1; 1: layout 0, 1.1.0's core; 2: layout 0, this
        ** core; the order turns each round */
        int w = (k + r) % 3;
        for (int op = BUILD; op <= ADD; op++) {
          const filter_hash *h = op == BUILD ? sorted : random;
          double t0, t1, t2;
          uint64_t failed = 0, hits = 0;
          if (w == 1) {
            old_filter o = old_new(n);
            bytes[1] = FILTER_HEADER_BYTES +
                       v110_cuckoo_body_bytes(o.buckets, o.f);
            unsigned char *b = o.blob + FILTER_HEADER_BYTES;
            t0 = tnow();
            for (uint64_t i = 0; i < n; i++)
              failed += v110_cuckoo_insert(b, o.buckets, o.f, h[i]) !=
                        V110_CUCKOO_OK;
            t1 = tnow();
            for (uint64_t i = 0; op == ADD && i < n; i++)
              hits += (uint64_t)v110_cuckoo_contains(b, o.buckets, o.f,
                                                      probe[i]);
            t2 = tnow();
            free(o.blob);
          } else {
            filter f = new_filter(n, 0.01, w == 0 ? CUCKOO_LAYOUT_SUB
                                                  : CUCKOO_LAYOUT_XOR);
            if (w == 0) bytes[0] = f.bytes;
            t0 = tnow();
            for (uint64_t i = 0; i < n; i++)
              failed += cuckoo_insert(body_of(&f), f.shape, h[i]) !=
                        CUCKOO_OK;
            t1 = tnow();
            for (uint64_t i = 0; op == ADD && i < n; i++)
              hits += (uint64_t)cuckoo_contains(body_of(&f), f.shape,
                                                probe[i]);
            t2 = tnow();
            free(f.body);
          }
          sink += failed + hits;
          t[op][w][r] = (t1 - t0) * 1e9 / (double)n;
          if (op == ADD) t[LOOKUP][w][r] = (t2 - t1) * 1e9 / (double)n;
        }
      }
      for (int op = 0; op < OPS; op++) {
        r_old[op][r] = t[op][0][r] / t[op][1][r];
        r_same[op][r] = t[op][0][r] / t[op][2][r];
      }
    }
    for (int op = 0; op < OPS; op++) {
      double a, b, c, d;
      range_of(r_old[op], rounds, &a, &b);
      range_of(r_same[op], rounds, &c, &d);
      printf("| %llu | %.2f / %.2f | %s | %.1f | %.1f | %.2f .. %.2f | %.1f "
             "| %.2f .. %.2f |\n", (unsigned long long)n,
             (double)bytes[0] / 1e6, (double)bytes[1] / 1e6, op_name[op],
             median(t[op][0], rounds), median(t[op][1], rounds), a, b,
             median(t[op][2], rounds), c, d);
    }
    for (int op = 0; op < OPS; op++) {
      char name[96];
      snprintf(name, sizeof name, "%s, layout 1 / 1.1.0's, n = %llu", op_name[op],
               (unsigned long long)n);
      target_of(name, median(r_old[op], rounds), 1.10, 1);
    }
    free(probe);
    free(sorted);
    free(random);
    if (sink == 42) printf(" "); /* keeps the loops */
  }
  printf("\n");
}

/* ---------------------------------------------------- 4. SQL probes */

/* A filter's blob of members 0..n-1 in the given layout. */
static filter built(uint64_t n, unsigned layout) {
  filter f = new_filter(n, 0.01, layout);
  if (fill(&f, n) != 0) {
    fprintf(stderr, "cuckoo: a build of %llu failed\n", (unsigned long long)n);
    exit(2);
  }
  filter_write_count(f.body, n);
  return f;
}

static double time_query(sqlite3 *db, const char *sql, const filter *f) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  if (f) sqlite3_bind_blob64(st, 1, f->body, f->bytes, SQLITE_STATIC);
  double t0 = tnow();
  if (sqlite3_step(st) != SQLITE_ROW) die(db, sql);
  double t = tnow() - t0;
  sqlite3_finalize(st);
  return t;
}

static void section_sql(void) {
  printf("## 4. SQL probes over 1,000,000 rows (a quarter members): excess "
         "ns a row over a count(*) scan\n\n");
  sqlite3 *db = open_db(":memory:");
  enum { ROWS = 1000000 };
  const uint64_t ns[3] = {100000, 1000000, 10000000};
  printf("| n | form | layout 1 | layout 0 | ratio per round |\n"
         "|---:|---|---:|---:|---:|\n");
  for (int s = 0; s < 3; s++) {
    uint64_t n = ns[s];
    execf(db, "DROP TABLE IF EXISTS probes; CREATE TABLE probes(v INTEGER);"
              "DROP TABLE IF EXISTS flt; CREATE TABLE flt(layout INTEGER "
              "PRIMARY KEY, f BLOB)");
    sqlite3_stmt *ins;
    exec(db, "BEGIN");
    if (sqlite3_prepare_v2(db, "INSERT INTO probes VALUES (?1)", -1, &ins,
                           NULL) != SQLITE_OK)
      die(db, "prepare");
    uint64_t rng = 7;
    for (int i = 0; i < ROWS; i++) {
      sqlite3_bind_int64(ins, 1, (sqlite3_int64)(splitmix64(&rng) % (4 * n)));
      sqlite3_step(ins);
      sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    exec(db, "COMMIT");
    filter f[2] = {built(n, 0), built(n, 1)};
    for (int k = 0; k < 2; k++) {
      sqlite3_stmt *st;
      if (sqlite3_prepare_v2(db, "INSERT INTO flt VALUES (?1, ?2)", -1, &st,
                             NULL) != SQLITE_OK)
        die(db, "prepare");
      sqlite3_bind_int(st, 1, k);
      sqlite3_bind_blob64(st, 2, f[k].body, f[k].bytes, SQLITE_STATIC);
      if (sqlite3_step(st) != SQLITE_DONE) die(db, "insert filter");
      sqlite3_finalize(st);
    }
    /* Both layouts answer alike for members; check the counts agree with
    ** the core before timing. */
    const char *forms[2] = {"bound cuckoo_test(?1, v)", "cuckoo_probe"};
    for (int form = 0; form < 2; form++) {
      double t[2][MAX_ROUNDS], ratio[MAX_ROUNDS];
      for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 2; k++) {
          int layout = (r % 2) ^ k;
          double base = time_query(db, "SELECT count(v) FROM probes", NULL);
          double q;
          if (form == 0) {
            q = time_query(db, "SELECT count(*) FROM probes WHERE "
                               "cuckoo_test(?1, v)", &f[layout]);
          } else {
            char sql[160];
            snprintf(sql, sizeof sql, "SELECT count(*) FROM probes WHERE "
                     "cuckoo_probe('SELECT f FROM flt WHERE layout = %d', v)",
                     layout);
            q = time_query(db, sql, NULL);
          }
          t[layout][r] = (q - base) * 1e9 / ROWS;
        }
        ratio[r] = t[1][r] / t[0][r];
      }
      double a, b;
      range_of(ratio, rounds, &a, &b);
      printf("| %llu | %s | %.1f | %.1f | %.2f .. %.2f |\n",
             (unsigned long long)n, forms[form], median(t[1], rounds),
             median(t[0], rounds), a, b);
      char name[96];
      snprintf(name, sizeof name, "%s, layout 1 / 0, n = %llu (median)",
               forms[form], (unsigned long long)n);
      target_of(name, median(ratio, rounds), 1.10, 1);
    }
    free(f[0].body);
    free(f[1].body);
  }
  sqlite3_close(db);
  printf("\n");
}

/* ------------------------------------------------------- 5. the store */

static void store_at(const char *dir, int capacity, int items, int target);

/* Checkpoints the WAL and empties it; the frames it held. */
static int checkpoint(sqlite3 *db) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "PRAGMA wal_checkpoint(PASSIVE)", -1, &st,
                         NULL) != SQLITE_OK ||
      sqlite3_step(st) != SQLITE_ROW)
    die(db, "checkpoint");
  int frames = sqlite3_column_int(st, 1);
  sqlite3_finalize(st);
  exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  return frames;
}

static void section_store(const char *dir) {
  printf("## 5. cuckoo_store: autocommit INSERT (WAL, synchronous = NORMAL)"
         "\n\nAt capacity 1,000,000, version 1.1.0's store has 2^19 buckets "
         "(45%% full at 950,000 items), this version's 263,158 (90%%); at "
         "996,147, 2^18 and 262,144: both 91%% full at 950,000.  A fuller "
         "table relocates more often, and a relocation changes a second "
         "chunk row (page).\n\n");
  store_at(dir, 1000000, 500000, 1);
  store_at(dir, 1000000, 950000, 0); /* INFO: the fill differs, 45% / 90% */
  store_at(dir, 996147, 950000, 1);
}

/* The stores of both layouts for `capacity` holding `items` values, then
** rounds of 1,000 autocommit inserts of new values into each, in turn; a
** target when both tables are about as full, INFO when not. */
/* Closes both stores and removes their files. */
static void drop_stores(char path[2][512], sqlite3 *db[2]) {
  for (int k = 0; k < 2; k++) {
    sqlite3_close(db[k]);
    char wal[1100];
    snprintf(wal, sizeof wal, "%s-wal", path[k]);
    remove(path[k]);
    remove(wal);
    snprintf(wal, sizeof wal, "%s-shm", path[k]);
    remove(wal);
  }
}

/* Empty stores of capacity `capacity` at 1%: db[1] of layout 1, db[0]
** laid out as version 1.1.0 made it. */
static void make_stores(const char *dir, int capacity, char path[2][512],
                        sqlite3 *db[2]) {
  for (int k = 0; k < 2; k++) {
    snprintf(path[k], sizeof path[k], "%s/bench-cuckoo-layout%d.db", dir, k);
    remove(path[k]);
    char wal[1100];
    snprintf(wal, sizeof wal, "%s-wal", path[k]);
    remove(wal);
    db[k] = open_db(path[k]);
    execf(db[k], "CREATE VIRTUAL TABLE s USING cuckoo_store(capacity = %d, "
                 "fpr = 0.01)", capacity);
  }
  /* Layout 0, as version 1.1.0 made this store: its sizing for the
  ** capacity at 1% (the same as this version's layout 0), no layout row,
  ** chunk rows of its size. */
  cuckoo_sizing old;
  cuckoo_sizing_for_layout((uint64_t)capacity, 0.01, FILTER_MIN_FPR, UINT64_MAX,
                           CUCKOO_LAYOUT_XOR, &old);
  sqlite3_int64 per = 2 * ((4096 - 72) / old.fingerprint_bits);
  sqlite3_int64 chunks = ((sqlite3_int64)old.buckets + per - 1) / per;
  execf(db[0], "BEGIN; DELETE FROM s_config WHERE key = 'layout';"
               "UPDATE s_config SET value = %lld WHERE key = 'buckets';"
               "UPDATE s_config SET value = %u WHERE key = 'fingerprint_bits';"
               "UPDATE s_config SET value = %lld WHERE key = 'chunk_buckets';"
               "DELETE FROM s_chunks;"
               "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c "
               "WHERE i < %lld) INSERT INTO s_chunks(id, data) SELECT i, "
               "zeroblob(CASE WHEN i < %lld THEN %lld ELSE %lld END) FROM c;"
               "COMMIT",
        (long long)old.buckets, old.fingerprint_bits, (long long)per,
        (long long)(chunks - 1), (long long)(chunks - 1),
        (long long)(per * old.fingerprint_bits / 2),
        (long long)(((sqlite3_int64)old.buckets - per * (chunks - 1)) *
                    old.fingerprint_bits / 2));
  sqlite3_close(db[0]);
  db[0] = open_db(path[0]);
}

static void store_at(const char *dir, int capacity, int items, int target) {
  char path[2][512];
  sqlite3 *db[2];
  make_stores(dir, capacity, path, db);
  for (int k = 0; k < 2; k++) {
    execf(db[k], "INSERT INTO s(value) WITH RECURSIVE c(i) AS (SELECT 1 "
                 "UNION ALL SELECT i + 1 FROM c WHERE i < %d) SELECT i * 2 + 1 "
                 "FROM c", items);
    exec(db[k], "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA wal_autocheckpoint = 0");
    printf("  capacity %d, %d items, layout %d: %lld buckets, %lld bytes of "
           "chunks\n", capacity, items, k,
           (long long)q_int(db[k], "SELECT value FROM s_config WHERE key = "
                                   "'buckets'"),
           (long long)q_int(db[k], "SELECT sum(length(data)) FROM s_chunks"));
  }
  enum { BATCH = 1000 };
  double t[2][MAX_ROUNDS], ratio[MAX_ROUNDS], frames[2] = {0, 0};
  uint64_t rng = 99;
  for (int r = 0; r < rounds; r++) {
    for (int k = 0; k < 2; k++) {
      int layout = (r % 2) ^ k;
      sqlite3_stmt *st;
      if (sqlite3_prepare_v2(db[layout], "INSERT INTO s(value) VALUES (?1)",
                             -1, &st, NULL) != SQLITE_OK)
        die(db[layout], "prepare");
      uint64_t seed = rng + (uint64_t)r; /* the same values in both */
      double t0 = tnow();
      for (int i = 0; i < BATCH; i++) {
        sqlite3_bind_int64(st, 1, (sqlite3_int64)(splitmix64(&seed) >> 2));
        if (sqlite3_step(st) != SQLITE_DONE) die(db[layout], "insert");
        sqlite3_reset(st);
      }
      t[layout][r] = (tnow() - t0) * 1e6 / BATCH;
      sqlite3_finalize(st);
      /* the WAL, checkpointed apart: its frames are the pages written */
      frames[layout] += (double)checkpoint(db[layout]);
    }
    ratio[r] = t[1][r] / t[0][r];
  }
  double a, b;
  range_of(ratio, rounds, &a, &b);
  printf("\n| autocommit INSERT, capacity %d, %d items held | layout 1 | "
         "layout 0 | ratio per round |\n|---|---:|---:|---:|\n| µs each "
         "(median of %d x %d) | %.1f | %.1f | %.2f .. %.2f |\n| pages "
         "written each (WAL frames) | %.2f | %.2f | %.2f |\n\n", capacity,
         items, rounds, BATCH, median(t[1], rounds), median(t[0], rounds), a,
         b, frames[1] / (rounds * BATCH), frames[0] / (rounds * BATCH),
         frames[1] / frames[0]);
  char name[96];
  snprintf(name, sizeof name, "store INSERT, layout 1 / 0, n = %d, %d held",
           capacity, items);
  if (target)
    target_of(name, median(ratio, rounds), 1.10, 1);
  else
    printf("  INFO %-53s %6.2f   (pages %.2f)\n", name, median(ratio, rounds),
           frames[1] / frames[0]);
  drop_stores(path, db);
  printf("\n");
}

/* ------------------------------------------- 6. a store's whole fill */

/* Fills the stores of both layouts from empty to `capacity` by autocommit
** inserts, batches of 1,000 alternating between them; *us[k] the mean
** microseconds an insert in layout k, *pages[k] the WAL frames each. */
static void fill_both(const char *dir, int capacity, double us[2],
                      double pages[2]) {
  char path[2][512];
  sqlite3 *db[2];
  make_stores(dir, capacity, path, db);
  sqlite3_stmt *st[2];
  for (int k = 0; k < 2; k++) {
    exec(db[k], "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA wal_autocheckpoint = 0");
    if (sqlite3_prepare_v2(db[k], "INSERT INTO s(value) VALUES (?1)", -1,
                           &st[k], NULL) != SQLITE_OK)
      die(db[k], "prepare");
    us[k] = pages[k] = 0;
  }
  enum { BATCH = 1000 };
  for (int done = 0, b = 0; done < capacity; done += BATCH, b++) {
    int n = capacity - done < BATCH ? capacity - done : BATCH;
    for (int j = 0; j < 2; j++) {
      int k = (b % 2) ^ j;
      double t0 = tnow();
      for (int i = done; i < done + n; i++) {
        sqlite3_bind_int64(st[k], 1, (sqlite3_int64)i * 7919 + 13);
        if (sqlite3_step(st[k]) != SQLITE_DONE) die(db[k], "insert");
        sqlite3_reset(st[k]);
      }
      us[k] += tnow() - t0;
      pages[k] += (double)checkpoint(db[k]);
    }
  }
  for (int k = 0; k < 2; k++) {
    sqlite3_finalize(st[k]);
    us[k] = us[k] * 1e6 / capacity;
    pages[k] /= capacity;
  }
  drop_stores(path, db);
}

static void section_fill(const char *dir) {
  printf("## 6. cuckoo_store: a store's whole fill, empty to capacity\n\n"
         "Autocommit INSERTs of `capacity` new values, layout 1 against "
         "1.1.0's layout 0, batches of 1,000 alternating; capacities "
         "log-spaced over two doublings of 1.1.0's table, so that its "
         "fill at capacity ranges from about half to 95%%.\n\n"
         "| capacity | buckets 1 / 0 | µs: layout 1 | layout 0 | ratio | "
         "pages each: 1 / 0 |\n|---:|---|---:|---:|---:|---|\n");
  enum { SIZES = 8 };
  double sum[2] = {0, 0}, ratio[SIZES];
  for (int i = 0; i < SIZES; i++) {
    int capacity = (int)llround(100000.0 * pow(4.0, i / (double)(SIZES - 1)));
    cuckoo_sizing z[2];
    for (unsigned k = 0; k < 2; k++)
      cuckoo_sizing_for_layout((uint64_t)capacity, 0.01, FILTER_MIN_FPR,
                               UINT64_MAX, k, &z[k]);
    double us[2], pages[2];
    fill_both(dir, capacity, us, pages);
    ratio[i] = us[1] / us[0];
    for (int k = 0; k < 2; k++) sum[k] += us[k] * capacity;
    printf("| %d | %llu / %llu | %.1f | %.1f | %.2f | %.2f / %.2f |\n",
           capacity, (unsigned long long)z[1].buckets,
           (unsigned long long)z[0].buckets, us[1], us[0], ratio[i], pages[1],
           pages[0]);
  }
  double lo, hi;
  range_of(ratio, SIZES, &lo, &hi);
  printf("\n  INFO %-53s %6.2f   (per capacity %.2f .. %.2f)\n\n",
         "store fill to capacity, layout 1 / 0, all inserts", sum[1] / sum[0],
         lo, hi);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s BLOOM_SO\n", argv[0]);
    return 2;
  }
  so_path = argv[1];
  const char *clk = getenv("BENCH_CLOCK");
  if (clk && strcmp(clk, "cpu") == 0) clock_of_run = CLOCK_THREAD_CPUTIME_ID;
  const char *r = getenv("BENCH_ROUNDS");
  if (r && atoi(r) > 0) rounds = atoi(r) < MAX_ROUNDS ? atoi(r) : MAX_ROUNDS;
  const char *m = getenv("BENCH_CUCKOO_ACCURACY_MAX");
  uint64_t max_n = m && atoll(m) > 0 ? (uint64_t)atoll(m) : 100000000;
  const char *dir = getenv("BENCH_CUCKOO_DIR");
  const char *only = getenv("BENCH_CUCKOO_ONLY"); /* "3": that section */
  int all = !(only && *only);
  print_machine();
  if (all || strchr(only, '1')) section_space();
  if (all || strchr(only, '2')) section_accuracy(max_n);
  if (all || strchr(only, '3')) section_core();
  if (all || strchr(only, '4')) section_sql();
  if (all || strchr(only, '5')) section_store(dir && *dir ? dir : "/tmp");
  if (all || strchr(only, '6')) section_fill(dir && *dir ? dir : "/tmp");
  char load[128];
  load_avg(load, sizeof load);
  printf("load at the end: %s\n", load);
  printf("%s: %d target%s missed\n", failures ? "FAIL" : "PASS", failures,
         failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}
