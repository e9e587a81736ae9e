/*
** make bench-usecases: when a filter pays.  The use cases the README
** teaches, timed against the plain SQLite way of doing the same job, on
** databases on disk, as ratios measured in the same run.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   idempotency   a table of USECASES_IDS request ids, `request_id TEXT
**                 PRIMARY KEY` (random 32-hex-digit ids) or `INTEGER
**                 PRIMARY KEY` (random 63-bit ids), a 64-byte response a
**                 row, against a copy of it whose AFTER INSERT trigger
**                 keeps a fixed bloom_store(capacity = 2 x ids, fpr =
**                 0.001), and a database holding only such a store.  Each
**                 flow runs on a list of incoming ids of which 0%, 10% or
**                 50% are retries (ids already processed):
**                   check     is this id new?  plain: EXISTS on the table;
**                             store: EXISTS on the store, and on the table
**                             only for a "maybe"
**                   record    the check, then an autocommit INSERT of each
**                             new id (the store's trigger adds it there)
**                   batch     the whole list checked, then its new ids
**                             INSERTed in one transaction
**                   if-new    one statement, the store the only record:
**                             INSERT OR IGNORE INTO seen(value), changes()
**                             telling new from repeat, against INSERT OR
**                             IGNORE into the table
**   exists        "probably exists" before a join: a batch of keys (10%
**                 present) against the TEXT table, attached and cold,
**                 through its PRIMARY KEY index (anti-join NOT EXISTS, and a
**                 join fetching the response), and on upper(request_id),
**                 which no index serves (100 keys, 1 present: NOT EXISTS
**                 scans the table per key, timed on two keys and scaled;
**                 NOT IN builds a transient index), each with and without
**                 bloom_probe over a BLOB filter (fpr 0.01) kept in the
**                 main database, as a filter shipped to where the table is
**                 not would be
**   urls          a crawler's "seen" set: a scalable bloom_store(fpr =
**                 0.001) that is the only record (INSERT OR IGNORE, as
**                 sql/crawl_frontier.sql) against a table crawled(url TEXT
**                 PRIMARY KEY), 50% of the URLs already seen, one URL per
**                 autocommit statement or a page of 100 links per
**                 transaction; and the bytes each takes on disk
**
** Each comparison runs under SQLite's defaults (cache_size 2 MB, no mmap)
** and then the documented tuning (cache_size the store's pages x 1.25 +
** 16 MB, mmap_size as large as SQLite allows), both in WAL mode with
** synchronous = NORMAL, cold and warm:
**   cold   the OS page cache emptied (`sync; echo 3 >
**          /proc/sys/vm/drop_caches` when root, else posix_fadvise
**          DONTNEED on the bench's files; USECASES_COLD=drop|fadvise|none),
**          fresh connections, then only the store's (or the filter's)
**          pages read back: a service whose filter stays hot and whose big
**          table does not
**   warm   every page of the files read into the OS page cache first, the
**          store's pages into SQLite's cache when it is large enough
** Plain and store sides of a comparison read different files, so one cache
** drop serves both; the exists queries read one file and get one drop
** each.  Rounds alternate which side runs first; figures are the median
** and the range over rounds, of the time per id (per batch for exists),
** and of the round's ratio store / plain (below 1: the filter pays).
** Every run checks its answers: the plain and filtered forms must agree,
** and a store may call a new id "maybe" but never a processed one "new"
** (the run stops if it does); false positives are counted.
**
** Databases (uc-IDS-*.db under DIR, git-ignored) are built once and
** reused; each run adds its new ids to them.  At 20,000,000 ids they take
** about 13 GB and 10 to 20 minutes to build; a run then takes 13 to 16
** minutes.
**
** Usage: usecases BLOOM_SO DIR
** env: USECASES_IDS (default 20000000), USECASES_ROUNDS (default 3 cold,
**      5 warm), USECASES_OPS (ids a warm run, default 2000; a cold run
**      takes a quarter), USECASES_COLD, USECASES_ONLY (a comma list of
**      text,int,exists,urls; "build" builds them all and stops), USECASES_MMAP (the tuning's mmap_size in
**      bytes, default as large as SQLite allows; 0 for none).
*/
#define _DEFAULT_SOURCE

#include <fcntl.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BENCH_NAME "usecases bench"
#include "machine.h"
#include "sqlbench.h"

enum { MAX_ROUNDS = 25 };

static long long n_ids;     /* rows in each table */
static int rounds_of[2] = {5, 3}; /* warm, cold */
static int ops_warm = 2000;
static const char *dir;
static enum { COLD_NONE, COLD_DROP, COLD_FADVISE } cold_how;
static const char *only;
static int have_if_new; /* the extension knows INSERT OR IGNORE on a store */

static const char *const temp_name[2] = {"warm", "cold"};
static const char *const cfg_name[2] = {"defaults", "tuned"};

/* ------------------------------------------------------------- the ids */

/* Kinds of item: a 32-hex-digit request id, a 63-bit one, a URL, and the
** request id in upper case (the key of the unindexed join). */
enum { K_TEXT, K_INT, K_URL, K_UPPER };

static uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

typedef struct item {
  sqlite3_int64 i; /* K_INT */
  char s[80];      /* the others */
} item;

/* Item number `i` of a kind: 0 to n_ids - 1 are in the databases; numbers
** from 2^62 up are new. */
static void item_of(int kind, uint64_t i, item *out) {
  static const char *const sections[] = {"news", "blog", "docs", "shop",
                                         "wiki", "forum", "tag", "user"};
  const char *digits = kind == K_UPPER ? "0123456789ABCDEF" : "0123456789abcdef";
  uint64_t a = mix64(i ^ 0x1d0e5a7e5eedULL), b = mix64(a ^ i);
  switch (kind) {
  case K_INT:
    out->i = (sqlite3_int64)(mix64(i ^ 0x1a7e6e5ULL) >> 1);
    break;
  case K_URL:
    snprintf(out->s, sizeof out->s, "https://www.site%05u.example/%s/%016llx",
             (unsigned)(a % 50000), sections[(a >> 20) & 7],
             (unsigned long long)b);
    break;
  default:
    for (int k = 0; k < 16; k++) {
      out->s[k] = digits[(a >> (60 - 4 * k)) & 15];
      out->s[16 + k] = digits[(b >> (60 - 4 * k)) & 15];
    }
    out->s[32] = 0;
  }
}

