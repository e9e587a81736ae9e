/*
** Aborted statements free everything.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** A statement that stops half-way leaves aggregate contexts, vtab cursors
** and result buffers for SQLite to clean up through xFinal and xClose.
** Each case here checks that it does: the counting allocator of
** tests/lib/faults.h (SQLITE_CONFIG_MALLOC, lookaside off) gives the number
** of live allocations, which must be the same before sqlite3_prepare and after
** sqlite3_finalize (each statement is run once first, so that caches are
** warm), and again after sqlite3_close as before sqlite3_open.  In the ASan
** variant LeakSanitizer checks the same at exit.
**
**   - an error in the middle of an aggregate: a bad n on row 1,000 of a
**     bloom_build group, n/p changing, a bad p in a build sized from the
**     data, a malformed or mis-shaped filter in a bloom_merge group, an
**     error raised by another function while a group is half-built;
**   - a progress handler that stops the statement after N VM steps, for
**     every N from 1 to past the statement's end (period 1), on a build, a
**     build sized from the data, GROUP BY builds, merges, a bloom_ref
**     probe, bloom_info and a trigger-maintained insert; the same with
**     sqlite3_interrupt() called from the handler;
**   - LIMIT over grouped builds, and statements reset or finalized after
**     a few rows.
*/
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/faults.h"
#include "lib/sqldb.h"
#include "lib/clock.h"
#include "lib/tap.h"

/* A recursive CTE of the integers 1..n as s(x) (tests/lib/sqldb.h's
** SERIES(lo, hi) takes SQL text; this one a literal). */
#define SERIES_1_TO(n)                                                    \
  "WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE " \
  "x < " #n ") "

static sqlite3 *db;

static const char SETUP[] =
    "CREATE TABLE t(x INTEGER, g INTEGER);"
    "INSERT INTO t " SERIES_1_TO(2000) "SELECT x, x % 10 FROM s;"
    "CREATE TABLE t200(x INTEGER);"
    "INSERT INTO t200 " SERIES_1_TO(200) "SELECT x FROM s;"
    "CREATE TABLE tg(x INTEGER, g INTEGER);"
    "CREATE INDEX tg_g ON tg(g);"
    "INSERT INTO tg SELECT x, x % 10 FROM t;"
    "CREATE TABLE parts(g, f);"
    "INSERT INTO parts SELECT x % 3, bloom_build(x, 1000, 0.01) FROM t"
    " WHERE x <= 600 GROUP BY x % 12;"
    "CREATE TABLE filt(name TEXT PRIMARY KEY, f BLOB);"
    "INSERT INTO filt SELECT 'a', bloom_build(x, 300, 0.01) FROM t200"
    " WHERE x % 2 = 0;"
    "CREATE TABLE items(id INTEGER PRIMARY KEY, v);"
    "CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);"
    "INSERT INTO filters VALUES ('items', bloom_empty(1000, 0.01));"
    "CREATE TRIGGER items_ai AFTER INSERT ON items BEGIN"
    "  UPDATE filters SET f = bloom_add(f, NEW.id) WHERE name = 'items';"
    " END;";

/* ---- progress handler ---------------------------------------------------- */

static long long progress_calls, stop_at;
static int stop_by_interrupt;

static int progress(void *unused) {
  (void)unused;
  progress_calls++;
  if (stop_at && progress_calls >= stop_at) {
    if (stop_by_interrupt) {
      sqlite3_interrupt(db);
      return 0;
    }
    return 1;
  }
  return 0;
}

/* Runs sql with the handler stopping it at call `at` (0: never). */
static void run_stopped(const char *sql, long long at, int interrupt,
                        outcome *o) {
  progress_calls = 0;
  stop_at = at;
  stop_by_interrupt = interrupt;
  run_digest(db, sql, o);
  stop_at = 0;
}

static int is_prefix(const textbuf *part, const textbuf *whole) {
  return part->len <= whole->len &&
         (part->len == 0 || memcmp(part->p, whole->p, part->len) == 0);
}

