/*
** Fuzz target "filter": one blob plus probe values through every function
** that reads one filter: bloom_test, bloom_add, bloom_count, bloom_info,
** bloom_union/intersect of the blob with itself, cuckoo_test/add/delete/info,
** quotient_test/info, and bloom_ref: alone, and feeding its reference to each of those
** functions; and bloom_probe / cuckoo_probe / quotient_probe, given a
** query that reads the blob from a table.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Input: [blob][values][t]: the last byte t is the length of the value
** section before it (clamped to what is there); the blob is the rest, from
** offset 0, so a raw filter plus one 0 byte is a valid input.  Values are
** encoded as fz_decode_values() describes (the first 6 are used); none
** means 42 and 'abc'.
**
** Invariants (abort on failure):
**  - every reader agrees with FORMAT.md (as bloom_spec.h reads it): a Bloom
**    reader accepts the blob iff it is a valid kind 1 filter or a valid
**    kind 3 of Bloom layers, a cuckoo reader iff a valid kind 2 filter or
**    kind 3 of cuckoo layers (cuckoo_add may also refuse a valid one, but
**    only as full or as holding the value too many times), and bloom_ref iff
**    any of those;
**  - every error names its function;
**  - bloom_info reports bytes = the blob's length, the header's fields,
**    version 1 and hash 'murmur3_x64_128';
**  - bloom_add, union and intersect write valid blobs of the same size;
**    after bloom_add of a value, bloom_test of it is 1 (no false negative);
**    adding values one by one equals adding them in one call;
**  - union/intersect of a filter with itself keep its body;
**  - cuckoo_add and cuckoo_delete write valid blobs of the same size; a value
**    cuckoo_add accepted tests 1;
**  - bloom_probe / cuckoo_probe on the stored blob answer as bloom_test /
**    cuckoo_test on the bound blob (both work alike, or both fail);
**  - quotient_test, quotient_probe and quotient_info (tests/lib/
**    quotient_spec.h): a valid kind-4 header and valid blocks are read, an
**    invalid header refused; with a damaged block quotient_info refuses,
**    and a probe either answers or refuses naming a block that is damaged
**    (with one block, it must refuse); quotient_info's figures are the
**    header's, and full_blocks is the document's count;
**  - the same for layout 1 (leaves, a quotient_store's export): a valid
**    header and directory are read, quotient_info refuses unless every leaf
**    is whole and the leaves cover the hash space (then it reports blocks =
**    L, block_bytes 0, full_blocks 0), and a probe either answers or refuses
**    naming a leaf that is damaged, or a directory that does not cover; of
**    a one-leaf filter, refuses when the leaf cannot own the item or its
**    record does not fill its bytes (what FORMAT.md has a probe check;
**    a probe need not read the unary parts, keys' order or padding);
**    quotient_compact accepts it exactly when quotient_info does, and then
**    writes a valid blob of leaves, no larger, holding what it held; and
**    bound and probed 96 times in one statement (its leaves indexed as
**    they come), quotient_test answers as from a column, which is walked
**    on every row, or fails with the same message.
*/
#include "fuzz_common.h"
#include "lib/quotient_spec.h"

static sqlite3_stmt *s_info, *s_count, *s_test, *s_add1, *s_add3, *s_ref,
    *s_union, *s_intersect;
static sqlite3_stmt *s_ctest, *s_cadd, *s_cdel, *s_cinfo;
static sqlite3_stmt *s_store, *s_probe, *s_cprobe;
static sqlite3_stmt *s_qtest, *s_qinfo, *s_qprobe, *s_qcompact, *s_qheld,
    *s_qwalked;

/* The same call on the blob (?1) and on bloom_ref(?1)'s reference; ?2 is a
** probe value. */
typedef struct ref_pair {
  const char *fname, *direct, *via_ref;
  sqlite3_stmt *d, *r;
} ref_pair;

