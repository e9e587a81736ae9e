/*
** The bad-input catalogue: every SQL function that reads a filter
** against malformed, hostile and borderline blobs, and every sizing function
** against bad n and p.  Loads BLOOM_SO like the other SQL tests; in the ASan
** run, a blob bound from an exactly sized heap buffer with SQLITE_STATIC
** turns any over-read into a report.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** First, what the extension writes: every blob it writes (bloom_build
** over many n and p, bloom_empty, bloom_add, union, intersect, merge,
** cuckoo_build/add/delete) is valid by FORMAT.md (as read by the
** independent tests/lib/bloom_spec.h), bloom_info or cuckoo_info accepts it
** with bytes = its length, and every reader works on it from an exact
** buffer.  bloom_key output is not a filter.
**
** Then the catalogue: each input runs through every reader (bloom_test,
** bloom_add, bloom_count, bloom_union, bloom_intersect, bloom_merge,
** bloom_info, bloom_ref alone and feeding bloom_test/bloom_info/bloom_add,
** and the cuckoo_* readers; a reader not registered fails) four ways: from
** an exact-size buffer, from buffer+1 (misaligned), from a table column, and
** inside a trigger (with trusted_schema=OFF, so every reader must be
** innocuous).  For each reader, the outcome is an error whose message starts
** with that function's name, or a working answer.  Each reader accepts
** exactly the blobs FORMAT.md accepts for its kind (as tests/lib/
** bloom_spec.h reads it); bloom_ref, any valid filter.
**
** Last: bad n and p for bloom_build, bloom_empty, bloom_plan, cuckoo_build;
** the blob length limit; inconsistent counters; an all-ones body.
*/
#define _POSIX_C_SOURCE 200809L

#include <sqlite3.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sqldb.h"
#include "lib/blob.h"
#include "lib/tap.h"
#include "lib/bloom_spec.h"

static sqlite3 *db;

static void die(const char *what) {
  tap_diag("fatal: %s: %s", what, db ? sqlite3_errmsg(db) : "");
  exit(2);
}

static int registered(const char *name) {
  sqlite3_stmt *st = must_prep(db,
      "SELECT 1 FROM pragma_function_list WHERE name = ?1 "
      "UNION ALL SELECT 1 FROM pragma_module_list WHERE name = ?1");
  sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
  int found = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return found;
}

/* ------------------------------------------------------------------ */
/* Blobs                                                                */

typedef struct blob {
  unsigned char *p;
  size_t n;
} blob;

static blob blob_dup(const void *p, size_t n) {
  blob b = {dup_exact(p, n), n};
  return b;
}

/* The blob the query's first row gives in column 0 (the query may use ?1,
** bound to `arg1` when given). */
static blob query_blob(const char *sql, const blob *arg1) {
  sqlite3_stmt *st = must_prep(db, sql);
  if (arg1) sqlite3_bind_blob64(st, 1, arg1->p, arg1->n, SQLITE_STATIC);
  blob b = {NULL, 0};
  if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_type(st, 0) != SQLITE_BLOB) {
    tap_diag("no blob from: %s (%s)", sql, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return b;
  }
  b = blob_dup(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0));
  sqlite3_finalize(st);
  return b;
}

/* An integer from the query's first row, with ?1 bound to an exact copy
** of `arg1` (when given); `fallback` if there is no row or an error. */
static sqlite3_int64 query_int(const char *sql, const blob *arg1,
                               sqlite3_int64 fallback) {
  sqlite3_stmt *st = must_prep(db, sql);
  blob exact = {NULL, 0};
  if (arg1) {
    exact = blob_dup(arg1->p, arg1->n);
    sqlite3_bind_blob64(st, 1, exact.p, exact.n, SQLITE_STATIC);
  }
  sqlite3_int64 v = fallback;
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  free(exact.p);
  return v;
}

/* ------------------------------------------------------------------ */
/* Readers and the ways of calling them                                 */

enum { R_ANY, R_BIT, R_BYTES, R_BLOOM_BLOB, R_CUCKOO_BLOB };

typedef struct probe {
  const char *fname; /* an error must start with "<fname>: " ... */
  const char *alt;   /* ... or "<alt>: " (the bloom_ref feeding it) */
  int kind;          /* 1: Bloom reader, 2: cuckoo reader, 0: any kind */
  int may_fail;      /* may refuse a valid filter (cuckoo_add when full) */
  int result;        /* what an accepted call's column 0 must be */
  const char *sql;   /* @F: the filter; @T: "" or "t, " */
  int active;
  sqlite3_stmt *direct, *table, *trigger;
} probe;

static probe probes[] = {
    {"bloom_test", NULL, 1, 0, R_BIT, "SELECT bloom_test(@F, 42) FROM @T(SELECT 1)", 0, 0, 0, 0},
    {"bloom_test", NULL, 1, 0, R_BIT, "SELECT bloom_test(@F, x'00ff') FROM @T(SELECT 1)", 0, 0, 0, 0},
    {"bloom_add", NULL, 1, 0, R_BLOOM_BLOB,
     "SELECT bloom_add(@F, 42, 'x', NULL, x'00', 1.5) FROM @T(SELECT 1)", 0, 0, 0, 0},
    {"bloom_count", NULL, 1, 0, R_ANY, "SELECT bloom_count(@F) FROM @T(SELECT 1)", 0, 0, 0, 0},
    {"bloom_union", NULL, 1, 0, R_BLOOM_BLOB, "SELECT bloom_union(@F, @F) FROM @T(SELECT 1)", 0, 0, 0, 0},
    {"bloom_intersect", NULL, 1, 0, R_BLOOM_BLOB,
     "SELECT bloom_intersect(@F, @F) FROM @T(SELECT 1)", 0, 0, 0, 0},
    {"bloom_merge", NULL, 1, 0, R_BLOOM_BLOB,
     "SELECT bloom_merge(@F) FROM @T(SELECT 1 UNION ALL SELECT 2)", 0, 0, 0, 0},
    {"bloom_info", NULL, 1, 0, R_BYTES, "SELECT i.bytes FROM @T bloom_info(@F) AS i", 0, 0, 0, 0},
    {"bloom_ref", NULL, 0, 0, R_ANY, "SELECT typeof(r.filter) FROM @T bloom_ref(@F) AS r", 0, 0, 0, 0},
    {"bloom_test", "bloom_ref", 1, 0, R_BIT,
     "SELECT bloom_test(r.filter, 42) FROM @T bloom_ref(@F) AS r", 0, 0, 0, 0},
    {"bloom_info", "bloom_ref", 1, 0, R_BYTES,
     "SELECT i.bytes FROM @T bloom_ref(@F) AS r, bloom_info(r.filter) AS i", 0, 0, 0, 0},
    {"bloom_add", "bloom_ref", 1, 0, R_BLOOM_BLOB,
     "SELECT bloom_add(r.filter, 42) FROM @T bloom_ref(@F) AS r", 0, 0, 0, 0},
    {"cuckoo_test", NULL, 2, 0, R_BIT, "SELECT cuckoo_test(@F, 42) FROM @T(SELECT 1)", 0, 0, 0, 0},
    {"cuckoo_add", NULL, 2, 1, R_CUCKOO_BLOB, "SELECT cuckoo_add(@F, 42) FROM @T(SELECT 1)", 0, 0, 0, 0},
    {"cuckoo_delete", NULL, 2, 0, R_CUCKOO_BLOB,
     "SELECT cuckoo_delete(@F, 42) FROM @T(SELECT 1)", 0, 0, 0, 0},
    {"cuckoo_info", NULL, 2, 0, R_BYTES, "SELECT i.bytes FROM @T cuckoo_info(@F) AS i", 0, 0, 0, 0},
    {"cuckoo_test", "bloom_ref", 2, 0, R_BIT,
     "SELECT cuckoo_test(r.filter, 42) FROM @T bloom_ref(@F) AS r", 0, 0, 0, 0},
};
#define NPROBES ((int)(sizeof probes / sizeof probes[0]))

