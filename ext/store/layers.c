/*
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** A store's configuration rows and its layers (layers.h).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/layers.h"

/* The keys every store has, then (scalable) the schedule's. */
static const char *const common_keys[] = {"kind", "version", "capacity",
                                          "seed", "fpr"};
enum { KEY_KIND, KEY_VERSION, KEY_CAPACITY, KEY_SEED, KEY_FPR, COMMON_KEYS };
static const char *const schedule_keys[] = {"growth", "tightening", "layers"};
enum { KEY_GROWTH, KEY_TIGHTENING, KEY_LAYERS, SCHEDULE_KEYS };

#define LAYER_PREFIX "layer."

static int config_damaged(store *s) {
  return store_error(s, "the configuration of %s is missing or damaged "
                     "(%s_config)", s->tables.name, s->tables.name);
}

/* One layer's rows as read: the layout's keys, then capacity and fpr. */
typedef struct layer_rows {
  sqlite3_int64 values[LAYOUT_MAX_KEYS];
  sqlite3_int64 capacity;
  double fpr;
  unsigned seen; /* bit k: values[k]; bit LAYOUT_MAX_KEYS: capacity; +1 fpr */
} layer_rows;

typedef struct config_rows {
  sqlite3_int64 common[COMMON_KEYS];
  double fpr;
  unsigned seen_common;
  sqlite3_int64 schedule[SCHEDULE_KEYS];
  double tightening;
  unsigned seen_schedule;
  layer_rows fixed;                    /* a fixed store's unprefixed keys */
  layer_rows layers[STORE_MAX_LAYERS]; /* layer.i.* */
} config_rows;

/* The index of name among keys[0..n) (a NULL ends them early), or -1. */
static int key_index(const char *const *keys, int n, const char *name) {
  for (int k = 0; k < n && keys[k]; k++)
    if (strcmp(name, keys[k]) == 0) return k;
  return -1;
}

static int layout_key(const store_layout *l, const char *name) {
  return key_index(l->keys, LAYOUT_MAX_KEYS, name);
}

static unsigned layout_key_bits(const store_layout *l) {
  unsigned bits = 0;
  for (int k = 0; k < LAYOUT_MAX_KEYS && l->keys[k]; k++) bits |= 1u << k;
  return bits;
}

/* Files one row of a layer (or of the fixed store's filter). */
static void take_layer_row(const store_layout *l, layer_rows *r,
                           const char *name, sqlite3_stmt *stmt) {
  if (strcmp(name, "capacity") == 0) {
    r->capacity = sqlite3_column_int64(stmt, 1);
    r->seen |= 1u << LAYOUT_MAX_KEYS;
  } else if (strcmp(name, "fpr") == 0) {
    r->fpr = sqlite3_column_double(stmt, 1);
    r->seen |= 1u << (LAYOUT_MAX_KEYS + 1);
  } else {
    int k = layout_key(l, name);
    if (k < 0) return;
    r->values[k] = sqlite3_column_int64(stmt, 1);
    r->seen |= 1u << k;
  }
}

static void take_row(const store_layout *l, config_rows *c, const char *key,
                     sqlite3_stmt *stmt) {
  int k = key_index(common_keys, COMMON_KEYS, key);
  if (k >= 0) {
    c->common[k] = sqlite3_column_int64(stmt, 1);
    if (k == KEY_FPR) c->fpr = sqlite3_column_double(stmt, 1);
    c->seen_common |= 1u << k;
    return;
  }
  k = key_index(schedule_keys, SCHEDULE_KEYS, key);
  if (k >= 0) {
    c->schedule[k] = sqlite3_column_int64(stmt, 1);
    if (k == KEY_TIGHTENING) c->tightening = sqlite3_column_double(stmt, 1);
    c->seen_schedule |= 1u << k;
    return;
  }
  if (strncmp(key, LAYER_PREFIX, strlen(LAYER_PREFIX)) == 0) {
    /* Only the key the writer makes (filter_key): decimal digits, no sign,
    ** no space, no leading zero, so that one layer has one spelling. */
    const char *digits = key + strlen(LAYER_PREFIX);
    char *end;
    long i = strtol(digits, &end, 10);
    if (!(*digits >= '0' && *digits <= '9') ||
        (*digits == '0' && end != digits + 1) || *end != '.' || i < 0 ||
        i >= STORE_MAX_LAYERS)
      return;
    take_layer_row(l, &c->layers[i], end + 1, stmt);
    return;
  }
  k = layout_key(l, key);
  if (k >= 0) {
    c->fixed.values[k] = sqlite3_column_int64(stmt, 1);
    c->fixed.seen |= 1u << k;
  }
}

