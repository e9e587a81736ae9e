/*
** Out-of-memory at every allocation, and while loading.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** A counting, failing allocator (tests/lib/faults.h) is installed with
** SQLITE_CONFIG_MALLOC before sqlite3_initialize(), lookaside off, so that
** every allocation SQLite and the extension make reaches it.  For each
** scenario, on a fresh in-memory database with BLOOM_SO loaded and the
** scenario's tables set up, allocation N of the statement under test
** (prepare, steps, finalize) fails, for N = 1, 2, ... until a run in which
** no allocation failed: once with only allocation N failing (one-shot),
** once with every allocation from N on failing (persistent).  Each run must
**   - return SQLITE_OK with the same rows as the run without faults, or
**     fail with SQLITE_NOMEM (at prepare or at a step);
**   - leave the database consistent (the scenario's check query, run with
**     faults off, gives 1);
**   - leave no allocation behind: after sqlite3_close the count of live
**     allocations is back where it was before sqlite3_open;
**   - not crash (the ASan+UBSan variant also checks every access).
** Every fault point is swept; the number per scenario is printed.
**
** The load itself is swept too: after each failed load the
** functions that did register are called (they must work, since the .so is
** linked with -z nodelete), then a re-load must succeed and every function
** must work.  The .so must stay mapped after every connection closed, and
** must import no malloc/calloc/realloc/free.
*/
#define _GNU_SOURCE

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/faults.h"
#include "lib/sqldb.h"
#include "lib/clock.h"
#include "lib/tap.h"

/* ---- scenarios ----------------------------------------------------------- */

/* A recursive CTE of the integers 1..n as s(x) (tests/lib/sqldb.h's
** SERIES(lo, hi) takes SQL text; this one a literal). */
#define SERIES_1_TO(n)                                                    \
  "WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE " \
  "x < " #n ") "

/* Tables: t(x) 1..2000; vals(v) one value of each storage class and some
** specials; filt(name, f) filters over vals and over 1..50; parts(g, f)
** twelve filters over 1..600, three groups. */
static const char SETUP_T[] =
    "CREATE TABLE t(x INTEGER);"
    "INSERT INTO t " SERIES_1_TO(2000) "SELECT x FROM s;";
static const char SETUP_VALS[] =
    "CREATE TABLE vals(v);"
    "INSERT INTO vals VALUES (42), (42.0), (-7), (2.5), (-0.0), ('text'),"
    " ('gr\xc3\xbc\xc3\x9f" "e \xe6\x97\xa5\xe6\x9c\xac'), (''), (x''),"
    " (x'00ff10'), (NULL), (9223372036854775807), ('a longer text value, "
    "longer than a few bytes, to make the conversion allocate');"
    "CREATE TABLE filt(name TEXT PRIMARY KEY, f BLOB);"
    "INSERT INTO filt SELECT 'a', bloom_build(v, 100, 0.01) FROM vals;"
    "INSERT INTO filt SELECT 'b', bloom_build(v, 100, 0.01) FROM vals"
    " WHERE typeof(v) = 'text';";
/* A windowed store (events clock), 50 values in its first generation. */
#define SETUP_WSTORE                                                       \
  "CREATE VIRTUAL TABLE ws USING bloom_store(fpr = 1e-5, window = 3600,"   \
  " clock = 'events');"                                                    \
  "INSERT INTO ws(value, at) SELECT x, 1000000 + x FROM t WHERE x <= 50;"
static const char SETUP_PARTS[] =
    "CREATE TABLE parts(g, f);"
    "INSERT INTO parts SELECT x % 3, bloom_build(x, 1000, 0.01) FROM ("
    SERIES_1_TO(600)
    "SELECT x FROM s) GROUP BY x % 12;";
static const char SETUP_TRIGGER[] =
    "CREATE TABLE items(id INTEGER PRIMARY KEY, v);"
    "CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);"
    "INSERT INTO filters VALUES ('items', bloom_empty(1000, 0.01));"
    "CREATE TRIGGER items_ai AFTER INSERT ON items BEGIN"
    "  UPDATE filters SET f = bloom_add(f, NEW.id) WHERE name = 'items';"
    " END;";

/* A store of two chunks (20,000 items at 1%: 186 blocks, 62 a chunk). */
#define SETUP_STORE \
  "CREATE VIRTUAL TABLE st USING bloom_store(capacity = 20000, fpr = 0.01);"

/* Either the store exists and works, or nothing of it does (st is named
** only inside bloom_probe's query, which runs only when it exists). */
#define STORE_CREATED                                                      \
  "SELECT CASE (SELECT count(*) FROM sqlite_master WHERE name LIKE 'st%')" \
  " WHEN 0 THEN 1 WHEN 3 THEN bloom_probe('SELECT filter FROM st', 1) = 0" \
  " ELSE 0 END"

/* The statement took effect whole or not at all. */
#define STORE_HOLDS_0_OR_300                                               \
  "SELECT (SELECT filter FROM st) IN (bloom_empty(20000, 0.01),"           \
  " (SELECT bloom_build(x, 20000, 0.01) FROM t WHERE x <= 300))"

/* The stored filter holds every row and counted each exactly once. */
#define TRIGGER_CHECK                                                      \
  "SELECT (SELECT count(*) FROM items) IN (0, 40) AND"                     \
  " (SELECT inserted FROM bloom_info((SELECT f FROM filters))) ="          \
  " (SELECT count(*) FROM items) AND NOT EXISTS (SELECT 1 FROM items,"     \
  " filters WHERE bloom_test(filters.f, items.id) IS NOT 1)"

/* A cuckoo store of ten chunks (20,000 items at 1%: 8192 buckets). */
#define SETUP_CSTORE \
  "CREATE VIRTUAL TABLE cs USING cuckoo_store(capacity = 20000, fpr = 0.01);"
#define CSTORE_ITEMS "(SELECT items FROM cuckoo_info((SELECT filter FROM cs)))"

/* Every x of t up to `hi` from `lo` is in cs. */
#define CSTORE_HOLDS(lo, hi)                                               \
  "NOT EXISTS (SELECT 1 FROM t WHERE x BETWEEN " #lo " AND " #hi " AND"    \
  " NOT cuckoo_test((SELECT filter FROM cs), x))"

/* Scalable stores that grow within a few hundred inserts. */
#define SETUP_SSTORE \
  "CREATE VIRTUAL TABLE ss USING bloom_store(capacity = 20, growth = 2);"
#define SETUP_SCSTORE \
  "CREATE VIRTUAL TABLE scs USING cuckoo_store(capacity = 20, growth = 2);"

/* quotient_store on 512-byte pages: leaves of at most 69 entries, that
** split within a few hundred inserts; one growing from one leaf (qs), one
** sized at CREATE for 100 items (qz: 2 leaves, that split past it). */
#define QPAGE "PRAGMA page_size = 512;"
#define SETUP_QSTORE \
  "CREATE VIRTUAL TABLE qs USING quotient_store(fpr = 0.01);"
#define SETUP_QZSTORE \
  "CREATE VIRTUAL TABLE qz USING quotient_store(capacity = 100, fpr = 0.01);"
