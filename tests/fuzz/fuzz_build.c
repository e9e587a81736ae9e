/*
** Fuzz target "build": build parameters plus a short list of values through
** bloom_build, then bloom_test of every value (no false negative), checked
** against bloom_empty + bloom_add and bloom_plan; cuckoo_build likewise.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Input: [mode][n: 8 bytes][p: 8 bytes][values]
**   mode & 3         n as INTEGER, REAL (the 8 bytes' bits), NULL, or TEXT
**                    (the INTEGER in decimal);
**   (mode >> 2) & 3  p as REAL, INTEGER, NULL, or omitted (two-argument
**                    form);
**   (mode >> 4) & 1  the one-argument form bloom_build(x) instead;
**   values           as fz_decode_values() describes (up to 16).
** A REAL NaN is bound with sqlite3_bind_double, which stores NULL.
**
** Invariants (abort on failure):
**  - bloom_build gives NULL over no rows, else a valid filter or an error
**    naming it; a filter holds every non-NULL value (bloom_test is 1, and a
**    REAL with an integral value tests as the INTEGER), records the number of
**    non-NULL values in inserted, and n, p (or the distinct count and 0.01)
**    in capacity and target_fpr;
**  - with n given, bloom_empty(n, p) fails with the same message or
**    succeeds, and adding the values to it one by one gives the same bytes as
**    bloom_build; bloom_plan(n, p) reports that size, bits and hashes;
**  - cuckoo_build: a filter it returns is valid by
**    FORMAT.md and holds every value.
*/
#include "fuzz_common.h"

static sqlite3_stmt *s_clear, *s_insert, *s_build[3], *s_empty[2], *s_plan[2],
    *s_add, *s_test, *s_cbuild, *s_ctest;

static void init(void) {
  if (fz_db) return;
  fz_open();
  fz_exec("CREATE TABLE v(x)");
  s_clear = fz_prepare("DELETE FROM v");
  s_insert = fz_prepare("INSERT INTO v VALUES(?1)");
  s_build[0] = fz_prepare("SELECT bloom_build(x) FROM v");
  s_build[1] = fz_prepare("SELECT bloom_build(x, ?1) FROM v");
  s_build[2] = fz_prepare("SELECT bloom_build(x, ?1, ?2) FROM v");
  s_empty[0] = fz_prepare("SELECT bloom_empty(?1)");
  s_empty[1] = fz_prepare("SELECT bloom_empty(?1, ?2)");
  s_plan[0] = fz_prepare("SELECT bytes, bits, hashes FROM bloom_plan(?1)");
  s_plan[1] = fz_prepare("SELECT bytes, bits, hashes FROM bloom_plan(?1, ?2)");
  s_add = fz_prepare("SELECT bloom_add(?1, ?2)");
  s_test = fz_prepare("SELECT bloom_test(?1, ?2)");
  s_cbuild = fz_prepare("SELECT cuckoo_build(x, ?1, ?2) FROM v");
  s_ctest = fz_prepare("SELECT cuckoo_test(?1, ?2)");
}

/* The value as SQLite hands it to a function: NaN is NULL. */
static int is_null(const fz_value *p) {
  return p->type == SQLITE_NULL || (p->type == SQLITE_FLOAT && isnan(p->d));
}

/* bloom_test(f, v) must be 1. */
static void must_hold(sqlite3_stmt *test, const char *fname,
                      const fz_result *f, const fz_value *v, const char *what) {
  fz_result r;
  fz_bind_blob(test, 1, f->blob, f->len);
  fz_bind_value(test, 2, v);
  fz_step(test, fname, &r, 0);
  if (r.rc != SQLITE_ROW || r.type != SQLITE_INTEGER || r.i != 1)
    fz_die("false negative in %s: %s gives rc %d, %lld (%s)", what, fname,
           r.rc, r.i, r.msg);
}