static void bind_item(sqlite3_stmt *st, int kind, const item *it) {
  if (kind == K_INT)
    sqlite3_bind_int64(st, 1, it->i);
  else
    sqlite3_bind_text(st, 1, it->s, -1, SQLITE_STATIC);
}

/* uc_item(kind, i) in SQL, for building the databases. */
static void uc_item_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  item it;
  int kind = sqlite3_value_int(argv[0]);
  item_of(kind, (uint64_t)sqlite3_value_int64(argv[1]), &it);
  if (kind == K_INT)
    sqlite3_result_int64(ctx, it.i);
  else
    sqlite3_result_text(ctx, it.s, -1, SQLITE_TRANSIENT);
}

static uint64_t rng;
static uint64_t rnd(void) { return mix64(rng++); }

/* A list of incoming items, `retry_pct` percent of them already in the
** databases (old[j] = 1), the rest new. */
typedef struct list {
  int n, kind;
  item *it;
  unsigned char *old;
} list;

static void make_list(list *l, int kind, int n, int retry_pct) {
  l->n = n;
  l->kind = kind;
  l->it = malloc(sizeof *l->it * (size_t)n);
  l->old = malloc((size_t)n);
  if (!l->it || !l->old) die(NULL, "out of memory");
  for (int j = 0; j < n; j++) {
    l->old[j] = (int)(rnd() % 100) < retry_pct;
    uint64_t i = l->old[j] ? rnd() % (uint64_t)n_ids : (1ULL << 62) | (rnd() >> 2);
    item_of(kind, i, &l->it[j]);
  }
}

static void free_list(list *l) {
  free(l->it);
  free(l->old);
}

/* ------------------------------------------------------- files and caches */

static void db_path(char *out, size_t n, const char *role) {
  snprintf(out, n, "%s/uc-%lld-%s.db", dir, n_ids, role);
}

static int wanted(const char *section) {
  if (only == NULL || strcmp(only, "build") == 0) return 1;
  size_t len = strlen(section);
  for (const char *p = only; (p = strstr(p, section)) != NULL; p += len)
    if ((p == only || p[-1] == ',') && (p[len] == 0 || p[len] == ','))
      return 1;
  return 0;
}

static void remove_db(const char *path) {
  char side[600];
  remove(path);
  snprintf(side, sizeof side, "%s-wal", path);
  remove(side);
  snprintf(side, sizeof side, "%s-shm", path);
  remove(side);
}

static long long file_bytes(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

/* Reads a file through, so that the OS keeps its pages. */
static void os_warm(const char *path) {
  static char buf[1 << 20];
  int fd = open(path, O_RDONLY);
  if (fd < 0) return;
  while (read(fd, buf, sizeof buf) > 0) {
  }
  close(fd);
}

/* Empties the OS page cache, or at least the pages of `paths` (and their
** WAL files). */
static void make_cold(const char *const *paths, int n) {
  if (cold_how == COLD_NONE) return;
  if (cold_how == COLD_DROP && drop_os_cache()) return;
  for (int i = 0; i < 2 * n; i++) {
    char p[600];
    snprintf(p, sizeof p, "%s%s", paths[i / 2], i % 2 ? "-wal" : "");
    int fd = open(p, O_RDONLY);
    if (fd < 0) continue;
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
}

static void copy_file(const char *from, const char *to) {
  static char buf[1 << 22];
  int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in < 0 || out < 0) die(NULL, "copy: cannot open");
  ssize_t got;
  while ((got = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)got) != got) die(NULL, "copy: short write");
  if (got < 0 || fsync(out) != 0) die(NULL, "copy: read or sync failed");
  close(in);
  close(out);
}

/* ------------------------------------------------------------ databases */

static int is_ready(const char *path) {
  if (access(path, F_OK) != 0) return 0;
  sqlite3 *db = open_db_with(path, "");
  int ready = q_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'ready'") == 1;
  sqlite3_close(db);
  return ready;
}

/* A connection for building: a 2 GB cache, so that the random inserts of
** the index stay in memory, and uc_item. */
static sqlite3 *open_build(const char *path) {
  sqlite3 *db = open_db_with(path, "PRAGMA cache_size = -2097152;"
                                   "PRAGMA synchronous = OFF");
  if (sqlite3_create_function(db, "uc_item", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                              NULL, uc_item_fn, NULL, NULL) != SQLITE_OK)
    die(db, "uc_item");
  return db;
}

static void close_build(sqlite3 *db) {
  exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite3_close(db);
}

/* Fills `sql` (which reads i from c) in transactions of a million rows:
** the WAL stays small. */
static void fill(sqlite3 *db, const char *insert_from_c) {
  for (long long from = 0; from < n_ids; from += 1000000) {
    long long to = from + 1000000 < n_ids ? from + 1000000 : n_ids;
    execf(db,
          "BEGIN; WITH RECURSIVE c(i) AS (SELECT %lld UNION ALL SELECT i + 1"
          " FROM c WHERE i < %lld) %s; COMMIT",
          from, to - 1, insert_from_c);
    fprintf(stderr, "\r  %lld of %lld", to, n_ids);
  }
  fprintf(stderr, "\n");
}

static double t_build;

static void built(sqlite3 *db, const char *path) {
  exec(db, "CREATE TABLE ready(x)");
  close_build(db);
  fprintf(stderr, "usecases bench: %s ready (%.0f s, %.0f MB)\n", path,
          now() - t_build, (double)file_bytes(path) / 1e6);
}

