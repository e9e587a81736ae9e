/*
** SQL tests of layered filters (kind 3): membership against the OR of the
** layers (random values from a fixed seed, printed), no false negative, the
** columns of bloom_info, cuckoo_info and bloom_layers against figures
** computed from the layers on their own (their own bloom_info and
** cuckoo_info rows, popcounts, arithmetic here), bloom_count, updates into
** the newest layer, layer-by-layer algebra and its refusals, kind
** refusals, and every malformed-blob rule of FORMAT.md's "Kind 3", each
** made by damaging a valid blob, through every function that reads one.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** The layers are plain filters made by bloom_build and cuckoo_build; the
** layered blobs are assembled by tests/lib/bloom_spec.h from FORMAT.md
** alone, not by the extension's writer.  Blobs are bound SQLITE_STATIC
** from exactly sized buffers, so the ASan build sees any over-read.
*/
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bloom_spec.h"
#include "lib/rng.h"
#include "lib/sqldb.h"
#include "lib/tap.h"

#define L 3

static sqlite3 *db;

typedef struct blob {
  unsigned char *p;
  int n;
} blob;

static blob query_blob(const char *sql, const arg *a, int n) {
  blob b;
  b.p = q_blob(db, sql, a, n, &b.n);
  if (b.p == NULL) {
    tap_diag("no blob from: %s", sql);
    exit(2);
  }
  return b;
}

static blob assemble(const blob *layers, unsigned n, unsigned growth,
                     double tightening, double fpr) {
  const unsigned char *p[64];
  size_t lens[64];
  for (unsigned i = 0; i < n; i++) {
    p[i] = layers[i].p;
    lens[i] = (size_t)layers[i].n;
  }
  size_t len = 0;
  blob b;
  b.p = spec_layered_build(p, lens, n, growth, tightening, fpr, &len);
  b.n = (int)len;
  return b;
}

static int same(const blob *a, const blob *b) {
  return a->p && b->p && a->n == b->n && memcmp(a->p, b->p, (size_t)a->n) == 0;
}

static void free_blob(blob *b) {
  free(b->p);
  b->p = NULL;
}

static int rel_close(double a, double b, double tol) {
  if (a == b) return 1;
  return fabs(a - b) <= tol * fmax(fabs(a), fabs(b));
}

/* Layer i of the Bloom test filter holds the integers [base[i], base[i] +
** fill[i]); sized for cap[i] at rate fpr[i]. */
static const int bloom_base[L] = {0, 100000, 200000};
static const int bloom_fill[L] = {100, 200, 150};
static const int bloom_cap[L] = {100, 200, 400};
static const double bloom_fpr[L] = {0.01, 0.005, 0.0025};

static blob bloom_layer_blob(unsigned i, int offset) {
  char sql[256];
  snprintf(sql, sizeof sql,
           SERIES("%d", "%d") "SELECT bloom_build(x, %d, %.17g) FROM s",
           bloom_base[i] + offset, bloom_base[i] + offset + bloom_fill[i] - 1,
           bloom_cap[i], bloom_fpr[i]);
  return query_blob(sql, NOARGS);
}

static blob cuckoo_layer_blob(unsigned i) {
  char sql[256];
  snprintf(sql, sizeof sql,
           SERIES("%d", "%d") "SELECT cuckoo_build(x, %d, %.17g) FROM s",
           bloom_base[i], bloom_base[i] + bloom_fill[i] - 1, bloom_cap[i],
           bloom_fpr[i]);
  return query_blob(sql, NOARGS);
}

/* ---- membership ----------------------------------------------------------- */

