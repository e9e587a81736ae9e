/*
** Stores that forget: bloom_store and cuckoo_store with a window.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Checked here, against expectations computed from the rules (a value
** added at t answers 1 while the store's time T <= t + window, and is gone
** once T >= t + window * (1 + 1/G), generations of window / G seconds):
** a simulated three days with a 10x burst (seeds printed), both kinds,
** with and without capacity: no false negative inside the window, the
** forgotten values and never-inserted values answering 1 at most at fpr,
** the export answering every live value and its layers' rates summing
** within fpr, the size back after the burst's generation expires; the
** wall clock (a test VFS) including a clock set back; the rules of `at`;
** INSERT OR IGNORE; a cuckoo DELETE; the generation rows and the 'expire'
** command; ROLLBACK, ROLLBACK TO and a failed statement across a
** generation change; two connections; reopening; VACUUM; DEFENSIVE; the
** arguments; damaged configuration and chunk rows.
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
#include "lib/vfs_clock.h"

/* The span of a window of 3600 seconds at the default G = 8. */
enum { SPAN = 450 };

static const char *const modules[2] = {"bloom_store", "cuckoo_store"};
static const char *const tests[2] = {"bloom_test", "cuckoo_test"};

/* 1 if the store may hold the integer v. */
static int has(sqlite3 *db, const char *table, sqlite3_int64 v) {
  char sql[160];
  snprintf(sql, sizeof sql, "SELECT EXISTS (SELECT 1 FROM %s WHERE value = "
           "?1)", table);
  return (int)q_int(db, sql, ARGS(a_int(v)));
}

static void add_at(sqlite3 *db, const char *table, sqlite3_int64 v,
                   sqlite3_int64 at) {
  char sql[160];
  snprintf(sql, sizeof sql, "INSERT INTO %s(value, at) VALUES (?1, ?2)",
           table);
  sqlite3_stmt *st = prep(db, sql, ARGS(a_int(v), a_int(at)));
  if (st == NULL || sqlite3_step(st) != SQLITE_DONE)
    tap_diag("insert %lld at %lld: %s", (long long)v, (long long)at,
             sqlite3_errmsg(db));
  sqlite3_finalize(st);
}

/* The shadow tables as text, to compare before and after a rollback. */
static char *snapshot(sqlite3 *db) {
  return q_text(db, "SELECT (SELECT group_concat(key || '=' || quote(value), "
                "',') FROM (SELECT * FROM t_config ORDER BY key)) || '|' || "
                "(SELECT group_concat(id || ':' || hex(data), ',') FROM "
                "(SELECT * FROM t_chunks ORDER BY id))", NOARGS);
}

/* --- the contract, measured ------------------------------------------- */

enum { WINDOW = 3600, DAYS = 3, STEP = 10, BURST_HOUR = 30,
       NEVER_PROBES = 4000 };
#define FPR 0.01

typedef struct sim {
  sqlite3 *db;
  int kind, generations;
  sqlite3_int64 *at; /* value i was added at at[i] */
  int count;
  long misses, export_misses, forgotten, forgotten_hits, fp_over;
  double worst_fp, layer_rate_sum;
  sqlite3_int64 base, steady_bytes, end_bytes;
} sim;

/* Every value whose window covers T answers 1, in the store and in its
** export; those forgotten (T >= t + W(1 + 1/G)) within the last window
** answer 1 no more often than fpr; so do never-inserted values. */
static void checkpoint(sim *m, sqlite3_int64 T) {
  double forget = WINDOW * (1.0 + 1.0 / m->generations);
  sqlite3_stmt *export = must_prep(m->db, "SELECT filter FROM t");
  if (sqlite3_step(export) != SQLITE_ROW) tap_diag("no export");
  const void *blob = sqlite3_column_blob(export, 0);
  int bytes = sqlite3_column_bytes(export, 0);
  char sql[120];
  snprintf(sql, sizeof sql, "SELECT %s(?1, ?2)", tests[m->kind]);
  for (int i = 0; i < m->count; i++) {
    if (m->at[i] + WINDOW >= T) {
      m->misses += !has(m->db, "t", i);
      m->export_misses +=
          q_int(m->db, sql, ARGS(a_blob(blob, bytes), a_int(i))) != 1;
    } else if ((double)m->at[i] + forget <= (double)T &&
               (double)m->at[i] + forget + WINDOW > (double)T) {
      m->forgotten++;
      m->forgotten_hits += has(m->db, "t", i);
    }
  }
  int hits = 0;
  for (int j = 0; j < NEVER_PROBES; j++)
    hits += has(m->db, "t", (sqlite3_int64)(rng_next() >> 20) + 1000000000);
  double fp = (double)hits / NEVER_PROBES;
  if (fp > m->worst_fp) m->worst_fp = fp;
  m->fp_over += fp > FPR;
  double rates = q_real(m->db, "SELECT sum(target_fpr) FROM bloom_layers(?1)",
                        ARGS(a_blob(blob, bytes)));
  if (rates > m->layer_rate_sum) m->layer_rate_sum = rates;
  if ((T - m->base) / 3600 == 23) m->steady_bytes = bytes;
  m->end_bytes = bytes;
  sqlite3_finalize(export);
}

