/*
** Scalable stores: bloom_store and cuckoo_store that grow in layers.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Checked here: which arguments make a store scalable and the layer
** schedule they write (capacity * growth^i at fpr * (1 - r) * r^i); the
** layers hold no more than their capacities and are not many more than
** needed; no false negative and a measured false-positive rate within fpr
** at 1x, 10x, 100x and 1,000x the first capacity; the exported layered blob
** (its header, directory and layers, each layer answering bloom_test as
** the store does); ROLLBACK and ROLLBACK TO of a transaction that grew the
** store; a second connection following another's growth; cuckoo stores
** growing and deleting without a false negative; and damaged layer rows.
*/
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/bloom_spec.h"
#include "lib/sqldb.h"
#include "lib/store_damage.h"
#include "lib/tap.h"

static const char *temp_db(const char *tag) {
  return temp_db_file("scalable", tag);
}

static sqlite3_int64 config_int(sqlite3 *db, const char *store,
                                const char *key) {
  char sql[200];
  snprintf(sql, sizeof sql, "SELECT value FROM %s_config WHERE key = ?1", store);
  return q_int(db, sql, ARGS(a_text(key)));
}

static double config_real(sqlite3 *db, const char *store, const char *key) {
  char sql[200];
  snprintf(sql, sizeof sql, "SELECT value FROM %s_config WHERE key = ?1", store);
  return q_real(db, sql, ARGS(a_text(key)));
}

static sqlite3_int64 layer_int(sqlite3 *db, const char *store, int layer,
                               const char *name) {
  char key[64];
  snprintf(key, sizeof key, "layer.%d.%s", layer, name);
  return config_int(db, store, key);
}

static double layer_real(sqlite3 *db, const char *store, int layer,
                         const char *name) {
  char key[64];
  snprintf(key, sizeof key, "layer.%d.%s", layer, name);
  return config_real(db, store, key);
}

static int close_to(double a, double b) {
  return fabs(a - b) <= 1e-12 * fabs(b);
}

static void test_arguments(void) {
  sqlite3 *db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE a USING bloom_store;"
                "CREATE VIRTUAL TABLE b USING bloom_store(capacity = 500, "
                "  growth = 3, tightening = 0.5, fpr = 0.02);"
                "CREATE VIRTUAL TABLE c USING bloom_store(capacity = 500);"
                "CREATE VIRTUAL TABLE d USING cuckoo_store(fpr = 0.001);");
  tap_ok(config_int(db, "a", "layers") == 1 &&
             layer_int(db, "a", 0, "capacity") == 10000 &&
             config_int(db, "a", "growth") == 2 &&
             close_to(config_real(db, "a", "tightening"), 0.9) &&
             close_to(layer_real(db, "a", 0, "fpr"), 0.01 * (1 - 0.9)),
         "no arguments: scalable from 10000 items, growth 2, tightening 0.9, "
         "first layer at fpr * (1 - 0.9)");
  tap_ok(layer_int(db, "b", 0, "capacity") == 500 &&
             config_int(db, "b", "growth") == 3 &&
             close_to(layer_real(db, "b", 0, "fpr"), 0.02 * 0.5),
         "capacity, growth, tightening and fpr are the first layer's "
         "capacity and the schedule");
  tap_ok(q_int(db, "SELECT count(*) FROM c_config WHERE key = 'layers'",
               NOARGS) == 0 &&
             config_int(db, "c", "bits") > 0,
         "capacity alone is a fixed store, as before");
  tap_ok(config_int(db, "d", "layers") == 1 &&
             layer_int(db, "d", 0, "buckets") > 0 &&
             close_to(layer_real(db, "d", 0, "fpr"), 0.001 * 0.1),
         "cuckoo_store without capacity is scalable too");
  tap_ok(q_int(db, "SELECT count(*) FROM a_chunks", NOARGS) == 0,
         "a new layer has no chunk rows until they are written");
  expect_error(db, "a scalable store takes no filter",
               "INSERT INTO a(filter) SELECT bloom_empty(10000, 0.001)", NOARGS,
               "bloom_store: a scalable store takes values", 0);
  /* The least fpr: a fixed store's is FILTER_MIN_FPR; a scalable store's
  ** first layer gets fpr * (1 - tightening), which must not go below it. */
  must_exec(db, "CREATE VIRTUAL TABLE e USING bloom_store(capacity = 10, "
                "fpr = 1e-12);"
                "CREATE VIRTUAL TABLE f USING bloom_store(fpr = 1.1e-11);"
                "CREATE VIRTUAL TABLE g USING cuckoo_store(fpr = 2e-12, "
                "tightening = 0.5)");
  tap_ok(close_to(layer_real(db, "f", 0, "fpr"), 1.1e-12) &&
             close_to(layer_real(db, "g", 0, "fpr"), 1e-12) &&
             config_int(db, "e", "bits") > 0,
         "a fixed store's fpr goes down to 1e-12, a scalable store's to "
         "1e-12 / (1 - tightening)");
  for (int i = 0; i < 2; i++) {
    const char *kind = i ? "cuckoo_store" : "bloom_store";
    char sql[160], want[160];
    snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE h USING %s(fpr = "
             "1e-12)", kind);
    snprintf(want, sizeof want, "%s: a scalable store's first layer gets "
             "fpr * (1 - tightening) = 1e-13, below 1e-12: use fpr above 1e-11",
             kind);
    expect_error(db, sql, sql, NOARGS, want, 0);
  }
  sqlite3_close(db);
}