static void check_membership(const char *fn, const blob *whole,
                             const blob *layers) {
  /* Random values, fixed seed: the layered answer against the OR of the
  ** layers' answers, through the blob, bloom_ref and the probe function. */
  must_exec(db, "DROP TABLE IF EXISTS vals; CREATE TABLE vals(v);"
                "DROP TABLE IF EXISTS lf; CREATE TABLE lf(f BLOB)");
  sqlite3_stmt *ins = must_prep(db, "INSERT INTO vals VALUES (?1)");
  for (int i = 0; i < 4000; i++) {
    uint64_t r = rng_next();
    /* a mix: values in the layers' ranges, random integers, text */
    if (i % 3 == 0)
      sqlite3_bind_int64(ins, 1, (sqlite3_int64)(r % 300000));
    else if (i % 3 == 1)
      sqlite3_bind_int64(ins, 1, (sqlite3_int64)r);
    else {
      char t[32];
      snprintf(t, sizeof t, "v%llu", (unsigned long long)(r % 100000));
      sqlite3_bind_text(ins, 1, t, -1, SQLITE_TRANSIENT);
    }
    sqlite3_step(ins);
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM vals", NOARGS), 4000,
             "(setup) 4000 probe values");
  sqlite3_stmt *st = must_prep(db, "INSERT INTO lf VALUES (?1)");
  sqlite3_bind_blob(st, 1, whole->p, whole->n, SQLITE_STATIC);
  sqlite3_step(st);
  sqlite3_finalize(st);

  char sql[512];
  snprintf(sql, sizeof sql,
           "SELECT count(*), sum(%s_test(?1, v)) FROM vals WHERE "
           "%s_test(?1, v) IS NOT (%s_test(?2, v) OR %s_test(?3, v) OR "
           "%s_test(?4, v))",
           fn, fn, fn, fn, fn);
  sqlite3_int64 bad = q_int(db, sql,
                            ARGS(a_blob(whole->p, whole->n),
                                 a_blob(layers[0].p, layers[0].n),
                                 a_blob(layers[1].p, layers[1].n),
                                 a_blob(layers[2].p, layers[2].n)));
  TAP_EQ_U64(bad, 0, "%s_test on a layered filter is the OR of its layers' "
             "answers (4000 random values)", fn);
  snprintf(sql, sizeof sql,
           "SELECT count(*) FROM bloom_ref(?1) AS r CROSS JOIN vals "
           "WHERE %s_test(r.filter, v) IS %s_test(?1, v) "
           "AND %s_test(?1, v) IS NOT NULL", fn, fn, fn);
  TAP_EQ_U64(q_int(db, sql, ARGS(a_blob(whole->p, whole->n))), 4000,
             "%s_test through bloom_ref answers as on the blob", fn);
  snprintf(sql, sizeof sql,
           "SELECT count(*) FROM vals WHERE "
           "%s_probe('SELECT f FROM lf', v) IS %s_test(?1, v) "
           "AND %s_test(?1, v) IS NOT NULL", fn, fn, fn);
  TAP_EQ_U64(q_int(db, sql, ARGS(a_blob(whole->p, whole->n))), 4000,
             "%s_probe answers as %s_test on a layered filter", fn, fn);
  int total = 0;
  for (int i = 0; i < L; i++) total += bloom_fill[i];
  snprintf(sql, sizeof sql,
           SERIES("0", "299999") "SELECT count(*) FROM s WHERE "
           "(x BETWEEN 0 AND 99 OR x BETWEEN 100000 AND 100199 OR "
           "x BETWEEN 200000 AND 200149) AND %s_test(?1, x)", fn);
  TAP_EQ_U64(q_int(db, sql, ARGS(a_blob(whole->p, whole->n))),
             (uint64_t)total, "%s_test: no false negative among the %d "
             "values the layers hold", fn, total);
  snprintf(sql, sizeof sql, "SELECT %s_test(?1, NULL)", fn);
  q_int(db, sql, ARGS(a_blob(whole->p, whole->n)));
  tap_ok(q_type == SQLITE_NULL, "%s_test(layered, NULL) is NULL", fn);
}

/* ---- info and layers --------------------------------------------------------- */

#define BLOOM_COLS                                                         \
  "kind, version, hash, bits, hashes, bytes, capacity, target_fpr, "       \
  "inserted, bits_set, fill_ratio, estimated_items, estimated_fpr"
#define CUCKOO_COLS                                                        \
  "kind, version, hash, buckets, slots_per_bucket, fingerprint_bits, "     \
  "bytes, capacity, target_fpr, items, load_factor, estimated_fpr"

/* Row i of a query's values as text, joined by '|'. */
static char *row_text(const char *sql, const arg *a, int n, int row) {
  sqlite3_stmt *st = prep(db, sql, a, n);
  if (!st) return NULL;
  char *out = NULL;
  for (int r = 0; sqlite3_step(st) == SQLITE_ROW; r++) {
    if (r != row) continue;
    size_t cap = 1024, len = 0;
    out = calloc(1, cap);
    for (int c = 0; c < sqlite3_column_count(st); c++) {
      const unsigned char *t = sqlite3_column_text(st, c);
      len += (size_t)snprintf(out + len, cap - len, "%s%s", c ? "|" : "",
                              t ? (const char *)t : "NULL");
    }
  }
  sqlite3_finalize(st);
  return out;
}

/* 1 if row i of bloom_layers(whole) is layers[i]'s own `info` (its
** columns `cols`), and its `nulls` (n typeof() columns of the other kind)
** are NULL, for every layer. */
static int layer_rows_match(const blob *whole, const blob *layers,
                            const char *info, const char *cols,
                            const char *nulls, int n) {
  int all = 1;
  char sql[512], want_nulls[64];
  for (int i = 0; i < L; i++) {
    snprintf(sql, sizeof sql, "SELECT %s FROM %s(?1)", cols, info);
    char *want = row_text(sql, ARGS(a_blob(layers[i].p, layers[i].n)), 0);
    snprintf(sql, sizeof sql, "SELECT %s FROM bloom_layers(?1)", cols);
    char *got = row_text(sql, ARGS(a_blob(whole->p, whole->n)), i);
    snprintf(sql, sizeof sql, "SELECT layer, %s FROM bloom_layers(?1)", nulls);
    char *types = row_text(sql, ARGS(a_blob(whole->p, whole->n)), i);
    int at = snprintf(want_nulls, sizeof want_nulls, "%d", i);
    for (int k = 0; k < n; k++)
      at += snprintf(want_nulls + at, sizeof want_nulls - (size_t)at, "|null");
    int ok = want && got && strcmp(want, got) == 0 && types &&
             strcmp(types, want_nulls) == 0;
    if (!ok) tap_diag("  layer %d: want %s / got %s / %s", i, want, got, types);
    all &= ok;
    free(want);
    free(got);
    free(types);
  }
  return all;
}

