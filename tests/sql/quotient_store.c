/*
** quotient_store: a growing quotient filter kept in shadow-table leaves.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** The references are ext/FORMAT.md ("Kind 4, layout 1" and "Stores",
** "Kind 4: quotient_store"), whose formulas for the configuration this
** test computes itself from the page size and the capacity, and a mirror
** table of the values added (with their copies), against which the store
** must never answer a false negative.  The false-positive rate is measured
** over values never added and must stay within the store's fpr.
**
** Checked here: the CREATE arguments (refusals name the module) and the
** rows a new store writes, sized and growing; FORMAT.md's worked example
** byte for byte, and a sized store's first width; no false negative (=,
** IN, quotient_test on the export) and the rate (measured, and the
** entries' 2^-(d+b) summed from the export) at 1% and 0.1%, growing and
** sized, with 512- and 4096-byte pages, at 1, 10 and 100 times a leaf's
** items; the store and its export answering alike; each chunk row its
** leaf's record padded to row_reserve; deletes (one copy, copies on both
** sides of a split, churn); INSERT OR IGNORE; refusals and affinity; the
** copies limit and long keys; ROLLBACK, savepoints and statements failing
** part way across splits; reopening a file; two connections; damaged
** shadow tables, refused with "quotient_store:" and SQLITE_CORRUPT_VTAB;
** the summary row and quotient_info's figures.
**
** QTEST_VERBOSE=1 prints every store's figures.
*/
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/rng.h"
#include "lib/sqldb.h"
#include "lib/store_damage.h"
#include "lib/tap.h"

#define SEED 0x9b07e57043ull
#define MODULE "quotient_store"

/* ---- FORMAT.md's figures, computed here ----------------------------------- */

/* E = min(511, floor((page_size - 96) / 6)). */
static int spec_leaf_items(int page) {
  int e = (page - 96) / 6;
  return e < 511 ? e : 511;
}

/* D: the least depth with capacity / 2^D <= 0.85 * E (at most 22: a
** larger capacity is refused). */
static int spec_base_depth(double capacity, int e) {
  int d = 0;
  while (capacity / ldexp(1.0, d) > 0.85 * e) d++;
  return d;
}

/* t of a sized store's first generation: log2((1 + 3 / sqrt(m)) * 16 /
** 15), m = capacity / 2^D. */
static double spec_first_t(double m) {
  return log2((1 + 3 / sqrt(m)) * 16 / 15);
}

/* b = ceil(log2(W / p) + t), at least 1, at most 64 and 128 - d. */
static unsigned spec_width(double w, double p, double t, int d) {
  double b = ceil(log2(w / p) + t);
  unsigned most = 128 - d < 64 ? (unsigned)(128 - d) : 64;
  if (!(b >= 1)) return 1;
  return b > most ? most : (unsigned)b;
}

/* The bytes of a section of c keys of b bits ("A leaf's record"): 3 +
** ceil((c + 2^m + c * (b - m)) / 8), for the m (0 to min(b, 16)) that
** makes it smallest. */
static size_t spec_section_bytes(uint64_t c, unsigned b) {
  size_t best = SIZE_MAX;
  for (unsigned m = 0; m <= (b < 16 ? b : 16); m++) {
    size_t bytes = 3 + (size_t)((c + ((uint64_t)1 << m) + c * (b - m) + 7) / 8);
    if (bytes < best) best = bytes;
  }
  return best;
}

/* The rate bound of a layout-1 blob ("Splitting, and what a leaf's
** entries cost"): the sum over its entries of 2^-(d + b), d its leaf's
** depth, read from the directory and the sections' headers; -1 if the
** blob does not parse. */
static double spec_entries_rate(const unsigned char *f, int len) {
  if (len < 64) return -1;
  uint64_t leaves = le64(f + 16);
  size_t area = 64 + 16 * (size_t)leaves, start = 0;
  if (area > (size_t)len) return -1;
  double sum = 0;
  for (uint64_t i = 0; i < leaves; i++) {
    uint64_t node = le64(f + 64 + 16 * i), end = le64(f + 64 + 16 * i + 8);
    int d = 0;
    while (node >> (unsigned)(d + 1)) d++;
    if (area + end > (size_t)len || end <= start) return -1;
    const unsigned char *rec = f + area + start;
    size_t at = 1;
    for (unsigned k = 0; k < rec[0]; k++) {
      uint32_t w = (uint32_t)rec[at] | (uint32_t)rec[at + 1] << 8 |
                   (uint32_t)rec[at + 2] << 16;
      uint64_t c = w & 4095, b = w >> 12 & 127, m = w >> 19 & 31;
      sum += (double)c * ldexp(1.0, -(d + (int)b));
      at += 3 + (size_t)((c + ((uint64_t)1 << m) + c * (b - m) + 7) / 8);
      if (at > end - start) return -1;
    }
    if (at != end - start) return -1;
    start = end;
  }
  return sum;
}

/* ---- databases and stores --------------------------------------------------- */

static sqlite3 *paged(int page) {
  sqlite3 *db = open_db(NULL);
  char sql[80];
  snprintf(sql, sizeof sql, "PRAGMA page_size = %d; VACUUM", page);
  must_exec(db, sql);
  return db;
}

/* A file database (no sync: the test does not survive power loss). */
static sqlite3 *paged_file(const char *path, int page) {
  sqlite3 *db = open_db_at(path);
  char sql[120];
  snprintf(sql, sizeof sql, "PRAGMA synchronous = OFF; PRAGMA page_size = "
           "%d; VACUUM", page);
  must_exec(db, sql);
  return db;
}

/* Store q (args) and its mirror m(v), one row per copy added. */
static void create_store(sqlite3 *db, const char *args) {
  char sql[256];
  snprintf(sql, sizeof sql,
           "DROP TABLE IF EXISTS q; DROP TABLE IF EXISTS m;"
           "CREATE VIRTUAL TABLE q USING quotient_store(%s);"
           "CREATE TABLE m(v)", args);
  must_exec(db, sql);
}

/* Adds the integers lo .. lo + n - 1 to q and to m, in one statement each. */
static void add_range(sqlite3 *db, sqlite3_int64 lo, sqlite3_int64 n) {
  if (n <= 0) return;
  const arg a[] = {a_int(lo), a_int(lo + n - 1)};
  sqlite3_stmt *st = prep(db, SERIES("?1", "?2")
                          "INSERT INTO q(value) SELECT x FROM s", a, 2);
  int rc = st ? sqlite3_step(st) : SQLITE_ERROR;
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    tap_diag("insert failed: %s", sqlite3_errmsg(db));
    exit(2);
  }
  st = prep(db, SERIES("?1", "?2") "INSERT INTO m SELECT x FROM s", a, 2);
  if (st) sqlite3_step(st);
  sqlite3_finalize(st);
}

/* Adds v to q and to m. */
static void add_value(sqlite3 *db, arg v) {
  sqlite3_stmt *st = prep(db, "INSERT INTO q(value) VALUES (?1)", &v, 1);
  int rc = st ? sqlite3_step(st) : SQLITE_ERROR;
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    tap_diag("insert failed: %s", sqlite3_errmsg(db));
    exit(2);
  }
  st = prep(db, "INSERT INTO m VALUES (?1)", &v, 1);
  if (st) sqlite3_step(st);
  sqlite3_finalize(st);
}

/* 1 if sql fails (an expected failure, without a diagnostic). */
static int fails(sqlite3 *db, const char *sql) {
  char msg[256];
  return run_for_error(db, sql, NOARGS, msg, sizeof msg, NULL, NULL);
}

/* The export, malloc'd (NULL on error). */
static unsigned char *export_of(sqlite3 *db, int *len) {
  return q_blob(db, "SELECT filter FROM q", NOARGS, len);
}

static int same_bytes(const unsigned char *a, int alen, const unsigned char *b,
                      int blen) {
  return a && b && alen == blen && memcmp(a, b, (size_t)alen) == 0;
}

static int export_is(sqlite3 *db, const unsigned char *want, int want_len) {
  int len;
  unsigned char *f = export_of(db, &len);
  int same = same_bytes(f, len, want, want_len);
  free(f);
  return same;
}

/* K, narrow_leaves: the largest K below 2^D with W0 (2^D + K) <= 15/16 p
** 2^(D + b), W0 = m + 3 sqrt(m), b generation 0's width; 0 if b < 2 or
** none fits.  Counted up from 0, where the extension solves for it. */
static long long spec_narrow(double m, double p, int d, unsigned b) {
  if (b < 2) return 0;
  double w0 = m + 3 * sqrt(m), bound = 15.0 / 16 * p * ldexp(1.0, d + (int)b);
  long long k = 0;
  while (k + 1 < (1LL << d) && w0 * (ldexp(1.0, d) + (double)(k + 1)) <= bound)
    k++;
  return k;
}

/* narrow_below, as a store without capacity writes it ("Widths"): f =
** (r * 31/32 - 26) / 23, r = p 2^b / W, b = ceil(log2(W / p) + 5), W =
** (E + 1) / 2; 0 if b < 2 or f <= 0, 2^62 if f >= 1, else floor(f 2^20)
** 2^42. */
static long long spec_narrow_below(int e, double p) {
  double w = (e + 1) / 2.0;
  unsigned b = spec_width(w, p, 5, 1);
  if (b < 2) return 0;
  double f = (p * ldexp(1.0, (int)b) / w * 31 / 32 - 26) / 23;
  if (!(f > 0)) return 0;
  if (f >= 1) return 1LL << 62;
  return (long long)floor(f * 1048576) << 42;
}

/* The reserve of a sized store's rows for keys of b bits: the record of
** ceil(m + sqrt(m)) entries, within leaf_bytes. */
static size_t spec_reserve(double m, unsigned b, int bytes) {
  size_t reserve = 1 + spec_section_bytes((uint64_t)ceil(m + sqrt(m)), b);
  return reserve > (size_t)bytes ? (size_t)bytes : reserve;
}

/* Values of m the store misses, by =. */
static sqlite3_int64 misses_eq(sqlite3 *db) {
  return q_int(db, "SELECT count(*) FROM m WHERE NOT EXISTS (SELECT 1 FROM q "
                   "WHERE value = m.v)", NOARGS);
}

/* ---- 1. arguments and configuration ----------------------------------------- */