enum { W_DIRECT, W_MISALIGNED, W_TABLE, W_TRIGGER, NWAYS };
static const char *const way_name[NWAYS] = {
    "bound from an exact-size buffer", "bound from buffer+1 (misaligned)",
    "from a table column", "inside a trigger"};
#define ALL_WAYS ((1u << NWAYS) - 1)

static sqlite3_stmt *st_t_clear, *st_t_insert, *st_sink_read, *st_sink_clear;

/* sql with @F and @T replaced. */
static char *subst(const char *sql, const char *f, const char *t) {
  size_t cap = strlen(sql) * 4 + 64, at = 0;
  char *out = malloc(cap);
  if (out == NULL) die("malloc");
  for (const char *s = sql; *s;) {
    const char *rep = NULL;
    if (strncmp(s, "@F", 2) == 0) rep = f;
    if (strncmp(s, "@T", 2) == 0) rep = t;
    if (rep) {
      size_t n = strlen(rep);
      memcpy(out + at, rep, n);
      at += n;
      s += 2;
    } else {
      out[at++] = *s++;
    }
  }
  out[at] = 0;
  return out;
}

static int have_cuckoo;

static void setup_probes(void) {
  must_exec(db, "CREATE TABLE t(f); CREATE TABLE sink(x);");
  st_t_clear = must_prep(db, "DELETE FROM t");
  st_t_insert = must_prep(db, "INSERT INTO t(f) VALUES(?1)");
  st_sink_read = must_prep(db, "SELECT x FROM sink");
  st_sink_clear = must_prep(db, "DELETE FROM sink");
  int unregistered = 0;
  for (int i = 0; i < NPROBES; i++) {
    probe *p = &probes[i];
    p->active = registered(p->fname);
    if (!p->active) {
      /* Every function README.md documents is always registered: a missing
      ** one is a failure (reported below), not a reason to skip. */
      tap_diag("%s is not registered: its probes cannot run", p->fname);
      unregistered++;
      continue;
    }
    if (p->kind == 2) have_cuckoo = 1;
    char *sql = subst(p->sql, "?1", "");
    p->direct = must_prep(db, sql);
    free(sql);
    sql = subst(p->sql, "t.f", "t, ");
    p->table = must_prep(db, sql);
    free(sql);
    char *body = subst(p->sql, "NEW.f", "");
    size_t n = strlen(body) + 256;
    char *ddl = malloc(n);
    if (ddl == NULL) die("malloc");
    snprintf(ddl, n,
             "CREATE TABLE src%d(f);"
             "CREATE TRIGGER trg%d AFTER INSERT ON src%d BEGIN "
             "INSERT INTO sink(x) %s; DELETE FROM src%d; END;",
             i, i, i, body, i);
    must_exec(db, ddl);
    snprintf(ddl, n, "INSERT INTO src%d(f) VALUES(?1)", i);
    p->trigger = must_prep(db, ddl);
    free(ddl);
    free(body);
  }
  tap_ok(unregistered == 0 && have_cuckoo,
         "every probed function is registered (%d missing)", unregistered);
}

static void finalize_probes(void) {
  for (int i = 0; i < NPROBES; i++) {
    sqlite3_finalize(probes[i].direct);
    sqlite3_finalize(probes[i].table);
    sqlite3_finalize(probes[i].trigger);
  }
  sqlite3_finalize(st_t_clear);
  sqlite3_finalize(st_t_insert);
  sqlite3_finalize(st_sink_read);
  sqlite3_finalize(st_sink_clear);
}

/* ------------------------------------------------------------------ */
/* Inputs and outcomes                                                  */

typedef struct input {
  char name[256];
  int type; /* SQLITE_BLOB, SQLITE_TEXT, SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_NULL */
  blob b;   /* BLOB or TEXT bytes */
  sqlite3_int64 i;
  double d;
  int zeroblob;     /* bind with sqlite3_bind_zeroblob (b.n zero bytes) */
  int allow_toobig; /* a writer may answer SQLITE_TOOBIG */
} input;

static unsigned char *bound_buffer; /* the exact copy bound to a statement */

static void bind_input(sqlite3_stmt *st, const input *in, int misaligned) {
  int rc;
  switch (in->type) {
    case SQLITE_BLOB:
      if (in->zeroblob) {
        rc = sqlite3_bind_zeroblob64(st, 1, in->b.n);
        break;
      }
      /* Exactly sized: the last byte of the blob is the last byte of the
      ** allocation, so reading past it is a heap overflow under ASan. */
      {
        size_t size = in->b.n + (size_t)misaligned;
        bound_buffer = malloc(size ? size : 1);
        if (bound_buffer == NULL) die("malloc");
        unsigned char *p = bound_buffer + misaligned;
        if (in->b.n) memcpy(p, in->b.p, in->b.n);
        rc = sqlite3_bind_blob64(st, 1, p, in->b.n, SQLITE_STATIC);
      }
      break;
    case SQLITE_TEXT:
      bound_buffer = malloc(in->b.n ? in->b.n : 1);
      if (bound_buffer == NULL) die("malloc");
      if (in->b.n) memcpy(bound_buffer, in->b.p, in->b.n);
      rc = sqlite3_bind_text64(st, 1, (const char *)bound_buffer, in->b.n,
                               SQLITE_STATIC, SQLITE_UTF8);
      break;
    case SQLITE_INTEGER: rc = sqlite3_bind_int64(st, 1, in->i); break;
    case SQLITE_FLOAT: rc = sqlite3_bind_double(st, 1, in->d); break;
    default: rc = sqlite3_bind_null(st, 1); break;
  }
  if (rc != SQLITE_OK) die("bind");
}

static void unbind(sqlite3_stmt *st) {
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  free(bound_buffer);
  bound_buffer = NULL;
}

typedef struct outcome {
  int rc; /* SQLITE_ROW, SQLITE_DONE (no row) or the error code */
  int type;
  sqlite3_int64 i;
  blob b;
  char msg[200];
} outcome;

static void capture(sqlite3_stmt *st, int rc, outcome *o) {
  memset(o, 0, sizeof *o);
  o->rc = rc;
  if (rc == SQLITE_ROW) {
    o->type = sqlite3_column_type(st, 0);
    o->i = sqlite3_column_int64(st, 0);
    if (o->type == SQLITE_BLOB)
      o->b = blob_dup(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0));
  } else if (rc != SQLITE_DONE) {
    snprintf(o->msg, sizeof o->msg, "%s", sqlite3_errmsg(db));
  }
}

static void run_probe(probe *p, int way, const input *in, outcome *o) {
  sqlite3_stmt *st;
  switch (way) {
    case W_DIRECT:
    case W_MISALIGNED:
      st = p->direct;
      bind_input(st, in, way == W_MISALIGNED);
      capture(st, sqlite3_step(st), o);
      unbind(st);
      break;
    case W_TABLE:
      sqlite3_step(st_t_clear);
      sqlite3_reset(st_t_clear);
      bind_input(st_t_insert, in, 0);
      if (sqlite3_step(st_t_insert) != SQLITE_DONE) die("insert into t");
      unbind(st_t_insert);
      capture(p->table, sqlite3_step(p->table), o);
      sqlite3_reset(p->table);
      break;
    default: {
      sqlite3_step(st_sink_clear);
      sqlite3_reset(st_sink_clear);
      bind_input(p->trigger, in, 0);
      int rc = sqlite3_step(p->trigger);
      if (rc != SQLITE_DONE) {
        capture(p->trigger, rc, o);
      } else {
        capture(st_sink_read, sqlite3_step(st_sink_read), o);
        sqlite3_reset(st_sink_read);
      }
      unbind(p->trigger);
      break;
    }
  }
}

static int ok(const outcome *o) { return o->rc == SQLITE_ROW || o->rc == SQLITE_DONE; }

