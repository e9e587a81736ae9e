/*
** A store that forgets (store.h, "window.c"; ext/FORMAT.md, "Windowed
** stores"): the window of W seconds is cut into G generations of
** span = ceil(W / G) seconds, and G + 1 of them are live at once, each a
** list of layers as a scalable store's (Shtul, Baquero and Almeida,
** "Age-Partitioned Bloom Filters", 2020, with whole generations instead of
** slices).  A value added at t goes into generation floor(t / span); at the
** store's time T the generations floor(T / span) - G .. floor(T / span)
** are live, so a value answers for at least W seconds and is gone
** (G + 1) * span seconds after its generation began.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Forgetting costs no per-item work: generation n lives in slot
** n mod (G + 1), which owns the chunk ids [slot * 2^40, (slot + 1) * 2^40)
** and the configuration keys gen.<slot>.*, so a generation whose time has
** passed is ignored by probes at once (its layers are dropped from the
** in-memory configuration, no write) and deleted by the next write with
** one range delete of chunk rows and one of configuration rows.
**
** The store's time: clock 'wall' reads the database's VFS and never goes
** back (the `time` row keeps the newest generation's start); clock
** 'events' is the largest `at` inserted.  Liveness depends on T only
** through its generation, so `time` is written once per generation.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/bloom.h"
#include "core/cuckoo.h"
#include "core/layered.h"
#include "store/store.h"

/* Chunk ids a slot owns: a generation's layers lie end to end from the
** first. */
#define SLOT_CHUNKS ((int64_t)1 << 40)

/* Without capacity (first_capacity): a store's first generation starts
** with a first layer of this many items and grows in layers, small so
** that a store fed slowly is not held large while its first generation
** lives (its burst layers cost more bits only in a store fed fast); a
** later generation's first layer holds at least WINDOW_MIN_CAPACITY (the
** empty export's one layer holds as many). */
#define WINDOW_FIRST_CAPACITY 1000
#define WINDOW_MIN_CAPACITY 100

/* A generation's layers: the first has the rate fpr / (G + 1) * (1 - r),
** r the burst share; the ones a burst adds fpr / (G + 1) * r * q^j, q the
** burst ratio (so that a generation's rates sum below its share however
** many it adds), the second holding a quarter of the first, each after it
** WINDOW_GROWTH times the one before.  The first layer holds nearly
** every item at a steady rate, so it gets most of the share; the tenth it
** leaves is also the margin that keeps a store whose every live generation
** is full measurably under fpr (with less, the measured rate came within
** the noise of fpr: tests/bench/RESULTS.md). */
#define WINDOW_BURST_SHARE 0.1
#define WINDOW_BURST_RATIO 0.5
#define WINDOW_GROWTH 2
/* The burst layers a generation must have room for: CREATE refuses an
** fpr whose 16th burst layer would need a rate below FILTER_MIN_FPR, so
** that a generation can grow to about 2^15 times its first layer. */
#define WINDOW_BURST_LAYERS 16

/* The latest time a store takes (2^62 seconds, 1.5e11 years): a
** generation's end and expiry, (n + G + 1) * span with span <= 2^32 and
** G <= 32, stay below 2^63.  Later, an `at` is refused and a time row is
** damage. */
#define WINDOW_MAX_TIME ((int64_t)1 << 62)

/* The window keys of config_rows.window. */
enum { WKEY_WINDOW, WKEY_GENERATIONS, WKEY_CLOCK, WKEY_TIME, WKEY_ADAPTIVE,
       WKEYS };
static const char *const window_keys[WKEYS] = {"window", "generations",
                                               "clock", "time", "adaptive"};
/* A slot's keys. */
enum { SKEY_NUMBER, SKEY_LAYERS, SKEYS };

static int64_t generation_of(const store_window *w, int64_t t) {
  return t / w->span;
}

/* --- configuration rows ------------------------------------------------ */

/* Decimal digits as the writer spells them (no sign, space or leading
** zero), below max, then a '.': *i and what follows the dot, or NULL. */
static const char *index_of(const char *digits, int max, int *i) {
  int n = 0;
  const char *p = digits;
  if (*p < '0' || *p > '9' || (*p == '0' && p[1] != '.')) return NULL;
  for (; *p >= '0' && *p <= '9'; p++) {
    n = n * 10 + (*p - '0');
    if (n >= max) return NULL;
  }
  if (*p != '.') return NULL;
  *i = n;
  return p + 1;
}