static void simulate(int kind, const char *extra, int generations) {
  sim m = {0};
  m.kind = kind;
  m.generations = generations;
  m.db = open_db(NULL);
  char sql[256], what[200];
  snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE t USING %s(fpr = %g, "
           "window = %d, generations = %d, clock = 'events'%s)",
           modules[kind], FPR, WINDOW, generations, extra);
  must_exec(m.db, sql);
  snprintf(what, sizeof what, "%s G=%d%s", modules[kind], generations, extra);
  rng_seed(0x5eed0000u + (uint64_t)kind * 16 + (uint64_t)generations, what);
  int room = DAYS * 86400 / STEP * 3;
  m.at = malloc((size_t)room * sizeof *m.at);
  sqlite3_int64 base = 1700000000 - 1700000000 % 86400;
  m.base = base;
  must_exec(m.db, "BEGIN");
  for (sqlite3_int64 s = 0; s < DAYS * 86400; s += STEP) {
    /* a constant rate, ten times that for an hour */
    int n = s / 3600 == BURST_HOUR ? 10 : 1;
    for (int k = 0; k < n && m.count < room; k++) {
      sqlite3_int64 t = base + s + (sqlite3_int64)(rng_next() % STEP);
      m.at[m.count] = t;
      add_at(m.db, "t", m.count++, t);
    }
    if ((s + STEP) % (3 * 3600) == 0 || s + STEP == (BURST_HOUR + 1) * 3600) {
      must_exec(m.db, "COMMIT");
      checkpoint(&m, base + s + STEP - 1);
      must_exec(m.db, "BEGIN");
    }
  }
  must_exec(m.db, "COMMIT");
  tap_ok(m.misses == 0 && m.export_misses == 0,
         "%s: no value missed inside its window, in the store (%ld) or its "
         "export (%ld), %d values over %d days", what, m.misses,
         m.export_misses, m.count, DAYS);
  tap_ok(m.forgotten > 1000 &&
             m.forgotten_hits <= (long)(FPR * (double)m.forgotten),
         "%s: forgotten by t + window * (1 + 1/G): %ld of %ld still answer "
         "(at most fpr)", what, m.forgotten_hits, m.forgotten);
  tap_ok(m.fp_over == 0, "%s: never-inserted values answer 1 at most at fpr "
         "at every checkpoint, the burst's included (worst %.4f)", what,
         m.worst_fp);
  tap_ok(m.layer_rate_sum > 0 && m.layer_rate_sum <= FPR,
         "%s: the export's layers' rates sum to %g <= fpr", what,
         m.layer_rate_sum);
  tap_ok(m.steady_bytes > 0 && m.end_bytes <= m.steady_bytes * 13 / 10,
         "%s: the size comes back after the burst: %lld bytes at day 1, %lld "
         "at the end", what, (long long)m.steady_bytes,
         (long long)m.end_bytes);
  free(m.at);
  sqlite3_close(m.db);
}

/* A database with t, a store of the module with a one-hour window on the
** events clock. */
static sqlite3 *events_store(const char *module) {
  char sql[160];
  sqlite3 *db = open_db(NULL);
  snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE t USING %s(fpr = 1e-5, "
           "window = 3600, clock = 'events')", module);
  must_exec(db, sql);
  return db;
}

/* --- the wall clock ---------------------------------------------------- */

/* A database at the test clock's time T0 with t, a bloom_store of a one
** hour window on the wall clock. */
static sqlite3 *wall_store(sqlite3_int64 T0) {
  vfs_clock_seconds = T0;
  sqlite3 *db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE t USING bloom_store(fpr = 1e-5, "
                "window = '1 hour')");
  return db;
}

static void test_wall_clock(void) {
  sqlite3_int64 T0 = 1700000000;
  sqlite3 *db = wall_store(T0);
  must_exec(db, "INSERT INTO t(value) VALUES (1)");
  vfs_clock_seconds = T0 + 3600;
  int kept = has(db, "t", 1);
  vfs_clock_seconds = T0 + 4500;
  int gone = !has(db, "t", 1);
  tap_ok(kept && gone, "wall clock: a value answers at t + window and is "
         "gone by t + window * (1 + 1/G), with no write between");
  must_exec(db, "INSERT INTO t(value) VALUES (2)");
  vfs_clock_seconds = T0; /* set back */
  must_exec(db, "INSERT INTO t(value) VALUES (3)");
  int still_gone = !has(db, "t", 1);
  vfs_clock_seconds = T0 + 4500 + 3600;
  tap_ok(still_gone && has(db, "t", 2) && has(db, "t", 3),
         "a clock set back: the store keeps its time; a value added then "
         "goes into the newest generation and lasts its window from there");
  sqlite3_close(db);
  /* Another connection has not read the later time: the time row keeps
  ** it. */
  const char *path = temp_db_file("window", "wall");
  vfs_clock_seconds = T0;
  db = open_db_at(path);
  must_exec(db, "CREATE VIRTUAL TABLE t USING bloom_store(fpr = 1e-5, "
                "window = 3600)");
  vfs_clock_seconds = T0 + 7200;
  must_exec(db, "INSERT INTO t(value) VALUES (5)");
  sqlite3_close(db);
  vfs_clock_seconds = T0;
  db = open_db_at(path);
  must_exec(db, "INSERT INTO t(value) VALUES (6)");
  vfs_clock_seconds = T0 + 7200 + 3600;
  tap_ok(has(db, "t", 5) && has(db, "t", 6),
         "reopened with the clock set back: the time row keeps the store's "
         "time");
  sqlite3_close(db);
  remove(path);
  vfs_clock_seconds = T0;
}

/* --- at ---------------------------------------------------------------- */

