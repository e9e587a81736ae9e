/*
** I/O faults and crashes (run by `make check-all`).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** A table `items` whose filter in `filters` is kept by an AFTER INSERT
** trigger (UPDATE filters SET f = bloom_add(f, NEW.id)), a bloom_store
** `seen`, a cuckoo_store `live`, a scalable bloom_store `grow` (from 100
** items, so that it adds layers) and a windowed bloom_store `recent`
** (window 100 on the events clock, `at` the row's id, so that generations
** are made and expire), a growing quotient_store `qgrow` and one sized for
** 100 items, `qsized` (four values a row, 4 * id + 0..3, so that their
** leaves split: the fault sweep's database has 1024-byte pages, leaves of
** at most 154 entries) by six more triggers, written in
** transactions of 5 rows (every 7th also rebuilds the filter with
** bloom_build).  After every disaster the database is reopened cleanly
** (default VFS) and must satisfy:
**   - PRAGMA integrity_check is 'ok';
**   - no row of items tests 0 against the filter;
**   - the filter's `inserted` counter equals count(*) of items (the
**     trigger's update and the insert are one atomic unit);
**   - every transaction is there whole or not at all (5 rows or none);
**   - every transaction whose COMMIT returned SQLITE_OK is there;
**   - every row is in the bloom_store, whose export is exactly bloom_build
**     over the table, in the cuckoo_store, which holds as many
**     fingerprints as the table rows, and in the scalable store, whose
**     layers together counted each row once; every row within the last
**     100 ids is in the windowed store; every value of every row is in
**     both quotient stores, whose exports hold 4 entries a row (none lost
**     or doubled) in leaves that lib/quotient_spec.h finds whole.
**
** 1. A VFS shim ("faulty") registered here delegates to the default VFS
**    and fails the Nth xWrite/xSync/xTruncate call (one-shot: only that
**    one; persistent: that one and every later one), in WAL and in
**    rollback-journal (DELETE) mode, for N = 1, 2, ... until the workload
**    runs without reaching N.
** 2. A writer process running the workload is SIGKILLed at a random
**    moment, 20 rounds alternating WAL and DELETE mode, on two databases
**    that accumulate across rounds.  The seed is printed (# seed:) and
**    can be given as the first argument.
**
** The databases live in a fresh directory under $TMPDIR (or /dev/shm when
** it exists: the faults are simulated, fsync speed is not the point).
*/
#define _GNU_SOURCE

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/sqldb.h"
#include "lib/clock.h"
#include "lib/quotient_spec.h"
#include "lib/rng.h"
#include "lib/tap.h"

/* ---- the fault-injecting VFS shim ---------------------------------------- */

static sqlite3_vfs *real_vfs;
static sqlite3_vfs shim_vfs;
static long long io_calls, io_fail_at, io_fired;
static int io_persistent;

typedef struct shim_file {
  sqlite3_file base;
  sqlite3_file *real; /* follows this struct in the same allocation */
} shim_file;

static int io_should_fail(void) {
  if (io_fail_at == 0) return 0;
  io_calls++;
  if (io_calls == io_fail_at || (io_persistent && io_calls > io_fail_at)) {
    io_fired++;
    return 1;
  }
  return 0;
}

#define REAL(f) (((shim_file *)(f))->real)

static int shim_close(sqlite3_file *f) {
  return REAL(f)->pMethods->xClose(REAL(f));
}
static int shim_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off) {
  return REAL(f)->pMethods->xRead(REAL(f), buf, n, off);
}
static int shim_write(sqlite3_file *f, const void *buf, int n,
                      sqlite3_int64 off) {
  if (io_should_fail()) return SQLITE_IOERR_WRITE;
  return REAL(f)->pMethods->xWrite(REAL(f), buf, n, off);
}
static int shim_truncate(sqlite3_file *f, sqlite3_int64 size) {
  if (io_should_fail()) return SQLITE_IOERR_TRUNCATE;
  return REAL(f)->pMethods->xTruncate(REAL(f), size);
}
static int shim_sync(sqlite3_file *f, int flags) {
  if (io_should_fail()) return SQLITE_IOERR_FSYNC;
  return REAL(f)->pMethods->xSync(REAL(f), flags);
}
static int shim_file_size(sqlite3_file *f, sqlite3_int64 *size) {
  return REAL(f)->pMethods->xFileSize(REAL(f), size);
}
static int shim_lock(sqlite3_file *f, int lock) {
  return REAL(f)->pMethods->xLock(REAL(f), lock);
}
static int shim_unlock(sqlite3_file *f, int lock) {
  return REAL(f)->pMethods->xUnlock(REAL(f), lock);
}
static int shim_check_reserved(sqlite3_file *f, int *out) {
  return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}