static ref_pair pairs[] = {
    {"bloom_test", "SELECT bloom_test(?1, ?2)",
     "SELECT bloom_test(r.filter, ?2) FROM bloom_ref(?1) AS r", 0, 0},
    {"bloom_add", "SELECT bloom_add(?1, ?2)",
     "SELECT bloom_add(r.filter, ?2) FROM bloom_ref(?1) AS r", 0, 0},
    {"bloom_count", "SELECT bloom_count(?1), ?2",
     "SELECT bloom_count(r.filter), ?2 FROM bloom_ref(?1) AS r", 0, 0},
    {"bloom_info", "SELECT bits_set, ?2 FROM bloom_info(?1)",
     "SELECT i.bits_set, ?2 FROM bloom_ref(?1) AS r, bloom_info(r.filter) AS i",
     0, 0},
    {"bloom_union", "SELECT bloom_union(?1, ?1), ?2",
     "SELECT bloom_union(r.filter, ?1), ?2 FROM bloom_ref(?1) AS r", 0, 0},
    {"bloom_merge", "SELECT bloom_merge(?1), ?2",
     "SELECT bloom_merge(r.filter), ?2 FROM bloom_ref(?1) AS r", 0, 0},
    {"cuckoo_test", "SELECT cuckoo_test(?1, ?2)",
     "SELECT cuckoo_test(r.filter, ?2) FROM bloom_ref(?1) AS r", 0, 0},
    {"cuckoo_add", "SELECT cuckoo_add(?1, ?2)",
     "SELECT cuckoo_add(r.filter, ?2) FROM bloom_ref(?1) AS r", 0, 0},
    {"cuckoo_delete", "SELECT cuckoo_delete(?1, ?2)",
     "SELECT cuckoo_delete(r.filter, ?2) FROM bloom_ref(?1) AS r", 0, 0},
    {"cuckoo_info", "SELECT items, ?2 FROM cuckoo_info(?1)",
     "SELECT i.items, ?2 FROM bloom_ref(?1) AS r, cuckoo_info(r.filter) AS i",
     0, 0},
    {"quotient_test", "SELECT quotient_test(?1, ?2)",
     "SELECT quotient_test(r.filter, ?2) FROM bloom_ref(?1) AS r", 0, 0},
    {"quotient_info", "SELECT estimated_fpr, ?2 FROM quotient_info(?1)",
     "SELECT i.estimated_fpr, ?2 FROM bloom_ref(?1) AS r,"
     " quotient_info(r.filter) AS i", 0, 0},
};
#define NPAIRS (sizeof pairs / sizeof pairs[0])

static void init(void) {
  if (fz_db) return;
  fz_open();
  s_info = fz_prepare(
      "SELECT bytes, kind, bits, hashes, capacity, inserted, bits_set, "
      "fill_ratio, estimated_items, estimated_fpr, target_fpr, version, hash "
      "FROM bloom_info(?1)");
  s_count = fz_prepare("SELECT bloom_count(?1)");
  s_test = fz_prepare("SELECT bloom_test(?1, ?2)");
  s_add1 = fz_prepare("SELECT bloom_add(?1, ?2)");
  s_add3 = fz_prepare("SELECT bloom_add(?1, ?2, ?3, ?4)");
  s_ref = fz_prepare("SELECT typeof(filter) FROM bloom_ref(?1)");
  s_union = fz_prepare("SELECT bloom_union(?1, ?1)");
  s_intersect = fz_prepare("SELECT bloom_intersect(?1, ?1)");
  s_ctest = fz_prepare("SELECT cuckoo_test(?1, ?2)");
  s_cadd = fz_prepare("SELECT cuckoo_add(?1, ?2)");
  s_cdel = fz_prepare("SELECT cuckoo_delete(?1, ?2)");
  s_cinfo = fz_prepare("SELECT bytes FROM cuckoo_info(?1)");
  fz_exec("CREATE TABLE stored(f BLOB)");
  s_store = fz_prepare("REPLACE INTO stored(rowid, f) VALUES (1, ?1)");
  s_probe = fz_prepare("SELECT bloom_probe('SELECT f FROM stored', ?1)");
  s_cprobe = fz_prepare("SELECT cuckoo_probe('SELECT f FROM stored', ?1)");
  s_qtest = fz_prepare("SELECT quotient_test(?1, ?2)");
  s_qinfo = fz_prepare("SELECT bytes, blocks, block_bytes, items, full_blocks,"
                       " estimated_fpr FROM quotient_info(?1)");
  s_qprobe = fz_prepare("SELECT quotient_probe('SELECT f FROM stored', ?1)");
  s_qcompact = fz_prepare("SELECT quotient_compact(?1)");
  /* 96 probes of one filter in one statement, bound (its leaves indexed
  ** as they come) and from a column (walked on every row); the weights
  ** make a sum that tells the answers apart */
#define QREPEAT                                                            \
  "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE " \
  "i < 32) "
  s_qheld = fz_prepare(QREPEAT "SELECT sum(i * (quotient_test(?1, ?2) + 2 *"
                       " quotient_test(?1, ?3) + 4 * quotient_test(?1, ?4)))"
                       " FROM k");
  s_qwalked = fz_prepare(QREPEAT "SELECT sum(i * (quotient_test(s.f, ?2) + 2"
                         " * quotient_test(s.f, ?3) + 4 * quotient_test(s.f,"
                         " ?4))) FROM k, stored AS s");
  for (size_t i = 0; i < NPAIRS; i++) {
    pairs[i].d = fz_prepare(pairs[i].direct);
    pairs[i].r = fz_prepare(pairs[i].via_ref);
  }
}