static void test_at(void) {
  sqlite3_int64 T0 = 1700000000;
  sqlite3 *db = wall_store(T0);
  char want[160];
  /* the store's generation ends at the next multiple of the span */
  sqlite3_int64 ahead = T0 - T0 % SPAN + SPAN;
  snprintf(want, sizeof want, "bloom_store: at %lld is ahead of the store's "
           "time %lld", (long long)ahead, (long long)T0);
  expect_error(db, "wall clock: at in a later generation is refused",
               "INSERT INTO t(value, at) VALUES (1, ?1)", ARGS(a_int(ahead)),
               want, 0);
  add_at(db, "t", 2, ahead - 1);
  tap_ok(has(db, "t", 2), "at ahead within the store's generation is kept");
  add_at(db, "t", 3, T0 - 3000);
  tap_ok(has(db, "t", 3), "at in an older live generation is kept");
  vfs_clock_seconds = T0 - 3000 + 3600;
  tap_ok(has(db, "t", 3), "... for its window from at");
  vfs_clock_seconds = T0 - 3000 + 4500;
  tap_ok(!has(db, "t", 3), "... and forgotten by at + window * (1 + 1/G)");
  vfs_clock_seconds = T0;
  sqlite3_int64 old = T0 - 5 * 3600;
  must_exec(db, "CREATE TABLE n(x)");
  sqlite3_stmt *st = prep(db, "INSERT INTO t(value, at) VALUES (4, ?1)",
                          ARGS(a_int(old)));
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  tap_ok(rc == SQLITE_DONE && sqlite3_changes(db) == 1 && !has(db, "t", 4),
         "at older than the live generations: accepted, not stored (a plain "
         "INSERT counts the row)");
  st = prep(db, "INSERT OR IGNORE INTO t(value, at) VALUES (4, ?1)",
            ARGS(a_int(old)));
  rc = sqlite3_step(st);
  sqlite3_finalize(st);
  tap_ok(rc == SQLITE_DONE && sqlite3_changes(db) == 0,
         "... and INSERT OR IGNORE counts no change");
  /* 2^62 + 1: past the latest time a store takes, where a generation's
  ** end would come near 2^63 */
  const char *bad[] = {"1.5", "'1700000000'", "-1", "x'00'",
                       "4611686018427387905", "9223372036854775807"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char sql[120], name[80];
    snprintf(sql, sizeof sql, "INSERT INTO t(value, at) VALUES (5, %s)",
             bad[i]);
    snprintf(name, sizeof name, "at = %s is refused", bad[i]);
    expect_error(db, name, sql, NOARGS,
                 "bloom_store: at must be an INTEGER number of seconds", 0);
  }
  must_exec(db, "CREATE VIRTUAL TABLE p USING bloom_store(capacity = 10)");
  expect_error(db, "a plain store has no column at",
               "INSERT INTO p(value, at) VALUES (1, 1)", NOARGS,
               "table p has no column named at", 0);
  sqlite3_close(db);
}

/* events: at ahead moves the store's time */
static void test_at_events(void) {
  sqlite3 *db = events_store("cuckoo_store");
  add_at(db, "t", 1, 1000000);
  must_exec(db, "INSERT INTO t(value) VALUES (2)"); /* at the store's time */
  int both = has(db, "t", 1) && has(db, "t", 2);
  add_at(db, "t", 3, 1000000 + 4500);
  tap_ok(both && !has(db, "t", 1) && !has(db, "t", 2) && has(db, "t", 3),
         "events clock: an at ahead moves the store's time, and what it "
         "passed is forgotten");
  /* A NULL value adds nothing: its at is neither checked nor moves time. */
  char *before = q_text(db, "SELECT value FROM t_config WHERE key = 'time'",
                        NOARGS);
  int ok = exec_ok(db, "INSERT INTO t(value, at) VALUES (NULL, 9000000), "
                       "(NULL, 'junk'), (NULL, -1)");
  char *after = q_text(db, "SELECT value FROM t_config WHERE key = 'time'",
                       NOARGS);
  tap_ok(ok && before && after && strcmp(before, after) == 0 &&
             has(db, "t", 3),
         "a NULL value's at is not checked and does not move the time (%s)",
         after ? after : "?");
  free(before);
  free(after);
  /* The latest time a store takes: its generation's figures do not wrap. */
  add_at(db, "t", 6, (sqlite3_int64)1 << 62);
  tap_ok(has(db, "t", 6) &&
             q_int(db, "SELECT min(\"end\" > start AND expires > \"end\" AND "
                   "start >= 0) FROM t", NOARGS) == 1,
         "an at of 2^62 is taken, and its generation ends and expires after "
         "it starts (no overflow near 2^63)");
  sqlite3_close(db);
}

/* --- INSERT OR IGNORE, DELETE, the operator's view --------------------- */

static void test_if_new(void) {
  sqlite3 *db = events_store("bloom_store");
  add_at(db, "t", 1, 1000000);
  add_at(db, "t", 2, 1000000);
  sqlite3_stmt *st = prep(db, "INSERT OR IGNORE INTO t(value, at) VALUES "
                          "(1, ?1)", ARGS(a_int(1000000 + 1800)));
  sqlite3_step(st);
  sqlite3_finalize(st);
  int skipped = sqlite3_changes(db) == 0;
  add_at(db, "t", 2, 1000000 + 1800); /* a plain INSERT refreshes */
  add_at(db, "t", 3, 1000000 + 4500);
  tap_ok(skipped && !has(db, "t", 1) && has(db, "t", 2),
         "INSERT OR IGNORE skips a value the window holds and does not "
         "refresh it; a plain INSERT does");
  sqlite3_close(db);
}

