/*
** A store's configuration rows (store.h, "config.c"; ext/FORMAT.md,
** "Stores").  Reading builds a new store_config from the rows, checks it
** as a whole and only then swaps it in, so that a damaged configuration
** never half-replaces a good one.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Every key has one storage class, and a row of another class is damage,
** as is a TEXT value other than the names it may take,
** as is a key no store of this kind and schedule writes: a value is never
** read loosely ('5e3' is not 5, 1.5 is not 1, NULL is not 0).  Rows of a
** layer at or past the `layers` count are ignored: a growth that failed
** after writing them leaves them, and the next one writes them again.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

/* A key and the storage class of its value. */
typedef struct config_key {
  const char *name;
  int type; /* SQLITE_INTEGER, SQLITE_FLOAT or SQLITE_TEXT */
} config_key;

/* The common keys; every store has the first COMMON_REQUIRED. */
enum { COMMON_KIND, COMMON_VERSION, COMMON_CAPACITY, COMMON_SEED, COMMON_FPR,
       COMMON_REQUIRED, COMMON_AFFINITY = COMMON_REQUIRED, COMMON_DELETES,
       COMMON_KEYS };
static const config_key common_keys[COMMON_KEYS] = {
    {"kind", SQLITE_INTEGER},     {"version", SQLITE_INTEGER},
    {"capacity", SQLITE_INTEGER}, {"seed", SQLITE_INTEGER},
    {"fpr", SQLITE_FLOAT},        {"affinity", SQLITE_TEXT},
    {"deletes", SQLITE_INTEGER}};
static const config_key schedule_keys[SCHEDULE_KEYS] = {
    {"growth", SQLITE_INTEGER}, {"tightening", SQLITE_FLOAT},
    {"layers", SQLITE_INTEGER}};

#define LAYER_PREFIX "layer."

static int config_damaged(store *s) {
  return store_corrupt(s, "the configuration of %s is missing or damaged "
                     "(%s_config)", s->tables.name, s->tables.name);
}

/* What key_index and layer_key answer for a name they do not know. */
#define NO_KEY CONFIG_GROUP_KEYS

/* The index of name among keys[0..n), or NO_KEY. */
static int key_index(const config_key *keys, int n, const char *name) {
  for (int k = 0; k < n; k++)
    if (strcmp(name, keys[k].name) == 0) return k;
  return NO_KEY;
}

/* A layer's key: capacity, fpr, then the kind's (all INTEGER); NO_KEY. */
static int layer_key(const store_kind *kind, const char *name, int *type) {
  *type = SQLITE_INTEGER;
  if (strcmp(name, "capacity") == 0) return LAYER_KEY_CAPACITY;
  if (strcmp(name, "fpr") == 0) {
    *type = SQLITE_FLOAT;
    return LAYER_KEY_FPR;
  }
  for (int k = 0; k < KIND_MAX_KEYS && kind->keys[k]; k++)
    if (strcmp(name, kind->keys[k]) == 0) return LAYER_KEY_KIND + k;
  return NO_KEY;
}

/* Files the row's value as key k of g (NO_KEY: a key the group has not),
** marking g damaged when it is not of the key's storage class. */
static int take(config_group *g, int k, int type, sqlite3_stmt *row) {
  if (k == NO_KEY || sqlite3_column_type(row, 1) != type) {
    g->damaged = 1;
    return SQLITE_OK;
  }
  if (type == SQLITE_INTEGER) {
    g->v[k] = sqlite3_column_int64(row, 1);
  } else if (type == SQLITE_FLOAT) {
    g->r[k] = sqlite3_column_double(row, 1);
  } else { /* TEXT: an affinity's name, kept as its value_affinity */
    const char *text = (const char *)sqlite3_column_text(row, 1);
    value_affinity a;
    if (text == NULL) return SQLITE_NOMEM;
    if (affinity_of_name(text, &a) != SQLITE_OK) {
      g->damaged = 1;
      return SQLITE_OK;
    }
    g->v[k] = a;
  }
  g->seen |= 1u << k;
  return SQLITE_OK;
}

