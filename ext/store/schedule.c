/*
** How a store's layers follow one another (store.h, store_schedule).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** fixed      one filter, its shape in the rows kind, version, capacity,
**            seed, fpr and the kind's own keys; every chunk row is made
**            at CREATE.
** scalable   the same five common rows (capacity: the first layer's; fpr:
**            the bound on the compound rate), growth, tightening and
**            layers, and for each layer i the rows layer.i.capacity,
**            layer.i.fpr and layer.i.<kind key>.  Layer i is sized for
**            capacity * growth^i at fpr * (1 - tightening) * tightening^i,
**            so that the layers' rates sum to less than fpr however many
**            there are (Almeida et al., "Scalable Bloom Filters", 2007).
**            Its chunk ids follow the previous layer's; its rows are
**            written only when a chunk first changes, so adding a layer
**            costs a few configuration rows, whatever its size.
*/
#include <math.h>
#include <stdio.h>

#include "store/store.h"

/* The bits of a group's keys a filter's rows must have (store.h,
** schedule_group_complete). */
static unsigned required_keys(const store_kind *k, int layer) {
  unsigned bits = layer ? 1u << LAYER_KEY_CAPACITY | 1u << LAYER_KEY_FPR : 0;
  for (int i = 0; i < KIND_MAX_KEYS && k->keys[i]; i++)
    if (!(k->optional_keys >> i & 1)) bits |= 1u << (LAYER_KEY_KIND + i);
  return bits;
}

int schedule_group_complete(const store_kind *k, const config_group *g,
                            int layer) {
  unsigned seen = g->seen & ~(k->optional_keys << LAYER_KEY_KIND);
  return !g->damaged && seen == required_keys(k, layer);
}

int schedule_room_for(store *s, uint64_t capacity, uint64_t growth) {
  if (s->config.layer_count >= STORE_MAX_LAYERS)
    return store_error(s, "%s holds %d layers, the most a store can have",
                       s->tables.name, STORE_MAX_LAYERS);
  if (capacity > (uint64_t)INT64_MAX / growth)
    return store_error(s, "%s cannot grow: a layer of more than 2^63 - 1 "
                       "items", s->tables.name);
  return SQLITE_OK;
}

/* --- fixed ------------------------------------------------------------- */

static int fixed_create(store *s, const store_options *o) {
  int rc = config_write_common(s, o);
  if (rc == SQLITE_OK) rc = config_write_filter(s, 0, -1, o->capacity, o->fpr);
  if (rc == SQLITE_OK) rc = config_read(s);
  if (rc != SQLITE_OK) return rc;
  const store_layer *f = &s->config.layers[0];
  return shadow_add_chunks(&s->tables, 0, f->chunks, chunk_bytes(s, f, 0),
                           chunk_bytes(s, f, f->chunks - 1));
}

static int fixed_parse(const store_kind *k, const config_rows *r,
                       store_config *c) {
  if (!schedule_group_complete(k, &r->fixed, 0)) return SQLITE_CORRUPT_VTAB;
  c->layer_count = 1;
  return config_layer(k, c, 0, c->header.capacity, c->header.target_fpr,
                      r->fixed.v + LAYER_KEY_KIND);
}

static int fixed_chooses(const store_options *o) {
  (void)o;
  return 1; /* what no other schedule chooses */
}

static char *fixed_summary(const store *s) {
  return sqlite3_mprintf("fixed, for %llu items",
                         (unsigned long long)s->config.header.capacity);
}

const store_schedule store_fixed_schedule = {
    .name = "fixed",
    .layered = 0,
    .chooses = fixed_chooses,
    .create = fixed_create,
    .take_row = config_take_fixed,
    .parse = fixed_parse,
    .summary = fixed_summary,
};

/* --- scalable ---------------------------------------------------------- */

/* Layer i's target rate, evaluated left to right as FORMAT.md gives it:
** fpr * (1 - r) * r^i, which sums to less than fpr over all layers. */
static double layer_fpr(double fpr, double tightening, int i) {
  return fpr * (1 - tightening) * pow(tightening, i);
}

static int scalable_create(store *s, const store_options *o) {
  int rc = config_write_common(s, o);
  if (rc == SQLITE_OK) rc = shadow_put_config(&s->tables, "growth", o->growth);
  if (rc == SQLITE_OK)
    rc = shadow_put_config_real(&s->tables, "tightening", o->tightening);
  if (rc == SQLITE_OK)
    rc = config_write_filter(s, 1, 0, o->capacity,
                             layer_fpr(o->fpr, o->tightening, 0));
  if (rc == SQLITE_OK) rc = shadow_put_config(&s->tables, "layers", 1);
  if (rc == SQLITE_OK) rc = config_read(s);
  return rc;
}