static void test_delete_and_rows(void) {
  sqlite3 *db = events_store("cuckoo_store");
  add_at(db, "t", 1, 1000000);
  add_at(db, "t", 2, 1000000);
  add_at(db, "t", 2, 1000000 + 1000);
  must_exec(db, "DELETE FROM t WHERE value IN (1, 2)");
  tap_ok(!has(db, "t", 1) && has(db, "t", 2),
         "cuckoo_store with a window: DELETE removes a value held by one "
         "generation, and nothing when two may hold it (as a scalable "
         "store's layers)");
  tap_ok(q_int(db, "SELECT count(*) FROM t WHERE generation IS NOT NULL",
               NOARGS) == 2 &&
             q_int(db, "SELECT sum(items) FROM t", NOARGS) == 2 &&
             q_int(db, "SELECT min(start) FROM t", NOARGS) ==
                 1000000 - 1000000 % SPAN &&
             q_int(db, "SELECT min(\"end\") - min(start) FROM t", NOARGS) ==
                 SPAN &&
             q_int(db, "SELECT min(expires) FROM t", NOARGS) ==
                 1000000 - 1000000 % SPAN + 9 * SPAN,
         "the generation rows: start, end, expires, items of each live "
         "generation");
  add_at(db, "t", 3, 1000000 + 9 * SPAN);
  tap_ok(q_int(db, "SELECT count(*) FROM t_config WHERE key LIKE 'gen.%'",
               NOARGS) > 0 &&
             q_int(db, "SELECT count(*) FROM t WHERE generation IS NOT NULL",
                   NOARGS) == 2,
         "a write deletes the expired generation");
  sqlite3_close(db);
}

/* expiry without a write: ignored at once, deleted by 'expire' */
static void test_expire(void) {
  sqlite3_int64 T0 = 1700000000;
  vfs_clock_seconds = T0;
  sqlite3 *db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE t USING bloom_store(window = 3600)");
  must_exec(db, "INSERT INTO t(value) VALUES (1)");
  sqlite3_int64 rows = q_int(db, "SELECT count(*) FROM t_chunks", NOARGS);
  vfs_clock_seconds = T0 + 2 * 3600;
  int ignored = q_int(db, "SELECT count(*) FROM t WHERE items IS NOT NULL",
                      NOARGS) == 0 &&
                q_int(db, "SELECT count(*) FROM t_chunks", NOARGS) == rows;
  must_exec(db, "INSERT INTO t(t) VALUES ('expire')");
  tap_ok(rows == 1 && ignored &&
             q_int(db, "SELECT count(*) FROM t_chunks", NOARGS) == 0 &&
             q_int(db, "SELECT count(*) FROM t_config WHERE key LIKE 'gen.%'",
                   NOARGS) == 0,
         "a generation past its time is ignored with no write, and 'expire' "
         "deletes its rows");
  tap_ok(q_int(db, "SELECT bloom_test(filter, 1) FROM t", NOARGS) == 0 &&
             q_int(db, "SELECT count(*) FROM bloom_layers((SELECT filter "
                   "FROM t))", NOARGS) == 1,
         "a store with no live generation exports one empty layer");
  expect_error(db, "a windowed store takes no filter",
               "INSERT INTO t(filter) SELECT bloom_empty(100)", NOARGS,
               "bloom_store: a windowed store takes values", 0);
  expect_error(db, "an unknown command", "INSERT INTO t(t) VALUES ('vacuum')",
               NOARGS, "bloom_store: unknown command vacuum", 0);
  char *summary = q_text(db, "SELECT * FROM t", NOARGS);
  tap_ok(summary && strstr(summary, "window 3600 seconds, 8 generations of "
                                    "450 seconds"),
         "the summary names the window and the generations: %s",
         summary ? summary : "(null)");
  free(summary);
  sqlite3_close(db);
}

/* --- transactions, connections ----------------------------------------- */

static void test_transactions(void) {
  sqlite3 *db = events_store("bloom_store");
  for (int k = 0; k < 5; k++) add_at(db, "t", k, 1000000 + k * 900);
  char *before = snapshot(db);
  must_exec(db, "BEGIN");
  add_at(db, "t", 100, 1000000 + 20 * 900);
  int forgot = !has(db, "t", 0) && !has(db, "t", 4);
  must_exec(db, "ROLLBACK");
  char *after = snapshot(db);
  tap_ok(forgot && strcmp(before, after) == 0 && has(db, "t", 0) &&
             has(db, "t", 4) && !has(db, "t", 100),
         "ROLLBACK of a write that expired every generation restores their "
         "rows and configuration");
  free(after);
  must_exec(db, "BEGIN; SAVEPOINT a");
  add_at(db, "t", 101, 1000000 + 7 * 900);
  must_exec(db, "ROLLBACK TO a; RELEASE a; COMMIT");
  after = snapshot(db);
  tap_ok(strcmp(before, after) == 0 && has(db, "t", 0),
         "ROLLBACK TO restores them too");
  free(after);
  expect_error(db, "a statement that fails after a generation change",
               "INSERT INTO t(value, at) VALUES (102, 1000000 + 9 * 900), "
               "(103, 1.5)", NOARGS, "bloom_store: at must be", 0);
  after = snapshot(db);
  tap_ok(strcmp(before, after) == 0 && has(db, "t", 0) && !has(db, "t", 102),
         "... is undone whole");
  free(after);
  free(before);
  sqlite3_close(db);
}