static void check_bloom_info(const blob *whole, const blob *layers,
                             double fpr) {
  double e_items = 0.0;
  long double clear = 1.0L; /* no layer says maybe: the product */
  sqlite3_int64 bits = 0, capacity = 0, inserted = 0, bits_set = 0;
  for (int i = 0; i < L; i++) {
    sqlite3_stmt *st = first_row(
        db, "SELECT bits, capacity, inserted, estimated_items, "
            "estimated_fpr FROM bloom_info(?1)",
        ARGS(a_blob(layers[i].p, layers[i].n)));
    if (!st) exit(2);
    bits += sqlite3_column_int64(st, 0);
    capacity += sqlite3_column_int64(st, 1);
    inserted += sqlite3_column_int64(st, 2);
    e_items += sqlite3_column_double(st, 3);
    clear *= 1.0L - (long double)sqlite3_column_double(st, 4);
    sqlite3_finalize(st);
    bits_set += (sqlite3_int64)popcount_bytes(layers[i].p + 64,
                                              (size_t)layers[i].n - 64);
  }
  sqlite3_stmt *st = first_row(db, "SELECT " BLOOM_COLS " FROM bloom_info(?1)",
                               ARGS(a_blob(whole->p, whole->n)));
  if (!tap_ok(st != NULL, "bloom_info gives a row for a layered filter"))
    return;
  tap_ok(strcmp((const char *)sqlite3_column_text(st, 0), "bloom") == 0 &&
             sqlite3_column_int(st, 1) == 1 &&
             strcmp((const char *)sqlite3_column_text(st, 2),
                    "murmur3_x64_128") == 0,
         "bloom_info(layered): kind 'bloom', version 1, hash murmur3");
  TAP_EQ_U64(sqlite3_column_int64(st, 3), bits,
             "bloom_info(layered): bits is the layers' sum");
  tap_ok(sqlite3_column_type(st, 4) == SQLITE_NULL,
         "bloom_info(layered): hashes is NULL");
  TAP_EQ_U64(sqlite3_column_int64(st, 5), whole->n,
             "bloom_info(layered): bytes is the blob's length");
  TAP_EQ_U64(sqlite3_column_int64(st, 6), capacity,
             "bloom_info(layered): capacity is the layers' sum");
  tap_ok(sqlite3_column_double(st, 7) == fpr,
         "bloom_info(layered): target_fpr is the header's compound bound");
  TAP_EQ_U64(sqlite3_column_int64(st, 8), inserted,
             "bloom_info(layered): inserted is the layers' sum");
  TAP_EQ_U64(sqlite3_column_int64(st, 9), bits_set,
             "bloom_info(layered): bits_set is the popcount of every layer");
  tap_ok(sqlite3_column_double(st, 10) == (double)bits_set / (double)bits,
         "bloom_info(layered): fill_ratio is bits_set / bits over all layers");
  tap_ok(rel_close(sqlite3_column_double(st, 11), e_items, 1e-12),
         "bloom_info(layered): estimated_items is the layers' sum (%.6f)",
         e_items);
  tap_ok(rel_close(sqlite3_column_double(st, 12), (double)(1.0L - clear), 1e-12),
         "bloom_info(layered): estimated_fpr is 1 - prod(1 - layer's) "
         "(%.6g)", (double)(1.0L - clear));
  sqlite3_finalize(st);
  sqlite3_int64 count =
      q_int(db, "SELECT bloom_count(?1)", ARGS(a_blob(whole->p, whole->n)));
  TAP_EQ_U64(count, llround(e_items),
             "bloom_count(layered) is the rounded sum of the layers' "
             "estimates");

  /* bloom_layers: row i is layer i's own bloom_info, cuckoo columns NULL */
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM bloom_layers(?1)",
                   ARGS(a_blob(whole->p, whole->n))),
             L, "bloom_layers gives a row per layer");
  tap_ok(layer_rows_match(whole, layers, "bloom_info", BLOOM_COLS,
                          "typeof(buckets), typeof(slots_per_bucket),"
                          " typeof(fingerprint_bits), typeof(items),"
                          " typeof(load_factor)", 5),
         "bloom_layers: each row is the layer's bloom_info, its "
         "cuckoo columns NULL, layer = 0 (oldest) up");
  char *want = row_text("SELECT 0, " BLOOM_COLS " FROM bloom_info(?1)",
                        ARGS(a_blob(layers[1].p, layers[1].n)), 0);
  char *got = row_text("SELECT layer, " BLOOM_COLS " FROM bloom_layers(?1)",
                       ARGS(a_blob(layers[1].p, layers[1].n)), 0);
  tap_ok(want && got && strcmp(want, got) == 0 &&
             q_int(db, "SELECT count(*) FROM bloom_layers(?1)",
                   ARGS(a_blob(layers[1].p, layers[1].n))) == 1,
         "bloom_layers(plain filter): one row, layer 0, its bloom_info");
  free(want);
  free(got);
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM bloom_layers(NULL)", NOARGS), 0,
             "bloom_layers(NULL): no row");
  sqlite3_int64 layer_sum = q_int(
      db, "SELECT sum(bytes) FROM bloom_layers(?1)",
      ARGS(a_blob(whole->p, whole->n)));
  TAP_EQ_U64(layer_sum + 64 + (sqlite3_int64)spec_layered_directory(L), whole->n,
             "bloom_layers: the layers' bytes plus header and directory make "
             "the blob");
  /* correlated, as operators use it */
  must_exec(db, "DROP TABLE IF EXISTS ff; CREATE TABLE ff(name, f)");
  sqlite3_stmt *ins = must_prep(db, "INSERT INTO ff VALUES (?1, ?2)");
  sqlite3_bind_text(ins, 1, "layered", -1, SQLITE_STATIC);
  sqlite3_bind_blob(ins, 2, whole->p, whole->n, SQLITE_STATIC);
  sqlite3_step(ins);
  sqlite3_reset(ins);
  sqlite3_bind_text(ins, 1, "plain", -1, SQLITE_STATIC);
  sqlite3_bind_blob(ins, 2, layers[0].p, layers[0].n, SQLITE_STATIC);
  sqlite3_step(ins);
  sqlite3_finalize(ins);
  char *rows = q_text(db, "SELECT group_concat(name || ':' || layer, ',') FROM"
                          " (SELECT name, l.layer FROM ff, bloom_layers(ff.f)"
                          " AS l ORDER BY name, l.layer)", NOARGS);
  tap_ok(rows && strcmp(rows, "layered:0,layered:1,layered:2,plain:0") == 0,
         "bloom_layers correlated over a table: %s", rows ? rows : "(none)");
  free(rows);
}

