/*
** Writes the seed corpus of the fuzz targets (`make fuzz-corpus`):
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   gen-corpus tests/fuzz/corpus
**
** Valid filters are made by the extension itself (linked in statically),
** through SQL; malformed ones are valid ones with one field broken.  The
** output is deterministic, small (a few KB per target) and committed.
** Input layouts are those the targets document: filter = [blob][values][t],
** algebra = [a][b][la:2], build = [mode][n:8][p:8][values].
*/
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/bloom_spec.h"

int sqlite3_bloom_init(sqlite3 *db, char **err,
                       const sqlite3_api_routines *api);

static sqlite3 *db;
static const char *root;

static void die(const char *what) {
  fprintf(stderr, "gen-corpus: %s: %s\n", what, db ? sqlite3_errmsg(db) : "");
  exit(1);
}

typedef struct buf {
  unsigned char *p;
  size_t n;
} buf;

/* The BLOB the query returns (one row, one column). */
static buf blob_of(const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(sql);
  if (sqlite3_step(st) != SQLITE_ROW ||
      sqlite3_column_type(st, 0) != SQLITE_BLOB)
    die(sql);
  buf b;
  b.n = (size_t)sqlite3_column_bytes(st, 0);
  b.p = malloc(b.n + 4096);
  if (b.p == NULL) die("malloc");
  memcpy(b.p, sqlite3_column_blob(st, 0), b.n);
  sqlite3_finalize(st);
  return b;
}

static void put(buf *b, const void *p, size_t n) {
  if (n == 0) return;
  memcpy(b->p + b->n, p, n);
  b->n += n;
}

static void put_byte(buf *b, unsigned v) {
  unsigned char c = (unsigned char)v;
  put(b, &c, 1);
}

static void put_u64(buf *b, uint64_t v) {
  unsigned char le[8];
  put_le64(le, v);
  put(b, le, 8);
}

static void put_double(buf *b, double d) {
  unsigned char le[8];
  put_le_double(le, d);
  put(b, le, 8);
}

/* Value encodings of fz_decode_values(). */
static void v_int(buf *b, int64_t i) { put_byte(b, 0); put_u64(b, (uint64_t)i); }
static void v_real(buf *b, double d) { put_byte(b, 1); put_double(b, d); }
static void v_text(buf *b, const char *s) {
  put_byte(b, 2);
  put_byte(b, (unsigned)strlen(s));
  put(b, s, strlen(s));
}
static void v_blob(buf *b, const void *p, size_t n) {
  put_byte(b, 3);
  put_byte(b, (unsigned)n);
  put(b, p, n);
}
static void v_null(buf *b) { put_byte(b, 4); }

/* A few probe values of every storage class. */
static void v_mix(buf *b) {
  v_int(b, 3);
  v_text(b, "abc");
  v_blob(b, "\x00\x01\x02", 3);
  v_real(b, 2.5);
  v_null(b);
  v_real(b, 42.0);
}

static void write_file(const char *target, const char *name, const buf *b) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, target);
  if (mkdir(path, 0777) != 0 && errno != EEXIST) die(path);
  snprintf(path, sizeof path, "%s/%s/%s", root, target, name);
  FILE *f = fopen(path, "wb");
  if (f == NULL || fwrite(b->p, 1, b->n, f) != b->n || fclose(f) != 0)
    die(path);
}

/* filter: blob, then values, then the length of the values. */
static void filter_seed(const char *name, buf blob, int with_values) {
  size_t start = blob.n;
  if (with_values) v_mix(&blob);
  put_byte(&blob, (unsigned)(blob.n - start));
  write_file("filter", name, &blob);
  free(blob.p);
}