static void test_connections(void) {
  const char *path = temp_db_file("window", "two");
  sqlite3 *a = open_db_at(path), *b = open_db_at(path);
  must_exec(a, "PRAGMA journal_mode = WAL; CREATE VIRTUAL TABLE t USING "
               "cuckoo_store(fpr = 1e-5, window = '1 hour', clock = "
               "'events')");
  add_at(a, "t", 1, 1000000);
  int seen = has(b, "t", 1);
  add_at(a, "t", 2, 1000000 + 4500);
  int gone = !has(b, "t", 1) && has(b, "t", 2);
  add_at(b, "t", 3, 1000000 + 4600);
  tap_ok(seen && gone && has(a, "t", 3) && !has(a, "t", 1),
         "two connections follow each other's generations");
  sqlite3_close(a);
  sqlite3_close(b);
  a = open_db_at(path);
  int reopened = has(a, "t", 2) && has(a, "t", 3) && !has(a, "t", 1);
  must_exec(a, "VACUUM");
  tap_ok(reopened && has(a, "t", 2) && has(a, "t", 3),
         "reopened and after VACUUM");
  sqlite3_close(a);
  a = open_db_at(path);
  sqlite3_db_config(a, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
  add_at(a, "t", 4, 1000000 + 9000);
  must_exec(a, "INSERT INTO t(t) VALUES ('expire')");
  tap_ok(has(a, "t", 4) && !has(a, "t", 2) &&
             !exec_ok(a, "UPDATE t_config SET value = 1 WHERE key = 'time'"),
         "DEFENSIVE: the store writes and expires, direct writes are "
         "refused");
  sqlite3_close(a);
  remove(path);
}

/* --- one layer a generation ------------------------------------------ */

/* n values from `first` stamped evenly over the generation from start: a
** steady rate. */
static void feed(sqlite3 *db, sqlite3_int64 first, sqlite3_int64 start,
                 int n) {
  sqlite3_stmt *st = prep(db, "WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL "
                          "SELECT x + 1 FROM i WHERE x < ?3 - 1) INSERT INTO "
                          "t(value, at) SELECT ?1 + x, ?2 + x * ?4 / ?3 "
                          "FROM i", ARGS(a_int(first), a_int(start),
                                         a_int(n), a_int(SPAN)));
  if (st == NULL || sqlite3_step(st) != SQLITE_DONE)
    tap_diag("feed %d at %lld: %s", n, (long long)start, sqlite3_errmsg(db));
  sqlite3_finalize(st);
}

/* The export's layers beyond one a live generation. */
static sqlite3_int64 extra_layers(sqlite3 *db) {
  return q_int(db, "SELECT count(*) FROM bloom_layers((SELECT filter FROM "
               "t))", NOARGS) -
         q_int(db, "SELECT count(*) FROM t WHERE generation IS NOT NULL",
               NOARGS);
}

/* A generation's items: `per` each, or burst_times that in generation
** `burst` (-1: none).  The most extra layers seen from generation `from`
** on (checked at the end of each), and from the burst's expiry on. */
static void run_generations(sqlite3 *db, int per, int count, int burst,
                            int from, sqlite3_int64 *worst,
                            sqlite3_int64 *worst_after_burst) {
  sqlite3_int64 base = 999900; /* a multiple of SPAN */
  *worst = *worst_after_burst = 0;
  for (int g = 0; g < count; g++) {
    int n = g == burst ? 10 * per : per;
    feed(db, (sqlite3_int64)g * 10000000, base + (sqlite3_int64)g * SPAN, n);
    sqlite3_int64 extra = extra_layers(db);
    if (g >= from && extra > *worst) *worst = extra;
    /* the burst's generation is live for the G + 1 spans from its own */
    if (burst >= 0 && g >= burst + 9 && extra > *worst_after_burst)
      *worst_after_burst = extra;
  }
}

static void test_one_layer(void) {
  /* 30,000 items a generation: layers of more than 16 chunks (the screen
  ** before the exact count) */
  sqlite3 *db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE t USING bloom_store(fpr = 0.001, "
                "window = 3600, clock = 'events', capacity = 240000)");
  sqlite3_int64 worst, after;
  run_generations(db, 30000, 3 * 8, -1, 0, &worst, &after);
  tap_ok(worst == 0 &&
             q_int(db, "SELECT count(*) FROM t_config WHERE key GLOB "
                   "'gen.*.layer.0.capacity' AND value != 30000", NOARGS) == 0,
         "capacity = N fed N / G items a generation for three windows: one "
         "layer a generation of N / G (at most %lld more)", (long long)worst);
  sqlite3_close(db);
  db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE t USING bloom_store(fpr = 0.001, "
                "window = 3600, clock = 'events')");
  run_generations(db, 30000, 3 * 8, -1, 9, &worst, &after);
  tap_ok(worst == 0, "without capacity, a steady rate: one layer a "
         "generation once the first generation expired (at most %lld more)",
         (long long)worst);
  sqlite3_close(db);
  db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE t USING bloom_store(fpr = 0.001, "
                "window = 3600, clock = 'events')");
  run_generations(db, 3000, 5 * 8, 2 * 8, 9, &worst, &after);
  tap_ok(worst > 0 && after == 0, "without capacity, a 10x burst in one "
         "generation: one layer a generation again once it expired (%lld "
         "more while it was live, %lld after)", (long long)worst,
         (long long)after);
  sqlite3_close(db);
}

/* --- arguments and damage ---------------------------------------------- */

static const bad_arguments bad_window_arguments[] = {
    {"window = 0", "window must be a number of seconds from 1 to"},
    {"window = -5", "window must be a number of seconds"},
    {"window = 1.5", "window must be a number of seconds"},
    {"window = '3 fortnights'", "window must be a number of seconds"},
    {"window = '2 hours ago'", "window must be a number of seconds"},
    {"window = 'hours'", "window must be a number of seconds"},
    {"window = 4294967297", "window must be a number of seconds"},
    {"window = '99999999 weeks'", "window must be a number of seconds"},
    {"window = 10, window = 10", "window is given twice"},
    {"window = 10, generations = 0", "generations must be an integer from 1 "
                                     "to 32"},
    {"window = 10, generations = 33", "generations must be an integer"},
    {"window = 10, generations = 2, generations = 2",
     "generations is given twice"},
    {"window = 10, clock = 'sun'", "clock must be 'wall' or 'events'"},
    {"window = 10, clock = 'wall', clock = 'wall'", "clock is given twice"},
    {"generations = 4", "generations applies to a store with a window"},
    {"clock = 'events'", "clock applies to a store with a window"},
    {"window = 10, growth = 2", "growth and tightening do not apply"},
    {"window = 10, tightening = 0.5", "growth and tightening do not apply"},
    /* (G + 1) * 2^16 * 10 * 1e-12: 5.898e-6 at G = 8, 1.966e-6 at 2 */
    {"window = 10, fpr = 1e-12",
     "with 8 generations a windowed store needs fpr >= 5.9e-06"},
    {"window = 10, fpr = 5.8e-6",
     "with 8 generations a windowed store needs fpr >= 5.9e-06"},
    {"window = 10, generations = 2, fpr = 1e-6",
     "with 2 generations a windowed store needs fpr >= 2e-06"},
    {"window = 10, windows = 2", "unknown argument \"windows\""},
};

static void test_arguments(void) {
  sqlite3 *db = open_db(NULL);
  static const struct { const char *arg; sqlite3_int64 seconds; } good[] = {
      {"90", 90},           {"'1 second'", 1},    {"'30 minutes'", 1800},
      {"'24 hours'", 86400}, {"'1 hour'", 3600},  {"'7 days'", 604800},
      {"'2 weeks'", 1209600}, {"\"1 day\"", 86400}};
  int right = 1;
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    char sql[160];
    snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS g; CREATE VIRTUAL TABLE "
             "g USING bloom_store(window = %s)", good[i].arg);
    must_exec(db, sql);
    right &= q_int(db, "SELECT value FROM g_config WHERE key = 'window'",
                   NOARGS) == good[i].seconds;
  }
  tap_ok(right && q_int(db, "SELECT value FROM g_config WHERE key = "
                        "'generations'", NOARGS) == 8 &&
             q_int(db, "SELECT value = 'wall' FROM g_config WHERE key = "
                   "'clock'", NOARGS) == 1,
         "window in seconds or units; generations 8 and the wall clock by "
         "default");
  /* the command column is named as the table, as in FTS5 */
  expect_error(db, "a windowed store named as one of its columns",
               "CREATE VIRTUAL TABLE fpr USING bloom_store(window = 60)", NOARGS,
               "bloom_store: duplicate column name: fpr", 0);
  for (int kind = 0; kind < 2; kind++)
    check_bad_arguments(db, modules[kind], bad_window_arguments,
                        sizeof bad_window_arguments /
                            sizeof bad_window_arguments[0]);
  sqlite3_close(db);
}