/* The configuration rows FORMAT.md gives a store made with page size
** `page`, capacity (0: none) and fpr (as written in the CREATE), as
** "key=value:type;" in key order. */
/* ... and K (narrow_leaves, written when not 0) and the narrow leaves'
** reserve into *narrow and *narrow_reserve. */
static void spec_config(char *out, size_t size, int page, sqlite3_int64 cap,
                        const char *fpr_text, long long *narrow,
                        size_t *narrow_reserve) {
  int e = spec_leaf_items(page);
  int bytes = page - 96;
  int d = cap ? spec_base_depth((double)cap, e) : 0;
  size_t reserve = 0;
  *narrow = 0;
  *narrow_reserve = 0;
  if (cap) {
    double mean = (double)cap / ldexp(1.0, d);
    unsigned b = spec_width(mean, atof(fpr_text), spec_first_t(mean), d);
    reserve = spec_reserve(mean, b, bytes);
    *narrow = spec_narrow(mean, atof(fpr_text), d, b);
    if (*narrow) *narrow_reserve = spec_reserve(mean, b - 1, bytes);
  }
  char k[64] = "";
  if (*narrow) snprintf(k, sizeof k, "narrow_leaves=%lld:integer;", *narrow);
  long long below = cap ? 0 : spec_narrow_below(e, atof(fpr_text));
  if (below) snprintf(k, sizeof k, "narrow_below=%lld:integer;", below);
  snprintf(out, size,
           "base_depth=%d:integer;capacity=%lld:integer;fpr=%s:real;"
           "kind=4:integer;leaf_bytes=%d:integer;leaf_items=%d:integer;"
           "%srow_reserve=%zu:integer;%sseed=0:integer;sized=%d:integer;"
           "version=1:integer",
           d, (long long)(cap ? cap : 10000), fpr_text, bytes, e, k, reserve,
           cap ? "" : "rows_by_range=1:integer;", cap ? 1 : 0);
}

static void test_arguments(void) {
  sqlite3 *db = open_db(NULL);
  static const bad_arguments bad[] = {
      {"growth = 2", "a quotient store grows by splitting its leaves"},
      {"capacity = 1000, growth = 2",
       "a quotient store grows by splitting its leaves"},
      {"tightening = 0.5", "a quotient store grows by splitting its leaves"},
      {"window = 3600", "a quotient store grows by splitting its leaves"},
      {"window = 3600, clock = 'events'",
       "a quotient store grows by splitting its leaves"},
      {"fpr = 0", "fpr must be a number"},
      {"fpr = 1", "fpr must be a number"},
      {"fpr = 1e-13", "fpr must be a number"},
      {"fpr = x", "fpr must be a number"},
      {"capacity = 0", "capacity must be an integer >= 1"},
      {"capacity = -5", "capacity must be an integer >= 1"},
      {"capacity = 1.5", "capacity must be an integer >= 1"},
      {"capacity = 100000000000000000", "a capacity of 100000000000000000 is "
                                        "more than"},
      /* D = 23 at 4096-byte pages: 0.85 * 511 * 2^22 < 1.83e9 */
      {"capacity = 1830000000", "a capacity of 1830000000 is more than"},
      {"colour = 1", "unknown argument \"colour\""},
      {"fpr = 0.01, fpr = 0.01", "fpr is given twice"},
  };
  check_bad_arguments(db, MODULE, bad, sizeof bad / sizeof bad[0]);
  check_bad_arguments(db, MODULE, bad_growth_arguments, BAD_GROWTH_ARGUMENTS);
  sqlite3_close(db);

  /* The rows of new stores, at several page sizes and capacities. */
  static const int pages[] = {512, 1024, 4096, 65536};
  static const struct {
    sqlite3_int64 cap;
    const char *fpr, *args;
  } shapes[] = {
      {0, "0.01", "fpr = 0.01"},
      {0, "0.001", "fpr = 0.001"},
      {0, "0.01", ""},
      {1, "0.01", "capacity = 1"},
      {60, "0.01", "capacity = 60"},
      {450, "0.01", "capacity = 450"},
      {1000, "0.05", "capacity = 1000, fpr = 0.05"},
      {100000, "0.001", "capacity = 100000, fpr = 0.001"},
      {140000, "0.01", "capacity = 140000, fpr = 0.01"},
      {3000000, "1.0e-06", "capacity = 3000000, fpr = 1e-6"},
  };
  int rows_ok = 1, dir_ok = 1, rows_made = 1, cases = 0, narrowed = 0;
  for (size_t p = 0; p < sizeof pages / sizeof pages[0]; p++) {
    db = paged(pages[p]);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
      char sql[512], want[512];
      snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE q%zu USING "
               "quotient_store(%s)", i, shapes[i].args);
      must_exec(db, sql);
      cases++;
      long long narrow;
      size_t narrow_reserve;
      spec_config(want, sizeof want, pages[p], shapes[i].cap, shapes[i].fpr,
                  &narrow, &narrow_reserve);
      narrowed += narrow > 0;
      snprintf(sql, sizeof sql, "SELECT group_concat(key || '=' || value || "
               "':' || typeof(value), ';') FROM (SELECT * FROM q%zu_config "
               "ORDER BY key)", i);
      char *got = q_text(db, sql, NOARGS);
      if (!got || strcmp(got, want) != 0) {
        rows_ok = 0;
        tap_diag("page %d, quotient_store(%s):", pages[p], shapes[i].args);
        tap_diag("  got  %s", got ? got : "NULL");
        tap_diag("  want %s", want);
      }
      free(got);
      /* 2^D leaves, chunk p = node 2^D + p, no gap; no chunk row yet. */
      int d = shapes[i].cap ? spec_base_depth((double)shapes[i].cap,
                                              spec_leaf_items(pages[p]))
                            : 0;
      snprintf(sql, sizeof sql, "SELECT count(*) = %lld AND min(chunk) = 0 "
               "AND max(chunk) = %lld AND sum(node != %lld + chunk) = 0 FROM "
               "q%zu_directory", 1LL << d, (1LL << d) - 1, 1LL << d, i);
      if (q_int(db, sql, NOARGS) != 1) {
        dir_ok = 0;
        tap_diag("page %d, quotient_store(%s): directory not 2^%d leaves",
                 pages[p], shapes[i].args, d);
      }
      /* Sized: the 2^D rows of row_reserve zeros, the first K of the
      ** narrow leaves' reserve; growing: none. */
      snprintf(sql, sizeof sql, "SELECT count(*) = %lld AND ifnull(sum(id "
               "!= rowid OR id < 0 OR id >= %lld OR typeof(data) != 'blob' "
               "OR data != zeroblob(CASE WHEN id < %lld THEN %zu ELSE (SELECT "
               "value FROM q%zu_config WHERE key = 'row_reserve') END)), 0) = "
               "0 FROM q%zu_chunks", shapes[i].cap ? 1LL << d : 0, 1LL << d,
               narrow, narrow_reserve, i, i);
      if (q_int(db, sql, NOARGS) != 1) {
        rows_made = 0;
        tap_diag("page %d, quotient_store(%s): chunk rows not as FORMAT.md "
                 "says", pages[p], shapes[i].args);
      }
    }
    sqlite3_close(db);
  }
  tap_ok(rows_ok, "%d new stores (4 page sizes, growing and sized): the "
         "config rows are FORMAT.md's (E, leaf_bytes, base_depth, "
         "row_reserve from its formulas)", cases);
  tap_ok(dir_ok, "each new store's directory is the 2^D leaves of depth D, "
         "chunk p = node 2^D + p");
  tap_ok(rows_made, "a new sized store has its 2^D chunk rows, row_reserve "
         "zeros each (the first K: the narrow leaves' reserve); a growing one "
         "has none");
  tap_ok(narrowed >= 8, "%d of the sized stores have narrow leaves (K > 0)",
         narrowed);

  /* FORMAT.md's worked example, "Kind 4, layout 1", byte for byte. */
  db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE q USING quotient_store(fpr = 0.01);"
                "INSERT INTO q(value) VALUES (42)");
  char *hex = q_text(db, "SELECT hex(filter) FROM q", NOARGS);
  const char *want =
      "424C4D46010401000000000000000100"
      "01000000000000001027000000000000"
      "7B14AE47E17A843F0100000000000000"
      "00000000000000000000000000000000"
      "01000000000000000700000000000000"
      "01014001294C20";
  tap_ok(hex && strcmp(hex, want) == 0, "FORMAT.md's worked example: one "
         "value in a growing store exports its 87 bytes exactly");
  if (hex && strcmp(hex, want) != 0) tap_diag("  got %s", hex);
  free(hex);
  /* The width of a sized store's first entries: b = ceil(log2(m / p) +
  ** log2((1 + 3 / sqrt(m)) * 16 / 15)), m = capacity / 2^D, and b - 1 in
  ** the first K leaves (narrow_leaves); read from the one section's header
  ** of each record in the export, found by walking the records area. */
  static const struct {
    long long cap;
    double fpr;
  } sized[] = {{6982, 0.001}, {140000, 0.01}, {100000, 0.01}};
  for (size_t z = 0; z < sizeof sized / sizeof sized[0]; z++) {
    char sql[256];
    snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE r%zu USING quotient_store("
             "capacity = %lld, fpr = %g); INSERT INTO r%zu(value) WITH RECURSIVE "
             "n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) "
             "SELECT 'w' || i FROM n", z, sized[z].cap,
             sized[z].fpr, z);
    must_exec(db, sql);
    int d = spec_base_depth((double)sized[z].cap, spec_leaf_items(4096));
    double m = (double)sized[z].cap / ldexp(1.0, d);
    unsigned b = spec_width(m, sized[z].fpr, spec_first_t(m), d);
    long long k = spec_narrow(m, sized[z].fpr, d, b);
    int len;
    snprintf(sql, sizeof sql, "SELECT filter FROM r%zu", z);
    unsigned char *f = q_blob(db, sql, NOARGS, &len);
    /* records area: after the 16-byte directory entries; each record is
    ** 00 (empty) or 01 + a 24-bit header (c, b, m) + its body */
    long long wrong = 0, narrow_seen = 0, wide_seen = 0, leaf = 0;
    int at = 64 + (16 << d);
    while (f && at < len && leaf < (1LL << d)) {
      if (f[at] == 0) {
        at++;
        leaf++;
        continue;
      }
      if (f[at] != 1 || at + 3 >= len) {
        wrong++;
        break;
      }
      uint32_t w = (uint32_t)f[at + 1] | (uint32_t)f[at + 2] << 8 |
                   (uint32_t)f[at + 3] << 16;
      unsigned c = w & 4095, got = w >> 12 & 127, mm = w >> 19 & 31;
      unsigned width = leaf < k ? b - 1 : b;
      wrong += got != width;
      narrow_seen += leaf < k;
      wide_seen += leaf >= k;
      at += 4 + (int)((c + (1ULL << mm) + (uint64_t)c * (got - mm) + 7) / 8);
      leaf++;
    }
    tap_ok(f && wrong == 0 && leaf == (1LL << d) && at == len &&
               narrow_seen > 0 && (k == (1LL << d) - 1 || wide_seen > 0),
           "a sized store (%lld, %g, D = %d) writes its entries with %u bits "
           "(FORMAT.md's width), %u in its first K = %lld leaves (%lld and "
           "%lld leaves seen; %lld wrong)", sized[z].cap, sized[z].fpr, d, b,
           b - 1, k, narrow_seen, wide_seen, wrong);
    free(f);
  }
  /* A growing store: an entry written into a leaf of depth d >= 1 has b =
  ** ceil(log2(W / p) + 5) bits, W = (E + 1) / 2, and b - 1 in the leaves
  ** whose first h1 / 4 is below narrow_below; inherited entries have
  ** fewer.  So no leaf's widest key passes its own width, and leaves of
  ** both kinds reach it. */
  static const double grown[] = {0.01, 0.001};
  for (size_t z = 0; z < sizeof grown / sizeof grown[0]; z++) {
    char sql[640];
    snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE g%zu USING quotient_store("
             "fpr = %g); INSERT INTO g%zu(value) WITH RECURSIVE n(i) AS (SELECT 1 "
             "UNION ALL SELECT i + 1 FROM n WHERE i < 40000) SELECT 'g' || i "
             "FROM n", z, grown[z], z);
    must_exec(db, sql);
    long long below = spec_narrow_below(511, grown[z]);
    unsigned b = spec_width(256, grown[z], 5, 1);
    snprintf(sql, sizeof sql, "SELECT (SELECT value FROM g%zu_config WHERE key "
             "= 'narrow_below') = %lld AND count(*) > 100 AND sum(max_bits > w) "
             "= 0 AND sum(max_bits = w AND w = %u) > 10 AND sum(max_bits = w "
             "AND w = %u) > 10 FROM (SELECT max_bits, %u - (((node - (1 << "
             "depth)) << (62 - depth)) < %lld) AS w FROM quotient_leaves(("
             "SELECT filter FROM g%zu)) WHERE depth >= 1)", z, below, b - 1, b,
             b, below, z);
    tap_ok(below > 0 && q_int(db, sql, NOARGS) == 1,
           "a growing store (fpr %g, 40,000 values) writes its entries with "
           "%u bits (FORMAT.md's width), %u in the leaves below narrow_below "
           "= %lld, and no leaf has a wider key", grown[z], b, b - 1, below);
  }
  sqlite3_close(db);
}