/* Files an INTEGER value (TEXT for clock: 'wall' 0, 'events' 1). */
static void take_value(config_group *g, int k, int text_key,
                       sqlite3_stmt *row) {
  int type = sqlite3_column_type(row, 1);
  if (text_key && type == SQLITE_TEXT) {
    const char *t = (const char *)sqlite3_column_text(row, 1);
    int events = t && strcmp(t, "events") == 0;
    if (t == NULL || (!events && strcmp(t, "wall") != 0)) {
      g->damaged = 1;
      return;
    }
    g->v[k] = events;
  } else if (!text_key && type == SQLITE_INTEGER) {
    g->v[k] = sqlite3_column_int64(row, 1);
  } else {
    g->damaged = 1;
    return;
  }
  if (g->seen & 1u << k) g->damaged = 1;
  g->seen |= 1u << k;
}

/* The group of layer j of slot k, made on first use (NULL: too many). */
static config_group *gen_layer_group(window_rows *w, int k, int j) {
  for (int i = 0; i < w->gen_layer_count; i++)
    if (w->gen_slot[i] == k && w->gen_index[i] == j) return &w->gen_layers[i];
  if (w->gen_layer_count == STORE_MAX_LAYERS) return NULL;
  int i = w->gen_layer_count++;
  w->gen_slot[i] = (unsigned char)k;
  w->gen_index[i] = (unsigned char)j;
  return &w->gen_layers[i];
}

static int window_take_row(const store_kind *kind, config_rows *r, const char *key,
                    sqlite3_stmt *row) {
  for (int k = 0; k < WKEYS; k++)
    if (strcmp(key, window_keys[k]) == 0) {
      take_value(&r->own.window.figures, k, k == WKEY_CLOCK, row);
      return SQLITE_OK;
    }
  if (strncmp(key, "gen.", 4) != 0) return SQLITE_NOTFOUND;
  int slot, j;
  const char *rest = index_of(key + 4, STORE_MAX_LAYERS, &slot);
  if (rest == NULL) return SQLITE_CORRUPT_VTAB;
  r->own.window.slot_rows |= (uint64_t)1 << slot;
  if (strcmp(rest, "number") == 0) {
    /* Always judged: it says whether the slot's other rows are read. */
    if (sqlite3_column_type(row, 1) != SQLITE_INTEGER)
      return SQLITE_CORRUPT_VTAB;
    take_value(&r->own.window.slots[slot], SKEY_NUMBER, 0, row);
    return SQLITE_OK;
  }
  if (strcmp(rest, "layers") == 0) {
    take_value(&r->own.window.slots[slot], SKEY_LAYERS, 0, row);
    return SQLITE_OK;
  }
  if (strncmp(rest, "layer.", 6) != 0) return SQLITE_CORRUPT_VTAB;
  const char *name = index_of(rest + 6, STORE_MAX_LAYERS, &j);
  config_group *g = name ? gen_layer_group(&r->own.window, slot, j) : NULL;
  if (g == NULL) return SQLITE_CORRUPT_VTAB;
  return config_take_layer(kind, g, name, row);
}

/* The window's own rows into c: SQLITE_OK or SQLITE_CORRUPT_VTAB. */
static int window_parse_figures(const config_rows *r, store_config *c) {
  const sqlite3_int64 *v = r->own.window.figures.v;
  const config_group *g = &r->own.window.figures;
  if (g->damaged || g->seen != (1u << WKEYS) - 1 ||
      v[WKEY_WINDOW] < 1 || v[WKEY_WINDOW] > STORE_MAX_WINDOW ||
      v[WKEY_GENERATIONS] < 1 || v[WKEY_GENERATIONS] > STORE_MAX_GENERATIONS ||
      v[WKEY_TIME] < 0 || v[WKEY_ADAPTIVE] < 0 || v[WKEY_ADAPTIVE] > 1)
    return SQLITE_CORRUPT_VTAB;
  store_window *w = &c->own.window;
  w->seconds = v[WKEY_WINDOW];
  w->generations = (int)v[WKEY_GENERATIONS];
  w->span = (w->seconds + w->generations - 1) / w->generations;
  /* The writer keeps a generation's start there, nothing else. */
  if (v[WKEY_TIME] % w->span != 0 || v[WKEY_TIME] > WINDOW_MAX_TIME)
    return SQLITE_CORRUPT_VTAB;
  w->events = (int)v[WKEY_CLOCK];
  w->adaptive = (int)v[WKEY_ADAPTIVE];
  w->time = v[WKEY_TIME];
  /* The export's header: the ratios of most layers a burst adds. */
  c->growth = WINDOW_GROWTH;
  c->tightening = WINDOW_BURST_RATIO;
  return SQLITE_OK;
}