static int named(const char *msg, const char *fname) {
  if (fname == NULL) return 0;
  size_t n = strlen(fname);
  return strncmp(msg, fname, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ';
}

/* ------------------------------------------------------------------ */
/* Verdicts                                                             */

enum { E_REJECT, E_ACCEPT, E_EITHER, E_NULL };

typedef struct group {
  const char *name;
  int cases;
  int failed[NWAYS];
  int ran[NWAYS];
} group;

static void fail_case(group *g, int way, const input *in, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fail_case(group *g, int way, const input *in, const char *fmt, ...) {
  if (g->failed[way]++ >= 3) return; /* the first few are enough */
  char detail[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  tap_diag("  %s, %s, input %s: %s", g->name, way_name[way], in->name, detail);
}

/* Checks an accepted call's answer. */
static const char *check_answer(const probe *p, const input *in, const outcome *o) {
  if (in->type == SQLITE_NULL)
    return o->rc == SQLITE_DONE || o->type == SQLITE_NULL ? NULL
                                                          : "non-NULL answer for NULL";
  if (o->rc == SQLITE_DONE) return "no row";
  switch (p->result) {
    case R_BIT:
      return o->type == SQLITE_INTEGER && (o->i == 0 || o->i == 1) ? NULL
                                                                   : "not 0 or 1";
    case R_BYTES:
      return o->type == SQLITE_INTEGER && (size_t)o->i == in->b.n
                 ? NULL : "bytes is not the blob's length";
    case R_BLOOM_BLOB:
      if (o->type != SQLITE_BLOB || o->b.n != in->b.n) return "not a blob of the input's size";
      return spec_bloom_valid(o->b.p, o->b.n) ? NULL : "wrote a blob FORMAT.md rejects";
    case R_CUCKOO_BLOB:
      if (o->type != SQLITE_BLOB || o->b.n != in->b.n) return "not a blob of the input's size";
      return spec_cuckoo_valid(o->b.p, o->b.n) ? NULL : "wrote a blob FORMAT.md rejects";
    default:
      return NULL;
  }
}

static void run_case(group *g, const input *in, int expect, unsigned ways) {
  g->cases++;
  const int is_blob = in->type == SQLITE_BLOB && !in->zeroblob;
  const int bloom_valid = is_blob && spec_bloom_valid(in->b.p, in->b.n);
  const int cuckoo_valid = is_blob && spec_cuckoo_valid(in->b.p, in->b.n);
  for (int w = 0; w < NWAYS; w++) {
    if (!(ways & (1u << w))) continue;
    if (in->zeroblob && w == W_MISALIGNED) continue;
    g->ran[w]++;
    if (expect == E_REJECT && (bloom_valid || cuckoo_valid)) {
      fail_case(g, w, in, "the test is wrong: FORMAT.md accepts this input");
      continue;
    }
    if (expect == E_ACCEPT && !(bloom_valid || cuckoo_valid)) {
      fail_case(g, w, in, "the test is wrong: FORMAT.md rejects this input");
      continue;
    }
    for (int i = 0; i < NPROBES; i++) {
      const probe *p = &probes[i];
      if (!p->active) continue;
      outcome o;
      run_probe(&probes[i], w, in, &o);
      /* What FORMAT.md says this reader must do with the input. */
      const int want = p->kind == 1   ? bloom_valid
                       : p->kind == 2 ? cuckoo_valid
                                      : bloom_valid || cuckoo_valid;
      const int toobig = in->allow_toobig && o.rc == SQLITE_TOOBIG;
      const char *problem = NULL;
      if (!ok(&o)) {
        if (!(named(o.msg, p->fname) || (p->alt && named(o.msg, p->alt))))
          problem = "error does not start with the function's name";
        else if (o.rc != SQLITE_ERROR && !toobig)
          problem = "unexpected error code";
        else if (expect == E_NULL)
          problem = "error on NULL";
        else if (want && !p->may_fail && !toobig)
          problem = "rejected a blob FORMAT.md accepts";
      } else if ((problem = check_answer(p, in, &o)) == NULL && expect != E_NULL &&
                 !want) {
        problem = "accepted a blob FORMAT.md rejects";
      }
      if (problem)
        fail_case(g, w, in, "%s: %s (rc %d: %s)", p->sql, problem, o.rc, o.msg);
      free(o.b.p);
    }
  }
}

static void report(group *g, const char *what) {
  int nprobes = 0, cases = 0;
  for (int i = 0; i < NPROBES; i++) nprobes += probes[i].active;
  for (int w = 0; w < NWAYS; w++) cases += g->ran[w];
  if (cases == 0 || nprobes == 0) {
    tap_ok(0, "%s: %d cases ran (%d calls each): the group tested nothing",
           g->name, cases, nprobes);
    return;
  }
  for (int w = 0; w < NWAYS; w++) {
    if (!g->ran[w]) continue;
    tap_ok(g->failed[w] == 0, "%s (%d inputs x %d calls, %s): %s", g->name,
           g->ran[w], nprobes, way_name[w], what);
  }
}

#define REJECTED "each call fails with an error naming its function"
#define EITHER "each call fails naming its function or works, as FORMAT.md says"
#define ACCEPTED "every reader accepts and works"

static input blob_input(const char *name, const blob *b) {
  input in;
  memset(&in, 0, sizeof in);
  snprintf(in.name, sizeof in.name, "%s", name);
  in.type = SQLITE_BLOB;
  in.b = *b;
  return in;
}

/* ------------------------------------------------------------------ */
/* Every blob the extension writes parses                              */

/* x = 1..?2 as s(x). */
#define SERIES_TO_P2 SERIES("1", "?2")

/* bloom_build(x, n, p) over x = 1..rows, as a blob. */
static blob build(sqlite3_int64 rows, sqlite3_int64 n, double p) {
  sqlite3_stmt *st = must_prep(db, SERIES_TO_P2 "SELECT bloom_build(x, ?1, ?3) FROM s");
  sqlite3_bind_int64(st, 1, n);
  sqlite3_bind_int64(st, 2, rows);
  sqlite3_bind_double(st, 3, p);
  blob b = {NULL, 0};
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_BLOB)
    b = blob_dup(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0));
  else
    tap_diag("bloom_build(x, %lld, %g) over %lld rows: %s", n, p, rows,
             sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return b;
}

/* How many of x = 1..rows test anything but 1 (false negatives). */
static sqlite3_int64 missing(const blob *f, sqlite3_int64 rows, const char *test) {
  char sql[256];
  snprintf(sql, sizeof sql, SERIES_TO_P2 "SELECT count(*) FROM s WHERE %s(?1, x) IS NOT 1", test);
  sqlite3_stmt *st = must_prep(db, sql);
  blob exact = blob_dup(f->p, f->n);
  sqlite3_bind_blob64(st, 1, exact.p, exact.n, SQLITE_STATIC);
  sqlite3_bind_int64(st, 2, rows);
  sqlite3_int64 v = -1;
  if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  free(exact.p);
  return v;
}

static void part1_writers(void) {
  group g = {"blobs bloom_build writes", 0, {0}, {0}};
  static const sqlite3_int64 ns[] = {1, 2, 3, 10, 100, 1000, 10000, 100000};
  static const double ps[] = {0.9999999999999999, 0.5, 0.1, 0.01, 1e-3, 1e-6, 1e-12};
  int spec_bad = 0, false_neg = 0, builds = 0;
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
    for (size_t c = 0; c < sizeof ps / sizeof ps[0]; c++) {
      if (ns[a] == 100000 && ps[c] < 1e-3) continue; /* keep it quick */
      sqlite3_int64 rows = ns[a] < 300 ? ns[a] : 300;
      blob b = build(rows, ns[a], ps[c]);
      builds++;
      if (b.p == NULL || !spec_bloom_valid(b.p, b.n)) {
        spec_bad++;
        free(b.p);
        continue;
      }
      if (missing(&b, rows, "bloom_test") != 0) false_neg++;
      char name[96];
      snprintf(name, sizeof name, "bloom_build(x, %lld, %.17g)", ns[a], ps[c]);
      input in = blob_input(name, &b);
      run_case(&g, &in, E_ACCEPT, 1u << W_DIRECT);
      free(b.p);
    }
  }
  tap_ok(spec_bad == 0, "writers: %d bloom_build results over n x p are valid by FORMAT.md", builds);
  tap_ok(false_neg == 0, "writers: no bloom_build result has a false negative");
  report(&g, ACCEPTED ", bloom_info bytes = length");

  group w = {"blobs the other writers write", 0, {0}, {0}};
  static const char *const writers[] = {
      SERIES_TO_P2 "SELECT bloom_build(x) FROM s",
      SERIES_TO_P2 "SELECT bloom_build(x, NULL, 0.001) FROM s",
      SERIES_TO_P2 "SELECT bloom_build(NULL, 10, 0.01) FROM s",
      SERIES_TO_P2 "SELECT bloom_build(CASE WHEN x % 2 THEN x END) FROM s",
      "SELECT bloom_empty(1)",
      "SELECT bloom_empty(10, 0.9999999999999999)",
      "SELECT bloom_empty(5000, 1e-12)",
      "SELECT bloom_add(bloom_empty(10), 1, 'two', x'03', 4.5, NULL)",
      SERIES_TO_P2 "SELECT bloom_add(bloom_build(x, 100, 0.01), 'more') FROM s",
      SERIES_TO_P2 "SELECT bloom_union(bloom_build(x, 50, 0.01), bloom_build(-x, 50, 0.01)) FROM s",
      SERIES_TO_P2 "SELECT bloom_intersect(bloom_build(x, 50, 0.01), bloom_build(x % 5, 50, 0.01)) FROM s",
      SERIES_TO_P2 ", f(g, b) AS (SELECT x % 3, bloom_build(x, 64, 0.02) FROM s GROUP BY x % 3) "
             "SELECT bloom_merge(b) FROM f",
      "SELECT bloom_merge(f) FROM (SELECT bloom_empty(7) AS f UNION ALL SELECT NULL)",
  };
  int n_ok = 0, n_all = 0;
  for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++) {
    sqlite3_stmt *st = must_prep(db, writers[i]);
    sqlite3_bind_int64(st, 2, 37);
    blob b = {NULL, 0};
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_BLOB)
      b = blob_dup(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0));
    sqlite3_finalize(st);
    n_all++;
    if (b.p == NULL || !spec_bloom_valid(b.p, b.n)) {
      tap_diag("  not a valid filter: %s", writers[i]);
      free(b.p);
      continue;
    }
    n_ok++;
    input in = blob_input(writers[i] + (strncmp(writers[i], "WITH", 4) ? 0 : strlen(SERIES_TO_P2)), &b);
    run_case(&w, &in, E_ACCEPT, 1u << W_DIRECT);
    free(b.p);
  }
  tap_ok(n_ok == n_all, "writers: bloom_build sized from the data, bloom_empty, bloom_add, "
                        "bloom_union, bloom_intersect, bloom_merge: %d blobs valid by FORMAT.md",
         n_all);
  report(&w, ACCEPTED ", bloom_info bytes = length");

  /* bloom_key writes keys, never filters. */
  group k = {"bloom_key results", 0, {0}, {0}};
  blob valid = build(3, 10, 0.01);
  static const char *const keys[] = {
      "SELECT bloom_key(1)", "SELECT bloom_key('BLMF', 1)",
      "SELECT bloom_key(?1)", "SELECT bloom_key(?1, ?1)", "SELECT bloom_key(zeroblob(64))",
  };
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    blob b = query_blob(keys[i], &valid);
    if (b.p == NULL) continue;
    input in = blob_input(keys[i], &b);
    run_case(&k, &in, E_REJECT, 1u << W_DIRECT);
    free(b.p);
  }
  free(valid.p);
  report(&k, "bloom_key output is not a filter: " REJECTED);

  if (!have_cuckoo) {
    tap_ok(0, "writers: the cuckoo functions are registered (cuckoo writers "
              "cannot run)");
    return;
  }
  group c = {"blobs the cuckoo writers write", 0, {0}, {0}};
  static const char *const cwriters[] = {
      SERIES_TO_P2 "SELECT cuckoo_build(x, 37, 0.01) FROM s",
      SERIES_TO_P2 "SELECT cuckoo_build(x, 64, 0.2) FROM s",
      SERIES_TO_P2 "SELECT cuckoo_build(x, 1000, 1e-6) FROM s",
      SERIES_TO_P2 "SELECT cuckoo_build(x, 100, 0.9999999999999999) FROM s",
      SERIES_TO_P2 "SELECT cuckoo_build(x, NULL) FROM s",
      SERIES_TO_P2 "SELECT cuckoo_build(x % 4, 1) FROM s",
      SERIES_TO_P2 "SELECT cuckoo_build(NULL, 10, 0.01) FROM s",
      SERIES_TO_P2 "SELECT cuckoo_add(cuckoo_build(x, 100, 0.01), 'new') FROM s",
      SERIES_TO_P2 "SELECT cuckoo_delete(cuckoo_build(x, 100, 0.01), 3) FROM s",
      SERIES_TO_P2 "SELECT cuckoo_delete(cuckoo_build(x, 100, 0.01), 'absent') FROM s",
  };
  int c_all = 0, c_ok = 0, c_fn = 0;
  for (size_t i = 0; i < sizeof cwriters / sizeof cwriters[0]; i++) {
    sqlite3_stmt *st = must_prep(db, cwriters[i]);
    sqlite3_bind_int64(st, 2, 37);
    blob b = {NULL, 0};
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_BLOB)
      b = blob_dup(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0));
    else
      tap_diag("  %s: %s", cwriters[i], sqlite3_errmsg(db));
    sqlite3_finalize(st);
    c_all++;
    if (b.p == NULL) continue;
    c_ok += query_int("SELECT bytes FROM cuckoo_info(?1)", &b, -1) == (sqlite3_int64)b.n;
    if (strncmp(cwriters[i] + strlen(SERIES_TO_P2), "SELECT cuckoo_build(x, ", 23) == 0 &&
        missing(&b, 37, "cuckoo_test") != 0) {
      tap_diag("  false negative in %s", cwriters[i]);
      c_fn++;
    }
    input in = blob_input(cwriters[i] + strlen(SERIES_TO_P2), &b);
    run_case(&c, &in, E_ACCEPT, 1u << W_DIRECT);
    free(b.p);
  }
  tap_ok(c_ok == c_all, "writers: %d blobs of cuckoo_build/add/delete: cuckoo_info accepts, "
                        "bytes = length", c_all);
  tap_ok(c_fn == 0, "writers: no cuckoo_build result has a false negative");
  report(&c, ACCEPTED ", cuckoo_info bytes = length");
}