/* The id of the row of the leaf `node` = 2^d + p in a store with
** rows_by_range = 1 (a growing one): p * 2^(62 - d), the first h1 it
** owns over 4. */
static sqlite3_int64 spec_row_id(uint64_t node) {
  int d = 63;
  while (d > 0 && !(node >> d & 1)) d--;
  return (sqlite3_int64)((node - (1ULL << d)) << (62 - d));
}

/* The chunk rows against the export ("Rows", "Kind 4: quotient_store"):
** leaf i's row, found by its node (in q_directory; at spec_row_id with
** rows_by_range = 1, else at its chunk number), is either as
** CREATE made it (row_reserve zeros: the empty record 00, then zeros) or
** its record followed by zeros to floor(row_reserve / 2) bytes when
** shorter; a leaf without a row has the empty record 00.  Returns the
** leaves that differ, or -1 when something cannot be read. */
static long long rows_unlike_records(sqlite3 *db, const unsigned char *f,
                                     int len) {
  sqlite3_int64 reserve = q_int(db, "SELECT value FROM q_config WHERE key = "
                                    "'row_reserve'", NOARGS);
  if (len < 64) return -1;
  uint64_t leaves = le64(f + 16);
  size_t area = 64 + 16 * (size_t)leaves;
  if (area > (size_t)len) return -1;
  int by_range = q_int(db, "SELECT count(*) FROM q_config WHERE key = "
                          "'rows_by_range' AND value = 1", NOARGS) == 1;
  sqlite3_stmt *st = must_prep(db, "SELECT length(d.data), d.data, "
                                   "d.data IS NULL FROM q_directory AS r "
                                   "LEFT JOIN q_chunks AS d ON d.id = "
                                   "coalesce(?2, r.chunk) WHERE r.node = ?1");
  long long bad = 0;
  uint64_t start = 0;
  for (uint64_t i = 0; i < leaves; i++) {
    uint64_t node = le64(f + 64 + 16 * i), end = le64(f + 64 + 16 * i + 8);
    size_t rec = (size_t)(end - start);
    const unsigned char *r = f + area + start;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)node);
    if (by_range) sqlite3_bind_int64(st, 2, spec_row_id(node));
    if (sqlite3_step(st) != SQLITE_ROW) {
      bad++;
    } else if (sqlite3_column_int(st, 2)) {
      if (!(rec == 1 && r[0] == 0)) bad++;
    } else {
      size_t half = (size_t)reserve / 2;
      size_t want = rec < half ? half : rec;
      size_t got = (size_t)sqlite3_column_int64(st, 0);
      const unsigned char *row = sqlite3_column_blob(st, 1);
      int zeros = 1;
      for (size_t k = 0; k < got; k++) zeros &= row[k] == 0;
      int as_made = got == (size_t)reserve && zeros && rec == 1 && r[0] == 0;
      int same = got == want && memcmp(row, r, rec) == 0;
      for (size_t k = rec; same && k < got; k++) same = row[k] == 0;
      if (!same && !as_made) bad++;
    }
    sqlite3_reset(st);
    start = end;
  }
  sqlite3_finalize(st);
  return bad;
}

/* ---- 2. no false negative, and the rate -------------------------------------- */

typedef struct tally {
  long long trials, positives;
} tally;
static tally rate_total[2]; /* [0]: fpr 0.01, [1]: 0.001 */

/* Checks store q against mirror m (n values, lo .. lo + n - 1): no false
** negative by =, IN, or quotient_test on the export; the rate over
** `trials` values never added <= fpr; store and export agree on every
** probe; quotient_info's figures. */
static void check_store(sqlite3 *db, const char *label, double fpr,
                        sqlite3_int64 n, sqlite3_int64 absent_lo,
                        sqlite3_int64 trials, int *all_ok) {
  int len;
  unsigned char *f = export_of(db, &len);
  if (!f) {
    tap_ok(0, "%s: the export", label);
    return;
  }
  sqlite3_int64 miss_eq = misses_eq(db);
  sqlite3_int64 hit_in = q_int(db, "SELECT count(*) FROM q WHERE value IN "
                                   "(SELECT v FROM m)", NOARGS);
  sqlite3_int64 miss_ex = q_int(db, "SELECT count(*) FROM m WHERE NOT "
                                    "quotient_test(?1, v)",
                                ARGS(a_blob(f, len)));
  sqlite3_int64 differ_present = q_int(
      db, "SELECT count(*) FROM m WHERE quotient_test(?1, v) IS NOT "
          "EXISTS (SELECT 1 FROM q WHERE value = m.v)", ARGS(a_blob(f, len)));
  /* Absent values: store and export on each. */
  sqlite3_stmt *st = prep(db, SERIES("?1", "?2")
                          "SELECT sum(st), sum(ex), sum(st IS NOT ex) FROM "
                          "(SELECT EXISTS (SELECT 1 FROM q WHERE value = x) AS "
                          "st, quotient_test(?3, x) AS ex FROM s)",
                          ARGS(a_int(absent_lo),
                               a_int(absent_lo + trials - 1), a_blob(f, len)));
  long long fp_store = -1, fp_export = -1, differ = -1;
  if (st && sqlite3_step(st) == SQLITE_ROW) {
    fp_store = sqlite3_column_int64(st, 0);
    fp_export = sqlite3_column_int64(st, 1);
    differ = sqlite3_column_int64(st, 2);
  }
  sqlite3_finalize(st);
  long long leaves = q_int(db, "SELECT count(*) FROM q_directory", NOARGS);
  st = prep(db, "SELECT items, blocks, block_bytes, kind FROM "
            "quotient_info(?1)", ARGS(a_blob(f, len)));
  long long items = -1, blocks = -1, block_bytes = -1;
  int kind_ok = 0;
  if (st && sqlite3_step(st) == SQLITE_ROW) {
    items = sqlite3_column_int64(st, 0);
    blocks = sqlite3_column_int64(st, 1);
    block_bytes = sqlite3_column_int64(st, 2);
    kind_ok = strcmp((const char *)sqlite3_column_text(st, 3), "quotient") == 0;
  }
  sqlite3_finalize(st);
  double bound = spec_entries_rate(f, len);
  long long rows_bad = rows_unlike_records(db, f, len);
  free(f);
  int fn_ok = miss_eq == 0 && hit_in == n && miss_ex == 0;
  int rate_ok = fp_store >= 0 && (double)fp_store <= fpr * (double)trials &&
                bound >= 0 && bound <= fpr;
  int alike = differ == 0 && fp_store == fp_export && differ_present == 0;
  int info_ok = kind_ok && items == n && blocks == leaves && block_bytes == 0 &&
                rows_bad == 0;
  int ok = fn_ok && rate_ok && alike && info_ok;
  if (!ok || getenv("QTEST_VERBOSE")) {
    tap_diag("%s: entries' 2^-(d+b) sum to %.6f", label, bound);
    tap_diag("%s: %lld leaves; misses: = %lld, IN %lld of %lld hit, export "
             "%lld; %lld / %lld false positives (store), %lld (export), "
             "%lld differ (+%lld of the present); info: items %lld blocks "
             "%lld block_bytes %lld", label, leaves, (long long)miss_eq,
             (long long)hit_in, (long long)n, (long long)miss_ex, fp_store,
             (long long)trials, fp_export, differ, (long long)differ_present,
             items, blocks, block_bytes);
  }
  if (!ok) *all_ok = 0;
  tally *t = &rate_total[fpr < 0.005];
  t->trials += trials;
  t->positives += fp_store;
  tap_ok(fn_ok, "%s: no false negative among %lld values (=, IN, "
         "quotient_test on the export)", label, (long long)n);
  if (!tap_ok(rate_ok, "%s: %lld false positives in %lld absent values, "
              "rate %.5f <= fpr %g; the entries' 2^-(d+b) sum to %.6f <= "
              "fpr", label, fp_store, (long long)trials,
              (double)fp_store / (double)trials, fpr, bound))
    tap_diag("  bound %.0f", fpr * (double)trials);
  tap_ok(alike && info_ok, "%s: store and export answer all %lld probes "
         "alike; quotient_info: items %lld, blocks = %lld leaves, "
         "block_bytes 0; each chunk row is its leaf's record, padded to "
         "row_reserve / 2, or as CREATE made it (%lld differ)", label, (long long)(n + trials), items,
         leaves, rows_bad);
}