/* The idempotency databases of a kind: the table, its copy kept by a
** trigger, and a store alone. */
static void ensure_idem(int kind) {
  const char *name = kind == K_TEXT ? "text" : "int";
  char plain[512], kept[512], seen[512], role[32];
  db_path(plain, sizeof plain, name);
  snprintf(role, sizeof role, "%s-kept", name);
  db_path(kept, sizeof kept, role);
  snprintf(role, sizeof role, "%s-seen", name);
  db_path(seen, sizeof seen, role);
  int fresh = 0;
  t_build = now();
  if (!is_ready(plain)) {
    fprintf(stderr, "usecases bench: building %s (once)\n", plain);
    remove_db(plain);
    sqlite3 *db = open_build(plain);
    execf(db, "CREATE TABLE processed(request_id %s PRIMARY KEY, response BLOB)",
          kind == K_TEXT ? "TEXT" : "INTEGER");
    char sql[200];
    snprintf(sql, sizeof sql,
             "INSERT OR IGNORE INTO processed SELECT uc_item(%d, i),"
             " randomblob(64) FROM c", kind);
    fill(db, sql);
    built(db, plain);
    fresh = 1;
  }
  if (fresh || !is_ready(kept)) {
    fprintf(stderr, "usecases bench: building %s (once)\n", kept);
    t_build = now();
    remove_db(kept);
    sqlite3 *db = open_build(plain);
    close_build(db); /* nothing left in the WAL */
    copy_file(plain, kept);
    db = open_build(kept);
    execf(db,
          "BEGIN; DROP TABLE ready;"
          "CREATE VIRTUAL TABLE seen USING bloom_store(capacity = %lld, fpr = 0.001);"
          "INSERT INTO seen(filter) SELECT bloom_build(request_id, %lld, 0.001)"
          "  FROM processed;"
          "CREATE TRIGGER processed_seen AFTER INSERT ON processed BEGIN"
          "  INSERT INTO seen(value) VALUES (NEW.request_id); END;"
          "COMMIT",
          2 * n_ids, 2 * n_ids);
    built(db, kept);
  }
  if (fresh || !is_ready(seen)) {
    fprintf(stderr, "usecases bench: building %s (once)\n", seen);
    t_build = now();
    remove_db(seen);
    sqlite3 *db = open_build(seen);
    execf(db,
          "BEGIN;"
          "CREATE VIRTUAL TABLE seen USING bloom_store(capacity = %lld, fpr = 0.001);"
          "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c"
          "  WHERE i < %lld)"
          "INSERT INTO seen(filter) SELECT bloom_build(uc_item(%d, i), %lld, 0.001)"
          "  FROM c;"
          "COMMIT",
          2 * n_ids, n_ids - 1, kind, 2 * n_ids);
    built(db, seen);
  }
}

/* The main database of the exists section: the BLOB filters over the TEXT
** table's ids and over their upper case. */
static void ensure_exists(void) {
  char path[512];
  db_path(path, sizeof path, "exists");
  if (is_ready(path)) return;
  fprintf(stderr, "usecases bench: building %s (once)\n", path);
  t_build = now();
  remove_db(path);
  sqlite3 *db = open_build(path);
  execf(db,
        "BEGIN; CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);"
        "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c"
        "  WHERE i < %lld)"
        "INSERT INTO filters SELECT 'id', bloom_build(uc_item(%d, i), %lld, 0.01) FROM c;"
        "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c"
        "  WHERE i < %lld)"
        "INSERT INTO filters SELECT 'upper', bloom_build(uc_item(%d, i), %lld, 0.01)"
        "  FROM c;"
        "COMMIT",
        n_ids - 1, K_TEXT, n_ids, n_ids - 1, K_UPPER, n_ids);
  built(db, path);
}

static void ensure_urls(void) {
  char urls[512], frontier[512];
  db_path(urls, sizeof urls, "urls");
  db_path(frontier, sizeof frontier, "frontier");
  int fresh = 0;
  t_build = now();
  if (!is_ready(urls)) {
    fprintf(stderr, "usecases bench: building %s (once)\n", urls);
    remove_db(urls);
    sqlite3 *db = open_build(urls);
    exec(db, "CREATE TABLE crawled(url TEXT PRIMARY KEY)");
    char sql[200];
    snprintf(sql, sizeof sql,
             "INSERT OR IGNORE INTO crawled SELECT uc_item(%d, i) FROM c", K_URL);
    fill(db, sql);
    built(db, urls);
    fresh = 1;
  }
  if (fresh || !is_ready(frontier)) {
    fprintf(stderr, "usecases bench: building %s (once)\n", frontier);
    t_build = now();
    remove_db(frontier);
    sqlite3 *db = open_build(frontier);
    exec(db, "CREATE VIRTUAL TABLE seen_urls USING bloom_store(fpr = 0.001)");
    char sql[200];
    snprintf(sql, sizeof sql,
             "INSERT INTO seen_urls(value) SELECT uc_item(%d, i) FROM c", K_URL);
    fill(db, sql);
    built(db, frontier);
  }
}

/* ------------------------------------------------------- the settings */

static long long mmap_ask = 1000000000000LL; /* USECASES_MMAP */
static long long mmap_max; /* what SQLite grants for it */

/* A connection under a setting: SQLite's defaults, or the tuning (a cache
** for the store's pages and some, mmap as large as SQLite allows). */
static sqlite3 *open_cfg(const char *path, int tuned, long long cache_kib) {
  sqlite3 *db = open_db_with(path, "");
  if (tuned)
    execf(db, "PRAGMA cache_size = -%lld; PRAGMA mmap_size = %lld", cache_kib,
          mmap_ask);
  return db;
}

static void tune_attached(sqlite3 *db, const char *schema, int tuned,
                          long long cache_kib) {
  if (tuned)
    execf(db, "PRAGMA \"%w\".cache_size = -%lld; PRAGMA \"%w\".mmap_size = %lld",
          schema, cache_kib, schema, mmap_ask);
}