static int same_result(const fz_result *a, const fz_result *b) {
  if (fz_ok(a) != fz_ok(b)) return 0;
  if (!fz_ok(a)) return 1;
  if (a->rc != b->rc || a->type != b->type) return 0;
  switch (a->type) {
    case SQLITE_INTEGER: return a->i == b->i;
    case SQLITE_FLOAT: return a->d == b->d || (isnan(a->d) && isnan(b->d));
    case SQLITE_BLOB: return a->len == b->len && memcmp(a->blob, b->blob, a->len) == 0;
    default: return 1;
  }
}

/* One call of a statement: the blob bound as ?blob_at (0: not bound, the
** statement reads it from the table) and the probe value as ?value_at; an
** error must start with one of names. */
typedef struct call {
  sqlite3_stmt *st;
  const char *names;
  int blob_at, value_at;
} call;

static void run_call(const call *c, const unsigned char *blob, size_t len,
                     const fz_value *v, fz_result *r) {
  if (c->blob_at) fz_bind_blob(c->st, c->blob_at, blob, len);
  fz_bind_value(c->st, c->value_at, v);
  fz_step(c->st, c->names, r, 0);
}

/* a and b give the same answer (or both fail) on the blob and value. */
static void same_answer(const char *what, const call *a, const call *b,
                        const unsigned char *blob, size_t len,
                        const fz_value *v) {
  fz_result ra, rb;
  run_call(a, blob, len, v, &ra);
  run_call(b, blob, len, v, &rb);
  if (!same_result(&ra, &rb))
    fz_die("%s: rc %d type %d (%s) vs rc %d type %d (%s)", what, ra.rc,
           ra.type, ra.msg, rb.rc, rb.type, rb.msg);
  fz_result_free(&ra);
  fz_result_free(&rb);
}

/* Each function answers the same through bloom_ref as on the blob. */
static void check_pairs(const unsigned char *blob, size_t len,
                        const fz_value *v) {
  char names[64], what[96];
  for (size_t i = 0; i < NPAIRS; i++) {
    snprintf(names, sizeof names, "bloom_ref|%s", pairs[i].fname);
    snprintf(what, sizeof what, "%s answers differently through bloom_ref",
             pairs[i].fname);
    call d = {pairs[i].d, pairs[i].fname, 1, 2};
    call r = {pairs[i].r, names, 1, 2};
    same_answer(what, &d, &r, blob, len, v);
  }
}

/* bloom_probe and cuckoo_probe, reading the blob from a table, answer as
** the tests do on the bound blob. */
static void check_probes(const unsigned char *blob, size_t len,
                         const fz_value *v) {
  fz_result done;
  fz_bind_blob(s_store, 1, blob, len);
  fz_step(s_store, "stored", &done, 0);
  if (done.rc != SQLITE_DONE) fz_die("storing the blob failed: %s", done.msg);
  fz_result_free(&done);
  const call tests[3] = {{s_test, "bloom_test", 1, 2},
                         {s_ctest, "cuckoo_test", 1, 2},
                         {s_qtest, "quotient_test", 1, 2}};
  const call probes[3] = {{s_probe, "bloom_probe", 0, 1},
                          {s_cprobe, "cuckoo_probe", 0, 1},
                          {s_qprobe, "quotient_probe", 0, 1}};
  for (int i = 0; i < 3; i++) {
    char what[96];
    snprintf(what, sizeof what, "%s answers differently from %s",
             probes[i].names, tests[i].names);
    same_answer(what, &tests[i], &probes[i], blob, len, v);
  }
}

/* Result of `fname` on the blob must agree with the expected verdict. */
static void agree(const char *fname, const fz_result *r, int want) {
  if (fz_ok(r) != want)
    fz_die("%s %s a blob FORMAT.md %s (%s)", fname,
           fz_ok(r) ? "accepted" : "rejected", want ? "accepts" : "rejects",
           r->msg);
}