/* Undoes what an insert that got through did, so every run starts alike. */
static const char *const RESET_ITEMS =
    "DELETE FROM items;"
    "UPDATE filters SET f = bloom_empty(1000, 0.01) WHERE name = 'items';";
#define ITEMS_CHECK                                                        \
  "SELECT (SELECT count(*) FROM items) IN (0, 60) AND"                     \
  " (SELECT inserted FROM bloom_info((SELECT f FROM filters))) ="          \
  " (SELECT count(*) FROM items) AND NOT EXISTS (SELECT 1 FROM items,"     \
  " filters WHERE bloom_test(filters.f, items.id) IS NOT 1)"

typedef struct sweep_case {
  const char *name;
  const char *sql;
  const char *check; /* after each run: must give 1 */
  const char *reset; /* after each run */
  int tail;          /* the unseen tail (see INTERRUPT_TAIL), if longer */
} sweep_case;

static const sweep_case SWEEPS[] = {
    {"bloom_build over 200 rows", "SELECT bloom_build(x, 200, 0.01) FROM t200",
     NULL, NULL, 0},
    {"bloom_build(v) sized from the data", "SELECT bloom_build(x) FROM t200",
     NULL, NULL, 0},
    {"GROUP BY bloom_build", "SELECT x % 7, bloom_build(x, 100, 0.01) FROM t200"
     " GROUP BY 1", NULL, NULL, 0},
    {"GROUP BY bloom_build(v) sized from the data",
     "SELECT x % 3, bloom_build(x) FROM t200 GROUP BY 1", NULL, NULL, 0},
    {"bloom_merge", "SELECT bloom_merge(f) FROM parts", NULL, NULL, 0},
    {"GROUP BY bloom_merge", "SELECT g, bloom_merge(f) FROM parts GROUP BY g",
     NULL, NULL, 0},
    {"bloom_ref probe", "SELECT count(*) FROM bloom_ref((SELECT f FROM filt"
     " WHERE name = 'a')) AS r CROSS JOIN t200 WHERE bloom_test(r.filter, t200.x)",
     NULL, NULL, 0},
    {"bloom_probe", "SELECT count(*) FROM t200 WHERE bloom_probe('SELECT f"
     " FROM filt WHERE name = ''a''', t200.x)", NULL, NULL, 0},
    {"bloom_probe whose query builds its filter", "SELECT count(*) FROM t200"
     " WHERE bloom_probe('SELECT bloom_build(x, 200, 0.01) FROM t200', t200.x)",
     NULL, NULL, 0},
    {"bloom_info correlated", "SELECT g, i.bits_set FROM parts,"
     " bloom_info(parts.f) AS i", NULL, NULL, 0},
    /* The last batch is one whole row: the INSERT loop's opcodes and the
    ** trigger's program, which has no check site (23 calls measured). */
    {"trigger-maintained insert", "INSERT INTO items SELECT x, x FROM t200"
     " WHERE x <= 60", ITEMS_CHECK, RESET_ITEMS, 32},
};

/* How many of the last progress calls of a statement may miss an
** interrupt.  SQLite checks the interrupt flag once at each check site (a
** jump opcode such as Next or Goto), and then calls the progress handler
** once per VM opcode run since the previous site; so an interrupt raised
** during the last batch of calls (the opcodes run between the statement's
** last two check sites) is never seen, and the statement runs to the end.
** That batch is 1 to 3 calls for the SELECTs here (measured; 4 allows one
** opcode more in another SQLite version); a sweep_case with a longer one
** says so.  An interrupt ignored anywhere else shows up as a run that
** completed before the tail. */
#define INTERRUPT_TAIL 4

