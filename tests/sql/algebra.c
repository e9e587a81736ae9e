/*
** Filter-algebra tests: bloom_build against bloom_empty + bloom_add,
** bloom_merge against bloom_build and, over many plain or layered rows,
** against a chain of bloom_union, bloom_union / bloom_intersect (no false
** negatives, header rules, shape mismatches, corrupt arguments), bloom_add's
** value rules, auto-sized filters measured at their actual distinct count,
** bloom_plan against what bloom_build makes, bloom_count, and a
** trigger-maintained filter on an on-disk WAL database with rollbacks.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Expected figures come from the README's contract, from FORMAT.md (header
** offsets, the sizing model), from arithmetic on the test's own data
** (distinct counts, OR/AND of bodies, popcounts) or from SQL's own `=`,
** never from the extension's output.  Random inputs come from a fixed-seed
** splitmix64, printed as "# seed:".  Crafted blobs are bound with
** SQLITE_STATIC from exactly sized heap buffers, so that the ASan build
** sees any over-read.
*/
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/sqldb.h"
#include "lib/blob.h"
#include "lib/bloom_spec.h"
#include "lib/clock.h"
#include "lib/rng.h"
#include "lib/tap.h"

/* ---- helpers (the shared ones are in tests/lib/) ----------------------- */

/* Header fields at the offsets of FORMAT.md. */
#define H_SEED(b) le32((b) + 8)
#define H_HASHES(b) le32((b) + 12)
#define H_BITS(b) le64((b) + 16)
#define H_CAPACITY(b) le64((b) + 24)
#define H_TARGET(b) le_double((b) + 32)
#define H_INSERTED(b) le64((b) + 40)

static int blob_eq(const unsigned char *a, int la, const unsigned char *b,
                   int lb) {
  return a && b && la == lb && memcmp(a, b, (size_t)la) == 0;
}

/* Says where two blobs first differ (for diagnostics). */
static void diag_diff(const char *what, const unsigned char *a, int la,
                      const unsigned char *b, int lb) {
  if (!a || !b) {
    tap_diag("  %s: %s is NULL", what, a ? "second" : "first");
    return;
  }
  if (la != lb) {
    tap_diag("  %s: lengths %d vs %d", what, la, lb);
    return;
  }
  for (int i = 0; i < la; i++)
    if (a[i] != b[i]) {
      tap_diag("  %s: first difference at byte %d (0x%02x vs 0x%02x)", what, i,
               a[i], b[i]);
      return;
    }
}

/* The first `ncol` columns of the first row as integers; returns 1 on a row. */
static int q_ints(sqlite3 *db, const char *sql, const arg *a, int n,
                  sqlite3_int64 *out, int ncol) {
  sqlite3_stmt *st = first_row(db, sql, a, n);
  if (!st) return 0;
  for (int i = 0; i < ncol; i++) out[i] = sqlite3_column_int64(st, i);
  sqlite3_finalize(st);
  return 1;
}

/* The first `ncol` columns of the first row as exactly sized malloc'd copies
** (NULL for SQL NULL or on error). */
static void q_blobs(sqlite3 *db, const char *sql, const arg *a, int n,
                    unsigned char **out, int *lens, int ncol) {
  for (int i = 0; i < ncol; i++) {
    out[i] = NULL;
    lens[i] = 0;
  }
  sqlite3_stmt *st = first_row(db, sql, a, n);
  if (!st) return;
  for (int i = 0; i < ncol; i++) {
    if (sqlite3_column_type(st, i) == SQLITE_NULL) continue;
    const void *p = sqlite3_column_blob(st, i);
    lens[i] = sqlite3_column_bytes(st, i);
    out[i] = dup_exact(p, (size_t)lens[i]);
  }
  sqlite3_finalize(st);
}

#define NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* One check: sql fails with a message starting with "<fname>: " and holding
** every string of the NULL-terminated list `needles`. */
static void expect_error_with(sqlite3 *db, const char *name, const char *sql,
                              const arg *a, int n, const char *fname,
                              const char *const *needles) {
  char msg[512], prefix[64];
  int failed = run_for_error(db, sql, a, n, msg, sizeof msg, NULL, NULL);
  snprintf(prefix, sizeof prefix, "%s: ", fname);
  int pass = failed && strncmp(msg, prefix, strlen(prefix)) == 0;
  for (int i = 0; pass && needles[i]; i++)
    if (!strstr(msg, needles[i])) pass = 0;
  if (!tap_ok(pass, "%s: error names %s and the field and values", name,
              fname)) {
    if (!failed) tap_diag("  no error from: %s", sql);
    else tap_diag("  got \"%s\"", msg);
    for (int i = 0; needles[i]; i++) tap_diag("  wanted \"%s\"", needles[i]);
  }
}

/* FORMAT.md's false-positive model of the blocked filter:
** sum over i of Pois(i; lambda) * min(1, m^k (1 + k(k-1)/2 v/m^2)) with m
** and v the mean and variance of the fill ratio of a block that took i*k
** bit throws, computed here independently (lgamma and pow, summed far into
** the tail). */
static double model_fpr(double lambda, unsigned k) {
  double sum = 0.0, B = 512.0, kk = (double)k;
  double last = lambda + 40.0 * sqrt(lambda) + 100.0;
  for (double i = 0.0; i <= last; i += 1.0) {
    double pmf = exp(i * log(lambda) - lambda - lgamma(i + 1.0));
    double c1 = pow(1.0 - 1.0 / B, i * kk), c2 = pow(1.0 - 2.0 / B, i * kk);
    double m = 1.0 - c1;
    if (m <= 0.0) continue;
    double v = (B * (B - 1.0) * c2 + B * c1 - B * B * c1 * c1) / (B * B);
    if (v < 0.0) v = 0.0;
    double r = pow(m, kk) * (1.0 + kk * (kk - 1.0) / 2.0 * v / (m * m));
    sum += pmf * (r < 1.0 ? r : 1.0);
  }
  return sum;
}

/* ---- 1. bloom_build = bloom_empty + bloom_add, in any order -------------- */

/* *f = bloom_add(*f, vals[0..nv-1]) through st (arity nv + 1).  Counts a
** result whose length differs from the input's in *len_changed. */
static int add_values(sqlite3_stmt *st, unsigned char **f, int *len,
                      sqlite3_value **vals, int nv, int *len_changed) {
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  sqlite3_bind_blob(st, 1, *f, *len, SQLITE_STATIC);
  for (int i = 0; i < nv; i++) sqlite3_bind_value(st, i + 2, vals[i]);
  if (sqlite3_step(st) != SQLITE_ROW ||
      sqlite3_column_type(st, 0) != SQLITE_BLOB) {
    tap_diag("  bloom_add step failed: %s",
             sqlite3_errmsg(sqlite3_db_handle(st)));
    sqlite3_reset(st);
    return -1;
  }
  int nl = sqlite3_column_bytes(st, 0);
  if (nl != *len) (*len_changed)++;
  unsigned char *nf = dup_exact(sqlite3_column_blob(st, 0), (size_t)nl);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  free(*f);
  *f = nf;
  *len = nl;
  return 0;
}

#define ADD_MAX 8