static int test_value(const unsigned char *blob, size_t len, const fz_value *v,
                      fz_result *r) {
  fz_bind_blob(s_test, 1, blob, len);
  fz_bind_value(s_test, 2, v);
  fz_step(s_test, "bloom_test", r, 0);
  return fz_ok(r) ? (r->type == SQLITE_NULL ? -1 : (int)r->i) : -2;
}

/* valid: a plain Bloom filter; layered: kind 3 of Bloom layers. */
static void check_info(const unsigned char *blob, size_t len, int valid,
                       int layered) {
  fz_result r;
  fz_bind_blob(s_info, 1, blob, len);
  fz_step(s_info, "bloom_info", &r, 1);
  agree("bloom_info", &r, valid || layered);
  if (r.rc == SQLITE_ROW && layered) {
    sqlite3_stmt *st = s_info;
    if ((size_t)r.i != len) fz_die("bloom_info bytes %lld, length %zu", r.i, len);
    if (sqlite3_column_type(st, 3) != SQLITE_NULL)
      fz_die("bloom_info hashes of a layered filter");
    if ((uint64_t)sqlite3_column_int64(st, 4) != le64(blob + SPEC_OFF_CAPACITY))
      fz_die("bloom_info capacity");
    if (sqlite3_column_double(st, 10) != le_double(blob + SPEC_OFF_FPR))
      fz_die("bloom_info target_fpr");
    double fill = sqlite3_column_double(st, 7);
    if (!(fill >= 0.0 && fill <= 1.0)) fz_die("bloom_info fill_ratio %g", fill);
  } else if (r.rc == SQLITE_ROW) {
    sqlite3_stmt *st = s_info;
    if ((size_t)r.i != len) fz_die("bloom_info bytes %lld, length %zu", r.i, len);
    if (strcmp((const char *)sqlite3_column_text(st, 1), "bloom") != 0)
      fz_die("bloom_info kind");
    uint64_t bits = le64(blob + SPEC_OFF_BITS);
    if ((uint64_t)sqlite3_column_int64(st, 2) != bits) fz_die("bloom_info bits");
    if ((uint64_t)sqlite3_column_int64(st, 3) != le32(blob + SPEC_OFF_HASHES))
      fz_die("bloom_info hashes");
    if ((uint64_t)sqlite3_column_int64(st, 4) != le64(blob + SPEC_OFF_CAPACITY))
      fz_die("bloom_info capacity");
    uint64_t ins = fz_inserted(blob);
    if (sqlite3_column_int64(st, 5) !=
        (ins > (uint64_t)INT64_MAX ? INT64_MAX : (sqlite3_int64)ins))
      fz_die("bloom_info inserted");
    sqlite3_int64 set = sqlite3_column_int64(st, 6);
    if (set < 0 || (uint64_t)set > bits) fz_die("bloom_info bits_set %lld", set);
    double fill = sqlite3_column_double(st, 7);
    if (!(fill >= 0.0 && fill <= 1.0)) fz_die("bloom_info fill_ratio %g", fill);
    /* estimated_items is NULL exactly when every bit is set. */
    if ((sqlite3_column_type(st, 8) == SQLITE_NULL) != ((uint64_t)set == bits))
      fz_die("bloom_info estimated_items NULL-ness");
    double efpr = sqlite3_column_double(st, 9);
    if (!(efpr >= 0.0 && efpr <= 1.0)) fz_die("bloom_info estimated_fpr %g", efpr);
    if (sqlite3_column_double(st, 10) != le_double(blob + SPEC_OFF_FPR))
      fz_die("bloom_info target_fpr");
    /* FORMAT.md: version 1; hash 1 is reported as 'murmur3_x64_128'. */
    if (sqlite3_column_type(st, 11) != SQLITE_INTEGER ||
        sqlite3_column_int64(st, 11) != 1)
      fz_die("bloom_info version");
    const unsigned char *hash = sqlite3_column_text(st, 12);
    if (hash == NULL || strcmp((const char *)hash, "murmur3_x64_128") != 0)
      fz_die("bloom_info hash %s", hash ? (const char *)hash : "NULL");
  }
  fz_done(s_info);
}