/* ------------------------------------------------------------------ */
/* The catalogue                                                       */

static blob patched(const blob *b, size_t off, const void *bytes, size_t n) {
  blob c = blob_dup(b->p, b->n);
  memcpy(c.p + off, bytes, n);
  return c;
}

static blob with_u64(const blob *b, size_t off, uint64_t v) {
  unsigned char le[8];
  put_le64(le, v);
  return patched(b, off, le, 8);
}

static void catalogue(const blob *bloom1, const blob *bloom2, const blob *cuckoo) {
  char name[96];

  { /* wrong storage class, NULL */
    group g = {"wrong storage class", 0, {0}, {0}};
    input in;
    memset(&in, 0, sizeof in);
    snprintf(in.name, sizeof in.name, "TEXT (a valid filter's bytes)");
    in.type = SQLITE_TEXT;
    in.b = *bloom1;
    run_case(&g, &in, E_REJECT, ALL_WAYS);
    snprintf(in.name, sizeof in.name, "TEXT 'BLMF'");
    blob t = {(unsigned char *)"BLMF", 4};
    in.b = t;
    run_case(&g, &in, E_REJECT, ALL_WAYS);
    memset(&in, 0, sizeof in);
    snprintf(in.name, sizeof in.name, "INTEGER 42");
    in.type = SQLITE_INTEGER;
    in.i = 42;
    run_case(&g, &in, E_REJECT, ALL_WAYS);
    snprintf(in.name, sizeof in.name, "REAL 1.5");
    in.type = SQLITE_FLOAT;
    in.d = 1.5;
    run_case(&g, &in, E_REJECT, ALL_WAYS);
    report(&g, REJECTED);

    group n = {"NULL filter", 0, {0}, {0}};
    memset(&in, 0, sizeof in);
    snprintf(in.name, sizeof in.name, "NULL");
    in.type = SQLITE_NULL;
    run_case(&n, &in, E_NULL, ALL_WAYS);
    report(&n, "every call answers NULL (or no row), no error");
  }

  { /* x'', zeroblob(64), zeroblob(1000) */
    group g = {"empty and all-zero blobs", 0, {0}, {0}};
    static const size_t sizes[] = {0, 64, 1000};
    for (size_t i = 0; i < 3; i++) {
      blob z = {calloc(sizes[i] ? sizes[i] : 1, 1), sizes[i]};
      snprintf(name, sizeof name, "x'' or %zu zero bytes", sizes[i]);
      input in = blob_input(name, &z);
      run_case(&g, &in, E_REJECT, ALL_WAYS);
      snprintf(in.name, sizeof in.name, "zeroblob(%zu)", sizes[i]);
      in.zeroblob = 1;
      run_case(&g, &in, E_REJECT, ALL_WAYS);
      free(z.p);
    }
    report(&g, REJECTED);
  }

  { /* every truncated prefix */
    group g = {"every truncated prefix of a valid filter", 0, {0}, {0}};
    const blob *src[3] = {bloom1, bloom2, cuckoo};
    for (int s = 0; s < 3; s++) {
      if (src[s] == NULL || src[s]->p == NULL) continue;
      for (size_t n = 0; n < src[s]->n; n++) {
        blob b = blob_dup(src[s]->p, n);
        snprintf(name, sizeof name, "%s filter cut to %zu of %zu bytes",
                 s == 2 ? "cuckoo" : "bloom", n, src[s]->n);
        input in = blob_input(name, &b);
        /* The table and trigger ways on every 8th, to keep it quick. */
        run_case(&g, &in, E_REJECT,
                 n % 8 == 0 || n + 1 == src[s]->n ? ALL_WAYS
                                                  : (1u << W_DIRECT) | (1u << W_MISALIGNED));
        free(b.p);
      }
    }
    report(&g, REJECTED);
  }

  { /* trailing bytes */
    group g = {"trailing bytes after a valid filter", 0, {0}, {0}};
    static const size_t extra[] = {1, 7, 63, 64, 65};
    const blob *src[3] = {bloom1, bloom2, cuckoo};
    for (int s = 0; s < 3; s++) {
      if (src[s] == NULL || src[s]->p == NULL) continue;
      for (size_t i = 0; i < 5; i++) {
        for (int fill = 0; fill < 2; fill++) {
          blob b;
          b.n = src[s]->n + extra[i];
          b.p = malloc(b.n);
          if (b.p == NULL) die("malloc");
          memcpy(b.p, src[s]->p, src[s]->n);
          memset(b.p + src[s]->n, fill ? 0xff : 0, extra[i]);
          snprintf(name, sizeof name, "%s + %zu bytes of 0x%02x",
                   s == 2 ? "cuckoo" : "bloom", extra[i], fill ? 0xff : 0);
          input in = blob_input(name, &b);
          run_case(&g, &in, E_REJECT, ALL_WAYS);
          free(b.p);
        }
      }
    }
    report(&g, REJECTED);
  }

  { /* magic, version, kind, hash, flags, reserved */
    group g = {"magic, version, kind, hash, flags, reserved bytes altered", 0, {0}, {0}};
    for (size_t off = 0; off < 4; off++) {
      unsigned char vals[3] = {0x00, 0xff, (unsigned char)(bloom1->p[off] ^ 0x20)};
      for (int v = 0; v < 3; v++) {
        blob b = patched(bloom1, off, &vals[v], 1);
        snprintf(name, sizeof name, "magic byte %zu = 0x%02x", off, vals[v]);
        input in = blob_input(name, &b);
        run_case(&g, &in, E_REJECT, ALL_WAYS);
        free(b.p);
      }
    }
    static const struct { size_t off; unsigned char v; const char *what; } fields[] = {
        {4, 0, "version 0"}, {4, 2, "version 2"}, {4, 255, "version 255"},
        {7, 1, "flags 0x01"}, {7, 0x80, "flags 0x80"}, {7, 0xff, "flags 0xff"},
        {5, 0, "kind 0"}, {5, 3, "kind 3"}, {5, 255, "kind 255"},
        {6, 0, "hash 0"}, {6, 2, "hash 2"}, {6, 255, "hash 255"},
    };
    const blob *src[2] = {bloom1, cuckoo};
    for (int s = 0; s < 2; s++) {
      if (src[s] == NULL || src[s]->p == NULL) continue;
      for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        blob b = patched(src[s], fields[i].off, &fields[i].v, 1);
        snprintf(name, sizeof name, "%s with %s", s ? "cuckoo" : "bloom", fields[i].what);
        input in = blob_input(name, &b);
        run_case(&g, &in, E_REJECT, ALL_WAYS);
        free(b.p);
      }
      for (size_t off = SPEC_OFF_RESERVED; off < SPEC_HEADER; off++) {
        unsigned char one = 1;
        blob b = patched(src[s], off, &one, 1);
        snprintf(name, sizeof name, "%s with reserved byte %zu = 1", s ? "cuckoo" : "bloom", off);
        input in = blob_input(name, &b);
        run_case(&g, &in, E_REJECT, ALL_WAYS);
        free(b.p);
      }
    }
    /* A Bloom filter relabelled as kind 2: the cuckoo readers decide. */
    unsigned char two = 2;
    blob b = patched(bloom1, 5, &two, 1);
    input in = blob_input("bloom with kind 2 (cuckoo)", &b);
    run_case(&g, &in, E_EITHER, ALL_WAYS);
    free(b.p);
    if (cuckoo && cuckoo->p) {
      unsigned char one = 1;
      b = patched(cuckoo, 5, &one, 1);
      in = blob_input("cuckoo with kind 1 (bloom)", &b);
      run_case(&g, &in, E_EITHER, ALL_WAYS);
      free(b.p);
    }
    report(&g, REJECTED);
  }

  { /* every single-bit flip of the header */
    group g = {"every single-bit flip of the 64-byte header", 0, {0}, {0}};
    int accepted = 0;
    const blob *src[2] = {bloom1, cuckoo};
    for (int s = 0; s < 2; s++) {
      if (src[s] == NULL || src[s]->p == NULL) continue;
      for (size_t bit = 0; bit < 8 * SPEC_HEADER; bit++) {
        blob b = blob_dup(src[s]->p, src[s]->n);
        b.p[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        snprintf(name, sizeof name, "%s, header bit %zu flipped", s ? "cuckoo" : "bloom", bit);
        input in = blob_input(name, &b);
        accepted += s == 0 && spec_bloom_valid(b.p, b.n);
        /* Table and trigger ways on the flips of every 4th byte. */
        run_case(&g, &in, E_EITHER,
                 (bit / 8) % 4 == 0 ? ALL_WAYS : (1u << W_DIRECT) | (1u << W_MISALIGNED));
        free(b.p);
      }
    }
    report(&g, EITHER);
    tap_diag("  %d of 512 flips of a Bloom header stay valid (seed, capacity, "
             "target_fpr, inserted bits)", accepted);
  }

  { /* bit counts and hash counts */
    group g = {"bit counts and hash counts at the edges", 0, {0}, {0}};
    static const uint64_t v[] = {0, 1, 63, 64, 65, 511, 512, 513,
                                 1ull << 31, 1ull << 32, 1ull << 63,
                                 UINT64_MAX - 511, UINT64_MAX};
    static const size_t bodies[] = {0, 64, 128};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
      for (size_t j = 0; j < 3; j++) {
        /* A blob of 64 + bodies[j] bytes whose header says bits = v[i]:
        ** a check computing (bits + 7) / 8 would pass bits = 2^64 - 1 with
        ** no body at all. */
        blob b;
        b.n = SPEC_HEADER + bodies[j];
        b.p = calloc(b.n, 1);
        if (b.p == NULL) die("malloc");
        memcpy(b.p, bloom1->p, SPEC_HEADER);
        put_le64(b.p + SPEC_OFF_BITS, v[i]);
        snprintf(name, sizeof name, "bits = %llu, %zu body bytes",
                 (unsigned long long)v[i], bodies[j]);
        input in = blob_input(name, &b);
        run_case(&g, &in, E_EITHER, ALL_WAYS);
        free(b.p);
      }
      /* hashes is a u32 field: values above 2^32 - 1 are stored as their
      ** low 32 bits (2^32 -> 0, 2^63 -> 0, 2^64 - 512 -> 0xfffffe00). */
      blob b = blob_dup(bloom1->p, bloom1->n);
      put_le32(b.p + SPEC_OFF_HASHES, (uint32_t)v[i]);
      snprintf(name, sizeof name, "hashes = %llu (u32 %u)", (unsigned long long)v[i],
               (unsigned)(uint32_t)v[i]);
      input in = blob_input(name, &b);
      run_case(&g, &in, E_EITHER, ALL_WAYS);
      free(b.p);
    }
    report(&g, EITHER " (only bits = 512 with 64 body bytes, hashes 1..64)");
  }

  { /* capacity and target_fpr */
    group g = {"capacity and target_fpr fields", 0, {0}, {0}};
    static const uint64_t caps[] = {0, 1, (uint64_t)INT64_MAX, 1ull << 63, UINT64_MAX};
    for (size_t i = 0; i < 5; i++) {
      blob b = with_u64(bloom1, SPEC_OFF_CAPACITY, caps[i]);
      snprintf(name, sizeof name, "capacity = %llu", (unsigned long long)caps[i]);
      input in = blob_input(name, &b);
      run_case(&g, &in, E_EITHER, ALL_WAYS);
      free(b.p);
    }
    static const double fprs[] = {0.0, -0.0, 5e-324, 0.5, 0.9999999999999999, 1.0,
                                  1.5, -1.0, INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < sizeof fprs / sizeof fprs[0]; i++) {
      blob b = blob_dup(bloom1->p, bloom1->n);
      put_le_double(b.p + SPEC_OFF_FPR, fprs[i]);
      snprintf(name, sizeof name, "target_fpr = %g", fprs[i]);
      input in = blob_input(name, &b);
      run_case(&g, &in, E_EITHER, ALL_WAYS);
      free(b.p);
    }
    report(&g, EITHER);
  }

  { /* valid filters: every reader works */
    group g = {"valid filters", 0, {0}, {0}};
    input in = blob_input("bloom, 1 block", bloom1);
    run_case(&g, &in, E_ACCEPT, ALL_WAYS);
    in = blob_input("bloom, several blocks", bloom2);
    run_case(&g, &in, E_ACCEPT, ALL_WAYS);
    if (cuckoo && cuckoo->p) {
      in = blob_input("cuckoo", cuckoo);
      run_case(&g, &in, E_ACCEPT, ALL_WAYS);
    }
    report(&g, ACCEPTED);
  }
}

