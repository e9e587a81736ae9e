/*
** make bench-quotient: the quotient filter (kind 4) against the Bloom and
** cuckoo filters, side by side in one run, after the machine:
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**  1. bits per item by each kind's sizing (the blob's bytes depend only on
**     n and p), n = 10^4 .. 10^8 at 1% and 0.1%, against log2(1/p); target:
**     quotient within log2(1/p) + 2.5 at every n;
**  2. measured false-positive rate of quotient filters built through the
**     core, n = 10^5 .. 10^7 (BENCH_QUOTIENT_FPR_MAX), 10^6 absent probes;
**  3. SQL probes over 1,000,000 rows, a quarter of them members: excess ns a
**     row over a count(v) scan, quotient_test(?1, v) against bloom_test(?1,
**     v) with the filter bound once, in cache (n = 10^5) and out of cache
**     (n = 3 * 10^7: blobs of 33 and 37 MB at 1%), at 1% and 0.1%; the
**     same for quotient_compact of a growing quotient_store's export of
**     the same integers, bound and held by bloom_ref (both index its
**     leaves as the probes come); rounds alternate the order;
**     targets: the median ratio at most 3 in cache and 1.3 out of cache.
**
** BENCH_ROUNDS=n sets the rounds (default 5).  The filters are built
** through the core (the same bytes quotient_build and bloom_build make of
** the same integers), so that a run takes a few minutes.
*/
#define _DEFAULT_SOURCE /* sync(), in sqlbench.h */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/bloom.h"
#include "core/cuckoo.h"
#include "core/filter.h"
#include "core/quotient.h"

#define BENCH_NAME "quotient bench"
#include "machine.h"
#include "sqlbench.h"

enum { MAX_ROUNDS = 31 };
static int rounds = 5;

static void *xalloc(size_t bytes) {
  void *p = malloc(bytes);
  if (p == NULL) {
    fprintf(stderr, "quotient bench: out of memory (%zu bytes)\n", bytes);
    exit(2);
  }
  return p;
}