/* "layer.<i>.<key>": *i and the key, or NULL.  Only the spelling the
** writer makes: decimal digits, no sign, no space, no leading zero. */
static const char *layer_of_key(const char *key, int *i) {
  if (strncmp(key, LAYER_PREFIX, strlen(LAYER_PREFIX)) != 0) return NULL;
  const char *digits = key + strlen(LAYER_PREFIX);
  char *end;
  long n = strtol(digits, &end, 10);
  if (!(*digits >= '0' && *digits <= '9') ||
      (*digits == '0' && end != digits + 1) || *end != '.' || n < 0 ||
      n >= STORE_MAX_LAYERS)
    return NULL;
  *i = (int)n;
  return end + 1;
}

int config_take_layer(const store_kind *kind, config_group *g,
                      const char *name, sqlite3_stmt *row) {
  int type, k = layer_key(kind, name, &type);
  /* A misspelt key is damage wherever it lies; a value of the wrong class
  ** only in a layer that is read. */
  return k == NO_KEY ? SQLITE_CORRUPT_VTAB : take(g, k, type, row);
}

int config_take_fixed(const store_kind *kind, config_rows *r,
                      const char *key, sqlite3_stmt *row) {
  int type, k = layer_key(kind, key, &type);
  return k != NO_KEY && k >= LAYER_KEY_KIND ? take(&r->fixed, k, type, row)
                                             : SQLITE_NOTFOUND;
}

int config_take_scalable(const store_kind *kind, config_rows *r,
                         const char *key, sqlite3_stmt *row) {
  int i, k = key_index(schedule_keys, SCHEDULE_KEYS, key);
  if (k != NO_KEY) return take(&r->scalable, k, schedule_keys[k].type, row);
  if (strncmp(key, LAYER_PREFIX, strlen(LAYER_PREFIX)) != 0)
    return SQLITE_NOTFOUND;
  const char *name = layer_of_key(key, &i);
  return name ? config_take_layer(kind, &r->layers[i], name, row)
              : SQLITE_CORRUPT_VTAB;
}

/* Files one row: the common keys here, the others by the schedule that
** knows them (marked as its owner); SQLITE_CORRUPT_VTAB for a key none
** knows. */
static int take_row(const store_kind *kind, config_rows *r, const char *key,
                    sqlite3_stmt *row) {
  int k = key_index(common_keys, COMMON_KEYS, key);
  if (k != NO_KEY) return take(&r->common, k, common_keys[k].type, row);
  for (int i = 0; store_schedules[i]; i++) {
    int rc = store_schedules[i]->take_row(kind, r, key, row);
    if (rc == SQLITE_NOTFOUND) continue;
    r->owners |= 1u << i;
    return rc;
  }
  return SQLITE_CORRUPT_VTAB;
}

/* The schedule whose rows these are: the one that took rows (a fixed
** store's one filter has rows of its kind); none, or more than one, is
** damage. */
static const store_schedule *schedule_of_rows(const config_rows *r) {
  for (int i = 0; store_schedules[i]; i++)
    if (r->owners == 1u << i) return store_schedules[i];
  return NULL;
}