/* Stops the statement at every VM step in turn. */
static void sweep(const sweep_case *c, int interrupt) {
  outcome want = {0}, got = {0};
  run_stopped(c->sql, 0, 0, &want); /* warms caches, and the reference */
  if (c->reset) exec_ok(db, c->reset);
  long long live = failmem_live();
  run_stopped(c->sql, 0, 0, &want);
  long long total = progress_calls;
  if (c->reset) exec_ok(db, c->reset);
  if (!tap_ok(want.rc == SQLITE_OK && failmem_live() == live,
              "%s: runs to the end in %lld progress calls", c->name, total)) {
    tap_diag("  rc %d: %s", want.rc, want.msg);
    return;
  }
  long long wrong = 0, leaks = 0, bad_checks = 0, stopped = 0, visited = 0;
  long long first_complete = 0; /* the first n <= total that ran through */
  long long tail = c->tail > INTERRUPT_TAIL ? c->tail : INTERRUPT_TAIL;
  long long step = sweep_step_env(); /* 1: every step */
  for (long long n = 1; n <= total + 1;
       n = n >= total ? n + 1 : (n + step > total ? total : n + step)) {
    visited++;
    live = failmem_live();
    run_stopped(c->sql, n, interrupt, &got);
    long long leaked = failmem_live() - live;
    int check = c->check ? q_int(db, c->check, NOARGS) == 1 : 1;
    if (c->reset) exec_ok(db, c->reset);
    /* Stopped: SQLITE_INTERRUPT after a prefix of the rows.  An interrupt
    ** raised during the last `tail` calls may go unseen (see
    ** above): then the whole result.  The handler's non-zero return is
    ** always seen. */
    int complete = got.rc == SQLITE_OK && got.digest.len == want.digest.len &&
                   is_prefix(&got.digest, &want.digest);
    int interrupted = got.rc == SQLITE_INTERRUPT &&
                      is_prefix(&got.digest, &want.digest);
    int ok = n > total ? complete
                       : interrupted || (interrupt && complete &&
                                         n > total - tail);
    if (n <= total && complete && !first_complete) first_complete = n;
    stopped += interrupted;
    wrong += !ok;
    leaks += leaked != 0;
    bad_checks += !check;
    if ((!ok || leaked || !check) && wrong + leaks + bad_checks <= 3)
      tap_diag("  stopped at progress call %lld: rc %d (%s), %d rows, "
               "leaked %lld, check %d", n, got.rc, got.msg, got.rows, leaked,
               check);
  }
  /* Every point before the end stops the statement (the handler's
  ** return), or all but those in the unseen tail do (sqlite3_interrupt);
  ** the point past the end never does. */
  long long slack = 1 + (interrupt ? tail : 0);
  tap_ok(wrong == 0 && leaks == 0 && bad_checks == 0 &&
             stopped >= visited - slack,
         "%s: stopped by %s at %lld points (of %lld steps, and past "
         "the end): %lld stopped with SQLITE_INTERRUPT (at least %lld), the "
         "rest ran to the end (the first at %lld); %lld wrong, %lld leaking, "
         "%lld failed checks",
         c->name, interrupt ? "sqlite3_interrupt" : "the progress handler",
         visited, total, stopped, visited - slack, first_complete, wrong,
         leaks, bad_checks);
  textbuf_free(&want.digest);
  textbuf_free(&got.digest);
}

/* ---- errors in the middle of an aggregate -------------------------------- */

typedef struct error_case {
  const char *name;
  const char *sql;
  const char *prefix; /* of the error message */
} error_case;