static void check_cuckoo_info(const blob *whole, const blob *layers,
                              double fpr) {
  sqlite3_int64 buckets = 0, capacity = 0, items = 0;
  long double clear = 1.0L;
  for (int i = 0; i < L; i++) {
    sqlite3_stmt *st = first_row(
        db, "SELECT buckets, capacity, items, estimated_fpr "
            "FROM cuckoo_info(?1)",
        ARGS(a_blob(layers[i].p, layers[i].n)));
    if (!st) exit(2);
    buckets += sqlite3_column_int64(st, 0);
    capacity += sqlite3_column_int64(st, 1);
    items += sqlite3_column_int64(st, 2);
    clear *= 1.0L - (long double)sqlite3_column_double(st, 3);
    sqlite3_finalize(st);
  }
  sqlite3_stmt *st = first_row(
      db, "SELECT " CUCKOO_COLS " FROM cuckoo_info(?1)",
      ARGS(a_blob(whole->p, whole->n)));
  if (!tap_ok(st != NULL, "cuckoo_info gives a row for a layered filter"))
    return;
  tap_ok(strcmp((const char *)sqlite3_column_text(st, 0), "cuckoo") == 0 &&
             sqlite3_column_int(st, 1) == 1,
         "cuckoo_info(layered): kind 'cuckoo', version 1");
  TAP_EQ_U64(sqlite3_column_int64(st, 3), buckets,
             "cuckoo_info(layered): buckets is the layers' sum");
  TAP_EQ_U64(sqlite3_column_int64(st, 4), 4,
             "cuckoo_info(layered): slots_per_bucket 4");
  tap_ok(sqlite3_column_type(st, 5) == SQLITE_NULL,
         "cuckoo_info(layered): fingerprint_bits is NULL");
  TAP_EQ_U64(sqlite3_column_int64(st, 6), whole->n,
             "cuckoo_info(layered): bytes is the blob's length");
  TAP_EQ_U64(sqlite3_column_int64(st, 7), capacity,
             "cuckoo_info(layered): capacity is the layers' sum");
  tap_ok(sqlite3_column_double(st, 8) == fpr,
         "cuckoo_info(layered): target_fpr is the header's");
  TAP_EQ_U64(sqlite3_column_int64(st, 9), items,
             "cuckoo_info(layered): items is the layers' sum");
  tap_ok(sqlite3_column_double(st, 10) ==
             (double)items / ((double)buckets * 4.0),
         "cuckoo_info(layered): load_factor is items over all slots");
  tap_ok(rel_close(sqlite3_column_double(st, 11), (double)(1.0L - clear), 1e-12),
         "cuckoo_info(layered): estimated_fpr is 1 - prod(1 - layer's)");
  sqlite3_finalize(st);
  tap_ok(layer_rows_match(whole, layers, "cuckoo_info", CUCKOO_COLS,
                          "typeof(bits), typeof(hashes), typeof(inserted),"
                          " typeof(bits_set), typeof(fill_ratio),"
                          " typeof(estimated_items)", 6),
         "bloom_layers(cuckoo layers): each row is the layer's "
         "cuckoo_info, its Bloom columns NULL");
}

/* ---- updates ---------------------------------------------------------------- */