/* Sets layer i from its rows; chunk ids follow the layer before.  0, or -1
** if the rows are damaged. */
static int configure_layer(store *s, int i, uint64_t capacity, double fpr,
                           const sqlite3_int64 values[]) {
  store_layer *l = &s->layers[i];
  memset(l, 0, sizeof *l);
  if (capacity < 1 || capacity > INT64_MAX || !(fpr > 0 && fpr < 1)) return -1;
  l->header = filter_header_new(s->layout->kind, capacity, fpr);
  l->header.seed = s->header.seed;
  if (s->layout->configure(l, values) != 0) return -1;
  l->chunks = (int64_t)((l->units + l->chunk_units - 1) / l->chunk_units);
  l->first_chunk = i == 0 ? 0 : s->layers[i - 1].first_chunk +
                                    s->layers[i - 1].chunks;
  if (l->first_chunk > INT64_MAX - l->chunks) return -1;
  return 0;
}

/* 1 if two layers have one layout. */
static int same_layer(const store_layer *a, const store_layer *b) {
  return a->units == b->units && a->chunk_units == b->chunk_units &&
         a->first_chunk == b->first_chunk && a->chunks == b->chunks &&
         a->header.bits == b->header.bits &&
         a->header.hashes == b->header.hashes &&
         a->header.buckets == b->header.buckets &&
         a->header.fingerprint_bits == b->header.fingerprint_bits &&
         a->header.seed == b->header.seed;
}

/* The rows read into s, which the caller throws away on a failure. */
static int configure_from_rows(store *s, config_rows *c);

int store_read_config(store *s) {
  const store_layout *l = s->layout;
  config_rows *c = sqlite3_malloc(sizeof *c);
  /* Configured into a copy: a damaged configuration leaves the store as it
  ** was, marked to be read again (and refused again) at its next use. */
  store *next = sqlite3_malloc(sizeof *next);
  if (c == NULL || next == NULL) {
    sqlite3_free(c);
    sqlite3_free(next);
    return SQLITE_NOMEM;
  }
  memset(c, 0, sizeof *c);
  sqlite3_stmt *stmt;
  int rc = shadow_read_config(&s->tables, &stmt);
  if (rc != SQLITE_OK) {
    sqlite3_free(next);
    sqlite3_free(c);
    return rc;
  }
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const char *key = (const char *)sqlite3_column_text(stmt, 0);
    if (key) take_row(l, c, key, stmt);
  }
  sqlite3_finalize(stmt);
  if (rc == SQLITE_DONE) {
    *next = *s;
    next->base.zErrMsg = NULL;
    rc = configure_from_rows(next, c);
    /* A layer, once made, never changes: one that reads back otherwise
    ** was damaged under us (the chunks cached for it would not fit). */
    int known = s->layer_count < next->layer_count ? s->layer_count
                                                   : next->layer_count;
    for (int i = 0; rc == SQLITE_OK && i < known; i++)
      if (!same_layer(&s->layers[i], &next->layers[i]))
        rc = config_damaged(next);
    if (rc == SQLITE_OK) {
      s->header = next->header;
      s->scalable = next->scalable;
      s->growth = next->growth;
      s->tightening = next->tightening;
      s->layer_count = next->layer_count;
      memcpy(s->layers, next->layers, sizeof s->layers);
      s->layers_stale = 0;
    } else {
      /* The message was set on the copy's vtab. */
      sqlite3_free(s->base.zErrMsg);
      s->base.zErrMsg = next->base.zErrMsg;
      s->layers_stale = 1;
    }
  }
  sqlite3_free(next);
  sqlite3_free(c);
  return rc;
}