static void test_build_equals_adds(sqlite3 *db) {
  const int rows = 3000;
  exec_ok(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v, k INTEGER)");
  rng_seed(0x5eed4001, "build-vs-add values, shuffle keys, batch sizes");
  sqlite3_stmt *ins = prep(db, "INSERT INTO t(v, k) VALUES (?1, ?2)", NOARGS);
  exec_ok(db, "BEGIN");
  char buf[32];
  for (int i = 0; i < rows && ins; i++) {
    sqlite3_reset(ins);
    uint64_t r = rng_next();
    switch (r % 7) {
      case 0: sqlite3_bind_int64(ins, 1, (sqlite3_int64)((r >> 40) % 500)); break;
      case 1: sqlite3_bind_double(ins, 1, (double)(r >> 40) / 7.0); break;
      case 2:
        snprintf(buf, sizeof buf, "s%llu", (unsigned long long)(r >> 52));
        sqlite3_bind_text(ins, 1, buf, -1, SQLITE_TRANSIENT);
        break;
      case 3: sqlite3_bind_blob(ins, 1, &r, 1 + (int)((r >> 8) % 7), SQLITE_TRANSIENT); break;
      case 4: sqlite3_bind_null(ins, 1); break;
      case 5: sqlite3_bind_int64(ins, 1, 7); break; /* many duplicates */
      default: sqlite3_bind_int64(ins, 1, (sqlite3_int64)r); break;
    }
    sqlite3_bind_int64(ins, 2, (sqlite3_int64)(rng_next() >> 1));
    sqlite3_step(ins);
  }
  sqlite3_finalize(ins);
  exec_ok(db, "COMMIT");

  int blen;
  unsigned char *built = q_blob(db, "SELECT bloom_build(v, 3000, 0.01) FROM t",
                                NOARGS, &blen);
  sqlite3_int64 nonnull = q_int(db, "SELECT count(v) FROM t", NOARGS);
  tap_ok(built && blen > 64 && (sqlite3_int64)H_INSERTED(built) == nonnull &&
             popcount_bytes(built + 64, (size_t)blen - 64) > 0,
         "bloom_build over 3,000 mixed rows: inserted = count(v) = %lld, "
         "bits set", (long long)nonnull);

  sqlite3_stmt *adders[ADD_MAX + 1] = {0};
  for (int nv = 1; nv <= ADD_MAX; nv++) {
    char sql[128] = "SELECT bloom_add(?1";
    for (int i = 0; i < nv; i++) {
      size_t l = strlen(sql);
      snprintf(sql + l, sizeof sql - l, ", ?%d", i + 2);
    }
    strcat(sql, ")");
    adders[nv] = prep(db, sql, NOARGS);
  }

  static const char *orders[] = {"id", "id DESC", "k"};
  static const char *order_names[] = {"ascending", "descending", "shuffled"};
  sqlite3_int64 *seq[3];
  for (int o = 0; o < 3; o++) {
    seq[o] = calloc((size_t)rows, sizeof **seq);
    for (int mode = 0; mode < 2; mode++) {
      int flen;
      unsigned char *f = q_blob(db, "SELECT bloom_empty(3000, 0.01)", NOARGS,
                                &flen);
      char sql[128];
      snprintf(sql, sizeof sql, "SELECT id, v FROM t ORDER BY %s", orders[o]);
      sqlite3_stmt *st = prep(db, sql, NOARGS);
      sqlite3_value *pending[ADD_MAX];
      int npending = 0, want = 1, calls = 0, failed = (f == NULL || !st),
          len_changed = 0, nrows = 0;
      if (mode == 1) want = 2 + (int)(rng_next() % (ADD_MAX - 1));
      while (!failed && sqlite3_step(st) == SQLITE_ROW) {
        if (mode == 0 && nrows < rows) seq[o][nrows] = sqlite3_column_int64(st, 0);
        nrows++;
        pending[npending++] = sqlite3_value_dup(sqlite3_column_value(st, 1));
        if (npending == want) {
          failed |= add_values(adders[npending], &f, &flen, pending, npending,
                               &len_changed) != 0;
          calls++;
          for (int i = 0; i < npending; i++) sqlite3_value_free(pending[i]);
          npending = 0;
          if (mode == 1) want = 2 + (int)(rng_next() % (ADD_MAX - 1));
        }
      }
      if (npending && !failed) {
        failed |= add_values(adders[npending], &f, &flen, pending, npending,
                             &len_changed) != 0;
        calls++;
      }
      for (int i = 0; i < npending; i++) sqlite3_value_free(pending[i]);
      sqlite3_finalize(st);
      int same = !failed && blob_eq(f, flen, built, blen);
      if (!tap_ok(same && nrows == rows && len_changed == 0,
                  "bloom_empty(3000, 0.01) + bloom_add of every row, %s "
                  "order, %s (%d calls) = bloom_build, byte for byte",
                  order_names[o],
                  mode ? "2-8 values per call" : "one value per call", calls)) {
        diag_diff("added vs built", f, flen, built, blen);
        tap_diag("  rows %d, length changes %d", nrows, len_changed);
      }
      free(f);
    }
  }
  int differ = 1;
  for (int a = 0; a < 3; a++)
    for (int b = a + 1; b < 3; b++)
      if (memcmp(seq[a], seq[b], (size_t)rows * sizeof **seq) == 0) differ = 0;
  /* Not just different: descending is ascending reversed, and the shuffle
  ** is neither monotone. */
  int asc = 1, desc = 1, shuf_inversions = 0;
  for (int i = 1; i < rows; i++) {
    if (seq[0][i] <= seq[0][i - 1]) asc = 0;
    if (seq[1][i] >= seq[1][i - 1]) desc = 0;
    if (seq[2][i] < seq[2][i - 1]) shuf_inversions++;
  }
  tap_ok(differ && asc && desc && shuf_inversions > rows / 4 &&
             shuf_inversions < 3 * rows / 4,
         "the three row orders really differ (shuffled: %d descents of %d)",
         shuf_inversions, rows - 1);
  for (int o = 0; o < 3; o++) free(seq[o]);
  for (int nv = 1; nv <= ADD_MAX; nv++) sqlite3_finalize(adders[nv]);
  free(built);
}

/* ---- 2. bloom_merge ------------------------------------------------------ */

static void test_merge(sqlite3 *db) {
  exec_ok(db, "CREATE TABLE g(grp INTEGER, v)");
  rng_seed(0x5eed4002, "merge rows");
  sqlite3_stmt *ins = prep(db, "INSERT INTO g VALUES (?1, ?2)", NOARGS);
  exec_ok(db, "BEGIN");
  for (int i = 0; i < 6000 && ins; i++) {
    sqlite3_reset(ins);
    uint64_t r = rng_next();
    sqlite3_bind_int64(ins, 1, (sqlite3_int64)(r % 7));
    switch ((r >> 8) % 4) {
      case 0: sqlite3_bind_text(ins, 2, (r >> 20) & 1 ? "x" : "y", -1, SQLITE_STATIC); break;
      case 1: sqlite3_bind_null(ins, 2); break;
      default: sqlite3_bind_int64(ins, 2, (sqlite3_int64)((r >> 16) % 4000)); break;
    }
    sqlite3_step(ins);
  }
  sqlite3_finalize(ins);
  exec_ok(db, "COMMIT");
  exec_ok(db, "CREATE TABLE parts AS SELECT grp, bloom_build(v, 6000, 0.01) "
              "AS f FROM g GROUP BY grp");
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM parts WHERE length(f) > 64",
                   NOARGS),
             7, "seven GROUP BY parts built");

  int wl;
  unsigned char *whole =
      q_blob(db, "SELECT bloom_build(v, 6000, 0.01) FROM g", NOARGS, &wl);
  static const struct {
    const char *sql, *what;
  } merges[] = {
      {"SELECT bloom_merge(f) FROM parts", "in table order"},
      {"SELECT bloom_merge(f) FROM (SELECT f FROM parts ORDER BY grp DESC)",
       "in reverse group order"},
      {"SELECT bloom_merge(f) FROM (SELECT 0 AS o, NULL AS f UNION ALL "
       "SELECT grp + 1, f FROM parts UNION ALL SELECT 3.5, NULL UNION ALL "
       "SELECT 99, NULL ORDER BY o)",
       "with NULL filters first, between and last"},
  };
  for (size_t i = 0; i < sizeof merges / sizeof *merges; i++) {
    int ml;
    unsigned char *m = q_blob(db, merges[i].sql, NOARGS, &ml);
    if (!tap_ok(blob_eq(m, ml, whole, wl),
                "bloom_merge of the 7 GROUP BY parts %s = bloom_build over "
                "the whole table, byte for byte",
                merges[i].what))
      diag_diff("merged vs whole", m, ml, whole, wl);
    free(m);
  }

  /* Merge per super-group: grp % 2 (the parts of even and odd groups). */
  int good = 0;
  for (int par = 0; par < 2; par++) {
    int ml, bl;
    unsigned char *m = q_blob(db, "SELECT bloom_merge(f) FROM parts WHERE "
                                  "grp % 2 = ?1 GROUP BY grp % 2",
                              ARGS(a_int(par)), &ml);
    unsigned char *b = q_blob(db, "SELECT bloom_build(v, 6000, 0.01) FROM g "
                                  "WHERE grp % 2 = ?1",
                              ARGS(a_int(par)), &bl);
    if (blob_eq(m, ml, b, bl)) good++;
    else diag_diff("merged parity group vs built", m, ml, b, bl);
    free(m);
    free(b);
  }
  tap_ok(good == 2, "GROUP BY merge of even and odd parts = bloom_build over "
                    "those rows (%d of 2)", good);

  int sl, pl;
  unsigned char *single =
      q_blob(db, "SELECT bloom_merge(f) FROM parts WHERE grp = 3", NOARGS, &sl);
  unsigned char *part =
      q_blob(db, "SELECT f FROM parts WHERE grp = 3", NOARGS, &pl);
  tap_ok(blob_eq(single, sl, part, pl),
         "bloom_merge of one filter is that filter");
  free(single);
  free(part);

  q_int(db, "SELECT bloom_merge(f) FROM parts WHERE 0", NOARGS);
  tap_ok(q_type == SQLITE_NULL, "bloom_merge over no rows is NULL");
  q_int(db, "SELECT bloom_merge(NULL) FROM parts", NOARGS);
  tap_ok(q_type == SQLITE_NULL, "bloom_merge over only NULL filters is NULL");
  tap_ok(q_int(db, "SELECT count(*) FROM (SELECT grp, bloom_merge(CASE WHEN "
                   "grp = 4 THEN NULL ELSE f END) AS m FROM parts GROUP BY grp) "
                   "WHERE (grp = 4) = (m IS NULL)", NOARGS) == 7,
         "GROUP BY: a group holding only a NULL filter merges to NULL, the "
         "others do not");
  free(whole);

  /* Shape and argument errors inside the aggregate. */
  int l10, l1e5;
  unsigned char *e10 = q_blob(db, "SELECT bloom_empty(10)", NOARGS, &l10);
  unsigned char *e1e5 = q_blob(db, "SELECT bloom_empty(100000)", NOARGS, &l1e5);
  if (e10 && e1e5) {
    char want[96];
    snprintf(want, sizeof want, "bits: %llu vs %llu",
             (unsigned long long)H_BITS(e10), (unsigned long long)H_BITS(e1e5));
    expect_error_with(db, "bloom_merge over filters of different bits",
                      "SELECT bloom_merge(f) FROM (SELECT 1 AS o, ?1 AS f "
                      "UNION ALL SELECT 2, NULL UNION ALL SELECT 3, ?2 ORDER BY o)",
                      ARGS(a_blob(e10, l10), a_blob(e1e5, l1e5)), "bloom_merge",
                      NEEDLES("differ in", want));
    unsigned char *seeded = dup_exact(e10, (size_t)l10);
    put_le32(seeded + 8, 1);
    expect_error_with(db, "bloom_merge over filters of different seeds",
                      "SELECT bloom_merge(f) FROM (SELECT 1 AS o, ?1 AS f "
                      "UNION ALL SELECT 2, ?2 ORDER BY o)",
                      ARGS(a_blob(e10, l10), a_blob(seeded, l10)),
                      "bloom_merge", NEEDLES("seed: 0 vs 1"));
    unsigned char *cut = dup_exact(e10, (size_t)l10 - 1);
    expect_error(db, "bloom_merge with a truncated filter after a good one",
                 "SELECT bloom_merge(f) FROM (SELECT 1 AS o, ?1 AS f UNION ALL "
                 "SELECT 2, ?2 ORDER BY o)",
                 ARGS(a_blob(e10, l10), a_blob(cut, l10 - 1)), "bloom_merge: ", 0);
    expect_error(db, "bloom_merge with a TEXT value",
                 "SELECT bloom_merge(f) FROM (SELECT 1 AS o, ?1 AS f UNION ALL "
                 "SELECT 2, 'junk' ORDER BY o)",
                 ARGS(a_blob(e10, l10)), "bloom_merge: ", 0);
    expect_error(db, "bloom_merge with a cuckoo filter",
                 "SELECT bloom_merge(f) FROM (SELECT 1 AS o, ?1 AS f UNION ALL "
                 "SELECT 2, cuckoo_build(1, 10) ORDER BY o)",
                 ARGS(a_blob(e10, l10)), "bloom_merge: ", 0);
    free(seeded);
    free(cut);
  } else {
    tap_ok(0, "bloom_empty(10) and bloom_empty(100000)");
  }
  free(e10);
  free(e1e5);
}