/* ------------------------------------------------------------------ */
/* bloom_ref correlated over rows: each row re-filters the cursor        */

static int insert_rows(const char *table, const blob *const *src, size_t n) {
  char sql[128];
  snprintf(sql, sizeof sql, "INSERT INTO %s(f) VALUES(?1)", table);
  sqlite3_stmt *ins = must_prep(db, sql);
  int count = 0;
  for (size_t i = 0; i < n; i++) {
    if (src[i] == NULL || src[i]->p == NULL) continue;
    sqlite3_bind_blob64(ins, 1, src[i]->p, src[i]->n, SQLITE_STATIC);
    if (sqlite3_step(ins) != SQLITE_DONE) die("insert");
    sqlite3_reset(ins);
    count++;
  }
  sqlite3_finalize(ins);
  return count;
}

static void correlated_ref(const blob *bloom1, const blob *bloom2, const blob *cuckoo) {
  must_exec(db, "CREATE TABLE mixed(id INTEGER PRIMARY KEY, f);"
                "CREATE TABLE blooms(id INTEGER PRIMARY KEY, f);"
                "CREATE TABLE broken(id INTEGER PRIMARY KEY, f);");
  const blob *mixed[] = {bloom2, bloom1, cuckoo, bloom2, cuckoo, bloom1};
  const blob *blooms[] = {bloom2, bloom1, bloom1, bloom2};
  int n = insert_rows("mixed", mixed, sizeof mixed / sizeof mixed[0]);
  int nb = insert_rows("blooms", blooms, sizeof blooms / sizeof blooms[0]);
  TAP_EQ_U64(query_int("SELECT count(*) FROM mixed, bloom_ref(mixed.f) AS r "
                       "WHERE r.filter IS NULL", NULL, -1), n,
             "bloom_ref correlated over %d filters of other sizes and kinds: one "
             "row each (the reference reads as NULL to the rest of SQL)", n);
  TAP_EQ_U64(query_int("SELECT count(*) FROM blooms, bloom_ref(blooms.f) AS r, "
                       "bloom_info(blooms.f) AS a, bloom_info(r.filter) AS b "
                       "WHERE a.bytes = b.bytes AND a.bits_set = b.bits_set "
                       "AND bloom_test(r.filter, 3) = bloom_test(blooms.f, 3) "
                       "AND bloom_add(r.filter, 'z') = bloom_add(blooms.f, 'z') "
                       "AND bloom_count(r.filter) IS bloom_count(blooms.f)",
                       NULL, -1), nb,
             "bloom_ref correlated over %d Bloom filters of two sizes: each reader "
             "answers through the reference as on the column", nb);
  /* A truncated filter between good ones stops the statement with
  ** bloom_ref's error. */
  blob cut = blob_dup(bloom1->p, bloom1->n - 1);
  const blob *broken[] = {bloom2, &cut, bloom1};
  insert_rows("broken", broken, 3);
  sqlite3_stmt *st = must_prep(db, "SELECT bloom_test(r.filter, 1) FROM broken, "
                             "bloom_ref(broken.f) AS r");
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
  }
  tap_ok(rc == SQLITE_ERROR && named(sqlite3_errmsg(db), "bloom_ref"),
         "bloom_ref correlated: a truncated filter on the second row is an error "
         "naming bloom_ref (%s)", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  free(cut.p);
}