static int configure_from_rows(store *s, config_rows *c) {
  const store_layout *l = s->layout;
  int rc = SQLITE_OK;
  const sqlite3_int64 *v = c->common;
  unsigned all_layer_rows = layout_key_bits(l) | 3u << LAYOUT_MAX_KEYS;
  if (c->seen_common != (1u << COMMON_KEYS) - 1 ||
      v[KEY_KIND] != (sqlite3_int64)l->kind || v[KEY_VERSION] != FILTER_VERSION ||
      v[KEY_CAPACITY] < 1 || !(c->fpr > 0 && c->fpr < 1) || v[KEY_SEED] < 0 ||
      v[KEY_SEED] > UINT32_MAX) {
    rc = config_damaged(s);
  } else {
    s->header = filter_header_new(l->kind, (uint64_t)v[KEY_CAPACITY], c->fpr);
    s->header.seed = (uint32_t)v[KEY_SEED];
    s->scalable = c->seen_schedule != 0;
    if (!s->scalable) {
      s->layer_count = 1;
      if (c->fixed.seen != layout_key_bits(l) ||
          configure_layer(s, 0, s->header.capacity, c->fpr,
                          c->fixed.values) != 0)
        rc = config_damaged(s);
    } else {
      const sqlite3_int64 *w = c->schedule;
      if (c->seen_schedule != (1u << SCHEDULE_KEYS) - 1 || w[KEY_GROWTH] < 1 ||
          w[KEY_GROWTH] > STORE_MAX_GROWTH ||
          !(c->tightening > 0 && c->tightening < 1) || w[KEY_LAYERS] < 1 ||
          w[KEY_LAYERS] > STORE_MAX_LAYERS) {
        rc = config_damaged(s);
      } else {
        s->growth = (uint32_t)w[KEY_GROWTH];
        s->tightening = c->tightening;
        s->layer_count = (int)w[KEY_LAYERS];
        for (int i = 0; rc == SQLITE_OK && i < s->layer_count; i++) {
          const layer_rows *r = &c->layers[i];
          if (r->seen != all_layer_rows ||
              configure_layer(s, i, (uint64_t)r->capacity, r->fpr,
                              r->values) != 0)
            rc = config_damaged(s);
        }
      }
    }
  }
  return rc;
}

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

/* The configuration key of a filter's field: the name itself for a fixed
** store's filter (layer < 0), "layer.<i>.<name>" for a layer. */
static const char *filter_key(char *buf, size_t size, int layer,
                              const char *name) {
  if (layer < 0) return name;
  snprintf(buf, size, LAYER_PREFIX "%d.%s", layer, name);
  return buf;
}

/* Writes the rows of one filter: the layout's keys (and, for a layer, its
** capacity and fpr). */
static int write_filter_rows(store *s, int layer, uint64_t capacity,
                             double fpr) {
  const store_layout *l = s->layout;
  int page_size;
  int rc = page_size_of(s->tables.db, s->tables.schema, &page_size);
  if (rc != SQLITE_OK) return rc;
  sqlite3_int64 v[LAYOUT_MAX_KEYS] = {0};
  rc = l->size(s, &capacity, fpr, page_size, v);
  char key[64];
  for (int k = 0; rc == SQLITE_OK && k < LAYOUT_MAX_KEYS && l->keys[k]; k++)
    rc = shadow_put_config(&s->tables,
                           filter_key(key, sizeof key, layer, l->keys[k]), v[k]);
  if (rc == SQLITE_OK && layer >= 0)
    rc = shadow_put_config(&s->tables,
                           filter_key(key, sizeof key, layer, "capacity"),
                           (sqlite3_int64)capacity);
  if (rc == SQLITE_OK && layer >= 0)
    rc = shadow_put_config_real(&s->tables,
                                filter_key(key, sizeof key, layer, "fpr"), fpr);
  return rc;
}

