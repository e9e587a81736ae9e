/*
** A model-based test of every store shape: bloom_store and cuckoo_store,
** fixed, scalable, and windowed on the events clock and on the wall clock
** (the test VFS clock of lib/vfs_clock.h), at several G; quotient_store,
** growing from one leaf and sized with a capacity, on small pages so that
** its leaves split.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Why: the other store tests each check one feature in a scenario written
** for it; a bug that needs two features in a row (an export after the
** clock passed a generation with no write, a ROLLBACK TO after a write that
** expired generations, a second connection's commit under a cached chunk)
** shows only in sequences nobody wrote.  Here long random sequences of
** operations, drawn from fixed seeds (printed), run against a store in a
** database file, beside a model of what the documentation promises:
** inserts of every storage class (integral REALs such as 42.0 bound for
** the INTEGER 42, -0.0 for 0, texts with NUL bytes, empty texts and blobs,
** repeats, NULLs), single-row, multi-row VALUES and INSERT ... SELECT,
** INSERT OR IGNORE, `at` around, before, ahead of the store's time, cuckoo
** and quotient DELETE of one copy of a value it holds, probes with = and IN, time
** passing (later `at` on the events clock, the VFS clock moved on the wall
** clock, several spans with no write), the 'expire' command, the
** generation rows, BEGIN / COMMIT / ROLLBACK, SAVEPOINT / ROLLBACK TO /
** RELEASE, statements that fail part way, closing and reopening the
** database (inside a transaction too), and a second connection writing.
**
** The model is the multiset of values that must be present: added, not
** deleted, not rolled back, and in a windowed store inserted at a time t
** with the store's time T <= t + window (ext/FORMAT.md, "Windowed stores";
** a value past that may or may not answer, and is not asked about).  After
** every step: (a) every value that must be present answers 1 to = and to
** IN and tests 1 in the export (bloom_test / cuckoo_test / quotient_test);
** (b) every
** statement ends: at most 64 rows beyond the values it asks for, no row
** without columns, and sqlite3_finalize (or reset) agrees with the step;
** (c) a statement fails exactly when the model says it must (a wall-clock
** `at` in a later generation, a bad `at`, a ninth copy, a row that is
** refused), with the store's message, and a failed statement leaves the
** transaction state as it was; (d) a fixed bloom_store's export is
** bloom_build over the values added, byte for byte (its `inserted` the
** values counted, with INSERT OR IGNORE counting changes()), and a fixed
** cuckoo_store's `items` is adds - deletes; a quotient_store's export is a
** kind-4 layout-1 blob whose directory covers the hash space once (FORMAT.md,
** "Kind 4, layout 1") and whose `items` lies between adds - deletes and
** adds (a DELETE removes one entry, or none when the value's entries are of
** several widths).  The generation rows of a
** windowed store must be live generations with start, end and expires as
** documented and an estimated rate, hold every value stamped with an
** explicit `at`, and count at least the values that must be present.  At the end of each sequence,
** values never inserted are probed and the false-positive rate must stay
** within 2 * fpr + 3 sigma.
**
** Lengths: BLOOM_MODEL_STEPS=N runs N steps over all the shapes, in
** sequences of at most 1500 steps (make check-model); unset, each shape
** runs one short sequence.  BLOOM_MODEL_SEED=0x... BLOOM_MODEL_SHAPE=name
** BLOOM_MODEL_STEPS=n (or the same three as arguments) runs the one
** sequence a failure names.
*/
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/quotient_spec.h"
#include "lib/rng.h"
#include "lib/sqldb.h"
#include "lib/tap.h"
#include "lib/vfs_clock.h"

enum {
  POOL = 8192,      /* values inserted are pool_value(0 .. POOL - 1) */
  VMAX = 48,        /* the longest text or blob value */
  MAX_COPIES = 4,   /* adds of one value in a cuckoo store, so no ninth copy */
  SHORT_STEPS = 400, /* one sequence a shape in make test (a windowed
                       store's steps are cheaper: three times as many) */
  SEQ_MAX = 1500,   /* the longest sequence */
  BATCH = 40,       /* values of an IN probe in the checks */
  MAX_SP = 4,       /* nested savepoints */
  ABSENT_PROBES = 4000
};

/* ---- values ------------------------------------------------------------- */

/* A value as the store compares it: an INTEGER (also an integral REAL), a
** REAL that is not integral (or out of the INTEGER range), a TEXT, a BLOB;
** cls 0 is NULL. */
typedef struct val {
  int cls;
  sqlite3_int64 i;
  double d;
  int n;
  unsigned char b[VMAX];
} val;

static uint64_t mix(uint64_t x) { return splitmix64(&x); }

static void set_bytes(val *v, int cls, const void *p, size_t n) {
  v->cls = cls;
  v->n = (int)n;
  memcpy(v->b, p, n);
}

/* Text j of the pool: '' once, then "t<j>", "<j>" (looks like a number,
** is not one), UTF-8, an embedded NUL, a longer one. */
static void pool_text(val *v, int j) {
  char s[VMAX];
  int n;
  switch (j % 5) {
    case 0: n = j ? snprintf(s, sizeof s, "t%d", j) : 0; break;
    case 1: n = snprintf(s, sizeof s, "%d", j); break;
    case 2: n = snprintf(s, sizeof s, "\xc3\xbc%d\xe2\x82\xac", j); break;
    case 3: n = snprintf(s, sizeof s, "n_%d", j); s[1] = '\0'; break;
    default: n = snprintf(s, sizeof s, "long-%d-abcdefghijklmnopqrstuvwxyz", j);
  }
  set_bytes(v, SQLITE_TEXT, s, (size_t)n);
}

/* Value vid of the pool: distinct for distinct vids (by construction, or,
** for the random large integers and blobs, with a chance of a collision
** far below one in a billion). */
static val pool_value(int vid) {
  val v;
  memset(&v, 0, sizeof v);
  int k = vid / 8;
  uint64_t h = mix((uint64_t)vid * UINT64_C(0x2545f4914f6cdd1d) + UINT64_C(17));
  switch (vid % 8) {
    case 0: v.cls = SQLITE_INTEGER; v.i = k; break;
    case 1: v.cls = SQLITE_INTEGER; v.i = -(sqlite3_int64)k - 1; break;
    case 2: {
      v.cls = SQLITE_INTEGER;
      if (k == 0) { v.i = INT64_MIN; break; }
      if (k == 1) { v.i = INT64_MAX; break; }
      uint64_t m = (h >> 3) | (1ull << 61); /* magnitude 2^61 .. 2^62 */
      if (k % 2) m &= ~(uint64_t)0x3ff;      /* exactly a double */
      v.i = (h & 1) ? -(sqlite3_int64)m : (sqlite3_int64)m;
      break;
    }
    case 3: {
      v.cls = SQLITE_FLOAT;
      static const double special[] = {5e-324, INFINITY, -INFINITY,
                                       9223372036854775808.0, -1e300, 1e19,
                                       -9223372036854777856.0, 0.5};
      if (k < 8) v.d = special[k];
      else v.d = (h & 1) ? (double)k + 0.5 : -(double)k - 0.25;
      break;
    }
    case 4: case 5: pool_text(&v, 2 * k + vid % 8 - 4); break;
    default: {
      int j = 2 * k + vid % 8 - 6;
      if (j == 0) { set_bytes(&v, SQLITE_BLOB, "", 0); break; }
      if (j % 3 == 0) { /* a text's bytes, as a BLOB */
        pool_text(&v, j);
        v.cls = SQLITE_BLOB;
        break;
      }
      unsigned char bytes[24];
      size_t n = 1 + (size_t)(h % 24);
      for (size_t i = 0; i < n; i++) bytes[i] = (unsigned char)(mix(h + i) >> 7);
      if (bytes[0] == 0xab) bytes[0] = 0xac;
      set_bytes(&v, SQLITE_BLOB, bytes, n);
    }
  }
  return v;
}

/* Values never inserted, one family a storage class, none of which the pool
** makes: for the false-positive rate. */
static val absent_value(sqlite3_int64 k) {
  val v;
  memset(&v, 0, sizeof v);
  switch (k % 4) {
    case 0: v.cls = SQLITE_INTEGER; v.i = ((sqlite3_int64)1 << 50) + k; break;
    case 1: v.cls = SQLITE_FLOAT; v.d = 1125899906842624.0 + (double)k + 0.25; break;
    case 2: {
      char s[40];
      int n = snprintf(s, sizeof s, "absent-%lld", (long long)k);
      set_bytes(&v, SQLITE_TEXT, s, (size_t)n);
      break;
    }
    default: {
      unsigned char b[10] = {0xab, 0x5e};
      memcpy(b + 2, &k, 8);
      set_bytes(&v, SQLITE_BLOB, b, sizeof b);
    }
  }
  return v;
}

static int val_eq(const val *a, const val *b) {
  if (a->cls != b->cls) return 0;
  switch (a->cls) {
    case SQLITE_INTEGER: return a->i == b->i;
    case SQLITE_FLOAT: return a->d == b->d;
    case SQLITE_TEXT: case SQLITE_BLOB:
      return a->n == b->n && memcmp(a->b, b->b, (size_t)a->n) == 0;
    default: return 0;
  }
}