static const error_case ERRORS[] = {
    {"bad n on row 1,000 of a bloom_build group",
     "SELECT x % 2, bloom_build(x, CASE WHEN x = 1000 THEN 0 ELSE 2000 END,"
     " 0.01) FROM t GROUP BY 1",
     "bloom_build: n must be an integer >= 1, got 0"},
    {"bad n on row 1,000 of an index-ordered bloom_build group",
     "SELECT g, bloom_build(x, CASE WHEN x = 1000 THEN 0 ELSE 2000 END, 0.01)"
     " FROM tg GROUP BY g",
     "bloom_build: n must be an integer >= 1, got 0"},
    {"n changing on row 1,000 of bloom_build",
     "SELECT bloom_build(x, CASE WHEN x = 1000 THEN 999 ELSE 2000 END, 0.01)"
     " FROM t",
     "bloom_build: n and p must be the same"},
    {"bad p on row 1,000 of bloom_build sized from the data",
     "SELECT bloom_build(x, NULL, CASE WHEN x = 1000 THEN 2 ELSE 0.01 END)"
     " FROM t",
     "bloom_build: p must be"},
    {"NULL-then-n on row 1,000 of a GROUP BY bloom_build sized from the data",
     "SELECT x % 2, bloom_build(x, CASE WHEN x = 1000 THEN 5 END) FROM t"
     " GROUP BY 1",
     "bloom_build: n and p must be the same"},
    {"a malformed filter on row 5 of bloom_merge",
     "SELECT bloom_merge(CASE WHEN rowid = 5 THEN x'00' ELSE f END) FROM parts",
     "bloom_merge: not a filter"},
    {"a filter of another shape on row 5 of a bloom_merge group",
     "SELECT g, bloom_merge(CASE WHEN rowid = 5 THEN bloom_empty(10) ELSE f"
     " END) FROM parts GROUP BY g",
     "bloom_merge: the filters differ"},
    {"another function failing while a bloom_build group is half-built",
     "SELECT g, bloom_build(x, 300, 0.01), max(CASE WHEN x = 1000 THEN"
     " abs(-9223372036854775807 - 1) END) FROM t GROUP BY g",
     "integer overflow"},
    {"another function failing while a bloom_build(v) group is half-built",
     "SELECT g, bloom_build(x), max(CASE WHEN x = 1000 THEN"
     " abs(-9223372036854775807 - 1) END) FROM tg GROUP BY g",
     "integer overflow"},
    {"an error after bloom_ref's cursor opened",
     "SELECT bloom_test(r.filter, CASE WHEN t.x = 1000 THEN"
     " abs(-9223372036854775807 - 1) ELSE t.x END) FROM bloom_ref((SELECT f"
     " FROM filt)) AS r CROSS JOIN t",
     "integer overflow"},
    {"an error on row 1,000 after bloom_probe kept its filter",
     "SELECT bloom_probe('SELECT f FROM filt WHERE name = ''a''', CASE WHEN"
     " t.x = 1000 THEN abs(-9223372036854775807 - 1) ELSE t.x END) FROM t",
     "integer overflow"},
    {"a trigger-maintained insert failing on row 30",
     "INSERT INTO items SELECT x, CASE WHEN x = 30 THEN"
     " abs(-9223372036854775807 - 1) END FROM t WHERE x <= 60",
     "integer overflow"},
};

static void test_errors(void) {
  for (size_t i = 0; i < sizeof ERRORS / sizeof ERRORS[0]; i++) {
    const error_case *e = &ERRORS[i];
    outcome o = {0};
    run_digest(db, e->sql, &o); /* warm */
    long long live = failmem_live();
    run_digest(db, e->sql, &o);
    long long leaked = failmem_live() - live;
    int check = q_int(db, ITEMS_CHECK, NOARGS) == 1 &&
                q_int(db, "SELECT count(*) FROM items", NOARGS) == 0;
    if (!tap_ok(o.rc == SQLITE_ERROR &&
                    strncmp(o.msg, e->prefix, strlen(e->prefix)) == 0 &&
                    leaked == 0 && check,
                "%s: fails with \"%s...\", nothing leaked", e->name,
                e->prefix))
      tap_diag("  rc %d: %s; leaked %lld allocations; check %d", o.rc, o.msg,
               leaked, check);
    textbuf_free(&o.digest);
  }
}

/* ---- LIMIT, reset and finalize half-way -------------------------------- */