static void check_updates(const blob *bl, const blob *cu, double fpr) {
  /* bloom_add: the newest layer takes the values */
  blob whole = assemble(bl, L, 2, 0.5, fpr);
  blob added = query_blob("SELECT bloom_add(?1, 'new', 424242, NULL)",
                          ARGS(a_blob(whole.p, whole.n)));
  blob newest = query_blob("SELECT bloom_add(?1, 'new', 424242, NULL)",
                           ARGS(a_blob(bl[2].p, bl[2].n)));
  blob parts[L] = {bl[0], bl[1], newest};
  blob want = assemble(parts, L, 2, 0.5, fpr);
  tap_ok(same(&added, &want), "bloom_add(layered) adds to the newest layer "
                              "and the outer count follows");
  free_blob(&added);
  free_blob(&newest);
  free_blob(&want);
  free_blob(&whole);

  /* cuckoo_add / cuckoo_delete */
  whole = assemble(cu, L, 2, 0.5, fpr);
  added = query_blob("SELECT cuckoo_add(?1, 'new')",
                     ARGS(a_blob(whole.p, whole.n)));
  newest = query_blob("SELECT cuckoo_add(?1, 'new')",
                      ARGS(a_blob(cu[2].p, cu[2].n)));
  blob cparts[L] = {cu[0], cu[1], newest};
  want = assemble(cparts, L, 2, 0.5, fpr);
  tap_ok(same(&added, &want), "cuckoo_add(layered) adds to the newest layer");
  free_blob(&newest);
  free_blob(&want);
  /* 100050 is in layer 1 only when the newest layer does not test it */
  tap_ok(q_int(db, "SELECT cuckoo_test(?1, 100050)",
               ARGS(a_blob(cu[2].p, cu[2].n))) == 0,
         "(setup) 100050 is not in the newest cuckoo layer");
  blob deleted = query_blob("SELECT cuckoo_delete(?1, 100050)",
                            ARGS(a_blob(whole.p, whole.n)));
  blob middle = query_blob("SELECT cuckoo_delete(?1, 100050)",
                           ARGS(a_blob(cu[1].p, cu[1].n)));
  blob dparts[L] = {cu[0], middle, cu[2]};
  want = assemble(dparts, L, 2, 0.5, fpr);
  tap_ok(same(&deleted, &want),
         "cuckoo_delete(layered) removes from the newest layer that holds it");
  free_blob(&middle);
  free_blob(&want);
  free_blob(&deleted);
  blob in_both = query_blob("SELECT cuckoo_delete(?1, 'new')",
                            ARGS(a_blob(added.p, added.n)));
  tap_ok(same(&in_both, &whole),
         "cuckoo_delete undoes cuckoo_add on a layered filter");
  free_blob(&in_both);
  /* A value in two layers: one copy may be another value's, so nothing is
  ** removed (taking the wrong one would make that value a false
  ** negative). */
  blob oldest = query_blob("SELECT cuckoo_add(?1, 'dup')",
                           ARGS(a_blob(cu[0].p, cu[0].n)));
  newest = query_blob("SELECT cuckoo_add(?1, 'dup')",
                      ARGS(a_blob(cu[2].p, cu[2].n)));
  blob twice_parts[L] = {oldest, cu[1], newest};
  blob twice = assemble(twice_parts, L, 2, 0.5, fpr);
  blob kept = query_blob("SELECT cuckoo_delete(?1, 'dup')",
                         ARGS(a_blob(twice.p, twice.n)));
  tap_ok(same(&kept, &twice) &&
             q_int(db, "SELECT cuckoo_test(?1, 'dup')",
                   ARGS(a_blob(kept.p, kept.n))) == 1,
         "cuckoo_delete of a value two layers hold removes nothing");
  free_blob(&oldest);
  free_blob(&newest);
  free_blob(&twice);
  free_blob(&kept);
  /* a value in no layer: unchanged */
  int absent = 1;
  for (int i = 0; i < L; i++)
    absent &= q_int(db, "SELECT cuckoo_test(?1, 'never-added')",
                    ARGS(a_blob(cu[i].p, cu[i].n))) == 0;
  tap_ok(absent, "(setup) 'never-added' tests 0 in every cuckoo layer");
  blob same_blob = query_blob("SELECT cuckoo_delete(?1, 'never-added')",
                              ARGS(a_blob(whole.p, whole.n)));
  tap_ok(same(&same_blob, &whole),
         "cuckoo_delete of a value in no layer gives the filter unchanged");
  free_blob(&same_blob);
  free_blob(&added);

  /* A full newest layer: cuckoo_add says so, naming the layer. */
  blob tiny = query_blob("SELECT cuckoo_build(x, 4) FROM (SELECT 1 AS x UNION "
                         "SELECT 2 UNION SELECT 3 UNION SELECT 4)", NOARGS);
  blob tparts[2] = {cu[0], tiny};
  blob full = assemble(tparts, 2, 2, 0.5, fpr);
  char msg[512] = "";
  int failed = 0;
  for (int v = 5; v < 200 && !failed; v++) {
    blob next;
    next.p = NULL;
    failed = run_for_error(db, "SELECT cuckoo_add(?1, ?2)",
                           ARGS(a_blob(full.p, full.n), a_int(v)), msg,
                           sizeof msg, NULL, NULL);
    if (!failed) {
      next = query_blob("SELECT cuckoo_add(?1, ?2)",
                        ARGS(a_blob(full.p, full.n), a_int(v)));
      free_blob(&full);
      full = next;
    }
  }
  tap_ok(failed && strncmp(msg, "cuckoo_add: the filter is full", 30) == 0 &&
             strstr(msg, "newest layer") != NULL,
         "cuckoo_add on a full newest layer: %s", msg);
  free_blob(&full);
  free_blob(&tiny);
  free_blob(&whole);
}