/* 1 if slot k's generation n is past at the time row: its rows are
** ignored, whatever they hold, and deleted by the next write. */
static int slot_expired(const store_window *w, int64_t n) {
  return n < generation_of(w, w->time) - w->generations;
}

/* Each slot's generation number: -1 for none.  Rows of a slot past G are
** damage.  A slot's rows without its number row are a generation being
** made by a write that failed, and those of an expired generation are
** about to be deleted: both are ignored whatever their values.  A live
** generation's rows are judged. */
static int parse_slots(const config_rows *r, store_config *c) {
  store_window *w = &c->own.window;
  int64_t newest = generation_of(w, w->time);
  for (int k = 0; k < STORE_MAX_LAYERS; k++) {
    const config_group *g = &r->own.window.slots[k];
    w->slot_number[k] = -1;
    if (k > w->generations && (r->own.window.slot_rows >> k & 1))
      return SQLITE_CORRUPT_VTAB;
    if (!(g->seen & 1u << SKEY_NUMBER)) continue;
    int64_t n = g->v[SKEY_NUMBER], layers = g->v[SKEY_LAYERS];
    if (n < 0 || n % (w->generations + 1) != k || n > newest)
      return SQLITE_CORRUPT_VTAB;
    w->slot_number[k] = n;
    if (slot_expired(w, n)) continue;
    if (g->damaged || g->seen != (1u << SKEYS) - 1 || layers < 1 ||
        layers > STORE_MAX_LAYERS)
      return SQLITE_CORRUPT_VTAB;
  }
  return SQLITE_OK;
}

/* Layer j of slot k's generation as c->layers[c->layer_count]. */
static int parse_layer(const store_kind *kind, const config_rows *r,
                       store_config *c, int k, int j) {
  const config_group *g = NULL;
  for (int i = 0; i < r->own.window.gen_layer_count && g == NULL; i++)
    if (r->own.window.gen_slot[i] == k && r->own.window.gen_index[i] == j)
      g = &r->own.window.gen_layers[i];
  int i = c->layer_count;
  if (g == NULL || !schedule_group_complete(kind, g, 1) ||
      i == STORE_MAX_LAYERS || g->v[LAYER_KEY_CAPACITY] < 1)
    return SQLITE_CORRUPT_VTAB;
  int rc = config_layer(kind, c, i, (uint64_t)g->v[LAYER_KEY_CAPACITY],
                        g->r[LAYER_KEY_FPR], g->v + LAYER_KEY_KIND);
  if (rc != SQLITE_OK) return rc;
  store_layer *l = &c->layers[i];
  l->first_chunk = j == 0 ? k * SLOT_CHUNKS
                          : c->layers[i - 1].first_chunk + c->layers[i - 1].chunks;
  l->generation = c->own.window.slot_number[k];
  l->slot = k;
  if (l->chunks > SLOT_CHUNKS - (l->first_chunk - k * SLOT_CHUNKS))
    return SQLITE_CORRUPT_VTAB;
  c->layer_count++;
  return SQLITE_OK;
}

static int window_parse(const store_kind *kind, const config_rows *r,
                        store_config *c) {
  int rc = window_parse_figures(r, c);
  if (rc == SQLITE_OK) rc = parse_slots(r, c);
  if (rc != SQLITE_OK) return rc;
  const store_window *w = &c->own.window;
  c->layer_count = 0;
  /* Oldest generation first: slots in the order of their numbers. */
  int64_t after = -1;
  for (;;) {
    int next = -1;
    for (int k = 0; k <= w->generations; k++)
      if (w->slot_number[k] > after &&
          (next < 0 || w->slot_number[k] < w->slot_number[next]))
        next = k;
    if (next < 0) return SQLITE_OK;
    int layers = slot_expired(w, w->slot_number[next])
                     ? 0 : (int)r->own.window.slots[next].v[SKEY_LAYERS];
    for (int j = 0; rc == SQLITE_OK && j < layers; j++)
      rc = parse_layer(kind, r, c, next, j);
    if (rc != SQLITE_OK) return rc;
    after = w->slot_number[next];
  }
}

/* --- the store's time -------------------------------------------------- */