#define QINFO(t, col) "(SELECT " #col " FROM quotient_info((SELECT filter FROM " #t ")))"
/* Every x of t from `lo` to `hi` is in store `st`, by = and in its export. */
#define QHOLDS(st, lo, hi)                                                   \
  "NOT EXISTS (SELECT 1 FROM t WHERE x BETWEEN " #lo " AND " #hi " AND"     \
  " (NOT quotient_test((SELECT filter FROM " #st "), x) OR NOT EXISTS"      \
  " (SELECT 1 FROM " #st " WHERE value = x)))"
/* Set up by main(): attaches a quotient store in a database file, made
** before the sweeps, that the statement under test opens (xConnect). */
static char qfile_setup[800];

typedef struct scenario {
  const char *name;
  const char *encoding; /* NULL (UTF-8) or a PRAGMA encoding value */
  const char *setup[4]; /* run after the load, before arming */
  const char *sql;      /* the statement under faults */
  const char *check;    /* with faults off, after it: must give 1 */
  const char *error;    /* NULL: works without faults.  Else the start of
                           the function's own error (README.md), which
                           the run without faults must give with
                           SQLITE_ERROR; under faults, that same error or
                           SQLITE_NOMEM is expected */
} scenario;

static const scenario SCENARIOS[] = {
    {"bloom_build over 0 rows", NULL, {"CREATE TABLE e(x);"},
     "SELECT bloom_build(x, 100, 0.01) FROM e", NULL, NULL},
    {"bloom_build over 1 row", NULL, {"CREATE TABLE e(x); INSERT INTO e VALUES (1);"},
     "SELECT bloom_build(x, 100, 0.01) FROM e", NULL, NULL},
    {"bloom_build over 2,000 rows", NULL, {SETUP_T},
     "SELECT bloom_build(x, 2000, 0.01) FROM t", NULL, NULL},
    {"bloom_build GROUP BY", NULL, {SETUP_T},
     "SELECT x % 7, bloom_build(x, 500, 0.01) FROM t GROUP BY x % 7", NULL, NULL},
    {"bloom_build(v) sized from the data", NULL, {SETUP_T},
     "SELECT bloom_build(x % 1500) FROM t", NULL, NULL},
    {"bloom_build(v, NULL, p) GROUP BY", NULL, {SETUP_T},
     "SELECT x % 2, bloom_build(x, NULL, 0.001) FROM t GROUP BY 1", NULL, NULL},
    {"bloom_build over every storage class, UTF-16le", "UTF-16le", {SETUP_VALS},
     "SELECT bloom_build(v, 100, 0.01) = (SELECT f FROM filt WHERE name = 'a')"
     " FROM vals", NULL, NULL},
    {"bloom_test on each storage class, UTF-8", NULL, {SETUP_VALS},
     "SELECT bloom_test(f, v), bloom_test(f, zeroblob(3)) FROM filt, vals",
     NULL, NULL},
    {"bloom_test on each storage class, UTF-16le", "UTF-16le", {SETUP_VALS},
     "SELECT bloom_test(f, v) FROM filt, vals", NULL, NULL},
    {"bloom_test on each storage class, UTF-16be", "UTF-16be", {SETUP_VALS},
     "SELECT bloom_test(f, v) FROM filt, vals", NULL, NULL},
    {"bloom_add, UTF-8", NULL, {SETUP_VALS},
     "SELECT bloom_add(f, v, 'x', 2.5, x'01', NULL, zeroblob(2)) FROM filt, vals",
     NULL, NULL},
    {"bloom_add, UTF-16le", "UTF-16le", {SETUP_VALS},
     "SELECT bloom_add(f, v, 'gr\xc3\xbc\xc3\x9f" "e') FROM filt, vals", NULL, NULL},
    {"bloom_union and bloom_intersect", NULL, {SETUP_VALS},
     "SELECT bloom_union(a.f, b.f), bloom_intersect(a.f, b.f) FROM filt a,"
     " filt b", NULL, NULL},
    {"bloom_merge", NULL, {SETUP_PARTS}, "SELECT bloom_merge(f) FROM parts",
     NULL, NULL},
    {"bloom_merge GROUP BY", NULL, {SETUP_PARTS},
     "SELECT g, bloom_merge(f) FROM parts GROUP BY g", NULL, NULL},
    {"bloom_info", NULL, {SETUP_VALS},
     "SELECT * FROM bloom_info((SELECT f FROM filt WHERE name = 'a'))", NULL, NULL},
    {"bloom_info correlated", NULL, {SETUP_VALS},
     "SELECT name, i.* FROM filt, bloom_info(filt.f) AS i", NULL, NULL},
    {"bloom_ref probe", NULL, {SETUP_T, SETUP_VALS},
     "SELECT count(*) FROM bloom_ref((SELECT f FROM filt WHERE name = 'a'))"
     " AS r CROSS JOIN t WHERE bloom_test(r.filter, t.x)", NULL, NULL},
    {"bloom_ref correlated", NULL, {SETUP_VALS},
     "SELECT name, r.filter FROM filt, bloom_ref(filt.f) AS r", NULL, NULL},
    {"bloom_probe", NULL, {SETUP_T, SETUP_VALS},
     "SELECT count(*) FROM t WHERE bloom_probe('SELECT f FROM filt WHERE "
     "name = ''a''', t.x)", NULL, NULL},
    {"bloom_probe with its query from a column", NULL, {SETUP_VALS},
     "SELECT bloom_probe('SELECT f FROM filt WHERE name = ''' || name || "
     "'''', v) FROM filt, vals", NULL, NULL},
    {"bloom_probe with a query that fails (an error)", NULL, {SETUP_T},
     "SELECT count(*) FROM t WHERE bloom_probe('SELECT x FROM t', t.x)", NULL,
     "bloom_probe: the query must return a filter BLOB, got INTEGER"},
    {"bloom_plan", NULL, {NULL},
     "SELECT * FROM bloom_plan(1000000, 0.001)", NULL, NULL},
    {"bloom_key, UTF-8", NULL, {SETUP_VALS},
     "SELECT bloom_key(v, 'a', 2.5, 42.0, x'01', 'gr\xc3\xbc\xc3\x9f" "e')"
     " FROM vals", NULL, NULL},
    {"bloom_key, UTF-16le", "UTF-16le", {SETUP_VALS},
     "SELECT bloom_key(v, 'a', 2.5, x'01', 'gr\xc3\xbc\xc3\x9f" "e') FROM vals",
     NULL, NULL},
    {"bloom_key with a zeroblob part", NULL, {NULL},
     "SELECT bloom_key(zeroblob(4), 1)", NULL, NULL},
    {"a zeroblob where a filter goes (an error)", NULL, {NULL},
     "SELECT bloom_test(zeroblob(100), 1)", NULL,
     "bloom_test: not a filter"},
    {"bloom_build with a bad n on row 1,000 of a group (an error)", NULL,
     {SETUP_T},
     "SELECT x % 2, bloom_build(x, CASE WHEN x = 1000 THEN 0 ELSE 100 END,"
     " 0.01) FROM t GROUP BY 1", NULL,
     "bloom_build: n must be an integer >= 1, got 0"},
    {"bloom_empty, bloom_count, bloom_version", NULL, {SETUP_VALS},
     "SELECT bloom_empty(1000), bloom_empty(100, 0.001), bloom_count(f),"
     " bloom_version() FROM filt", NULL, NULL},
    {"trigger-maintained insert", NULL, {SETUP_T, SETUP_TRIGGER},
     "INSERT INTO items SELECT x, 'v' || x FROM t WHERE x <= 40",
     TRIGGER_CHECK, NULL},
    {"cuckoo_build", NULL, {SETUP_T},
     "SELECT cuckoo_build(x, 2000, 0.01) FROM t", NULL, NULL},
    {"cuckoo_build GROUP BY", NULL, {SETUP_T},
     "SELECT x % 5, cuckoo_build(x, 500, 0.01) FROM t GROUP BY 1", NULL, NULL},
    {"cuckoo_build(v, NULL) sized from the data", NULL, {SETUP_T},
     "SELECT cuckoo_build(x % 1500, NULL) FROM t", NULL, NULL},
    {"cuckoo_build over its capacity (an error)", NULL, {SETUP_T},
     "SELECT cuckoo_build(x, 100, 0.01) FROM t", NULL,
     "cuckoo_build: capacity exceeded"},
    {"cuckoo_test, cuckoo_add, cuckoo_delete, UTF-16le", "UTF-16le",
     {SETUP_VALS,
      "CREATE TABLE cf(f); INSERT INTO cf SELECT cuckoo_build(v, 100, 0.01)"
      " FROM vals;"},
     "SELECT cuckoo_test(f, v), cuckoo_add(f, v), cuckoo_delete(f, v)"
     " FROM cf, vals", NULL, NULL},
    {"cuckoo_info", NULL,
     {SETUP_VALS,
      "CREATE TABLE cf(f); INSERT INTO cf SELECT cuckoo_build(v, 100, 0.01)"
      " FROM vals;"},
     "SELECT i.* FROM cf, cuckoo_info(cf.f) AS i", NULL, NULL},
    {"quotient_build", NULL, {SETUP_T},
     "SELECT quotient_build(x, 2000, 0.01) FROM t", NULL, NULL},
    {"quotient_build GROUP BY", NULL, {SETUP_T},
     "SELECT x % 5, quotient_build(x, 500, 0.001) FROM t GROUP BY 1", NULL,
     NULL},
    {"quotient_build(v, NULL) sized from the data", NULL, {SETUP_T},
     "SELECT quotient_build(x % 1500, NULL) FROM t", NULL, NULL},
    {"quotient_build over its capacity (an error)", NULL, {SETUP_T},
     "SELECT quotient_build(x, 100, 0.01) FROM t", NULL,
     "quotient_build: capacity exceeded"},
    {"quotient_test and quotient_info, UTF-16le", "UTF-16le",
     {SETUP_VALS,
      "CREATE TABLE qf(f); INSERT INTO qf SELECT quotient_build(v, 100, 0.01)"
      " FROM vals;"},
     "SELECT quotient_test(f, v), (SELECT estimated_fpr FROM"
     " quotient_info(qf.f)) FROM qf, vals", NULL, NULL},
    {"quotient_probe over a quotient_build in its query", NULL, {SETUP_T},
     "SELECT count(*) FROM t WHERE quotient_probe('SELECT quotient_build(x, "
     "100) FROM t WHERE x <= 50', t.x)", NULL, NULL},
    {"cuckoo_probe over a cuckoo_build in its query", NULL, {SETUP_T},
     "SELECT count(*) FROM t WHERE cuckoo_probe('SELECT cuckoo_build(x, 100) "
     "FROM t WHERE x <= 50', t.x)", NULL, NULL},
    {"CREATE VIRTUAL TABLE ... USING bloom_store", NULL, {SETUP_T},
     "CREATE VIRTUAL TABLE st USING bloom_store(capacity = 20000, fpr = 0.01)",
     STORE_CREATED, NULL},
    {"bloom_store: 300 inserts in one statement", NULL, {SETUP_T, SETUP_STORE},
     "INSERT INTO st(value) SELECT x FROM t WHERE x <= 300",
     STORE_HOLDS_0_OR_300, NULL},
    {"bloom_store: inserts by a trigger", NULL,
     {SETUP_T, SETUP_STORE,
      "CREATE TABLE items(id INTEGER PRIMARY KEY);"
      "CREATE TRIGGER items_ai AFTER INSERT ON items BEGIN"
      "  INSERT INTO st(value) VALUES (NEW.id); END;"},
     "INSERT INTO items SELECT x FROM t WHERE x <= 300",
     "SELECT (SELECT filter FROM st) = coalesce((SELECT bloom_build(id, 20000,"
     " 0.01) FROM items), bloom_empty(20000, 0.01)) AND"
     " (SELECT count(*) FROM items) IN (0, 300)", NULL},
    {"bloom_store: probes (=, IN, correlated) and the export", "UTF-16le",
     {SETUP_T, SETUP_VALS, SETUP_STORE
      "INSERT INTO st(value) SELECT v FROM vals;"
      "INSERT INTO st(value) SELECT x FROM t WHERE x % 2 = 0;"},
     "SELECT (SELECT count(*) FROM t WHERE EXISTS (SELECT 1 FROM st WHERE"
     " value = t.x)), (SELECT count(*) FROM st WHERE value IN (SELECT v FROM"
     " vals)), (SELECT hex(filter) FROM st)", NULL, NULL},
    {"bloom_store: a merge", NULL,
     {SETUP_T, SETUP_STORE,
      "CREATE TABLE other AS SELECT bloom_build(x, 20000, 0.01) AS f FROM t;"},
     "INSERT INTO st(filter) SELECT f FROM other",
     "SELECT (SELECT filter FROM st) IN ((SELECT f FROM other),"
     " bloom_empty(20000, 0.01))", NULL},
    {"CREATE VIRTUAL TABLE ... USING cuckoo_store", NULL, {SETUP_T},
     "CREATE VIRTUAL TABLE cs USING cuckoo_store(capacity = 20000)",
     "SELECT CASE (SELECT count(*) FROM sqlite_master WHERE name LIKE 'cs%')"
     " WHEN 0 THEN 1 WHEN 3 THEN cuckoo_probe('SELECT filter FROM cs', 1) = 0"
     " ELSE 0 END", NULL},
    {"cuckoo_store: 300 inserts in one statement", NULL, {SETUP_T, SETUP_CSTORE},
     "INSERT INTO cs(value) SELECT x FROM t WHERE x <= 300",
     "SELECT CASE " CSTORE_ITEMS " WHEN 0 THEN 1 WHEN 300 THEN "
     CSTORE_HOLDS(1, 300) " ELSE 0 END", NULL},
    {"cuckoo_store: 150 deletes in one statement", NULL,
     {SETUP_T, SETUP_CSTORE,
      "INSERT INTO cs(value) SELECT x FROM t WHERE x <= 300;"},
     "DELETE FROM cs WHERE value IN (SELECT x FROM t WHERE x <= 150)",
     "SELECT " CSTORE_ITEMS " IN (150, 300) AND " CSTORE_HOLDS(151, 300),
     NULL},
    {"cuckoo_store: probes (=, IN, correlated) and the export", "UTF-16le",
     {SETUP_T, SETUP_VALS, SETUP_CSTORE
      "INSERT INTO cs(value) SELECT v FROM vals;"
      "INSERT INTO cs(value) SELECT x FROM t WHERE x % 2 = 0;"},
     "SELECT (SELECT count(*) FROM t WHERE EXISTS (SELECT 1 FROM cs WHERE"
     " value = t.x)), (SELECT count(*) FROM cs WHERE value IN (SELECT v FROM"
     " vals)), (SELECT hex(filter) FROM cs)", NULL, NULL},
    {"cuckoo_store: a load", NULL,
     {SETUP_T, SETUP_CSTORE,
      "CREATE TABLE other AS SELECT cuckoo_build(x, 20000, 0.01) AS f FROM t;"},
     "INSERT INTO cs(filter) SELECT f FROM other",
     "SELECT (SELECT filter FROM cs) IN ((SELECT f FROM other),"
     " cuckoo_build(NULL, 20000, 0.01))", NULL},
    {"cuckoo_store: a ninth copy (an error)", NULL, {SETUP_T, SETUP_CSTORE},
     "INSERT INTO cs(value) SELECT 'dup' FROM t WHERE x <= 9",
     "SELECT " CSTORE_ITEMS " = 0", "cuckoo_store: the value does not fit"},
    {"bloom_store, scalable: 300 inserts growing 4 layers", NULL,
     {SETUP_T, SETUP_SSTORE},
     "INSERT INTO ss(value) SELECT x FROM t WHERE x <= 300",
     "SELECT CASE (SELECT count(*) FROM t WHERE x <= 300 AND EXISTS (SELECT 1"
     " FROM ss WHERE value = t.x)) WHEN 0 THEN (SELECT value FROM ss_config"
     " WHERE key = 'layers') = 1 WHEN 300 THEN (SELECT value FROM ss_config"
     " WHERE key = 'layers') > 3 ELSE 0 END AND (SELECT inserted FROM"
     " bloom_info((SELECT filter FROM ss))) IN (0, 300)", NULL},
    {"bloom_store, scalable: probes and the layered export", "UTF-16le",
     {SETUP_T, SETUP_VALS, SETUP_SSTORE
      "INSERT INTO ss(value) SELECT v FROM vals;"
      "INSERT INTO ss(value) SELECT x FROM t WHERE x % 2 = 0 AND x <= 200;"},
     "SELECT (SELECT count(*) FROM t WHERE x <= 100 AND EXISTS (SELECT 1 FROM"
     " ss WHERE value = t.x)), (SELECT count(*) FROM ss WHERE value IN (SELECT"
     " v FROM vals)), (SELECT hex(filter) FROM ss)", NULL, NULL},
    {"cuckoo_store, scalable: 300 inserts growing layers", NULL,
     {SETUP_T, SETUP_SCSTORE},
     "INSERT INTO scs(value) SELECT x FROM t WHERE x <= 300",
     "SELECT CASE (SELECT count(*) FROM t WHERE x <= 300 AND EXISTS (SELECT 1"
     " FROM scs WHERE value = t.x)) WHEN 0 THEN (SELECT value FROM scs_config"
     " WHERE key = 'layers') = 1 WHEN 300 THEN (SELECT value FROM scs_config"
     " WHERE key = 'layers') > 1 ELSE 0 END", NULL},
    {"cuckoo_store, scalable: 150 deletes over the layers", NULL,
     {SETUP_T, SETUP_SCSTORE,
      "INSERT INTO scs(value) SELECT x FROM t WHERE x <= 300;"},
     "DELETE FROM scs WHERE value IN (SELECT x FROM t WHERE x <= 150)",
     /* every delete or none; a value whose fingerprint several layers
     ** hold stays (at n = 300 one of the 150 does) */
     "SELECT (SELECT items FROM cuckoo_info((SELECT filter FROM scs))) = 300"
     " - (SELECT count(*) FROM t WHERE x <= 150 AND NOT EXISTS (SELECT 1 FROM"
     " scs WHERE value = t.x)) AND (SELECT count(*) FROM t WHERE x <= 150 AND"
     " NOT EXISTS (SELECT 1 FROM scs WHERE value = t.x)) IN (0, 149, 150)"
     " AND NOT EXISTS (SELECT 1 FROM t WHERE x BETWEEN 151 AND 300"
     " AND NOT EXISTS (SELECT 1 FROM scs WHERE value = t.x))", NULL},
    {"bloom_store, windowed: 150 inserts across generations, expiring", NULL,
     {SETUP_T, SETUP_WSTORE},
     "INSERT INTO ws(value, at) SELECT x, 1000000 + x * 60 FROM t WHERE"
     " x <= 150",
     "SELECT CASE (SELECT count(*) FROM t WHERE x BETWEEN 100 AND 150 AND"
     " EXISTS (SELECT 1 FROM ws WHERE value = t.x)) WHEN 51 THEN NOT EXISTS"
     " (SELECT 1 FROM t WHERE x <= 50 AND EXISTS (SELECT 1 FROM ws WHERE"
     " value = t.x)) WHEN 0 THEN (SELECT count(*) FROM t WHERE x <= 50 AND"
     " EXISTS (SELECT 1 FROM ws WHERE value = t.x)) = 50 ELSE 0 END", NULL},
    {"bloom_store, windowed: probes, generation rows, the export", NULL,
     {SETUP_T, SETUP_WSTORE
      "INSERT INTO ws(value, at) SELECT x, 1000000 + x * 10 FROM t WHERE"
      " x <= 300;"},
     "SELECT (SELECT count(*) FROM t WHERE x <= 300 AND EXISTS (SELECT 1 FROM"
     " ws WHERE value = t.x)), (SELECT group_concat(generation || ':' || items"
     " || ':' || start) FROM ws), (SELECT hex(filter) FROM ws)", NULL, NULL},
    {"cuckoo_store, windowed: deletes and an expiring insert", NULL,
     {SETUP_T,
      "CREATE VIRTUAL TABLE wc USING cuckoo_store(fpr = 1e-5, window = 3600,"
      " clock = 'events');"
      "INSERT INTO wc(value, at) SELECT x, 1000000 + x * 10 FROM t WHERE"
      " x <= 300;"},
     "DELETE FROM wc WHERE value IN (SELECT x FROM t WHERE x <= 150)",
     "SELECT (SELECT items FROM cuckoo_info((SELECT filter FROM wc))) IN"
     " (150, 300) AND NOT EXISTS (SELECT 1 FROM t WHERE x BETWEEN 151 AND 300"
     " AND NOT EXISTS (SELECT 1 FROM wc WHERE value = t.x))", NULL},
    {"CREATE VIRTUAL TABLE ... USING quotient_store, growing", NULL, {QPAGE},
     "CREATE VIRTUAL TABLE qs USING quotient_store(fpr = 0.01)",
     "SELECT CASE (SELECT count(*) FROM sqlite_master WHERE name LIKE 'qs%')"
     " WHEN 0 THEN 1 WHEN 4 THEN quotient_probe('SELECT filter FROM qs WHERE"
     " (SELECT blocks FROM quotient_info((SELECT filter FROM qs))) = 1', 1) = 0"
     " ELSE 0 END", NULL},
    {"CREATE VIRTUAL TABLE ... USING quotient_store, sized (64 leaves)", NULL,
     {QPAGE},
     "CREATE VIRTUAL TABLE qz USING quotient_store(capacity = 2000, fpr = 0.01)",
     /* 2000 / 2^6 <= 0.85 * 69 < 2000 / 2^5 (FORMAT.md, "Stores") */
     "SELECT CASE (SELECT count(*) FROM sqlite_master WHERE name LIKE 'qz%')"
     " WHEN 0 THEN 1 WHEN 4 THEN quotient_probe('SELECT filter FROM qz WHERE"
     " (SELECT count(*) FROM qz_directory) = 64 AND (SELECT blocks FROM"
     " quotient_info((SELECT filter FROM qz))) = 64', 1) = 0 ELSE 0 END", NULL},
    {"quotient_store, growing: 300 inserts splitting leaves", NULL,
     {QPAGE, SETUP_T, SETUP_QSTORE},
     "INSERT INTO qs(value) SELECT x FROM t WHERE x <= 300",
     "SELECT CASE " QINFO(qs, items) " WHEN 0 THEN " QINFO(qs, blocks) " = 1"
     " WHEN 300 THEN " QINFO(qs, blocks) " > 4 AND " QHOLDS(qs, 1, 300)
     " ELSE 0 END AND (SELECT count(*) FROM qs_directory) = " QINFO(qs, blocks),
     NULL},
    {"quotient_store, sized: 300 inserts past its capacity", NULL,
     {QPAGE, SETUP_T, SETUP_QZSTORE},
     "INSERT INTO qz(value) SELECT x FROM t WHERE x <= 300",
     "SELECT CASE " QINFO(qz, items) " WHEN 0 THEN " QINFO(qz, blocks) " = 2"
     " WHEN 300 THEN " QINFO(qz, blocks) " > 4 AND " QHOLDS(qz, 1, 300)
     " ELSE 0 END AND (SELECT count(*) FROM qz_directory) = " QINFO(qz, blocks),
     NULL},
    {"quotient_compact of a growing store's export", NULL,
     {QPAGE, SETUP_T,
      SETUP_QSTORE "INSERT INTO qs(value) SELECT x FROM t WHERE x <= 300;"},
     "SELECT quotient_compact(filter), quotient_compact(filter, 0.05) FROM qs",
     NULL, NULL},
    {"bloom_ref and quotient_probe over a compacted filter, its leaves "
     "indexed as they are probed", NULL,
     {QPAGE, SETUP_T,
      SETUP_QSTORE "INSERT INTO qs(value) SELECT x FROM t WHERE x <= 300;"
      "CREATE TABLE qc AS SELECT quotient_compact(filter) AS f FROM qs;"},
     "SELECT count(*), sum(quotient_probe('SELECT f FROM qc', t.x)) FROM"
     " bloom_ref((SELECT f FROM qc)) AS r CROSS JOIN t WHERE"
     " quotient_test(r.filter, t.x)",
     NULL, NULL},
    {"quotient_store: 150 deletes in one statement", NULL,
     {QPAGE, SETUP_T,
      SETUP_QSTORE "INSERT INTO qs(value) SELECT x FROM t WHERE x <= 300;"},
     "DELETE FROM qs WHERE value IN (SELECT x FROM t WHERE x <= 150)",
     "SELECT " QINFO(qs, items) " IN (150, 300) AND " QHOLDS(qs, 151, 300),
     NULL},
    {"quotient_store: probes (=, IN, correlated), the summary, the export",
     "UTF-16le",
     {QPAGE, SETUP_T, SETUP_VALS,
      SETUP_QZSTORE "INSERT INTO qz(value) SELECT v FROM vals;"
      "INSERT INTO qz(value) SELECT x FROM t WHERE x % 2 = 0 AND x <= 600;"},
     "SELECT (SELECT count(*) FROM t WHERE x <= 300 AND EXISTS (SELECT 1 FROM"
     " qz WHERE value = t.x)), (SELECT count(*) FROM qz WHERE value IN (SELECT v FROM"
     " vals)), (SELECT hex(filter) FROM qz), (SELECT count(*) FROM (SELECT *"
     " FROM qz))", NULL, NULL},
    {"quotient_store: OR IGNORE inserts by a trigger, repeats", NULL,
     {QPAGE, SETUP_T,
      SETUP_QSTORE "CREATE TABLE items(id INTEGER PRIMARY KEY);"
      "CREATE TRIGGER items_ai AFTER INSERT ON items BEGIN"
      "  INSERT OR IGNORE INTO qs(value) VALUES (NEW.id % 97); END;"},
     "INSERT INTO items SELECT x FROM t WHERE x <= 200",
     /* OR IGNORE never skips: 200 entries, or none */
     "SELECT (SELECT count(*) FROM items) IN (0, 200) AND " QINFO(qs, items)
     " = (SELECT count(*) FROM items)", NULL},
    {"quotient_store, deletes = 0: OR IGNORE by a trigger skips repeats",
     NULL,
     {QPAGE, SETUP_T,
      "CREATE VIRTUAL TABLE qa USING quotient_store(fpr = 0.01, deletes = 0);"
      "CREATE TABLE items(id INTEGER PRIMARY KEY);"
      "CREATE TRIGGER items_ai AFTER INSERT ON items BEGIN"
      "  INSERT OR IGNORE INTO qa(value) VALUES (NEW.id % 97); END;"},
     "INSERT INTO items SELECT x FROM t WHERE x <= 200",
     /* 97 values, each once, but for a false positive's skip; or none */
     "SELECT CASE (SELECT count(*) FROM items) WHEN 0 THEN " QINFO(qa, items)
     " = 0 WHEN 200 THEN " QINFO(qa, items) " BETWEEN 90 AND 97 AND"
     " NOT EXISTS (SELECT 1 FROM t WHERE x <= 96 AND NOT EXISTS (SELECT 1"
     " FROM qa WHERE value = t.x)) ELSE 0 END", NULL},
    {"quotient_store: opened from a file, probed and exported", NULL,
     {SETUP_T, qfile_setup},
     "SELECT (SELECT count(*) FROM t WHERE x <= 300 AND EXISTS (SELECT 1 FROM"
     " f.qf WHERE value = t.x)), (SELECT hex(filter) FROM f.qf)",
     "SELECT " QINFO(f.qf, items) " = 300 AND " QHOLDS(f.qf, 1, 300), NULL},
    {"quotient_store: opened from a file, written", NULL,
     {SETUP_T, qfile_setup, "BEGIN;"},
     "INSERT INTO f.qf(value) SELECT x FROM t WHERE x BETWEEN 301 AND 400",
     "SELECT " QINFO(f.qf, items) " IN (300, 400) AND " QHOLDS(f.qf, 1, 300)
     " AND (" QINFO(f.qf, items) " = 300 OR " QHOLDS(f.qf, 301, 400) ")",
     NULL},
};
#define N_SCENARIOS (sizeof SCENARIOS / sizeof SCENARIOS[0])