/* A layout-0 cuckoo filter (what version 1.1.0 wrote, a power of two of
** buckets; no function of this version makes one) of `buckets` buckets of
** f-bit fingerprints, holding the values `values` gives (one column), added
** one by one with cuckoo_add, which keeps a filter's layout. */
static buf cuckoo0_of(uint64_t buckets, unsigned f, uint64_t capacity,
                      double fpr, const char *values) {
  buf b;
  b.n = SPEC_HEADER + (buckets == 1 ? (4 * f + 7) / 8 : buckets / 2 * f);
  b.p = calloc(b.n + 4096, 1);
  if (b.p == NULL) die("calloc");
  memcpy(b.p, "BLMF\x01\x02\x01", 7);
  b.p[12] = (unsigned char)f;
  b.p[13] = 4;
  put_le64(b.p + 16, buckets);
  put_le64(b.p + SPEC_OFF_CAPACITY, capacity);
  put_le_double(b.p + SPEC_OFF_FPR, fpr);
  sqlite3_stmt *vs, *add;
  if (sqlite3_prepare_v2(db, values, -1, &vs, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "SELECT cuckoo_add(?1, ?2)", -1, &add, NULL) !=
          SQLITE_OK)
    die(values);
  while (sqlite3_step(vs) == SQLITE_ROW) {
    sqlite3_bind_blob(add, 1, b.p, (int)b.n, SQLITE_TRANSIENT);
    sqlite3_bind_value(add, 2, sqlite3_column_value(vs, 0));
    if (sqlite3_step(add) != SQLITE_ROW ||
        (size_t)sqlite3_column_bytes(add, 0) != b.n)
      die("cuckoo_add");
    memcpy(b.p, sqlite3_column_blob(add, 0), b.n);
    sqlite3_reset(add);
  }
  sqlite3_finalize(vs);
  sqlite3_finalize(add);
  return b;
}

static buf copy_of(const buf *b) {
  buf c;
  c.p = malloc(b->n + 4096);
  if (c.p == NULL) die("malloc");
  memcpy(c.p, b->p, b->n);
  c.n = b->n;
  return c;
}

static void algebra_seed(const char *name, const buf *a, const buf *b) {
  buf out;
  out.p = malloc(a->n + b->n + 2);
  if (out.p == NULL) die("malloc");
  out.n = 0;
  put(&out, a->p, a->n);
  put(&out, b->p, b->n);
  put_byte(&out, (unsigned)(a->n & 0xff));
  put_byte(&out, (unsigned)(a->n >> 8));
  write_file("algebra", name, &out);
  free(out.p);
}

/* A layered filter (FORMAT.md, "Kind 3") of the given layers, assembled
** by tests/lib/bloom_spec.h; room to spare as blob_of gives. */
static buf layered_of(const buf *layers, unsigned n) {
  const unsigned char *p[4];
  size_t lens[4];
  for (unsigned i = 0; i < n; i++) {
    p[i] = layers[i].p;
    lens[i] = layers[i].n;
  }
  size_t len = 0;
  unsigned char *whole = spec_layered_build(p, lens, n, 2, 0.5, 0.02, &len);
  if (whole == NULL) die("spec_layered_build");
  buf b;
  b.p = malloc(len + 4096);
  if (b.p == NULL) die("malloc");
  memcpy(b.p, whole, len);
  b.n = len;
  free(whole);
  return b;
}

enum { N_INT = 0, N_REAL = 1, N_NULL = 2, N_TEXT = 3 };
enum { P_REAL = 0, P_INT = 4, P_NULL = 8, P_OMIT = 12, ONE_ARG = 16 };

static void build_seed(const char *name, unsigned mode, uint64_t n, double p,
                       int values) {
  buf b;
  b.p = malloc(4096);
  if (b.p == NULL) die("malloc");
  b.n = 0;
  put_byte(&b, mode);
  if ((mode & 3) == N_REAL) {
    double d;
    memcpy(&d, &n, sizeof d); /* n holds the REAL's bits */
    put_double(&b, d);
  } else {
    put_u64(&b, n);
  }
  if ((mode & 12) == P_INT)
    put_u64(&b, (uint64_t)(int64_t)p);
  else
    put_double(&b, p);
  if (values == 1) v_mix(&b);
  if (values == 2) {
    for (int i = 0; i < 12; i++) v_int(&b, i * 1000003);
    v_int(&b, 7);
    v_int(&b, 7); /* a duplicate */
    v_text(&b, "");
    v_blob(&b, "", 0);
  }
  write_file("build", name, &b);
  free(b.p);
}