/* The database's VFS clock in Unix seconds. */
static int wall_clock(store *s, int64_t *now) {
  sqlite3_vfs *vfs = NULL;
  if (sqlite3_file_control(s->tables.db, s->tables.schema,
                           SQLITE_FCNTL_VFS_POINTER, &vfs) != SQLITE_OK ||
      vfs == NULL)
    vfs = sqlite3_vfs_find(NULL);
  if (vfs == NULL) return store_error(s, "no VFS gives the time");
  sqlite3_int64 ms;
  if (vfs->iVersion >= 2 && vfs->xCurrentTimeInt64) {
    if (vfs->xCurrentTimeInt64(vfs, &ms) != SQLITE_OK)
      return store_error(s, "the VFS did not give the time");
  } else {
    double days;
    if (vfs->xCurrentTime(vfs, &days) != SQLITE_OK)
      return store_error(s, "the VFS did not give the time");
    ms = (sqlite3_int64)(days * 86400000.0);
  }
  /* Julian day 2440587.5 is the Unix epoch. */
  *now = ms / 1000 - 210866760000;
  if (*now < 0) *now = 0;
  return SQLITE_OK;
}

/* The store's time: the clock, never before the time row. */
static int64_t store_time(const store *s) {
  const store_window *w = &s->config.own.window;
  return !w->events && s->clock > w->time ? s->clock : w->time;
}

static void window_focus(store *s) {
  store_config *c = &s->config;
  store_window *w = &c->own.window;
  w->floor = generation_of(w, store_time(s)) - w->generations;
  int dropped = 0;
  while (dropped < c->layer_count && c->layers[dropped].generation < w->floor)
    w->expired |= (uint64_t)1 << c->layers[dropped++].slot;
  for (int k = 0; k <= w->generations; k++)
    if (w->slot_number[k] >= 0 && w->slot_number[k] < w->floor)
      w->expired |= (uint64_t)1 << k;
  c->layer_count -= dropped;
  memmove(c->layers, c->layers + dropped,
          (size_t)c->layer_count * sizeof c->layers[0]);
}

static int window_tick(store *s) {
  if (s->config.own.window.events) return SQLITE_OK;
  int64_t now;
  int rc = wall_clock(s, &now);
  if (rc != SQLITE_OK) return rc;
  /* A clock set back: this connection keeps the latest it read (the time
  ** row keeps the latest any write saw). */
  if (now > s->clock) s->clock = now;
  const store_window *w = &s->config.own.window;
  if (generation_of(w, store_time(s)) - w->generations <= w->floor)
    return SQLITE_OK;
  /* A live generation's time passed: what the cache holds of it goes (the
  ** changed chunks written back first, the next write deletes them). */
  rc = chunks_flush(s, 1);
  if (rc == SQLITE_OK) window_focus(s);
  return rc;
}

/* --- writes ------------------------------------------------------------ */

static int window_expire(store *s) {
  store_window *w = &s->config.own.window;
  for (int k = 0; k <= w->generations; k++) {
    if (!(w->expired & (uint64_t)1 << k)) continue;
    int rc = shadow_delete_slot(&s->tables, k, k * SLOT_CHUNKS,
                                (k + 1) * SLOT_CHUNKS - 1);
    if (rc != SQLITE_OK) return rc;
    w->expired &= ~((uint64_t)1 << k);
    w->slot_number[k] = -1;
  }
  return SQLITE_OK;
}

static int window_expired_id(const store *s, int64_t id) {
  const store_window *w = &s->config.own.window;
  int64_t k = id / SLOT_CHUNKS;
  return w->seconds && id >= 0 && k <= w->generations &&
         (w->expired & (uint64_t)1 << k) != 0;
}

/* Moves the store's time to t (events clock, or the wall clock's first
** write in a new generation): the time row, then the layers focused. */
static int advance(store *s, int64_t t) {
  store_window *w = &s->config.own.window;
  int64_t start = generation_of(w, t) * w->span;
  if (start <= w->time) return SQLITE_OK;
  int rc = chunks_flush(s, 1);
  if (rc == SQLITE_OK) rc = shadow_put_config(&s->tables, "time", start);
  if (rc == SQLITE_OK) rc = config_read(s);
  return rc;
}