/* Inserts values first..last (as 'v' || x) into store s. */
static void insert_range(sqlite3 *db, const char *store, long first,
                         long last) {
  char sql[400], lo[32], hi[32];
  snprintf(lo, sizeof lo, "%ld", first);
  snprintf(hi, sizeof hi, "%ld", last);
  snprintf(sql, sizeof sql,
           "INSERT INTO %s(value) WITH RECURSIVE n(x) AS (SELECT %s UNION ALL "
           "SELECT x + 1 FROM n WHERE x < %s) SELECT 'v' || x FROM n",
           store, lo, hi);
  must_exec(db, sql);
}

/* Values first..last the store says are maybe present. */
static long count_present(sqlite3 *db, const char *store, long first,
                          long last) {
  char sql[400];
  snprintf(sql, sizeof sql,
           "WITH RECURSIVE n(x) AS (SELECT %ld UNION ALL SELECT x + 1 FROM n "
           "WHERE x < %ld) SELECT count(*) FROM n WHERE EXISTS (SELECT 1 FROM "
           "%s WHERE value = 'v' || n.x)", first, last, store);
  return (long)q_int(db, sql, NOARGS);
}

/* The layers hold at most their capacities (sum >= items), and not many
** more layers than needed: if every layer but the newest were half full,
** the items would need no fewer. */
static void check_layer_count(sqlite3 *db, const char *store, long items) {
  int layers = (int)config_int(db, store, "layers");
  double sum = 0, half_full = 0;
  int needed = 0;
  for (int i = 0; i < layers; i++) {
    double capacity = (double)layer_int(db, store, i, "capacity");
    sum += capacity;
    if (half_full < (double)items) needed = i + 1;
    half_full += capacity / 2;
  }
  tap_ok(layers >= 1 && sum >= (double)items && layers <= needed + 1,
         "%s at %ld items: %d layers holding %.0f", store, items, layers, sum);
}

/* Growth from a first capacity of 100 to 1,000x: no false negative, and
** the measured rate over 100,000 absent values within fpr at each
** checkpoint. */
static void test_growth(const char *module, double fpr) {
  sqlite3 *db = open_db(NULL);
  char sql[200];
  snprintf(sql, sizeof sql,
           "CREATE VIRTUAL TABLE s USING %s(capacity = 100, growth = 2, "
           "fpr = %g)", module, fpr);
  must_exec(db, sql);
  const long points[] = {100, 1000, 10000, 100000};
  long done = 0;
  for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
    insert_range(db, "s", done + 1, points[i]);
    done = points[i];
    long present = count_present(db, "s", 1, done);
    tap_ok(present == done, "%s at %ldx: every inserted value is present "
           "(%ld of %ld)", module, done / 100, present, done);
    long false_positives = count_present(db, "s", 1000001, 1100000);
    double rate = (double)false_positives / 100000;
    tap_ok(rate <= fpr, "%s at %ldx: measured false-positive rate %.5f <= %g",
           module, done / 100, rate, fpr);
    if (strcmp(module, "bloom_store") == 0) check_layer_count(db, "s", done);
  }
  sqlite3_close(db);
}