static int shim_file_control(sqlite3_file *f, int op, void *p_arg) {
  return REAL(f)->pMethods->xFileControl(REAL(f), op, p_arg);
}
static int shim_sector_size(sqlite3_file *f) {
  return REAL(f)->pMethods->xSectorSize(REAL(f));
}
static int shim_device_characteristics(sqlite3_file *f) {
  return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}
static int shim_shm_map(sqlite3_file *f, int region, int size, int extend,
                        void volatile **out) {
  return REAL(f)->pMethods->xShmMap(REAL(f), region, size, extend, out);
}
static int shim_shm_lock(sqlite3_file *f, int offset, int n, int flags) {
  return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}
static void shim_shm_barrier(sqlite3_file *f) {
  REAL(f)->pMethods->xShmBarrier(REAL(f));
}
static int shim_shm_unmap(sqlite3_file *f, int del) {
  return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}
static int shim_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **out) {
  return REAL(f)->pMethods->xFetch(REAL(f), off, n, out);
}
static int shim_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p) {
  return REAL(f)->pMethods->xUnfetch(REAL(f), off, p);
}

static const sqlite3_io_methods shim_methods = {
    3, shim_close, shim_read, shim_write, shim_truncate, shim_sync,
    shim_file_size, shim_lock, shim_unlock, shim_check_reserved,
    shim_file_control, shim_sector_size, shim_device_characteristics,
    shim_shm_map, shim_shm_lock, shim_shm_barrier, shim_shm_unmap,
    shim_fetch, shim_unfetch};

static int shim_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f,
                     int flags, int *out_flags) {
  (void)vfs;
  shim_file *s = (shim_file *)f;
  s->real = (sqlite3_file *)(s + 1);
  int rc = real_vfs->xOpen(real_vfs, name, s->real, flags, out_flags);
  /* The unix VFS's files are version 3; the shim forwards all of it. */
  f->pMethods = s->real->pMethods ? &shim_methods : NULL;
  return rc;
}

static void shim_register(void) {
  real_vfs = sqlite3_vfs_find(NULL);
  shim_vfs = *real_vfs;
  shim_vfs.zName = "faulty";
  shim_vfs.szOsFile = (int)sizeof(shim_file) + real_vfs->szOsFile;
  shim_vfs.xOpen = shim_open;
  shim_vfs.pNext = NULL;
  sqlite3_vfs_register(&shim_vfs, 0);
}

/* ---- the workload and the checks ------------------------------------------ */

static char dir[256];