/* a and b (of len bytes, b valid by FORMAT.md) are equal but for the
** counters: the outer one and, for kind 3, each layer's. */
static int same_but_counters(const unsigned char *a, const unsigned char *b,
                             size_t len) {
  if (len < SPEC_HEADER) return 0;
  unsigned char *x = fz_copy(a, len), *y = fz_copy(b, len);
  memset(x + SPEC_OFF_INSERTED, 0, 8);
  memset(y + SPEC_OFF_INSERTED, 0, 8);
  if (b[SPEC_OFF_KIND] == 3) {
    size_t at = SPEC_HEADER + spec_layered_directory(b[13]);
    for (unsigned i = 0; i < b[13]; i++) {
      memset(x + at + SPEC_OFF_INSERTED, 0, 8);
      memset(y + at + SPEC_OFF_INSERTED, 0, 8);
      at += (size_t)le64(b + SPEC_HEADER + 8 * i);
    }
  }
  int same = memcmp(x, y, len) == 0;
  free(x);
  free(y);
  return same;
}

static void check_self_combine(sqlite3_stmt *st, const char *fname,
                               const unsigned char *blob, size_t len,
                               int valid, int intersect) {
  fz_result r;
  fz_bind_blob(st, 1, blob, len);
  fz_step(st, fname, &r, 0);
  agree(fname, &r, valid);
  if (valid) {
    fz_check_written(fname, &r);
    if (r.len != len || !same_but_counters(r.blob, blob, len))
      fz_die("%s of a filter with itself changed it", fname);
    uint64_t ins = fz_inserted(blob);
    uint64_t want = intersect ? ins : fz_sat_add(ins, ins);
    if (fz_inserted(r.blob) != want) fz_die("%s inserted counter", fname);
  }
  fz_result_free(&r);
}

/* The two ways cuckoo_add may refuse a valid filter (ext/sql_cuckoo_add.c):
** no room for the value, or its buckets hold it the most times they can. */
static int cuckoo_add_refusal(const char *msg) {
  static const char *const ok[] = {"cuckoo_add: the filter is full",
                                   "cuckoo_add: the value does not fit"};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    if (strncmp(msg, ok[i], strlen(ok[i])) == 0) return 1;
  return 0;
}

/* The cuckoo readers accept exactly what FORMAT.md accepts as kind 2;
** cuckoo_add may also refuse a valid filter, as full or for too many
** copies of the value, naming itself. */
static void check_cuckoo(const unsigned char *blob, size_t len,
                         const fz_value *vals, size_t nv, int cvalid) {
  fz_result r;
  fz_bind_blob(s_cinfo, 1, blob, len);
  fz_step(s_cinfo, "cuckoo_info", &r, 0);
  agree("cuckoo_info", &r, cvalid);
  if (r.rc == SQLITE_ROW && (size_t)r.i != len)
    fz_die("cuckoo_info bytes %lld, length %zu", r.i, len);
  for (size_t i = 0; i < nv && i < 3; i++) {
    if (vals[i].type == SQLITE_NULL) continue;
    fz_bind_blob(s_ctest, 1, blob, len);
    fz_bind_value(s_ctest, 2, &vals[i]);
    fz_step(s_ctest, "cuckoo_test", &r, 0);
    agree("cuckoo_test", &r, cvalid);

    fz_bind_blob(s_cdel, 1, blob, len);
    fz_bind_value(s_cdel, 2, &vals[i]);
    fz_step(s_cdel, "cuckoo_delete", &r, 0);
    agree("cuckoo_delete", &r, cvalid);
    if (cvalid && (r.type != SQLITE_BLOB || r.len != len ||
                   !(spec_cuckoo_valid(r.blob, r.len) ||
                     spec_layered_valid(r.blob, r.len, 2))))
      fz_die("cuckoo_delete wrote a blob FORMAT.md rejects");
    fz_result_free(&r);

    fz_bind_blob(s_cadd, 1, blob, len);
    fz_bind_value(s_cadd, 2, &vals[i]);
    fz_step(s_cadd, "cuckoo_add", &r, 0);
    if (fz_ok(&r) && !cvalid) fz_die("cuckoo_add accepted a blob FORMAT.md rejects");
    if (!fz_ok(&r) && cvalid && !cuckoo_add_refusal(r.msg))
      fz_die("cuckoo_add refused a valid filter other than as full or for "
             "too many copies: \"%s\"", r.msg);
    if (fz_ok(&r)) {
      if (r.type != SQLITE_BLOB || r.len != len ||
          !(spec_cuckoo_valid(r.blob, r.len) ||
            spec_layered_valid(r.blob, r.len, 2)))
        fz_die("cuckoo_add wrote a blob FORMAT.md rejects");
      fz_result t;
      fz_bind_blob(s_ctest, 1, r.blob, r.len);
      fz_bind_value(s_ctest, 2, &vals[i]);
      fz_step(s_ctest, "cuckoo_test", &t, 0);
      if (t.rc != SQLITE_ROW || t.i != 1)
        fz_die("cuckoo false negative after cuckoo_add (%s)", t.msg);
    }
    fz_result_free(&r);
  }
}