/* ---- one run ------------------------------------------------------------- */

/* A fresh database with the scenario set up (faults off). */
static sqlite3 *scenario_open(const scenario *sc) {
  sqlite3 *db = NULL;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
    printf("Bail out! cannot open a database\n");
    exit(2);
  }
  if (sc->encoding) {
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA encoding = '%s'", sc->encoding);
    exec_ok(db, sql);
  }
  char *err = NULL;
  if (load_bloom(db, &err) != SQLITE_OK) {
    printf("Bail out! cannot load %s: %s\n", bloom_so_path(), err ? err : "?");
    exit(2);
  }
  free(err);
  for (int i = 0; i < 4 && sc->setup[i]; i++)
    if (!exec_ok(db, sc->setup[i])) {
      printf("Bail out! setup of \"%s\" failed\n", sc->name);
      exit(2);
    }
  return db;
}

typedef struct sweep_stats {
  long long points;      /* fault points swept */
  long long same, nomem; /* runs that gave the same outcome / SQLITE_NOMEM */
  long long lost_msg;    /* the expected error, its message lost */
  long long bad, leaks, bad_checks;
  long long at;          /* the run in progress (to name a crash) */
  int done;
} sweep_stats;

/* Shared with the child process that runs a scenario's sweeps. */
typedef struct sweep_report {
  int baseline_ok, baseline_rows;
  long long baseline_allocs;
  sweep_stats mode[2]; /* one-shot, persistent */
} sweep_report;