/* Each layer keeps its own target, so that the targets' sum bounds the
** whole: a Bloom layer holds at most its capacity; a cuckoo layer, which
** takes items until one is refused, has a model rate within its target
** (cuckoo_info's estimated_fpr, from its load) however full it got. */
static void test_layer_targets(const char *module) {
  sqlite3 *db = open_db(NULL);
  char sql[200];
  snprintf(sql, sizeof sql,
           "CREATE VIRTUAL TABLE s USING %s(capacity = 1000, growth = 2, "
           "fpr = 0.01)", module);
  must_exec(db, sql);
  insert_range(db, "s", 1, 200000);
  must_exec(db, "CREATE TEMP TABLE l AS SELECT * FROM bloom_layers("
                "(SELECT filter FROM s))");
  long layers = (long)q_int(db, "SELECT count(*) FROM l", NOARGS);
  long full = strcmp(module, "bloom_store") == 0
                  ? (long)q_int(db, "SELECT count(*) FROM l WHERE "
                                    "inserted <= capacity", NOARGS)
                  : (long)q_int(db, "SELECT count(*) FROM l WHERE "
                                    "estimated_fpr <= target_fpr", NOARGS);
  tap_ok(layers >= 7 && full == layers,
         "%s at 200x: %ld of %ld layers within their own target", module,
         full, layers);
  double sum = q_real(db, "SELECT sum(target_fpr) FROM l", NOARGS);
  tap_ok(sum < 0.01, "%s: the layers' targets sum to %.6f < fpr 0.01",
         module, sum);
  sqlite3_close(db);
}

/* The exported blob: a layered header (kind 3) whose layers are the
** store's, each a kind-1 blob answering bloom_test as the store does. */
static void test_export(void) {
  sqlite3 *db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE s USING bloom_store(capacity = 100, "
                "growth = 2, tightening = 0.8, fpr = 0.05)");
  insert_range(db, "s", 1, 5000);
  int layers = (int)config_int(db, "s", "layers");
  int size = 0;
  unsigned char *blob = q_blob(db, "SELECT filter FROM s", NOARGS, &size);
  /* FORMAT.md's kind-3 rules, checked by the independent spec: the
  ** directory tiles the blob, every layer is a valid Bloom filter with the
  ** outer seed, capacity and count are the layers' sums. */
  tap_ok(blob && spec_layered_valid(blob, (size_t)size, 1) && blob[13] == layers &&
             le64(blob + SPEC_OFF_INSERTED) == 5000 && blob[14] == 2 &&
             blob[15] == 0,
         "a valid layered filter of %d Bloom layers, growth 2, counting the "
         "5000 values", layers);
  must_exec(db, "CREATE TEMP TABLE layer(i, f)");
  size_t at = SPEC_HEADER + spec_layered_directory((unsigned)layers);
  int shapes = blob != NULL;
  for (int i = 0; shapes && i < layers; i++) {
    uint64_t len = le64(blob + SPEC_HEADER + 8 * i);
    shapes = at + len <= (size_t)size &&
             (sqlite3_int64)le64(blob + at + SPEC_OFF_CAPACITY) ==
                 layer_int(db, "s", i, "capacity") &&
             (sqlite3_int64)le64(blob + at + SPEC_OFF_BITS) ==
                 layer_int(db, "s", i, "bits");
    /* The layer alone, as a blob: bloom_test reads it. */
    sqlite3_stmt *st = prep(db, "INSERT INTO layer VALUES (?1, ?2)",
                            ARGS(a_int(i), a_blob(blob + at, (int)len)));
    if (st) {
      sqlite3_step(st);
      sqlite3_finalize(st);
    }
    at += len;
  }
  tap_ok(shapes, "each layer has the capacity and bits its configuration "
         "rows give");
  /* The schedule itself: layer i planned for 100 * 2^i items at
  ** 0.05 * (1 - 0.8) * 0.8^i (a Bloom layer keeps its planned capacity). */
  int schedule = layers > 1;
  for (int i = 0; i < layers; i++)
    schedule &= layer_int(db, "s", i, "capacity") == (sqlite3_int64)100 << i &&
                close_to(layer_real(db, "s", i, "fpr"),
                         0.05 * 0.2 * pow(0.8, i));
  tap_ok(schedule, "each of the %d layers has capacity 100 * 2^i and rate "
         "0.05 * 0.2 * 0.8^i", layers);
  /* Every value, inserted or not, answers as the OR of the layers. */
  long disagree = (long)q_int(
      db, "WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s "
          "WHERE x < 10000) SELECT count(*) FROM s WHERE "
          "EXISTS (SELECT 1 FROM main.s AS st WHERE st.value = 'v' || s.x) "
          "IS NOT (SELECT max(bloom_test(f, 'v' || s.x)) FROM layer)", NOARGS);
  tap_ok(disagree == 0 &&
             q_int(db, "SELECT count(*) FROM layer", NOARGS) == layers,
         "the store answers as the OR of its %d exported layers (%ld of "
         "10000 values disagree)", layers, disagree);
  free(blob);
  sqlite3_close(db);
}

