/*
** Threads (run by `make check-all` under ThreadSanitizer).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Four threads, one connection each, on one WAL database.  They load the
** extension at the same moment (a barrier before sqlite3_load_extension:
** sqlite3_bloom_init sets sqlite3_api with a CAS so that this is not a
** data race), then for a few seconds each picks at random:
**   add    3 inserts in one transaction; AFTER INSERT triggers keep the
**          filter with bloom_add and a bloom_store (each connection with
**          its own store instance and chunk cache);
**   build  INSERT OR REPLACE its own bloom_build of all items;
**   test   no item tests 0 against the trigger-kept filter (bound as a
**          column, through bloom_ref and through bloom_probe), in one read
**          transaction;
**   merge  bloom_merge of every thread's build: its inserted counter is
**          the sum of theirs (bloom_info), in one read transaction;
**   reload now and then, a second connection that loads the extension
**          again while the other threads call its functions.
** At the end the store must be exactly bloom_build over the items, a
** windowed store (events clock) must hold every item inside its window, and a
** scalable store kept the same way (growing while every connection holds
** its layers) must hold every item, counted once.
** Any wrong answer or unexpected error fails; under TSan any report makes
** the process exit non-zero.  BLOOM_THREADS_SECONDS sets the duration
** (default 3).
*/
#define _GNU_SOURCE

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/sqldb.h"
#include "lib/clock.h"
#include "lib/rng.h"
#include "lib/tap.h"

#define THREADS 4

static char path[300];
static pthread_barrier_t barrier;
static double deadline;

typedef struct worker {
  int id;
  uint64_t rng;
  int loaded;
  long long ops[5], busy, wrong, errors;
  char first_error[256];
} worker;

static void note_error(worker *w, sqlite3 *db, int rc, const char *what) {
  if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
    w->busy++;
    return;
  }
  if (w->errors++ == 0)
    snprintf(w->first_error, sizeof w->first_error, "%s: rc %d: %s", what, rc,
             sqlite3_errmsg(db));
}

/* The first column of the one row of sql as an integer; -1 on error. */
static long long one_int(worker *w, sqlite3 *db, const char *sql,
                         long long bind1, const char *what) {
  sqlite3_stmt *st = NULL;
  long long v = -1;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc == SQLITE_OK) {
    if (strstr(sql, "?1")) sqlite3_bind_int64(st, 1, bind1);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
      v = sqlite3_column_int64(st, 0);
      rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
      rc = SQLITE_OK;
    }
  }
  if (rc != SQLITE_OK) note_error(w, db, rc, what);
  sqlite3_finalize(st);
  return rc == SQLITE_OK ? v : -1;
}

static int exec_or_note(worker *w, sqlite3 *db, const char *sql,
                        const char *what) {
  int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
  if (rc != SQLITE_OK) {
    note_error(w, db, rc, what);
    if (!sqlite3_get_autocommit(db))
      sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  }
  return rc;
}

static sqlite3 *open_conn(void) {
  sqlite3 *db = NULL;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_busy_timeout(db, 20000);
  return db;
}