/* The items of each live generation before n, counted from their chunk
** rows (as the export counts them): items[0..*count), oldest first. */
static int items_before(store *s, int64_t n, uint64_t items[], int *count) {
  *count = 0;
  for (int i = 0; i < s->config.layer_count; i++) {
    const store_layer *l = &s->config.layers[i];
    if (l->generation >= n) break; /* oldest generation first */
    if (i == 0 || l->generation != s->config.layers[i - 1].generation)
      items[(*count)++] = 0;
    uint64_t held;
    int rc = chunks_layer_items(s, l, &held);
    if (rc != SQLITE_OK) return rc;
    items[*count - 1] += held;
  }
  return SQLITE_OK;
}

/* The median of items[0..count), count >= 1 (items reordered). */
static double median_of(uint64_t items[], int count) {
  for (int i = 1; i < count; i++)
    for (int j = i; j > 0 && items[j - 1] > items[j]; j--) {
      uint64_t t = items[j];
      items[j] = items[j - 1];
      items[j - 1] = t;
    }
  return ((double)items[(count - 1) / 2] + (double)items[count / 2]) / 2;
}

/* The first layer's capacity for generation n.  With capacity: exactly
** capacity / G (a layer takes exactly its capacity, bloom_kind.c's
** layer_full, so a steady rate stays in one layer).  Without: the median
** m of the live generations before it, and three standard deviations of a
** Poisson count more, m + 3 * sqrt(m) (at least WINDOW_MIN_CAPACITY): a
** steady rate overflows a generation about once in 700, and a burst in one
** generation does not size the next (a mean, or the newest, would).  The
** first generation starts at WINDOW_FIRST_CAPACITY and grows in layers. */
static int first_capacity(store *s, int64_t n, uint64_t *capacity) {
  const store_config *c = &s->config;
  if (!c->own.window.adaptive) {
    double share = ceil((double)c->header.capacity / c->own.window.generations);
    *capacity = share < (double)INT64_MAX ? (uint64_t)share
                                          : (uint64_t)INT64_MAX;
    return SQLITE_OK;
  }
  uint64_t items[STORE_MAX_LAYERS];
  int count;
  int rc = items_before(s, n, items, &count);
  if (rc != SQLITE_OK) return rc;
  if (count == 0) {
    *capacity = WINDOW_FIRST_CAPACITY;
    return SQLITE_OK;
  }
  double m = ceil(median_of(items, count));
  double want = m + ceil(3 * sqrt(m));
  *capacity = want < WINDOW_MIN_CAPACITY ? WINDOW_MIN_CAPACITY
              : want < (double)INT64_MAX ? (uint64_t)want
                                         : (uint64_t)INT64_MAX;
  return SQLITE_OK;
}

/* Layer j's rate in a generation: of its share fpr / (G + 1), the first
** layer takes 1 - r (r = WINDOW_BURST_SHARE: the first layer holds
** every item at a steady rate, and its bits are most of the store's), and
** the layers a burst adds take r / 2, r / 4, ..., so that a generation's
** rates sum below its share however many it adds. */
static double generation_fpr(const store_config *c, int j) {
  double share = c->header.target_fpr / (c->own.window.generations + 1);
  return j == 0 ? share * (1 - WINDOW_BURST_SHARE)
                : share * WINDOW_BURST_SHARE * pow(WINDOW_BURST_RATIO, j);
}

/* Writes layer j of slot k's generation and its count. */
static int write_layer(store *s, int k, int j, uint64_t capacity) {
  char prefix[48], key[48];
  double fpr = generation_fpr(&s->config, j);
  if (!(fpr >= FILTER_MIN_FPR))
    return store_error(s, "%s cannot grow: a layer would need a rate below "
                       "%g", s->tables.name, FILTER_MIN_FPR);
  snprintf(prefix, sizeof prefix, "gen.%d.layer.%d.", k, j);
  snprintf(key, sizeof key, "gen.%d.layers", k);
  int rc = config_write_layer(s, prefix, capacity, fpr);
  if (rc == SQLITE_OK) rc = shadow_put_config(&s->tables, key, j + 1);
  return rc;
}