/* The same values inserted in the same order give the same layers and
** bytes: a reference store, built without rollbacks, for comparison. */
static int same_store(sqlite3 *db, const char *a, const char *b) {
  char sql[200];
  snprintf(sql, sizeof sql, "SELECT (SELECT filter FROM %s) = (SELECT filter "
           "FROM %s)", a, b);
  return q_int(db, sql, NOARGS) == 1;
}

static void test_transactions(void) {
  const char *path = temp_db("tx");
  sqlite3 *db = open_db_at(path);
  const char *create = "CREATE VIRTUAL TABLE %s USING bloom_store(capacity = "
                       "100, growth = 2)";
  char sql[200];
  snprintf(sql, sizeof sql, create, "s");
  must_exec(db, sql);
  snprintf(sql, sizeof sql, create, "ref");
  must_exec(db, sql);
  must_exec(db, "PRAGMA journal_mode = WAL");
  insert_range(db, "s", 1, 150);
  insert_range(db, "ref", 1, 150);
  sqlite3_int64 before = config_int(db, "s", "layers");
  must_exec(db, "BEGIN");
  insert_range(db, "s", 151, 3000);
  sqlite3_int64 grown = config_int(db, "s", "layers");
  must_exec(db, "ROLLBACK");
  tap_ok(grown > before && config_int(db, "s", "layers") == before &&
             same_store(db, "s", "ref"),
         "ROLLBACK undoes the layers a transaction added (%lld, %lld, back to "
         "%lld)", (long long)before, (long long)grown, (long long)before);
  insert_range(db, "s", 151, 400);
  insert_range(db, "ref", 151, 400);
  tap_ok(same_store(db, "s", "ref"),
         "after the rollback the store grows again exactly as one that never "
         "rolled back");
  must_exec(db, "BEGIN; SAVEPOINT a;");
  insert_range(db, "s", 401, 5000);
  must_exec(db, "ROLLBACK TO a;");
  insert_range(db, "s", 401, 450);
  must_exec(db, "RELEASE a; COMMIT");
  insert_range(db, "ref", 401, 450);
  tap_ok(same_store(db, "s", "ref"),
         "ROLLBACK TO a savepoint undoes the layers added after it");

  /* Another connection follows growth it did not make. */
  sqlite3 *other = open_db_at(path);
  long seen = count_present(other, "s", 1, 450);
  insert_range(db, "s", 451, 20000);
  long after = count_present(other, "s", 1, 20000);
  insert_range(other, "s", 20001, 20100);
  insert_range(db, "ref", 451, 20100);
  tap_ok(seen == 450 && after == 20000 && same_store(db, "s", "ref"),
         "a second connection sees layers another added, and adds to the "
         "newest");
  sqlite3_close(other);
  sqlite3_close(db);
  db = open_db_at(path);
  tap_ok(count_present(db, "s", 1, 20100) == 20100 &&
             same_store(db, "s", "ref"),
         "the layers survive closing and reopening");
  sqlite3_close(db);
  remove(path);
}