/* Kind 4, layout 1: lhead, the header and directory checks pass; then the
** leaves decide. */
static void check_qleaves(const unsigned char *blob, size_t len,
                          const fz_value *vals, size_t nv, int lhead) {
  const int qall = lhead && spec_qleaves_all_valid(blob, NULL);
  fz_result r;
  fz_bind_blob(s_qinfo, 1, blob, len);
  fz_step(s_qinfo, "quotient_info", &r, 1);
  agree("quotient_info", &r, qall);
  if (r.rc == SQLITE_ROW) {
    sqlite3_stmt *st = s_qinfo;
    if ((size_t)r.i != len ||
        (uint64_t)sqlite3_column_int64(st, 1) != le64(blob + 16) ||
        sqlite3_column_int(st, 2) != 0 || sqlite3_column_int64(st, 4) != 0)
      fz_die("quotient_info (leaves): bytes, blocks, block_bytes or "
             "full_blocks");
    double e = sqlite3_column_double(st, 5);
    if (!(e >= 0.0 && e <= 1.0)) fz_die("quotient_info estimated_fpr %g", e);
  }
  fz_done(s_qinfo);
  /* quotient_compact reads every leaf, as quotient_info does; what it
  ** gives is a sound blob of leaves, no larger, that answers maybe
  ** wherever the input does. */
  fz_result c;
  fz_bind_blob(s_qcompact, 1, blob, len);
  fz_step(s_qcompact, "quotient_compact", &c, 0);
  agree("quotient_compact", &c, qall);
  if (c.rc == SQLITE_ROW &&
      (c.type != SQLITE_BLOB || c.len > len || !spec_qleaves_valid(c.blob, c.len) ||
       !spec_qleaves_all_valid(c.blob, NULL)))
    fz_die("quotient_compact wrote a blob FORMAT.md rejects");
  for (size_t i = 0; c.rc == SQLITE_ROW && i < nv && i < 3; i++) {
    if (vals[i].type == SQLITE_NULL) continue;
    fz_result before, after;
    fz_bind_blob(s_qtest, 1, blob, len);
    fz_bind_value(s_qtest, 2, &vals[i]);
    fz_step(s_qtest, "quotient_test", &before, 0);
    fz_bind_blob(s_qtest, 1, c.blob, c.len);
    fz_bind_value(s_qtest, 2, &vals[i]);
    fz_step(s_qtest, "quotient_test", &after, 0);
    if (fz_ok(&before) && before.i == 1 && !(fz_ok(&after) && after.i == 1))
      fz_die("quotient_compact lost a value the input holds");
    fz_result_free(&before);
    fz_result_free(&after);
  }
  fz_result_free(&c);
  /* probed many times in one statement, it answers as walked, or fails
  ** alike */
  fz_result held, walked;
  fz_bind_blob(s_store, 1, blob, len);
  fz_step(s_store, "stored", &held, 0);
  if (held.rc != SQLITE_DONE) fz_die("storing the blob failed: %s", held.msg);
  fz_bind_blob(s_qheld, 1, blob, len);
  for (int i = 0; i < 3; i++) {
    fz_value v = {SQLITE_INTEGER, 42 + i, 0, NULL, 0};
    const fz_value *x = i < (int)nv && vals[i].type != SQLITE_NULL ? &vals[i] : &v;
    fz_bind_value(s_qheld, 2 + i, x);
    fz_bind_value(s_qwalked, 2 + i, x);
  }
  fz_step(s_qheld, "quotient_test", &held, 0);
  fz_step(s_qwalked, "quotient_test", &walked, 0);
  if (fz_ok(&held) != fz_ok(&walked) ||
      (fz_ok(&held) ? held.i != walked.i : strcmp(held.msg, walked.msg) != 0))
    fz_die("quotient_test of a bound filter probed 96 times answers unlike "
           "the walk: %s / %s", fz_ok(&held) ? "ok" : held.msg,
           fz_ok(&walked) ? "ok" : walked.msg);
  fz_result_free(&held);
  fz_result_free(&walked);
  uint64_t entries;
  for (size_t i = 0; i < nv && i < 3; i++) {
    if (vals[i].type == SQLITE_NULL) continue;
    fz_bind_blob(s_qtest, 1, blob, len);
    fz_bind_value(s_qtest, 2, &vals[i]);
    fz_step(s_qtest, "quotient_test", &r, 0);
    if (!lhead || qall) {
      agree("quotient_test", &r, qall);
    } else if (le64(blob + 16) == 1 && (spec_qnode_depth(le64(blob + 64)) > 62 ||
               !spec_qleaf_record_checked(blob + 80, len - 80,
                                          spec_qnode_depth(le64(blob + 64)),
                                          &entries, 1))) {
      /* one leaf, which every probe reads: one it cannot own an item in,
      ** or a record that does not fill its bytes, is refused */
      agree("quotient_test", &r, 0);
    } else if (!fz_ok(&r)) {
      /* the refusal names the leaf the value fell in: a damaged one, or
      ** one the directory's gaps or overlaps gave it */
      unsigned long long leaf;
      if (sscanf(r.msg, "quotient_test: leaf %llu is damaged", &leaf) != 1 ||
          leaf >= le64(blob + 16) ||
          (spec_qleaves_cover(blob) && spec_qleaf_valid(blob, leaf, &entries)))
        fz_die("quotient_test refused for a leaf that is not damaged: %s",
               r.msg);
    }
    if (fz_ok(&r) && r.type != SQLITE_INTEGER) fz_die("quotient_test type");
    fz_result_free(&r);
  }
}