static const char SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS items(id INTEGER PRIMARY KEY, v TEXT);"
    "CREATE TABLE IF NOT EXISTS filters(name TEXT PRIMARY KEY, f BLOB);"
    "INSERT OR IGNORE INTO filters VALUES ('items', bloom_empty(20000, 0.01));"
    "CREATE TRIGGER IF NOT EXISTS items_ai AFTER INSERT ON items BEGIN"
    "  UPDATE filters SET f = bloom_add(f, NEW.id) WHERE name = 'items';"
    " END;"
    "CREATE VIRTUAL TABLE IF NOT EXISTS seen USING bloom_store("
    "  capacity = 20000, fpr = 0.01);"
    "CREATE TRIGGER IF NOT EXISTS items_seen AFTER INSERT ON items BEGIN"
    "  INSERT INTO seen(value) VALUES (NEW.id);"
    " END;"
    "CREATE VIRTUAL TABLE IF NOT EXISTS live USING cuckoo_store("
    "  capacity = 400000, fpr = 0.01);"
    "CREATE TRIGGER IF NOT EXISTS items_live AFTER INSERT ON items BEGIN"
    "  INSERT INTO live(value) VALUES (NEW.id);"
    " END;"
    "CREATE VIRTUAL TABLE IF NOT EXISTS grow USING bloom_store("
    "  capacity = 100, growth = 2, fpr = 0.01);"
    "CREATE TRIGGER IF NOT EXISTS items_grow AFTER INSERT ON items BEGIN"
    "  INSERT INTO grow(value) VALUES (NEW.id);"
    " END;"
    "CREATE VIRTUAL TABLE IF NOT EXISTS recent USING bloom_store("
    "  fpr = 0.01, window = 100, clock = 'events');"
    "CREATE TRIGGER IF NOT EXISTS items_recent AFTER INSERT ON items BEGIN"
    "  INSERT INTO recent(value, at) VALUES (NEW.id, NEW.id);"
    " END;"
    "CREATE VIRTUAL TABLE IF NOT EXISTS qgrow USING quotient_store("
    "  fpr = 0.01);"
    "CREATE TRIGGER IF NOT EXISTS items_qgrow AFTER INSERT ON items BEGIN"
    "  INSERT INTO qgrow(value) VALUES (4 * NEW.id), (4 * NEW.id + 1),"
    "  (4 * NEW.id + 2), (4 * NEW.id + 3);"
    " END;"
    "CREATE VIRTUAL TABLE IF NOT EXISTS qsized USING quotient_store("
    "  capacity = 100, fpr = 0.01);"
    "CREATE TRIGGER IF NOT EXISTS items_qsized AFTER INSERT ON items BEGIN"
    "  INSERT INTO qsized(value) VALUES (4 * NEW.id), (4 * NEW.id + 1),"
    "  (4 * NEW.id + 2), (4 * NEW.id + 3);"
    " END;";

/* Transaction k inserts ids 5k .. 5k+4; every 7th rebuilds the filter. */
static int run_txn(sqlite3 *db, long long k) {
  char sql[512];
  snprintf(sql, sizeof sql,
           "BEGIN IMMEDIATE;"
           "INSERT INTO items(id, v) VALUES (%lld, 'a'), (%lld, 'b'),"
           " (%lld, 'c'), (%lld, 'd'), (%lld, hex(randomblob(40)));"
           "%s"
           "COMMIT;",
           5 * k, 5 * k + 1, 5 * k + 2, 5 * k + 3, 5 * k + 4,
           k % 7 == 6 ? "UPDATE filters SET f = (SELECT bloom_build(id, 20000,"
                        " 0.01) FROM items) WHERE name = 'items';"
                      : "");
  int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
  if (rc != SQLITE_OK && !sqlite3_get_autocommit(db))
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

static sqlite3 *open_with_vfs(const char *path, const char *vfs,
                              const char *mode) {
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(path, &db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs);
  if (rc != SQLITE_OK) {
    sqlite3_close(db);
    return NULL;
  }
  sqlite3_busy_timeout(db, 5000);
  char *err = NULL;
  if (load_bloom(db, &err) != SQLITE_OK) {
    printf("Bail out! cannot load %s: %s\n", bloom_so_path(), err ? err : "?");
    exit(2);
  }
  free(err);
  if (mode) {
    char sql[128];
    snprintf(sql, sizeof sql,
             "PRAGMA journal_mode = %s; PRAGMA synchronous = FULL;", mode);
    sqlite3_exec(db, sql, NULL, NULL, NULL);
  }
  return db;
}

/* Reopens path cleanly and checks it; committed[k] != 0 for transactions
** whose COMMIT succeeded (up to n).  Returns 1 when all holds, printing
** what does not. */
/* Every row of items is in the store named `store`, and `exact` (a query
** giving 1) holds; else says what is wrong and returns 0. */
static int store_checks_out(sqlite3 *db, const char *store, const char *exact,
                            const char *what) {
  char sql[200];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM items WHERE NOT EXISTS "
           "(SELECT 1 FROM %s WHERE value = items.id)", store);
  long long misses = q_int(db, sql, NOARGS);
  long long exact_ok = q_int(db, exact, NOARGS);
  if (misses == 0 && exact_ok == 1) return 1;
  tap_diag("  %s: store %s: %lld rows absent, %s", what, store, misses,
           exact_ok == 1 ? "its contents as expected" : "its contents wrong");
  return 0;
}