static int show_budget = 12; /* diagnostics printed for failures, in total */
static long long sweep_step = 1; /* BLOOM_SWEEP_STEP */

static int digest_eq(const outcome *a, const outcome *b) {
  return a->digest.len == b->digest.len &&
         (a->digest.len == 0 ||
          memcmp(a->digest.p, b->digest.p, a->digest.len) == 0);
}

/* The sweeps of one scenario (in a child process).  A run's outcome is
** acceptable when it is the outcome without faults (the same rows, or the
** same error and message), or SQLITE_NOMEM (at prepare or at a step).
** When the outcome without faults is an error, SQLite may fail to copy the
** error message out (sqlite3VdbeTransferError): the same code with the
** generic sqlite3_errstr() message is accepted too. */
static void sweep_scenario(const scenario *sc, sweep_report *r) {
  outcome want = {0}, got = {0};
  long long base = failmem_live();
  sqlite3 *db = scenario_open(sc);
  failmem_count_only();
  run_digest(db, sc->sql, &want);
  r->baseline_allocs = failmem_seen;
  r->baseline_rows = want.rows;
  failmem_disarm();
  int check_ok = 1;
  if (sc->check) check_ok = q_int(db, sc->check, NOARGS) == 1;
  sqlite3_close(db);
  int outcome_ok = sc->error ? want.rc == SQLITE_ERROR && !want.at_prepare &&
                                   strncmp(want.msg, sc->error,
                                           strlen(sc->error)) == 0
                             : want.rc == SQLITE_OK;
  r->baseline_ok = outcome_ok && check_ok && failmem_live() == base;
  if (!r->baseline_ok) {
    tap_diag("  without faults: rc %d: %s; check %d; leaked %lld", want.rc,
             want.msg, check_ok, failmem_live() - base);
    if (sc->error)
      tap_diag("  (expected rc %d (SQLITE_ERROR) with \"%s...\")",
               SQLITE_ERROR, sc->error);
    return;
  }
  for (int persistent = 0; persistent <= 1; persistent++) {
    sweep_stats *s = &r->mode[persistent];
    for (long long n = 1;; n += sweep_step) {
      s->at = n;
      base = failmem_live();
      db = scenario_open(sc);
      failmem_arm(n, persistent);
      run_digest(db, sc->sql, &got);
      long long fired = failmem_fired;
      failmem_disarm();
      int check = sc->check ? q_int(db, sc->check, NOARGS) == 1 : 1;
      sqlite3_close(db);
      long long leaked = failmem_live() - base;
      const char *what = NULL;
      if (got.rc == want.rc && digest_eq(&got, &want) &&
          (got.rc == SQLITE_OK || strcmp(got.msg, want.msg) == 0))
        s->same += fired > 0;
      else if (got.rc == SQLITE_NOMEM && fired > 0)
        s->nomem++;
      else if (fired > 0 && want.rc != SQLITE_OK && got.rc == want.rc &&
               strcmp(got.msg, sqlite3_errstr(got.rc)) == 0)
        /* The expected error, whose message SQLite could not copy out
        ** (sqlite3VdbeTransferError's allocations are benign). */
        s->lost_msg++;
      else if (got.rc == SQLITE_OK)
        what = "SQLITE_OK with another result";
      else
        what = "an error other than SQLITE_NOMEM";
      if (what) s->bad++;
      if (leaked) s->leaks++;
      if (!check) s->bad_checks++;
      if ((what || leaked || !check) && show_budget > 0) {
        show_budget--;
        tap_diag("  %s, %s fault at allocation %lld: %s (rc %d%s: %s), "
                 "leaked %lld, check %s", sc->name,
                 persistent ? "persistent" : "one-shot", n, what ? what : "ok",
                 got.rc, got.at_prepare ? " at prepare" : "", got.msg, leaked,
                 check ? "ok" : "FAILED");
        if (what && want.rc != SQLITE_OK)
          tap_diag("  (without faults: rc %d: %s)", want.rc, want.msg);
      }
      if (fired == 0) break; /* past the last allocation: swept them all */
      s->points++;
    }
    s->done = 1;
  }
  textbuf_free(&want.digest);
  textbuf_free(&got.digest);
}