static int scalable_parse(const store_kind *k, const config_rows *r,
                          store_config *c) {
  const sqlite3_int64 *w = r->scalable.v;
  double tightening = r->scalable.r[SCHEDULE_KEY_TIGHTENING];
  if (r->scalable.damaged || r->scalable.seen != (1u << SCHEDULE_KEYS) - 1 ||
      w[SCHEDULE_KEY_GROWTH] < 1 || w[SCHEDULE_KEY_GROWTH] > STORE_MAX_GROWTH ||
      !(tightening > 0 && tightening < 1) || w[SCHEDULE_KEY_LAYERS] < 1 ||
      w[SCHEDULE_KEY_LAYERS] > STORE_MAX_LAYERS)
    return SQLITE_CORRUPT_VTAB;
  c->growth = (uint32_t)w[SCHEDULE_KEY_GROWTH];
  c->tightening = tightening;
  c->layer_count = (int)w[SCHEDULE_KEY_LAYERS];
  int rc = SQLITE_OK;
  for (int i = 0; rc == SQLITE_OK && i < c->layer_count; i++) {
    const config_group *g = &r->layers[i];
    rc = !schedule_group_complete(k, g, 1) ? SQLITE_CORRUPT_VTAB
                        : config_layer(k, c, i,
                                       (uint64_t)g->v[LAYER_KEY_CAPACITY],
                                       g->r[LAYER_KEY_FPR],
                                       g->v + LAYER_KEY_KIND);
  }
  return rc;
}

static int scalable_grow(store *s, int *layer) {
  const store_config *c = &s->config;
  int i = c->layer_count;
  uint64_t capacity = c->layers[i - 1].header.capacity;
  int rc = schedule_room_for(s, capacity, c->growth);
  if (rc != SQLITE_OK) return rc;
  capacity *= c->growth;
  double fpr = layer_fpr(c->header.target_fpr, c->tightening, i);
  if (!(fpr >= FILTER_MIN_FPR))
    return store_error(s, "%s cannot grow: layer %d would need a rate below "
                       "%g", s->tables.name, i, FILTER_MIN_FPR);
  /* The layer's rows first, the count last: rows of a layer the count does
  ** not reach are ignored, and written again by the next attempt. */
  rc = config_write_filter(s, 1, i, capacity, fpr);
  if (rc == SQLITE_OK) rc = shadow_put_config(&s->tables, "layers", i + 1);
  if (rc == SQLITE_OK) rc = config_read(s);
  *layer = s->config.layer_count - 1;
  return rc;
}

static int scalable_chooses(const store_options *o) { return o->scalable; }

/* The first layer gets fpr * (1 - tightening). */
static int scalable_check(const store_options *o, char *err, size_t err_size) {
  if (o->fpr * (1 - o->tightening) >= FILTER_MIN_FPR) return SQLITE_OK;
  snprintf(err, err_size, "a scalable store's first layer gets fpr * (1 - "
           "tightening) = %g, below %g: use fpr above %g, a smaller "
           "tightening, or a fixed store (capacity without growth)",
           o->fpr * (1 - o->tightening), FILTER_MIN_FPR,
           FILTER_MIN_FPR / (1 - o->tightening));
  return SQLITE_ERROR;
}

/* Another connection may have added a layer: its layers row says so. */
static int scalable_refresh(store *s) {
  sqlite3_int64 layers;
  int rc = shadow_get_config(&s->tables, "layers", &layers);
  if (rc != SQLITE_OK) return rc;
  return layers == s->config.layer_count ? SQLITE_OK : config_read(s);
}

static char *scalable_summary(const store *s) {
  const store_config *c = &s->config;
  return sqlite3_mprintf("scalable: %d layer%s (growth %u, tightening %g), "
                         "the first for %llu items",
                         c->layer_count, c->layer_count == 1 ? "" : "s",
                         c->growth, c->tightening,
                         (unsigned long long)c->layers[0].header.capacity);
}

const store_schedule store_scalable_schedule = {
    .name = "scalable",
    .layered = 1,
    .fills = 1,
    .chooses = scalable_chooses,
    .check = scalable_check,
    .create = scalable_create,
    .take_row = config_take_scalable,
    .parse = scalable_parse,
    .refresh = scalable_refresh,
    .grow = scalable_grow,
    .summary = scalable_summary,
};

/* --- the table --------------------------------------------------------- */

const store_schedule *const store_schedules[] = {
    &store_split_schedule, &store_window_schedule, &store_scalable_schedule,
    &store_fixed_schedule, NULL};

const store_schedule *schedule_for(const store_options *o) {
  for (int i = 0; store_schedules[i]; i++)
    if (store_schedules[i]->chooses(o)) return store_schedules[i];
  return NULL;
}