static int check_db(const char *path, const unsigned char *committed,
                    long long n, const char *what) {
  sqlite3 *db = open_with_vfs(path, NULL, NULL);
  if (!db) {
    tap_diag("  %s: cannot reopen %s", what, path);
    return 0;
  }
  int ok = 1;
  char *ic = q_text(db, "PRAGMA integrity_check", NOARGS);
  if (!ic || strcmp(ic, "ok") != 0) {
    tap_diag("  %s: integrity_check: %s", what, ic ? ic : "failed");
    ok = 0;
  }
  free(ic);
  long long misses = q_int(
      db, "SELECT count(*) FROM items, filters WHERE filters.name = 'items' "
          "AND bloom_test(filters.f, items.id) IS NOT 1", NOARGS);
  /* IS, not a difference: a missing filter row (inserted NULL) must fail. */
  long long counter_ok = q_int(
      db, "SELECT (SELECT inserted FROM bloom_info((SELECT f FROM filters "
          "WHERE name = 'items'))) IS (SELECT count(*) FROM items)", NOARGS);
  long long torn = q_int(
      db, "SELECT count(*) FROM (SELECT id / 5, count(*) AS c FROM items "
          "GROUP BY 1) WHERE c != 5", NOARGS);
  if (misses != 0 || counter_ok != 1 || torn != 0) {
    tap_diag("  %s: %lld rows test 0, inserted counter %s count(*), %lld "
             "partial transactions", what, misses,
             counter_ok == 1 ? "equals" : "missing or differs from", torn);
    ok = 0;
  }
  /* The stores kept by the second and third triggers: every row present,
  ** and the bloom_store exactly the filter bloom_build makes of the table
  ** (no torn chunk, no count lost or doubled), the cuckoo_store holding as
  ** many fingerprints as rows. */
  if (!store_checks_out(db, "seen",
                        "SELECT (SELECT filter FROM seen) IS coalesce((SELECT "
                        "bloom_build(id, 20000, 0.01) FROM items), "
                        "bloom_empty(20000, 0.01))", what) ||
      !store_checks_out(db, "live",
                        "SELECT (SELECT i.items FROM live, cuckoo_info("
                        "live.filter) AS i) IS (SELECT count(*) FROM items)",
                        what) ||
      /* the scalable store: its layers counted every row once */
      !store_checks_out(db, "grow",
                        "SELECT (SELECT inserted FROM bloom_info((SELECT "
                        "filter FROM grow))) IS (SELECT count(*) FROM items)",
                        what))
    ok = 0;
  /* the windowed store: every row inside its window (id >= max - 100) */
  long long late = q_int(db, "SELECT count(*) FROM items WHERE id >= (SELECT"
                         " max(id) FROM items) - 100 AND NOT EXISTS (SELECT 1"
                         " FROM recent WHERE value = items.id)", NOARGS);
  if (late != 0) {
    tap_diag("  %s: store recent: %lld rows inside the window absent", what,
             late);
    ok = 0;
  }
  static const char *const qstores[] = {"qgrow", "qsized"};
  for (int i = 0; i < 2; i++) {
    char sql[300];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM items, (SELECT 0 AS j "
             "UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3) WHERE "
             "NOT EXISTS (SELECT 1 FROM %s WHERE value = 4 * items.id + j)",
             qstores[i]);
    long long qmiss = q_int(db, sql, NOARGS);
    snprintf(sql, sizeof sql, "SELECT filter FROM %s", qstores[i]);
    int blen = 0;
    unsigned char *b = q_blob(db, sql, NOARGS, &blen);
    uint64_t items = 0;
    long long rows = q_int(db, "SELECT count(*) FROM items", NOARGS);
    int whole = b && spec_qleaves_valid(b, (size_t)blen) && spec_qleaves_all_valid(b, &items);
    if (qmiss != 0 || !whole || le64(b + 40) != items ||
        items != 4 * (uint64_t)rows) {
      tap_diag("  %s: store %s: %lld values absent; its export %s, %llu "
               "entries for %lld rows", what, qstores[i], qmiss,
               whole ? "whole" : "missing or damaged",
               (unsigned long long)items, rows);
      ok = 0;
    }
    free(b);
  }
  long long lost = 0;
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2(db,
                     "SELECT count(*) FROM items"
                     " WHERE id BETWEEN 5 * ?1 AND 5 * ?1 + 4",
                     -1, &st, NULL);
  for (long long k = 0; st && k < n; k++) {
    if (!committed[k]) continue;
    sqlite3_bind_int64(st, 1, k);
    if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int(st, 0) != 5)
      lost++;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  if (lost) {
    tap_diag("  %s: %lld committed transactions missing", what, lost);
    ok = 0;
  }
  sqlite3_close(db);
  return ok;
}