/* ---- 2b. bloom_merge over many rows ------------------------------------- */

/* The Bloom filter, sized n at p, of the integers [lo, lo + count). */
static unsigned char *build_range(sqlite3 *db, sqlite3_int64 lo, int count,
                                  int n, double p, int *len) {
  return q_blob(db,
                "WITH RECURSIVE c(v) AS (SELECT ?1 UNION ALL SELECT v + 1 "
                "FROM c WHERE v + 1 < ?1 + ?2) "
                "SELECT bloom_build(v, ?3, ?4) FROM c",
                ARGS(a_int(lo), a_int(count), a_int(n), a_real(p)), len);
}

#define MANY_ROWS 200
#define MANY_LAYERS 3

/* One group of MANY_ROWS filters (every seventh NULL), plain or layered,
** whose headers differ row to row in capacity and target rate (and, when
** layered, in growth and tightening): bloom_merge over them in row order
** must give, byte for byte, what a chain of bloom_union over the same rows
** gives, and its header must follow the README's rules computed here. */
static void merge_many(sqlite3 *db, int layered) {
  const char *what = layered ? "layered" : "plain";
  static const int layer_n[MANY_LAYERS] = {200, 400, 800};
  static const double layer_p[MANY_LAYERS] = {0.01, 0.009, 0.0081};
  unsigned char *row[MANY_ROWS];
  int len[MANY_ROWS];
  uint64_t sum_count = 0, max_cap[MANY_LAYERS] = {0};
  double max_fpr = 0.0, first_fpr = -1.0;
  int values = 0, built = 0;
  for (int i = 0; i < MANY_ROWS; i++) {
    row[i] = NULL;
    len[i] = 0;
    if (i % 7 == 3) continue;
    unsigned char *layer[MANY_LAYERS];
    int llen[MANY_LAYERS];
    int nl = layered ? MANY_LAYERS : 1;
    int ok = 1;
    for (int j = 0; j < nl; j++) {
      int count = 1 + (int)(rng_next() % 30);
      layer[j] = build_range(db, (sqlite3_int64)i * 1000 + j * 100, count,
                             layered ? layer_n[j] : 500,
                             layered ? layer_p[j] : 0.01, &llen[j]);
      if (layer[j] == NULL) {
        ok = 0;
        continue;
      }
      /* Another capacity and rate, with the bits and hashes kept. */
      uint64_t cap = H_CAPACITY(layer[j]) + rng_next() % 1000;
      double fpr = H_TARGET(layer[j]) * (1.0 + (double)(rng_next() % 64) / 64);
      put_le64(layer[j] + SPEC_OFF_CAPACITY, cap);
      put_le_double(layer[j] + SPEC_OFF_FPR, fpr);
      if (cap > max_cap[j]) max_cap[j] = cap;
      sum_count += H_INSERTED(layer[j]);
      values += count;
      if (!layered) {
        if (fpr > max_fpr) max_fpr = fpr;
        if (first_fpr < 0) first_fpr = fpr;
      }
    }
    if (!ok) {
      for (int j = 0; j < nl; j++) free(layer[j]);
      continue;
    }
    if (layered) {
      static const double tightening[] = {0.5, 0.9, 1.0};
      const unsigned char *lp[MANY_LAYERS];
      size_t ll[MANY_LAYERS];
      for (int j = 0; j < nl; j++) {
        lp[j] = layer[j];
        ll[j] = (size_t)llen[j];
      }
      double fpr = 0.02 + (double)(rng_next() % 100) / 1000;
      if (fpr > max_fpr) max_fpr = fpr;
      if (first_fpr < 0) first_fpr = fpr;
      size_t n = 0;
      row[i] = spec_layered_build(lp, ll, MANY_LAYERS,
                                  1 + (unsigned)(rng_next() % 3),
                                  tightening[rng_next() % 3], fpr, &n);
      len[i] = (int)n;
      for (int j = 0; j < nl; j++) free(layer[j]);
    } else {
      row[i] = layer[0];
      len[i] = llen[0];
    }
    if (row[i]) built++;
  }
  TAP_EQ_U64(built, MANY_ROWS - (MANY_ROWS + 3) / 7,
             "%s: every non-NULL row of the group built", what);
  tap_ok(max_fpr != first_fpr,
         "%s: the rows' target rates differ (the first %g, the largest %g)",
         what, first_fpr, max_fpr);

  exec_ok(db, "DROP TABLE IF EXISTS many");
  exec_ok(db, "CREATE TABLE many(ord INTEGER PRIMARY KEY, f BLOB)");
  sqlite3_stmt *ins = prep(db, "INSERT INTO many VALUES (?1, ?2)", NOARGS);
  for (int i = 0; i < MANY_ROWS && ins; i++) {
    sqlite3_reset(ins);
    sqlite3_bind_int(ins, 1, i);
    if (row[i])
      sqlite3_bind_blob(ins, 2, row[i], len[i], SQLITE_STATIC);
    else
      sqlite3_bind_null(ins, 2);
    if (sqlite3_step(ins) != SQLITE_DONE) tap_diag("insert: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(ins);

  /* The chain: acc = bloom_union(acc, f) over the rows in order. */
  unsigned char *acc = NULL;
  int acc_len = 0, links = 0;
  for (int i = 0; i < MANY_ROWS; i++) {
    if (row[i] == NULL) continue;
    if (acc == NULL) {
      acc = dup_exact(row[i], (size_t)len[i]);
      acc_len = len[i];
      continue;
    }
    int nl = 0;
    unsigned char *next = q_blob(db, "SELECT bloom_union(?1, ?2)",
                                 ARGS(a_blob(acc, acc_len), a_blob(row[i], len[i])),
                                 &nl);
    free(acc);
    acc = next;
    acc_len = nl;
    if (acc == NULL) break;
    links++;
  }
  TAP_EQ_U64(links, built - 1, "%s: the bloom_union chain took every row", what);

  int ml = 0;
  unsigned char *m = q_blob(db, "SELECT bloom_merge(f) FROM (SELECT f FROM many ORDER BY ord)",
                            NOARGS, &ml);
  if (!tap_ok(blob_eq(m, ml, acc, acc_len),
              "%s: bloom_merge over %d rows (%d NULL) = the chain of "
              "bloom_union over them, byte for byte",
              what, MANY_ROWS, MANY_ROWS - built))
    diag_diff("merge vs chain", m, ml, acc, acc_len);

  /* The merged header by the README's rules, from the rows made here. */
  uint64_t want_cap = 0;
  for (int j = 0; j < (layered ? MANY_LAYERS : 1); j++) want_cap += max_cap[j];
  if (m && ml >= 64) {
    TAP_EQ_U64(H_INSERTED(m), sum_count,
               "%s: the merged counter is the sum of the rows' counters", what);
    TAP_EQ_U64(H_CAPACITY(m), want_cap,
               "%s: the merged capacity is the largest %s", what,
               layered ? "of each layer, summed" : "of the rows");
    tap_ok(H_TARGET(m) == max_fpr,
           "%s: the merged target rate is the largest of the rows' (%g vs %g)",
           what, H_TARGET(m), max_fpr);
  } else {
    tap_ok(0, "%s: a merged filter", what);
  }

  /* Every value of every row is in the merge. */
  int missing = 0, asked = 0;
  sqlite3_stmt *probe = prep(db, "SELECT bloom_test(?1, ?2)", NOARGS);
  if (m && probe) {
    sqlite3_bind_blob(probe, 1, m, ml, SQLITE_STATIC);
    for (int i = 0; i < MANY_ROWS; i++) {
      if (row[i] == NULL) continue;
      for (int j = 0; j < (layered ? MANY_LAYERS : 1); j++) {
        /* a row's layer j holds [i*1000 + j*100, + count), count >= 1 */
        sqlite3_reset(probe);
        sqlite3_bind_int64(probe, 2, (sqlite3_int64)i * 1000 + j * 100);
        asked++;
        if (sqlite3_step(probe) != SQLITE_ROW || sqlite3_column_int(probe, 0) != 1)
          missing++;
      }
    }
  }
  sqlite3_finalize(probe);
  tap_ok(m && asked > 0 && missing == 0,
         "%s: the merge holds the first value of every row's %s (%d asked, "
         "%d missing; %d values in all)",
         what, layered ? "layers" : "filter", asked, missing, values);
  free(m);
  free(acc);
  for (int i = 0; i < MANY_ROWS; i++) free(row[i]);
  exec_ok(db, "DROP TABLE many");
}

static void test_merge_many(sqlite3 *db) {
  rng_seed(0x5eed4011, "merge of many rows");
  merge_many(db, 0);
  merge_many(db, 1);
}

/* ---- 3. union and intersection ------------------------------------------- */

/* Items of a side: the integers lo..hi and the texts 't' || lo..hi. */
#define SIDE_SQL                                                      \
  SERIES("?1", "?2")                                                  \
  "SELECT bloom_build(v, ?3, ?4) FROM (SELECT x AS v FROM s UNION ALL " \
  "SELECT 't' || x FROM s)"

static void test_union_intersect(sqlite3 *db) {
  /* A = 1..6000, B = 4001..10000 (each as integers and as texts): 2,000
  ** common values of each kind, 8,000 in one side only. */
  int la, lb, lu, li;
  unsigned char *fa = q_blob(db, SIDE_SQL, ARGS(a_int(1), a_int(6000),
                                                a_int(24000), a_real(0.01)), &la);
  unsigned char *fb = q_blob(db, SIDE_SQL, ARGS(a_int(4001), a_int(10000),
                                                a_int(24000), a_real(0.01)), &lb);
  if (!fa || !fb || la != lb || la <= 64) {
    tap_ok(0, "build the two sides");
    free(fa);
    free(fb);
    return;
  }
  unsigned char *u = q_blob(db, "SELECT bloom_union(?1, ?2)",
                            ARGS(a_blob(fa, la), a_blob(fb, lb)), &lu);
  unsigned char *in = q_blob(db, "SELECT bloom_intersect(?1, ?2)",
                             ARGS(a_blob(fa, la), a_blob(fb, lb)), &li);
  if (!u || !in) {
    tap_ok(0, "bloom_union and bloom_intersect return filters");
    free(fa);
    free(fb);
    free(u);
    free(in);
    return;
  }
  TAP_EQ_U64(q_int(db, SERIES("1", "10000")
                   "SELECT count(*) FROM s WHERE bloom_test(?1, x) IS NOT 1 "
                   "OR bloom_test(?1, 't' || x) IS NOT 1",
                   ARGS(a_blob(u, lu))),
             0, "union: no false negative over the 20,000 items of either side");
  TAP_EQ_U64(q_int(db, SERIES("4001", "6000")
                   "SELECT count(*) FROM s WHERE bloom_test(?1, x) IS NOT 1 "
                   "OR bloom_test(?1, 't' || x) IS NOT 1",
                   ARGS(a_blob(in, li))),
             0, "intersection: no false negative over the 4,000 items of both "
                "sides");

  /* The bodies are the bytewise OR and AND (FORMAT.md), computed here. */
  int or_ok = lu == la, and_ok = li == la;
  for (int i = 64; i < la && or_ok; i++)
    if (u[i] != (fa[i] | fb[i])) or_ok = 0;
  for (int i = 64; i < la && and_ok; i++)
    if (in[i] != (fa[i] & fb[i])) and_ok = 0;
  tap_ok(or_ok, "union body = bytewise OR of the two bodies");
  tap_ok(and_ok, "intersection body = bytewise AND of the two bodies");
  tap_ok(lu == la && memcmp(u, fa, 40) == 0 && H_INSERTED(u) == 24000 &&
             memcmp(u + 48, fa + 48, 16) == 0,
         "union of equal shapes: header as the inputs, inserted = 12,000 + "
         "12,000");
  tap_ok(li == la && memcmp(in, fa, 40) == 0 && H_INSERTED(in) == 12000,
         "intersection of equal shapes: header as the inputs, inserted = "
         "min(12,000, 12,000)");
  /* For information: one-sided items answering 1 in the intersection. */
  sqlite3_int64 fp = q_int(db, SERIES("1", "4000")
                           "SELECT sum(bloom_test(?1, x)) + sum(bloom_test(?1, "
                           "'t' || x)) FROM s",
                           ARGS(a_blob(in, li)));
  tap_diag("intersection: %lld of the 8,000 A-only items answer 1 (%.4f)",
           (long long)fp, (double)fp / 8000.0);
  free(fa);
  free(fb);
  free(u);
  free(in);

  /* Header rules with inputs of different capacity and rate but the same
  ** shape: find (n1, p1) with n1 > 1000 and p1 < 0.01 that bloom_plan
  ** lays out like (1000, 0.01), so that "the larger of each" takes the
  ** capacity from one side and the rate from the other. */
  sqlite3_stmt *st = prep(
      db,
      SERIES("1001", "1300")
      "SELECT a.capacity, a.target_fpr FROM s, (SELECT 0.00999 AS p UNION "
      "ALL SELECT 0.00995 UNION ALL SELECT 0.0099 UNION ALL SELECT 0.0098 "
      "UNION ALL SELECT 0.0095 UNION ALL SELECT 0.009) AS pp, "
      "bloom_plan(s.x, pp.p) AS a, bloom_plan(1000, 0.01) AS b "
      "WHERE a.bits = b.bits AND a.hashes = b.hashes "
      "ORDER BY a.target_fpr, a.capacity DESC LIMIT 1",
      NOARGS);
  sqlite3_int64 n1 = 0;
  double p1 = 0;
  if (st && sqlite3_step(st) == SQLITE_ROW) {
    n1 = sqlite3_column_int64(st, 0);
    p1 = sqlite3_column_double(st, 1);
  }
  sqlite3_finalize(st);
  if (n1 == 0) {
    tap_ok(0, "found (n, p) with n > 1000, p < 0.01 and the shape of "
              "(1000, 0.01)");
    return;
  }
  tap_diag("same shape as (1000, 0.01): (%lld, %g)", (long long)n1, p1);
  /* A: x % 700 for x in 1..900 (700 distinct, 900 inserted) with (n1, p1);
  ** B: 501..1100 (600 inserted) with (1000, 0.01). */
  fa = q_blob(db, SERIES("1", "900") "SELECT bloom_build(x % 700 + 1, ?1, ?2) "
                  "FROM s", ARGS(a_int(n1), a_real(p1)), &la);
  fb = q_blob(db, SERIES("501", "1100") "SELECT bloom_build(x, 1000, 0.01) "
                  "FROM s", NOARGS, &lb);
  if (!fa || !fb || la != lb || H_BITS(fa) != H_BITS(fb) ||
      H_HASHES(fa) != H_HASHES(fb) || H_CAPACITY(fa) != (uint64_t)n1 ||
      H_TARGET(fa) != p1 || H_INSERTED(fa) != 900 || H_INSERTED(fb) != 600) {
    tap_ok(0, "two filters of one shape, different capacity and rate");
    free(fa);
    free(fb);
    return;
  }
  const uint64_t cap_max = (uint64_t)n1 > 1000 ? (uint64_t)n1 : 1000;
  const double p_max = p1 > 0.01 ? p1 : 0.01;
  for (int fn = 0; fn < 2; fn++) {
    for (int swap = 0; swap < 2; swap++) {
      char sql[64];
      snprintf(sql, sizeof sql, "SELECT %s(?1, ?2)",
               fn ? "bloom_intersect" : "bloom_union");
      int lr;
      unsigned char *r =
          swap ? q_blob(db, sql, ARGS(a_blob(fb, lb), a_blob(fa, la)), &lr)
               : q_blob(db, sql, ARGS(a_blob(fa, la), a_blob(fb, lb)), &lr);
      uint64_t want_ins = fn ? 600 : 1500;
      int pass = r && lr == la && H_CAPACITY(r) == cap_max &&
                 H_TARGET(r) == p_max && H_INSERTED(r) == want_ins &&
                 H_BITS(r) == H_BITS(fa) && H_HASHES(r) == H_HASHES(fa);
      if (!tap_ok(pass,
                  "%s(%s): capacity = larger (%llu), target_fpr = larger "
                  "(%g), inserted = %s (%llu)",
                  fn ? "bloom_intersect" : "bloom_union",
                  swap ? "B, A" : "A, B", (unsigned long long)cap_max, p_max,
                  fn ? "smaller" : "sum", (unsigned long long)want_ins) &&
          r)
        tap_diag("  got capacity %llu, target_fpr %g, inserted %llu",
                 (unsigned long long)H_CAPACITY(r), H_TARGET(r),
                 (unsigned long long)H_INSERTED(r));
      if (r && !swap) {
        /* No false negatives across the differently sized inputs. */
        sqlite3_int64 miss =
            fn ? q_int(db, SERIES("501", "700")
                       "SELECT count(*) FROM s WHERE bloom_test(?1, x) IS NOT 1",
                       ARGS(a_blob(r, lr)))
               : q_int(db, SERIES("1", "1100")
                       "SELECT count(*) FROM s WHERE bloom_test(?1, x) IS NOT 1",
                       ARGS(a_blob(r, lr)));
        TAP_EQ_U64(miss, 0, "%s of A and B: no false negative",
                   fn ? "intersection" : "union");
      }
      free(r);
    }
  }
  free(fa);
  free(fb);
}

/* ---- 4. shape mismatches and corrupt arguments --------------------------- */

static void test_mismatch(sqlite3 *db) {
  static const char *const fns[] = {"bloom_union", "bloom_intersect"};
  int l10, lbig, lb;
  unsigned char *e10 = q_blob(db, "SELECT bloom_empty(10)", NOARGS, &l10);
  unsigned char *ebig = q_blob(db, "SELECT bloom_empty(100000)", NOARGS, &lbig);
  unsigned char *b = q_blob(db, SERIES("1", "700")
                            "SELECT bloom_build(x, 1000, 0.01) FROM s",
                            NOARGS, &lb);
  if (!e10 || !ebig || !b || l10 <= 64 || lbig <= 64 || lb <= 64) {
    tap_ok(0, "the filters of the mismatch tests");
    free(e10);
    free(ebig);
    free(b);
    return;
  }

  /* hashes: another (n, p) with the bits of (1000, 0.01) and other hashes,
  ** searched with bloom_plan; the blobs' own headers confirm it. */
  sqlite3_int64 hn = 0;
  double hp = 0;
  sqlite3_stmt *st = prep(
      db,
      "WITH RECURSIVE s(x) AS (SELECT 100 UNION ALL SELECT x + 100 FROM s "
      "WHERE x < 5000), pp(p) AS (VALUES (0.5), (0.2), (0.1), (0.05), (0.02), "
      "(0.005), (0.001)) "
      "SELECT a.capacity, a.target_fpr FROM s, pp, bloom_plan(s.x, pp.p) AS a, "
      "bloom_plan(1000, 0.01) AS b WHERE a.bits = b.bits AND a.hashes <> "
      "b.hashes ORDER BY a.capacity, a.target_fpr LIMIT 1",
      NOARGS);
  if (st && sqlite3_step(st) == SQLITE_ROW) {
    hn = sqlite3_column_int64(st, 0);
    hp = sqlite3_column_double(st, 1);
  }
  sqlite3_finalize(st);
  int lh = 0;
  unsigned char *hb = hn ? q_blob(db, "SELECT bloom_empty(?1, ?2)",
                                  ARGS(a_int(hn), a_real(hp)), &lh)
                         : NULL;
  int have_hashes_pair = hb && lh == lb && H_BITS(hb) == H_BITS(b) &&
                         H_HASHES(hb) != H_HASHES(b);
  tap_ok(have_hashes_pair,
         "bloom_plan search: (%lld, %g) has the bits of (1000, 0.01) and "
         "other hashes", (long long)hn, hp);
  if (have_hashes_pair)
    tap_diag("hashes pair: (1000, 0.01) -> %u hashes, (%lld, %g) -> %u hashes, "
             "%llu bits", H_HASHES(b), (long long)hn, hp, H_HASHES(hb),
             (unsigned long long)H_BITS(b));

  /* Crafted headers (FORMAT.md offsets) on copies of b. */
  unsigned char *seed1 = dup_exact(b, (size_t)lb);
  put_le32(seed1 + 8, 1);
  unsigned char *seedmax = dup_exact(b, (size_t)lb);
  put_le32(seedmax + 8, 0xffffffffu);
  unsigned char *k7 = dup_exact(b, (size_t)lb);
  put_le32(k7 + 12, H_HASHES(b) == 7 ? 8 : 7);
  unsigned char *v2 = dup_exact(b, (size_t)lb);
  v2[4] = 2;
  unsigned char *kind3 = dup_exact(b, (size_t)lb);
  kind3[5] = 3;
  unsigned char *hash2 = dup_exact(b, (size_t)lb);
  hash2[6] = 2;
  int lc;
  unsigned char *cuckoo =
      q_blob(db, "SELECT cuckoo_build(x, 100) FROM (SELECT 1 AS x)", NOARGS, &lc);

  for (int f = 0; f < 2; f++) {
    const char *fn = fns[f];
    char sql[64], name[160], want[128];
    snprintf(sql, sizeof sql, "SELECT %s(?1, ?2)", fn);

    for (int swap = 0; swap < 2; swap++) {
      const unsigned char *x = swap ? ebig : e10, *y = swap ? e10 : ebig;
      int lx = swap ? lbig : l10, ly = swap ? l10 : lbig;
      snprintf(name, sizeof name, "%s: bits differ (%s first)", fn,
               swap ? "larger" : "smaller");
      snprintf(want, sizeof want, "the filters differ in bits: %llu vs %llu",
               (unsigned long long)H_BITS(x), (unsigned long long)H_BITS(y));
      expect_error_with(db, name, sql, ARGS(a_blob(x, lx), a_blob(y, ly)), fn,
                        NEEDLES(want));
    }
    if (have_hashes_pair) {
      snprintf(name, sizeof name, "%s: hashes differ (bloom_plan pair)", fn);
      snprintf(want, sizeof want, "the filters differ in hashes: %u vs %u",
               H_HASHES(b), H_HASHES(hb));
      expect_error_with(db, name, sql, ARGS(a_blob(b, lb), a_blob(hb, lh)), fn,
                        NEEDLES(want));
    }
    snprintf(name, sizeof name, "%s: hashes differ (crafted header)", fn);
    snprintf(want, sizeof want, "the filters differ in hashes: %u vs %u",
             H_HASHES(k7), H_HASHES(b));
    expect_error_with(db, name, sql, ARGS(a_blob(k7, lb), a_blob(b, lb)), fn,
                      NEEDLES(want));
    snprintf(name, sizeof name, "%s: seed differs (0 vs 1)", fn);
    expect_error_with(db, name, sql, ARGS(a_blob(b, lb), a_blob(seed1, lb)), fn,
                      NEEDLES("the filters differ in seed: 0 vs 1"));
    snprintf(name, sizeof name, "%s: seed differs (4294967295 vs 0)", fn);
    expect_error_with(db, name, sql, ARGS(a_blob(seedmax, lb), a_blob(b, lb)),
                      fn, NEEDLES("the filters differ in seed: 4294967295 vs 0"));
    /* A version or kind this build does not read is rejected when the
    ** blob is read; the message still names the field and the value. */
    snprintf(name, sizeof name, "%s: version 2 as the second filter", fn);
    expect_error_with(db, name, sql, ARGS(a_blob(b, lb), a_blob(v2, lb)), fn,
                      NEEDLES("version", "2", "1"));
    snprintf(name, sizeof name, "%s: kind 3 as the second filter", fn);
    expect_error_with(db, name, sql, ARGS(a_blob(b, lb), a_blob(kind3, lb)), fn,
                      NEEDLES("kind", "3"));
    snprintf(name, sizeof name, "%s: hash 2 as the second filter", fn);
    expect_error_with(db, name, sql, ARGS(a_blob(b, lb), a_blob(hash2, lb)), fn,
                      NEEDLES("hash", "2"));
    if (cuckoo) {
      snprintf(name, sizeof name, "%s: a cuckoo filter as the second filter",
               fn);
      expect_error_with(db, name, sql, ARGS(a_blob(b, lb), a_blob(cuckoo, lc)),
                        fn, NEEDLES("cuckoo", "bloom"));
      snprintf(name, sizeof name, "%s: a cuckoo filter as the first filter",
               fn);
      expect_error_with(db, name, sql, ARGS(a_blob(cuckoo, lc), a_blob(b, lb)),
                        fn, NEEDLES("cuckoo", "bloom"));
    } else {
      tap_ok(0, "cuckoo_build for the kind mismatch");
    }

    /* Corrupt second (and first) argument. */
    unsigned char *short63 = dup_exact(b, 63);
    unsigned char *short_body = dup_exact(b, (size_t)lb - 1);
    unsigned char *magic = dup_exact(b, (size_t)lb);
    magic[0] = 'X';
    unsigned char *empty = dup_exact(b, 0);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s: ", fn);
    static const char *const what[] = {
        "a 63-byte blob", "a blob one byte short", "bad magic", "x''",
        "TEXT", "INTEGER", "REAL"};
    for (int w = 0; w < 7; w++) {
      arg bad;
      switch (w) {
        case 0: bad = a_blob(short63, 63); break;
        case 1: bad = a_blob(short_body, lb - 1); break;
        case 2: bad = a_blob(magic, lb); break;
        case 3: bad = a_blob(empty, 0); break;
        case 4: bad = a_text("not a filter"); break;
        case 5: bad = a_int(42); break;
        default: bad = a_real(0.5); break;
      }
      snprintf(name, sizeof name, "%s: corrupt second argument (%s)", fn,
               what[w]);
      expect_error(db, name, sql, ARGS(a_blob(b, lb), bad), prefix, 0);
      if (w == 1 || w == 4) {
        snprintf(name, sizeof name, "%s: corrupt first argument (%s)", fn,
                 what[w]);
        expect_error(db, name, sql, ARGS(bad, a_blob(b, lb)), prefix, 0);
      }
    }
    free(short63);
    free(short_body);
    free(magic);
    free(empty);

    q_int(db, sql, ARGS(a_null(), a_blob(b, lb)));
    int null1 = q_type == SQLITE_NULL;
    q_int(db, sql, ARGS(a_blob(b, lb), a_null()));
    tap_ok(null1 && q_type == SQLITE_NULL, "%s: NULL if either argument is NULL",
           fn);
  }

  /* bloom_union(b, b) = b but inserted doubled; bloom_intersect(b, b) = b. */
  int lu, li;
  unsigned char *u = q_blob(db, "SELECT bloom_union(?1, ?1)",
                            ARGS(a_blob(b, lb)), &lu);
  unsigned char *in = q_blob(db, "SELECT bloom_intersect(?1, ?1)",
                             ARGS(a_blob(b, lb)), &li);
  tap_ok(u && lu == lb && memcmp(u, b, 40) == 0 &&
             memcmp(u + 48, b + 48, (size_t)lb - 48) == 0 &&
             H_INSERTED(u) == 2 * H_INSERTED(b) && H_INSERTED(b) == 700,
         "bloom_union(b, b) equals b except inserted: %llu = 2 x 700",
         u ? (unsigned long long)H_INSERTED(u) : 0ULL);
  if (!tap_ok(blob_eq(in, li, b, lb), "bloom_intersect(b, b) equals b"))
    diag_diff("intersect(b,b) vs b", in, li, b, lb);
  free(u);
  free(in);

  free(e10);
  free(ebig);
  free(b);
  free(hb);
  free(seed1);
  free(seedmax);
  free(k7);
  free(v2);
  free(kind3);
  free(hash2);
  free(cuckoo);
}

/* ---- 5. bloom_add value rules -------------------------------------------- */

static void test_add_rules(sqlite3 *db) {
  exec_ok(db,
          "CREATE TABLE fa(id INTEGER PRIMARY KEY, f BLOB);"
          "INSERT INTO fa VALUES (1, bloom_empty(1000)),"
          " (2, bloom_empty(100000, 0.001)), (3, (" SERIES("1", "300")
          "SELECT bloom_build(x, 500, 0.05) FROM s))");
  unsigned char *orig[4] = {0};
  int olen[4] = {0};
  for (int id = 1; id <= 3; id++)
    orig[id] = q_blob(db, "SELECT f FROM fa WHERE id = ?1", ARGS(a_int(id)),
                      &olen[id]);

  sqlite3_stmt *st = prep(db,
                          "SELECT id, bloom_add(f, 'x'), bloom_test(f, 'x'), "
                          "bloom_test(bloom_add(f, 'x'), 'x'), "
                          "bloom_test(f, 'x') FROM fa ORDER BY id",
                          NOARGS);
  int rows = 0, fresh_zero = 0, added_one = 0, same_len = 0, inserted_up = 0;
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    int id = sqlite3_column_int(st, 0);
    int l = sqlite3_column_bytes(st, 1);
    const unsigned char *r = sqlite3_column_blob(st, 1);
    rows++;
    if (id >= 1 && id <= 3 && l == olen[id]) same_len++;
    if (id >= 1 && id <= 3 && r && l >= 64 && orig[id] &&
        H_INSERTED(r) == H_INSERTED(orig[id]) + 1)
      inserted_up++;
    if (sqlite3_column_int(st, 3) == 1) added_one++;
    if (id <= 2 && sqlite3_column_type(st, 2) == SQLITE_INTEGER &&
        sqlite3_column_int(st, 2) == 0 && sqlite3_column_int(st, 4) == 0)
      fresh_zero++;
  }
  sqlite3_finalize(st);
  tap_ok(rows == 3 && fresh_zero == 2,
         "SELECT bloom_add(f, 'x'), bloom_test(f, 'x'): the test columns "
         "(before and after the add column) still see the original fresh "
         "filter (0)");
  tap_ok(added_one == 3, "... while the added filter answers 1 for 'x'");
  tap_ok(same_len == 3, "bloom_add's result has exactly the input's length "
                        "(3 sizes)");
  tap_ok(inserted_up == 3, "bloom_add(f, 'x') counts one more insert");
  int unchanged = 0;
  for (int id = 1; id <= 3; id++) {
    int l;
    unsigned char *now_f =
        q_blob(db, "SELECT f FROM fa WHERE id = ?1", ARGS(a_int(id)), &l);
    if (blob_eq(now_f, l, orig[id], olen[id])) unchanged++;
    free(now_f);
  }
  tap_ok(unchanged == 3, "the stored filters are unchanged afterwards");

  /* The same through bloom_ref: the referenced filter is not modified. */
  sqlite3_int64 c[3];
  tap_ok(q_ints(db, "SELECT bloom_test(r.filter, 'x'), "
                    "bloom_test(bloom_add(r.filter, 'x'), 'x'), "
                    "bloom_test(r.filter, 'x') FROM fa, bloom_ref(fa.f) AS r "
                    "WHERE fa.id = 1", NOARGS, c, 3) &&
             c[0] == 0 && c[1] == 1 && c[2] == 0,
         "bloom_add on a bloom_ref leaves the referenced filter as it was");

  q_int(db, "SELECT bloom_add(NULL, 1)", NOARGS);
  tap_ok(q_type == SQLITE_NULL, "bloom_add(NULL, 1) is NULL");
  q_int(db, "SELECT bloom_add(NULL, NULL)", NOARGS);
  tap_ok(q_type == SQLITE_NULL, "bloom_add(NULL, NULL) is NULL");
  int eq = 0;
  for (int id = 1; id <= 3; id++) {
    int l;
    unsigned char *r = q_blob(db, "SELECT bloom_add(f, NULL) FROM fa WHERE id = ?1",
                              ARGS(a_int(id)), &l);
    if (blob_eq(r, l, orig[id], olen[id])) eq++;
    free(r);
  }
  tap_ok(eq == 3, "bloom_add(f, NULL) equals f byte for byte (NULL skipped, "
                  "inserted unchanged)");
  int l1, l2;
  unsigned char *r1 = q_blob(db, "SELECT bloom_add(f, NULL, 'a', NULL, 'b') "
                                 "FROM fa WHERE id = 3", NOARGS, &l1);
  unsigned char *r2 = q_blob(db, "SELECT bloom_add(bloom_add(f, 'a'), 'b') "
                                 "FROM fa WHERE id = 3", NOARGS, &l2);
  tap_ok(blob_eq(r1, l1, r2, l2) && r1 && orig[3] &&
             H_INSERTED(r1) == H_INSERTED(orig[3]) + 2,
         "bloom_add(f, NULL, 'a', NULL, 'b') = bloom_add(bloom_add(f, 'a'), "
         "'b'): inserted + 2");
  free(r1);
  free(r2);

  expect_error(db, "bloom_add(f) with no value",
               "SELECT bloom_add(f) FROM fa WHERE id = 1", NOARGS, "bloom_add: ", 0);
  expect_error(db, "bloom_add(NULL) with no value", "SELECT bloom_add(NULL)",
               NOARGS, "bloom_add: ", 0);
  expect_error(db, "bloom_add() with no argument", "SELECT bloom_add()",
               NOARGS, "bloom_add: ", 0);
  expect_error(db, "bloom_add on TEXT", "SELECT bloom_add('abc', 1)", NOARGS,
               "bloom_add: ", 0);
  expect_error(db, "bloom_add on a cuckoo filter",
               "SELECT bloom_add(cuckoo_build(1, 10), 1) FROM (SELECT 1)",
               NOARGS, "bloom_add: ", 0);

  /* The UPDATE form: the stored filter changes only when written back. */
  exec_ok(db, "UPDATE fa SET f = bloom_add(f, 'y') WHERE id = 1");
  sqlite3_int64 yx[2];
  tap_ok(q_ints(db, "SELECT bloom_test(f, 'y'), bloom_test(f, 'x') FROM fa "
                    "WHERE id = 1", NOARGS, yx, 2) &&
             yx[0] == 1 && yx[1] == 0,
         "UPDATE ... SET f = bloom_add(f, 'y'): 'y' in, 'x' (only SELECTed "
         "before) still out");
  for (int id = 1; id <= 3; id++) free(orig[id]);
}

/* ---- 6. auto-sized filters at their actual distinct count --------------- */

static double fpr_bound(double p, double probes) {
  return p + 3.0 * sqrt(p * (1.0 - p) / probes);
}

static void check_auto(const char *what, const unsigned char *f,
                       int len, double p, uint64_t distinct, uint64_t rows) {
  int ok = f && len > 64 && H_CAPACITY(f) == distinct && H_TARGET(f) == p &&
           H_INSERTED(f) == rows;
  if (!tap_ok(ok, "%s: capacity = %llu distinct, target_fpr = %g, inserted "
                  "= %llu rows", what, (unsigned long long)distinct, p,
              (unsigned long long)rows) && f && len >= 64)
    tap_diag("  got capacity %llu, target_fpr %g, inserted %llu",
             (unsigned long long)H_CAPACITY(f), H_TARGET(f),
             (unsigned long long)H_INSERTED(f));
}

static void test_auto_sized(sqlite3 *db) {
  const sqlite3_int64 probes = 1000000;
  /* Absent probes: integers from 10^9 + 1 on; none is a value below. */
  const char *probe_sql =
      SERIES("1000000001", "1000000000 + ?3")
      "SELECT sum(bloom_test(?1, x)), sum(bloom_test(?2, x)) FROM s";

  /* 10 distinct values over 1,000 rows. */
  unsigned char *f[2];
  int l[2];
  q_blobs(db, SERIES("1", "1000") "SELECT bloom_build(x % 10), "
              "bloom_build(x % 10, NULL, 0.001) FROM s", NOARGS, f, l, 2);
  check_auto("bloom_build(v) over 10 distinct", f[0], l[0], 0.01, 10, 1000);
  check_auto("bloom_build(v, NULL, 0.001) over 10 distinct", f[1], l[1],
             0.001, 10, 1000);
  if (f[0] && f[1]) {
    sqlite3_int64 hits[2] = {-1, -1}, miss[2] = {-1, -1};
    q_ints(db, SERIES("0", "9") "SELECT sum(NOT bloom_test(?1, x)), "
               "sum(NOT bloom_test(?2, x)) FROM s",
           ARGS(a_blob(f[0], l[0]), a_blob(f[1], l[1])), miss, 2);
    tap_ok(miss[0] == 0 && miss[1] == 0,
           "10 distinct: all 10 values test 1 in both filters");
    double t0 = now();
    q_ints(db, probe_sql,
           ARGS(a_blob(f[0], l[0]), a_blob(f[1], l[1]), a_int(probes)), hits, 2);
    double secs = now() - t0;
    static const double ps[] = {0.01, 0.001};
    for (int i = 0; i < 2; i++) {
      double rate = (double)hits[i] / (double)probes;
      tap_diag("10 distinct, p=%g: measured fpr %.6f = %lld / %lld absent "
               "probes (%llu bits, %u hashes)", ps[i], rate, (long long)hits[i],
               (long long)probes, (unsigned long long)H_BITS(f[i]),
               H_HASHES(f[i]));
      tap_ok(hits[i] >= 0 && rate <= ps[i],
             "10 distinct, p=%g: measured fpr %.6f <= p over %lld probes",
             ps[i], rate, (long long)probes);
    }
    tap_diag("probing 10-distinct filters: %.2f s", secs);
  }
  free(f[0]);
  free(f[1]);

  /* 1,000,000 distinct over 3,000,000 rows: (x * 7919) mod 10^6 for x in
  ** 1..3*10^6 takes every residue exactly 3 times (7919 is prime to 10^6),
  ** in a scattered order. */
  const sqlite3_int64 big_rows = 3000000, distinct = 1000000;
  double t0 = now();
  q_blobs(db, SERIES("1", "?1")
              "SELECT bloom_build(v), bloom_build(v, NULL, 0.001) FROM "
              "(SELECT (x * 7919) % 1000000 AS v FROM s)",
          ARGS(a_int(big_rows)), f, l, 2);
  tap_diag("two auto-sized builds over %lld rows: %.2f s", (long long)big_rows,
           now() - t0);
  check_auto("bloom_build(v) over 3,000,000 rows", f[0], l[0], 0.01,
             (uint64_t)distinct, (uint64_t)big_rows);
  check_auto("bloom_build(v, NULL, 0.001) over 3,000,000 rows", f[1], l[1],
             0.001, (uint64_t)distinct, (uint64_t)big_rows);
  if (f[0] && f[1]) {
    sqlite3_int64 miss[2] = {-1, -1}, hits[2] = {-1, -1};
    q_ints(db, SERIES("0", "999999") "SELECT sum(NOT bloom_test(?1, x)), "
               "sum(NOT bloom_test(?2, x)) FROM s",
           ARGS(a_blob(f[0], l[0]), a_blob(f[1], l[1])), miss, 2);
    tap_ok(miss[0] == 0 && miss[1] == 0,
           "1,000,000 distinct: every value tests 1 in both filters");
    t0 = now();
    q_ints(db, probe_sql,
           ARGS(a_blob(f[0], l[0]), a_blob(f[1], l[1]), a_int(probes)), hits, 2);
    double secs = now() - t0;
    static const double ps[] = {0.01, 0.001};
    for (int i = 0; i < 2; i++) {
      double rate = (double)hits[i] / (double)probes;
      double bound = fpr_bound(ps[i], (double)probes);
      tap_diag("1,000,000 distinct, p=%g: measured fpr %.6f = %lld / %lld "
               "absent probes, bound p + 3 sigma = %.6f (sigma = %.2e), "
               "%llu bits, %u hashes", ps[i], rate, (long long)hits[i],
               (long long)probes, bound, sqrt(ps[i] * (1 - ps[i]) / (double)probes),
               (unsigned long long)H_BITS(f[i]), H_HASHES(f[i]));
      tap_ok(hits[i] >= 0 && rate <= bound,
             "1,000,000 distinct, p=%g: measured fpr %.6f <= %.6f over %lld "
             "probes", ps[i], rate, bound, (long long)probes);
    }
    tap_diag("probing 1,000,000-distinct filters: %.2f s", secs);
  }
  free(f[0]);
  free(f[1]);
}

/* ---- 7. bloom_plan against bloom_build ----------------------------------- */

static void test_plan(sqlite3 *db) {
  static const sqlite3_int64 ns[] = {1, 7, 100, 1000, 4321, 100000, 1000000};
  static const double ps[] = {0.5, 0.1, 0.01, 0.001, 1e-4, 1e-6};
  const int nn = (int)(sizeof ns / sizeof *ns), np = (int)(sizeof ps / sizeof *ps);
  int cases = 0, agree = 0, model_ok = 0, below = 0, model_match = 0,
      fewest_bits = 0, fewest_hashes = 0;
  double worst_rel = 0;
  for (int i = 0; i < nn; i++) {
    for (int j = 0; j < np; j++) {
      sqlite3_int64 n = ns[i];
      double p = ps[j];
      cases++;
      sqlite3_stmt *st = prep(db, "SELECT capacity, target_fpr, bits, hashes, "
                                  "bytes, bits_per_item, expected_fpr FROM "
                                  "bloom_plan(?1, ?2)",
                              ARGS(a_int(n), a_real(p)));
      if (!st || sqlite3_step(st) != SQLITE_ROW) {
        tap_diag("  bloom_plan(%lld, %g): no row", (long long)n, p);
        sqlite3_finalize(st);
        continue;
      }
      sqlite3_int64 cap = sqlite3_column_int64(st, 0);
      double tp = sqlite3_column_double(st, 1);
      uint64_t bits = (uint64_t)sqlite3_column_int64(st, 2);
      unsigned k = (unsigned)sqlite3_column_int64(st, 3);
      sqlite3_int64 bytes = sqlite3_column_int64(st, 4);
      double bpi = sqlite3_column_double(st, 5);
      double efpr = sqlite3_column_double(st, 6);
      sqlite3_finalize(st);

      int l;
      unsigned char *f = q_blob(db, "SELECT bloom_build(1, ?1, ?2)",
                                ARGS(a_int(n), a_real(p)), &l);
      int same = f && l > 64 && H_BITS(f) == bits && H_HASHES(f) == k &&
                 (sqlite3_int64)l == bytes &&
                 (uint64_t)l == 64 + bits / 8 && bits % 512 == 0 &&
                 H_CAPACITY(f) == (uint64_t)n && cap == n && H_TARGET(f) == p &&
                 tp == p && fabs(bpi - (double)bits / (double)n) <= 1e-12 * bpi;
      if (same) agree++;
      else
        tap_diag("  (%lld, %g): bloom_plan bits %llu hashes %u bytes %lld; built "
                 "bits %llu hashes %u length %d", (long long)n, p,
                 (unsigned long long)bits, k, (long long)bytes,
                 f ? (unsigned long long)H_BITS(f) : 0ULL, f ? H_HASHES(f) : 0,
                 l);
      free(f);
      const double target = 0.97 * p;
      if (efpr <= target) model_ok++;
      else tap_diag("  (%lld, %g): expected_fpr %.6g > 0.97 p", (long long)n, p, efpr);
      if (efpr < tp) below++;
      /* FORMAT.md's model, computed here. */
      double lambda = 512.0 * (double)n / (double)bits;
      double mine = model_fpr(lambda, k);
      double rel = fabs(mine - efpr) / mine;
      if (rel > worst_rel) worst_rel = rel;
      if (rel <= 1e-6) model_match++;
      else tap_diag("  (%lld, %g): expected_fpr %.10g, model here %.10g",
                    (long long)n, p, efpr, mine);
      /* "The fewest blocks, and then the fewest hashes" (FORMAT.md). */
      int fewer_hashes_fail = k == 1 || model_fpr(lambda, k - 1) > target * (1 + 1e-9);
      if (fewer_hashes_fail) fewest_hashes++;
      else tap_diag("  (%lld, %g): %u hashes would do", (long long)n, p, k - 1);
      int fewer_blocks_fail = 1;
      if (bits > 512) {
        double lam = 512.0 * (double)n / (double)(bits - 512);
        for (unsigned kk = 1; kk <= 64 && fewer_blocks_fail; kk++)
          if (model_fpr(lam, kk) <= target * (1 - 1e-9)) fewer_blocks_fail = 0;
      }
      if (fewer_blocks_fail) fewest_bits++;
      else tap_diag("  (%lld, %g): %llu bits would do", (long long)n, p,
                    (unsigned long long)(bits - 512));
    }
  }
  tap_ok(agree == cases, "bloom_plan's bits, hashes, bytes, capacity, "
                         "target_fpr, bits_per_item = what bloom_build makes "
                         "(%d of %d (n, p))", agree, cases);
  tap_ok(model_ok == cases, "bloom_plan expected_fpr <= 0.97 p (%d of %d)",
         model_ok, cases);
  tap_ok(below == cases, "bloom_plan expected_fpr < target_fpr (%d of %d)",
         below, cases);
  tap_ok(model_match == cases,
         "bloom_plan expected_fpr = FORMAT.md's model computed here, within "
         "1e-6 relative (%d of %d; worst %.2e)", model_match, cases, worst_rel);
  tap_ok(fewest_bits == cases && fewest_hashes == cases,
         "bloom_plan's sizing has the fewest blocks, then the fewest hashes, "
         "meeting 0.97 p (blocks %d, hashes %d of %d)", fewest_bits, fewest_hashes,
         cases);

  int defaults = 0;
  for (int i = 0; i < nn; i++)
    if (q_int(db, "SELECT a.capacity = b.capacity AND a.target_fpr = 0.01 AND "
                  "b.target_fpr = 0.01 AND a.bits = b.bits AND a.hashes = "
                  "b.hashes AND a.bytes = b.bytes AND a.bits_per_item = "
                  "b.bits_per_item AND a.expected_fpr = b.expected_fpr FROM "
                  "bloom_plan(?1) AS a, bloom_plan(?1, 0.01) AS b",
              ARGS(a_int(ns[i]))) == 1)
      defaults++;
  tap_ok(defaults == nn, "bloom_plan(n) = bloom_plan(n, 0.01) (%d of %d n)",
         defaults, nn);
}

/* ---- 8. bloom_count ------------------------------------------------------ */

static void test_count(sqlite3 *db) {
  static const struct {
    const char *sql, *what;
  } filters[] = {
      {"SELECT bloom_empty(1000)", "empty"},
      {SERIES("1", "500") "SELECT bloom_build(x, 1000, 0.01) FROM s", "500 of 1000"},
      {SERIES("1", "3000") "SELECT bloom_build(x % 2000, 1000, 0.01) FROM s",
       "2000 in a filter for 1000"},
      {SERIES("1", "20000") "SELECT bloom_build(x, 1, 0.5) FROM s", "saturated"},
      {SERIES("1", "50000") "SELECT bloom_build('k' || (x % 30000)) FROM s",
       "auto-sized"},
  };
  int same = 0, mine_ok = 0, nulls = 0;
  const int nf = (int)(sizeof filters / sizeof *filters);
  for (int i = 0; i < nf; i++) {
    int l;
    unsigned char *f = q_blob(db, filters[i].sql, NOARGS, &l);
    if (!f || l <= 64) {
      tap_diag("  %s: no filter", filters[i].what);
      free(f);
      continue;
    }
    sqlite3_int64 c = q_int(db, "SELECT bloom_count(?1)", ARGS(a_blob(f, l)));
    int ctype = q_type;
    sqlite3_int64 e = q_int(db, "SELECT bloom_count(?1) IS round(estimated_items) "
                                "FROM bloom_info(?1)", ARGS(a_blob(f, l)));
    if (e == 1) same++;
    else tap_diag("  %s: bloom_count %lld vs estimated_items", filters[i].what,
                  (long long)c);
    double m = (double)H_BITS(f), k = (double)H_HASHES(f);
    double set = (double)popcount_bytes(f + 64, (size_t)l - 64);
    if (set == m) {
      if (ctype == SQLITE_NULL) mine_ok++, nulls++;
      else tap_diag("  %s: every bit set, bloom_count %lld", filters[i].what, (long long)c);
    } else {
      double est = -(m / k) * log(1.0 - set / m);
      if (ctype == SQLITE_INTEGER && llabs(c - llround(est)) <= 1) mine_ok++;
      else tap_diag("  %s: bloom_count %lld, estimate here %.3f",
                    filters[i].what, (long long)c, est);
    }
    free(f);
  }
  tap_ok(same == nf, "bloom_count = round(estimated_items) of bloom_info "
                     "(%d of %d filters)", same, nf);
  tap_ok(mine_ok == nf && nulls == 1,
         "bloom_count = -(m/k) ln(1 - set/m) from a popcount here, NULL for "
         "the saturated filter (%d of %d)", mine_ok, nf);

  static const sqlite3_int64 ds[] = {10000, 100000};
  for (int i = 0; i < 2; i++) {
    sqlite3_int64 d = ds[i];
    sqlite3_int64 c[2] = {-1, -1};
    /* d distinct values over 1.5 d rows. */
    q_ints(db, SERIES("1", "?1 * 3 / 2")
               "SELECT bloom_count(bloom_build(x % ?1, ?1, 0.01)), "
               "bloom_count(bloom_build('v' || (x % ?1))) FROM s",
           ARGS(a_int(d)), c, 2);
    for (int j = 0; j < 2; j++) {
      double err = fabs((double)c[j] - (double)d) / (double)d;
      tap_ok(c[j] > 0 && err <= 0.03,
             "bloom_count of %lld distinct (%s) = %lld, within 3%% (%.2f%%)",
             (long long)d, j ? "auto-sized, text" : "n = d, integers",
             (long long)c[j], 100 * err);
    }
  }
}

/* ---- 9. a trigger-maintained filter on an on-disk WAL database ----------- */

/* The filter is sized for the 100,000 rows: n = 100,000 at p = 0.01 is a
** 125 KB blob.  (At n = 200,000, 250 KB, the plain pass takes about twice
** as long, and the ASan pass about 7 times as long: ASan serves blocks
** over 128 KB with fresh mappings, and each trigger call allocates two.) */
#define TRIGGER_N "100000"

static sqlite3_int64 wal_frames;
static int wal_prev, wal_truncations;

/* Counts the frames each commit appends; truncates the log now and then
** (this hook replaces the auto-checkpoint one). */
static int wal_count_hook(void *ctx, sqlite3 *db, const char *name, int n) {
  (void)ctx;
  wal_frames += n >= wal_prev ? n - wal_prev : n;
  wal_prev = n;
  if (n >= 4000) {
    int log = -1, ckpt = -1;
    if (sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_TRUNCATE, &log,
                                  &ckpt) == SQLITE_OK) {
      wal_prev = 0;
      wal_truncations++;
    }
  }
  return SQLITE_OK;
}