/* Layer i's target rate: fpr * (1 - r) * r^i, which sums to less than fpr
** over all layers. */
static double layer_fpr(const store *s, int i) {
  return s->header.target_fpr * (1 - s->tightening) * pow(s->tightening, i);
}

int store_write_config(store *s, const store_options *o) {
  const store_layout *l = s->layout;
  sqlite3_int64 common[] = {l->kind, FILTER_VERSION,
                            (sqlite3_int64)o->capacity, FILTER_DEFAULT_SEED};
  int rc = SQLITE_OK;
  for (int k = 0; rc == SQLITE_OK && k < KEY_FPR; k++)
    rc = shadow_put_config(&s->tables, common_keys[k], common[k]);
  if (rc == SQLITE_OK)
    rc = shadow_put_config_real(&s->tables, common_keys[KEY_FPR], o->fpr);
  if (!o->scalable) {
    if (rc == SQLITE_OK) rc = write_filter_rows(s, -1, o->capacity, o->fpr);
    if (rc == SQLITE_OK) rc = store_read_config(s);
    if (rc == SQLITE_OK) {
      const store_layer *f = &s->layers[0];
      rc = shadow_add_chunks(&s->tables, f->chunks,
                             store_chunk_bytes(s, f, 0),
                             store_chunk_bytes(s, f, f->chunks - 1));
    }
    return rc;
  }
  s->scalable = 1; /* the layout sizes layer 0 as a layer */
  s->header.target_fpr = o->fpr;
  s->tightening = o->tightening;
  if (rc == SQLITE_OK)
    rc = shadow_put_config(&s->tables, "growth", o->growth);
  if (rc == SQLITE_OK)
    rc = shadow_put_config_real(&s->tables, "tightening", o->tightening);
  if (rc == SQLITE_OK)
    rc = write_filter_rows(s, 0, o->capacity, layer_fpr(s, 0));
  if (rc == SQLITE_OK) rc = shadow_put_config(&s->tables, "layers", 1);
  if (rc == SQLITE_OK) rc = store_read_config(s);
  return rc;
}

int store_add_layer(store *s) {
  int i = s->layer_count;
  if (i >= STORE_MAX_LAYERS)
    return store_error(s, "%s holds %d layers, the most a store can have",
                       s->tables.name, STORE_MAX_LAYERS);
  uint64_t capacity = s->layers[i - 1].header.capacity;
  if (capacity > (uint64_t)INT64_MAX / s->growth)
    return store_error(s, "%s cannot grow: a layer of more than 2^63 - 1 "
                       "items", s->tables.name);
  capacity *= s->growth;
  double fpr = layer_fpr(s, i);
  if (!(fpr >= FILTER_MIN_FPR))
    return store_error(s, "%s cannot grow: layer %d would need a rate below "
                       "%g", s->tables.name, i, FILTER_MIN_FPR);
  /* The layer's rows first, the count last: rows of a layer the count does
  ** not reach are ignored, and written again by the next attempt. */
  int rc = write_filter_rows(s, i, capacity, fpr);
  if (rc == SQLITE_OK) rc = shadow_put_config(&s->tables, "layers", i + 1);
  if (rc == SQLITE_OK) rc = store_read_config(s);
  return rc;
}

int store_refresh_layers(store *s) {
  if (s->layers_stale) return store_read_config(s);
  if (!s->scalable) return SQLITE_OK;
  sqlite3_int64 layers;
  int rc = shadow_get_config(&s->tables, "layers", &layers);
  if (rc != SQLITE_OK) return rc;
  return layers == s->layer_count ? SQLITE_OK : store_read_config(s);
}