/* An INTEGER the REAL of the same value stands for (42.0 = 42). */
static int real_twin(sqlite3_int64 i) {
  double d = (double)i;
  return d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
         (sqlite3_int64)d == i;
}

/* How a value is bound: an INTEGER may go as its REAL (and 0 as -0.0). */
enum { AS_IS, AS_REAL, AS_NEGZERO };

static void bind_val(sqlite3_stmt *st, int col, const val *v, int how) {
  switch (v->cls) {
    case SQLITE_INTEGER:
      if (how == AS_NEGZERO && v->i == 0) sqlite3_bind_double(st, col, -0.0);
      else if (how != AS_IS && real_twin(v->i))
        sqlite3_bind_double(st, col, (double)v->i);
      else sqlite3_bind_int64(st, col, v->i);
      break;
    case SQLITE_FLOAT: sqlite3_bind_double(st, col, v->d); break;
    case SQLITE_TEXT:
      sqlite3_bind_text(st, col, (const char *)v->b, v->n, SQLITE_TRANSIENT);
      break;
    case SQLITE_BLOB:
      sqlite3_bind_blob(st, col, v->b, v->n, SQLITE_TRANSIENT);
      break;
    default: sqlite3_bind_null(st, col);
  }
}

/* A result column as the store compares it; 0 if it cannot be one of ours
** (too long). */
static int column_val(sqlite3_stmt *st, int col, val *v) {
  memset(v, 0, sizeof *v);
  switch (sqlite3_column_type(st, col)) {
    case SQLITE_INTEGER:
      v->cls = SQLITE_INTEGER;
      v->i = sqlite3_column_int64(st, col);
      return 1;
    case SQLITE_FLOAT: {
      double d = sqlite3_column_double(st, col);
      if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
          d == floor(d)) {
        v->cls = SQLITE_INTEGER;
        v->i = (sqlite3_int64)d;
      } else {
        v->cls = SQLITE_FLOAT;
        v->d = d;
      }
      return 1;
    }
    case SQLITE_TEXT: case SQLITE_BLOB: {
      int cls = sqlite3_column_type(st, col);
      const void *p = cls == SQLITE_TEXT ? (const void *)sqlite3_column_text(st, col)
                                         : sqlite3_column_blob(st, col);
      int n = sqlite3_column_bytes(st, col);
      if (n > VMAX) return 0;
      set_bytes(v, cls, n ? p : "", (size_t)n);
      return 1;
    }
    default: return 1; /* NULL */
  }
}

static void describe(const val *v, char *out, size_t size) {
  switch (v->cls) {
    case SQLITE_INTEGER: snprintf(out, size, "%lld", (long long)v->i); break;
    case SQLITE_FLOAT: snprintf(out, size, "%.17g", v->d); break;
    case SQLITE_TEXT: case SQLITE_BLOB: {
      size_t o = (size_t)snprintf(out, size, "%s x'", v->cls == SQLITE_TEXT ? "TEXT" : "BLOB");
      for (int i = 0; i < v->n && o + 3 < size; i++)
        o += (size_t)snprintf(out + o, size - o, "%02x", v->b[i]);
      if (o + 2 < size) snprintf(out + o, size - o, "'");
      break;
    }
    default: snprintf(out, size, "NULL");
  }
}

/* ---- shapes -------------------------------------------------------------- */

enum { FIXED, SCALABLE, WINDOW };

typedef struct shape {
  const char *name, *module;
  int cuckoo, sched; /* cuckoo: deletes, and OR IGNORE never skips (cuckoo_store,
                     ** quotient_store: see quotient()) */
  const char *args;
  sqlite3_int64 capacity; /* a fixed store's */
  double fpr;
  int wall, G;
  sqlite3_int64 W;
} shape;

static const shape shapes[] = {
    {"bloom-fixed", "bloom_store", 0, FIXED, "capacity = 2000, fpr = 0.01",
     2000, 0.01, 0, 0, 0},
    {"cuckoo-fixed", "cuckoo_store", 1, FIXED, "capacity = 2000, fpr = 0.01",
     2000, 0.01, 0, 0, 0},
    {"bloom-scalable", "bloom_store", 0, SCALABLE,
     "capacity = 40, growth = 2, fpr = 0.01", 0, 0.01, 0, 0, 0},
    {"cuckoo-scalable", "cuckoo_store", 1, SCALABLE,
     "capacity = 40, growth = 2, fpr = 0.01", 0, 0.01, 0, 0, 0},
    {"bloom-events-G8", "bloom_store", 0, WINDOW,
     "window = 3600, generations = 8, clock = 'events', fpr = 0.01", 0, 0.01,
     0, 8, 3600},
    {"cuckoo-events-G3", "cuckoo_store", 1, WINDOW,
     "window = 1000, generations = 3, clock = 'events', fpr = 0.01", 0, 0.01,
     0, 3, 1000},
    {"bloom-events-G1", "bloom_store", 0, WINDOW,
     "window = 100, generations = 1, clock = 'events', capacity = 60, "
     "fpr = 0.02", 0, 0.02, 0, 1, 100},
    {"bloom-wall-G2", "bloom_store", 0, WINDOW,
     "window = '10 minutes', generations = 2, fpr = 0.01", 0, 0.01, 1, 2, 600},
    {"cuckoo-wall-G4", "cuckoo_store", 1, WINDOW,
     "window = '1 hour', generations = 4, clock = 'wall', capacity = 200, "
     "fpr = 0.01", 0, 0.01, 1, 4, 3600},
    {"cuckoo-wall-G8", "cuckoo_store", 1, WINDOW,
     "window = 1001, generations = 8, fpr = 0.005", 0, 0.005, 1, 8, 1001},
    {"quotient-growing", "quotient_store", 1, FIXED, "fpr = 0.01", 0, 0.01, 0,
     0, 0},
    {"quotient-sized", "quotient_store", 1, FIXED,
     "capacity = 2000, fpr = 0.01", 2000, 0.01, 0, 0, 0},
    {"quotient-sized-small", "quotient_store", 1, FIXED,
     "capacity = 60, fpr = 0.002", 60, 0.002, 0, 0, 0},
    /* short keys: values share entries, and a DELETE must not take another
    ** value's (FORMAT.md: nothing when entries of several widths match) */
    {"quotient-loose", "quotient_store", 1, FIXED, "fpr = 0.3", 0, 0.3, 0, 0,
     0},
};
enum { NSHAPES = (int)(sizeof shapes / sizeof shapes[0]) };

/* ---- the model ----------------------------------------------------------- */

typedef struct entry {
  int vid;
  int has_at;       /* stamped by an explicit at (its generation is known) */
  sqlite3_int64 t;  /* the time it was stamped with, or a time before it */
} entry;

typedef struct model {
  entry *e;
  int n, cap;
  unsigned char ever[POOL]; /* adds of each value (cuckoo: no ninth copy) */
  sqlite3_int64 tlo, thi;   /* events clock: the store's time is in [tlo, thi] */
  sqlite3_int64 added;      /* fixed bloom: values counted in `inserted` */
  sqlite3_int64 copies;     /* fixed cuckoo: adds - deletes */
  unsigned char *expect;    /* fixed bloom: the union of bloom_build's */
  int expect_n;
} model;

static void model_free(model *m) {
  free(m->e);
  free(m->expect);
  m->e = NULL;
  m->expect = NULL;
  m->n = m->cap = m->expect_n = 0;
}

static void model_copy(model *dst, const model *src) {
  model_free(dst);
  *dst = *src;
  dst->cap = src->n + 1;
  dst->e = malloc((size_t)dst->cap * sizeof *dst->e);
  if (!dst->e) exit(2);
  memcpy(dst->e, src->e, (size_t)src->n * sizeof *src->e);
  dst->expect = NULL;
  if (src->expect) {
    dst->expect = malloc((size_t)src->expect_n);
    if (!dst->expect) exit(2);
    memcpy(dst->expect, src->expect, (size_t)src->expect_n);
  }
}

static void model_add(model *m, int vid, sqlite3_int64 t, int has_at) {
  if (m->n == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 256;
    m->e = realloc(m->e, (size_t)m->cap * sizeof *m->e);
    if (!m->e) exit(2);
  }
  m->e[m->n].vid = vid;
  m->e[m->n].t = t;
  m->e[m->n].has_at = has_at;
  m->n++;
}

/* ---- a sequence ---------------------------------------------------------- */

typedef struct seq {
  const shape *sh;
  uint64_t seed, rng;
  int steps, step;
  sqlite3 *db, *db2, *ref;
  char path[600];
  int page_size, wal;
  sqlite3_int64 span;
  model m;
  /* transactions: the model at BEGIN (or at the savepoint that began it),
  ** and at each savepoint */
  int in_txn;
  model txn;
  int nsp, sp_name[MAX_SP], sp_began;
  model sp[MAX_SP];
  int sp_counter;
  /* what was checked */
  long statements, eq_probes, in_probes, export_probes, expected_errors,
      builds, gen_checks, reopens, second_writes, rollbacks;
  sqlite3_int64 deletes, max_leaves; /* quotient: DELETEs run, most leaves */
  /* what failed */
  long fail_end, fail_fn, fail_err, fail_export, fail_gen;
  int broken;
  char msg[512]; /* the last statement's error message */
  const char *sql; /* the statement run (NULL: none) */
  char sqlbuf[400];
} seq;