static int insert_ids(sqlite3_stmt *ins, int m) {
  for (int j = 0; j < m; j++) {
    sqlite3_reset(ins);
    /* 62-bit random ids: a repeat among 10^5 has odds of ~10^-9. */
    sqlite3_bind_int64(ins, 1, (sqlite3_int64)(rng_next() >> 2));
    if (sqlite3_step(ins) != SQLITE_DONE) {
      tap_diag("  insert failed: %s", sqlite3_errmsg(sqlite3_db_handle(ins)));
      sqlite3_reset(ins);
      return -1;
    }
  }
  sqlite3_reset(ins);
  return 0;
}

static void compare_trigger_filter(sqlite3 *db, const char *when) {
  int lf, lb;
  unsigned char *f = q_blob(db, "SELECT f FROM filters WHERE name = 'x'",
                            NOARGS, &lf);
  unsigned char *b = q_blob(db, "SELECT bloom_build(id, " TRIGGER_N ", 0.01) FROM items",
                            NOARGS, &lb);
  if (!tap_ok(blob_eq(f, lf, b, lb) && H_INSERTED(f) == 100000,
              "trigger-maintained filter = fresh bloom_build of the table, "
              "inserted = 100,000 (%s)", when))
    diag_diff("trigger filter vs build", f, lf, b, lb);
  free(f);
  free(b);
}