/* Runs a scenario's sweeps in a child, so that a crash fails that
** scenario only and names the fault point. */
static void run_scenario(const scenario *sc) {
  sweep_report *r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE,
                         MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (r == MAP_FAILED) {
    printf("Bail out! mmap\n");
    exit(2);
  }
  memset(r, 0, sizeof *r);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    sweep_scenario(sc, r);
    fflush(stdout);
    exit(0);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) {
    printf("Bail out! fork\n");
    exit(2);
  }
  int crashed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  if (!tap_ok(r->baseline_ok, "%s: runs without faults (%d rows, %lld "
              "allocations)%s", sc->name, r->baseline_rows,
              r->baseline_allocs, sc->error ? ", the expected error" : "")) {
    munmap(r, sizeof *r);
    return;
  }
  for (int persistent = 0; persistent <= 1; persistent++) {
    const sweep_stats *s = &r->mode[persistent];
    const char *mode = persistent ? "persistent" : "one-shot";
    if (!s->done) {
      if (crashed && (persistent == 0 || r->mode[0].done)) {
        tap_ok(0, "%s, %s faults: the process died at fault point %lld "
               "(%s %d)", sc->name, mode, s->at,
               WIFSIGNALED(status) ? "signal" : "exit status",
               WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        tap_diag("  repro: the statement \"%s\" with allocation %lld %s",
                 sc->sql, s->at,
                 persistent ? "and every later one failing" : "failing");
      }
      continue;
    }
    tap_ok(s->bad == 0 && s->leaks == 0 && s->bad_checks == 0,
           "%s, %s faults: %lld points swept: %lld SQLITE_NOMEM, %lld "
           "recovered with the same outcome, %lld wrong, %lld leaking, %lld "
           "failed checks", sc->name, mode, s->points, s->nomem, s->same,
           s->bad, s->leaks, s->bad_checks);
    if (s->lost_msg)
      tap_diag("  (%lld of them: the expected error, with SQLite's generic "
               "message: SQLite could not copy the message out)", s->lost_msg);
  }
  if (crashed && r->mode[0].done && r->mode[1].done)
    tap_ok(0, "%s: the sweeping process ended with %s %d after both sweeps "
           "(a sanitizer's report at exit?)", sc->name,
           WIFSIGNALED(status) ? "signal" : "exit status",
           WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  munmap(r, sizeof *r);
}

/* ---- the load itself ------------------------------------------------------ */

/* A call of each function the extension registers, by name and argument
** count (-1: a table-valued function, looked up in pragma_module_list;
** -2: variadic).  @B, @C and @Q stand for a literal Bloom, cuckoo and
** quotient filter, so that a probe needs no other function of the
** extension. */
typedef struct probe {
  const char *name;
  int narg;
  const char *tmpl;
  char *sql;  /* tmpl with the literals in */
  char *want; /* its result on a fully loaded connection */
} probe;

static probe PROBES[] = {
    {"bloom_version", 0, "SELECT bloom_version()", NULL, NULL},
    {"bloom_build", 1, "SELECT hex(bloom_build(x)) FROM (SELECT 1 AS x)", NULL, NULL},
    {"bloom_build", 2, "SELECT hex(bloom_build(x, 10)) FROM (SELECT 1 AS x)", NULL, NULL},
    {"bloom_build", 3, "SELECT hex(bloom_build(x, 10, 0.01)) FROM (SELECT 1 AS x)", NULL, NULL},
    {"bloom_test", 2, "SELECT bloom_test(@B, 1), bloom_test(@B, 3)", NULL, NULL},
    {"bloom_add", -2, "SELECT hex(bloom_add(@B, 3))", NULL, NULL},
    {"bloom_union", 2, "SELECT hex(bloom_union(@B, @B))", NULL, NULL},
    {"bloom_intersect", 2, "SELECT hex(bloom_intersect(@B, @B))", NULL, NULL},
    {"bloom_merge", 1, "SELECT hex(bloom_merge(f)) FROM (SELECT @B AS f UNION ALL SELECT @B)", NULL, NULL},
    {"bloom_count", 1, "SELECT bloom_count(@B)", NULL, NULL},
    {"bloom_empty", 1, "SELECT hex(bloom_empty(10))", NULL, NULL},
    {"bloom_empty", 2, "SELECT hex(bloom_empty(10, 0.1))", NULL, NULL},
    {"bloom_key", -2, "SELECT hex(bloom_key(1, 'a'))", NULL, NULL},
    {"bloom_info", -1, "SELECT * FROM bloom_info(@B)", NULL, NULL},
    {"bloom_ref", -1, "SELECT hex(filter) FROM bloom_ref(@B)", NULL, NULL},
    {"bloom_plan", -1, "SELECT * FROM bloom_plan(1000, 0.01)", NULL, NULL},
    {"cuckoo_build", 2, "SELECT hex(cuckoo_build(x, 10)) FROM (SELECT 1 AS x)", NULL, NULL},
    {"cuckoo_build", 3, "SELECT hex(cuckoo_build(x, 10, 0.01)) FROM (SELECT 1 AS x)", NULL, NULL},
    {"cuckoo_test", 2, "SELECT cuckoo_test(@C, 1), cuckoo_test(@C, 3)", NULL, NULL},
    {"cuckoo_add", 2, "SELECT hex(cuckoo_add(@C, 3))", NULL, NULL},
    {"cuckoo_delete", 2, "SELECT hex(cuckoo_delete(@C, 1))", NULL, NULL},
    {"cuckoo_info", -1, "SELECT * FROM cuckoo_info(@C)", NULL, NULL},
    {"bloom_probe", 2, "SELECT bloom_probe('SELECT ' || quote(@B), 1)", NULL, NULL},
    {"cuckoo_probe", 2, "SELECT cuckoo_probe('SELECT ' || quote(@C), 1)", NULL, NULL},
    {"quotient_build", 2, "SELECT hex(quotient_build(x, 10)) FROM (SELECT 1 AS x)", NULL, NULL},
    {"quotient_build", 3, "SELECT hex(quotient_build(x, 10, 0.01)) FROM (SELECT 1 AS x)", NULL, NULL},
    {"quotient_test", 2, "SELECT quotient_test(@Q, 1), quotient_test(@Q, 3)", NULL, NULL},
    {"quotient_info", -1, "SELECT * FROM quotient_info(@Q)", NULL, NULL},
    {"quotient_probe", 2, "SELECT quotient_probe('SELECT ' || quote(@Q), 1)", NULL, NULL},
};
#define N_PROBES (sizeof PROBES / sizeof PROBES[0])
static const int n_probes = (int)N_PROBES;

/* tmpl with @B, @C and @Q replaced (libc-allocated). */
static char *fill_template(const char *tmpl, const char *b, const char *c,
                           const char *q) {
  textbuf out = {0};
  textbuf_add(&out, "%s", "");
  for (const char *p = tmpl; *p; p++) {
    if (p[0] == '@' && (p[1] == 'B' || p[1] == 'C' || p[1] == 'Q')) {
      textbuf_add(&out, "x'%s'", p[1] == 'B' ? b : p[1] == 'C' ? c : q);
      p++;
    } else {
      textbuf_add(&out, "%c", *p);
    }
  }
  return out.p;
}

static void probes_prepare(void) {
  sqlite3 *db = NULL;
  sqlite3_open(":memory:", &db);
  load_bloom(db, NULL);
  char *b = q_text(db, "SELECT hex(bloom_build(x, 10, 0.01)) FROM "
                       "(SELECT 1 AS x UNION ALL SELECT 2)", NOARGS);
  char *c = q_text(db, "SELECT hex(cuckoo_build(x, 10, 0.01)) "
                       "FROM (SELECT 1 AS x UNION ALL SELECT 2)", NOARGS);
  char *q = q_text(db, "SELECT hex(quotient_build(x, 10, 0.01)) "
                       "FROM (SELECT 1 AS x UNION ALL SELECT 2)", NOARGS);
  if (!b || !c || !q) {
    printf("Bail out! cannot build the probe filters\n");
    exit(2);
  }
  for (size_t i = 0; i < N_PROBES; i++) {
    probe *p = &PROBES[i];
    p->sql = fill_template(p->tmpl, b, c, q);
    p->want = q_text(db, p->sql, NOARGS);
    if (!p->want) {
      printf("Bail out! probe %s failed on a loaded connection\n", p->name);
      exit(2);
    }
  }
  free(b);
  free(c);
  free(q);
  sqlite3_close(db);
}

/* Is this probe's function registered on db? */
static int probe_registered(sqlite3 *db, const probe *p) {
  char sql[256];
  if (p->narg == -1)
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM pragma_module_list WHERE name = '%s'",
             p->name);
  else
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM pragma_function_list WHERE name = '%s' "
             "AND narg = %d", p->name, p->narg == -2 ? -1 : p->narg);
  return q_int(db, sql, NOARGS) > 0;
}