/* ------------------------------------------------------------------ */
/* Inconsistent counters, all bits set                                  */

static void counters(void) {
  blob full = build(1000, 1000, 0.01);
  if (full.p == NULL) {
    tap_ok(0, "counters: bloom_build of a full filter works");
    return;
  }
  const sqlite3_int64 count0 = query_int("SELECT bloom_count(?1)", &full, -1);
  static const uint64_t vals[] = {0, 1, (uint64_t)INT64_MAX + 1, UINT64_MAX};
  for (size_t i = 0; i < 4; i++) {
    blob b = with_u64(&full, SPEC_OFF_INSERTED, vals[i]);
    const unsigned long long v = (unsigned long long)vals[i];
    tap_ok(missing(&b, 1000, "bloom_test") == 0,
           "inserted = %llu on a full filter: no false negative", v);
    sqlite3_int64 want = vals[i] > (uint64_t)INT64_MAX ? INT64_MAX : (sqlite3_int64)vals[i];
    TAP_EQ_U64(query_int("SELECT inserted FROM bloom_info(?1)", &b, -1), want,
               "inserted = %llu: bloom_info reports %lld", v, want);
    TAP_EQ_U64(query_int("SELECT bloom_count(?1)", &b, -2), count0,
               "inserted = %llu: bloom_count does not depend on it", v);
    blob a = query_blob("SELECT bloom_add(?1, 'one more')", &b);
    tap_ok(a.p && spec_bloom_valid(a.p, a.n) &&
               le64(a.p + SPEC_OFF_INSERTED) ==
                   (vals[i] == UINT64_MAX ? UINT64_MAX : vals[i] + 1),
           "inserted = %llu: bloom_add counts on, saturating at 2^64 - 1", v);
    free(a.p);
    a = query_blob("SELECT bloom_union(?1, ?1)", &b);
    uint64_t sum = vals[i] > UINT64_MAX - vals[i] ? UINT64_MAX : 2 * vals[i];
    tap_ok(a.p && le64(a.p + SPEC_OFF_INSERTED) == sum,
           "inserted = %llu: bloom_union adds the counters, saturating", v);
    free(a.p);
    free(b.p);
  }
  free(full.p);

  /* Every body bit set. */
  blob ones = build(10, 1000, 0.01);
  if (ones.p == NULL) {
    tap_ok(0, "counters: bloom_build of the all-ones base works");
    return;
  }
  memset(ones.p + SPEC_HEADER, 0xff, ones.n - SPEC_HEADER);
  const uint64_t bits = le64(ones.p + SPEC_OFF_BITS);
  sqlite3_stmt *st = must_prep(db,
      SERIES_TO_P2 "SELECT count(*) FROM s WHERE bloom_test(?1, 'x' || x) IS 1");
  blob exact = blob_dup(ones.p, ones.n);
  sqlite3_bind_blob64(st, 1, exact.p, exact.n, SQLITE_STATIC);
  sqlite3_bind_int64(st, 2, 500);
  TAP_EQ_U64(sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1, 500,
             "all body bits set: every probe answers 1");
  sqlite3_finalize(st);
  free(exact.p);
  tap_ok(query_int("SELECT bloom_count(?1) IS NULL", &ones, 0) == 1,
         "all body bits set: bloom_count is NULL (no estimate exists)");
  TAP_EQ_U64(query_int("SELECT bits_set FROM bloom_info(?1)", &ones, -1), bits,
             "all body bits set: bloom_info bits_set = bits");
  tap_ok(query_int("SELECT fill_ratio = 1.0 AND estimated_items IS NULL "
                   "AND estimated_fpr = 1.0 FROM bloom_info(?1)", &ones, 0) == 1,
         "all body bits set: fill_ratio 1, estimated_items NULL, estimated_fpr 1");
  free(ones.p);
}