static uint64_t real_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/* store: the CREATE arguments ('~' first for cuckoo_store), a newline,
** then operations of fuzz_store.c.  These are its windowed seeds, on both
** clocks and both kinds, that reach the generation rows and the time: the
** other store seeds were written by hand and are kept as committed. */
static buf store_start(const char *args) {
  buf b;
  b.p = malloc(4096);
  if (b.p == NULL) die("malloc");
  b.n = 0;
  put(&b, args, strlen(args));
  put_byte(&b, '\n');
  return b;
}

/* One operation: op, arg, for op >= 6 x and y, then arg % 16 bytes. */
static void store_op(buf *b, unsigned op, unsigned arg, int x, int y,
                     const char *slice) {
  put_byte(b, op);
  put_byte(b, arg);
  if (op >= 6) {
    put_byte(b, (unsigned)(x & 0xff));
    put_byte(b, (unsigned)(y & 0xff));
  }
  size_t n = arg % 16;
  if (strlen(slice) < n) die("store_op: slice shorter than arg % 16");
  put(b, slice, n);
}

static void store_seed(const char *name, buf *b) {
  write_file("store", name, b);
  free(b->p);
}

/* Operation codes of fuzz_store.c. */
enum { S_ADD = 0, S_CHUNK = 1, S_CONFIG = 4, S_ADD_AT = 6, S_TIME = 7,
       S_GEN = 8, S_COPY = 9, S_SLOT_CHUNK = 10, S_WRITE = 11 };

static void store_seeds(void) {
  {
    /* Events clock: values over several generations, one a span ahead, the
    ** time row moved three spans on (expired rows left in the table), and
    ** values after it. */
    buf b = store_start("window = 100, generations = 4, clock = 'events'");
    store_op(&b, S_ADD_AT, 3, 40, 0, "old");
    store_op(&b, S_ADD_AT, 3, 1, 0, "mid");
    store_op(&b, S_ADD_AT, 3, 1, 1, "new");
    store_op(&b, S_ADD, 4, 0, 0, "last");
    store_op(&b, S_TIME, 0, 3, 0, "");
    store_op(&b, S_ADD, 5, 0, 0, "after");
    store_seed("window-events-time-moved", &b);
  }
  {
    /* Cuckoo, events clock: a generation copied into an older slot's
    ** number, the expire command, a delete. */
    buf b = store_start("~window = 60, generations = 2, clock = 'events', "
                        "capacity = 20");
    store_op(&b, S_ADD_AT, 2, 50, 0, "a1");
    store_op(&b, S_ADD_AT, 2, 1, 0, "b2");
    store_op(&b, S_COPY, 0, 1, 0, "");
    store_op(&b, S_WRITE, 0, 0, 0, "");
    store_op(&b, S_ADD_AT, 2, 2, 0, "c3");
    store_op(&b, S_WRITE, 2, 3, 0, "b2");
    store_seed("cuckoo-window-events-copied-slot", &b);
  }
  {
    /* Wall clock: an `at` a span back and one ahead (refused), the time row
    ** moved two spans ahead of now, adds after it. */
    buf b = store_start("window = '1 hour', generations = 3");
    store_op(&b, S_ADD, 3, 0, 0, "now");
    store_op(&b, S_ADD_AT, 4, -1, 0, "back");
    store_op(&b, S_ADD_AT, 5, 1, 0, "ahead");
    store_op(&b, S_TIME, 0, 2, 0, "");
    store_op(&b, S_ADD, 5, 0, 0, "later");
    store_op(&b, S_WRITE, 0, 0, 0, "");
    store_seed("window-wall-time-ahead", &b);
  }
  {
    /* Cuckoo, wall clock: an older generation's number in another slot,
    ** a zero chunk of the right length there, and a short one. */
    buf b = store_start("~window = 3600, generations = 4, capacity = 100");
    store_op(&b, S_ADD, 3, 0, 0, "one");
    store_op(&b, S_ADD, 3, 0, 0, "two");
    store_op(&b, S_GEN, 0, 1, -2, "");
    store_op(&b, S_SLOT_CHUNK, 0, 1, 12, "");
    store_op(&b, S_SLOT_CHUNK, 2, 2, 8, "zz");
    store_seed("cuckoo-window-wall-slots", &b);
  }
  {
    /* One generation, events clock: a jump of 100 spans, and a
    ** generation row rewritten: its layers. */
    buf b = store_start("window = 10, generations = 1, clock = 'events'");
    store_op(&b, S_ADD_AT, 1, 3, 0, "x");
    store_op(&b, S_ADD_AT, 1, 100, 1, "y");
    store_op(&b, S_GEN, 16, 0, 2, "");
    store_op(&b, S_ADD, 1, 0, 0, "z");
    store_seed("window-events-one-generation", &b);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: gen-corpus CORPUS_DIR\n");
    return 2;
  }
  root = argv[1];
  if (mkdir(root, 0777) != 0 && errno != EEXIST) die(root);
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) die("open");
  char *err = NULL;
  if (sqlite3_bloom_init(db, &err, NULL) != SQLITE_OK) die("init");