/* Runs every registered probe; returns how many gave a wrong answer. */
static int run_probes(sqlite3 *db, int *registered) {
  int wrong = 0;
  *registered = 0;
  for (size_t i = 0; i < N_PROBES; i++) {
    if (!PROBES[i].sql || !probe_registered(db, &PROBES[i])) continue;
    ++*registered;
    char *got = q_text(db, PROBES[i].sql, NOARGS);
    if (!got || strcmp(got, PROBES[i].want) != 0) {
      wrong++;
      tap_diag("  probe %s/%d: got %s", PROBES[i].name, PROBES[i].narg,
               got ? got : "an error");
    }
    free(got);
  }
  return wrong;
}

static void test_load_sweep(void) {
  probes_prepare();
  for (int persistent = 0; persistent <= 1; persistent++) {
    long long points = 0, failed_loads = 0, partial = 0, wrong = 0, leaks = 0,
              reload_failed = 0, max_registered = 0;
    for (long long n = 1;; n += sweep_step) {
      long long base = failmem_live();
      sqlite3 *db = NULL;
      if (sqlite3_open(":memory:", &db) != SQLITE_OK) exit(2);
      sqlite3_enable_load_extension(db, 1);
      char *msg = NULL;
      failmem_arm(n, persistent);
      int rc = sqlite3_load_extension(db, bloom_so_path(), "sqlite3_bloom_init",
                                      &msg);
      long long fired = failmem_fired;
      failmem_disarm();
      if (rc != SQLITE_OK) {
        failed_loads++;
        /* The functions that did register must work (nodelete). */
        int registered = 0;
        int w = run_probes(db, &registered);
        if (registered > 0 && registered < n_probes) partial++;
        if (registered > max_registered) max_registered = registered;
        /* Then a re-load succeeds and everything works. */
        char *err = NULL;
        if (load_bloom(db, &err) != SQLITE_OK) {
          reload_failed++;
          tap_diag("  re-load after fault %lld failed: %s", n, err ? err : "?");
        } else {
          w += run_probes(db, &registered);
          if (registered != n_probes) w++;
        }
        free(err);
        if (w && show_budget-- > 0)
          tap_diag("  after a load failed at allocation %lld (%s)", n,
                   msg ? msg : "no message");
        wrong += w;
      }
      sqlite3_free(msg);
      sqlite3_close(db);
      if (failmem_live() != base) {
        leaks++;
        if (show_budget-- > 0)
          tap_diag("  load with fault at %lld leaked %lld allocations", n,
                   failmem_live() - base);
      }
      if (fired == 0) {
        if (rc != SQLITE_OK) {
          wrong++;
          tap_diag("  the load failed with no fault: %d", rc);
        }
        break;
      }
      points++;
    }
    tap_ok(wrong == 0 && leaks == 0 && reload_failed == 0 &&
               failed_loads == points,
           "load, %s faults: %lld points swept, every one failed the load "
           "(%lld after some functions had registered, up to %lld of %d); "
           "the registered ones work, a re-load works; %lld wrong, %lld "
           "leaking",
           persistent ? "persistent" : "one-shot", points, partial,
           max_registered, n_probes, wrong, leaks);
  }
  for (size_t i = 0; i < N_PROBES; i++) {
    free(PROBES[i].sql);
    free(PROBES[i].want);
  }
}