/* Trials per store: 100 / fpr for a sized store (whose rate at capacity
** comes near its fpr: a rate at the bound would give 100 false
** positives, standard deviation 10), 30 / fpr for a growing one (whose
** entries' 2^-(d+b) sum to a fifth of fpr or less). */
static sqlite3_int64 trials_for(double fpr, int sized) {
  return (sqlite3_int64)llround((sized ? 100 : 30) / fpr);
}

static void test_rate(void) {
  uint64_t rng = seed_print(SEED, "rate: where the values start");
  static const int pages[] = {512, 4096};
  static const double fprs[] = {0.01, 0.001};
  int all_ok = 1;
  for (size_t pi = 0; pi < 2; pi++) {
    int page = pages[pi], e = spec_leaf_items(page);
    /* 100x a leaf at 512-byte pages (6,900 values); 10x at 4096 (5,110)
    ** keeps the test short. */
    int most = page == 512 ? 100 : 10;
    for (size_t fi = 0; fi < 2; fi++) {
      double fpr = fprs[fi];
      char args[128], label[160];
      /* Growing: filled to 1, 10, (100) times E, checked at each. */
      sqlite3 *db = paged(page);
      snprintf(args, sizeof args, "fpr = %g", fpr);
      create_store(db, args);
      sqlite3_int64 lo = (sqlite3_int64)(splitmix64(&rng) >> 24), n = 0;
      for (int times = 1; times <= most; times *= 10) {
        add_range(db, lo + n, (sqlite3_int64)times * e - n);
        n = (sqlite3_int64)times * e;
        snprintf(label, sizeof label, "page %d, growing, fpr %g, %lld values "
                 "(%dx E)", page, fpr, (long long)n, times);
        check_store(db, label, fpr, n, lo + ((sqlite3_int64)1 << 41),
                    trials_for(fpr, 0), &all_ok);
      }
      /* Sized, filled to its capacity. */
      for (int times = 1; times <= most; times *= 10) {
        n = (sqlite3_int64)times * e;
        snprintf(args, sizeof args, "capacity = %lld, fpr = %g",
                 (long long)n, fpr);
        create_store(db, args);
        lo = (sqlite3_int64)(splitmix64(&rng) >> 24);
        add_range(db, lo, n);
        snprintf(label, sizeof label, "page %d, sized %lld (%dx E), fpr %g, "
                 "at capacity", page, (long long)n, times, fpr);
        check_store(db, label, fpr, n, lo + ((sqlite3_int64)1 << 41),
                    trials_for(fpr, 1), &all_ok);
      }
      sqlite3_close(db);
    }
  }
  /* A sized store filled past its capacity: its first generation's
  ** leaves split past floor(m + 3 sqrt(m)) of their own entries
  ** ("Splits"), so the rate holds (entries' sum 0.0092 at twice a
  ** capacity of 1000: 100,000 trials, so that a rate at the bound, 1,000
  ** expected, stands 2.7 standard deviations above it). */
  static const struct { int cap, times; sqlite3_int64 trials; } past[] = {
      {10, 50, 20000}, {1000, 2, 100000}, {1000, 4, 100000}};
  for (size_t i = 0; i < sizeof past / sizeof past[0]; i++) {
    sqlite3 *db = open_db(NULL);
    char args[80], label[160];
    snprintf(args, sizeof args, "capacity = %d, fpr = 0.01", past[i].cap);
    create_store(db, args);
    sqlite3_int64 n = (sqlite3_int64)past[i].cap * past[i].times;
    sqlite3_int64 lo = (sqlite3_int64)(splitmix64(&rng) >> 24);
    add_range(db, lo, n);
    snprintf(label, sizeof label, "sized %d, fpr 0.01, filled to %d times "
             "its capacity", past[i].cap, past[i].times);
    check_store(db, label, 0.01, n, lo + ((sqlite3_int64)1 << 41),
                past[i].trials, &all_ok);
    sqlite3_close(db);
  }
  for (int i = 0; i < 2; i++)
    tap_ok((double)rate_total[i].positives <=
               fprs[i] * (double)rate_total[i].trials,
           "all stores at fpr %g together: %lld false positives in %lld "
           "trials (rate %.5f)", fprs[i], rate_total[i].positives,
           rate_total[i].trials,
           (double)rate_total[i].positives / (double)rate_total[i].trials);
}

/* ---- 3. deletes --------------------------------------------------------------- */

/* DELETE FROM q WHERE value = v: sqlite3_changes(), or -1 on error.  A
** match whose entries are of several widths counts as a change but
** removes nothing (FORMAT.md, "Kind 4: quotient_store"): items_of tells. */
static int delete_one(sqlite3 *db, arg v) {
  sqlite3_stmt *st = prep(db, "DELETE FROM q WHERE value = ?1", &v, 1);
  int rc = st ? sqlite3_step(st) : SQLITE_ERROR;
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    tap_diag("delete failed: %s", sqlite3_errmsg(db));
    return -1;
  }
  return sqlite3_changes(db);
}

static sqlite3_int64 items_of(sqlite3 *db) {
  return q_int(db, "SELECT items FROM quotient_info((SELECT filter FROM q))",
               NOARGS);
}

static int present(sqlite3 *db, arg v) {
  return (int)q_int(db, "SELECT EXISTS (SELECT 1 FROM q WHERE value = ?1)",
                    &v, 1);
}

static void test_deletes(void) {
  sqlite3 *db = paged(512);
  create_store(db, "fpr = 0.01");
  must_exec(db, "INSERT INTO q(value) VALUES ('twice'), ('twice'), ('once')");
  int removed = delete_one(db, a_text("twice"));
  int still = present(db, a_text("twice"));
  sqlite3_int64 items = items_of(db);
  tap_ok(removed == 1 && still && items == 2,
         "added twice, deleted once: still present, items 3 - 1 = %lld",
         (long long)items);
  removed = delete_one(db, a_text("twice"));
  tap_ok(removed == 1 && items_of(db) == 1 && present(db, a_text("once")),
         "deleted again: one more entry gone, the other value kept");
  /* INSERT OR IGNORE adds a copy, even of a value present. */
  must_exec(db, "INSERT OR IGNORE INTO q(value) VALUES ('once');"
                "INSERT OR IGNORE INTO q(value) VALUES ('once')");
  tap_ok(items_of(db) == 3, "INSERT OR IGNORE of a present value adds a copy "
         "each time (items %lld, want 3)", (long long)items_of(db));
  removed = delete_one(db, a_text("once"));
  removed += delete_one(db, a_text("once"));
  tap_ok(removed == 2 && present(db, a_text("once")) && items_of(db) == 1,
         "three copies, two deleted: still present");
  /* A DELETE of something never added in an almost empty store: no
  ** entry of that key, nothing removed. */
  tap_ok(delete_one(db, a_text("never added")) == 0 && items_of(db) == 1,
         "a DELETE matching no entry removes nothing");

  /* Copies of one value on both sides of a split: the first, inherited by
  ** a child leaf, has one bit fewer than the copy written there ("Widths":
  ** b does not change with g in a growing store, and a split takes one bit
  ** off each key), so the value matches in two sections and a DELETE
  ** takes nothing ("Kind 4: quotient_store"). */
  create_store(db, "fpr = 0.01");
  must_exec(db, "INSERT INTO q(value) VALUES ('split');"
                "INSERT INTO q(value) " SERIES("1", "200") "SELECT x FROM s;"
                "INSERT INTO q(value) VALUES ('split')");
  sqlite3_int64 leaves = q_int(db, "SELECT count(*) FROM q_directory", NOARGS);
  delete_one(db, a_text("split"));
  delete_one(db, a_text("split"));
  tap_ok(leaves > 2 && items_of(db) == 202 && present(db, a_text("split")),
         "a value added before and after its leaf split: DELETE removes "
         "nothing (items %lld, want 202; %lld leaves)",
         (long long)items_of(db), (long long)leaves);

  /* Churn: 800 values inserted and deleted many times over, at
  ** random. */
  create_store(db, "fpr = 0.01");
  uint64_t rng = seed_print(SEED + 1, "churn");
  enum { POOL = 800, OPS = 8000 };
  static int copies[POOL];
  memset(copies, 0, sizeof copies);
  long long adds = 0, deletes = 0, skipped = 0, entries = 0;
  int ops_ok = 1, fn_on_the_way = 0;
  sqlite3_stmt *ins = must_prep(db, "INSERT INTO q(value) VALUES (?1)");
  for (int op = 0; op < OPS; op++) {
    int k = (int)(splitmix64(&rng) % POOL);
    int del = splitmix64(&rng) % 100 < 45;
    if (del) {
      int j = k, tries = 0;
      while (copies[j] == 0 && tries++ < POOL) j = (j + 1) % POOL;
      if (copies[j] == 0) continue;
      sqlite3_int64 before = entries;
      int r = delete_one(db, a_int(1000000 + j));
      if (r != 1) ops_ok = 0; /* a value held always matches */
      sqlite3_int64 after = items_of(db);
      if (after != before && after != before - 1) ops_ok = 0;
      if (after == before - 1) {
        copies[j]--;
        deletes++;
        entries--;
      } else {
        skipped++; /* matching entries of several widths: none taken */
      }
      if (copies[j] > 0 && !present(db, a_int(1000000 + j))) fn_on_the_way++;
    } else {
      sqlite3_bind_int64(ins, 1, 1000000 + k);
      if (sqlite3_step(ins) != SQLITE_DONE) ops_ok = 0;
      sqlite3_reset(ins);
      copies[k]++;
      adds++;
      entries++;
    }
  }
  sqlite3_finalize(ins);
  int misses = 0, live = 0, max_copies = 0;
  for (int k = 0; k < POOL; k++) {
    if (copies[k] > max_copies) max_copies = copies[k];
    if (copies[k] == 0) continue;
    live++;
    if (!present(db, a_int(1000000 + k))) misses++;
  }
  tap_ok(ops_ok && misses == 0 && fn_on_the_way == 0,
         "churn: %lld inserts and %lld deletes (%lld matched several widths "
         "and removed nothing) of 800 values: none of the %d values still "
         "held is missed, after or along the way (up to %d copies)",
         adds, deletes, skipped, live, max_copies);
  TAP_EQ_U64(items_of(db), (uint64_t)entries, "churn: items is inserts minus "
             "the deletes that removed an entry (each removed one or none)");
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM q_directory", NOARGS),
             q_int(db, "SELECT blocks FROM quotient_info((SELECT filter FROM "
                       "q))", NOARGS),
             "churn: quotient_info's blocks is the directory's leaves");
  long long trials = 20000;
  sqlite3_int64 fp = q_int(db, SERIES("5000000", "5019999")
                           "SELECT count(*) FROM s WHERE EXISTS (SELECT 1 "
                           "FROM q WHERE value = x)", NOARGS);
  tap_ok(fp >= 0 && (double)fp <= 0.01 * (double)trials,
         "after churn: %lld false positives in %lld absent values (rate "
         "%.4f <= 0.01)", (long long)fp, trials, (double)fp / (double)trials);
  int len;
  unsigned char *f = export_of(db, &len);
  sqlite3_int64 differ = q_int(db, SERIES("1000000", "1000799")
                               "SELECT count(*) FROM s WHERE EXISTS (SELECT 1 "
                               "FROM q WHERE value = x) IS NOT "
                               "quotient_test(?1, x)", ARGS(a_blob(f, len)));
  free(f);
  TAP_EQ_U64(differ, 0, "after churn: store and export answer the pool's "
             "values alike");
  sqlite3_close(db);
}