#define SERIES(n) "WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < " #n ") "
  buf one = blob_of(SERIES(5) "SELECT bloom_build(x, 10, 0.01) FROM s");
  buf one_b = blob_of(SERIES(5) "SELECT bloom_build(x + 100, 10, 0.01) FROM s");
  buf two = blob_of(SERIES(60) "SELECT bloom_build(x, 100, 0.01) FROM s");
  buf many = blob_of(SERIES(300) "SELECT bloom_build('v' || x, 300, 0.05) FROM s");
  buf k64 = blob_of(SERIES(3) "SELECT bloom_build(x, 1, 1e-12) FROM s");
  buf tiny = blob_of("SELECT bloom_empty(1, 0.9999999999999999)");
  buf empty = blob_of("SELECT bloom_empty(10)");
  buf from_data = blob_of(SERIES(20) "SELECT bloom_build(x % 7) FROM s");
  buf worked = blob_of("SELECT bloom_build(v, 10, 0.01) FROM "
                       "(SELECT 'abc' AS v UNION ALL SELECT 42)");

  /* --- filter --- */
  filter_seed("valid-1block", copy_of(&one), 1);
  filter_seed("valid-1block-novalues", copy_of(&one), 0);
  filter_seed("valid-2block", copy_of(&two), 1);
  filter_seed("valid-many", copy_of(&many), 1);
  filter_seed("valid-k-max", copy_of(&k64), 1);
  filter_seed("valid-tiny-p", copy_of(&tiny), 1);
  filter_seed("valid-empty", copy_of(&empty), 1);
  filter_seed("valid-from-data", copy_of(&from_data), 1);
  filter_seed("valid-format-example", copy_of(&worked), 1);
  {
    buf b = copy_of(&one);
    put_le32(b.p + SPEC_OFF_SEED, 0xdeadbeef);
    filter_seed("valid-seed", b, 1);
  }
  {
    buf b = copy_of(&one);
    memset(b.p + SPEC_HEADER, 0xff, b.n - SPEC_HEADER);
    put_le64(b.p + SPEC_OFF_INSERTED, UINT64_MAX);
    filter_seed("valid-all-ones-inserted-max", b, 1);
  }
  {
    buf b = copy_of(&one);
    put_le32(b.p + SPEC_OFF_HASHES, 64);
    filter_seed("valid-k64", b, 1);
  }
  {
    buf b = copy_of(&one);
    b.n -= 1;
    filter_seed("bad-truncated", b, 1);
  }
  {
    buf b = copy_of(&one);
    b.n = 40;
    filter_seed("bad-short-header", b, 1);
  }
  {
    buf b = copy_of(&one);
    put_byte(&b, 0);
    filter_seed("bad-trailing-byte", b, 1);
  }
  {
    buf b = copy_of(&one);
    b.p[0] = 'b';
    filter_seed("bad-magic", b, 1);
  }
  {
    buf b = copy_of(&one);
    b.p[SPEC_OFF_VERSION] = 2;
    filter_seed("bad-version", b, 1);
  }
  {
    buf b = copy_of(&one);
    b.p[SPEC_OFF_FLAGS] = 1;
    filter_seed("bad-flags", b, 1);
  }
  {
    buf b = copy_of(&one);
    b.p[SPEC_OFF_RESERVED + 7] = 1;
    filter_seed("bad-reserved", b, 1);
  }
  {
    /* The wrap: (bits + 7) / 8 is 0 for bits = 2^64 - 1. */
    buf b = copy_of(&one);
    put_le64(b.p + SPEC_OFF_BITS, UINT64_MAX);
    b.n = SPEC_HEADER;
    filter_seed("bad-bits-wrap", b, 1);
  }
  {
    buf b = copy_of(&one);
    put_le64(b.p + SPEC_OFF_BITS, 1024);
    filter_seed("bad-bits-1024-body-64", b, 1);
  }
  {
    buf b = copy_of(&one);
    put_le32(b.p + SPEC_OFF_HASHES, 65);
    filter_seed("bad-hashes-65", b, 1);
  }
  {
    buf b = copy_of(&one);
    put_le32(b.p + SPEC_OFF_HASHES, 0);
    filter_seed("bad-hashes-0", b, 1);
  }
  {
    buf b = copy_of(&one);
    put_le64(b.p + SPEC_OFF_CAPACITY, 0);
    filter_seed("bad-capacity-0", b, 1);
  }
  {
    buf b = copy_of(&one);
    put_le_double(b.p + SPEC_OFF_FPR, NAN);
    filter_seed("bad-fpr-nan", b, 1);
  }
  {
    /* A kind-2 header sized as filter_parse sizes a cuckoo filter: 4 slots
    ** of 8 bits, 2 buckets, 8 bytes of buckets. */
    buf b = copy_of(&one);
    b.p[SPEC_OFF_KIND] = 2;
    memset(b.p + 12, 0, 12);
    b.p[12] = 8;
    b.p[13] = 4;
    put_le64(b.p + 16, 2);
    put_le64(b.p + SPEC_OFF_INSERTED, 0);
    b.n = SPEC_HEADER + 8;
    memset(b.p + SPEC_HEADER, 0, 8);
    filter_seed("kind2-cuckoo-shaped", b, 1);
  }
  {
    buf b = copy_of(&one);
    b.n = 0;
    filter_seed("bad-empty-blob", b, 1);
  }
  /* Layout 0 (version 1.1.0's filters, the shapes its cuckoo_build gave);
  ** then layout 1, what cuckoo_build makes now. */
  filter_seed("cuckoo-small",
              cuckoo0_of(8, 9, 10, 0.01, SERIES(5) "SELECT x FROM s"), 1);
  filter_seed("cuckoo-from-data",
              cuckoo0_of(8, 10, 20, 0.01, SERIES(20) "SELECT x FROM s"), 1);
  filter_seed("cuckoo-p-small",
              cuckoo0_of(32, 22, 50, 1e-6, SERIES(50) "SELECT x FROM s"), 1);
  filter_seed("cuckoo-full",
              cuckoo0_of(128, 4, 300, 0.5, SERIES(300) "SELECT x FROM s"), 1);
  filter_seed("cuckoo1-small",
              blob_of(SERIES(5) "SELECT cuckoo_build(x, 10, 0.01) FROM s"), 1);
  filter_seed("cuckoo1-from-data",
              blob_of(SERIES(20) "SELECT cuckoo_build(x, NULL) FROM s"), 1);
  filter_seed("cuckoo1-p-small",
              blob_of(SERIES(50) "SELECT cuckoo_build(x, 50, 1e-6) FROM s"), 1);
  filter_seed("cuckoo1-full",
              blob_of(SERIES(300) "SELECT cuckoo_build(x, 300, 0.5) FROM s"), 1);
  {
    /* Layout 1 refused: layout 2, an odd bucket count, byte 15 set. */
    buf good = blob_of(SERIES(5) "SELECT cuckoo_build(x, 10, 0.01) FROM s");
    buf b = copy_of(&good);
    b.p[14] = 2;
    filter_seed("bad-cuckoo-layout-2", b, 1);
    b = copy_of(&good);
    put_le64(b.p + 16, le64(b.p + 16) + 1);
    filter_seed("bad-cuckoo-layout1-odd", b, 1);
    b = copy_of(&good);
    b.p[15] = 1;
    filter_seed("bad-cuckoo-byte-15", b, 1);
    b = copy_of(&good);
    b.p[14] = 0; /* 6 buckets: not a power of two for layout 0 */
    filter_seed("bad-cuckoo-layout0-six", b, 1);
    free(good.p);
  }
  /* The two ways cuckoo_add refuses a valid filter, for the first value
  ** v_mix appends (INTEGER 3): a single bucket with its 4 slots taken
  ** ("the filter is full"), and 3 already there 8 times ("does not fit");
  ** and layout 1's least filter, two buckets, full. */
  filter_seed("cuckoo-one-bucket-full",
              cuckoo0_of(1, 4, 1, 0.5,
                         "WITH RECURSIVE s(x) AS (SELECT 100 UNION ALL SELECT "
                         "x + 1 FROM s WHERE x < 103) SELECT x FROM s"), 1);
  filter_seed("cuckoo1-two-buckets-full",
              blob_of("WITH RECURSIVE s(x) AS (SELECT 100 UNION ALL SELECT "
                      "x + 1 FROM s WHERE x < 106) "
                      "SELECT cuckoo_build(x, 1, 0.5) FROM s"), 1);
  filter_seed("cuckoo-eight-copies",
              blob_of("WITH RECURSIVE s(i, f) AS (SELECT 0, cuckoo_build(7, "
                      "100, 0.01) UNION ALL SELECT i + 1, cuckoo_add(f, 3) "
                      "FROM s WHERE i < 8) SELECT f FROM s WHERE i = 8"), 1);

  /* Layered filters (kind 3): Bloom layers, cuckoo layers, a newest
  ** cuckoo layer that is full, and a directory one byte off. */
  buf lb[2] = {
      blob_of(SERIES(5) "SELECT bloom_build(x, 10, 0.01) FROM s"),
      blob_of(SERIES(30) "SELECT bloom_build(x + 1000, 40, 0.005) FROM s")};
  buf lb_other[2] = {
      blob_of(SERIES(5) "SELECT bloom_build(x + 7, 10, 0.01) FROM s"),
      blob_of(SERIES(30) "SELECT bloom_build(x + 3000, 40, 0.005) FROM s")};
  buf lc[2] = {
      blob_of(SERIES(5) "SELECT cuckoo_build(x, 10, 0.01) FROM s"),
      blob_of(SERIES(30) "SELECT cuckoo_build(x + 1000, 40, 0.005) FROM s")};
  buf layered_bloom = layered_of(lb, 2);
  buf layered_bloom_other = layered_of(lb_other, 2);
  filter_seed("layered-bloom", copy_of(&layered_bloom), 1);
  filter_seed("layered-cuckoo", layered_of(lc, 2), 1);
  {
    buf full[2] = {lc[0], blob_of("WITH RECURSIVE s(x) AS (SELECT 100 UNION "
                                  "ALL SELECT x + 1 FROM s WHERE x < 103) "
                                  "SELECT cuckoo_build(x, 1, 0.5) FROM s")};
    filter_seed("layered-cuckoo-newest-full", layered_of(full, 2), 1);
    free(full[1].p);
  }
  {
    buf b = copy_of(&layered_bloom);
    put_le64(b.p + SPEC_HEADER, le64(b.p + SPEC_HEADER) + 1);
    filter_seed("layered-bad-directory", b, 1);
  }
  {
    /* quotient filters: one block, several, 1024-byte blocks; a damaged
    ** block (count one more) in a one-block and in a many-block filter; a
    ** full block; a bad block size */
    buf q1 = blob_of(SERIES(40) "SELECT quotient_build(x, 100, 0.01) FROM s");
    filter_seed("quotient-one-block", copy_of(&q1), 1);
    buf qn = blob_of(SERIES(2000) "SELECT quotient_build(x, 2000, 0.01) "
                                  "FROM s");
    filter_seed("quotient-blocks", copy_of(&qn), 1);
    filter_seed("quotient-tiny-rate",
                blob_of(SERIES(200) "SELECT quotient_build(x, 300, 1e-9) "
                                    "FROM s"), 1);
    buf b = copy_of(&q1);
    b.p[SPEC_HEADER] = (unsigned char)(b.p[SPEC_HEADER] + 1);
    filter_seed("quotient-bad-count", b, 1);
    b = copy_of(&qn);
    b.p[SPEC_HEADER + 3 * 256 + 9] ^= 0x40; /* a unary bit of block 3 */
    filter_seed("quotient-bad-unary", b, 1);
    b = copy_of(&q1);
    memset(b.p + SPEC_HEADER, 0, 256);
    b.p[SPEC_HEADER] = 7; /* full: 7 entries, no bucket */
    filter_seed("quotient-full-block", b, 1);
    b = copy_of(&q1);
    b.p[12] = 0x60; /* 96 bytes */
    filter_seed("quotient-bad-block-bytes", b, 1);
    free(q1.p);
    free(qn.p);
  }
  {
    /* layout 1: a quotient_store's exports (FORMAT.md, "Kind 4, layout 1"),
    ** on 512-byte pages: one leaf of one value, a store grown to many
    ** leaves, one sized at CREATE; then damaged: a node that leaves a gap,
    ** a record's bit, a last end past the area, layout 2 */
    if (sqlite3_exec(db, "ATTACH ':memory:' AS qa; PRAGMA qa.page_size = 512;"
                         "CREATE VIRTUAL TABLE qa.q1 USING quotient_store("
                         "fpr = 0.01); INSERT INTO qa.q1(value) VALUES (42);"
                         "CREATE VIRTUAL TABLE qa.qg USING quotient_store("
                         "fpr = 0.01); CREATE VIRTUAL TABLE qa.qz USING "
                         "quotient_store(capacity = 200, fpr = 0.001);",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, SERIES(300) "INSERT INTO qa.qg(value) SELECT x FROM s",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, SERIES(150) "INSERT INTO qa.qz(value) SELECT 'v' || x "
                         "FROM s", NULL, NULL, NULL) != SQLITE_OK)
      die("quotient_store");
    buf l1 = blob_of("SELECT filter FROM qa.q1");
    buf lg = blob_of("SELECT filter FROM qa.qg");
    filter_seed("quotient-leaves-one", copy_of(&l1), 1);
    filter_seed("quotient-leaves-grown", copy_of(&lg), 1);
    filter_seed("quotient-leaves-sized", blob_of("SELECT filter FROM qa.qz"), 1);
    buf b = copy_of(&lg);
    put_le64(b.p + SPEC_HEADER + 16, le64(b.p + SPEC_HEADER + 16) + 2);
    filter_seed("quotient-leaves-bad-node", b, 1);
    b = copy_of(&lg);
    b.p[b.n - 2] ^= 0x10;
    filter_seed("quotient-leaves-bad-record", b, 1);
    b = copy_of(&lg);
    uint64_t L = le64(b.p + 16);
    put_le64(b.p + SPEC_HEADER + 16 * (L - 1) + 8,
             le64(b.p + SPEC_HEADER + 16 * (L - 1) + 8) + 1);
    filter_seed("quotient-leaves-bad-end", b, 1);
    b = copy_of(&l1);
    b.p[14] = 2;
    filter_seed("quotient-leaves-layout-2", b, 1);
    free(l1.p);
    free(lg.p);
  }

  /* --- algebra --- */
  algebra_seed("layered-same-shape", &layered_bloom, &layered_bloom_other);
  algebra_seed("layered-and-plain", &layered_bloom, &one);
  algebra_seed("same-shape", &one, &one_b);
  algebra_seed("identical", &one, &one);
  algebra_seed("two-blocks", &two, &two);
  algebra_seed("other-bits", &one, &two);
  algebra_seed("other-hashes", &one, &k64);
  {
    buf b = copy_of(&one_b);
    put_le32(b.p + SPEC_OFF_SEED, 1);
    algebra_seed("other-seed", &one, &b);
    put_le32(b.p + SPEC_OFF_SEED, 0);
    put_le64(b.p + SPEC_OFF_INSERTED, UINT64_MAX);
    put_le64(b.p + SPEC_OFF_CAPACITY, 1000);
    put_le_double(b.p + SPEC_OFF_FPR, 0.5);
    algebra_seed("inserted-max-capacity-fpr", &one, &b);
    b.n -= 1;
    algebra_seed("second-truncated", &one, &b);
    free(b.p);
  }
  {
    buf e;
    e.p = NULL;
    e.n = 0;
    algebra_seed("second-empty", &one, &e);
  }

  /* --- store --- */
  store_seeds();

  /* --- build --- */
  build_seed("int-n-real-p", N_INT | P_REAL, 10, 0.01, 1);
  build_seed("many-values", N_INT | P_REAL, 20, 0.001, 2);
  build_seed("n1-tiny-p", N_INT | P_REAL, 1, 0.9999999999999999, 1);
  build_seed("n-real", N_REAL | P_REAL, real_bits(50.0), 0.01, 1);
  build_seed("n-real-2.5", N_REAL | P_REAL, real_bits(2.5), 0.01, 1);
  build_seed("n-null-from-data", N_NULL | P_REAL, 0, 0.001, 2);
  build_seed("one-arg", N_INT | ONE_ARG, 0, 0.0, 2);
  build_seed("p-omitted", N_INT | P_OMIT, 30, 0.0, 1);
  build_seed("p-null", N_INT | P_NULL, 30, 0.0, 1);
  build_seed("p-int", N_INT | P_INT, 30, 1.0, 1);
  build_seed("p-min", N_INT | P_REAL, 100, 1e-12, 1);
  build_seed("p-denormal", N_INT | P_REAL, 100, 5e-324, 1);
  build_seed("p-inf", N_INT | P_REAL, 100, INFINITY, 1);
  build_seed("p-nan", N_INT | P_REAL, 100, NAN, 1);
  build_seed("n-zero", N_INT | P_REAL, 0, 0.01, 1);
  build_seed("n-int64-min", N_INT | P_REAL, (uint64_t)INT64_MIN, 0.01, 1);
  build_seed("n-text", N_TEXT | P_REAL, 10, 0.01, 1);
  build_seed("n-too-big", N_INT | P_REAL, 10000000, 0.01, 1);
  build_seed("no-values", N_INT | P_REAL, 10, 0.01, 0);
  build_seed("n-1e5", N_INT | P_REAL, 100000, 0.01, 1);

  free(one.p);
  free(one_b.p);
  free(two.p);
  free(many.p);
  free(k64.p);
  free(tiny.p);
  free(empty.p);
  free(from_data.p);
  free(worked.p);
  for (int i = 0; i < 2; i++) {
    free(lb[i].p);
    free(lb_other[i].p);
    free(lc[i].p);
  }
  free(layered_bloom.p);
  free(layered_bloom_other.p);
  sqlite3_close(db);
  return 0;
}