/* nodelete: the .so stays mapped once every connection that loaded it is
** closed, so function pointers kept by a failed load stay valid. */
static void test_nodelete(void) {
  void *h = dlopen(bloom_so_path(), RTLD_NOW | RTLD_NOLOAD);
  tap_ok(h != NULL, "the extension stays mapped after every connection that "
                    "loaded it closed (-z nodelete)");
  if (h) dlclose(h);
}

/* No allocation behind SQLite's back: the .so imports no malloc family. */
static void test_imports(void) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "nm -D --undefined-only '%s' 2>&1", bloom_so_path());
  FILE *p = popen(cmd, "r");
  if (!p) {
    tap_ok(0, "run nm");
    return;
  }
  char line[512];
  int lines = 0, bad = 0;
  static const char *const banned[] = {"malloc", "calloc", "realloc", "free",
                                       "reallocarray", "strdup", "strndup",
                                       "posix_memalign", "aligned_alloc",
                                       "memalign", "valloc", "pvalloc"};
  while (fgets(line, sizeof line, p)) {
    lines++;
    char *sym = strrchr(line, ' ');
    sym = sym ? sym + 1 : line;
    sym[strcspn(sym, "@\n")] = '\0';
    for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++)
      if (!strcmp(sym, banned[i])) {
        bad++;
        tap_diag("  imports %s", sym);
      }
  }
  int status = pclose(p);
  tap_ok(status == 0 && lines > 0 && bad == 0,
         "nm -D --undefined-only: %d imports, none of the malloc family "
         "(every allocation goes through sqlite3_malloc64)", lines);
}