/* The cache the tuning gives: the store's pages x 1.25 + 16 MB, in KiB. */
static long long tuned_cache_kib(const char *path, const char *store) {
  sqlite3 *db = open_db_with(path, "");
  long long rows = q_intf(db, "SELECT count(*) FROM \"%w_chunks\"", store);
  long long page = q_int(db, "PRAGMA page_size");
  sqlite3_close(db);
  return rows * page / 1024 * 5 / 4 + 16384;
}

/* Reads every page of a store back: what a service that uses it keeps
** hot. */
static void read_back_store(sqlite3 *db, const char *schema, const char *store) {
  q_intf(db, "SELECT count(*) FROM \"%w\".\"%w_chunks\" WHERE length(data) > 0",
         schema, store);
}

/* Reads every BLOB of a query in full (overflow pages included). */
static void read_back_blobs(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  while (sqlite3_step(st) == SQLITE_ROW) (void)sqlite3_column_blob(st, 0);
  sqlite3_finalize(st);
}

/* --------------------------------------------------------- the figures */

/* One comparison: a figure per round for each side (seconds per id, or
** per batch) and the plain form's label. */
typedef struct pair {
  const char *what, *detail;
  double plain[MAX_ROUNDS], store[MAX_ROUNDS];
  int n;
  long fps, ids; /* store "maybe" answers on new ids, and new ids */
} pair;

static void print_head(const char *unit, const char *filtered) {
  printf("| comparison | case | settings | state | plain, %s | %s, %s | ratio |\n",
         unit, filtered, unit);
  printf("|---|---|---|---|---:|---:|---:|\n");
}

/* The store's "maybe" answers on new ids, over a section's runs. */
static long section_fps, section_new;

static void print_fps(void) {
  if (section_new > 0)
    printf("\nThe store answered \"maybe\" for %ld of the %ld new ids it was "
           "asked about (%.3f%%).\n", section_fps, section_new,
           100.0 * (double)section_fps / (double)section_new);
  section_fps = section_new = 0;
}

static void print_pair(const pair *p, int cfg, int temp, double scale,
                       const char *fmt) {
  section_fps += p->fps;
  section_new += p->ids;
  double ratio[MAX_ROUNDS], lo, hi, rlo, rhi, slo, shi;
  for (int r = 0; r < p->n; r++) ratio[r] = p->store[r] / p->plain[r];
  minmax(p->plain, p->n, &lo, &hi);
  minmax(p->store, p->n, &slo, &shi);
  minmax(ratio, p->n, &rlo, &rhi);
  char a[64], b[64], c[64], d[64];
  snprintf(a, sizeof a, fmt, median(p->plain, p->n) * scale);
  snprintf(b, sizeof b, fmt, lo * scale);
  snprintf(c, sizeof c, fmt, hi * scale);
  char plain[200], store[200];
  snprintf(plain, sizeof plain, "%s (%s-%s)", a, b, c);
  snprintf(a, sizeof a, fmt, median(p->store, p->n) * scale);
  snprintf(b, sizeof b, fmt, slo * scale);
  snprintf(c, sizeof c, fmt, shi * scale);
  snprintf(store, sizeof store, "%s (%s-%s)", a, b, c);
  snprintf(d, sizeof d, "%.2f (%.2f-%.2f)", median(ratio, p->n), rlo, rhi);
  printf("| %s | %s | %s | %s | %s | %s | %s |\n", p->what, p->detail,
         cfg_name[cfg], temp_name[temp], plain, store, d);
  fflush(stdout);
}

/* ---------------------------------------------------------- idempotency */

enum { F_CHECK, F_RECORD, F_BATCH, F_IFNEW, NFLOWS };
static const char *const flow_name[NFLOWS] = {
    "check only", "check, then record (autocommit)",
    "batch: check all, record the new in one transaction",
    "insert-if-new, one statement"};
static const int mixes[] = {0, 10, 50};
enum { NMIXES = 3 };

typedef struct idem {
  int kind;
  char plain_path[512], kept_path[512], seen_path[512];
  sqlite3 *plain, *kept, *seen;
  sqlite3_stmt *p_exists, *p_insert, *p_ignore, *k_check, *k_exists, *k_insert,
      *s_ignore;
} idem;

static sqlite3_stmt *prep(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(db, sql);
  return st;
}

static void idem_open(idem *d, int tuned, long long cache_kib) {
  d->plain = open_cfg(d->plain_path, tuned, cache_kib);
  d->kept = open_cfg(d->kept_path, tuned, cache_kib);
  d->seen = open_cfg(d->seen_path, tuned, cache_kib);
  const char *exists = "SELECT EXISTS (SELECT 1 FROM processed WHERE request_id = ?1)";
  const char *insert = "INSERT INTO processed(request_id, response) VALUES (?1, ?2)";
  d->p_exists = prep(d->plain, exists);
  d->p_insert = prep(d->plain, insert);
  d->p_ignore = prep(d->plain, "INSERT OR IGNORE INTO processed(request_id, response)"
                               " VALUES (?1, ?2)");
  d->k_check = prep(d->kept, "SELECT EXISTS (SELECT 1 FROM seen WHERE value = ?1)");
  d->k_exists = prep(d->kept, exists);
  d->k_insert = prep(d->kept, insert);
  d->s_ignore = prep(d->seen, "INSERT OR IGNORE INTO seen(value) VALUES (?1)");
}

static void idem_close(idem *d) {
  sqlite3_stmt *all[] = {d->p_exists, d->p_insert, d->p_ignore, d->k_check,
                         d->k_exists, d->k_insert, d->s_ignore};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) sqlite3_finalize(all[i]);
  sqlite3_close(d->plain);
  sqlite3_close(d->kept);
  sqlite3_close(d->seen);
}

static unsigned char response[64];