/* A cuckoo store grows when its newest layer is full, and a delete never
** makes another value a false negative. */
static void test_cuckoo(void) {
  sqlite3 *db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE c USING cuckoo_store(capacity = 1000, "
                "growth = 2, fpr = 0.01)");
  insert_range(db, "c", 1, 60000);
  /* A cuckoo layer takes items until one finds no room: all the layers'
  ** slots hold them, and all but the newest's could not. */
  int layers = (int)config_int(db, "c", "layers");
  double slots = 0, older = 0;
  for (int i = 0; i < layers; i++) {
    double here = 4.0 * (double)layer_int(db, "c", i, "buckets");
    slots += here;
    if (i < layers - 1) older += here;
  }
  tap_ok(layers > 1 && slots >= 60000 && older < 60000 &&
             count_present(db, "c", 1, 60000) == 60000,
         "cuckoo_store grew to %d layers for 60000 items (%.0f slots, %.0f "
         "before the newest), none lost", layers, slots, older);
  must_exec(db, "DELETE FROM c WHERE value IN (WITH RECURSIVE s(x) AS "
                "(SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 30000) "
                "SELECT 'v' || x FROM s)");
  long kept = count_present(db, "c", 30001, 60000);
  long left = count_present(db, "c", 1, 30000);
  tap_ok(kept == 30000, "deleting half the values leaves every other one "
         "present (%ld of 30000)", kept);
  tap_ok(left < 30000 / 20, "the deleted values are gone but for %ld (a "
         "fingerprint found in two layers is kept)", left);
  sqlite3_close(db);
}

/* A scalable cuckoo store made before layout 1 (its layers without a
** layout row, a power of two of buckets): made here by rewriting a new
** store's first layer into that form.  Its new layers stay layout 0, so
** that it stays as the version that made it wrote it. */
static void test_cuckoo_old_layout(void) {
  const char *path = temp_db("old");
  sqlite3 *db = open_db_at(path);
  must_exec(db, "CREATE VIRTUAL TABLE c USING cuckoo_store(capacity = 200, "
                "growth = 2, fpr = 0.01)");
  sqlite3_int64 b = layer_int(db, "c", 0, "buckets");
  tap_ok(layer_int(db, "c", 0, "layout") == 1 && (b & (b - 1)) != 0,
         "a new scalable store's layer 0 is layout 1 (%lld buckets)",
         (long long)b);
  /* Layer 0 as version 1.1.0 sized it for 200: 64 buckets, taking 224. */
  must_exec(db, "DELETE FROM c_config WHERE key = 'layer.0.layout';"
                "UPDATE c_config SET value = 64 WHERE key = 'layer.0.buckets';"
                "UPDATE c_config SET value = 224 WHERE key = "
                "'layer.0.capacity'");
  sqlite3_close(db);
  db = open_db_at(path);
  insert_range(db, "c", 1, 3000);
  int layers = (int)config_int(db, "c", "layers"), pow2 = 1;
  for (int i = 0; i < layers; i++) {
    sqlite3_int64 n = layer_int(db, "c", i, "buckets");
    pow2 &= n > 0 && (n & (n - 1)) == 0;
  }
  tap_ok(layers > 2 && pow2 &&
             q_int(db, "SELECT count(*) FROM c_config WHERE key LIKE "
                       "'%layout%'", NOARGS) == 0 &&
             q_int(db, "SELECT count(*) FROM bloom_layers((SELECT filter "
                       "FROM c)) WHERE buckets & (buckets - 1) != 0",
                   NOARGS) == 0 &&
             count_present(db, "c", 1, 3000) == 3000,
         "it grew to %d layers, each layout 0 (a power of two of buckets, "
         "no layout row), none of 3000 items lost", layers);
  sqlite3_close(db);
  remove(path);
}