/* What a quotient store refuses, and what it converts. */
static void test_refusals(void) {
  sqlite3 *db = open_db(NULL);
  create_store(db, "fpr = 0.01");
  must_exec(db, "INSERT INTO q(value) VALUES (1), ('a')");
  int len0;
  unsigned char *f0 = export_of(db, &len0);
  expect_error(db, "UPDATE", "UPDATE q SET value = 2 WHERE value = 1", NOARGS,
               "quotient_store: an item cannot be changed", 0);
  expect_error(db, "DELETE without a value", "DELETE FROM q", NOARGS,
               "quotient_store: DELETE removes a value", 0);
  expect_error(db, "listing", "SELECT value FROM q", NOARGS,
               "quotient_store: a filter cannot list its items", 0);
  expect_error(db, "a value and a filter", "INSERT INTO q(value, filter) "
               "VALUES (1, x'00')", NOARGS, "quotient_store: ", 0);
  expect_error(db, "loading a filter", "INSERT INTO q(filter) SELECT filter "
               "FROM q", NOARGS, "quotient_store: ", 0);
  tap_ok(export_is(db, f0, len0), "after the refusals the store is "
         "unchanged");
  free(f0);
  /* IN with values present and absent: one row per value present. */
  tap_ok(q_int(db, "SELECT count(*) FROM q WHERE value IN (1, 'a', 'a', "
                   "'never')", NOARGS) >= 2 &&
             q_int(db, "SELECT count(*) FROM q WHERE value IN (1, 'a')",
                   NOARGS) == 2,
         "value IN (...) finds each value present once");
  /* affinity: the value is converted as a column of that affinity. */
  must_exec(db, "CREATE VIRTUAL TABLE t USING quotient_store(fpr = 0.01, "
                "affinity = 'TEXT'); INSERT INTO t(value) VALUES (12345);"
                "CREATE VIRTUAL TABLE n USING quotient_store(capacity = 100, "
                "affinity = 'INTEGER'); INSERT INTO n(value) VALUES ('77')");
  tap_ok(q_int(db, "SELECT (SELECT count(*) FROM t WHERE value = '12345') + "
                   "(SELECT count(*) FROM n WHERE value = 77) + "
                   "quotient_test((SELECT filter FROM t), '12345') + "
                   "quotient_test((SELECT filter FROM n), 77)", NOARGS) == 4,
         "affinity TEXT finds 12345 as '12345', INTEGER '77' as 77 (store and "
         "export)");
  sqlite3_close(db);
}

/* The limits: copies of one value stay together through every split, so
** a leaf of E + 1 copies would split down to depth 62, which refuses the
** insert ("Splits"); long keys (fpr 2e-11) fill a leaf's bytes before its
** E entries, and it splits there, its rows within leaf_bytes. */
static void test_limits(void) {
  sqlite3 *db = paged(512);
  int e = spec_leaf_items(512);
  create_store(db, "fpr = 0.01");
  char sql[200];
  snprintf(sql, sizeof sql, "INSERT INTO q(value) " SERIES("1", "%d")
           "SELECT 'same' FROM s", e);
  must_exec(db, sql);
  int len0;
  unsigned char *f0 = export_of(db, &len0);
  expect_error(db, "copy E + 1 of one value", "INSERT INTO q(value) VALUES "
               "('same')", NOARGS, "quotient_store: a leaf of q at depth 62 "
               "is full", 0);
  tap_ok(export_is(db, f0, len0) && items_of(db) == e &&
             q_int(db, "SELECT count(*) FROM q_directory", NOARGS) == 1,
         "E = %d copies of one value fit; the refused one leaves the store "
         "as it was (one leaf)", e);
  free(f0);

  create_store(db, "fpr = 2e-11");
  add_range(db, 1, 3000);
  long long leaves = q_int(db, "SELECT count(*) FROM q_directory", NOARGS);
  tap_ok(misses_eq(db) == 0 &&
             q_int(db, "SELECT max(length(data)) <= 416 FROM q_chunks",
                   NOARGS) == 1 &&
             leaves > 3000 / e + 1,
         "fpr 2e-11 at 512-byte pages: 3,000 values in %lld leaves (more "
         "than E a leaf would need), rows within leaf_bytes 416, none missed",
         leaves);
  /* A scalable bloom_store's rule (its first layer's rate) is not a
  ** quotient store's: fpr may be as low as 1e-12. */
  tap_ok(exec_ok(db, "CREATE VIRTUAL TABLE low USING quotient_store(fpr "
                     "= 1e-12)"),
         "a growing store at fpr 1e-12 is made");
  sqlite3_close(db);
}

/* ---- 4. transactions ------------------------------------------------------ */

/* A growing store q (fpr 1%) and its mirror m in a file database of
** 512-byte pages at file (room for 256 bytes), holding the integers 1 to
** n: what tests of several connections start from. */
static sqlite3 *file_store(const char *tag, char *file, sqlite3_int64 n) {
  snprintf(file, 256, "%s", temp_db_file("quotient_store", tag));
  sqlite3 *db = paged_file(file, 512);
  create_store(db, "fpr = 0.01");
  add_range(db, 1, n);
  return db;
}

/* Probes 4,000 absent values twice: every leaf probed twice gets an index
** (a leaf of a few hundred entries answers 4,000 probes over a few dozen
** leaves), from which later probes answer. */
static void index_every_leaf(sqlite3 *db) {
  for (int i = 0; i < 2; i++)
    q_int(db, SERIES("900000000", "900003999") "SELECT count(*) FROM s WHERE "
              "EXISTS (SELECT 1 FROM q WHERE value = s.x)", NOARGS);
}

/* 20 times: connection b reads the leaf of a new value (index_all: b
** indexes every leaf), then db adds the value to q and m.  1 if b finds
** it each time no leaf split (b keeps its directory then: only its
** cache tells it the leaf changed); those times in *checked. */
static int other_finds(sqlite3 *db, sqlite3 *b, const char *prefix,
                       int index_all, int *checked) {
  int found = 1;
  *checked = 0;
  for (int i = 0; i < 20; i++) {
    char val[40];
    snprintf(val, sizeof val, "%s-%d", prefix, i);
    arg v = a_text(val);
    if (index_all)
      index_every_leaf(b);
    else
      present(b, v); /* b reads the leaf */
    sqlite3_int64 before = q_int(db, "SELECT count(*) FROM q_directory",
                                 NOARGS);
    add_value(db, v);
    if (q_int(db, "SELECT count(*) FROM q_directory", NOARGS) != before)
      continue;
    (*checked)++;
    if (!present(b, v)) found = 0;
  }
  return found;
}