/* One step of a statement with the item bound: column 0 of its row, or
** the changes it made. */
static int step_item(sqlite3 *db, sqlite3_stmt *st, int kind, const item *it) {
  bind_item(st, kind, it);
  if (sqlite3_bind_parameter_count(st) == 2)
    sqlite3_bind_blob(st, 2, response, sizeof response, SQLITE_STATIC);
  int rc = sqlite3_step(st), v = 0;
  if (rc == SQLITE_ROW)
    v = sqlite3_column_int(st, 0);
  else if (rc == SQLITE_DONE)
    v = sqlite3_changes(db);
  else
    die(db, sqlite3_sql(st));
  sqlite3_reset(st);
  return v;
}

/* Runs a flow on one side over the list; seconds per id.  Checks every
** answer against what the list knows (see the top of the file). */
static double run_flow(idem *d, int flow, int store, const list *l, pair *p) {
  int kind = d->kind;
  unsigned char *isnew = malloc((size_t)l->n);
  if (isnew == NULL) die(NULL, "out of memory");
  sqlite3 *db = store ? d->kept : d->plain;
  sqlite3_stmt *exists = store ? d->k_exists : d->p_exists;
  sqlite3_stmt *insert = store ? d->k_insert : d->p_insert;
  long fps = 0;
  double t0 = now();
  if (flow == F_IFNEW) {
    sqlite3 *on = store ? d->seen : d->plain;
    sqlite3_stmt *st = store ? d->s_ignore : d->p_ignore;
    for (int j = 0; j < l->n; j++) isnew[j] = (unsigned char)step_item(on, st, kind, &l->it[j]);
  } else {
    for (int j = 0; j < l->n; j++) {
      int maybe = 1;
      if (store) {
        maybe = step_item(db, d->k_check, kind, &l->it[j]);
        fps += maybe && !l->old[j];
      }
      isnew[j] = (unsigned char)!(maybe && step_item(db, exists, kind, &l->it[j]));
      if (flow == F_RECORD && isnew[j]) step_item(db, insert, kind, &l->it[j]);
    }
    if (flow == F_BATCH) {
      exec(db, "BEGIN");
      for (int j = 0; j < l->n; j++)
        if (isnew[j]) step_item(db, insert, kind, &l->it[j]);
      exec(db, "COMMIT");
    }
  }
  double t = (now() - t0) / l->n;
  for (int j = 0; j < l->n; j++) {
    if (isnew[j] && l->old[j]) {
      fprintf(stderr, "usecases bench: %s (%s side) called a processed id new\n",
              flow_name[flow], store ? "store" : "plain");
      exit(1);
    }
    if (!isnew[j] && !l->old[j]) {
      if (!store || flow != F_IFNEW) {
        fprintf(stderr, "usecases bench: %s (%s side) called a new id processed\n",
                flow_name[flow], store ? "store" : "plain");
        exit(1);
      }
      fps++;
    }
  }
  if (store) {
    p->fps += fps;
    for (int j = 0; j < l->n; j++) p->ids += !l->old[j];
  }
  free(isnew);
  return t;
}

static void idem_read_back(idem *d) {
  read_back_store(d->kept, "main", "seen");
  read_back_store(d->seen, "main", "seen");
}

static void run_pair(idem *d, int flow, int mix, int round, int n, pair *p) {
  list l;
  make_list(&l, d->kind, n, mixes[mix]);
  int store_first = round % 2;
  double a = run_flow(d, flow, store_first, &l, p);
  double b = run_flow(d, flow, !store_first, &l, p);
  p->plain[p->n] = store_first ? b : a;
  p->store[p->n] = store_first ? a : b;
  p->n++;
  free_list(&l);
}

static void section_idem(int kind) {
  idem d;
  memset(&d, 0, sizeof d);
  d.kind = kind;
  const char *name = kind == K_TEXT ? "text" : "int";
  char role[32];
  db_path(d.plain_path, sizeof d.plain_path, name);
  snprintf(role, sizeof role, "%s-kept", name);
  db_path(d.kept_path, sizeof d.kept_path, role);
  snprintf(role, sizeof role, "%s-seen", name);
  db_path(d.seen_path, sizeof d.seen_path, role);
  long long cache_kib = tuned_cache_kib(d.kept_path, "seen");
  int nflows = have_if_new ? NFLOWS : F_IFNEW;

  printf("\n## Idempotency, %s ids (%lld in the table)\n\n",
         kind == K_TEXT ? "32-hex-digit TEXT" : "63-bit INTEGER", n_ids);
  printf("`processed(request_id %s PRIMARY KEY, response BLOB)`, 64-byte "
         "responses: %.0f MB on disk;\nthe copy kept by a trigger, with "
         "`bloom_store(capacity = %lld, fpr = 0.001)`: %.0f MB; the store "
         "alone: %.0f MB.\nTuned: cache_size %lld KiB, mmap_size %lld. "
         "Per id: µs, median (range) over rounds.\n\n",
         kind == K_TEXT ? "TEXT" : "INTEGER", (double)file_bytes(d.plain_path) / 1e6,
         2 * n_ids, (double)file_bytes(d.kept_path) / 1e6,
         (double)file_bytes(d.seen_path) / 1e6, cache_kib, mmap_max);
  if (!have_if_new)
    printf("(this bloom.so has no insert-if-new on a store: that flow is left out)\n\n");
  print_head("µs", "store");
  const char *files[] = {d.plain_path, d.kept_path, d.seen_path};
  for (int cfg = 0; cfg < 2; cfg++) {
    for (int temp = 0; temp < 2; temp++) {
      pair pairs[NFLOWS][NMIXES];
      memset(pairs, 0, sizeof pairs);
      int rounds = rounds_of[temp];
      int n = temp ? ops_warm / 4 : ops_warm;
      if (temp == 0) {
        for (int f = 0; f < 3; f++) os_warm(files[f]);
        idem_open(&d, cfg, cache_kib);
        idem_read_back(&d);
        /* One untimed pass of each flow. */
        pair scratch;
        memset(&scratch, 0, sizeof scratch);
        for (int f = 0; f < nflows; f++) run_pair(&d, f, 1, 0, n / 4 + 1, &scratch);
      }
      for (int r = 0; r < rounds; r++) {
        fprintf(stderr, "usecases bench: %s, %s, %s, round %d\n", name, cfg_name[cfg],
                temp_name[temp], r + 1);
        for (int f = 0; f < nflows; f++) {
          for (int m = 0; m < NMIXES; m++) {
            if (temp == 1) {
              make_cold(files, 3);
              idem_open(&d, cfg, cache_kib);
              idem_read_back(&d);
            }
            run_pair(&d, f, m, r, n, &pairs[f][m]);
            if (temp == 1) idem_close(&d);
          }
        }
      }
      if (temp == 0) idem_close(&d);
      for (int f = 0; f < nflows; f++) {
        for (int m = 0; m < NMIXES; m++) {
          char detail[64];
          snprintf(detail, sizeof detail, "%d%% retries", mixes[m]);
          pairs[f][m].what = flow_name[f];
          pairs[f][m].detail = detail;
          print_pair(&pairs[f][m], cfg, temp, 1e6, "%.1f");
        }
      }
    }
  }
  print_fps();
}