/* ---- algebra ---------------------------------------------------------------- */

static void check_algebra(const blob *bl, const blob *cu) {
  blob other[L];
  for (unsigned i = 0; i < L; i++) other[i] = bloom_layer_blob(i, 50);
  blob a = assemble(bl, L, 2, 0.5, 0.02);
  blob b = assemble(other, L, 2, 0.5, 0.03);
  const char *fns[2] = {"bloom_union", "bloom_intersect"};
  for (int k = 0; k < 2; k++) {
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT %s(?1, ?2)", fns[k]);
    blob got = query_blob(sql, ARGS(a_blob(a.p, a.n), a_blob(b.p, b.n)));
    blob parts[L];
    for (int i = 0; i < L; i++)
      parts[i] = query_blob(sql, ARGS(a_blob(bl[i].p, bl[i].n),
                                      a_blob(other[i].p, other[i].n)));
    blob want = assemble(parts, L, 2, 0.5, 0.03);
    tap_ok(same(&got, &want), "%s of two layered filters is layer by layer "
                              "(target_fpr the larger)", fns[k]);
    free_blob(&got);
    free_blob(&want);
    for (int i = 0; i < L; i++) free_blob(&parts[i]);
  }
  /* bloom_merge over two rows equals bloom_union */
  must_exec(db, "DROP TABLE IF EXISTS two; CREATE TABLE two(f)");
  sqlite3_stmt *ins = must_prep(db, "INSERT INTO two VALUES (?1)");
  sqlite3_bind_blob(ins, 1, a.p, a.n, SQLITE_STATIC);
  sqlite3_step(ins);
  sqlite3_reset(ins);
  sqlite3_bind_blob(ins, 1, b.p, b.n, SQLITE_STATIC);
  sqlite3_step(ins);
  sqlite3_finalize(ins);
  blob merged = query_blob("SELECT bloom_merge(f) FROM two", NOARGS);
  blob unioned = query_blob("SELECT bloom_union(?1, ?2)",
                            ARGS(a_blob(a.p, a.n), a_blob(b.p, b.n)));
  tap_ok(same(&merged, &unioned), "bloom_merge of layered filters equals "
                                  "bloom_union");
  free_blob(&merged);
  free_blob(&unioned);

  /* refusals */
  blob two = assemble(bl, 2, 2, 0.5, 0.02);
  blob shifted[L] = {bl[0], bl[2], bl[1]};
  blob odd = assemble(shifted, L, 2, 0.5, 0.02);
  for (int k = 0; k < 2; k++) {
    char sql[128], prefix[160];
    snprintf(sql, sizeof sql, "SELECT %s(?1, ?2)", fns[k]);
    snprintf(prefix, sizeof prefix, "%s: a layered filter combines only",
             fns[k]);
    expect_error(db, fns[k], sql, ARGS(a_blob(a.p, a.n),
                 a_blob(bl[0].p, bl[0].n)), prefix, 0);
    expect_error(db, fns[k], sql, ARGS(a_blob(bl[0].p, bl[0].n),
                 a_blob(a.p, a.n)), prefix, 0);
    snprintf(prefix, sizeof prefix, "%s: the filters differ in layers: 3 vs 2",
             fns[k]);
    expect_error(db, fns[k], sql, ARGS(a_blob(a.p, a.n), a_blob(two.p, two.n)),
                 prefix, 0);
    snprintf(prefix, sizeof prefix, "%s: layer 1: the filters differ in bits",
             fns[k]);
    expect_error(db, fns[k], sql, ARGS(a_blob(a.p, a.n), a_blob(odd.p, odd.n)),
                 prefix, 0);
  }
  must_exec(db, "DELETE FROM two WHERE rowid = 2");
  ins = must_prep(db, "INSERT INTO two VALUES (?1)");
  sqlite3_bind_blob(ins, 1, bl[0].p, bl[0].n, SQLITE_STATIC);
  sqlite3_step(ins);
  sqlite3_finalize(ins);
  expect_error(db, "bloom_merge", "SELECT bloom_merge(f) FROM two", NOARGS,
               "bloom_merge: a layered filter combines only", 0);
  blob ca = assemble(cu, L, 2, 0.5, 0.02);
  expect_error(db, "bloom_union", "SELECT bloom_union(?1, ?1)",
               ARGS(a_blob(ca.p, ca.n)),
               "bloom_union: got a layered cuckoo filter, expected a bloom", 0);
  free_blob(&ca);
  free_blob(&two);
  free_blob(&odd);
  free_blob(&a);
  free_blob(&b);
  for (int i = 0; i < L; i++) free_blob(&other[i]);
}