int main(void) {
  double t0 = now();
  if (failmem_install() != SQLITE_OK) {
    printf("Bail out! cannot install the counting allocator\n");
    return 2;
  }
  /* The extension loads at all (every function it documents, cuckoo_*
  ** included, is always registered: one missing fails its scenarios and
  ** probes, it is never skipped). */
  {
    sqlite3 *db = NULL;
    sqlite3_open(":memory:", &db);
    if (load_bloom(db, NULL) != SQLITE_OK) {
      printf("Bail out! cannot load %s\n", bloom_so_path());
      return 2;
    }
    sqlite3_close(db);
  }
  sweep_step = sweep_step_env();
  if (sweep_step > 1)
    tap_diag("BLOOM_SWEEP_STEP=%lld: one fault point in %lld only",
             sweep_step, sweep_step);
  /* The quotient store in a file that scenarios attach (faults off). */
  static char qdir[] = "/tmp/bloom-oom-XXXXXX";
  if (!mkdtemp(qdir)) {
    printf("Bail out! mkdtemp\n");
    return 2;
  }
  char qpath[600];
  snprintf(qpath, sizeof qpath, "%s/q.db", qdir);
  {
    sqlite3 *db = NULL;
    sqlite3_open(qpath, &db);
    if (load_bloom(db, NULL) != SQLITE_OK ||
        !exec_ok(db, QPAGE) || !exec_ok(db, SETUP_T) ||
        !exec_ok(db, "CREATE VIRTUAL TABLE qf USING quotient_store(fpr = 0.01);"
                 "INSERT INTO qf(value) SELECT x FROM t WHERE x <= 300;"
                 "DROP TABLE t;")) {
      printf("Bail out! cannot make %s\n", qpath);
      return 2;
    }
    sqlite3_close(db);
  }
  snprintf(qfile_setup, sizeof qfile_setup, "ATTACH '%s' AS f;", qpath);
  test_imports();
  test_load_sweep();
  test_nodelete();
  for (size_t i = 0; i < N_SCENARIOS; i++) {
    double ts = now();
    run_scenario(&SCENARIOS[i]);
    tap_diag("  %.2f s", now() - ts);
  }
  tap_diag("total %.2f s", now() - t0);
  remove(qpath);
  rmdir(qdir);
  return tap_done();
}