/* --------------------------------------------------------------- exists */

enum { E_ANTI, E_JOIN, E_EXPR_SCAN, E_EXPR_NOTIN, NEXISTS };
static const char *const exists_name[NEXISTS] = {
    "anti-join on the indexed key (NOT EXISTS)",
    "join on the indexed key, fetching the response",
    "anti-join on upper(key), no index (NOT EXISTS)",
    "anti-join on upper(key), no index (plain: NOT IN)"};

#define PROBE_ID "bloom_probe('SELECT f FROM filters WHERE name = ''id''', b.key)"
#define PROBE_UP "bloom_probe('SELECT f FROM filters WHERE name = ''upper''', b.key)"
#define ANTI_ID "NOT EXISTS (SELECT 1 FROM arc.processed AS p WHERE p.request_id = b.key)"
#define ANTI_UP \
  "NOT EXISTS (SELECT 1 FROM arc.processed AS p WHERE upper(p.request_id) = b.key)"

static const char *const exists_sql[NEXISTS][2] = {
    {"SELECT count(*) FROM batch AS b WHERE " ANTI_ID,
     "SELECT count(*) FROM batch AS b WHERE NOT " PROBE_ID " OR " ANTI_ID},
    {"SELECT count(*), sum(length(p.response)) FROM batch AS b"
     " JOIN arc.processed AS p ON p.request_id = b.key",
     "SELECT count(*), sum(length(p.response)) FROM batch AS b"
     " JOIN arc.processed AS p ON p.request_id = b.key WHERE " PROBE_ID},
    {"SELECT count(*) FROM batch AS b WHERE b.rowid = ?1 AND " ANTI_UP,
     "SELECT count(*) FROM batch AS b WHERE NOT " PROBE_UP " OR " ANTI_UP},
    {"SELECT count(*) FROM batch AS b WHERE b.key NOT IN"
     " (SELECT upper(request_id) FROM arc.processed)",
     "SELECT count(*) FROM batch AS b WHERE NOT " PROBE_UP " OR " ANTI_UP},
};

static long long step_count(sqlite3 *db, sqlite3_stmt *st) {
  if (sqlite3_step(st) != SQLITE_ROW) die(db, sqlite3_sql(st));
  long long v = sqlite3_column_int64(st, 0);
  sqlite3_reset(st);
  return v;
}

/* A TEMP batch of keys: `present` of them (placed last) in the table. */
static void make_batch(sqlite3 *db, int kind, int n, int present) {
  exec(db, "DROP TABLE IF EXISTS temp.batch;"
           "CREATE TEMP TABLE batch(key TEXT)");
  sqlite3_stmt *ins = prep(db, "INSERT INTO temp.batch VALUES (?1)");
  exec(db, "BEGIN");
  for (int j = 0; j < n; j++) {
    item it;
    uint64_t i = j >= n - present ? rnd() % (uint64_t)n_ids : (1ULL << 62) | (rnd() >> 2);
    item_of(kind, i, &it);
    step_item(db, ins, kind, &it);
  }
  exec(db, "COMMIT");
  sqlite3_finalize(ins);
}

/* One side of an exists comparison: seconds for the whole batch, and the
** rows it answers in *rows. */
static double exists_side(sqlite3 *db, int e, int filtered, int n, long long *rows) {
  sqlite3_stmt *st = prep(db, exists_sql[e][filtered]);
  double t;
  if (e == E_EXPR_SCAN && !filtered) {
    /* A scan per key: the first key, then the second (steady state),
    ** scaled to the batch. */
    double t0 = now();
    sqlite3_bind_int(st, 1, 1);
    long long r1 = step_count(db, st);
    double t1 = now() - t0;
    sqlite3_bind_int(st, 1, 2);
    t0 = now();
    long long r2 = step_count(db, st);
    double t2 = now() - t0;
    t = t1 + (n - 1) * t2;
    *rows = r1 + r2 == 2 ? -1 : -2; /* the first two keys are new */
  } else {
    double t0 = now();
    *rows = step_count(db, st);
    t = now() - t0;
  }
  sqlite3_finalize(st);
  return t;
}

static sqlite3 *exists_open(const char *main_path, const char *arc_path, int tuned,
                            long long cache_kib) {
  sqlite3 *db = open_cfg(main_path, tuned, cache_kib);
  execf(db, "ATTACH %Q AS arc", arc_path);
  tune_attached(db, "arc", tuned, cache_kib);
  return db;
}