/* ---- kinds and malformed blobs --------------------------------------------- */

static void check_kinds(const blob *lb, const blob *lc) {
  expect_error(db, "bloom_test", "SELECT bloom_test(?1, 1)",
               ARGS(a_blob(lc->p, lc->n)),
               "bloom_test: got a layered cuckoo filter, expected a bloom", 0);
  expect_error(db, "cuckoo_test", "SELECT cuckoo_test(?1, 1)",
               ARGS(a_blob(lb->p, lb->n)),
               "cuckoo_test: got a layered bloom filter, expected a cuckoo", 0);
  expect_error(db, "bloom_info", "SELECT * FROM bloom_info(?1)",
               ARGS(a_blob(lc->p, lc->n)), "bloom_info: got a layered cuckoo",
               0);
  expect_error(db, "cuckoo_info", "SELECT * FROM cuckoo_info(?1)",
               ARGS(a_blob(lb->p, lb->n)), "cuckoo_info: got a layered bloom",
               0);
  expect_error(db, "bloom_count", "SELECT bloom_count(?1)",
               ARGS(a_blob(lc->p, lc->n)), "bloom_count: got a layered cuckoo",
               0);
  expect_error(db, "cuckoo_add", "SELECT cuckoo_add(?1, 1)",
               ARGS(a_blob(lb->p, lb->n)), "cuckoo_add: got a layered bloom",
               0);
  expect_error(db, "bloom_add", "SELECT bloom_add(?1, 1)",
               ARGS(a_blob(lc->p, lc->n)), "bloom_add: got a layered cuckoo",
               0);
}

typedef struct damage {
  const char *rule;
  int at;       /* byte offset to change, or -1 */
  int value;    /* new byte; -1: add 1 to the u64 at `at`; -2: write a
                   quiet NaN binary64 there */
  int len_delta;
  int spot_layer; /* at is relative to layer N's start (when >= 0) */
} damage;

static const damage damages[] = {
    {"0 layers", 13, 0, 0, -1},
    {"65 layers", 13, 65, 0, -1},
    {"layer_kind 3 (nesting)", 12, 3, 0, -1},
    {"layer_kind 0", 12, 0, 0, -1},
    {"growth 0", 14, 0, 0, -1}, /* growth 2 is 02 00 */
    {"tightening NaN", 16, -2, 0, -1},
    {"tightening 2^1023 (above 1)", 23, 0x7f, 0, -1}, /* 0.5: 00..00 e0 3f */
    {"a capacity that is not the layers' sum", 24, -1, 0, -1},
    {"a count that is not the layers' sum", 40, -1, 0, -1},
    {"a reserved byte set", 50, 1, 0, -1},
    {"a layer length past the end", 64 + 8 * 2, -1, 0, -1},
    {"a padding byte of the directory set", 64 + 8 * L, 1, 0, -1},
    {"layer lengths leaving a byte", -1, 0, 1, -1},
    {"a blob shorter than its directory", -1, 0, -(1 << 20), -1},
    {"a layer with a bad magic", 0, 'X', 0, 1},
    {"a layer with another seed", 8, 7, 0, 0},
    {"a layered layer", 5, 3, 0, 2},
};
#define NDAMAGES ((int)(sizeof damages / sizeof damages[0]))

static blob damaged(const blob *good, const damage *d) {
  int n = good->n + d->len_delta;
  if (d->len_delta < 0) n = 64 + (int)spec_layered_directory(L) - 1;
  blob b = {calloc(1, (size_t)n), n};
  memcpy(b.p, good->p, (size_t)(n < good->n ? n : good->n));
  if (d->at >= 0) {
    size_t at = (size_t)d->at;
    if (d->spot_layer >= 0) {
      size_t start = 64 + spec_layered_directory(L);
      for (int i = 0; i < d->spot_layer; i++)
        start += (size_t)le64(good->p + 64 + 8 * i);
      at += start;
    }
    if (d->value >= 0)
      b.p[at] = (unsigned char)d->value;
    else if (d->value == -2)
      put_le64(b.p + at, 0x7ff8000000000000ULL);
    else
      put_le64(b.p + at, le64(b.p + at) + 1);
  }
  return b;
}

