/*
** Values of different storage classes that hash alike (ext/FORMAT.md,
** "Hashing values"): under 16 bytes MurmurHash3 x64_128 mixes its seed
** only as seed ^ length, and zero bytes at the end add nothing, so a value
** of class c1 and length l1 hashes as the same bytes padded with zeros to
** length l2 in class c2 whenever (seed + c1) ^ l1 = (seed + c2) ^ l2.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** The test searches every such pair of (class, length) under 16 bytes at
** the functions' seed 0, with random bytes for each (a fixed seed, printed),
** and the pairs a stranger's reader found.  For each it checks that the
** pair does collide (a Bloom filter of one answers for the other at a rate
** of 1e-9), and that nothing treats the two as one value: cuckoo_build
** keeps a copy of each, so deleting either leaves the other (one copy for
** both made that a false negative); bloom_build sized from the data counts
** two; a cuckoo_store holds both through a delete of either.
*/
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rng.h"
#include "lib/sqldb.h"
#include "lib/tap.h"

/* Type codes: the seed offsets of FORMAT.md, "Hashing values". */
enum { T_INTEGER = 1, T_REAL = 2, T_TEXT = 3, T_BLOB = 4 };
static const char *const type_names[] = {"", "INTEGER", "REAL", "TEXT",
                                         "BLOB"};

typedef struct value {
  int type;
  unsigned char bytes[16];
  int len;
} value;

/* The value as a bound argument; 0 if these bytes are no value of its
** class (a REAL that would hash as an INTEGER, or that is not finite). */
static int as_arg(const value *v, arg *a, double *real_slot) {
  if (v->type == T_INTEGER) {
    *a = a_int((sqlite3_int64)le64(v->bytes));
  } else if (v->type == T_REAL) {
    uint64_t bits = le64(v->bytes);
    memcpy(real_slot, &bits, sizeof bits);
    double d = *real_slot;
    if (!isfinite(d) || (d >= -9223372036854775808.0 &&
                         d < 9223372036854775808.0 && d == floor(d)))
      return 0;
    *a = a_real(d);
  } else {
    arg t = {v->type == T_TEXT ? A_TEXT : A_BLOB, 0, 0, v->bytes, v->len};
    *a = t;
  }
  return 1;
}

/* Runs sql to its end, or exits. */
static void run_to_end(sqlite3 *db, const char *sql, const arg *a, int n) {
  sqlite3_stmt *st = prep(db, sql, a, n);
  int rc = st ? sqlite3_step(st) : SQLITE_ERROR;
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    tap_diag("%s: %s", sql, sqlite3_errmsg(db));
    exit(2);
  }
}

/* Counts of pairs checked and of each way one failed. */
static int pairs, not_colliding, cuckoo_lost, build_merged, store_lost;

static void check_pair(sqlite3 *db, const value *a, const value *b) {
  double ra, rb;
  arg x, y;
  if (!as_arg(a, &x, &ra) || !as_arg(b, &y, &rb)) return;
  pairs++;
  /* They collide: a filter of a, at 1e-9, answers for b. */
  if (q_int(db, "SELECT bloom_test(bloom_build(?1, 100, 1e-9), ?2)",
            ARGS(x, y)) != 1) {
    not_colliding++;
    tap_diag("%s of %d bytes and %s of %d bytes do not collide",
             type_names[a->type], a->len, type_names[b->type], b->len);
  }
  /* cuckoo_build keeps both: either deleted, the other stays. */
  sqlite3_int64 kept = q_int(
      db, "WITH f(f) AS (SELECT cuckoo_build(v, 10, 0.01) FROM (SELECT ?1 AS "
      "v UNION ALL SELECT ?2)) SELECT (SELECT items FROM cuckoo_info(f)) = 2 "
      "AND cuckoo_test(cuckoo_delete(f, ?2), ?1) AND "
      "cuckoo_test(cuckoo_delete(f, ?1), ?2) FROM f", ARGS(x, y));
  if (kept != 1) {
    cuckoo_lost++;
    tap_diag("cuckoo_build: %s of %d bytes and %s of %d bytes taken as one",
             type_names[a->type], a->len, type_names[b->type], b->len);
  }
  /* bloom_build sized from the data counts two distinct values. */
  if (q_int(db, "SELECT capacity FROM bloom_info((SELECT bloom_build(v, "
            "NULL) FROM (SELECT ?1 AS v UNION ALL SELECT ?2)))",
            ARGS(x, y)) != 2)
    build_merged++;
  /* A cuckoo_store holds one copy each. */
  must_exec(db, "DROP TABLE s; CREATE VIRTUAL TABLE s USING "
                "cuckoo_store(capacity = 100)");
  run_to_end(db, "INSERT INTO s(value) VALUES (?1), (?2)", ARGS(x, y));
  run_to_end(db, "DELETE FROM s WHERE value = ?1", ARGS(x));
  if (q_int(db, "SELECT count(*) FROM s WHERE value = ?1", ARGS(y)) != 1)
    store_lost++;
}