/* Only the writer's spelling of a layer key counts: a row such as
** layer.00.hashes (which sorts after layer.0.hashes) is damage, refused
** until it is gone, never read as layer 0's (which would change its k and
** lose every value); rows of a layer past the `layers` count are left by
** a growth that failed half way, and are ignored. */
static void test_layer_key_spelling(void) {
  static const char *const rows[] = {
      "('layer.00.hashes', 60)", "('layer.+0.hashes', 60)",
      "('layer. 0.hashes', 60)", "('layer.01.bits', 512)",
      "('layer.64.bits', 512)", "('layer.0.colour', 1)", "('hashes', 7)",
  };
  const char *path = temp_db("keys");
  sqlite3 *db = open_db_at(path);
  must_exec(db, "CREATE VIRTUAL TABLE s USING bloom_store(capacity = 100, "
                "growth = 2)");
  insert_range(db, "s", 1, 300);
  sqlite3_int64 layers = config_int(db, "s", "layers");
  sqlite3_close(db);
  int refused = 0;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    char sql[160];
    db = open_db_at(path);
    snprintf(sql, sizeof sql, "INSERT INTO s_config VALUES %s", rows[i]);
    must_exec(db, sql);
    sqlite3_close(db);
    db = open_db_at(path);
    refused += error_starts(db, "SELECT count(*) FROM s WHERE value = 'v1'",
                            NOARGS, "bloom_store: the configuration of s is "
                            "missing or damaged");
    sqlite3_close(db);
    db = open_db_at(path);
    snprintf(sql, sizeof sql, "DELETE FROM s_config WHERE (key, value) = %s",
             rows[i]);
    must_exec(db, sql);
    sqlite3_close(db);
  }
  tap_ok(refused == (int)(sizeof rows / sizeof rows[0]),
         "keys no scalable store writes (layer.00, layer.+0, layer. 0, "
         "layer.01, layer.64, an unknown layer key, an unprefixed kind key) "
         "are refused as damage (%d of %zu)", refused,
         sizeof rows / sizeof rows[0]);
  db = open_db_at(path);
  char sql[160];
  snprintf(sql, sizeof sql, "INSERT INTO s_config VALUES ('layer.%lld.bits', "
           "512), ('layer.%lld.capacity', 'junk')", layers, layers);
  must_exec(db, sql);
  sqlite3_close(db);
  db = open_db_at(path);
  tap_ok(layers > 1 && count_present(db, "s", 1, 300) == 300,
         "rows of a layer past the count (%lld layers) are ignored: every "
         "value is still present", layers);
  sqlite3_close(db);
  remove(path);
}

static void test_damage(void) {
  static const char *const damage[] = {
      "UPDATE s_config SET value = 0 WHERE key = 'layers'",
      "UPDATE s_config SET value = 65 WHERE key = 'layers'",
      "DELETE FROM s_config WHERE key = 'layer.1.bits'",
      "UPDATE s_config SET value = 0 WHERE key = 'layer.0.capacity'",
      "UPDATE s_config SET value = 1 WHERE key = 'layer.1.fpr'",
      "UPDATE s_config SET value = 0 WHERE key = 'growth'",
      "UPDATE s_config SET value = 1 WHERE key = 'tightening'",
      "DELETE FROM s_config WHERE key = 'growth'",
      "UPDATE s_config SET value = 0.5 WHERE key = 'growth'",
      "UPDATE s_config SET value = '3' WHERE key = 'layers'",
      "UPDATE s_config SET value = '0.9' WHERE key = 'tightening'",
      "UPDATE s_config SET value = 100.5 WHERE key = 'layer.1.capacity'",
      "UPDATE s_config SET value = '0.001' WHERE key = 'layer.1.fpr'",
      /* misspelt keys are damage in a layer past the count too */
      "INSERT INTO s_config VALUES ('layer.4.foo', 1)",
      "INSERT INTO s_config VALUES ('layer.3.bit', 1)",
      /* a windowed store's keys */
      "INSERT INTO s_config VALUES ('gen.0.number', 0)",
      "INSERT INTO s_config VALUES ('gen.0.layer.0.capacity', 1)",
  };
  /* 300 values: the store has grown to 3 layers before the damage. */
  check_config_damage_of("bloom_store", "capacity = 100, growth = 2",
                         "INSERT INTO s(value) WITH RECURSIVE n(x) AS (SELECT "
                         "1 UNION ALL SELECT x + 1 FROM n WHERE x < 300) "
                         "SELECT 'v' || x FROM n",
                         damage, sizeof damage / sizeof damage[0]);
  sqlite3 *db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE s USING bloom_store(capacity = 100, "
                "growth = 2)");
  insert_range(db, "s", 1, 300);
  must_exec(db, "INSERT INTO s_chunks VALUES (9999, zeroblob(10))");
  expect_error(db, "a chunk row beyond the last layer", "SELECT filter FROM s",
               NOARGS, "bloom_store: chunk 9999 of s is outside its layers", 0);
  must_exec(db, "DELETE FROM s_chunks WHERE id = 9999;"
                "UPDATE s_chunks SET data = substr(data, 1, 10) WHERE id = "
                "(SELECT max(id) FROM s_chunks)");
  expect_error(db, "a chunk row cut short, in the newest layer",
               "SELECT filter FROM s", NOARGS, "bloom_store: chunk ", 0);
  sqlite3_close(db);
}