static int read_rows(store *s, config_rows *r) {
  sqlite3_stmt *row = NULL;
  int rc = shadow_read_config(&s->tables, &row);
  while (rc == SQLITE_OK && (rc = sqlite3_step(row)) == SQLITE_ROW) {
    int text = sqlite3_column_type(row, 0) == SQLITE_TEXT;
    const char *key = text ? (const char *)sqlite3_column_text(row, 0) : NULL;
    rc = key ? take_row(s->kind, r, key, row)
             : text ? SQLITE_NOMEM : SQLITE_CORRUPT_VTAB;
  }
  sqlite3_finalize(row);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The common rows into c's header: SQLITE_OK or SQLITE_CORRUPT_VTAB. */
static int parse_common(const store_kind *kind, const config_group *g,
                        store_config *c) {
  const sqlite3_int64 *v = g->v;
  double fpr = g->r[COMMON_FPR];
  unsigned required = (1u << COMMON_REQUIRED) - 1;
  if (g->damaged || (g->seen & required) != required ||
      v[COMMON_KIND] != (sqlite3_int64)kind->kind ||
      v[COMMON_VERSION] != FILTER_VERSION || v[COMMON_CAPACITY] < 1 ||
      !(fpr > 0 && fpr < 1) || v[COMMON_SEED] < 0 ||
      v[COMMON_SEED] > UINT32_MAX)
    return SQLITE_CORRUPT_VTAB;
  c->header = filter_header_new(kind->kind, (uint64_t)v[COMMON_CAPACITY], fpr);
  c->header.seed = (uint32_t)v[COMMON_SEED];
  c->affinity = g->seen & 1u << COMMON_AFFINITY
                    ? (value_affinity)v[COMMON_AFFINITY]
                    : AFFINITY_BLOB;
  /* deletes: 0 is the only value written, by a kind that deletes (a Bloom
  ** store never does, and writes no row). */
  c->adds_only = (g->seen & 1u << COMMON_DELETES) != 0;
  if (c->adds_only && (v[COMMON_DELETES] != 0 || kind->no_delete))
    return SQLITE_CORRUPT_VTAB;
  /* The schedule's rows say which it is: a fixed store has none. */
  return SQLITE_OK;
}

int config_layer(const store_kind *k, store_config *c, int i,
                 uint64_t capacity, double fpr, const sqlite3_int64 values[]) {
  store_layer *l = &c->layers[i];
  memset(l, 0, sizeof *l);
  if (capacity < 1 || capacity > INT64_MAX || !(fpr > 0 && fpr < 1))
    return SQLITE_CORRUPT_VTAB;
  l->header = filter_header_new(k->kind, capacity, fpr);
  l->header.seed = c->header.seed;
  int rc = k->configure(l, values);
  if (rc != SQLITE_OK) return rc;
  l->chunks = (int64_t)((l->units + l->chunk_units - 1) / l->chunk_units);
  l->first_chunk =
      i == 0 ? 0 : c->layers[i - 1].first_chunk + c->layers[i - 1].chunks;
  return l->first_chunk > INT64_MAX - l->chunks ? SQLITE_CORRUPT_VTAB
                                                : SQLITE_OK;
}

/* 1 if two layers have one shape. */
static int same_layer(const store_layer *a, const store_layer *b) {
  return a->units == b->units && a->chunk_units == b->chunk_units &&
         a->first_chunk == b->first_chunk && a->chunks == b->chunks &&
         a->header.bits == b->header.bits &&
         a->header.hashes == b->header.hashes &&
         a->header.buckets == b->header.buckets &&
         a->header.fingerprint_bits == b->header.fingerprint_bits &&
         a->header.cuckoo_layout == b->header.cuckoo_layout &&
         a->header.seed == b->header.seed;
}

/* The rows, read and checked into next. */
static int parse(store *s, config_rows *r, store_config *next) {
  int rc = read_rows(s, r);
  if (rc == SQLITE_OK) rc = parse_common(s->kind, &r->common, next);
  if (rc != SQLITE_OK) return rc;
  next->schedule = schedule_of_rows(r);
  if (next->schedule == NULL) return SQLITE_CORRUPT_VTAB;
  rc = next->schedule->parse(s->kind, r, next);
  /* A layer, once made, never changes: one that reads back otherwise was
  ** damaged under us (the chunks cached for it would not fit).  Where
  ** layers move, the schedule empties the cache when they do. */
  int known = s->config.layer_count < next->layer_count
                  ? s->config.layer_count
                  : next->layer_count;
  if (next->schedule->layers_move) known = 0;
  for (int i = 0; rc == SQLITE_OK && i < known; i++)
    if (!same_layer(&s->config.layers[i], &next->layers[i]))
      rc = SQLITE_CORRUPT_VTAB;
  return rc;
}

int config_read(store *s) {
  config_rows *r = sqlite3_malloc(sizeof *r);
  store_config *next = sqlite3_malloc(sizeof *next);
  int rc = r && next ? SQLITE_OK : SQLITE_NOMEM;
  if (rc == SQLITE_OK) {
    memset(r, 0, sizeof *r);
    memset(next, 0, sizeof *next);
    rc = parse(s, r, next);
  }
  if (rc == SQLITE_OK) {
    s->config = *next;
    s->config_stale = 0;
    if (s->config.schedule->focus) s->config.schedule->focus(s);
  } else if (rc != SQLITE_NOMEM) {
    s->config_stale = 1;
    if (rc == SQLITE_CORRUPT_VTAB) rc = config_damaged(s);
  }
  sqlite3_free(next);
  sqlite3_free(r);
  return rc;
}

int config_refresh(store *s) {
  if (s->config_stale) return config_read(s);
  return s->config.schedule->refresh ? s->config.schedule->refresh(s)
                                     : SQLITE_OK;
}

/* --- writing ----------------------------------------------------------- */

static int page_size_of(sqlite3 *db, const char *schema, int *page_size) {
  sqlite3_stmt *stmt;
  char *sql = sqlite3_mprintf("PRAGMA \"%w\".page_size", schema);
  if (sql == NULL) return SQLITE_NOMEM;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_step(stmt);
  *page_size = rc == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : 4096;
  sqlite3_finalize(stmt);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The kind's keys for a filter of capacity and fpr, each prefixed (a
** cuckoo layer that fills raises *capacity). */
static int write_kind_keys(store *s, int fills, const char *prefix,
                           uint64_t *capacity, double fpr) {
  const store_kind *kind = s->kind;
  int page_size;
  int rc = page_size_of(s->tables.db, s->tables.schema, &page_size);
  if (rc != SQLITE_OK) return rc;
  sqlite3_int64 v[KIND_MAX_KEYS] = {0};
  rc = kind->size(s, fills, capacity, fpr, page_size, v);
  char key[96];
  for (int k = 0; rc == SQLITE_OK && k < KIND_MAX_KEYS && kind->keys[k]; k++) {
    if (v[k] == 0 && (kind->optional_keys >> k & 1)) continue;
    snprintf(key, sizeof key, "%s%s", prefix, kind->keys[k]);
    rc = shadow_put_config(&s->tables, key, v[k]);
  }
  return rc;
}

int config_write_layer(store *s, const char *prefix, uint64_t capacity,
                       double fpr) {
  char key[96];
  int rc = write_kind_keys(s, 1, prefix, &capacity, fpr);
  snprintf(key, sizeof key, "%scapacity", prefix);
  if (rc == SQLITE_OK)
    rc = shadow_put_config(&s->tables, key, (sqlite3_int64)capacity);
  snprintf(key, sizeof key, "%sfpr", prefix);
  if (rc == SQLITE_OK) rc = shadow_put_config_real(&s->tables, key, fpr);
  return rc;
}

int config_write_filter(store *s, int fills, int layer, uint64_t capacity,
                        double fpr) {
  char prefix[32];
  if (layer < 0) return write_kind_keys(s, fills, "", &capacity, fpr);
  snprintf(prefix, sizeof prefix, LAYER_PREFIX "%d.", layer);
  return config_write_layer(s, prefix, capacity, fpr);
}

int config_write_common(store *s, const store_options *o) {
  sqlite3_int64 v[] = {s->kind->kind, FILTER_VERSION,
                       (sqlite3_int64)o->capacity, FILTER_DEFAULT_SEED};
  int rc = SQLITE_OK;
  for (int k = 0; rc == SQLITE_OK && k < COMMON_FPR; k++)
    rc = shadow_put_config(&s->tables, common_keys[k].name, v[k]);
  if (rc == SQLITE_OK)
    rc = shadow_put_config_real(&s->tables, common_keys[COMMON_FPR].name,
                                o->fpr);
  /* A store without one has no row: it reads as every store before. */
  if (rc == SQLITE_OK && o->affinity != AFFINITY_BLOB)
    rc = shadow_put_config_text(&s->tables, common_keys[COMMON_AFFINITY].name,
                                affinity_name(o->affinity));
  if (rc == SQLITE_OK && !o->deletes && !s->kind->no_delete)
    rc = shadow_put_config(&s->tables, common_keys[COMMON_DELETES].name, 0);
  return rc;
}

char *config_summary(const store *s) {
  const store_config *c = &s->config;
  char *schedule = c->schedule->summary(s);
  if (schedule == NULL) return NULL;
  char *line = sqlite3_mprintf(
      "%s %s, %s, fpr %g%s%s%s; its items cannot be listed: ask WHERE value "
      "= ... or value IN (...), or SELECT filter", s->function->name,
      s->tables.name, schedule, c->header.target_fpr,
      c->affinity == AFFINITY_BLOB ? "" : ", affinity ",
      c->affinity == AFFINITY_BLOB ? "" : affinity_name(c->affinity),
      c->adds_only ? ", without deletes" : "");
  sqlite3_free(schedule);
  return line;
}