/* Generation n made, if it has no layer yet, in its slot (whose expired
** generation window_expire deleted). */
static int make_generation(store *s, int64_t n) {
  const store_window *w = &s->config.own.window;
  int k = (int)(n % (w->generations + 1));
  if (w->slot_number[k] == n) return SQLITE_OK;
  uint64_t capacity;
  char key[32];
  int rc = schedule_room_for(s, 0, 1);
  if (rc == SQLITE_OK) rc = first_capacity(s, n, &capacity);
  /* The new generation may come before others (an `at` in the past),
  ** moving their layers' places: what the cache and the kind hold by
  ** place goes first. */
  if (rc == SQLITE_OK) rc = chunks_flush(s, 1);
  if (rc == SQLITE_OK) rc = write_layer(s, k, 0, capacity);
  /* The number last: a slot's rows without it are ignored. */
  snprintf(key, sizeof key, "gen.%d.number", k);
  if (rc == SQLITE_OK) rc = shadow_put_config(&s->tables, key, n);
  if (rc == SQLITE_OK) rc = config_read(s);
  return rc;
}

/* The index of generation n's newest layer, or -1. */
static int newest_of(const store *s, int64_t n) {
  int found = -1;
  for (int i = 0; i < s->config.layer_count; i++)
    if (s->config.layers[i].generation == n) found = i;
  return found;
}

/* `at` as given: *t, or an error. */
static int at_value(store *s, sqlite3_value *at, int64_t *t) {
  if (sqlite3_value_type(at) != SQLITE_INTEGER || sqlite3_value_int64(at) < 0 ||
      sqlite3_value_int64(at) > WINDOW_MAX_TIME)
    return store_error(s, "at must be an INTEGER number of seconds since "
                       "1970-01-01 (Unix time), from 0 to %lld",
                       (long long)WINDOW_MAX_TIME);
  *t = sqlite3_value_int64(at);
  return SQLITE_OK;
}

static int window_place(store *s, sqlite3_value *at, int *layer, int *outside) {
  const store_window *w = &s->config.own.window;
  int64_t now = store_time(s), t = now;
  int rc = SQLITE_OK;
  *outside = 0;
  *layer = -1;
  if (at && sqlite3_value_type(at) != SQLITE_NULL) {
    rc = at_value(s, at, &t);
    if (rc != SQLITE_OK) return rc;
    if (generation_of(w, t) > generation_of(w, now) && !w->events)
      return store_error(s, "at %lld is ahead of the store's time %lld",
                         (long long)t, (long long)now);
    if (t > now) now = t; /* events: the store's time moves on */
  }
  rc = advance(s, now);
  if (rc == SQLITE_OK) rc = window_expire(s);
  if (rc != SQLITE_OK) return rc;
  int64_t n = generation_of(w, t);
  if (n < w->floor) {
    *outside = 1; /* its window has passed already */
    return SQLITE_OK;
  }
  rc = make_generation(s, n);
  if (rc == SQLITE_OK) *layer = newest_of(s, n);
  return rc;
}

/* --- the schedule ------------------------------------------------------ */

static int window_create(store *s, const store_options *o) {
  int64_t now = 0;
  int rc = o->clock_events ? SQLITE_OK : wall_clock(s, &now);
  int64_t span = (o->window + o->generations - 1) / o->generations;
  store_options common = *o;
  if (!o->capacity_given)
    common.capacity = (uint64_t)WINDOW_MIN_CAPACITY * o->generations;
  if (rc == SQLITE_OK) rc = config_write_common(s, &common);
  sqlite3_int64 v[WKEYS] = {o->window, o->generations, 0, now / span * span,
                            !o->capacity_given};
  for (int k = 0; rc == SQLITE_OK && k < WKEYS; k++)
    rc = k == WKEY_CLOCK
             ? shadow_put_config_text(&s->tables, window_keys[k],
                                      o->clock_events ? "events" : "wall")
             : shadow_put_config(&s->tables, window_keys[k], v[k]);
  if (rc == SQLITE_OK) rc = config_read(s);
  return rc;
}

/* *layer is full: the generation's next layer.  The first to follow the
** generation's first layer holds a quarter of it (a rate a little above
** what it was sized for overflows a little, and should not cost a layer
** twice the size); each after that twice the one before. */
static int window_grow(store *s, int *layer) {
  const store_layer *l = &s->config.layers[*layer];
  int64_t n = l->generation;
  int k = l->slot, j = 0;
  for (int i = 0; i < *layer; i++) j += s->config.layers[i].generation == n;
  int rc = schedule_room_for(s, l->header.capacity, WINDOW_GROWTH);
  if (rc != SQLITE_OK) return rc;
  uint64_t capacity = j == 0 ? (l->header.capacity + 3) / 4
                             : l->header.capacity * WINDOW_GROWTH;
  /* Later generations' layers move up a place (make_generation). */
  rc = chunks_flush(s, 1);
  if (rc == SQLITE_OK) rc = write_layer(s, k, j + 1, capacity);
  if (rc == SQLITE_OK) rc = config_read(s);
  if (rc == SQLITE_OK) *layer = newest_of(s, n);
  return rc;
}