static void test_transactions(void) {
  char file[256];
  sqlite3 *db = file_store("tx", file, 200);
  long long leaves0 = q_int(db, "SELECT count(*) FROM q_directory", NOARGS);
  int len0;
  unsigned char *f0 = export_of(db, &len0);

  /* ROLLBACK of inserts that split leaves, and of deletes. */
  must_exec(db, "BEGIN");
  add_range(db, 10000, 2000);
  long long leaves_in = q_int(db, "SELECT count(*) FROM q_directory", NOARGS);
  delete_one(db, a_int(5));
  must_exec(db, "ROLLBACK; DELETE FROM m WHERE v >= 10000");
  tap_ok(leaves_in > leaves0 && export_is(db, f0, len0) &&
             q_int(db, "SELECT count(*) FROM q_directory", NOARGS) == leaves0,
         "ROLLBACK of 2,000 inserts (%lld leaves to %lld) and a delete: the "
         "export is byte for byte as before", leaves0, leaves_in);
  /* The store goes on from there. */
  add_range(db, 20000, 300);
  tap_ok(misses_eq(db) == 0, "after the rollback, inserts go on; no value "
         "added is missed");
  free(f0);
  f0 = export_of(db, &len0);

  /* Savepoints: ROLLBACK TO undoes what came after, splits included. */
  must_exec(db, "BEGIN; SAVEPOINT a");
  add_range(db, 30000, 10);
  int len_a;
  unsigned char *fa = export_of(db, &len_a);
  must_exec(db, "SAVEPOINT b");
  add_range(db, 40000, 1500);
  must_exec(db, "ROLLBACK TO b; DELETE FROM m WHERE v >= 40000");
  int at_b = export_is(db, fa, len_a);
  must_exec(db, "RELEASE b; ROLLBACK TO a; DELETE FROM m WHERE v >= 30000");
  int at_a = export_is(db, f0, len0);
  add_range(db, 50000, 700);
  must_exec(db, "RELEASE a; COMMIT");
  tap_ok(at_b && at_a, "ROLLBACK TO b undoes 1,500 inserts (splits), ROLLBACK "
         "TO a the 10 before: exports byte for byte as at each savepoint");
  tap_ok(misses_eq(db) == 0 && items_of(db) == q_int(db, "SELECT count(*) "
                                                        "FROM m", NOARGS),
         "what came after the savepoints is committed: every value present, "
         "items %lld", (long long)items_of(db));
  free(fa);
  free(f0);

  /* A statement failing part way: a trigger's RAISE after 1,200 inserts,
  ** a CHECK on another table after 900, inside a longer transaction. */
  must_exec(db, "CREATE TABLE feed(v);"
                "CREATE TRIGGER feed_in AFTER INSERT ON feed BEGIN"
                "  INSERT INTO q(value) VALUES (new.v);"
                "  SELECT RAISE(ABORT, 'stop') WHERE new.v = -1;"
                "END;"
                "CREATE TABLE chk(v CHECK (v < 60900));"
                "CREATE TABLE feed2(v);"
                "CREATE TRIGGER feed2_in AFTER INSERT ON feed2 BEGIN"
                "  INSERT INTO q(value) VALUES (new.v);"
                "  INSERT INTO chk VALUES (new.v);"
                "END;");
  must_exec(db, "BEGIN");
  add_range(db, 55000, 5);
  f0 = export_of(db, &len0);
  leaves0 = q_int(db, "SELECT count(*) FROM q_directory", NOARGS);
  int failed1 = fails(db, "INSERT INTO feed " SERIES("1", "1200")
                             "SELECT 70000 + x FROM s UNION ALL SELECT -1");
  int same1 = export_is(db, f0, len0);
  int failed2 = fails(db, "INSERT INTO feed2 " SERIES("60000", "61500")
                             "SELECT x FROM s");
  int same2 = export_is(db, f0, len0);
  int failed3 = fails(db, "INSERT INTO q(value) " SERIES("1", "1500")
                             "SELECT CASE WHEN x < 1400 THEN 80000 + x ELSE "
                             "json('{') END FROM s");
  int same3 = export_is(db, f0, len0) &&
              q_int(db, "SELECT count(*) FROM q_directory", NOARGS) == leaves0;
  must_exec(db, "COMMIT");
  tap_ok(failed1 && same1, "a trigger's RAISE after 1,200 inserts through it: "
         "the export is byte for byte as before the statement");
  tap_ok(failed2 && same2, "a CHECK failing on another table after 900 "
         "inserts: the export is as before the statement");
  tap_ok(failed3 && same3, "a function failing at row 1,400 of an INSERT ... "
         "SELECT: the export and the directory are as before the statement");
  tap_ok(export_is(db, f0, len0) && misses_eq(db) == 0,
         "COMMIT keeps the transaction's other inserts");
  free(f0);

  /* Reopen the file: the same export. */
  f0 = export_of(db, &len0);
  sqlite3_close(db);
  db = open_db_at(file);
  tap_ok(export_is(db, f0, len0) && misses_eq(db) == 0,
         "reopened, the store exports the same bytes and misses nothing");
  free(f0);

  /* Two connections: b reads (its directory loaded), a splits leaves, b
  ** then sees every value and exports what a does. */
  sqlite3 *b = open_db_at(file);
  long long leaves_b = q_int(b, "SELECT count(*) FROM q_directory", NOARGS);
  present(b, a_int(1)); /* b loads the directory */
  add_range(db, 90000, 2500);
  long long leaves_a = q_int(db, "SELECT count(*) FROM q_directory", NOARGS);
  int fa_len;
  fa = export_of(db, &fa_len);
  tap_ok(leaves_a > leaves_b && misses_eq(b) == 0 &&
             q_int(b, "SELECT count(*) FROM q WHERE value IN (SELECT v FROM "
                      "m)", NOARGS) == q_int(b, "SELECT count(DISTINCT v) "
                                                "FROM m", NOARGS),
         "another connection splits leaves (%lld to %lld): this one then "
         "finds every value", leaves_b, leaves_a);
  tap_ok(export_is(b, fa, fa_len), "... and exports the same bytes");
  free(fa);
  /* Without a split: b reads a leaf (cached), a adds a value to it, b
  ** finds it. */
  int checked;
  int found = other_finds(db, b, "cached", 0, &checked);
  tap_ok(found && checked >= 10, "%d times: the other connection reads a "
         "leaf, this one adds a value to it (no split), the other finds it",
         checked);
  /* The other way round, inserting on both in turn. */
  must_exec(b, "CREATE TABLE IF NOT EXISTS m2(v)");
  for (int round = 0; round < 4; round++) {
    sqlite3 *w = round % 2 ? db : b;
    char sql[256];
    snprintf(sql, sizeof sql, SERIES("%d", "%d") "INSERT INTO q(value) "
             "SELECT x FROM s", 200000 + round * 1000, 200000 + round * 1000 + 799);
    must_exec(w, sql);
    snprintf(sql, sizeof sql, SERIES("%d", "%d") "INSERT INTO m SELECT x "
             "FROM s", 200000 + round * 1000, 200000 + round * 1000 + 799);
    must_exec(w, sql);
  }
  fa = export_of(db, &fa_len);
  tap_ok(misses_eq(db) == 0 && misses_eq(b) == 0 && export_is(b, fa, fa_len),
         "inserts by both connections in turn: each finds every value, the "
         "exports are equal");
  free(fa);
  sqlite3_close(b);
  sqlite3_close(db);
  remove(file);
}

/* ---- 5. damage ---------------------------------------------------------------- */

/* Store q made with args at 512-byte pages, `items` values added, then
** `change`; connected again, the export, a probe and an insert must each
** fail with want and SQLITE_CORRUPT_VTAB (a probe and an insert only when
** `all` says every one reads the damage). */
static void damage_case(const char *args, int items, const char *change,
                        const char *want, int all) {
  const char *path = temp_db_file("quotient_store", "damage");
  sqlite3 *db = paged_file(path, 512);
  create_store(db, args);
  add_range(db, 1, items);
  must_exec(db, change);
  sqlite3_close(db);
  db = open_db_at(path);
  char name[300];
  snprintf(name, sizeof name, "export after %s", change);
  expect_error(db, name, "SELECT filter FROM q", NOARGS, want,
               SQLITE_CORRUPT_VTAB);
  if (all) {
    snprintf(name, sizeof name, "probe after %s", change);
    expect_error(db, name, "SELECT count(*) FROM q WHERE value = 77", NOARGS,
                 want, SQLITE_CORRUPT_VTAB);
    snprintf(name, sizeof name, "insert after %s", change);
    expect_error(db, name, "INSERT INTO q(value) VALUES (77)", NOARGS, want,
                 SQLITE_CORRUPT_VTAB);
  }
  sqlite3_close(db);
  remove(path);
}

