/*
** Fuzz target "algebra": two blobs through bloom_union, bloom_intersect and
** bloom_merge.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Input: [a][b][la: 2 bytes, little-endian]: a is the first la bytes
** (clamped), b the rest before the last two bytes.
**
** Invariants (abort on failure):
**  - union, intersect and merge(a, b) succeed iff FORMAT.md accepts both
**    blobs and they have the same shape (version, kind, hash, seed, bits,
**    hashes); otherwise each fails with an error naming itself;
**  - the result is valid, has a's size and shape, its body is a | b (union,
**    merge) or a & b (intersect); capacity and target_fpr are the larger of
**    the two, inserted the saturating sum (union, merge) or the smaller;
**  - merge over (a, b) gives the same bytes as union(a, b), and merge over
**    a alone gives a;
**  - two layered filters (kind 3, Bloom layers) combine iff they have as
**    many layers and each pair has one shape; each result layer is then
**    checked as above against its pair; a layered and a plain one never
**    combine.
*/
#include "fuzz_common.h"

static sqlite3_stmt *s_union, *s_intersect, *s_merge2, *s_merge1;

static void init(void) {
  if (fz_db) return;
  fz_open();
  s_union = fz_prepare("SELECT bloom_union(?1, ?2)");
  s_intersect = fz_prepare("SELECT bloom_intersect(?1, ?2)");
  s_merge2 = fz_prepare(
      "SELECT bloom_merge(f) FROM (SELECT ?1 AS f UNION ALL SELECT ?2)");
  s_merge1 = fz_prepare("SELECT bloom_merge(?1)");
}

static void run2(sqlite3_stmt *st, const char *fname, const unsigned char *a,
                 size_t la, const unsigned char *b, size_t lb, fz_result *r) {
  fz_bind_blob(st, 1, a, la);
  fz_bind_blob(st, 2, b, lb);
  fz_step(st, fname, r, 0);
}

static void check_result(const char *fname, const fz_result *r, int want,
                         const unsigned char *a, const unsigned char *b,
                         size_t len, int intersect) {
  if (fz_ok(r) != want)
    fz_die("%s %s (%s)", fname, want ? "failed on combinable filters"
                                     : "combined filters it should reject",
           r->msg);
  if (!want) return;
  fz_check_written(fname, r);
  if (r->len != len) fz_die("%s: result size %zu, inputs %zu", fname, r->len, len);
  const unsigned char *o = r->blob;
  if (a[SPEC_OFF_KIND] == 3) {
    /* layer by layer, each as a plain pair */
    size_t at = SPEC_HEADER + spec_layered_directory(a[13]);
    if (memcmp(o, a, SPEC_OFF_CAPACITY) != 0 ||
        memcmp(o + SPEC_HEADER, a + SPEC_HEADER, at - SPEC_HEADER) != 0)
      fz_die("%s: layered shape changed", fname);
    double pa = le_double(a + SPEC_OFF_FPR);
    double pb = le_double(b + SPEC_OFF_FPR);
    if (le_double(o + SPEC_OFF_FPR) != (pa > pb ? pa : pb))
      fz_die("%s: layered target_fpr", fname);
    for (unsigned i = 0; i < a[13]; i++) {
      size_t n = (size_t)le64(a + SPEC_HEADER + 8 * i);
      fz_result one = *r;
      one.blob = r->blob + at;
      one.len = n;
      check_result(fname, &one, 1, a + at, b + at, n, intersect);
      at += n;
    }
    return;
  }
  if (memcmp(o, a, SPEC_OFF_CAPACITY) != 0) fz_die("%s: shape changed", fname);
  uint64_t ca = le64(a + SPEC_OFF_CAPACITY), cb = le64(b + SPEC_OFF_CAPACITY);
  if (le64(o + SPEC_OFF_CAPACITY) != (ca > cb ? ca : cb))
    fz_die("%s: capacity", fname);
  double pa = le_double(a + SPEC_OFF_FPR), pb = le_double(b + SPEC_OFF_FPR);
  if (le_double(o + SPEC_OFF_FPR) != (pa > pb ? pa : pb))
    fz_die("%s: target_fpr", fname);
  uint64_t ia = fz_inserted(a), ib = fz_inserted(b);
  uint64_t want_ins = intersect ? (ia < ib ? ia : ib) : fz_sat_add(ia, ib);
  if (fz_inserted(o) != want_ins) fz_die("%s: inserted", fname);
  for (size_t i = SPEC_HEADER; i < len; i++) {
    unsigned char w = intersect ? (unsigned char)(a[i] & b[i])
                                : (unsigned char)(a[i] | b[i]);
    if (o[i] != w) fz_die("%s: body byte %zu", fname, i);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  init();
  size_t rest = size >= 2 ? size - 2 : 0;
  size_t la = size >= 2 ? (size_t)(data[size - 2] | data[size - 1] << 8) : 0;
  if (la > rest) la = rest;
  size_t lb = rest - la;
  unsigned char *a = fz_copy(data, la);
  unsigned char *b = fz_copy(data + la, lb);
  const int la3 = spec_layered_valid(a, la, 1);
  const int lb3 = spec_layered_valid(b, lb, 1);
  const int va = spec_bloom_valid(a, la) || la3;
  const int vb = spec_bloom_valid(b, lb) || lb3;
  int want = va && vb && la3 == lb3 && (la3 || spec_same_shape(a, b));
  if (want && la3) {
    /* as many layers, each pair of one shape (the lengths follow); growth
    ** and tightening may differ */
    size_t at = SPEC_HEADER + spec_layered_directory(a[13]);
    want = a[13] == b[13] && la == lb &&
           memcmp(a + SPEC_HEADER, b + SPEC_HEADER, at - SPEC_HEADER) == 0;
    for (unsigned i = 0; want && i < a[13]; i++) {
      want = spec_same_shape(a + at, b + at);
      at += (size_t)le64(a + SPEC_HEADER + 8 * i);
    }
  }
  fz_result u, r;

  run2(s_union, "bloom_union", a, la, b, lb, &u);
  check_result("bloom_union", &u, want, a, b, la, 0);

  run2(s_intersect, "bloom_intersect", a, la, b, lb, &r);
  check_result("bloom_intersect", &r, want, a, b, la, 1);
  fz_result_free(&r);

  run2(s_merge2, "bloom_merge", a, la, b, lb, &r);
  if (fz_ok(&r) != want) fz_die("bloom_merge disagrees with bloom_union (%s)", r.msg);
  if (want && (r.len != u.len || memcmp(r.blob, u.blob, u.len) != 0))
    fz_die("bloom_merge(a, b) differs from bloom_union(a, b)");
  fz_result_free(&r);
  fz_result_free(&u);

  fz_bind_blob(s_merge1, 1, a, la);
  fz_step(s_merge1, "bloom_merge", &r, 0);
  if (fz_ok(&r) != va) fz_die("bloom_merge of one blob disagrees with FORMAT.md");
  if (va && (r.type != SQLITE_BLOB || r.len != la || memcmp(r.blob, a, la) != 0))
    fz_die("bloom_merge of one filter is not that filter");
  fz_result_free(&r);

  free(a);
  free(b);
  return 0;
}