static void test_damage(void) {
  /* value 1 at 1000000, G = 4: generation 1111 (span 900), slot 1111 mod
  ** 5 = 1 */
  static const char *const changes[] = {
      "UPDATE s_config SET value = '3600' WHERE key = 'window'",
      "UPDATE s_config SET value = 0 WHERE key = 'window'",
      "UPDATE s_config SET value = 4294967297 WHERE key = 'window'",
      "UPDATE s_config SET value = 0 WHERE key = 'generations'",
      "UPDATE s_config SET value = 33 WHERE key = 'generations'",
      "UPDATE s_config SET value = 4.0 WHERE key = 'generations'",
      "UPDATE s_config SET value = 'sun' WHERE key = 'clock'",
      "UPDATE s_config SET value = 1 WHERE key = 'clock'",
      "UPDATE s_config SET value = -1 WHERE key = 'time'",
      "UPDATE s_config SET value = 1.5 WHERE key = 'time'",
      "UPDATE s_config SET value = NULL WHERE key = 'time'",
      "UPDATE s_config SET value = 2 WHERE key = 'adaptive'",
      "UPDATE s_config SET value = value + 1 WHERE key = 'time'",
      "INSERT INTO s_config VALUES ('gen.5.layers', 1)",
      "INSERT INTO s_config VALUES ('gen.6.layer.0.capacity', 1)",
      "INSERT INTO s_config VALUES ('gen.3.number', 'x')",
      "INSERT INTO s_config VALUES ('gen.3.number', -2)",
      "INSERT INTO s_config VALUES ('gen.3.layer.0.foo', 1)",
      "DELETE FROM s_config WHERE key = 'window'",
      "DELETE FROM s_config WHERE key = 'generations'",
      "DELETE FROM s_config WHERE key = 'clock'",
      "DELETE FROM s_config WHERE key = 'time'",
      "DELETE FROM s_config WHERE key = 'adaptive'",
      "INSERT INTO s_config VALUES ('windows', 1)",
      "INSERT INTO s_config VALUES ('gen.1.bogus', 1)",
      "INSERT INTO s_config VALUES ('gen.01.number', 1111)",
      "INSERT INTO s_config VALUES ('gen.64.number', 64)",
      "INSERT INTO s_config VALUES ('gen.1.layer.0.bogus', 1)",
      "INSERT INTO s_config VALUES ('gen.1.layer.x.bits', 1)",
      "INSERT INTO s_config VALUES ('gen.6.number', 6)",
      "INSERT INTO s_config VALUES ('growth', 2)",
      "INSERT INTO s_config VALUES ('layer.0.capacity', 2)",
      "UPDATE s_config SET value = 1112 WHERE key = 'gen.1.number'",
      "UPDATE s_config SET value = 1116 WHERE key = 'gen.1.number'",
      "UPDATE s_config SET value = '1111' WHERE key = 'gen.1.number'",
      "UPDATE s_config SET value = 0 WHERE key = 'gen.1.layers'",
      "UPDATE s_config SET value = 2 WHERE key = 'gen.1.layers'",
      "DELETE FROM s_config WHERE key = 'gen.1.layers'",
      ("UPDATE s_config SET value = 'x' WHERE key LIKE 'gen.1.layer.0.%' AND "
       "key LIKE '%capacity'"),
      "UPDATE s_config SET value = 1.5 WHERE key = 'gen.1.layer.0.fpr'",
      "DELETE FROM s_config WHERE key = 'gen.1.layer.0.fpr'",
  };
  for (int kind = 0; kind < 2; kind++)
    check_config_damage_of(modules[kind], "window = 3600, generations = 4, "
                           "clock = 'events'",
                           "INSERT INTO s(value, at) VALUES (1, 1000000)",
                           changes, sizeof changes / sizeof changes[0]);
  tap_ok(1, "damaged configuration rows: %zu changes refused by both kinds",
         sizeof changes / sizeof changes[0]);
  sqlite3 *db = open_db(NULL);
  /* capacity: generation 1111's one layer is one chunk, id 1 << 40 */
  must_exec(db, "CREATE VIRTUAL TABLE s USING bloom_store(window = 3600, "
                "generations = 4, clock = 'events', capacity = 400); INSERT "
                "INTO s(value, at) VALUES (1, 1000000)");
  must_exec(db, "INSERT INTO s_chunks VALUES (3 << 40, zeroblob(10))");
  expect_error(db, "a chunk row in a slot no generation holds",
               "SELECT filter FROM s", NOARGS,
               "bloom_store: chunk 3298534883328 of s is outside its layers",
               0);
  must_exec(db, "DELETE FROM s_chunks WHERE id = 3 << 40;"
                "UPDATE s_chunks SET data = x'00' WHERE id = 1 << 40");
  expect_error(db, "a chunk row of the wrong length", "SELECT count(*) FROM "
               "s WHERE value = 1", NOARGS, "bloom_store: chunk 1099511627776 "
               "of s has 1 bytes", 0);
  sqlite3_close(db);
}