static void remove_db(const char *path) {
  char p[400];
  const char *suffix[] = {"", "-journal", "-wal", "-shm"};
  for (int i = 0; i < 4; i++) {
    snprintf(p, sizeof p, "%s%s", path, suffix[i]);
    unlink(p);
  }
}

#define IO_TXNS 12

/* One run: the workload with the Nth write/sync/truncate failing.  Returns
** 1 if the reopened database checks out; *fired gets the faults injected. */
static int io_run(const char *mode, long long n, int persistent,
                  long long *fired, int *errors) {
  char path[400];
  snprintf(path, sizeof path, "%s/io.db", dir);
  remove_db(path);
  /* A few committed transactions first, without faults. */
  unsigned char committed[IO_TXNS + 3] = {0};
  /* 1024-byte pages, set before WAL mode (which fixes them) */
  sqlite3 *db = open_with_vfs(path, NULL, NULL);
  char pragmas[160];
  snprintf(pragmas, sizeof pragmas, "PRAGMA page_size = 1024; PRAGMA "
           "journal_mode = %s; PRAGMA synchronous = FULL;", mode);
  if (!db || !exec_ok(db, pragmas) || !exec_ok(db, SCHEMA) ||
      q_int(db, "PRAGMA page_size", NOARGS) != 1024)
    exit(2);
  for (long long k = 0; k < 3; k++) committed[k] = run_txn(db, k) == SQLITE_OK;
  sqlite3_close(db);

  io_calls = 0;
  io_fired = 0;
  io_persistent = persistent;
  io_fail_at = n;
  *errors = 0;
  db = open_with_vfs(path, "faulty", mode);
  if (db) {
    for (long long k = 3; k < IO_TXNS + 3; k++) {
      int rc = run_txn(db, k);
      committed[k] = rc == SQLITE_OK;
      if (rc != SQLITE_OK) ++*errors;
      if (rc != SQLITE_OK && persistent) break;
    }
    sqlite3_close(db); /* may fail to checkpoint: that is fine */
  }
  io_fail_at = 0;
  *fired = io_fired;
  char what[128];
  snprintf(what, sizeof what, "%s, %s fault at call %lld", mode,
           persistent ? "persistent" : "one-shot", n);
  return check_db(path, committed, IO_TXNS + 3, what);
}