static void random_bytes(value *v, int len) {
  /* 1..127: valid UTF-8 as TEXT, and no byte that ends a string early. */
  for (int i = 0; i < 16; i++)
    v->bytes[i] = i < len ? (unsigned char)(1 + rng_next() % 127) : 0;
  v->len = len;
}

int main(void) {
  sqlite3 *db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE s USING cuckoo_store(capacity = 100)");
  /* The pairs a reader written from FORMAT.md found. */
  static const struct {
    value a, b;
  } found[] = {
      {{T_INTEGER, {42}, 8}, {T_BLOB, {42}, 13}},
      {{T_TEXT, {'A'}, 1}, {T_BLOB, {'A'}, 6}},
      {{T_REAL, {0, 0, 0, 0, 0, 0, 0xF8, 0x3F}, 8},
       {T_BLOB, {0, 0, 0, 0, 0, 0, 0xF8, 0x3F}, 14}},
      {{T_TEXT, {'M', ',', 'F', 0}, 4}, {T_BLOB, {'M', ',', 'F'}, 3}},
  };
  for (size_t i = 0; i < sizeof found / sizeof found[0]; i++)
    check_pair(db, &found[i].a, &found[i].b);
  int found_pairs = pairs;
  /* Every (class, length) pair under 16 bytes whose seed ^ length agree
  ** (seed + type with the functions' seed 0), the shorter padded. */
  rng_seed(0x5eedc011, "collision search");
  int lengths[5][2] = {{0, 0}, {8, 8}, {8, 8}, {0, 15}, {0, 15}};
  int shapes = 0;
  for (int ta = T_INTEGER; ta <= T_BLOB; ta++)
    for (int tb = T_INTEGER; tb <= T_BLOB; tb++)
      for (int la = lengths[ta][0]; ta != tb && la <= lengths[ta][1]; la++)
        for (int lb = la; lb <= lengths[tb][1]; lb++) {
          if (lb < lengths[tb][0] || (ta ^ la) != (tb ^ lb)) continue;
          shapes++;
          for (int trial = 0; trial < 8; trial++) {
            value a = {ta, {0}, 0}, b;
            random_bytes(&a, la);
            b = a;
            b.type = tb;
            b.len = lb; /* the same bytes, zeros after */
            check_pair(db, &a, &b);
          }
        }
  tap_ok(found_pairs == 4 && shapes > 10 && pairs > found_pairs + 50 &&
             not_colliding == 0,
         "%d pairs of values of different classes hash alike (%d found by "
         "the reader, the others in %d (class, length) shapes)", pairs,
         found_pairs, shapes);
  tap_ok(cuckoo_lost == 0, "cuckoo_build keeps a copy of each value of a "
         "colliding pair: either deleted, the other answers (%d lost)",
         cuckoo_lost);
  tap_ok(build_merged == 0, "bloom_build sized from the data counts both "
         "(%d merged)", build_merged);
  tap_ok(store_lost == 0, "a cuckoo_store keeps both through a delete of "
         "either (%d lost)", store_lost);
  sqlite3_close(db);
  return tap_done();
}