static void holds_all(sqlite3_stmt *test, const char *fname, const fz_result *f,
                      const fz_value *vals, size_t nv, const char *what) {
  for (size_t i = 0; i < nv; i++) {
    if (vals[i].type == SQLITE_NULL) continue;
    must_hold(test, fname, f, &vals[i], what);
    /* 42 and 42.0 are the same item. */
    fz_value twin = vals[i];
    if (vals[i].type == SQLITE_INTEGER && vals[i].i > -(1LL << 53) &&
        vals[i].i < (1LL << 53)) {
      twin.type = SQLITE_FLOAT;
      twin.d = (double)vals[i].i;
      must_hold(test, fname, f, &twin, what);
    } else if (vals[i].type == SQLITE_FLOAT && vals[i].d >= -9007199254740992.0 &&
               vals[i].d <= 9007199254740992.0 && floor(vals[i].d) == vals[i].d) {
      twin.type = SQLITE_INTEGER;
      twin.i = (sqlite3_int64)vals[i].d;
      must_hold(test, fname, f, &twin, what);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  init();
  if (size < 1) return 0;
  unsigned mode = data[0];
  uint64_t nraw = fz_le(data + 1, size - 1, 8);
  uint64_t praw = size > 9 ? fz_le(data + 9, size - 9, 8) : 0;
  size_t at = size < 17 ? size : 17;
  fz_value vals[FZ_MAX_VALUES];
  size_t nv = fz_decode_values(data + at, size - at, vals, FZ_MAX_VALUES);

  fz_value n, p;
  char ntext[32];
  memset(&n, 0, sizeof n);
  memset(&p, 0, sizeof p);
  switch (mode & 3) {
    case 0: n.type = SQLITE_INTEGER; n.i = (sqlite3_int64)nraw; break;
    case 1: n.type = SQLITE_FLOAT; memcpy(&n.d, &nraw, sizeof n.d); break;
    case 2: n.type = SQLITE_NULL; break;
    default:
      n.type = SQLITE_TEXT;
      n.n = snprintf(ntext, sizeof ntext, "%lld", (long long)nraw);
      n.p = (const unsigned char *)ntext;
      break;
  }
  const int p_form = (mode >> 2) & 3; /* 3: omitted */
  switch (p_form) {
    case 0: p.type = SQLITE_FLOAT; memcpy(&p.d, &praw, sizeof p.d); break;
    case 1: p.type = SQLITE_INTEGER; p.i = (sqlite3_int64)praw; break;
    default: p.type = SQLITE_NULL; break;
  }
  const int one_arg = (mode >> 4) & 1;
  const int args = one_arg ? 1 : p_form == 3 ? 2 : 3;

  sqlite3_step(s_clear);
  sqlite3_reset(s_clear);
  size_t non_null = 0;
  for (size_t i = 0; i < nv; i++) {
    fz_bind_value(s_insert, 1, &vals[i]);
    if (sqlite3_step(s_insert) != SQLITE_DONE) fz_die("insert: %s", sqlite3_errmsg(fz_db));
    fz_done(s_insert);
    non_null += vals[i].type != SQLITE_NULL;
  }

  sqlite3_stmt *b = s_build[args - 1];
  if (args >= 2) fz_bind_value(b, 1, &n);
  if (args == 3) fz_bind_value(b, 2, &p);
  fz_result built;
  fz_step(b, "bloom_build", &built, 0);
  if (built.rc == SQLITE_DONE) fz_die("bloom_build gave no row");
  if (nv == 0 && !(built.rc == SQLITE_ROW && built.type == SQLITE_NULL))
    fz_die("bloom_build over no rows is not NULL (%s)", built.msg);
  if (built.rc != SQLITE_ROW && built.rc != SQLITE_ERROR && built.rc != SQLITE_TOOBIG)
    fz_die("bloom_build: unexpected code %d (%s)", built.rc, built.msg);

  const int from_data = args == 1 || is_null(&n);
  if (built.rc == SQLITE_ROW && nv > 0) {
    fz_check_written("bloom_build", &built);
    holds_all(s_test, "bloom_test", &built, vals, nv, "bloom_build");
    if (fz_inserted(built.blob) != non_null) fz_die("bloom_build inserted");
    uint64_t cap = le64(built.blob + SPEC_OFF_CAPACITY);
    double fpr = le_double(built.blob + SPEC_OFF_FPR);
    if (from_data ? (cap < 1 || cap > (non_null ? non_null : 1))
                  : (n.type == SQLITE_INTEGER ? cap != (uint64_t)n.i
                                              : (double)cap != n.d))
      fz_die("bloom_build capacity %llu", (unsigned long long)cap);
    double want_p = args == 3 ? (p.type == SQLITE_INTEGER ? (double)p.i : p.d) : 0.01;
    if (fpr != want_p) fz_die("bloom_build target_fpr %g, want %g", fpr, want_p);
  }

  /* With n given: bloom_empty agrees, and empty + adds = build. */
  if (!from_data && nv > 0) {
    sqlite3_stmt *e = s_empty[args - 2];
    fz_bind_value(e, 1, &n);
    if (args == 3) fz_bind_value(e, 2, &p);
    fz_result r;
    fz_step(e, "bloom_empty", &r, 0);
    if (fz_ok(&r) != (built.rc == SQLITE_ROW))
      fz_die("bloom_empty and bloom_build disagree (%s | %s)", r.msg, built.msg);
    if (!fz_ok(&r) && (r.rc != built.rc ||
                       strcmp(r.msg + strlen("bloom_empty"),
                              built.msg + strlen("bloom_build")) != 0))
      fz_die("bloom_empty and bloom_build fail differently: %s | %s", r.msg,
             built.msg);
    if (fz_ok(&r)) {
      fz_check_written("bloom_empty", &r);
      for (size_t i = 0; i < nv; i++) {
        fz_result a;
        fz_bind_blob(s_add, 1, r.blob, r.len);
        fz_bind_value(s_add, 2, &vals[i]);
        fz_step(s_add, "bloom_add", &a, 0);
        fz_check_written("bloom_add", &a);
        fz_result_free(&r);
        r = a;
      }
      if (r.len != built.len || memcmp(r.blob, built.blob, r.len) != 0)
        fz_die("bloom_empty + bloom_add differs from bloom_build");

      sqlite3_stmt *pl = s_plan[args - 2];
      fz_bind_value(pl, 1, &n);
      if (args == 3) fz_bind_value(pl, 2, &p);
      fz_result q;
      fz_step(pl, "bloom_plan", &q, 1);
      if (q.rc != SQLITE_ROW) fz_die("bloom_plan fails where bloom_build works (%s)", q.msg);
      if ((size_t)q.i != built.len ||
          (uint64_t)sqlite3_column_int64(pl, 1) != le64(built.blob + SPEC_OFF_BITS) ||
          (uint64_t)sqlite3_column_int64(pl, 2) != le32(built.blob + SPEC_OFF_HASHES))
        fz_die("bloom_plan disagrees with bloom_build");
      fz_done(pl);
    }
    fz_result_free(&r);
  }
  fz_result_free(&built);

  if (args == 3) {
    fz_bind_value(s_cbuild, 1, &n);
    fz_bind_value(s_cbuild, 2, &p);
    fz_result c;
    fz_step(s_cbuild, "cuckoo_build", &c, 0);
    if (c.rc == SQLITE_ROW && c.type == SQLITE_BLOB) {
      if (!spec_cuckoo_valid(c.blob, c.len))
        fz_die("cuckoo_build wrote a blob FORMAT.md rejects");
      holds_all(s_ctest, "cuckoo_test", &c, vals, nv, "cuckoo_build");
    }
    fz_result_free(&c);
  }
  return 0;
}