static void test_damage(void) {
  const char *dir = "quotient_store: the directory of q is damaged";
  /* A growing store of 400 values at 512-byte pages has several leaves
  ** (E = 69). */
  static const char *const directory[] = {
      "DELETE FROM q_directory WHERE chunk = 1",
      "DELETE FROM q_directory WHERE chunk = (SELECT max(chunk) FROM "
      "q_directory)",
      "DELETE FROM q_directory",
      "UPDATE q_directory SET node = (SELECT node FROM q_directory WHERE "
      "chunk = 0) WHERE chunk = 1",
      "UPDATE q_directory SET node = 1 WHERE chunk = 0",
      "UPDATE q_directory SET node = node * 2 WHERE chunk = 0",
      "UPDATE q_directory SET node = node / 2 WHERE chunk = 0",
      "UPDATE q_directory SET node = 0 WHERE chunk = 0",
      "UPDATE q_directory SET node = -1 WHERE chunk = 0",
      "UPDATE q_directory SET node = 'abc' WHERE chunk = 0",
      "UPDATE q_directory SET node = 2.5 WHERE chunk = 0",
      "UPDATE q_directory SET chunk = chunk + 100 WHERE chunk = "
      "(SELECT max(chunk) FROM q_directory)",
  };
  for (size_t i = 0; i < sizeof directory / sizeof directory[0]; i++)
    damage_case("fpr = 0.01", 400, directory[i], dir, 1);
  /* A sized store's leaves lie at depth D or deeper: two leaves of depth
  ** D merged into one of depth D - 1 cover the hashes, but not at D. */
  damage_case("capacity = 1000, fpr = 0.01", 10,
              "DELETE FROM q_directory WHERE chunk = (SELECT max(chunk) FROM "
              "q_directory); UPDATE q_directory SET node = node / 2 WHERE "
              "chunk = (SELECT max(chunk) FROM q_directory)", dir, 1);

  /* Chunk rows: one leaf (a growing store of 30 values), so that every
  ** probe and insert reads it. */
  /* The class; the length (1 to leaf_bytes, 416 here); S out of range;
  ** bytes after the record not zero; a section of 0 entries or fields out
  ** of range; padding bits not zero (the last byte of this record has
  ** some); a width twice. */
  static const char *const chunk[] = {
      "UPDATE q_chunks SET data = CAST(data AS TEXT)",
      "UPDATE q_chunks SET data = 'abc'",
      "UPDATE q_chunks SET data = 12345",
      "UPDATE q_chunks SET data = x''",
      "UPDATE q_chunks SET data = data || zeroblob(416)",
      "UPDATE q_chunks SET data = data || x'01'",
      "UPDATE q_chunks SET data = x'42' || substr(data, 2)",
      "UPDATE q_chunks SET data = x'00' || substr(data, 2)",
      "UPDATE q_chunks SET data = x'01' || zeroblob(3) || substr(data, 5)",
      "UPDATE q_chunks SET data = x'01ffffff' || substr(data, 5)",
      "UPDATE q_chunks SET data = substr(data, 1, length(data) - 1) || x'ff'",
      ("UPDATE q_chunks SET data = x'02' || substr(data, 2, 3) || "
       "substr(data, 2)"),
  };
  for (size_t i = 0; i < sizeof chunk / sizeof chunk[0]; i++)
    damage_case("fpr = 0.01", 30, chunk[i], "quotient_store: ", 1);
  /* A row cut short by its last byte, so that its record ends past it:
  ** refused by the probe too, though the cache reads it padded with
  ** zeros. */
  damage_case("fpr = 0.01", 30, "UPDATE q_chunks SET data = substr(data, "
              "1, length(data) - 1)", "quotient_store: ", 1);
  /* A chunk row of no leaf, below 0 or past the directory's chunks:
  ** refused by SELECT filter, which reads every row. */
  damage_case("fpr = 0.01", 400, "INSERT INTO q_chunks VALUES (-1, x'00')",
              "quotient_store: ", 0);
  damage_case("fpr = 0.01", 400, "INSERT INTO q_chunks VALUES (99999, x'00')",
              "quotient_store: ", 0);
  /* Between two leaves' ids (rows_by_range = 1: leaves start at multiples
  ** of 2^(62 - d)), and a leaf's row moved to its chunk number. */
  damage_case("fpr = 0.01", 400, "INSERT INTO q_chunks VALUES (1, x'00')",
              "quotient_store: ", 0);
  damage_case("fpr = 0.01", 400, "UPDATE q_chunks SET id = 1 WHERE id = "
              "(SELECT max(id) FROM q_chunks)", "quotient_store: ", 0);

  /* The configuration, refused as a whole when connected. */
  static const char *const config[] = {
      "DELETE FROM s_config WHERE key = 'kind'",
      "DELETE FROM s_config WHERE key = 'version'",
      "DELETE FROM s_config WHERE key = 'capacity'",
      "DELETE FROM s_config WHERE key = 'fpr'",
      "DELETE FROM s_config WHERE key = 'seed'",
      "DELETE FROM s_config WHERE key = 'leaf_items'",
      "DELETE FROM s_config WHERE key = 'leaf_bytes'",
      "DELETE FROM s_config WHERE key = 'base_depth'",
      "DELETE FROM s_config WHERE key = 'sized'",
      "DELETE FROM s_config WHERE key = 'row_reserve'",
      "DELETE FROM s_config",
      "UPDATE s_config SET value = 2 WHERE key = 'kind'",
      "UPDATE s_config SET value = 2 WHERE key = 'version'",
      "UPDATE s_config SET value = 0 WHERE key = 'capacity'",
      "UPDATE s_config SET value = '1000' WHERE key = 'capacity'",
      "UPDATE s_config SET value = 1.0 WHERE key = 'fpr'",
      "UPDATE s_config SET value = '0.01' WHERE key = 'fpr'",
      "UPDATE s_config SET value = -1 WHERE key = 'seed'",
      "UPDATE s_config SET value = 4294967296 WHERE key = 'seed'",
      "UPDATE s_config SET value = 0 WHERE key = 'leaf_items'",
      "UPDATE s_config SET value = 4095 WHERE key = 'leaf_items'",
      "UPDATE s_config SET value = '511' WHERE key = 'leaf_items'",
      "UPDATE s_config SET value = 63 WHERE key = 'leaf_bytes'",
      "UPDATE s_config SET value = 65537 WHERE key = 'leaf_bytes'",
      "UPDATE s_config SET value = -1 WHERE key = 'base_depth'",
      "UPDATE s_config SET value = 41 WHERE key = 'base_depth'",
      "UPDATE s_config SET value = 2 WHERE key = 'sized'",
      "UPDATE s_config SET value = -1 WHERE key = 'sized'",
      "UPDATE s_config SET value = -1 WHERE key = 'row_reserve'",
      "UPDATE s_config SET value = 4001 WHERE key = 'row_reserve'",
      "UPDATE s_config SET value = 'blob' WHERE key = 'affinity'",
      "INSERT INTO s_config VALUES ('colour', 1)",
      "INSERT INTO s_config VALUES ('growth', 2)",
      "INSERT INTO s_config VALUES ('layer.0.leaf_items', 511)",
      "INSERT INTO s_config VALUES ('bits', 512)",
      /* K = 0 is the most this store's rate allows */
      "INSERT INTO s_config VALUES ('narrow_leaves', 1)",
      "INSERT INTO s_config VALUES ('narrow_leaves', -1)",
      "INSERT INTO s_config VALUES ('narrow_leaves', '0')",
      "INSERT INTO s_config VALUES ('narrow_leaves', 0.0)",
      /* a store with capacity has no narrow_below */
      "INSERT INTO s_config VALUES ('narrow_below', 1)",
  };
  check_config_damage_of(MODULE, "capacity = 1000, fpr = 0.01, affinity = "
                         "'TEXT'", NULL, config,
                         sizeof config / sizeof config[0]);
  /* Narrow leaves: one more than the rate allows (K = 27 of 32 here:
  ** FORMAT.md's inequality), 2^D, and any in a growing store. */
  static const char *const narrow[] = {
      "UPDATE s_config SET value = 28 WHERE key = 'narrow_leaves'",
      "UPDATE s_config SET value = 32 WHERE key = 'narrow_leaves'",
      "UPDATE s_config SET value = 1 << 40 WHERE key = 'narrow_leaves'",
  };
  check_config_damage_of(MODULE, "capacity = 6982, fpr = 0.001", NULL, narrow,
                         sizeof narrow / sizeof narrow[0]);
  static const char *const growing[] = {
      "INSERT INTO s_config VALUES ('narrow_leaves', 1)",
      "UPDATE s_config SET value = 2 WHERE key = 'rows_by_range'",
      "UPDATE s_config SET value = -1 WHERE key = 'rows_by_range'",
      "UPDATE s_config SET value = '1' WHERE key = 'rows_by_range'",
      "UPDATE s_config SET value = 1.0 WHERE key = 'rows_by_range'",
      /* narrow_below: one past the most FORMAT.md's inequality allows
      ** (written at CREATE), all of the hash space, below 0, not an
      ** INTEGER */
      "UPDATE s_config SET value = value + 1 WHERE key = 'narrow_below'",
      "UPDATE s_config SET value = 1 << 62 WHERE key = 'narrow_below'",
      "UPDATE s_config SET value = -1 WHERE key = 'narrow_below'",
      "UPDATE s_config SET value = '1' WHERE key = 'narrow_below'",
      "UPDATE s_config SET value = 1.0 WHERE key = 'narrow_below'",
  };
  check_config_damage_of(MODULE, "fpr = 0.001", NULL, growing,
                         sizeof growing / sizeof growing[0]);
  /* Each of those at a value in range is accepted (so the refusals above
  ** are for the values, not the change itself). */
  static const char *const fine[] = {
      "UPDATE s_config SET value = 4094 WHERE key = 'leaf_items'",
      "UPDATE s_config SET value = 65536 WHERE key = 'leaf_bytes'",
      "UPDATE s_config SET value = 4000 WHERE key = 'row_reserve'",
      "UPDATE s_config SET value = 4294967295 WHERE key = 'seed'",
      "DELETE FROM s_config WHERE key = 'affinity'",
      "INSERT INTO s_config VALUES ('narrow_leaves', 0)",
  };
  int accepted = 0;
  for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
    const char *path = temp_db_file("quotient_store", "fine");
    sqlite3 *db = open_db_at(path);
    must_exec(db, "CREATE VIRTUAL TABLE s USING quotient_store(capacity = "
                  "1000, fpr = 0.01, affinity = 'TEXT')");
    must_exec(db, fine[i]);
    sqlite3_close(db);
    db = open_db_at(path);
    int len;
    unsigned char *f = q_blob(db, "SELECT filter FROM s", NOARGS, &len);
    if (f) accepted++;
    else tap_diag("refused: %s", fine[i]);
    free(f);
    sqlite3_close(db);
    remove(path);
  }
  tap_ok(accepted == (int)(sizeof fine / sizeof fine[0]),
         "the same keys at values in range are accepted (%d of %zu)",
         accepted, sizeof fine / sizeof fine[0]);
}

/* ---- 6. where the rows lie ----------------------------------------------- */

/* The rows of q whose id is no leaf's: by_range, the leaf 2^d + p's row
** at spec_row_id; otherwise chunk i's at id i.  *rows: the rows. */
static long long rows_off_leaves(sqlite3 *db, int by_range,
                                 long long *rows) {
  sqlite3_stmt *st = must_prep(db, "SELECT count(*) FROM q_chunks WHERE id "
                                   "NOT IN (SELECT value FROM json_each(?1))");
  /* The leaves' ids as a JSON array. */
  sqlite3_stmt *dir = must_prep(db, "SELECT chunk, node FROM q_directory");
  size_t room = 64, len = 0;
  char *ids = malloc(room);
  if (ids == NULL) exit(2);
  ids[len++] = '[';
  while (sqlite3_step(dir) == SQLITE_ROW) {
    sqlite3_int64 id = by_range
                           ? spec_row_id((uint64_t)sqlite3_column_int64(dir, 1))
                           : sqlite3_column_int64(dir, 0);
    if (len + 24 > room && (ids = realloc(ids, room *= 2)) == NULL) exit(2);
    len += (size_t)snprintf(ids + len, 24, "%s%lld", len > 1 ? "," : "",
                            (long long)id);
  }
  sqlite3_finalize(dir);
  ids[len++] = ']';
  sqlite3_bind_text(st, 1, ids, (int)len, free);
  long long off = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0)
                                                 : -1;
  sqlite3_finalize(st);
  *rows = q_int(db, "SELECT count(*) FROM q_chunks", NOARGS);
  return off;
}