static void test_partial(void) {
  static const struct {
    const char *name, *sql;
    int rows; /* step this many rows (reading no column), then reset and
                 finalize (-1: all) */
    int want_rows;
  } CASES[] = {
      {"LIMIT 3 over a grouped bloom_build",
       "SELECT g, bloom_build(x, 300, 0.01) FROM t GROUP BY g LIMIT 3", -1, 3},
      {"LIMIT 3 over an index-ordered grouped bloom_build",
       "SELECT g, bloom_build(x, 300, 0.01) FROM tg GROUP BY g LIMIT 3", -1, 3},
      {"LIMIT 3 over a grouped bloom_build(v)",
       "SELECT g, bloom_build(x) FROM tg GROUP BY g LIMIT 3", -1, 3},
      {"LIMIT 1 OFFSET 2 over a grouped bloom_merge",
       "SELECT g, bloom_merge(f) FROM parts GROUP BY g LIMIT 1 OFFSET 2", -1, 1},
      {"LIMIT 0 over a grouped bloom_build",
       "SELECT g, bloom_build(x, 300, 0.01) FROM t GROUP BY g LIMIT 0", -1, 0},
      {"a grouped bloom_build finalized after 2 of 10 rows",
       "SELECT g, bloom_build(x, 300, 0.01) FROM tg GROUP BY g", 2, 2},
      {"a grouped bloom_build(v) finalized after 1 of 10 rows",
       "SELECT g, bloom_build(x) FROM t GROUP BY g", 1, 1},
      {"a bloom_ref probe finalized after 5 rows",
       "SELECT t.x FROM bloom_ref((SELECT f FROM filt)) AS r CROSS JOIN t"
       " WHERE bloom_test(r.filter, t.x)", 5, 5},
      {"correlated bloom_info finalized after 1 row",
       "SELECT i.* FROM parts, bloom_info(parts.f) AS i", 1, 1},
      {"bloom_plan stepped to its row, reset and finalized without reading "
       "a column", "SELECT * FROM bloom_plan(1000000, 0.01)", 1, 1},
  };
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
    int rows = 0, rc = SQLITE_OK;
    long long live = 0;
    for (int pass = 0; pass < 2; pass++) { /* the first warms caches */
      live = failmem_live();
      sqlite3_stmt *st = NULL;
      rows = 0;
      rc = sqlite3_prepare_v2(db, CASES[i].sql, -1, &st, NULL);
      if (rc == SQLITE_OK) {
        while ((CASES[i].rows < 0 || rows < CASES[i].rows) &&
               (rc = sqlite3_step(st)) == SQLITE_ROW)
          rows++;
        if (rc == SQLITE_DONE || rc == SQLITE_ROW) rc = SQLITE_OK;
        if (CASES[i].rows >= 0) sqlite3_reset(st);
      }
      sqlite3_finalize(st);
    }
    long long leaked = failmem_live() - live;
    if (!tap_ok(rc == SQLITE_OK && rows == CASES[i].want_rows && leaked == 0,
                "%s: %d rows, nothing leaked", CASES[i].name, rows))
      tap_diag("  rc %d (%s), leaked %lld allocations", rc,
               sqlite3_errmsg(db), leaked);
  }
}

int main(void) {
  double t0 = now();
  if (failmem_install() != SQLITE_OK) {
    printf("Bail out! cannot install the counting allocator\n");
    return 2;
  }
  long long base = failmem_live();
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 2;
  char *err = NULL;
  if (load_bloom(db, &err) != SQLITE_OK) {
    printf("Bail out! cannot load %s: %s\n", bloom_so_path(), err ? err : "?");
    return 2;
  }
  free(err);
  if (!exec_ok(db, SETUP)) {
    printf("Bail out! setup failed\n");
    return 2;
  }
  test_errors();
  test_partial();
  sqlite3_progress_handler(db, 1, progress, NULL);
  for (int interrupt = 0; interrupt <= 1; interrupt++)
    for (size_t i = 0; i < sizeof SWEEPS / sizeof SWEEPS[0]; i++) {
      double ts = now();
      sweep(&SWEEPS[i], interrupt);
      tap_diag("  %.2f s", now() - ts);
    }
  sqlite3_progress_handler(db, 0, NULL, NULL);
  sqlite3_close(db);
  TAP_EQ_U64(failmem_live(), base,
             "after sqlite3_close, every allocation is freed");
  tap_diag("total %.2f s", now() - t0);
  return tap_done();
}