static void section_exists(void) {
  char main_path[512], arc_path[512];
  db_path(main_path, sizeof main_path, "exists");
  db_path(arc_path, sizeof arc_path, "text");
  sqlite3 *db = open_db_with(main_path, "");
  long long filter_bytes = q_int(db, "SELECT sum(length(f)) FROM filters");
  sqlite3_close(db);
  long long cache_kib = filter_bytes / 1024 * 5 / 4 + 16384;
  int n_idx = 2 * ops_warm, n_expr = ops_warm / 20 > 10 ? ops_warm / 20 : 10;
  printf("\n## Probably exists, before a join (the TEXT table, %lld rows, attached)\n\n",
         n_ids);
  printf("Batches: %d keys, 10%% present, against the PRIMARY KEY index; %d "
         "keys, 1 present,\nagainst upper(request_id), which no index serves "
         "(plain NOT EXISTS: the first key's scan\nplus %d times the second's). "
         "Filters: BLOBs at fpr 0.01 in the main database, %.1f MB.\n"
         "Tuned: cache_size %lld KiB on each schema, mmap_size %lld. Per batch: "
         "ms, median (range).\n\n",
         n_idx, n_expr, n_expr - 1, (double)filter_bytes / 1e6, cache_kib, mmap_max);
  print_head("ms", "filter");
  const char *files[] = {arc_path, main_path};
  for (int cfg = 0; cfg < 2; cfg++) {
    for (int temp = 0; temp < 2; temp++) {
      pair pairs[NEXISTS];
      memset(pairs, 0, sizeof pairs);
      sqlite3 *warm = NULL;
      if (temp == 0) {
        os_warm(arc_path);
        os_warm(main_path);
        warm = exists_open(main_path, arc_path, cfg, cache_kib);
        read_back_blobs(warm, "SELECT f FROM filters");
      }
      for (int r = 0; r < rounds_of[temp]; r++) {
        for (int e = 0; e < NEXISTS; e++) {
          fprintf(stderr, "usecases bench: exists, %s, %s, round %d, %s\n",
                  cfg_name[cfg], temp_name[temp], r + 1, exists_name[e]);
          int expr = e >= E_EXPR_SCAN;
          int n = expr ? n_expr : n_idx;
          long long rows[2];
          double t[2];
          /* The batch lives in the connection's TEMP schema: the cold
          ** sides make it again on their fresh connection, from the
          ** same seed. */
          uint64_t seed = rnd();
          for (int k = 0; k < 2; k++) {
            int filtered = (r % 2) ^ k;
            sqlite3 *on = warm;
            if (temp == 1) {
              make_cold(files, 2);
              on = exists_open(main_path, arc_path, cfg, cache_kib);
              read_back_blobs(on, "SELECT f FROM filters");
            }
            uint64_t keep = rng;
            rng = seed;
            make_batch(on, expr ? K_UPPER : K_TEXT, n, expr ? 1 : n / 10);
            rng = keep;
            t[filtered] = exists_side(on, e, filtered, n, &rows[filtered]);
            if (temp == 1) sqlite3_close(on);
          }
          long long want = e == E_JOIN ? n / 10 : expr ? n - 1 : n - n / 10;
          if (rows[1] != want || (rows[0] != want && rows[0] >= 0) || rows[0] == -2) {
            fprintf(stderr, "usecases bench: %s: %lld and %lld rows, not %lld\n",
                    exists_name[e], rows[0], rows[1], want);
            exit(1);
          }
          pairs[e].plain[pairs[e].n] = t[0];
          pairs[e].store[pairs[e].n] = t[1];
          pairs[e].n++;
        }
      }
      if (warm) sqlite3_close(warm);
      for (int e = 0; e < NEXISTS; e++) {
        pairs[e].what = exists_name[e];
        pairs[e].detail = e >= E_EXPR_SCAN ? "bloom_probe, then NOT EXISTS"
                                           : "bloom_probe first";
        print_pair(&pairs[e], cfg, temp, 1e3, "%.1f");
      }
    }
  }
}

/* ----------------------------------------------------------------- urls */

static double url_side(sqlite3 *db, sqlite3_stmt *st, const list *l, int page,
                       int store, pair *p) {
  long news = 0, fps = 0;
  double t0 = now();
  for (int j = 0; j < l->n; j++) {
    if (page && j % page == 0) exec(db, "BEGIN");
    int isnew = step_item(db, st, K_URL, &l->it[j]);
    if (page && (j % page == page - 1 || j == l->n - 1)) exec(db, "COMMIT");
    if (isnew && l->old[j]) {
      fprintf(stderr, "usecases bench: a seen URL was called new (%s)\n",
              store ? "store" : "table");
      exit(1);
    }
    if (!isnew && !l->old[j]) {
      if (!store) {
        fprintf(stderr, "usecases bench: the table skipped a new URL\n");
        exit(1);
      }
      fps++;
    }
    news += isnew;
  }
  double t = (now() - t0) / l->n;
  if (store) {
    p->fps += fps;
    p->ids += news + fps;
  }
  return t;
}