static void test_trigger_wal(void) {
  const char *dir = getenv("TMPDIR");
  char path[512];
  snprintf(path, sizeof path, "%s/bloom-algebra-XXXXXX",
           dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) {
    tap_ok(0, "create a temporary database file");
    return;
  }
  close(fd);
  char wal[600], shm[600];
  snprintf(wal, sizeof wal, "%s-wal", path);
  snprintf(shm, sizeof shm, "%s-shm", path);

  sqlite3 *db = open_db_at(path);
  char *mode = NULL;
  {
    sqlite3_stmt *st = prep(db, "PRAGMA journal_mode = WAL", NOARGS);
    if (st && sqlite3_step(st) == SQLITE_ROW)
      mode = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
  }
  tap_ok(mode && strcmp(mode, "wal") == 0, "on-disk database in WAL mode (%s)",
         mode ? mode : "?");
  free(mode);
  exec_ok(db,
          "CREATE TABLE items(id INTEGER PRIMARY KEY, payload);"
          "CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);"
          "INSERT INTO filters VALUES ('x', bloom_empty(" TRIGGER_N ", 0.01));"
          "CREATE TRIGGER items_filter AFTER INSERT ON items BEGIN "
          "UPDATE filters SET f = bloom_add(f, NEW.id) WHERE name = 'x'; END;");
  int page = (int)q_int(db, "PRAGMA page_size", NOARGS);
  sqlite3_wal_hook(db, wal_count_hook, NULL);
  wal_frames = 0;
  wal_prev = 0;
  wal_truncations = 0;

  rng_seed(0x5eed4009, "trigger test ids and transaction mix");
  sqlite3_stmt *ins =
      prep(db, "INSERT INTO items(id, payload) VALUES (?1, 'p')", NOARGS);
  const int target = 100000;
  int committed = 0, rolled = 0, failed = !ins;
  sqlite3_int64 auto_frames = 0;
  int n_auto = 0, n_commit = 0, n_rollback = 0, n_sp_rollback = 0, n_sp_outer = 0;
  double t0 = now();
  while (!failed && committed < target) {
    int remaining = target - committed;
    unsigned r = (unsigned)(rng_next() % 100);
    if (r < 8) { /* autocommit */
      sqlite3_int64 before = wal_frames;
      failed |= insert_ids(ins, 1) != 0;
      auto_frames += wal_frames - before;
      committed += 1;
      n_auto++;
    } else if (r < 20) { /* a whole transaction rolled back */
      int m = 1 + (int)(rng_next() % 600);
      failed |= !exec_ok(db, "BEGIN") || insert_ids(ins, m) != 0 ||
                !exec_ok(db, "ROLLBACK");
      rolled += m;
      n_rollback++;
    } else if (r < 28) { /* an outer SAVEPOINT rolled back and released */
      int m = 1 + (int)(rng_next() % 400);
      failed |= !exec_ok(db, "SAVEPOINT outer_sp") || insert_ids(ins, m) != 0 ||
                !exec_ok(db, "ROLLBACK TO outer_sp; RELEASE outer_sp");
      rolled += m;
      n_sp_outer++;
    } else if (r < 55) { /* a plain committed transaction */
      int m = 1 + (int)(rng_next() % 3000);
      if (m > remaining) m = remaining;
      failed |= !exec_ok(db, "BEGIN") || insert_ids(ins, m) != 0 ||
                !exec_ok(db, "COMMIT");
      committed += m;
      n_commit++;
    } else { /* committed, with savepoints rolled back or kept inside */
      int m1 = 1 + (int)(rng_next() % 1500);
      if (m1 > remaining) m1 = remaining;
      int kept = m1;
      failed |= !exec_ok(db, "BEGIN") || insert_ids(ins, m1) != 0;
      for (int sp = 0; sp < 3 && !failed; sp++) {
        int m2 = 1 + (int)(rng_next() % 300);
        int roll = (rng_next() & 1) || kept + m2 > remaining;
        failed |= !exec_ok(db, "SAVEPOINT a") || insert_ids(ins, m2) != 0;
        if (roll) {
          /* a nested savepoint inside the one rolled back */
          failed |= !exec_ok(db, "SAVEPOINT b") || insert_ids(ins, 20) != 0 ||
                    !exec_ok(db, "RELEASE b; ROLLBACK TO a; RELEASE a");
          rolled += m2 + 20;
          n_sp_rollback++;
        } else {
          failed |= !exec_ok(db, "RELEASE a");
          kept += m2;
        }
      }
      failed |= !exec_ok(db, "COMMIT");
      committed += kept;
      n_commit++;
    }
  }
  sqlite3_finalize(ins);
  double secs = now() - t0;
  tap_ok(!failed, "100,000 committed inserts through the trigger");
  tap_diag("trigger run: %d committed + %d rolled back inserts in %.2f s "
           "(%.1f us per insert); %d committed transactions, %d autocommit, "
           "%d rolled back, %d outer savepoints rolled back, %d inner "
           "savepoint rollbacks", committed, rolled, secs,
           1e6 * secs / (committed + rolled), n_commit, n_auto, n_rollback,
           n_sp_outer, n_sp_rollback);
  tap_ok(n_rollback > 0 && n_sp_outer > 0 && n_sp_rollback > 0 && n_auto > 0,
         "the mix holds rolled-back transactions, rolled-back savepoints and "
         "autocommit inserts");
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM items", NOARGS), target,
             "the table holds exactly the 100,000 committed rows");
  compare_trigger_filter(db, "same connection");

  struct stat sb;
  long long wal_size = stat(wal, &sb) == 0 ? (long long)sb.st_size : -1;
  double per_insert = (double)wal_frames * (page + 24) / target;
  tap_diag("WAL: %lld frames of %d + 24 bytes for %d committed inserts = "
           "%.0f bytes per insert (%d truncating checkpoints; -wal file now "
           "%lld bytes, %d frames since the last truncation)",
           (long long)wal_frames, page, target, per_insert, wal_truncations,
           wal_size, wal_prev);
  if (n_auto)
    tap_diag("WAL: an autocommit insert appends %.1f frames (%.0f bytes) on "
             "average", (double)auto_frames / n_auto,
             (double)auto_frames * (page + 24) / n_auto);
  tap_ok(wal_size == 32 + (long long)wal_prev * (page + 24),
         "the -wal file size agrees with the frames counted since the last "
         "truncation");
  sqlite3_close(db);

  /* Reopen: what is on disk (database + WAL) gives the same answer. */
  db = open_db_at(path);
  compare_trigger_filter(db, "after reopening");
  sqlite3_close(db);
  unlink(path);
  unlink(wal);
  unlink(shm);
  tap_ok(access(path, F_OK) != 0 && access(wal, F_OK) != 0,
         "temporary database files removed");
}

/* Runs one part and reports how long it took. */
static void timed(const char *part, void (*run)(sqlite3 *), sqlite3 *db) {
  double t = now();
  run(db);
  tap_diag("%s: %.2f s", part, now() - t);
}

int main(void) {
  double t0 = now();
  sqlite3 *db = open_db_at(NULL);
  timed("build = empty + add", test_build_equals_adds, db);
  timed("merge", test_merge, db);
  timed("merge of many rows", test_merge_many, db);
  timed("union/intersect", test_union_intersect, db);
  timed("mismatches", test_mismatch, db);
  timed("bloom_add rules", test_add_rules, db);
  timed("auto-sized", test_auto_sized, db);
  timed("plan", test_plan, db);
  timed("count", test_count, db);
  sqlite3_close(db);
  double t = now();
  test_trigger_wal();
  tap_diag("trigger/WAL: %.2f s", now() - t);
  tap_diag("total %.2f s", now() - t0);
  return tap_done();
}