static void section_space(void) {
  printf("## 1. Bits per item by the sizings (64-byte header included)\n\n");
  const double ps[2] = {0.01, 0.001};
  printf("| n | p | log2(1/p) | quotient | Bloom | cuckoo | quotient / bound "
         "| Bloom / bound | cuckoo / bound |\n"
         "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  double worst[2] = {0, 0};
  for (int j = 0; j < 2; j++) {
    double bound = log2(1.0 / ps[j]);
    for (uint64_t n = 10000; n <= 100000000; n *= 10) {
      quotient_sizing q;
      bloom_sizing b;
      cuckoo_sizing c;
      if (quotient_sizing_for(n, ps[j], FILTER_MIN_FPR, UINT64_MAX, &q) ||
          bloom_sizing_for(n, ps[j], UINT64_MAX, &b) ||
          cuckoo_sizing_for(n, ps[j], FILTER_MIN_FPR, UINT64_MAX, &c)) {
        fprintf(stderr, "quotient bench: cannot size n = %llu\n",
                (unsigned long long)n);
        exit(2);
      }
      double v[3] = {8.0 * (double)q.bytes / (double)n,
                     8.0 * (double)b.bytes / (double)n,
                     8.0 * (double)c.bytes / (double)n};
      if (v[0] - bound > worst[j]) worst[j] = v[0] - bound;
      printf("| %llu | %g | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f "
             "|\n", (unsigned long long)n, ps[j], bound, v[0], v[1], v[2],
             v[0] / bound, v[1] / bound, v[2] / bound);
    }
  }
  printf("\n");
  target_of("quotient bits/item - log2(1/p) at 1%, most over n", worst[0],
            2.5, 1);
  target_of("quotient bits/item - log2(1/p) at 0.1%, most over n", worst[1],
            2.5, 1);
  printf("\n");
}

/* A quotient filter of the integers 0..n-1 (as quotient_build makes it),
** through the core: hashes grouped by block with a counting pass. */
static unsigned char *quotient_of(uint64_t n, double p, quotient_sizing *q) {
  if (quotient_sizing_for(n, p, FILTER_MIN_FPR, UINT64_MAX, q)) exit(2);
  unsigned char *blob = xalloc(q->bytes);
  quotient_write_empty(blob, q);
  uint64_t *count = calloc(q->blocks + 1, sizeof *count);
  uint64_t *at = xalloc(q->blocks * sizeof *at);
  uint64_t *h2s = xalloc(n * sizeof *h2s);
  if (count == NULL) exit(2);
  for (uint64_t i = 0; i < n; i++)
    count[quotient_block_of(filter_hash_integer((int64_t)i, 0), q->blocks) +
          1]++;
  for (uint64_t b = 0; b < q->blocks; b++) count[b + 1] += count[b];
  memcpy(at, count, q->blocks * sizeof *at);
  for (uint64_t i = 0; i < n; i++) {
    filter_hash h = filter_hash_integer((int64_t)i, 0);
    h2s[at[quotient_block_of(h, q->blocks)]++] = h.h2;
  }
  for (uint64_t b = 0; b < q->blocks; b++)
    quotient_encode_block(blob + FILTER_HEADER_BYTES + b * q->block_bytes,
                          q->block_bytes, h2s + count[b],
                          count[b + 1] - count[b]);
  filter_write_count(blob, n);
  free(count), free(at), free(h2s);
  return blob;
}

static unsigned char *bloom_of(uint64_t n, double p, bloom_sizing *b) {
  if (bloom_sizing_for(n, p, UINT64_MAX, b)) exit(2);
  unsigned char *blob = xalloc(b->bytes);
  bloom_write_empty(blob, b);
  for (uint64_t i = 0; i < n; i++)
    bloom_insert(blob + FILTER_HEADER_BYTES, b->bits / BLOOM_BLOCK_BITS,
                 b->hashes, filter_hash_integer((int64_t)i, 0));
  filter_write_count(blob, n);
  return blob;
}

static void section_accuracy(uint64_t max_n) {
  printf("## 2. Measured false-positive rate (quotient, built through the "
         "core; 10^6 absent integers)\n\n");
  printf("| n | p | measured | model at n | bits/item | false negatives |\n"
         "|---:|---:|---:|---:|---:|---:|\n");
  const double ps[2] = {0.01, 0.001};
  for (uint64_t n = 100000; n <= max_n; n *= 10)
    for (int j = 0; j < 2; j++) {
      quotient_sizing q;
      unsigned char *blob = quotient_of(n, ps[j], &q);
      filter_view f;
      if (filter_parse(blob, q.bytes, FILTER_KIND_QUOTIENT, &f, NULL, 0)) {
        fprintf(stderr, "quotient bench: a build does not parse\n");
        exit(2);
      }
      uint64_t missed = 0, fp = 0;
      for (uint64_t i = 0; i < n; i++)
        missed += filter_contains(&f, filter_hash_integer((int64_t)i, 0)) != 1;
      for (uint64_t i = 0; i < 1000000; i++)
        fp += filter_contains(&f, filter_hash_integer(
                                      (int64_t)(n + 1000 + i), 0)) == 1;
      double rate = (double)fp / 1e6;
      printf("| %llu | %g | %.5f | %.5f | %.2f | %llu |\n",
             (unsigned long long)n, ps[j], rate, q.expected_fpr,
             8.0 * (double)q.bytes / (double)n, (unsigned long long)missed);
      if (missed || rate > ps[j]) failures++;
      free(blob);
    }
  printf("\n");
}

static double time_query(sqlite3 *db, const char *sql, const void *blob,
                         uint64_t bytes) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  if (blob) sqlite3_bind_blob64(st, 1, blob, bytes, SQLITE_STATIC);
  double t0 = now();
  if (sqlite3_step(st) != SQLITE_ROW) die(db, sql);
  double t = now() - t0;
  sqlite3_finalize(st);
  return t;
}

/* quotient_compact of a growing quotient_store's export holding the
** integers 0..n-1 (the rows' members, as quotient_of's); *bytes its size. */
static unsigned char *compacted_of(sqlite3 *db, uint64_t n, double p,
                                   uint64_t *bytes) {
  char sql[400];
  snprintf(sql, sizeof sql,
           "DROP TABLE IF EXISTS g; CREATE VIRTUAL TABLE g USING "
           "quotient_store(fpr = %g); WITH RECURSIVE c(x) AS (SELECT 0 UNION "
           "ALL SELECT x + 1 FROM c WHERE x < %llu) INSERT INTO g(value) "
           "SELECT x FROM c", p, (unsigned long long)n - 1);
  exec(db, sql);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT quotient_compact(filter) FROM g", -1, &st,
                         NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
    die(db, "quotient_compact");
  *bytes = (uint64_t)sqlite3_column_bytes(st, 0);
  unsigned char *out = xalloc(*bytes);
  memcpy(out, sqlite3_column_blob(st, 0), *bytes);
  sqlite3_finalize(st);
  exec(db, "DROP TABLE g");
  return out;
}