static uint64_t R(seq *s) { return splitmix64(&s->rng); }
static int RN(seq *s, int n) { return (int)(R(s) % (uint64_t)n); }

static int trace;

static void fail(seq *s, long *counter, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(seq *s, long *counter, const char *fmt, ...) {
  (*counter)++;
  s->broken = 1;
  if (s->fail_end + s->fail_fn + s->fail_err + s->fail_export + s->fail_gen > 4)
    return;
  char buf[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  tap_diag("  %s seed 0x%016llx step %d: %s", s->sh->name,
           (unsigned long long)s->seed, s->step, buf);
  if (s->sql) tap_diag("    in: %s", s->sql);
}

static int windowed(const seq *s) { return s->sh->sched == WINDOW; }
static int quotient(const seq *s) {
  return strcmp(s->sh->module, "quotient_store") == 0;
}

/* The store's time is at most hi() and at least lo(). */
static sqlite3_int64 t_hi(const seq *s) {
  return s->sh->wall ? vfs_clock_seconds : s->m.thi;
}
static sqlite3_int64 t_lo(const seq *s) {
  return s->sh->wall ? vfs_clock_seconds : s->m.tlo;
}
static sqlite3_int64 gen_of(const seq *s, sqlite3_int64 t) {
  return t / s->span;
}

/* FORMAT.md: a value stamped t answers while the store's time T <= t + W. */
static int must(const seq *s, const entry *e) {
  return !windowed(s) || t_hi(s) <= e->t + s->sh->W;
}

static int vid_must(const seq *s, int vid) {
  for (int i = 0; i < s->m.n; i++)
    if (s->m.e[i].vid == vid && must(s, &s->m.e[i])) return 1;
  return 0;
}

/* ---- statements, each stepped to its end within a bound ------------------- */

typedef void (*row_fn)(seq *s, sqlite3_stmt *st, void *out);

static sqlite3_stmt *P(seq *s, sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  snprintf(s->sqlbuf, sizeof s->sqlbuf, "%s", sql);
  s->sql = s->sqlbuf;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    fail(s, &s->fail_err, "prepare failed: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return NULL;
  }
  return st;
}

/* Steps st to its end: at most `bound` rows, each with columns, each given
** to row(); then finalizes it (or resets it, when keep), which must answer
** what the step did.  Returns SQLITE_DONE, an error code, or -1 when the
** statement was cut short (a failure, reported). */
static int run(seq *s, sqlite3_stmt *st, int bound, row_fn row, void *out,
               int keep) {
  int rc, rows = 0, cut = 0;
  sqlite3 *db = sqlite3_db_handle(st);
  s->statements++;
  s->msg[0] = '\0';
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (sqlite3_data_count(st) == 0) {
      fail(s, &s->fail_end, "a row without columns (the statement would not end)");
      cut = 1;
      break;
    }
    if (++rows > bound) {
      fail(s, &s->fail_end, "more than %d rows: the statement does not end",
           bound);
      cut = 1;
      break;
    }
    if (row) row(s, st, out);
  }
  if (rc != SQLITE_DONE && !cut)
    snprintf(s->msg, sizeof s->msg, "%s", sqlite3_errmsg(db));
  int rc2 = keep ? sqlite3_reset(st) : sqlite3_finalize(st);
  if (cut) return -1;
  if (trace && s->sql && strncmp(s->sql, "SELECT", 6) != 0)
    tap_diag("step %d: %s -> %d %s (changes %d)", s->step, s->sql, rc, s->msg,
             sqlite3_changes(db));
  int want = rc == SQLITE_DONE ? SQLITE_OK : rc;
  if ((want & 0xff) != (rc2 & 0xff))
    fail(s, &s->fail_end, "step answered %d but %s %d", rc,
         keep ? "reset" : "finalize", rc2);
  return rc;
}

/* A statement of fixed SQL run to its end. */
static int X(seq *s, sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = P(s, db, sql);
  return st ? run(s, st, 64, NULL, NULL, 0) : -1;
}

/* (c): rc as the model expects: success, or (want_fail) an error whose
** message holds `want`. */
static void expect_rc(seq *s, int rc, int want_fail, const char *want) {
  if (rc == -1) return; /* reported */
  if (!want_fail && rc != SQLITE_DONE)
    fail(s, &s->fail_err, "unexpected error %d: %s", rc, s->msg);
  else if (want_fail && rc == SQLITE_DONE)
    fail(s, &s->fail_err, "no error, the model expected one (%s)", want);
  else if (want_fail && !strstr(s->msg, want))
    fail(s, &s->fail_err, "error \"%s\", the model expected \"%s\"", s->msg,
         want);
  else if (want_fail)
    s->expected_errors++;
}

static void one_int(seq *s, sqlite3_stmt *st, void *out) {
  (void)s;
  *(sqlite3_int64 *)out = sqlite3_column_int64(st, 0);
}

typedef struct blob_out {
  unsigned char *p;
  int n, rows, type;
} blob_out;

static void one_blob(seq *s, sqlite3_stmt *st, void *out) {
  (void)s;
  blob_out *o = out;
  o->rows++;
  o->type = sqlite3_column_type(st, 0);
  free(o->p);
  o->n = sqlite3_column_bytes(st, 0);
  o->p = malloc((size_t)o->n + 1);
  if (!o->p) exit(2);
  if (o->n) memcpy(o->p, sqlite3_column_blob(st, 0), (size_t)o->n);
}

static sqlite3_int64 u64_at(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return (sqlite3_int64)v;
}

/* ---- opening the database ------------------------------------------------- */

static sqlite3 *open_conn(seq *s) {
  sqlite3 *db = open_db_at(s->path);
  sqlite3_busy_timeout(db, 2000);
  must_exec(db, "PRAGMA synchronous = OFF");
  return db;
}

static void open_all(seq *s) {
  s->db = open_conn(s);
  s->db2 = open_conn(s);
}

static void close_all(seq *s) {
  if (sqlite3_close(s->db) != SQLITE_OK) fail(s, &s->fail_err, "close: busy");
  if (sqlite3_close(s->db2) != SQLITE_OK) fail(s, &s->fail_err, "close: busy");
  s->db = s->db2 = NULL;
}

/* ---- the fixed bloom_store's expected export ------------------------------- */

/* expect = bloom_union(expect, bloom_build over the values) in the
** reference connection: the bits of bloom_build over every value added,
** whatever the order (its `inserted` is checked against the model's count
** instead, as INSERT OR IGNORE counts only what it added). */
static void expect_add(seq *s, const int *vids, const int *how, int n) {
  if (s->sh->cuckoo || s->sh->sched != FIXED || n == 0) return;
  char sql[8192];
  size_t o = (size_t)snprintf(sql, sizeof sql, "SELECT bloom_union(?1, (SELECT "
                              "bloom_build(column1, %lld, %g) FROM (VALUES ",
                              (long long)s->sh->capacity, s->sh->fpr);
  for (int i = 0; i < n; i++)
    o += (size_t)snprintf(sql + o, sizeof sql - o, "%s(?%d)", i ? ", " : "", i + 2);
  snprintf(sql + o, sizeof sql - o, ")))");
  sqlite3_stmt *st = P(s, s->ref, sql);
  if (!st) return;
  sqlite3_bind_blob(st, 1, s->m.expect, s->m.expect_n, SQLITE_TRANSIENT);
  for (int i = 0; i < n; i++) {
    val v = pool_value(vids[i]);
    bind_val(st, i + 2, &v, how[i]);
  }
  blob_out b = {0};
  int rc = run(s, st, 2, one_blob, &b, 0);
  if (rc != SQLITE_DONE || b.rows != 1 || b.type != SQLITE_BLOB) {
    fail(s, &s->fail_err, "bloom_union/bloom_build: %s", s->msg);
    free(b.p);
    return;
  }
  free(s->m.expect);
  s->m.expect = b.p;
  s->m.expect_n = b.n;
}

/* bloom_build over every value of the model, from scratch. */
static void expect_from_scratch(seq *s, blob_out *b) {
  sqlite3 *r = s->ref;
  must_exec(r, "DELETE FROM vals; BEGIN");
  sqlite3_stmt *ins = must_prep(r, "INSERT INTO vals VALUES (?1)");
  for (int i = 0; i < s->m.n; i++) {
    val v = pool_value(s->m.e[i].vid);
    bind_val(ins, 1, &v, RN(s, 2) ? AS_IS : AS_REAL);
    sqlite3_step(ins);
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  must_exec(r, "COMMIT");
  char sql[200];
  snprintf(sql, sizeof sql, "SELECT coalesce((SELECT bloom_build(v, %lld, %g) "
           "FROM vals), bloom_empty(%lld, %g))", (long long)s->sh->capacity,
           s->sh->fpr, (long long)s->sh->capacity, s->sh->fpr);
  sqlite3_stmt *st = P(s, r, sql);
  if (st) run(s, st, 2, one_blob, b, 0);
}

/* ---- (a), (b), (d) after every step --------------------------------------- */

static int how_to_bind(seq *s, const val *v) {
  if (v->cls != SQLITE_INTEGER || RN(s, 3)) return AS_IS;
  return v->i == 0 && RN(s, 2) ? AS_NEGZERO : AS_REAL;
}

typedef struct in_rows {
  val asked[64];
  int n, found[64], rows, stray;
} in_rows;

static void in_row(seq *s, sqlite3_stmt *st, void *out) {
  (void)s;
  in_rows *r = out;
  val v;
  r->rows++;
  int hit = 0;
  if (column_val(st, 0, &v))
    for (int i = 0; i < r->n; i++)
      if (val_eq(&v, &r->asked[i])) r->found[i] = hit = 1;
  if (!hit) r->stray++;
}

/* SELECT value FROM t WHERE value IN (the n values): every value found
** marked; 0 if the statement failed. */
static int probe_in(seq *s, in_rows *r, const int *how) {
  char sql[1024];
  size_t o = (size_t)snprintf(sql, sizeof sql, "SELECT value FROM t WHERE value IN (");
  for (int i = 0; i < r->n; i++)
    o += (size_t)snprintf(sql + o, sizeof sql - o, "%s?%d", i ? ", " : "", i + 1);
  snprintf(sql + o, sizeof sql - o, ")");
  sqlite3_stmt *st = P(s, s->db, sql);
  if (!st) return 0;
  for (int i = 0; i < r->n; i++) {
    bind_val(st, i + 1, &r->asked[i], how[i]);
    r->found[i] = 0;
  }
  r->rows = r->stray = 0;
  int rc = run(s, st, 64 + r->n, in_row, r, 0);
  if (rc == -1) return 0;
  if (rc != SQLITE_DONE) {
    fail(s, &s->fail_err, "IN probe failed: %s", s->msg);
    return 0;
  }
  if (r->stray || r->rows > r->n)
    fail(s, &s->fail_err, "IN of %d values gave %d rows, %d not asked for",
         r->n, r->rows, r->stray);
  s->in_probes++;
  return 1;
}

/* 1 if value v answers to =; -1 when the probe failed (reported). */
static int probe_eq(seq *s, sqlite3_stmt *st, const val *v, int how) {
  sqlite3_int64 got = -1;
  bind_val(st, 1, v, how);
  int rc = run(s, st, 64, one_int, &got, 1);
  if (rc == -1) return -1;
  if (rc != SQLITE_DONE || got < 0) {
    fail(s, &s->fail_err, "= probe failed: %s", s->msg);
    return -1;
  }
  s->eq_probes++;
  return (int)got;
}

/* ---- a quotient export, read from FORMAT.md ("Kind 4, layout 1") ---------- */

/* 1 if b[0..n) is a kind-4 layout-1 blob that lib/quotient_spec.h accepts,
** every leaf whole, whose header's items is the sum of its sections' c;
** else 0 with why.  *leaves_max keeps the most leaves seen. */
static int quotient_export_ok(const unsigned char *b, int n, char *why,
                              size_t size, sqlite3_int64 *leaves_max) {
  uint64_t items = 0;
  if (!spec_qleaves_valid(b, (size_t)n)) {
    snprintf(why, size, "the header or directory is not layout 1's");
    return 0;
  }
  if ((sqlite3_int64)le64(b + 16) > *leaves_max) *leaves_max = (sqlite3_int64)le64(b + 16);
  if (!spec_qleaves_all_valid(b, &items)) {
    snprintf(why, size, "a leaf is damaged, or the leaves do not cover the "
             "hash space once");
    return 0;
  }
  if (items != le64(b + 40)) {
    snprintf(why, size, "items is %llu, the sections hold %llu",
             (unsigned long long)le64(b + 40), (unsigned long long)items);
    return 0;
  }
  return 1;
}

static void check_all(seq *s) {
  static unsigned char seen[POOL];
  static int live[POOL];
  int nlive = 0, kept = 0;
  char d[200];
  /* a value stamped before the store's least time less the window can
  ** never be asked about again (time does not go back but by a rollback,
  ** which brings back a model of its own) */
  for (int i = 0; i < s->m.n; i++)
    if (!windowed(s) || s->m.e[i].t + s->sh->W >= t_lo(s)) s->m.e[kept++] = s->m.e[i];
  s->m.n = kept;
  memset(seen, 0, sizeof seen);
  for (int i = 0; i < s->m.n; i++) {
    int vid = s->m.e[i].vid;
    if (!seen[vid] && must(s, &s->m.e[i])) {
      seen[vid] = 1;
      live[nlive++] = vid;
    }
  }
  /* = */
  sqlite3_stmt *eq = P(s, s->db, "SELECT EXISTS (SELECT 1 FROM t WHERE value = ?1)");
  if (!eq) return;
  for (int i = 0; i < nlive && !s->broken; i++) {
    val v = pool_value(live[i]);
    int how = how_to_bind(s, &v);
    if (probe_eq(s, eq, &v, how) == 0) {
      describe(&v, d, sizeof d);
      fail(s, &s->fail_fn, "false negative: %s (bound %s) answers 0 to =", d,
           how == AS_IS ? "as is" : "as a REAL");
    }
  }
  sqlite3_finalize(eq);
  /* IN, in batches */
  for (int i = 0; i < nlive && !s->broken; i += BATCH) {
    in_rows r;
    int how[BATCH];
    r.n = nlive - i < BATCH ? nlive - i : BATCH;
    for (int j = 0; j < r.n; j++) {
      r.asked[j] = pool_value(live[i + j]);
      how[j] = how_to_bind(s, &r.asked[j]);
    }
    if (!probe_in(s, &r, how)) break;
    for (int j = 0; j < r.n; j++)
      if (!r.found[j]) {
        describe(&r.asked[j], d, sizeof d);
        fail(s, &s->fail_fn, "false negative: %s missing from value IN (%d "
             "values)", d, r.n);
      }
  }
  if (s->broken) return;
  /* the export */
  blob_out b = {0};
  sqlite3_stmt *st = P(s, s->db, "SELECT filter FROM t");
  if (!st) return;
  int rc = run(s, st, 64, one_blob, &b, 0);
  if (rc != SQLITE_DONE || b.rows != 1 || b.type != SQLITE_BLOB) {
    if (rc != -1)
      fail(s, &s->fail_err, "SELECT filter: rc %d, %d rows: %s", rc, b.rows,
           s->msg);
    free(b.p);
    return;
  }
  sqlite3_stmt *test = P(s, s->db, quotient(s)     ? "SELECT quotient_test(?1, ?2)"
                                   : s->sh->cuckoo ? "SELECT cuckoo_test(?1, ?2)"
                                                   : "SELECT bloom_test(?1, ?2)");
  if (!test) {
    free(b.p);
    return;
  }
  sqlite3_bind_blob(test, 1, b.p, b.n, SQLITE_STATIC);
  for (int i = 0; i < nlive && !s->broken; i++) {
    val v = pool_value(live[i]);
    sqlite3_int64 got = -1;
    bind_val(test, 2, &v, how_to_bind(s, &v));
    rc = run(s, test, 2, one_int, &got, 1);
    if (rc != SQLITE_DONE && rc != -1)
      fail(s, &s->fail_err, "testing the export: %s", s->msg);
    else if (got != 1 && rc != -1) {
      describe(&v, d, sizeof d);
      fail(s, &s->fail_fn, "false negative: %s tests %lld in the export", d,
           (long long)got);
    }
    s->export_probes++;
  }
  sqlite3_finalize(test);
  /* (d) */
  if (quotient(s) && !s->broken) {
    s->builds++;
    char why[200];
    if (!quotient_export_ok(b.p, b.n, why, sizeof why, &s->max_leaves))
      fail(s, &s->fail_export, "the export (%d bytes): %s", b.n, why);
    else if (u64_at(b.p + 40) < s->m.copies ||
             u64_at(b.p + 40) > s->m.copies + s->deletes)
      fail(s, &s->fail_export, "the export's items is %lld, adds - deletes is "
           "%lld, with %lld deletes", (long long)u64_at(b.p + 40),
           (long long)s->m.copies, (long long)s->deletes);
  } else if (s->sh->sched == FIXED && !s->broken && b.n >= 64) {
    if (!s->sh->cuckoo) {
      s->builds++;
      if (b.n != s->m.expect_n || memcmp(b.p, s->m.expect, 40) != 0 ||
          memcmp(b.p + 48, s->m.expect + 48, (size_t)b.n - 48) != 0)
        fail(s, &s->fail_export, "the export (%d bytes) differs from bloom_build "
             "over the values added (%d bytes)", b.n, s->m.expect_n);
      else if (u64_at(b.p + 40) != s->m.added)
        fail(s, &s->fail_export, "the export's inserted is %lld, %lld values "
             "were added", (long long)u64_at(b.p + 40), (long long)s->m.added);
    } else if (s->builds++, u64_at(b.p + 40) != s->m.copies) {
      fail(s, &s->fail_export, "the export's items is %lld, adds - deletes is "
           "%lld", (long long)u64_at(b.p + 40), (long long)s->m.copies);
    }
  }
  free(b.p);
  if (sqlite3_get_autocommit(s->db) != !s->in_txn)
    fail(s, &s->fail_err, "the connection is %sin a transaction, the model "
         "says it is %s", sqlite3_get_autocommit(s->db) ? "not " : "",
         s->in_txn ? "in one" : "not");
}

/* ---- inserts ------------------------------------------------------------- */

typedef struct row {
  int vid;        /* -1: NULL */
  int how;
  sqlite3_int64 at;
} row;

enum { FAIL_NONE, FAIL_ABS, FAIL_BAD_AT, FAIL_AHEAD, FAIL_BOTH };

/* A value for a row: a repeat of one the model has (30%) or any of the
** pool; in a cuckoo store never an eighth... fifth add of one value. */
static int pick_vid(seq *s, const int *pending, int npending) {
  for (int tries = 0; tries < 20; tries++) {
    int vid = s->m.n && RN(s, 10) < 3 ? s->m.e[RN(s, s->m.n)].vid : RN(s, POOL);
    if (!s->sh->cuckoo) return vid;
    int copies = s->m.ever[vid];
    for (int i = 0; i < npending; i++) copies += pending[i] == vid;
    if (copies < MAX_COPIES) return vid;
  }
  return -1;
}

/* An `at` for a windowed store: around its time, older than the window,
** ahead within its generation, ahead (events: moves the time). */
static sqlite3_int64 pick_at(seq *s) {
  sqlite3_int64 T = t_lo(s), W = s->sh->W, span = s->span, at;
  int r = RN(s, 100);
  if (r < 35) at = T - RN(s, (int)W);
  else if (r < 50) at = T;
  else if (r < 65) at = T - W - (s->sh->G + 1) * span - RN(s, (int)(3 * W));
  else if (r < 80) at = gen_of(s, t_hi(s)) * span + RN(s, (int)span); /* its generation */
  else if (!s->sh->wall) at = t_hi(s) + RN(s, (int)(r < 95 ? span : 3 * W));
  else at = T - RN(s, (int)span);
  if (s->sh->wall && gen_of(s, at) > gen_of(s, T)) at = T;
  return at < 0 ? 0 : at;
}

/* Room left: a fixed bloom store stays within its capacity, a fixed
** cuckoo store within 90% of it (it is sized for its capacity at 95%). */
static int room(const seq *s) {
  if (s->sh->sched != FIXED || quotient(s)) return 1000;
  if (s->sh->cuckoo) return (int)(s->sh->capacity * 9 / 10 - s->m.copies);
  return (int)(s->sh->capacity - s->m.n);
}

/* Runs an insert of rows (with at when with_at), in one of three SQL
** forms, on db; a last row that fails when fail_kind; and updates the
** model as the documentation says. */
static void insert_rows(seq *s, sqlite3 *db, row *rows, int n, int with_at,
                        int ignore, int fail_kind) {
  char sql[16384];
  int form = RN(s, 3), cols = with_at ? 2 : 1;
  int both = fail_kind == FAIL_BOTH;
  size_t o = (size_t)snprintf(sql, sizeof sql, "INSERT %sINTO t(value%s%s) ",
                              ignore ? "OR IGNORE " : "",
                              with_at ? ", at" : "", both ? ", filter" : "");
  int total = n + (fail_kind != FAIL_NONE);
  if (form == 0) o += (size_t)snprintf(sql + o, sizeof sql - o, "VALUES ");
  else if (form == 1)
    o += (size_t)snprintf(sql + o, sizeof sql - o, "SELECT * FROM (VALUES ");
  for (int i = 0; i < total; i++) {
    int p = i * cols + 1;
    char one[80], cell[40];
    if (fail_kind == FAIL_ABS && i == n) snprintf(cell, sizeof cell, "abs(?%d)", p);
    else snprintf(cell, sizeof cell, "?%d", p);
    if (with_at) snprintf(one, sizeof one, "%s, ?%d", cell, p + 1);
    else snprintf(one, sizeof one, "%s", cell);
    if (both) strcat(one, i == n ? ", x'00'" : ", NULL");
    if (form == 2)
      o += (size_t)snprintf(sql + o, sizeof sql - o, "%sSELECT %s",
                            i ? " UNION ALL " : "", one);
    else
      o += (size_t)snprintf(sql + o, sizeof sql - o, "%s(%s)", i ? ", " : "", one);
  }
  if (form == 1) snprintf(sql + o, sizeof sql - o, ")");
  sqlite3_stmt *st = P(s, db, sql);
  if (!st) return;
  for (int i = 0; i < n; i++) {
    int p = i * cols + 1;
    if (rows[i].vid < 0) sqlite3_bind_null(st, p);
    else {
      val v = pool_value(rows[i].vid);
      bind_val(st, p, &v, rows[i].how);
    }
    if (with_at) sqlite3_bind_int64(st, p + 1, rows[i].at);
  }
  const char *want = "";
  if (fail_kind != FAIL_NONE) {
    int p = n * cols + 1;
    val v = pool_value(RN(s, POOL));
    bind_val(st, p, &v, AS_IS);
    switch (fail_kind) {
      case FAIL_ABS:
        sqlite3_bind_int64(st, p, INT64_MIN);
        want = "integer overflow";
        if (with_at) sqlite3_bind_int64(st, p + 1, t_lo(s));
        break;
      case FAIL_BAD_AT: {
        int k = RN(s, 4); /* 1.5, '1700000000', -1, x'00' */
        if (k == 0) sqlite3_bind_double(st, p + 1, 1.5);
        else if (k == 1) sqlite3_bind_text(st, p + 1, "1700000000", -1, SQLITE_STATIC);
        else if (k == 2) sqlite3_bind_int64(st, p + 1, -1);
        else sqlite3_bind_blob(st, p + 1, "", 1, SQLITE_STATIC);
        want = "at must be an INTEGER number of seconds";
        break;
      }
      case FAIL_AHEAD:
        sqlite3_bind_int64(st, p + 1, (gen_of(s, vfs_clock_seconds) + 1 + RN(s, 3)) *
                                          s->span + RN(s, (int)s->span));
        want = "is ahead of the store's time";
        break;
      default:
        want = "insert a value or a filter, not both in one row";
    }
  }
  if (trace)
    for (int i = 0; i < n; i++) {
      char d[200] = "NULL";
      if (rows[i].vid >= 0) {
        val v = pool_value(rows[i].vid);
        describe(&v, d, sizeof d);
      }
      tap_diag("  row %d: vid %d %s how %d at %lld%s", i, rows[i].vid, d,
               rows[i].how, (long long)rows[i].at, db == s->db2 ? " (db2)" : "");
    }
  int rc = run(s, st, 64, NULL, NULL, 0);
  expect_rc(s, rc, fail_kind != FAIL_NONE, want);
  if (rc != SQLITE_DONE) return; /* undone whole: the model stays */
  /* changes() of the INSERT (the store's own writes are not counted) */
  sqlite3_int64 changes = sqlite3_changes(db);

  /* the model */
  int nonnull = 0, vids[64], hows[64];
  for (int i = 0; i < n; i++)
    if (rows[i].vid >= 0) {
      vids[nonnull] = rows[i].vid;
      hows[nonnull++] = rows[i].how;
    }
  int bloom_ignore = ignore && !s->sh->cuckoo;
  if (ignore && s->sh->cuckoo && !with_at && nonnull == n && changes != n)
    fail(s, &s->fail_err, "INSERT OR IGNORE into a %s counted %lld changes "
         "for %d rows: it never skips", s->sh->module, (long long)changes, n);
  if (bloom_ignore && changes > nonnull)
    fail(s, &s->fail_err, "INSERT OR IGNORE counted %lld changes for %d "
         "values", (long long)changes, nonnull);
  if (bloom_ignore && n == 1 && rows[0].vid >= 0) {
    /* the one value was in the model and must answer at the time the row
    ** brings: then it was skipped */
    sqlite3_int64 after = with_at && rows[0].at > t_hi(s) ? rows[0].at : t_hi(s);
    int held = 0;
    for (int i = 0; i < s->m.n; i++)
      if (s->m.e[i].vid == rows[0].vid &&
          (!windowed(s) || after <= s->m.e[i].t + s->sh->W))
        held = 1;
    if (held && changes != 0) {
      char d[200];
      val v = pool_value(rows[0].vid);
      describe(&v, d, sizeof d);
      fail(s, &s->fail_fn, "INSERT OR IGNORE counted %s as new: the store "
           "answered \"certainly not present\" for a value it must hold", d);
    }
  }
  /* Which rows were certainly added: every non-NULL row but those INSERT OR
  ** IGNORE may have skipped in a windowed bloom_store (all of them, when
  ** changes() says so).  Skipped rows of a fixed or scalable bloom_store
  ** answer 1 for ever (their bits were set), so they count as present. */
  int all_added = !(bloom_ignore && windowed(s)) || changes == nonnull;
  if (bloom_ignore) s->m.added += changes;
  else if (!s->sh->cuckoo) s->m.added += nonnull;
  sqlite3_int64 running = t_lo(s);
  for (int i = 0; i < n; i++) {
    if (with_at && !s->sh->wall && rows[i].at > s->m.thi) s->m.thi = rows[i].at;
    if (rows[i].vid < 0 || !all_added) continue;
    sqlite3_int64 t = with_at ? rows[i].at : running;
    if (with_at && !s->sh->wall && rows[i].at > running) running = rows[i].at;
    model_add(&s->m, rows[i].vid, t, with_at);
    if (s->sh->cuckoo) {
      s->m.ever[rows[i].vid]++;
      s->m.copies++;
    }
  }
  if (!s->sh->wall && all_added && running > s->m.tlo) s->m.tlo = running;
  expect_add(s, vids, hows, nonnull);
}

/* A random insert: 1 row, or several, NULLs among them. */
static void op_insert(seq *s, sqlite3 *db, int ignore, int fail_kind) {
  row rows[64];
  int pending[64];
  int n = RN(s, 3) ? 1 : 2 + RN(s, RN(s, 4) ? 7 : 40);
  if (n > room(s)) n = room(s);
  if (n <= 0 && fail_kind == FAIL_NONE) return;
  if (n < 0) n = 0;
  int with_at = windowed(s) && (fail_kind == FAIL_BAD_AT || fail_kind == FAIL_AHEAD ||
                                RN(s, 2));
  if (fail_kind == FAIL_BOTH) with_at = 0;
  for (int i = 0; i < n; i++) {
    rows[i].vid = RN(s, 10) ? pick_vid(s, pending, i) : -1;
    pending[i] = rows[i].vid;
    rows[i].how = AS_IS;
    if (rows[i].vid >= 0) {
      val v = pool_value(rows[i].vid);
      rows[i].how = how_to_bind(s, &v);
    }
    rows[i].at = with_at ? pick_at(s) : 0;
  }
  insert_rows(s, db, rows, n, with_at, ignore, fail_kind);
}

/* INSERT ... SELECT over a range of integers (pool values 8k), some as
** REALs, some NULL. */
static void op_insert_range(seq *s, sqlite3 *db) {
  int n = 5 + RN(s, windowed(s) ? 56 : 150), lo = RN(s, POOL / 8 - n);
  if (n > room(s)) n = room(s);
  if (n < 1) return;
  if (s->sh->cuckoo)
    for (int k = lo; k < lo + n; k++)
      if (s->m.ever[8 * k] >= MAX_COPIES) return;
  int with_at = windowed(s) && RN(s, 2);
  sqlite3_int64 at = with_at ? pick_at(s) : 0;
  char sql[400];
  snprintf(sql, sizeof sql, SERIES("?1", "?2") "INSERT INTO t(value%s) SELECT "
           "CASE WHEN x %% 7 = 3 THEN NULL WHEN x %% 3 = 0 THEN x * 1.0 ELSE x "
           "END%s FROM s", with_at ? ", at" : "", with_at ? ", ?3" : "");
  sqlite3_stmt *st = P(s, db, sql);
  if (!st) return;
  sqlite3_bind_int(st, 1, lo);
  sqlite3_bind_int(st, 2, lo + n - 1);
  if (with_at) sqlite3_bind_int64(st, 3, at);
  int rc = run(s, st, 64, NULL, NULL, 0);
  expect_rc(s, rc, 0, "");
  if (rc != SQLITE_DONE) return;
  int vids[160], hows[160], m = 0;
  sqlite3_int64 t = with_at ? at : t_lo(s);
  if (with_at && !s->sh->wall) {
    if (at > s->m.thi) s->m.thi = at;
  }
  for (int k = lo; k < lo + n; k++) {
    if (k % 7 == 3) continue;
    model_add(&s->m, 8 * k, t, with_at);
    if (s->sh->cuckoo) {
      s->m.ever[8 * k]++;
      s->m.copies++;
    }
    vids[m] = 8 * k;
    hows[m++] = k % 3 == 0 ? AS_REAL : AS_IS;
  }
  if (!s->sh->cuckoo) s->m.added += m;
  if (with_at && !s->sh->wall && m > 0 && at > s->m.tlo) s->m.tlo = at;
  expect_add(s, vids, hows, m);
}

/* ---- deletes ------------------------------------------------------------- */

/* A value that must be present, or -1. */
static int pick_live(seq *s) {
  for (int tries = 0; tries < 30 && s->m.n; tries++) {
    const entry *e = &s->m.e[RN(s, s->m.n)];
    if (must(s, e)) return e->vid;
  }
  return -1;
}

/* Drops one copy of vid from the model: the one stamped latest, so that
** what stays is what the store keeps whichever copy it removed (it removes
** one only when one generation or layer holds the value). */
static void model_drop(seq *s, int vid) {
  int best = -1;
  for (int i = 0; i < s->m.n; i++)
    if (s->m.e[i].vid == vid && (best < 0 || s->m.e[i].t >= s->m.e[best].t))
      best = i;
  if (best < 0) return;
  s->m.e[best] = s->m.e[--s->m.n];
  s->m.copies--;
}

static void op_delete(seq *s, sqlite3 *db) {
  int vids[4], n = RN(s, 4) ? 1 : 2 + RN(s, 3);
  for (int i = 0; i < n; i++) {
    vids[i] = pick_live(s);
    for (int j = 0; j < i; j++)
      if (vids[j] == vids[i]) vids[i] = -1;
    if (vids[i] < 0) return;
  }
  char sql[200];
  if (n == 1) snprintf(sql, sizeof sql, "DELETE FROM t WHERE value = ?1");
  else if (n == 2) snprintf(sql, sizeof sql, "DELETE FROM t WHERE value IN (?1, ?2)");
  else if (n == 3) snprintf(sql, sizeof sql, "DELETE FROM t WHERE value IN (?1, ?2, ?3)");
  else snprintf(sql, sizeof sql, "DELETE FROM t WHERE value IN (?1, ?2, ?3, ?4)");
  sqlite3_stmt *st = P(s, db, sql);
  if (!st) return;
  for (int i = 0; i < n; i++) {
    val v = pool_value(vids[i]);
    bind_val(st, i + 1, &v, how_to_bind(s, &v));
  }
  int rc = run(s, st, 64, NULL, NULL, 0);
  if (s->sh->cuckoo) {
    expect_rc(s, rc, 0, "");
    if (rc == SQLITE_DONE)
      for (int i = 0; i < n; i++) model_drop(s, vids[i]);
    /* a quotient store may remove nothing (entries of several widths): the
    ** model drops the copy all the same, so it asks no more than is sure */
    if (rc == SQLITE_DONE) s->deletes += n;
  } else {
    expect_rc(s, rc, 1, "bloom_store: a Bloom filter cannot forget a value");
  }
}

/* ---- probes, generations ---------------------------------------------------- */

/* Values present, absent and unknown, a NULL and a repeat, asked with IN
** and =; and the summary row. */
static void op_probe(seq *s) {
  in_rows r;
  int how[16], must_found[16];
  r.n = 1 + RN(s, 12);
  for (int i = 0; i < r.n; i++) {
    int k = RN(s, 5), vid;
    must_found[i] = 0;
    if (k == 0 && (vid = pick_live(s)) >= 0) {
      r.asked[i] = pool_value(vid);
      must_found[i] = 1;
    } else if (k == 1) {
      r.asked[i] = absent_value((sqlite3_int64)(R(s) >> 20));
    } else if (k == 2 && i > 0) {
      r.asked[i] = r.asked[i - 1];
      must_found[i] = must_found[i - 1];
    } else if (k == 3) {
      memset(&r.asked[i], 0, sizeof r.asked[i]); /* NULL */
    } else {
      vid = RN(s, POOL);
      r.asked[i] = pool_value(vid);
      must_found[i] = vid_must(s, vid);
    }
    how[i] = how_to_bind(s, &r.asked[i]);
  }
  if (!probe_in(s, &r, how)) return;
  sqlite3_stmt *eq = P(s, s->db, "SELECT EXISTS (SELECT 1 FROM t WHERE value = ?1)");
  if (!eq) return;
  for (int i = 0; i < r.n && !s->broken; i++) {
    char d[200];
    describe(&r.asked[i], d, sizeof d);
    if (must_found[i] && !r.found[i])
      fail(s, &s->fail_fn, "false negative: %s missing from an IN probe", d);
    if (r.asked[i].cls == 0) continue;
    int got = probe_eq(s, eq, &r.asked[i], how[i]);
    if (got == 0 && must_found[i])
      fail(s, &s->fail_fn, "false negative: %s answers 0 to =", d);
    else if (got >= 0 && got != r.found[i])
      fail(s, &s->fail_err, "%s answers %d to = but %d to IN", d, got,
           r.found[i]);
  }
  sqlite3_finalize(eq);
  blob_out b = {0};
  sqlite3_stmt *st = P(s, s->db, "SELECT * FROM t");
  if (st && run(s, st, 64, one_blob, &b, 0) == SQLITE_DONE && b.rows != 1)
    fail(s, &s->fail_err, "SELECT * gave %d rows, not the one summary", b.rows);
  free(b.p);
}

typedef struct gens {
  sqlite3_int64 g[64], start[64], end[64], expires[64], items;
  int n, bad_fpr;
} gens;

static void gen_row(seq *s, sqlite3_stmt *st, void *out) {
  (void)s;
  gens *g = out;
  if (g->n < 64) {
    g->g[g->n] = sqlite3_column_int64(st, 0);
    g->start[g->n] = sqlite3_column_int64(st, 1);
    g->end[g->n] = sqlite3_column_int64(st, 2);
    g->expires[g->n] = sqlite3_column_int64(st, 3);
  }
  g->items += sqlite3_column_int64(st, 4);
  double fpr = sqlite3_column_double(st, 5);
  if (sqlite3_column_type(st, 5) != SQLITE_FLOAT || !(fpr >= 0 && fpr < 1))
    g->bad_fpr++;
  g->n++;
}

/* The generation rows: live generations only, start/end/expires as
** REFERENCE describes them, every explicit at's generation among them, and
** at least the items that must be present. */
static void op_generations(seq *s) {
  gens g;
  memset(&g, 0, sizeof g);
  sqlite3_stmt *st = P(s, s->db, "SELECT generation, start, \"end\", expires, "
                       "items, fpr FROM t");
  if (!st) return;
  int rc = run(s, st, 64 + s->sh->G + 1, gen_row, &g, 0);
  if (rc == -1) return;
  if (rc != SQLITE_DONE) {
    fail(s, &s->fail_err, "the generation rows: %s", s->msg);
    return;
  }
  s->gen_checks++;
  sqlite3_int64 lo = gen_of(s, t_lo(s)) - s->sh->G, hi = gen_of(s, t_hi(s));
  if (g.n > s->sh->G + 1 || g.bad_fpr) {
    fail(s, &s->fail_gen, "%d generation rows (G + 1 = %d), %d with an fpr "
         "that is not a REAL rate", g.n, s->sh->G + 1, g.bad_fpr);
    return;
  }
  for (int i = 0; i < g.n; i++)
    if (g.g[i] < lo || g.g[i] > hi || g.start[i] != g.g[i] * s->span ||
        g.end[i] != g.start[i] + s->span ||
        g.expires[i] != g.start[i] + (s->sh->G + 1) * s->span) {
      fail(s, &s->fail_gen, "generation %lld (start %lld, end %lld, expires "
           "%lld): live are %lld to %lld, span %lld", (long long)g.g[i],
           (long long)g.start[i], (long long)g.end[i], (long long)g.expires[i],
           (long long)lo, (long long)hi, (long long)s->span);
      return;
    }
  sqlite3_int64 present = 0;
  for (int i = 0; i < s->m.n; i++) {
    const entry *e = &s->m.e[i];
    if (!must(s, e)) continue;
    present++;
    if (!e->has_at) continue;
    int listed = 0;
    for (int j = 0; j < g.n; j++) listed |= g.g[j] == gen_of(s, e->t);
    if (!listed) {
      fail(s, &s->fail_gen, "no row for generation %lld, which holds a value "
           "stamped at %lld", (long long)gen_of(s, e->t), (long long)e->t);
      return;
    }
  }
  if (g.items < present)
    fail(s, &s->fail_gen, "the generations count %lld items, %lld must be "
         "present", (long long)g.items, (long long)present);
}

/* ---- time ---------------------------------------------------------------- */

static void op_time(seq *s) {
  sqlite3_int64 span = s->span, by;
  int r = RN(s, 10);
  if (r < 5) by = RN(s, (int)span);
  else if (r < 8) by = span + RN(s, (int)span);
  else by = (2 + RN(s, s->sh->G + 2)) * span; /* several spans, no write */
  if (s->sh->wall) {
    vfs_clock_seconds += by;
    return;
  }
  row one = {pick_vid(s, NULL, 0), AS_IS, s->m.thi + by};
  if (one.vid < 0 || room(s) < 1) return;
  insert_rows(s, s->db, &one, 1, 1, 0, FAIL_NONE);
}

/* ---- transactions -------------------------------------------------------- */

static void txn_clear(seq *s) {
  s->in_txn = 0;
  s->nsp = 0;
  s->sp_began = 0;
}

static void op_txn(seq *s) {
  char sql[64];
  int rc;
  if (!s->in_txn) {
    if (RN(s, 3)) {
      rc = X(s, s->db, "BEGIN");
      expect_rc(s, rc, 0, "");
      model_copy(&s->txn, &s->m);
      s->in_txn = 1;
    } else { /* a SAVEPOINT outside a transaction begins one */
      int name = ++s->sp_counter;
      snprintf(sql, sizeof sql, "SAVEPOINT sp%d", name);
      rc = X(s, s->db, sql);
      expect_rc(s, rc, 0, "");
      model_copy(&s->txn, &s->m);
      model_copy(&s->sp[0], &s->m);
      s->sp_name[0] = name;
      s->nsp = 1;
      s->in_txn = s->sp_began = 1;
    }
    return;
  }
  int r = RN(s, 10);
  if (r < 2) {
    rc = X(s, s->db, "COMMIT");
    expect_rc(s, rc, 0, "");
    txn_clear(s);
  } else if (r < 4) {
    rc = X(s, s->db, "ROLLBACK");
    expect_rc(s, rc, 0, "");
    model_copy(&s->m, &s->txn);
    txn_clear(s);
    s->rollbacks++;
  } else if (r < 6 && s->nsp < MAX_SP) {
    int name = ++s->sp_counter;
    snprintf(sql, sizeof sql, "SAVEPOINT sp%d", name);
    rc = X(s, s->db, sql);
    expect_rc(s, rc, 0, "");
    model_copy(&s->sp[s->nsp], &s->m);
    s->sp_name[s->nsp++] = name;
  } else if (r < 8 && s->nsp > 0) {
    int k = RN(s, s->nsp);
    snprintf(sql, sizeof sql, "ROLLBACK TO sp%d", s->sp_name[k]);
    rc = X(s, s->db, sql);
    expect_rc(s, rc, 0, "");
    model_copy(&s->m, &s->sp[k]);
    s->nsp = k + 1; /* it stays; those after it go */
    s->rollbacks++;
  } else if (s->nsp > 0) {
    int k = RN(s, s->nsp);
    snprintf(sql, sizeof sql, "RELEASE sp%d", s->sp_name[k]);
    rc = X(s, s->db, sql);
    expect_rc(s, rc, 0, "");
    s->nsp = k;
    if (k == 0 && s->sp_began) txn_clear(s); /* it committed */
  }
}

/* Closed and opened again; inside a transaction, closing rolls it back. */
static void op_reopen(seq *s) {
  close_all(s);
  if (s->in_txn) {
    model_copy(&s->m, &s->txn);
    txn_clear(s);
    s->rollbacks++;
  }
  open_all(s);
  s->reopens++;
}

/* ---- one sequence -------------------------------------------------------- */

static void step_once(seq *s) {
  int r = RN(s, 100);
  int cuckoo = s->sh->cuckoo, win = windowed(s);
  if (r < 26) op_insert(s, s->db, 0, FAIL_NONE);
  else if (r < 33) op_insert(s, s->db, 1, FAIL_NONE);
  else if (r < (windowed(s) ? 36 : 40)) op_insert_range(s, s->db);
  else if (r < 46) {
    if (cuckoo) op_delete(s, s->db);
    else if (RN(s, 8) == 0) op_delete(s, s->db); /* refused */
    else op_probe(s);
  } else if (r < 52) op_probe(s);
  else if (r < 60) {
    if (win) op_time(s);
    else op_insert(s, s->db, RN(s, 2), FAIL_NONE);
  } else if (r < 63) {
    if (win) {
      expect_rc(s, X(s, s->db, "INSERT INTO t(t) VALUES ('expire')"), 0, "");
    } else op_probe(s);
  } else if (r < 66) {
    if (win) op_generations(s);
    else op_probe(s);
  } else if (r < 80) op_txn(s);
  else if (r < 86) {
    /* a statement that fails part way */
    int kinds[4] = {FAIL_ABS, FAIL_BOTH, FAIL_BAD_AT, FAIL_AHEAD};
    int k = RN(s, win ? (s->sh->wall ? 4 : 3) : 2);
    if (cuckoo && !quotient(s) && s->sh->sched == FIXED && RN(s, 3) == 0) {
      /* a ninth copy of a value: refused, the statement undone */
      int n = RN(s, 3);
      char sql[600];
      size_t o = (size_t)snprintf(sql, sizeof sql, "INSERT INTO t(value) VALUES ");
      for (int i = 0; i < n + 9; i++)
        o += (size_t)snprintf(sql + o, sizeof sql - o, "%s(?%d)", i ? ", " : "",
                              i < n ? i + 1 : n + 1);
      sqlite3_stmt *st = P(s, s->db, sql);
      if (!st) return;
      for (int i = 0; i < n; i++) {
        val v = pool_value(RN(s, POOL));
        bind_val(st, i + 1, &v, AS_IS);
      }
      /* the copies: a value never added */
      val copy = absent_value((sqlite3_int64)(R(s) >> 24));
      bind_val(st, n + 1, &copy, AS_IS);
      expect_rc(s, run(s, st, 64, NULL, NULL, 0), 1, "cuckoo_store: the ");
    } else {
      op_insert(s, s->db, RN(s, 4) == 0, kinds[k]);
    }
  } else if (r < 88) op_reopen(s);
  else if (r < 94) {
    /* another connection writes (when this one holds no transaction) */
    if (s->in_txn) op_probe(s);
    else {
      s->second_writes++;
      if (cuckoo && RN(s, 3) == 0) op_delete(s, s->db2);
      else op_insert(s, s->db2, RN(s, 4) == 0, FAIL_NONE);
    }
  } else if (r < 97 && win && s->sh->wall) {
    /* the clock moves several spans on, no write: the next check exports */
    vfs_clock_seconds += (1 + RN(s, 3)) * s->span + RN(s, (int)s->span);
  } else op_insert(s, s->db, 0, FAIL_NONE);
}

/* The false-positive rate of values never inserted, at the end. */
static void measure_fpr(seq *s, const char *tag) {
  sqlite3_stmt *eq = P(s, s->db, "SELECT EXISTS (SELECT 1 FROM t WHERE value = ?1)");
  if (!eq) return;
  int hits = 0, asked = 0;
  uint64_t base = R(s) >> 24;
  for (int i = 0; i < ABSENT_PROBES; i++) {
    val v = absent_value((sqlite3_int64)(base + (uint64_t)i));
    int got = probe_eq(s, eq, &v, how_to_bind(s, &v));
    if (got < 0) break;
    hits += got;
    asked++;
  }
  sqlite3_finalize(eq);
  double p = s->sh->fpr, rate = asked ? (double)hits / asked : 1.0;
  double bound = 2 * p + 3 * sqrt(2 * p * (1 - 2 * p) / ABSENT_PROBES);
  tap_ok(asked == ABSENT_PROBES && rate <= bound,
         "%s: false-positive rate %.4f (%d of %d never-inserted values) <= "
         "2 * fpr + 3 sigma = %.4f (fpr %g)", tag, rate, hits, asked, bound, p);
}

static const char *tmpdir;

static void run_sequence(const shape *sh, uint64_t seed, int steps, int index) {
  seq *s = calloc(1, sizeof *s);
  if (!s) exit(2);
  s->sh = sh;
  s->seed = s->rng = seed;
  s->steps = steps;
  s->span = sh->G ? (sh->W + sh->G - 1) / sh->G : 1;
  snprintf(s->path, sizeof s->path, "%s/seq%d.db", tmpdir, index);
  char tag[200];
  snprintf(tag, sizeof tag, "%s seed 0x%016llx, %d steps", sh->name,
           (unsigned long long)seed, steps);
  tap_diag("seed: 0x%016llx (%s; rerun: BLOOM_MODEL_SEED=0x%016llx "
           "BLOOM_MODEL_SHAPE=%s BLOOM_MODEL_STEPS=%d)",
           (unsigned long long)seed, sh->name, (unsigned long long)seed,
           sh->name, steps);
  double t0 = now();
  static const int pages[] = {512, 1024, 4096};
  /* a quotient store on small pages: small leaves, many splits */
  s->page_size = pages[RN(s, quotient(s) ? 2 : 3)];
  s->wal = RN(s, 2);
  vfs_clock_seconds = 1700000000 + RN(s, 1000000);
  s->db = open_conn(s);
  char sql[400];
  snprintf(sql, sizeof sql, "PRAGMA page_size = %d; PRAGMA journal_mode = %s; "
           "CREATE VIRTUAL TABLE t USING %s(%s)", s->page_size,
           s->wal ? "WAL" : "DELETE", sh->module, sh->args);
  must_exec(s->db, sql);
  s->db2 = open_conn(s);
  s->ref = open_db(NULL);
  must_exec(s->ref, "CREATE TABLE vals(v)");
  if (sh->sched == FIXED && !sh->cuckoo) {
    blob_out b = {0};
    snprintf(sql, sizeof sql, "SELECT bloom_empty(%lld, %g)",
             (long long)sh->capacity, sh->fpr);
    sqlite3_stmt *st = P(s, s->ref, sql);
    if (st) run(s, st, 2, one_blob, &b, 0);
    s->m.expect = b.p;
    s->m.expect_n = b.n;
  }
  if (windowed(s) && !sh->wall) {
    /* the events clock starts at the first at */
    row first = {RN(s, POOL), AS_IS, vfs_clock_seconds};
    insert_rows(s, s->db, &first, 1, 1, 0, FAIL_NONE);
  }
  for (s->step = 0; s->step < steps && !s->broken; s->step++) {
    s->sql = NULL;
    step_once(s);
    if (s->broken) break;
    s->sql = NULL;
    check_all(s);
  }
  int ran = s->step;
  s->step = steps;
  if (!s->broken) {
    if (s->in_txn) {
      int commit = RN(s, 2);
      expect_rc(s, X(s, s->db, commit ? "COMMIT" : "ROLLBACK"), 0, "");
      if (!commit) model_copy(&s->m, &s->txn);
      txn_clear(s);
    }
    op_reopen(s);
    check_all(s);
    if (sh->sched == FIXED && !sh->cuckoo && !s->broken) {
      /* the export against bloom_build over the values, from scratch */
      blob_out want = {0}, got = {0};
      expect_from_scratch(s, &want);
      sqlite3_stmt *st = P(s, s->db, "SELECT filter FROM t");
      if (st) run(s, st, 64, one_blob, &got, 0);
      s->builds++;
      if (!want.p || !got.p || want.n != got.n || got.n < 64 ||
          memcmp(want.p, got.p, 40) != 0 ||
          memcmp(want.p + 48, got.p + 48, (size_t)got.n - 48) != 0)
        fail(s, &s->fail_export, "the export differs from bloom_build over "
             "the %d values of the model", s->m.n);
      free(want.p);
      free(got.p);
    }
  }
  tap_ok(s->fail_end == 0, "%s: every statement ended (%ld statements, %d "
         "steps run)", tag, s->statements, ran);
  long present = 0;
  for (int i = 0; i < s->m.n; i++) present += must(s, &s->m.e[i]);
  tap_ok(s->fail_fn == 0, "%s: no false negative (%ld = probes, %ld IN "
         "probes, %ld export probes; %ld values must be present at the end)",
         tag, s->eq_probes, s->in_probes, s->export_probes, present);
  tap_ok(s->fail_err == 0, "%s: errors exactly where the model expects them "
         "(%ld expected errors; %ld rollbacks, %ld reopens, %ld writes by a "
         "second connection)", tag, s->expected_errors, s->rollbacks,
         s->reopens, s->second_writes);
  if (sh->sched == FIXED)
    tap_ok(s->fail_export == 0 && s->builds > 0,
           "%s: %s (%ld checks)", tag,
           quotient(s) ? "the export is a layout-1 blob whose leaves cover the "
                         "hash space, items between adds - deletes and adds"
           : sh->cuckoo ? "the export's items is adds - deletes"
                        : "the export is bloom_build over the values added, "
                          "byte for byte, inserted = values counted",
           s->builds);
  if (quotient(s) && sh->capacity == 0)
    tap_ok(s->max_leaves > 1, "%s: the store grew from one leaf to %lld "
           "(page size %d)", tag, (long long)s->max_leaves, s->page_size);
  if (windowed(s))
    tap_ok(s->fail_gen == 0, "%s: the generation rows agree (%ld checks)", tag,
           s->gen_checks);
  if (s->db) measure_fpr(s, tag);
  tap_diag("  %s: %.2f s", tag, now() - t0);
  if (s->db) close_all(s);
  sqlite3_close(s->ref);
  model_free(&s->m);
  model_free(&s->txn);
  for (int i = 0; i < MAX_SP; i++) model_free(&s->sp[i]);
  char extra[700];
  remove(s->path);
  snprintf(extra, sizeof extra, "%s-wal", s->path);
  remove(extra);
  snprintf(extra, sizeof extra, "%s-shm", s->path);
  remove(extra);
  snprintf(extra, sizeof extra, "%s-journal", s->path);
  remove(extra);
  free(s);
}

/* One short sequence's steps (make test): a windowed store's are cheaper,
** a quotient store's dearer (every check exports and reads every leaf). */
static int short_steps(const shape *sh) {
  if (strcmp(sh->module, "quotient_store") == 0) return SHORT_STEPS / 2;
  return SHORT_STEPS * (sh->sched == WINDOW ? 3 : 1);
}

int main(int argc, char **argv) {
  if (vfs_clock_install() != SQLITE_OK) {
    tap_diag("cannot install the test clock");
    return 2;
  }
  static char dir[] = "/tmp/bloom-model-XXXXXX";
  if (!mkdtemp(dir)) {
    tap_diag("cannot make a temporary directory");
    return 2;
  }
  tmpdir = dir;
  trace = getenv("BLOOM_MODEL_TRACE") != NULL;
  const char *seed_s = argc > 1 ? argv[1] : getenv("BLOOM_MODEL_SEED");
  const char *shape_s = argc > 2 ? argv[2] : getenv("BLOOM_MODEL_SHAPE");
  const char *steps_s = argc > 3 ? argv[3] : getenv("BLOOM_MODEL_STEPS");
  long steps = steps_s && *steps_s ? strtol(steps_s, NULL, 10) : 0;
  double t0 = now();
  int index = 0;
  if (seed_s && *seed_s) {
    /* one sequence again */
    uint64_t seed = strtoull(seed_s, NULL, 0);
    for (int i = 0; i < NSHAPES; i++)
      if (!shape_s || !*shape_s || strcmp(shape_s, shapes[i].name) == 0)
        run_sequence(&shapes[i], seed, steps > 0 ? (int)steps
                     : short_steps(&shapes[i]), index++);
  } else {
    for (int i = 0; i < NSHAPES; i++) {
      long left = steps > 0 ? steps / NSHAPES : short_steps(&shapes[i]);
      for (uint64_t k = 0; left > 0; k++) {
        int n = left > SEQ_MAX ? SEQ_MAX : (int)left;
        uint64_t seed = mix(UINT64_C(0x5702e0de10000000) + (uint64_t)i * UINT64_C(0x100000) + k);
        run_sequence(&shapes[i], seed, n, index++);
        left -= n;
      }
    }
  }
  tap_diag("store_model: %d sequences, %.1f s", index, now() - t0);
  rmdir(dir);
  return tap_done();
}