/* ------------------------------------------------------------------ */
/* Bad n and p                                                          */

typedef struct param {
  const char *what;
  int type;
  sqlite3_int64 i;
  double d;
  const char *text;
  int n_ok; /* a valid n */
  int p_ok; /* a valid p */
} param;

static void bind_param(sqlite3_stmt *st, const param *p) {
  switch (p->type) {
    case SQLITE_INTEGER: sqlite3_bind_int64(st, 1, p->i); break;
    case SQLITE_FLOAT: sqlite3_bind_double(st, 1, p->d); break;
    default: sqlite3_bind_text(st, 1, p->text, -1, SQLITE_STATIC); break;
  }
}

typedef struct sizing {
  const char *fname;
  int is_p; /* ?1 is p (else n) */
  int null_ok; /* NULL (a NaN bound) is valid: sized from the data */
  int result;  /* 0: a filter blob, 1: bloom_plan's bytes */
  const char *sql;
} sizing;

static void bad_params(void) {
  const param params[] = {
      {"'1e30' (TEXT)", SQLITE_TEXT, 0, 0, "1e30", 0, 0},
      {"2.5", SQLITE_FLOAT, 0, 2.5, NULL, 0, 0},
      {"1e30", SQLITE_FLOAT, 0, 1e30, NULL, 0, 0},
      {"INT64_MIN", SQLITE_INTEGER, INT64_MIN, 0, NULL, 0, 0},
      {"0", SQLITE_INTEGER, 0, 0, NULL, 0, 0},
      {"0.0", SQLITE_FLOAT, 0, 0.0, NULL, 0, 0},
      {"-1", SQLITE_INTEGER, -1, 0, NULL, 0, 0},
      {"NaN (bound as NULL)", SQLITE_FLOAT, 0, NAN, NULL, 0, 0},
      {"+inf", SQLITE_FLOAT, 0, INFINITY, NULL, 0, 0},
      {"-inf", SQLITE_FLOAT, 0, -INFINITY, NULL, 0, 0},
      {"5e-324", SQLITE_FLOAT, 0, 5e-324, NULL, 0, 0},
      {"0.9999999999999999", SQLITE_FLOAT, 0, 0.9999999999999999, NULL, 0, 1},
      {"1", SQLITE_INTEGER, 1, 0, NULL, 1, 0},
      {"1.0", SQLITE_FLOAT, 0, 1.0, NULL, 1, 0},
  };
  sizing fns[] = {
      {"bloom_build", 0, 1, 0, "SELECT bloom_build(x, ?1, 0.01) FROM (SELECT 1 AS x UNION ALL SELECT 2)"},
      {"bloom_build", 0, 1, 0, "SELECT bloom_build(x, ?1) FROM (SELECT 1 AS x UNION ALL SELECT 2)"},
      {"bloom_build", 1, 0, 0, "SELECT bloom_build(x, 10, ?1) FROM (SELECT 1 AS x UNION ALL SELECT 2)"},
      {"bloom_empty", 0, 0, 0, "SELECT bloom_empty(?1, 0.01)"},
      {"bloom_empty", 0, 0, 0, "SELECT bloom_empty(?1)"},
      {"bloom_empty", 1, 0, 0, "SELECT bloom_empty(10, ?1)"},
      {"bloom_plan", 0, 0, 1, "SELECT bytes FROM bloom_plan(?1, 0.01)"},
      {"bloom_plan", 0, 0, 1, "SELECT bytes FROM bloom_plan(?1)"},
      {"bloom_plan", 1, 0, 1, "SELECT bytes FROM bloom_plan(10, ?1)"},
      {"cuckoo_build", 0, 1, 0, "SELECT cuckoo_build(x, ?1, 0.01) FROM (SELECT 1 AS x UNION ALL SELECT 2)"},
      {"cuckoo_build", 0, 1, 0, "SELECT cuckoo_build(x, ?1) FROM (SELECT 1 AS x UNION ALL SELECT 2)"},
      {"cuckoo_build", 1, 0, 0, "SELECT cuckoo_build(x, 10, ?1) FROM (SELECT 1 AS x UNION ALL SELECT 2)"},
  };
  for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
    if (!registered(fns[f].fname)) {
      tap_ok(0, "bad parameters: %s is registered", fns[f].fname);
      continue;
    }
    sqlite3_stmt *st = must_prep(db, fns[f].sql);
    int bad = 0, n = 0;
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
      const param *p = &params[i];
      int is_null = p->type == SQLITE_FLOAT && isnan(p->d);
      int want_ok = is_null ? fns[f].null_ok : fns[f].is_p ? p->p_ok : p->n_ok;
      bind_param(st, p);
      int rc = sqlite3_step(st);
      const char *msg = sqlite3_errmsg(db);
      const char *problem = NULL;
      if (rc == SQLITE_ROW) {
        if (!want_ok) problem = "accepted";
        else if (fns[f].result == 0) {
          const unsigned char *b = sqlite3_column_blob(st, 0);
          size_t len = (size_t)sqlite3_column_bytes(st, 0);
          if (sqlite3_column_type(st, 0) != SQLITE_BLOB) problem = "no blob";
          else if (fns[f].fname[0] == 'b' && !spec_bloom_valid(b, len)) problem = "invalid blob";
          else if (fns[f].fname[0] == 'b' && fns[f].is_p &&
                   (le64(b + SPEC_OFF_BITS) != 512 || le32(b + SPEC_OFF_HASHES) != 1))
            problem = "p = 0.9999999999999999 is not the tiny filter (512 bits, 1 hash)";
          else if (fns[f].fname[0] == 'b' && !fns[f].is_p && !is_null &&
                   le64(b + SPEC_OFF_CAPACITY) != 1)
            problem = "capacity is not 1";
          else if (fns[f].fname[0] == 'b' && is_null && le64(b + SPEC_OFF_CAPACITY) != 2)
            problem = "n NULL: not sized for the 2 distinct values";
        } else if (sqlite3_column_int64(st, 0) <= 0) {
          problem = "bytes not positive";
        }
      } else if (!named(msg, fns[f].fname)) {
        problem = "error does not name the function";
      } else if (want_ok) {
        problem = "rejected";
      } else if (rc != SQLITE_ERROR) {
        problem = "unexpected error code";
      }
      n++;
      if (problem) {
        bad++;
        tap_diag("  %s with %s = %s: %s (rc %d: %s)", fns[f].sql, fns[f].is_p ? "p" : "n",
                 p->what, problem, rc, rc == SQLITE_ROW ? "" : msg);
      }
      sqlite3_reset(st);
      sqlite3_clear_bindings(st);
    }
    sqlite3_finalize(st);
    tap_ok(bad == 0, "bad %s (%d values) for %s: an error naming %s, or the documented result",
           fns[f].is_p ? "p" : "n", n, fns[f].sql, fns[f].fname);
  }

  /* What a NaN becomes. */
  sqlite3_stmt *st = must_prep(db, "SELECT typeof(?1)");
  sqlite3_bind_double(st, 1, NAN);
  tap_ok(sqlite3_step(st) == SQLITE_ROW &&
             strcmp((const char *)sqlite3_column_text(st, 0), "null") == 0,
         "a NaN bound with sqlite3_bind_double arrives as NULL: bloom_build and "
         "cuckoo_build size from the data (n) or fail (p); bloom_empty and "
         "bloom_plan fail");
  sqlite3_finalize(st);

  /* bloom_plan for the largest n: the plan would be over 2^63 bits, which
  ** no INTEGER holds (it once came back negative): an error. */
  st = must_prep(db, "SELECT bits, bytes FROM bloom_plan(9223372036854775807, 0.5)");
  int rc = sqlite3_step(st);
  tap_ok(rc == SQLITE_ERROR && named(sqlite3_errmsg(db), "bloom_plan"),
         "bloom_plan(INT64_MAX, 0.5): an error naming bloom_plan, not a "
         "negative bits (rc %d: %s)", rc, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  /* The largest sizings that do fit come back with positive figures. */
  st = must_prep(db, "SELECT bits > 0 AND bytes > 0 FROM bloom_plan(900000000000000000, 0.5)");
  tap_ok(sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1,
         "bloom_plan(9e17, 0.5): a sizing of ~1.4e18 bits, positive figures");
  sqlite3_finalize(st);
}