/* --- every statement ends ----------------------------------------------- */

/* Steps sql at most `bound` times: the rows it gave (each with columns), or
** -1 if it did not end by then, or gave a row of no column. */
static int bounded_rows(sqlite3 *db, const char *sql, int bound) {
  sqlite3_stmt *st = must_prep(db, sql);
  int rows = 0, rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW && rows <= bound) {
    if (sqlite3_data_count(st) == 0) rows = bound;
    rows++;
  }
  if (rc != SQLITE_DONE && rc != SQLITE_ROW)
    tap_diag("%s: %s", sql, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return rows > bound ? -1 : rows;
}

/* A generation that expired while no write came leaves its rows beside the
** live ones: the export passes over them, ends with one row, and is what
** it is once 'expire' deleted them.  Both clocks, both kinds: the export
** once looped, giving rows without columns. */
static void test_export_after_expiry(void) {
  const sqlite3_int64 T0 = 1700000000;
  for (int kind = 0; kind < 2; kind++)
    for (int events = 0; events < 2; events++) {
      sqlite3 *db = open_db(NULL);
      char sql[200];
      vfs_clock_seconds = T0;
      /* events: span 25, generations 40 and 44; time 1125 (generation 45)
      ** leaves 41..45 live.  wall: span 2, T0 and T0 - 4 live until the
      ** clock reads T0 + 2. */
      snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE w USING %s(window = "
               "%d, generations = %d, clock = '%s')", modules[kind],
               events ? 100 : 4, events ? 4 : 2, events ? "events" : "wall");
      must_exec(db, sql);
      add_at(db, "w", 1, events ? 1000 : T0 - 4);
      add_at(db, "w", 2, events ? 1100 : T0);
      if (events)
        must_exec(db, "UPDATE w_config SET value = 1125 WHERE key = 'time'");
      else
        vfs_clock_seconds = T0 + 3;
      int rows = bounded_rows(db, "SELECT length(filter) FROM w LIMIT 3", 3);
      int generations = bounded_rows(db, "SELECT generation FROM w", 10);
      sqlite3_int64 before =
          q_int(db, "SELECT length(filter) FROM w", NOARGS);
      char *hex = q_text(db, "SELECT hex(filter) FROM w", NOARGS);
      must_exec(db, "INSERT INTO w(w) VALUES ('expire')");
      char *after = q_text(db, "SELECT hex(filter) FROM w", NOARGS);
      tap_ok(rows == 1 && generations == 1 && before > 0 && hex && after &&
                 strcmp(hex, after) == 0 && has(db, "w", 2) &&
                 bounded_rows(db, "SELECT * FROM w", 3) == 1,
             "%s, %s clock: the export beside an expired generation's rows "
             "ends with one row (%d), the one 'expire' leaves",
             modules[kind], events ? "events" : "wall", rows);
      free(hex);
      free(after);
      sqlite3_close(db);
    }
  vfs_clock_seconds = T0;
}