static void test_io_faults(void) {
  static const char *const modes[] = {"WAL", "DELETE"};
  for (int m = 0; m < 2; m++)
    for (int persistent = 0; persistent <= 1; persistent++) {
      double t0 = now();
      long long points = 0, bad = 0, with_errors = 0;
      for (long long n = 1;; n++) {
        long long fired = 0;
        int errors = 0;
        int ok = io_run(modes[m], n, persistent, &fired, &errors);
        if (fired == 0) {
          bad += !ok;
          break;
        }
        points++;
        bad += !ok;
        with_errors += errors > 0;
      }
      tap_ok(bad == 0 && points > 0 && with_errors > 0,
             "%s mode, %s faults in xWrite/xSync/xTruncate: %lld points "
             "swept (%lld gave the workload an error), %lld bad reopens",
             modes[m], persistent ? "persistent" : "one-shot", points,
             with_errors, bad);
      tap_diag("  %.1f s", now() - t0);
    }
}

/* ---- SIGKILL during writes ---------------------------------------------- */

/* The writer: transactions until killed; after each COMMIT that returned
** SQLITE_OK, writes k to the pipe. */
static void writer(const char *path, const char *mode, long long first_k,
                   int fd) {
  sqlite3 *db = open_with_vfs(path, NULL, mode);
  if (!db || !exec_ok(db, SCHEMA)) _exit(3);
  for (long long k = first_k;; k++) {
    if (run_txn(db, k) == SQLITE_OK) {
      if (write(fd, &k, sizeof k) != (ssize_t)sizeof k) _exit(4);
    }
  }
}

#define KILL_ROUNDS 20
#define MAX_TXNS 2000000

static void test_kill(uint64_t seed) {
  tap_diag("seed: 0x%016llx (SIGKILL rounds; give it as the first argument "
           "to repeat)", (unsigned long long)seed);
  uint64_t rng = seed;
  static unsigned char committed[2][MAX_TXNS];
  long long next_k[2] = {0, 0};
  static const char *const modes[] = {"WAL", "DELETE"};
  int bad = 0;
  long long total_txns = 0;
  for (int round = 0; round < KILL_ROUNDS; round++) {
    int m = round % 2;
    char path[400];
    snprintf(path, sizeof path, "%s/kill-%s.db", dir, modes[m]);
    int fds[2];
    if (pipe(fds) != 0) exit(2);
    long long first = next_k[m];
    unsigned delay_us = 20000 + (unsigned)(splitmix64(&rng) % 280000);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      writer(path, modes[m], first, fds[1]);
    }
    close(fds[1]);
    usleep(delay_us);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    long long k, got = 0, last = first - 1;
    while (read(fds[0], &k, sizeof k) == (ssize_t)sizeof k) {
      if (k >= 0 && k < MAX_TXNS) committed[m][k] = 1;
      if (k > last) last = k;
      got++;
    }
    close(fds[0]);
    /* The transaction in flight when killed may or may not be there. */
    next_k[m] = last + 2;
    total_txns += got;
    char what[128];
    snprintf(what, sizeof what, "round %d (%s, killed after %u us, %lld "
             "commits)", round, modes[m], delay_us, got);
    int killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    if (!killed) tap_diag("  %s: the writer exited by itself (%d)", what, status);
    if (!check_db(path, committed[m], next_k[m], what) || !killed) bad++;
  }
  tap_ok(bad == 0 && total_txns > 0,
         "%d writers SIGKILLed at random moments (WAL and DELETE, %lld "
         "commits in all, at least one): every reopen checks out",
         KILL_ROUNDS, total_txns);
}

int main(int argc, char **argv) {
  double t0 = now();
  uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x10fa017c0ffeeULL;
  const char *base = getenv("TMPDIR");
  struct stat sb;
  if (stat("/dev/shm", &sb) == 0 && S_ISDIR(sb.st_mode) &&
      access("/dev/shm", W_OK) == 0)
    base = "/dev/shm";
  snprintf(dir, sizeof dir, "%s/bloom-iofault-XXXXXX", base ? base : "/tmp");
  if (!mkdtemp(dir)) {
    printf("Bail out! mkdtemp: %s\n", strerror(errno));
    return 2;
  }
  shim_register();
  test_io_faults();
  test_kill(seed);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) tap_diag("could not remove %s", dir);
  tap_diag("total %.1f s", now() - t0);
  return tap_done();
}