/* ------------------------------------------------------------------ */
/* SQLITE_LIMIT_LENGTH                                                  */

static int step_rc(const char *sql, const blob *arg1, char *msg, size_t msg_size) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    snprintf(msg, msg_size, "%s", sqlite3_errmsg(db));
    return -1;
  }
  blob exact = {NULL, 0};
  if (arg1) {
    exact = blob_dup(arg1->p, arg1->n);
    sqlite3_bind_blob64(st, 1, exact.p, exact.n, SQLITE_STATIC);
  }
  int rc = sqlite3_step(st);
  snprintf(msg, msg_size, "%s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  free(exact.p);
  return rc;
}

static void length_limit(void) {
  const int old = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1);
  char msg[256];
  blob f = query_blob("SELECT bloom_empty(1000, 0.01)", NULL); /* 1280 + 64 bytes */
  if (f.p == NULL) {
    tap_ok(0, "length limit: bloom_empty(1000, 0.01) works");
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, old);
    return;
  }
  must_exec(db, "CREATE TABLE big(f)");
  sqlite3_stmt *ins = must_prep(db, "INSERT INTO big VALUES(?1)");
  sqlite3_bind_blob64(ins, 1, f.p, f.n, SQLITE_STATIC);
  sqlite3_step(ins);
  sqlite3_finalize(ins);

  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 10000);
  static const struct { const char *fname, *sql; } toobig[] = {
      {"bloom_build", "SELECT bloom_build(1, 100000, 0.01)"},
      {"bloom_build", SERIES_TO_P2 "SELECT bloom_build(x) FROM s"},
      {"bloom_empty", "SELECT bloom_empty(100000)"},
      {"bloom_key", "SELECT bloom_key(zeroblob(10000))"},
      {"cuckoo_build", "SELECT cuckoo_build(1, 100000, 0.01)"},
      {"cuckoo_build", SERIES_TO_P2 "SELECT cuckoo_build(x, NULL) FROM s"},
  };
  for (size_t i = 0; i < sizeof toobig / sizeof toobig[0]; i++) {
    if (!registered(toobig[i].fname)) {
      tap_ok(0, "limit 10000: %s is registered", toobig[i].fname);
      continue;
    }
    sqlite3_stmt *st = must_prep(db, toobig[i].sql);
    sqlite3_bind_int64(st, 2, 20000);
    int rc = sqlite3_step(st);
    snprintf(msg, sizeof msg, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    tap_ok(rc == SQLITE_TOOBIG && named(msg, toobig[i].fname),
           "limit 10000: %s gives SQLITE_TOOBIG naming %s (rc %d: %s)", toobig[i].sql,
           toobig[i].fname, rc, msg);
  }
  tap_ok(query_int("SELECT bytes > 10000 FROM bloom_plan(100000, 0.01)", NULL, 0) == 1,
         "limit 10000: bloom_plan still reports a plan over the limit (documented)");

  /* A filter of exactly the limit: bound, every reader works.  (It cannot
  ** be stored: a row holding it, with its record header, is over the
  ** limit, so the table and trigger ways do not apply.) */
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, (int)f.n);
  group g = {"a filter exactly at SQLITE_LIMIT_LENGTH", 0, {0}, {0}};
  input in = blob_input("bloom_empty(1000, 0.01) at the limit", &f);
  run_case(&g, &in, E_ACCEPT, (1u << W_DIRECT) | (1u << W_MISALIGNED));
  report(&g, ACCEPTED);

  /* One byte over: SQLite refuses the binding itself. */
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, (int)f.n - 1);
  sqlite3_stmt *st = must_prep(db, "SELECT bloom_test(?1, 1)");
  int rc = sqlite3_bind_blob64(st, 1, f.p, f.n, SQLITE_STATIC);
  sqlite3_finalize(st);
  tap_ok(rc == SQLITE_TOOBIG, "limit one byte below the filter: sqlite3_bind_blob refuses it "
                              "(SQLITE_TOOBIG)");

  /* Stored before the limit was lowered: SQLite itself refuses to read a
  ** column over the limit (OP_Column answers SQLITE_TOOBIG), so no function
  ** is called with it. */
  static const char *const stored[] = {
      "SELECT bloom_test(f, 1) FROM big",
      "SELECT bloom_count(f) FROM big",
      "SELECT i.bytes FROM big, bloom_info(big.f) AS i",
      "SELECT bloom_test(r.filter, 1) FROM big, bloom_ref(big.f) AS r",
      "SELECT bloom_add(f, 1) FROM big",
      "SELECT bloom_merge(f) FROM big",
  };
  int refused = 0;
  for (size_t i = 0; i < sizeof stored / sizeof stored[0]; i++) {
    rc = step_rc(stored[i], NULL, msg, sizeof msg);
    if (rc == SQLITE_TOOBIG) refused++;
    else tap_diag("  %s: rc %d: %s", stored[i], rc, msg);
  }
  TAP_EQ_U64(refused, sizeof stored / sizeof stored[0],
             "a stored filter over the lowered limit: SQLite refuses to read the "
             "column (SQLITE_TOOBIG) before any function sees it");
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, old);
  free(f.p);
}

/* ------------------------------------------------------------------ */

int main(void) {
  db = open_db(NULL);
  /* Triggers may then only call innocuous functions. */
  must_exec(db, "PRAGMA trusted_schema = OFF");
  setup_probes();

  part1_writers();

  blob bloom1 = build(5, 10, 0.01);   /* one block, 128 bytes */
  blob bloom2 = build(100, 300, 0.01); /* several blocks */
  blob cuckoo = {NULL, 0};
  if (have_cuckoo)
    cuckoo = query_blob("WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 "
                        "FROM s WHERE x < 5) SELECT cuckoo_build(x, 10, 0.01) FROM s",
                        NULL);
  if (bloom1.p == NULL || bloom2.p == NULL) die("build");
  catalogue(&bloom1, &bloom2, cuckoo.p ? &cuckoo : NULL);
  correlated_ref(&bloom1, &bloom2, cuckoo.p ? &cuckoo : NULL);
  counters();
  bad_params();
  length_limit();

  free(bloom1.p);
  free(bloom2.p);
  free(cuckoo.p);
  finalize_probes();
  sqlite3_close(db);
  return tap_done();
}