/* A new store keeps each leaf's row at its range's id; a store made
** before rows_by_range existed (leaf i at id i, as 1.6.0 wrote) reads the
** same, and grows with its rows where they were. */
static void test_row_ids(void) {
  const char *path = temp_db_file("quotient_store", "rows");
  sqlite3 *db = paged_file(path, 512);
  create_store(db, "fpr = 0.01");
  add_range(db, 1, 3000);
  long long rows, leaves = q_int(db, "SELECT count(*) FROM q_directory",
                                 NOARGS);
  long long off = rows_off_leaves(db, 1, &rows);
  tap_ok(off == 0 && rows == leaves && leaves > 20,
         "a growing store split into %lld leaves: its %lld rows lie at the "
         "ids of their ranges, p * 2^(62 - d) (%lld elsewhere)", leaves, rows,
         off);
  int len0;
  unsigned char *f0 = export_of(db, &len0);
  /* Another connection reads each leaf from the row at its range's id
  ** (this one has them all in its cache). */
  sqlite3 *other = open_db_at(path);
  sqlite3_int64 missed = misses_eq(other);
  tap_ok(missed == 0 && export_is(other, f0, len0),
         "a second connection finds every value (%lld missed) and exports "
         "the same %d bytes", (long long)missed, len0);
  sqlite3_close(other);

  /* As 1.6.0 wrote it: rows at their chunk numbers, no rows_by_range. */
  sqlite3_stmt *dir = must_prep(db, "SELECT chunk, node FROM q_directory");
  sqlite3_stmt *move = must_prep(db, "UPDATE q_chunks SET id = ?1 WHERE id "
                                     "= ?2");
  while (sqlite3_step(dir) == SQLITE_ROW) {
    sqlite3_bind_int64(move, 1, -1 - sqlite3_column_int64(dir, 0));
    sqlite3_bind_int64(move, 2,
                       spec_row_id((uint64_t)sqlite3_column_int64(dir, 1)));
    sqlite3_step(move);
    sqlite3_reset(move);
  }
  sqlite3_finalize(dir);
  sqlite3_finalize(move);
  must_exec(db, "UPDATE q_chunks SET id = -1 - id; DELETE FROM q_config "
                "WHERE key = 'rows_by_range'");
  sqlite3_close(db);
  db = open_db_at(path);
  tap_ok(export_is(db, f0, len0),
         "the same store with leaf i's row at id i and no rows_by_range "
         "exports the same %d bytes", len0);
  free(f0);
  add_range(db, 10000, 6000);
  leaves = q_int(db, "SELECT count(*) FROM q_directory", NOARGS);
  off = rows_off_leaves(db, 0, &rows);
  sqlite3_int64 misses = misses_eq(db);
  int len;
  unsigned char *f = export_of(db, &len);
  tap_ok(off == 0 && rows == leaves && leaves > 60 && misses == 0 && f &&
             q_int(db, "SELECT count(*) FROM q_config WHERE key = "
                       "'rows_by_range'", NOARGS) == 0,
         "6000 more values split it into %lld leaves, each new row at its "
         "chunk number (%lld elsewhere), no false negative (%lld), and an "
         "export", leaves, off, (long long)misses);
  free(f);
  sqlite3_close(db);
}

/* ---- 7. the summary row and quotient_info -------------------------------- */

static void test_summary(void) {
  sqlite3 *db = paged(512);
  int e = spec_leaf_items(512);
  int d = spec_base_depth(5000, e);
  must_exec(db, "CREATE VIRTUAL TABLE g USING quotient_store(fpr = 0.01);"
                "CREATE VIRTUAL TABLE z USING quotient_store(capacity = 5000, "
                "fpr = 0.001)");
  char want_g[160], want_z[160];
  snprintf(want_g, sizeof want_g, "quotient_store g, growing: leaves of up to "
           "%d items", e);
  snprintf(want_z, sizeof want_z, "quotient_store z, for 5000 items in %lld "
           "leaves", 1LL << d);
  char *g = q_text(db, "SELECT * FROM g", NOARGS);
  char *z = q_text(db, "SELECT * FROM z", NOARGS);
  tap_ok(g && z && strncmp(g, want_g, strlen(want_g)) == 0 &&
             strncmp(z, want_z, strlen(want_z)) == 0 &&
             q_int(db, "SELECT count(*) FROM (SELECT * FROM g)", NOARGS) == 1 &&
             q_int(db, "SELECT count(*) FROM (SELECT * FROM z)", NOARGS) == 1,
         "SELECT * is one summary row naming E = %d, or 2^D = %lld leaves "
         "(\"%s\"; \"%s\")", e, 1LL << d, g ? g : "NULL", z ? z : "NULL");
  free(g);
  free(z);
  /* quotient_info on an empty store, then after adds and deletes. */
  tap_ok(q_int(db, "SELECT items = 0 AND blocks = 1 AND block_bytes = 0 AND "
                   "bytes = 64 + 16 + 1 FROM quotient_info((SELECT filter "
                   "FROM g))", NOARGS) == 1,
         "an empty growing store: items 0, one leaf, block_bytes 0, 81 bytes "
         "(header, one directory entry, the record 00)");
  tap_ok(q_int(db, "SELECT items = 0 AND blocks = ?1 AND block_bytes = 0 AND "
                   "bytes = 64 + 17 * ?1 AND capacity = 5000 AND target_fpr "
                   "= 0.001 FROM quotient_info((SELECT filter FROM z))",
               ARGS(a_int(1LL << d))) == 1,
         "an empty sized store: items 0, 2^D leaves of 17 bytes each, "
         "capacity and fpr as given");
  /* Items: one entry per copy added (two copies of 'twice'), minus the
  ** deletes; 5 values added once each are deleted (a value held once has
  ** entries of one width: its delete removes one). */
  must_exec(db, "INSERT INTO g(value) " SERIES("1", "3000") "SELECT x FROM s;"
                "INSERT INTO g(value) VALUES ('twice'), ('twice');"
                "DELETE FROM g WHERE value IN (1, 2, 3, 4, 5)");
  long long deleted = sqlite3_changes(db);
  tap_ok(q_int(db, "SELECT items = 3002 - 5 AND blocks = (SELECT count(*) "
                   "FROM g_directory) AND block_bytes = 0 AND blocks > 40 "
                   "FROM quotient_info((SELECT filter FROM g))", NOARGS) == 1 &&
             deleted == 5,
         "3,002 adds (one value twice), 5 deleted: items 2997, blocks = the "
         "directory's rows (> 40), block_bytes 0");
  sqlite3_close(db);
}

/* ---- 8. the leaves' indexes ------------------------------------------------ */

/* A probe answers from a leaf's index once the leaf was probed twice.  An
** index kept past a write to its leaf (an insert, a split, a delete), a
** rollback or another connection's commit would miss the values added
** since: each step below indexes every leaf first, then writes, then
** looks for every value added.  Past the indexes' budget (here a soft
** heap limit of one byte) a leaf keeps no index but its stretch of the
** guard, which must go exactly when the index would: `how` names the
** round. */
static void test_indexes(int past_budget) {
  const char *how = past_budget ? "past the index budget, " : "";
  if (past_budget) sqlite3_soft_heap_limit64(1);
  char file[256];
  sqlite3 *db = file_store(past_budget ? "guard" : "index", file, 2000);
  long long leaves0 = q_int(db, "SELECT count(*) FROM q_directory", NOARGS);
  /* In one transaction: between statements of their own, the store reads
  ** its chunks again after m's inserts (another table's commit changes the
  ** data version), indexes and all. */
  int ok = 1;
  must_exec(db, "BEGIN");
  for (int round = 0; round < 6; round++) {
    index_every_leaf(db);
    add_range(db, 10000 + round * 1000, round % 2 ? 40 : 400);
    if (misses_eq(db) != 0) ok = 0;
  }
  must_exec(db, "COMMIT");
  long long leaves1 = q_int(db, "SELECT count(*) FROM q_directory", NOARGS);
  tap_ok(ok && leaves1 > leaves0, "%sin one transaction, every leaf indexed, "
         "then 40 or 400 inserts (%lld leaves to %lld), six times: no value "
         "added is missed", how, leaves0, leaves1);
  index_every_leaf(db);
  add_range(db, 20000, 40);
  tap_ok(misses_eq(db) == 0, "%sthe same in autocommit statements", how);

  /* Deletes write a leaf too: the other copies stay found. */
  must_exec(db, "INSERT INTO q(value) VALUES ('copy'), ('copy'), ('copy')");
  int copies = present(db, a_text("copy"));
  for (int i = 0; i < 2; i++) {
    index_every_leaf(db);
    if (!delete_one(db, a_text("copy")) || !present(db, a_text("copy")))
      copies = 0;
  }
  tap_ok(copies, "%sa value added three times, its leaf indexed before each "
         "of two deletes: still found after both", how);

  /* Inside a transaction, and after its rollback. */
  must_exec(db, "BEGIN");
  add_range(db, 50000, 300);
  index_every_leaf(db);
  int inside = misses_eq(db) == 0;
  add_range(db, 51000, 300);
  inside = inside && misses_eq(db) == 0;
  must_exec(db, "ROLLBACK; DELETE FROM m WHERE v >= 50000 AND v < 60000");
  index_every_leaf(db);
  add_range(db, 52000, 300);
  tap_ok(inside && misses_eq(db) == 0, "%sinserts in a transaction, leaves "
         "indexed between them, then a rollback and more inserts: no value "
         "added and kept is missed", how);

  /* Another connection indexes every leaf; this one adds a value to a
  ** leaf, without a split (the other keeps its directory then). */
  sqlite3 *b = open_db_at(file);
  int checked;
  int found = other_finds(db, b, "indexed", 1, &checked);
  tap_ok(found && checked >= 10, "%s%d times: the other connection indexes "
         "every leaf, this one adds a value to one (no split), the other "
         "finds it", how, checked);
  /* ... and with splits. */
  index_every_leaf(b);
  long long leaves2 = q_int(db, "SELECT count(*) FROM q_directory", NOARGS);
  add_range(db, 70000, 600);
  long long leaves3 = q_int(db, "SELECT count(*) FROM q_directory", NOARGS);
  tap_ok(leaves3 > leaves2 && misses_eq(b) == 0, "%sthe other connection's "
         "leaves indexed, then 600 inserts here that split leaves (%lld to "
         "%lld): it finds every value", how, leaves2, leaves3);
  sqlite3_close(b);
  sqlite3_close(db);
  remove(file);
  if (past_budget) sqlite3_soft_heap_limit64(0);
}

int main(void) {
  test_arguments();
  test_summary();
  test_deletes();
  test_refusals();
  test_limits();
  test_transactions();
  test_damage();
  test_row_ids();
  test_indexes(0);
  test_indexes(1);
  test_rate();
  return tap_done();
}