static void *work(void *self) {
  worker *w = self;
  sqlite3 *db = open_conn();
  pthread_barrier_wait(&barrier);
  /* Every thread loads at the same moment. */
  char *err = NULL;
  w->loaded = db && load_bloom(db, &err) == SQLITE_OK;
  if (!w->loaded)
    snprintf(w->first_error, sizeof w->first_error, "load: %s",
             err ? err : "cannot open");
  free(err);
  pthread_barrier_wait(&barrier);
  if (!w->loaded) {
    sqlite3_close(db);
    return NULL;
  }
  long long next_id = (long long)w->id * 1000000000LL;
  char sql[512];
  while (now() < deadline) {
    int op = (int)(splitmix64(&w->rng) % 20);
    if (op < 8) { /* add */
      snprintf(sql, sizeof sql,
               "BEGIN IMMEDIATE; INSERT INTO items(id) VALUES (%lld), (%lld),"
               " (%lld); COMMIT;", next_id, next_id + 1, next_id + 2);
      if (exec_or_note(w, db, sql, "add") == SQLITE_OK) next_id += 3;
      w->ops[0]++;
    } else if (op < 11) { /* build */
      snprintf(sql, sizeof sql,
               "INSERT OR REPLACE INTO built(tid, f) SELECT %d, "
               "bloom_build(id, 20000, 0.01) FROM items", w->id);
      exec_or_note(w, db, sql, "build");
      w->ops[1]++;
    } else if (op < 16) { /* test */
      if (exec_or_note(w, db, "BEGIN", "test") != SQLITE_OK) continue;
      long long a = one_int(w, db,
                            "SELECT count(*) FROM items, filters WHERE "
                            "filters.name = 'items' AND "
                            "bloom_test(filters.f, items.id) IS NOT 1",
                            0, "test");
      long long b = one_int(w, db,
                            "SELECT count(*) FROM bloom_ref((SELECT f FROM "
                            "filters WHERE name = 'items')) AS r CROSS JOIN "
                            "items WHERE bloom_test(r.filter, items.id)",
                            0, "test via bloom_ref");
      long long c = one_int(w, db,
                            "SELECT count(*) FROM items WHERE bloom_probe("
                            "'SELECT f FROM filters WHERE name = ''items''', "
                            "items.id)",
                            0, "test via bloom_probe");
      long long n = one_int(w, db, "SELECT count(*) FROM items", 0, "count");
      long long in = one_int(w, db,
                             "SELECT coalesce((SELECT inserted FROM bloom_info("
                             "(SELECT f FROM filters WHERE name = 'items'))), 0)",
                             0, "info");
      exec_or_note(w, db, "COMMIT", "test");
      if (a >= 0 && b >= 0 && c >= 0 && n >= 0 && in >= 0 &&
          (a != 0 || b != n || c != n || in != n)) {
        if (w->wrong++ == 0)
          snprintf(w->first_error, sizeof w->first_error,
                   "test: %lld items test 0, %lld of %lld via bloom_ref, "
                   "%lld via bloom_probe, counter %lld", a, b, n, c, in);
      }
      w->ops[2]++;
    } else if (op < 19) { /* merge */
      long long ok = one_int(
          w, db,
          "SELECT (SELECT inserted FROM bloom_info((SELECT bloom_merge(f) FROM "
          "built))) IS (SELECT sum(i.inserted) FROM built, bloom_info(built.f) "
          "AS i)",
          0, "merge");
      if (ok == 0 && w->wrong++ == 0)
        snprintf(w->first_error, sizeof w->first_error,
                 "merge: the counter is not the sum of the parts");
      w->ops[3]++;
    } else { /* reload on a second connection */
      sqlite3 *db2 = open_conn();
      char *e2 = NULL;
      if (!db2 || load_bloom(db2, &e2) != SQLITE_OK) {
        if (w->errors++ == 0)
          snprintf(w->first_error, sizeof w->first_error, "reload: %s",
                   e2 ? e2 : "cannot open");
      } else if (one_int(w, db2, "SELECT bloom_test(bloom_add(bloom_empty(10),"
                                 " ?1), ?1)", next_id, "reload probe") != 1) {
        w->wrong++;
      }
      free(e2);
      sqlite3_close(db2);
      w->ops[4]++;
    }
  }
  sqlite3_close(db);
  return NULL;
}