static void check_malformed(const blob *lb, const blob *lc) {
  static const char *const bloom_sql[][2] = {
      {"bloom_test", "SELECT bloom_test(?1, 1)"},
      {"bloom_add", "SELECT bloom_add(?1, 1)"},
      {"bloom_count", "SELECT bloom_count(?1)"},
      {"bloom_info", "SELECT * FROM bloom_info(?1)"},
      {"bloom_layers", "SELECT * FROM bloom_layers(?1)"},
      {"bloom_ref", "SELECT * FROM bloom_ref(?1)"},
      {"bloom_union", "SELECT bloom_union(?1, ?1)"},
      {"bloom_merge", "SELECT bloom_merge(?1)"},
  };
  static const char *const cuckoo_sql[][2] = {
      {"cuckoo_test", "SELECT cuckoo_test(?1, 1)"},
      {"cuckoo_add", "SELECT cuckoo_add(?1, 1)"},
      {"cuckoo_delete", "SELECT cuckoo_delete(?1, 1)"},
      {"cuckoo_info", "SELECT * FROM cuckoo_info(?1)"},
      {"bloom_layers", "SELECT * FROM bloom_layers(?1)"},
  };
  for (int k = 0; k < 2; k++) {
    const blob *good = k ? lc : lb;
    const char *const(*calls)[2] = k ? cuckoo_sql : bloom_sql;
    int ncalls = k ? 5 : 8;
    for (int d = 0; d < NDAMAGES; d++) {
      blob b = damaged(good, &damages[d]);
      int spec = spec_layered_valid(b.p, (size_t)b.n, 1) ||
                 spec_layered_valid(b.p, (size_t)b.n, 2);
      int all = !spec;
      char why[600] = "";
      for (int c = 0; c < ncalls; c++) {
        char msg[512], prefix[64];
        snprintf(prefix, sizeof prefix, "%s: ", calls[c][0]);
        int failed = run_for_error(db, calls[c][1], ARGS(a_blob(b.p, b.n)),
                                   msg, sizeof msg, NULL, NULL);
        if (!failed || strncmp(msg, prefix, strlen(prefix)) != 0) {
          all = 0;
          snprintf(why, sizeof why, "%s: %s", calls[c][0],
                   failed ? msg : "no error");
        } else if (c == 0) {
          snprintf(why, sizeof why, "%s", msg);
        }
      }
      tap_ok(all, "%s layers, %s: every reader refuses it, naming itself "
             "(%s)", k ? "cuckoo" : "bloom", damages[d].rule, why);
      free_blob(&b);
    }
  }
}

/* ---- empty layered filters ---------------------------------------------- */

/* FORMAT.md: an empty filter reports estimated_fpr 0.0, and so does a
** layered one whose layers are all empty: +0.0, not the -0.0 that
** -expm1(0.0) gives (equal under ==, and printed alike by SQLite, so the
** sign is read with signbit). */
static void check_empty(void) {
  const char *layer_sql[2] = {"SELECT bloom_empty(%d, %.17g)",
                              "SELECT cuckoo_build(NULL, %d, %.17g)"};
  const char *totals[2] = {"SELECT estimated_fpr FROM bloom_info(?1)",
                           "SELECT estimated_fpr FROM cuckoo_info(?1)"};
  for (int kind = 0; kind < 2; kind++) {
    blob layers[L];
    for (unsigned i = 0; i < L; i++) {
      char sql[128];
      snprintf(sql, sizeof sql, layer_sql[kind], bloom_cap[i], bloom_fpr[i]);
      layers[i] = query_blob(sql, NOARGS);
    }
    blob whole = assemble(layers, L, 2, 0.5, 0.02);
    const arg a[] = {a_blob(whole.p, whole.n)};
    double total = q_real(db, totals[kind], a, 1);
    sqlite3_stmt *st =
        prep(db, "SELECT estimated_fpr FROM bloom_layers(?1)", a, 1);
    int rows = 0, positive = 1;
    while (st && sqlite3_step(st) == SQLITE_ROW) {
      double e = sqlite3_column_double(st, 0);
      rows++;
      if (e != 0.0 || signbit(e)) positive = 0;
    }
    sqlite3_finalize(st);
    tap_ok(total == 0.0 && !signbit(total) && rows == L && positive,
           "%s of %d empty %s layers: estimated_fpr +0.0 (got %s%g), and "
           "+0.0 in each of bloom_layers' %d rows",
           kind ? "cuckoo_info" : "bloom_info", L, kind ? "cuckoo" : "Bloom",
           signbit(total) ? "-" : "+", fabs(total), rows);
    free_blob(&whole);
    for (unsigned i = 0; i < L; i++) free_blob(&layers[i]);
  }
}

int main(void) {
  db = open_db(NULL);
  rng_seed(0x5ca1ab1eULL, "values probed against layered filters");
  blob bl[L], cu[L];
  for (unsigned i = 0; i < L; i++) {
    bl[i] = bloom_layer_blob(i, 0);
    cu[i] = cuckoo_layer_blob(i);
  }
  const double fpr = 0.02;
  blob lb = assemble(bl, L, 2, 0.5, fpr);
  blob lc = assemble(cu, L, 2, 0.5, fpr);
  tap_ok(spec_layered_valid(lb.p, (size_t)lb.n, 1) &&
             spec_layered_valid(lc.p, (size_t)lc.n, 2),
         "(setup) the assembled blobs are valid by FORMAT.md");

  check_membership("bloom", &lb, bl);
  check_membership("cuckoo", &lc, cu);
  check_bloom_info(&lb, bl, fpr);
  check_cuckoo_info(&lc, cu, fpr);
  check_updates(bl, cu, fpr);
  check_algebra(bl, cu);
  check_kinds(&lb, &lc);
  check_malformed(&lb, &lc);
  check_empty();

  for (unsigned i = 0; i < L; i++) {
    free_blob(&bl[i]);
    free_blob(&cu[i]);
  }
  free_blob(&lb);
  free_blob(&lc);
  sqlite3_close(db);
  return tap_done();
}