/* --- what an operator sees --------------------------------------------- */

static int window_generation_count(const store *s) {
  int n = 0;
  for (int i = 0; i < s->config.layer_count; i++)
    n += i == 0 ||
         s->config.layers[i].generation != s->config.layers[i - 1].generation;
  return n;
}

/* The own columns (window_columns), in order. */
enum { OWN_AT, OWN_GENERATION, OWN_START, OWN_END, OWN_EXPIRES, OWN_ITEMS,
       OWN_FPR, OWN_COMMAND };

/* A live generation's figures: the row of generation i (oldest first). */
typedef struct window_generation {
  int64_t number, start, end, expires;
  uint64_t items;
  double fpr; /* estimated from the items */
} window_generation;

static int window_generation_at(store *s, int i, window_generation *g) {
  const store_config *c = &s->config;
  int first = 0;
  for (int seen = 0; first < c->layer_count; first++)
    if ((first == 0 ||
         c->layers[first].generation != c->layers[first - 1].generation) &&
        seen++ == i)
      break;
  memset(g, 0, sizeof *g);
  if (first >= c->layer_count) return SQLITE_OK;
  g->number = c->layers[first].generation;
  g->start = g->number * c->own.window.span;
  g->end = g->start + c->own.window.span;
  g->expires = (g->number + c->own.window.generations + 1) * c->own.window.span;
  /* 1 - prod(1 - e_j), evaluated as a layered filter's estimated_fpr is
  ** (FORMAT.md, kind 3): as a product it would lose every digit of a rate
  ** below 2^-53. */
  double log_pass = 0.0;
  for (int j = first; j < c->layer_count && c->layers[j].generation == g->number;
       j++) {
    const store_layer *l = &c->layers[j];
    uint64_t items;
    int rc = chunks_layer_items(s, l, &items);
    if (rc != SQLITE_OK) return rc;
    g->items += items;
    log_pass += log1p(-s->kind->model_fpr(l, (double)items));
  }
  g->fpr = 0.0 - expm1(log_pass);
  return SQLITE_OK;
}

static char *window_summary(const store *s) {
  const store_config *c = &s->config;
  const store_window *w = &c->own.window;
  int live = window_generation_count(s);
  char capacity[64] = "";
  if (!w->adaptive)
    snprintf(capacity, sizeof capacity, ", for %llu items a window",
             (unsigned long long)c->header.capacity);
  return sqlite3_mprintf("window %lld seconds, %d generations of %lld "
                         "seconds (%d live), clock %s%s",
                         (long long)w->seconds, w->generations,
                         (long long)w->span, live,
                         w->events ? "events" : "wall", capacity);
}

/* --- the export of no generation --------------------------------------- */

static int window_export_empty(store *s, sqlite3_context *ctx) {
  int page_size = 4096;
  uint64_t capacity = WINDOW_MIN_CAPACITY;
  sqlite3_int64 v[KIND_MAX_KEYS] = {0};
  store_config *c = sqlite3_malloc(sizeof *c);
  if (c == NULL) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  c->header = s->config.header;
  int rc = s->kind->size(s, 1, &capacity, generation_fpr(&s->config, 0),
                         page_size, v);
  if (rc == SQLITE_OK)
    rc = config_layer(s->kind, c, 0, capacity, generation_fpr(&s->config, 0),
                      v);
  layered_params p = {WINDOW_GROWTH, WINDOW_BURST_RATIO,
                      s->config.header.target_fpr};
  layered_placement where;
  char why[160];
  if (rc == SQLITE_OK &&
      layered_place(&c->layers[0].header, 1, &p, &where, why, sizeof why) != 0)
    rc = store_error(s, "%s", why);
  unsigned char *blob = NULL;
  if (rc == SQLITE_OK) {
    blob = sqlite3_malloc64(where.total_bytes);
    rc = blob ? SQLITE_OK : SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK) {
    memset(blob, 0, (size_t)where.total_bytes);
    layered_write_header(blob, &c->layers[0].header, &p, &where);
    sqlite3_result_blob64(ctx, blob, where.total_bytes, sqlite3_free);
  }
  sqlite3_free(c);
  return rc;
}

/* --- the schedule ------------------------------------------------------ */