static void section_sql(void) {
  printf("## 3. SQL probes over 1,000,000 rows (a quarter members), filter "
         "bound once: excess ns a row over a count(v) scan\n\n");
  sqlite3 *db = open_db(":memory:");
  enum { ROWS = 1000000 };
  const uint64_t ns[4] = {100000, 30000000, 100000, 30000000};
  const double ps[4] = {0.01, 0.01, 0.001, 0.001};
  const char *where[4] = {"in cache", "out of cache", "in cache",
                          "out of cache"};
  const double limit[4] = {3.0, 1.3, 3.0, 1.3};
  printf("| n | p | | quotient bytes | Bloom bytes | quotient_test | "
         "bloom_test | ratio (median, range) | compacted store bytes | its "
         "quotient_test | ratio (median, range) | held by bloom_ref | ratio "
         "(median, range) |\n"
         "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int s = 0; s < 4; s++) {
    uint64_t n = ns[s];
    exec(db, "DROP TABLE IF EXISTS probes; CREATE TABLE probes(v INTEGER)");
    sqlite3_stmt *ins;
    exec(db, "BEGIN");
    if (sqlite3_prepare_v2(db, "INSERT INTO probes VALUES (?1)", -1, &ins,
                           NULL) != SQLITE_OK)
      die(db, "prepare");
    uint64_t rng = 7;
    for (int i = 0; i < ROWS; i++) {
      sqlite3_bind_int64(ins, 1, (sqlite3_int64)(splitmix(&rng) % (4 * n)));
      sqlite3_step(ins);
      sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    exec(db, "COMMIT");
    quotient_sizing qs;
    bloom_sizing bs;
    unsigned char *q = quotient_of(n, ps[s], &qs);
    unsigned char *b = bloom_of(n, ps[s], &bs);
    uint64_t cbytes;
    unsigned char *c = compacted_of(db, n, ps[s], &cbytes);
    /* 0 quotient, 1 bloom, 2 compacted, 3 compacted held by bloom_ref
    ** (which indexes its leaves as they are probed) */
    const char *sql[4] = {
        "SELECT count(*) FROM probes WHERE quotient_test(?1, v)",
        "SELECT count(*) FROM probes WHERE bloom_test(?1, v)",
        "SELECT count(*) FROM probes WHERE quotient_test(?1, v)",
        "SELECT count(*) FROM bloom_ref(?1) AS r CROSS JOIN probes WHERE "
        "quotient_test(r.filter, v)"};
    const unsigned char *blob[4] = {q, b, c, c};
    const uint64_t bytes[4] = {qs.bytes, bs.bytes, cbytes, cbytes};
    double t[4][MAX_ROUNDS], ratio[3][MAX_ROUNDS] = {{0}};
    for (int r = 0; r < rounds; r++) {
      for (int k = 0; k < 4; k++) {
        int which = (r + k) % 4;
        double base = time_query(db, "SELECT count(v) FROM probes", NULL, 0);
        double x = time_query(db, sql[which], blob[which], bytes[which]);
        t[which][r] = (x - base) * 1e9 / ROWS;
      }
      ratio[0][r] = t[0][r] / t[1][r];
      ratio[1][r] = t[2][r] / t[1][r];
      ratio[2][r] = t[3][r] / t[1][r];
    }
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) minmax(ratio[k], rounds, &lo[k], &hi[k]);
    printf("| %llu | %g | %s | %llu | %llu | %.1f | %.1f | %.2f (%.2f .. "
           "%.2f) | %llu | %.1f | %.2f (%.2f .. %.2f) | %.1f | %.2f (%.2f .. "
           "%.2f) |\n",
           (unsigned long long)n, ps[s], where[s],
           (unsigned long long)qs.bytes, (unsigned long long)bs.bytes,
           median(t[0], rounds), median(t[1], rounds),
           median(ratio[0], rounds), lo[0], hi[0], (unsigned long long)cbytes,
           median(t[2], rounds), median(ratio[1], rounds), lo[1], hi[1],
           median(t[3], rounds), median(ratio[2], rounds), lo[2], hi[2]);
    char name[96];
    snprintf(name, sizeof name, "quotient_test / bloom_test, %s, p = %g",
             where[s], ps[s]);
    target_of(name, median(ratio[0], rounds), limit[s], 1);
    snprintf(name, sizeof name, "compacted store / bloom_test, %s, p = %g",
             where[s], ps[s]);
    target_of(name, median(ratio[1], rounds), limit[s], 1);
    snprintf(name, sizeof name, "compacted, held / bloom_test, %s, p = %g",
             where[s], ps[s]);
    target_of(name, median(ratio[2], rounds), limit[s], 1);
    free(q);
    free(b);
    free(c);
  }
  sqlite3_close(db);
  printf("\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s BLOOM_SO\n", argv[0]);
    return 2;
  }
  so_path = argv[1];
  const char *r = getenv("BENCH_ROUNDS");
  if (r && atoi(r) > 0) rounds = atoi(r) < MAX_ROUNDS ? atoi(r) : MAX_ROUNDS;
  const char *m = getenv("BENCH_QUOTIENT_FPR_MAX");
  uint64_t max_n = m && atoll(m) > 0 ? (uint64_t)atoll(m) : 10000000;
  print_machine();
  printf("\n");
  section_space();
  section_accuracy(max_n);
  section_sql();
  char load[128];
  read_loadavg(load, sizeof load);
  printf("load at the end: %s\n", load);
  printf("%s: %d target%s missed\n", failures ? "FAIL" : "PASS", failures,
         failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}