static void section_urls(void) {
  char urls[512], frontier[512];
  db_path(urls, sizeof urls, "urls");
  db_path(frontier, sizeof frontier, "frontier");
  long long cache_kib = tuned_cache_kib(frontier, "seen_urls");
  sqlite3 *db = open_db_with(frontier, "");
  long long layers = q_int(db, "SELECT value FROM seen_urls_config WHERE key = 'layers'");
  sqlite3_close(db);
  long long ub = file_bytes(urls), fb = file_bytes(frontier);
  printf("\n## URL de-duplication (%lld URLs seen)\n\n", n_ids);
  printf("On disk: the table `crawled(url TEXT PRIMARY KEY)` %.1f MB; the "
         "store `bloom_store(fpr = 0.001)`\nalone (scalable, %lld layers) "
         "%.1f MB: %.1f times smaller.  Tuned: cache_size %lld KiB,\n"
         "mmap_size %lld.  INSERT OR IGNORE, half the URLs already seen; per "
         "URL: µs, median (range).\n\n",
         (double)ub / 1e6, layers, (double)fb / 1e6, (double)ub / (double)fb,
         cache_kib, mmap_max);
  if (!have_if_new) {
    printf("(this bloom.so has no insert-if-new on a store: no timing)\n");
    return;
  }
  print_head("µs", "store");
  const char *files[] = {urls, frontier};
  static const int pages[] = {0, 100};
  static const char *const page_name[] = {"one URL a statement (autocommit)",
                                          "a page of 100 links a transaction"};
  for (int cfg = 0; cfg < 2; cfg++) {
    for (int temp = 0; temp < 2; temp++) {
      pair pairs[2];
      memset(pairs, 0, sizeof pairs);
      sqlite3 *pdb = NULL, *sdb = NULL;
      sqlite3_stmt *pst = NULL, *sst = NULL;
      int n = temp ? ops_warm / 4 : ops_warm;
      for (int r = 0; r < rounds_of[temp]; r++) {
        for (int k = 0; k < 2; k++) {
          fprintf(stderr, "usecases bench: urls, %s, %s, round %d, %s\n",
                  cfg_name[cfg], temp_name[temp], r + 1, page_name[k]);
          if (temp == 1 || pdb == NULL) {
            if (temp == 1) make_cold(files, 2);
            else {
              os_warm(urls);
              os_warm(frontier);
            }
            pdb = open_cfg(urls, cfg, cache_kib);
            sdb = open_cfg(frontier, cfg, cache_kib);
            read_back_store(sdb, "main", "seen_urls");
            pst = prep(pdb, "INSERT OR IGNORE INTO crawled(url) VALUES (?1)");
            sst = prep(sdb, "INSERT OR IGNORE INTO seen_urls(value) VALUES (?1)");
          }
          list l;
          make_list(&l, K_URL, n, 50);
          int store_first = r % 2;
          for (int s = 0; s < 2; s++) {
            int store = s ^ !store_first;
            double t = url_side(store ? sdb : pdb, store ? sst : pst, &l, pages[k],
                                store, &pairs[k]);
            if (store)
              pairs[k].store[pairs[k].n] = t;
            else
              pairs[k].plain[pairs[k].n] = t;
          }
          pairs[k].n++;
          free_list(&l);
          if (temp == 1) {
            sqlite3_finalize(pst);
            sqlite3_finalize(sst);
            sqlite3_close(pdb);
            sqlite3_close(sdb);
            pdb = sdb = NULL;
          }
        }
      }
      if (pdb) {
        sqlite3_finalize(pst);
        sqlite3_finalize(sst);
        sqlite3_close(pdb);
        sqlite3_close(sdb);
      }
      for (int k = 0; k < 2; k++) {
        pairs[k].what = page_name[k];
        pairs[k].detail = "50% seen";
        print_pair(&pairs[k], cfg, temp, 1e6, "%.1f");
      }
    }
  }
  print_fps();
}

/* ----------------------------------------------------------------- main */

static int probe_if_new(void) {
  char path[512];
  db_path(path, sizeof path, "probe");
  remove_db(path);
  sqlite3 *db = open_db_with(path, "");
  exec(db, "CREATE VIRTUAL TABLE s USING bloom_store(fpr = 0.001);"
           "INSERT OR IGNORE INTO s(value) VALUES ('x');"
           "INSERT OR IGNORE INTO s(value) VALUES ('x')");
  int ok = sqlite3_changes(db) == 0;
  execf(db, "PRAGMA mmap_size = %lld", mmap_ask);
  mmap_max = q_int(db, "PRAGMA mmap_size");
  sqlite3_close(db);
  remove_db(path);
  return ok;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: usecases BLOOM_SO DIR\n");
    return 2;
  }
  so_path = argv[1];
  dir = argv[2];
  const char *e;
  n_ids = (e = getenv("USECASES_IDS")) && *e ? atoll(e) : 20000000;
  if (n_ids < 100) n_ids = 100;
  if ((e = getenv("USECASES_ROUNDS")) && atoi(e) >= 1)
    rounds_of[0] = rounds_of[1] = atoi(e) < MAX_ROUNDS ? atoi(e) : MAX_ROUNDS;
  if ((e = getenv("USECASES_OPS")) && atoi(e) >= 8) ops_warm = atoi(e);
  cold_how = geteuid() == 0 ? COLD_DROP : COLD_FADVISE;
  if ((e = getenv("USECASES_COLD")) && *e)
    cold_how = strcmp(e, "none") == 0      ? COLD_NONE
               : strcmp(e, "fadvise") == 0 ? COLD_FADVISE
                                           : COLD_DROP;
  only = getenv("USECASES_ONLY");
  if ((e = getenv("USECASES_MMAP")) && *e) mmap_ask = atoll(e);
  rng = 0x5eed0fc0ffeeULL ^ (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL ^
        (uint64_t)getpid();
  for (size_t i = 0; i < sizeof response; i++) response[i] = (unsigned char)rnd();

  char load0[64], load1[64];
  read_loadavg(load0, sizeof load0);
  print_machine();
  print_disk(dir);
  have_if_new = probe_if_new();
  printf("\n# When a filter pays (make bench-usecases): %lld ids\n\n", n_ids);
  printf("WAL, synchronous=NORMAL. Rounds: %d warm, %d cold, alternating which "
         "side runs first;\n%d ids a warm run, %d a cold one. Cold: %s, fresh "
         "connections, then only the store's\npages read back. Load average at "
         "the start: %s.\n",
         rounds_of[0], rounds_of[1], ops_warm, ops_warm / 4,
         cold_how == COLD_DROP     ? "OS page cache dropped (drop_caches)"
         : cold_how == COLD_FADVISE ? "the files' pages evicted (fadvise)"
                                    : "NOT cold (USECASES_COLD=none)",
         load0);
  fflush(stdout);

  double t0 = now();
  if (wanted("text") || wanted("exists")) ensure_idem(K_TEXT);
  if (wanted("int")) ensure_idem(K_INT);
  if (wanted("exists")) ensure_exists();
  if (wanted("urls")) ensure_urls();
  if (only && strcmp(only, "build") == 0) return 0;
  if (wanted("text")) section_idem(K_TEXT);
  if (wanted("int")) section_idem(K_INT);
  if (wanted("exists")) section_exists();
  if (wanted("urls")) section_urls();
  read_loadavg(load1, sizeof load1);
  printf("\nLoad average at the end: %s; %.0f s in all.\n", load1, now() - t0);
  return 0;
}