/* value's and at's declared type is BLOB, no affinity, as the store's own
** rules convert nothing ('1700000000' is refused as an at rather than
** converted); the command column is named as the table, as in FTS5. */
#define WINDOW_COLUMNS                                                     \
  "at BLOB HIDDEN, generation HIDDEN, start HIDDEN, \"end\" HIDDEN, "       \
  "expires HIDDEN, items HIDDEN, fpr HIDDEN, \"%w\" HIDDEN"

static int window_chooses(const store_options *o) { return o->window != 0; }

/* A generation's last burst layer it has room for gets
** fpr / (G + 1) * r / 2^16: no rate may be below FILTER_MIN_FPR. */
static int window_check(const store_options *o, char *err, size_t err_size) {
  double scale = WINDOW_BURST_SHARE /
                 ((o->generations + 1) * ldexp(1.0, WINDOW_BURST_LAYERS));
  if (o->fpr * scale >= FILTER_MIN_FPR) return SQLITE_OK;
  snprintf(err, err_size, "with %u generations a windowed store needs fpr "
           ">= %.2g (the layers a burst adds get rates down to fpr / "
           "(generations + 1) / %.0f, and no rate is below %g): use a "
           "larger fpr or fewer generations", o->generations,
           FILTER_MIN_FPR / scale, 1 / (WINDOW_BURST_SHARE /
                                        ldexp(1.0, WINDOW_BURST_LAYERS)),
           FILTER_MIN_FPR);
  return SQLITE_ERROR;
}

/* A windowed store has no one row that says what changed. */
static int window_refresh(store *s) { return config_read(s); }

/* INSERT INTO t(t) VALUES ('expire'): the store's one command. */
static int run_command(store *s, sqlite3_value *command) {
  const unsigned char *text = sqlite3_value_text(command);
  if (text == NULL && sqlite3_value_type(command) != SQLITE_NULL)
    return SQLITE_NOMEM;
  if (sqlite3_value_type(command) == SQLITE_TEXT &&
      strcmp((const char *)text, "expire") == 0)
    return window_expire(s);
  return store_error(s, "unknown command %s: INSERT INTO %s(%s) VALUES "
                     "('expire') deletes the generations past their time",
                     text, s->tables.name, s->tables.name);
}

static int window_write_own(store *s, sqlite3_value **own, int *done) {
  *done = 0;
  for (int col = OWN_GENERATION; col <= OWN_FPR; col++)
    if (sqlite3_value_type(own[col]) != SQLITE_NULL)
      return store_error(s, "a generation's figures cannot be written");
  if (sqlite3_value_type(own[OWN_COMMAND]) == SQLITE_NULL) return SQLITE_OK;
  *done = 1;
  return run_command(s, own[OWN_COMMAND]);
}

static int window_place_own(store *s, sqlite3_value **own, int *layer,
                            int *outside) {
  return window_place(s, own ? own[OWN_AT] : NULL, layer, outside);
}

static int window_row_at(store *s, int i, schedule_row *out) {
  window_generation g;
  int rc = window_generation_at(s, i, &g);
  if (rc != SQLITE_OK) return rc;
  memset(out, 0, sizeof *out);
  out->v[OWN_GENERATION] = g.number;
  out->v[OWN_START] = g.start;
  out->v[OWN_END] = g.end;
  out->v[OWN_EXPIRES] = g.expires;
  out->v[OWN_ITEMS] = (sqlite3_int64)g.items;
  out->r[OWN_FPR] = g.fpr;
  out->reals = 1u << OWN_FPR;
  return SQLITE_OK;
}

const store_schedule store_window_schedule = {
    .name = "windowed",
    .layered = 1,
    .fills = 1,
    .layers_move = 1,
    .columns = WINDOW_COLUMNS,
    .row_columns = 1u << OWN_GENERATION | 1u << OWN_START | 1u << OWN_END |
                   1u << OWN_EXPIRES | 1u << OWN_ITEMS | 1u << OWN_FPR,
    .chooses = window_chooses,
    .check = window_check,
    .create = window_create,
    .take_row = window_take_row,
    .parse = window_parse,
    .focus = window_focus,
    .refresh = window_refresh,
    .grow = window_grow,
    .tick = window_tick,
    .write_own = window_write_own,
    .place = window_place_own,
    .before_delete = window_expire,
    .ignores_chunk = window_expired_id,
    .export_empty = window_export_empty,
    .row_count = window_generation_count,
    .row_at = window_row_at,
    .summary = window_summary,
};