/* Kind 4: qhead, the header is valid; then the blocks decide. */
static void check_quotient(const unsigned char *blob, size_t len,
                           const fz_value *vals, size_t nv, int qhead) {
  if (spec_qleaves_valid(blob, len)) {
    check_qleaves(blob, len, vals, nv, 1);
    return;
  }
  const int qall = qhead && spec_quotient_blocks_valid(blob);
  fz_result r;
  fz_bind_blob(s_qinfo, 1, blob, len);
  fz_step(s_qinfo, "quotient_info", &r, 1);
  agree("quotient_info", &r, qall);
  if (r.rc == SQLITE_ROW) {
    sqlite3_stmt *st = s_qinfo;
    unsigned bb = spec_quotient_block_bytes(blob);
    uint64_t full = 0;
    for (uint64_t b = 0; b < le64(blob + 16); b++) {
      uint32_t w = le32(blob + SPEC_HEADER + b * bb);
      full += (w & 8191) != 0 && (w >> 13 & 8191) == 0;
    }
    if ((size_t)r.i != len ||
        (uint64_t)sqlite3_column_int64(st, 1) != le64(blob + 16) ||
        (unsigned)sqlite3_column_int(st, 2) != bb ||
        (uint64_t)sqlite3_column_int64(st, 4) != full)
      fz_die("quotient_info: bytes, blocks, block_bytes or full_blocks");
    double e = sqlite3_column_double(st, 5);
    if (!(e >= 0.0 && e <= 1.0)) fz_die("quotient_info estimated_fpr %g", e);
  }
  fz_done(s_qinfo);
  for (size_t i = 0; i < nv && i < 3; i++) {
    if (vals[i].type == SQLITE_NULL) continue;
    fz_bind_blob(s_qtest, 1, blob, len);
    fz_bind_value(s_qtest, 2, &vals[i]);
    fz_step(s_qtest, "quotient_test", &r, 0);
    if (!qhead || qall || le64(blob + 16) == 1) {
      agree("quotient_test", &r, qall);
    } else if (!fz_ok(&r)) {
      /* the refusal names the block the value fell in: a damaged one */
      unsigned long long b;
      unsigned bb = spec_quotient_block_bytes(blob);
      if (sscanf(r.msg, "quotient_test: block %llu is damaged", &b) != 1 ||
          b >= le64(blob + 16) ||
          spec_quotient_block_valid(blob + SPEC_HEADER + b * bb, bb))
        fz_die("quotient_test refused for a block that is not damaged: %s",
               r.msg);
    }
    if (fz_ok(&r) && r.type != SQLITE_INTEGER) fz_die("quotient_test type");
    fz_result_free(&r);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  init();
  size_t tail = 0;
  if (size) {
    tail = data[size - 1];
    if (tail > size - 1) tail = size - 1;
  }
  size_t len = size ? size - 1 - tail : 0;
  /* A few values are enough, and keep each run quick. */
  fz_value vals[6];
  size_t nv = fz_decode_values(data + len, tail, vals, 6);
  if (nv == 0) {
    memset(vals, 0, 2 * sizeof vals[0]);
    vals[0].type = SQLITE_INTEGER;
    vals[0].i = 42;
    vals[1].type = SQLITE_TEXT;
    vals[1].p = (const unsigned char *)"abc";
    vals[1].n = 3;
    nv = 2;
  }
  unsigned char *blob = fz_copy(data, len);
  /* valid and cvalid: a Bloom / cuckoo reader accepts it, plain or
  ** layered (kind 3); layered: the Bloom one is of kind 3. */
  const int layered = spec_layered_valid(blob, len, 1);
  const int valid = spec_bloom_valid(blob, len) || layered;
  const int cvalid =
      spec_cuckoo_valid(blob, len) || spec_layered_valid(blob, len, 2);
  /* kind 4: blocks (layout 0) or leaves (layout 1) */
  const int qhead = spec_quotient_valid(blob, len) || spec_qleaves_valid(blob, len);
  fz_result r;

  check_info(blob, len, valid && !layered, layered);

  fz_bind_blob(s_count, 1, blob, len);
  fz_step(s_count, "bloom_count", &r, 0);
  agree("bloom_count", &r, valid);

  for (size_t i = 0; i < nv; i++) {
    int t = test_value(blob, len, &vals[i], &r);
    if (vals[i].type == SQLITE_NULL) {
      if (t != -1) fz_die("bloom_test of NULL is not NULL");
    } else {
      agree("bloom_test", &r, valid);
    }
  }

  /* bloom_add one value at a time, then all values must test 1. */
  unsigned char *cur = fz_copy(blob, len);
  size_t cur_len = len;
  unsigned char *after3 = NULL;
  size_t after3_len = 0;
  for (size_t i = 0; i < nv; i++) {
    fz_bind_blob(s_add1, 1, cur, cur_len);
    fz_bind_value(s_add1, 2, &vals[i]);
    fz_step(s_add1, "bloom_add", &r, 0);
    agree("bloom_add", &r, valid);
    if (!valid) break;
    fz_check_written("bloom_add", &r);
    if (r.len != len) fz_die("bloom_add changed the size");
    uint64_t want = fz_sat_add(fz_inserted(cur), vals[i].type != SQLITE_NULL);
    if (fz_inserted(r.blob) != want) fz_die("bloom_add inserted counter");
    free(cur);
    cur = r.blob;
    cur_len = r.len;
    if (i + 1 == (nv < 3 ? nv : 3)) after3 = fz_copy(cur, cur_len), after3_len = cur_len;
  }
  if (valid) {
    for (size_t i = 0; i < nv; i++) {
      if (vals[i].type == SQLITE_NULL) continue;
      if (test_value(cur, cur_len, &vals[i], &r) != 1)
        fz_die("false negative: value %zu tests %lld after bloom_add (%s)", i,
               r.i, r.msg);
    }
    /* bloom_add(f, v1, v2, v3) equals three single adds. */
    fz_bind_blob(s_add3, 1, blob, len);
    for (int i = 0; i < 3; i++) {
      if ((size_t)i < nv)
        fz_bind_value(s_add3, 2 + i, &vals[i]);
      else
        sqlite3_bind_null(s_add3, 2 + i);
    }
    fz_step(s_add3, "bloom_add", &r, 0);
    fz_check_written("bloom_add", &r);
    if (after3 == NULL || r.len != after3_len ||
        memcmp(r.blob, after3, r.len) != 0)
      fz_die("bloom_add of three values differs from three single adds");
    fz_result_free(&r);
  }
  free(after3);
  free(cur);

  fz_bind_blob(s_ref, 1, blob, len);
  fz_step(s_ref, "bloom_ref", &r, 0);
  agree("bloom_ref", &r, valid || cvalid || qhead);
  if (r.rc == SQLITE_DONE) fz_die("bloom_ref gave no row for a blob");
  fz_result_free(&r);
  /* The first non-NULL probe only: with a NULL probe some functions answer
  ** NULL without reading the filter, while bloom_ref always reads it. */
  const fz_value *probe = NULL;
  for (size_t i = 0; i < nv && probe == NULL; i++)
    if (vals[i].type != SQLITE_NULL) probe = &vals[i];
  if (probe) {
    check_pairs(blob, len, probe);
    check_probes(blob, len, probe);
  }

  check_self_combine(s_union, "bloom_union", blob, len, valid, 0);
  check_self_combine(s_intersect, "bloom_intersect", blob, len, valid, 1);

  check_cuckoo(blob, len, vals, nv, cvalid);
  check_quotient(blob, len, vals, nv, qhead);

  free(blob);
  return 0;
}