/* A generation's figures cost its rows, not its chunk numbers: a store of
** a huge capacity (a layer of about 10^11 chunk numbers, nearly none of
** them rows) answers its generation rows at once.  Once, each number was
** read, and the statement never ended. */
static int work_budget(void *left) {
  return --*(int *)left < 0; /* past it, the statement is interrupted */
}

static void test_huge_capacity(void) {
  for (int kind = 0; kind < 2; kind++) {
    sqlite3 *db = open_db(NULL);
    char sql[200];
    /* 2 * 10^7 VM instructions, nested statements' included: the old
    ** count took about one a chunk number, 10^11. */
    int left = 20000;
    snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE w USING %s(window = "
             "3600, capacity = 1e15, clock = 'events')", modules[kind]);
    must_exec(db, sql);
    add_at(db, "w", 1, 1000000);
    add_at(db, "w", 2, 1000000);
    sqlite3_progress_handler(db, 1000, work_budget, &left);
    int rows = bounded_rows(db, "SELECT generation, items, fpr FROM w", 3);
    sqlite3_int64 items = q_int(db, "SELECT items FROM w", NOARGS);
    sqlite3_progress_handler(db, 0, NULL, NULL);
    tap_ok(rows == 1 && items == 2 && left >= 0,
           "%s of capacity 1e15: its generation row counts 2 items from the "
           "rows there are, within a bounded amount of work",
           modules[kind]);
    sqlite3_close(db);
  }
}

/* Rows a reader does not use are ignored whatever they hold: those of an
** expired generation, of a slot without its number row, and of a layer
** past its generation's count.  Each change, made to a store holding 1 at
** 1000000 (generation 1111, slot 1, G = 4, span 900), leaves the export as
** it was. */
static void test_ignored_rows(void) {
  static const char *const changes[] = {
      /* slot 2, generation 1102: expired (live are 1107..1111) */
      "INSERT INTO s_config VALUES ('gen.2.number', 1102), "
      "('gen.2.layers', 3)",
      "INSERT INTO s_config VALUES ('gen.2.number', 1102), "
      "('gen.2.layers', 'junk'), ('gen.2.layer.0.capacity', -5), "
      "('gen.2.layer.0.fpr', 'x')",
      /* slot 3: no number row */
      "INSERT INTO s_config VALUES ('gen.3.layers', 'junk')",
      "INSERT INTO s_config VALUES ('gen.3.layers', 99), "
      "('gen.3.layer.0.capacity', 'x')",
      /* a layer past slot 1's one layer */
      "INSERT INTO s_config VALUES ('gen.1.layer.1.capacity', 'x'), "
      "('gen.1.layer.5.fpr', -1.0)",
  };
  int same = 0;
  for (int kind = 0; kind < 2; kind++)
    for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++) {
      const char *path = temp_db_file(modules[kind], "ignored");
      sqlite3 *db = open_db_at(path);
      char sql[200];
      snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE s USING %s(window = "
               "3600, generations = 4, clock = 'events')", modules[kind]);
      must_exec(db, sql);
      add_at(db, "s", 1, 1000000);
      char *before = q_text(db, "SELECT hex(filter) FROM s", NOARGS);
      must_exec(db, changes[i]);
      sqlite3_close(db);
      db = open_db_at(path);
      char *after = q_text(db, "SELECT hex(filter) FROM s", NOARGS);
      int ok = before && after && strcmp(before, after) == 0 &&
               has(db, "s", 1);
      if (!ok) tap_diag("%s: %s: %s", modules[kind], changes[i],
                        sqlite3_errmsg(db));
      same += ok;
      free(before);
      free(after);
      sqlite3_close(db);
      remove(path);
    }
  tap_ok(same == 2 * (int)(sizeof changes / sizeof changes[0]),
         "rows of an expired generation, of a slot without a number and of "
         "a layer past the count are ignored (%d of %zu)", same,
         2 * sizeof changes / sizeof changes[0]);
}

int main(void) {
  if (vfs_clock_install() != SQLITE_OK) {
    tap_diag("cannot install the test clock");
    return 2;
  }
  test_arguments();
  test_wall_clock();
  test_at();
  test_at_events();
  test_if_new();
  test_delete_and_rows();
  test_expire();
  test_transactions();
  test_connections();
  test_damage();
  test_ignored_rows();
  test_export_after_expiry();
  test_huge_capacity();
  test_one_layer();
  for (int kind = 0; kind < 2; kind++) {
    simulate(kind, "", 4);
    simulate(kind, ", capacity = 400", 4);
  }
  simulate(0, "", 2);
  simulate(0, "", 8);
  return tap_done();
}