int main(void) {
  const char *secs = getenv("BLOOM_THREADS_SECONDS");
  double seconds = secs ? atof(secs) : 3.0;
  const char *tmp = getenv("TMPDIR");
  char dir[256];
  snprintf(dir, sizeof dir, "%s/bloom-threads-XXXXXX", tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    printf("Bail out! mkdtemp\n");
    return 2;
  }
  snprintf(path, sizeof path, "%s/shared.db", dir);
  if (sqlite3_threadsafe() == 0) {
    printf("Bail out! libsqlite3 is built without thread support\n");
    return 2;
  }
  /* The schema, without the extension: the threads load it. */
  sqlite3 *db = NULL;
  if (sqlite3_open(path, &db) != SQLITE_OK ||
      !exec_ok(db,
               "PRAGMA journal_mode = WAL;"
               "CREATE TABLE items(id INTEGER PRIMARY KEY);"
               "CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);"
               "INSERT INTO filters VALUES ('items', NULL);"
               "CREATE TABLE built(tid INTEGER PRIMARY KEY, f BLOB);"
               "CREATE TRIGGER items_ai AFTER INSERT ON items BEGIN"
               "  UPDATE filters SET f = bloom_add(coalesce(f,"
               "  bloom_empty(20000, 0.01)), NEW.id) WHERE name = 'items';"
               " END;")) {
    printf("Bail out! cannot create %s\n", path);
    return 2;
  }
  sqlite3_close(db);
  /* A bloom_store kept by a second trigger: every thread's connection has
  ** its own store instance and chunk cache, which must see the others'
  ** commits. */
  {
    char *load_err = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK || load_bloom(db, &load_err) != SQLITE_OK ||
        !exec_ok(db,
                 "CREATE VIRTUAL TABLE seen USING bloom_store(capacity = 20000);"
                 "CREATE TRIGGER items_seen AFTER INSERT ON items BEGIN"
                 "  INSERT INTO seen(value) VALUES (NEW.id); END;"
                 "CREATE VIRTUAL TABLE grow USING bloom_store(capacity = 50,"
                 "  growth = 2);"
                 "CREATE TRIGGER items_grow AFTER INSERT ON items BEGIN"
                 "  INSERT INTO grow(value) VALUES (NEW.id); END;"
                 "CREATE VIRTUAL TABLE recent USING bloom_store(window = "
                 "  90, clock = 'events');"
                 "CREATE TRIGGER items_recent AFTER INSERT ON items BEGIN"
                 "  INSERT INTO recent(value, at) VALUES (NEW.id, NEW.id %"
                 "  1000000000); END;")) {
      printf("Bail out! cannot create the store in %s\n", path);
      return 2;
    }
    free(load_err);
    sqlite3_close(db);
  }

  pthread_barrier_init(&barrier, NULL, THREADS);
  pthread_t th[THREADS];
  worker w[THREADS];
  memset(w, 0, sizeof w);
  deadline = now() + seconds;
  for (int i = 0; i < THREADS; i++) {
    w[i].id = i;
    w[i].rng = UINT64_C(0x7ead5eed) + (uint64_t)i;
    if (pthread_create(&th[i], NULL, work, &w[i]) != 0) {
      printf("Bail out! pthread_create\n");
      return 2;
    }
  }
  /* deadline counts from the start; the loads are in it */
  for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
  tap_diag("seed: 0x7ead5eed + thread number (%d threads, %.1f s)", THREADS,
           seconds);
  int loaded = 0;
  for (int i = 0; i < THREADS; i++) loaded += w[i].loaded;
  TAP_EQ_U64(loaded, THREADS, "every thread loaded the extension at once");
  for (int i = 0; i < THREADS; i++) {
    /* A thread that never tested or merged checked nothing concurrently. */
    if (!tap_ok(w[i].wrong == 0 && w[i].errors == 0 && w[i].ops[2] > 0 &&
                    w[i].ops[3] > 0,
                "thread %d: %lld adds, %lld builds, %lld tests, %lld merges, "
                "%lld re-loads (%lld busy retries), %lld wrong, %lld errors",
                i, w[i].ops[0], w[i].ops[1], w[i].ops[2], w[i].ops[3],
                w[i].ops[4], w[i].busy, w[i].wrong, w[i].errors))
      tap_diag("  first: %s", w[i].first_error);
  }
  /* The end state: every item in the filter. */
  sqlite3_open(path, &db);
  char *err = NULL;
  load_bloom(db, &err);
  free(err);
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM items, filters WHERE "
                       "bloom_test(filters.f, items.id) IS NOT 1", NOARGS),
             0, "at the end, every item tests 1 (%lld items)",
             q_int(db, "SELECT count(*) FROM items", NOARGS));
  TAP_EQ_U64(q_int(db, "SELECT (SELECT filter FROM seen) IS coalesce((SELECT "
                       "bloom_build(id, 20000, 0.01) FROM items), "
                       "bloom_empty(20000, 0.01))", NOARGS),
             1, "the store kept by every thread's trigger is exactly "
                "bloom_build over the items");
  /* The scalable store grew while other connections held its layers: each
  ** must have followed, adding to the newest layer only. */
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM items WHERE NOT EXISTS (SELECT 1"
                       " FROM grow WHERE value = items.id)", NOARGS),
             0, "every item is in the scalable store (%lld layers)",
             q_int(db, "SELECT value FROM grow_config WHERE key = 'layers'",
                   NOARGS));
  TAP_EQ_U64(q_int(db, "SELECT inserted FROM bloom_info((SELECT filter FROM "
                       "grow))", NOARGS),
             (uint64_t)q_int(db, "SELECT count(*) FROM items", NOARGS),
             "its layers counted every item once");
  /* The windowed store (events clock, `at` each thread's own count) made
  ** and expired generations while the others held them: every item
  ** inside the window at the end is in it. */
  TAP_EQ_U64(q_int(db, "SELECT count(*) FROM items WHERE id % 1000000000 >= "
                       "(SELECT max(id % 1000000000) FROM items) - 90 AND "
                       "NOT EXISTS (SELECT 1 FROM recent WHERE value = "
                       "items.id)", NOARGS),
             0, "every item inside the window is in the windowed store");
  sqlite3_close(db);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) tap_diag("could not remove %s", dir);
  return tap_done();
}