/* A layer larger than the 64 MB of chunks a transaction keeps in memory
** (50 million items at 0.1%: 98 MB): past the budget, adds to chunks not in
** memory are kept as hashes and applied in chunk order, and the layer's
** items are counted from an estimate plus the adds since.  The layer must
** hold exactly what bloom_build of its values holds. */
static void test_past_the_budget(void) {
  sqlite3 *db = open_db(NULL);
  must_exec(db, "CREATE VIRTUAL TABLE big USING bloom_store(capacity = "
                "50000000, growth = 2, fpr = 0.01);"
                "CREATE TABLE vals(v);"
                "INSERT INTO vals WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL "
                "SELECT x + 1 FROM n WHERE x < 200000) "
                "SELECT x * 2654435761 % 1000000007 FROM n;"
                "BEGIN; INSERT INTO big(value) SELECT v FROM vals;");
  long seen = (long)q_int(db, "SELECT count(*) FROM vals WHERE EXISTS "
                              "(SELECT 1 FROM big WHERE value = vals.v)",
                          NOARGS);
  must_exec(db, "SAVEPOINT a; INSERT INTO big(value) WITH RECURSIVE n(x) AS "
                "(SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 50000) "
                "SELECT 'dropped' || x FROM n; ROLLBACK TO a; RELEASE a;"
                "INSERT INTO big(value) SELECT -v FROM vals WHERE v % 4 = 0;"
                "INSERT INTO vals SELECT -v FROM vals WHERE v % 4 = 0;"
                "COMMIT;");
  tap_ok(seen == 200000, "a layer past the budget: inside the transaction "
         "every value added is seen (%ld of 200000)", seen);
  /* One layer: its blob follows the header and the 64-byte directory. */
  tap_ok(config_int(db, "big", "layers") == 1 &&
             q_int(db, "SELECT substr((SELECT filter FROM big), 129) = "
                       "(SELECT bloom_build(v, 50000000, (SELECT value "
                       "FROM big_config WHERE key = 'layer.0.fpr')) FROM "
                       "vals)", NOARGS) == 1,
         "a layer past the budget is exactly bloom_build over its values, "
         "its count included (what ROLLBACK TO undid gone, what COMMIT "
         "applied there)");
  sqlite3_close(db);
}

/* A Bloom layer of at most 4096 chunks takes exactly its capacity (its
** items counted from its chunks' counters once it may be full, then
** counted on), whether of at most 16 chunks or more (where a screen
** decides first): the next layer begins with the item after. */
static void test_exact_fill(void) {
  sqlite3 *db = open_db(NULL);
  int right = 1;
  /* 30,000 at 1e-4 (a first layer of fpr 0.001): more than 16 chunks */
  const long capacities[] = {300, 30000};
  for (size_t i = 0; i < sizeof capacities / sizeof capacities[0]; i++) {
    char sql[200];
    long c = capacities[i];
    snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS s; CREATE VIRTUAL TABLE "
             "s USING bloom_store(capacity = %ld, growth = 2, fpr = 0.001)",
             c);
    must_exec(db, sql);
    /* layer 0 holds c, layer 1 2c */
    insert_range(db, "s", 1, c);
    right &= config_int(db, "s", "layers") == 1;
    insert_range(db, "s", c + 1, c + 1);
    right &= config_int(db, "s", "layers") == 2;
    insert_range(db, "s", c + 2, 3 * c);
    right &= config_int(db, "s", "layers") == 2;
    insert_range(db, "s", 3 * c + 1, 3 * c + 1);
    right &= config_int(db, "s", "layers") == 3;
  }
  tap_ok(right, "bloom_store: a layer takes exactly its capacity, small or "
         "of more than 16 chunks");
  sqlite3_close(db);
}

int main(void) {
  test_arguments();
  test_growth("bloom_store", 0.01);
  test_growth("cuckoo_store", 0.01);
  test_layer_targets("bloom_store");
  test_layer_targets("cuckoo_store");
  test_export();
  test_transactions();
  test_cuckoo();
  test_damage();
  test_cuckoo_old_layout();
  test_layer_key_spelling();
  test_past_the_budget();
  test_exact_fill();
  return tap_done();
}
