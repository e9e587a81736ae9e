/*
** The stores: a filter kept in place, in page-sized shadow-table chunks
** (ext/FORMAT.md, "Stores"), so that an insert costs the same at any size
** and is an ordinary, transactional SQLite write.  This is the one header
** the files of ext/store/ share, in the manner of FTS5's fts5Int.h: the
** types first, then a section for each file saying what it gives the
** others.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   store_vtab.c    the virtual table's methods, and nothing else
**   cursor.c        a query's rows: probed values, the filter, the
**                   schedule's own rows
**   config.c        the configuration rows read into a store_config
**                   value, checked as a whole, then swapped in
**   schedule.c      how layers follow one another (store_schedule): a
**                   fixed store's one filter, a scalable store's growth,
**                   and the table of schedules
**   window.c        a store that forgets: generations of a time window,
**                   the oldest dropped as one range of chunk ids (a
**                   schedule, reached only through its table row)
**   chunks.c        chunk I/O through the cache: read, change, write back,
**                   the cache's budget, revalidation by data version, the
**                   scan of every chunk
**   items.c         a value's way through the layers: probe, add, remove
**   export.c        SELECT filter: the chunks assembled into one blob
**   bloom_kind.c    what kind 1 brings (store_kind), cuckoo_kind.c kind 2,
**                   quotient_kind.c kind 4 and its schedule (split: leaves
**                   that halve when they fill)
**   directory.c     a quotient store's leaves: which chunk holds which
**                   range of the hash space
**   shadow.c        the shadow tables' SQL (shadow.h)
**   chunk_cache.c   the chunks a connection holds in memory (chunk_cache.h)
**   options.c       every CREATE argument, one declared table (options.h),
**                   as fts5_config.c parses every FTS5 option
**   errors.c        every error: messages, and damage answered
**                   SQLITE_CORRUPT_VTAB; below all the others
**
** Two axes meet in a store: its kind (what a chunk holds, how a value is
** added, tested, removed) and its schedule (how many filters, when the
** next one starts, what a schedule adds of its own: columns, a clock,
** expiry).  The shared files reach both only through their tables, so a
** new kind or schedule is its own file and one table row; a file calls
** down this list's layers (the methods, then the rows, items, chunks,
** shadow tables and errors), never up.
**
** Who owns what of struct store: store_vtab.c base, function, kind,
** tables, in_write and marked (with cursor.c); config.c config and
** config_stale; chunks.c cache, data_version and data_version_known; the
** kind kind_state; the schedule clock.
**
** Every function returns an SQLite code; answers come back through
** out-parameters.
*/
#ifndef STORE_STORE_H
#define STORE_STORE_H

#include <stdint.h>

#include "core/format.h"
#include "core/hash.h"
#include "core/quotient_leaf.h"
#include "functions/registry.h"
#include "store/chunk_cache.h"
#include "store/options.h"
#include "store/shadow.h"

/* The module bloom_ext.c registers once per kind (the registry row's kind
** picks the store_kind). */
extern const sqlite3_module store_module;

typedef struct store store;
typedef struct store_kind store_kind;
typedef struct store_schedule store_schedule;

/* The configuration keys a kind has at most. */
#define KIND_MAX_KEYS 9

/* One filter of a store: a fixed store has one, a scalable store one per
** layer, each in its own run of chunk rows. */
typedef struct store_layer {
  filter_header header; /* kind, capacity, target_fpr, seed and the shape;
                           count is computed at export */
  uint64_t units;       /* Bloom blocks or cuckoo buckets */
  uint32_t chunk_units; /* units per chunk row (the last may hold fewer) */
  int64_t first_chunk;  /* the chunk id of its first chunk row */
  int64_t chunks;
  int64_t generation;   /* windowed: the generation it belongs to */
  int slot;             /* windowed: that generation's slot */
  /* The kind's configuration values as read (a kind whose layer is more
  ** than a shape keeps them here: quotient_kind.c). */
  sqlite3_int64 kind_values[KIND_MAX_KEYS];
} store_layer;

/* As many layers as a layered blob holds (ext/FORMAT.md, kind 3). */
#define STORE_MAX_LAYERS FILTER_MAX_LAYERS

/* The configuration rows of one group of keys, as read (config.c): value
** k is in v[k] (INTEGER) or r[k] (REAL), by the key's storage class; bit k
** of seen says it was there.  A group is judged only if its schedule reads
** it (rows of a layer past the count are not). */
#define CONFIG_GROUP_KEYS (2 + KIND_MAX_KEYS)
typedef struct config_group {
  sqlite3_int64 v[CONFIG_GROUP_KEYS];
  double r[CONFIG_GROUP_KEYS];
  unsigned seen;
  int damaged; /* a value of the wrong storage class */
} config_group;

/* --- window.c: a store that forgets -------------------------------------
** Generations of window / G seconds; a value inserted at t goes into
** generation floor(t / span), and at the store's time T the generations
** floor(T / span) - G .. floor(T / span) are live.  Slot k = generation
** mod (G + 1) owns the chunk ids [k * 2^40, (k + 1) * 2^40) and the
** configuration keys gen.<k>.*, so a generation is dropped with two range
** deletes (ext/FORMAT.md, "Windowed stores").  Everything else of it is
** reached through its schedule row, store_window_schedule; these are the
** figures it keeps in store_config and the rows it reads into
** config_rows. */

typedef struct store_window {
  int64_t seconds;     /* the window */
  int64_t span;        /* one generation's seconds: ceil(seconds / G) */
  int generations;     /* G: G + 1 generations are live at once */
  int events;          /* clock 'events' (else 'wall') */
  int adaptive;        /* no capacity given: sized from the one before */
  int64_t time;        /* the time row: the newest generation's start */
  int64_t slot_number[STORE_MAX_LAYERS]; /* each slot's generation, or -1 */
  uint64_t expired;    /* slots whose generation is past: rows to delete */
  int64_t floor;       /* the oldest live generation the layers show */
} store_window;

/* window, generations, clock, time, adaptive; gen.<k>.number and
** gen.<k>.layers for each slot k; and gen.<k>.layer.<j>.<key>, group i of
** gen_layers for the pair (gen_slot[i], gen_index[i]). */
typedef struct window_rows {
  config_group figures; /* window, generations, clock, time, adaptive */
  config_group slots[STORE_MAX_LAYERS];
  uint64_t slot_rows; /* bit k: slot k has rows */
  config_group gen_layers[STORE_MAX_LAYERS];
  unsigned char gen_slot[STORE_MAX_LAYERS], gen_index[STORE_MAX_LAYERS];
  int gen_layer_count;
} window_rows;

/* --- the schedules' own parts (schedule.c's table) ----------------------
** What a schedule keeps of its own in store_config, and reads of its own
** into config_rows: only a windowed store has any beyond the layers. */
typedef union schedule_figures {
  store_window window;
} schedule_figures;
typedef union schedule_rows {
  window_rows window;
} schedule_rows;

/* What the configuration rows say: read and checked as a whole (config.c)
** before a store uses any of it. */
typedef struct store_config {
  const store_schedule *schedule;
  /* The store's own figures: its kind and seed; capacity and target_fpr
  ** as created (for a scalable store, the first layer's capacity and the
  ** bound on the compound rate). */
  filter_header header;
  value_affinity affinity; /* applied to a value before it is hashed */
  /* Made with deletes = 0 (a kind that could delete): DELETE is refused
  ** and INSERT OR IGNORE skips a value that may be present, as a Bloom
  ** store's does. */
  int adds_only;
  uint32_t growth;   /* scalable: each layer's capacity over the last's */
  double tightening; /* scalable: each layer's rate over the last's */
  schedule_figures own; /* the schedule's own (a windowed store's) */
  /* The layers in their order (a windowed store's: its live
  ** generations', oldest first). */
  int layer_count;
  store_layer layers[STORE_MAX_LAYERS];
} store_config;

struct store {
  sqlite3_vtab base;
  const sql_function *function; /* the registry row: name for errors */
  const store_kind *kind;
  void *kind_state; /* the kind's own, made by kind->open */
  shadow_tables tables;
  store_config config;
  int64_t clock; /* the schedule's clock as the statement read it */
  int config_stale; /* a rollback may have undone a layer: read again */
  /* Chunks read or changed (chunks.c).  Changed ones belong to this
  ** connection's write transaction; unchanged ones are kept across
  ** statements while the database's data version says nobody committed
  ** since. */
  chunk_cache cache;
  unsigned data_version;
  int data_version_known;
  int in_write; /* between xBegin and the transaction's end */
  /* The hashes of the rows whose rowid SQLite asked for, by rowid: a
  ** DELETE names its rows only by rowid. */
  filter_hash *marked;
  int64_t marked_count, marked_room;
};

/* --- errors.c: every error of the store ---------------------------------
** Below every other file: it calls none of them. */

/* Sets the vtab's error message "<name>: ..." and returns SQLITE_ERROR
** (SQLITE_NOMEM if the message cannot be made). */
int store_error(store *s, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The same for damage in the shadow tables: returns SQLITE_CORRUPT_VTAB,
** through store_corrupt_code, where a debugger breaks on every damage
** found. */
int store_corrupt(store *s, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int store_corrupt_code(void);

/* The newest layer: the one that takes items. */
static inline const store_layer *store_newest(const store *s) {
  return &s->config.layers[s->config.layer_count - 1];
}

/* --- store_kind: what one kind of filter brings (bloom_kind.c,
** cuckoo_kind.c) -------------------------------------------------------
** A chunk row holds `chunk_units` units (Bloom blocks or cuckoo buckets),
** the last fewer, followed by `counter_bytes` bytes of the kind's own.
** Every operation names its layer.  A kind that keeps state of its own
** between calls makes it in open and frees it in close; rollback drops
** whatever of it a rollback undoes. */

/* The configuration values a kind reads, by its own keys' order:
** KIND_MAX_KEYS (above) at most. */

/* The most units a chunk row holds (its configuration's chunk_blocks or
** chunk_buckets): more is damage.  A page holds far fewer. */
#define STORE_MAX_CHUNK_UNITS (1 << 20)

struct store_kind {
  unsigned kind;
  const char *keys[KIND_MAX_KEYS]; /* its config keys, NULL-terminated */
  /* Bit k set: keys[k] may be missing, reading as 0, and is not written
  ** when 0 (a key added after stores without it were made: cuckoo's
  ** layout). */
  unsigned optional_keys;
  uint32_t counter_bytes;          /* after the units of each chunk row */
  const char *no_delete; /* the refusal of DELETE, or NULL if it deletes */
  const char *no_update; /* the refusal of UPDATE */
  /* 1 if an add of a value that may be present may be skipped (INSERT OR
  ** IGNORE): a Bloom filter's bits for it are all set already.  A cuckoo
  ** filter may not skip: the fingerprint it found may be another value's,
  ** and deleting that one would make this one a false negative. */
  int skips_present;
  const char *load_verb; /* what INSERT INTO t(filter) does: merge, load */
  /* Its state (NULL: it keeps none). */
  int (*open)(store *s);
  void (*close)(store *s);
  void (*rollback)(store *s);
  /* Sizes a filter of *capacity items at rate fpr (for the database's page
  ** size) into values[] of keys, or sets an error with store_error.  A
  ** layer that `fills` (a scalable store's) takes items until it is full;
  ** a kind that fills past its capacity (cuckoo: until an insert is
  ** refused) raises *capacity to what the layer is sized to hold. */
  int (*size)(store *s, int fills, uint64_t *capacity, double fpr,
              int page_size, sqlite3_int64 values[]);
  /* Checks values[] read back and sets the layer's header (beyond kind,
  ** capacity, fpr and seed), units and chunk_units: SQLITE_OK, or
  ** SQLITE_CORRUPT_VTAB if they are damaged. */
  int (*configure)(store_layer *l, const sqlite3_int64 values[]);
  /* Bits of one unit; units lie end to end, a body rounded up to bytes. */
  uint64_t (*unit_bits)(const store_layer *l);
  /* The value hashed to h: added to layer l (*full: the layer takes no
  ** more, nothing added; only in a layer that fills), tested (*maybe),
  ** removed (*removed: 0 if not in this layer; NULL if no_delete). */
  int (*add)(store *s, const store_layer *l, filter_hash h, int *full);
  int (*contains)(store *s, const store_layer *l, filter_hash h, int *maybe);
  /* *maybe: some layer may hold h.  NULL: contains asks the layers one by
  ** one, newest first. */
  int (*contains_any)(store *s, filter_hash h, int *maybe);
  int (*remove)(store *s, const store_layer *l, filter_hash h, int *removed);
  /* Applies the work the kind put off (NULL: it puts off none). */
  int (*settle)(store *s);
  /* INSERT INTO t(filter) into a fixed store: a parsed filter of this
  ** kind. */
  int (*load)(store *s, const filter_view *f);
  /* Items counted in one chunk row of the export (its layer's chunk
  ** number `local`; bytes NULL: a row not written yet, all zeros). */
  uint64_t (*chunk_items)(const store_layer *l, int64_t local,
                          const unsigned char *bytes);
  /* The layer's modelled false-positive rate with `items` items. */
  double (*model_fpr)(const store_layer *l, double items);
  /* NULL: a chunk row has exactly chunk_bytes bytes.  Otherwise rows vary:
  ** a row of 1 to chunk_bytes bytes is read as its bytes followed by
  ** zeros, and a chunk is written as its first row_bytes(l, bytes, size)
  ** bytes (the kind's record, without the zeros after it). */
  int (*row_bytes)(const store_layer *l, const unsigned char *bytes,
                   int size);
  /* With row_bytes: 1 if a row of len bytes holds the kind's whole record
  ** (a row cut short is damage, though the zeros read after it would
  ** make a record). */
  int (*row_holds)(const store_layer *l, const unsigned char *bytes, int len);
  /* The id of the row in <name>_chunks that holds chunk `id` of layer l,
  ** in *row (NULL: the chunk id itself).  A kind whose rows follow
  ** another order (a quotient store's, its leaves' ranges) maps them. */
  int (*row_id)(store *s, const store_layer *l, int64_t id, int64_t *row);
  /* SELECT filter, when the kind assembles the blob itself (NULL: the
  ** chunks are its body, export.c). */
  int (*export)(store *s, sqlite3_context *ctx);
};

extern const store_kind store_bloom_kind, store_cuckoo_kind,
    store_quotient_kind;

/* --- store_schedule: how layers follow one another (schedule.c) -------- */

/* A layer's keys: capacity and fpr, then the kind's (a fixed store's
** filter has only the kind's, unprefixed). */
enum { LAYER_KEY_CAPACITY, LAYER_KEY_FPR, LAYER_KEY_KIND };
/* The scalable schedule's keys. */
enum { SCHEDULE_KEY_GROWTH, SCHEDULE_KEY_TIGHTENING, SCHEDULE_KEY_LAYERS,
       SCHEDULE_KEYS };

/* The configuration rows as read (config.c): the common keys, then each
** schedule's, filed by the schedule whose take_row knows the key.  A store
** whose rows more than one schedule took is damaged. */
typedef struct config_rows {
  config_group common;   /* kind, version, capacity, seed, fpr */
  unsigned owners;       /* bit i: store_schedules[i] took a row */
  config_group fixed;    /* a fixed store's filter: the kind's keys */
  config_group scalable; /* a scalable store's growth, tightening, layers */
  config_group layers[STORE_MAX_LAYERS]; /* its layer.<i>.<key> */
  schedule_rows own;     /* a windowed store's */
} config_rows;

/* A row of a schedule's own (a windowed store's live generations): the
** value of its own column i, an INTEGER v[i], or a REAL r[i] if bit i of
** reals is set. */
#define SCHEDULE_MAX_COLUMNS 8
typedef struct schedule_row {
  sqlite3_int64 v[SCHEDULE_MAX_COLUMNS];
  double r[SCHEDULE_MAX_COLUMNS];
  unsigned reals;
} schedule_row;

/* A schedule: its properties, then hooks; a NULL hook does nothing (or
** the default its comment names).  The shared files reach a schedule only
** through this table (store_schedules) and its row in the store's
** configuration. */
struct store_schedule {
  const char *name; /* in messages: "fixed", "scalable", "windowed" */
  /* 1: chunk rows are written when first changed (a missing row reads as
  ** zeros), and the export is a layered filter (kind 3).  0: one filter,
  ** every chunk row made with it, the export that filter. */
  int layered;
  /* 1: a layer takes items until it is full, then grow adds the next (the
  ** kinds size such a layer to fill, and report it full). */
  int fills;
  /* 1: a layer's place among the layers may change (not only new layers
  ** appended): what is cached by place goes when the configuration is read
  ** again. */
  int layers_move;
  /* Its own columns after summary, value and filter, as in CREATE TABLE
  ** (%w: the table's name, once), or NULL; bit i of row_columns: asking
  ** for own column i lists the schedule's rows (row_count, row_at). */
  const char *columns;
  sqlite3_uint64 row_columns;

  /* CREATE: 1 if the arguments make a store of this schedule (the first
  ** row of the table that says so is chosen); SQLITE_OK or SQLITE_ERROR
  ** with the reason in err, before anything is written; then the new
  ** store's configuration (a fixed store's chunk rows too). */
  int (*chooses)(const store_options *o);
  int (*check)(const store_options *o, char *err, size_t err_size);
  int (*create)(store *s, const store_options *o);

  /* Reading the configuration: take_row files a row it knows into r
  ** (SQLITE_NOTFOUND: not its key; SQLITE_CORRUPT_VTAB: its key,
  ** misspelt); parse fills c's schedule fields and layers from the rows
  ** (the common ones are read): SQLITE_OK or SQLITE_CORRUPT_VTAB; focus
  ** runs once the new configuration is in place. */
  int (*take_row)(const store_kind *k, config_rows *r, const char *key,
                  sqlite3_stmt *row);
  int (*parse)(const store_kind *k, const config_rows *r, store_config *c);
  void (*focus)(store *s);
  /* Reads the configuration again if another connection may have changed
  ** it (NULL: nothing changes it after CREATE). */
  int (*refresh)(store *s);

  /* Adds a layer after *layer, which is full, and sets *layer to it (NULL:
  ** a full filter stays). */
  int (*grow)(store *s, int *layer);
  /* At the start of a statement and of each row it writes. */
  int (*tick)(store *s);
  /* An INSERT's own columns (own: the values of the columns it declares):
  ** *done 1 if the row was a command, run; an error for values it refuses. */
  int (*write_own)(store *s, sqlite3_value **own, int *done);
  /* Where an add goes: *layer (default: the newest), or *outside: nothing
  ** is added (a windowed store's `at` older than its window). */
  int (*place)(store *s, sqlite3_value **own, int *layer, int *outside);
  /* Before a DELETE. */
  int (*before_delete)(store *s);

  /* 1 if the export passes over chunk id, outside every layer (a windowed
  ** store's expired generation: deleted by the next write). */
  int (*ignores_chunk)(const store *s, int64_t id);
  /* The export of a store with no layer (a windowed store with no live
  ** generation). */
  int (*export_empty)(store *s, sqlite3_context *ctx);
  /* Its rows, for a query that asks for a row column. */
  int (*row_count)(const store *s);
  int (*row_at)(store *s, int i, schedule_row *out);
  /* The summary's words for the schedule (sqlite3_mprintf), NULL on OOM. */
  char *(*summary)(const store *s);
};

/* SQLITE_OK if s may add a layer after one of `capacity` items, growing it
** by `growth`: an error naming the store if it holds the most layers a
** store can have, or the next capacity would pass 2^63 - 1. */
int schedule_room_for(store *s, uint64_t capacity, uint64_t growth);

/* 1 if group g is undamaged and has exactly the keys a filter's rows must
** have: every key of kind k but its optional ones (keys added after stores
** without them were made, which it may have or lack), and, for a layer
** (layer != 0), its capacity and fpr; 0 if not. */
int schedule_group_complete(const store_kind *k, const config_group *g,
                            int layer);

extern const store_schedule store_fixed_schedule, store_scalable_schedule,
    store_window_schedule, store_split_schedule;

/* Every schedule, in the order CREATE asks them (the first whose chooses
** says so is made), NULL-terminated. */
extern const store_schedule *const store_schedules[];

/* The schedule a new store of options o has, or NULL (none chooses it). */
const store_schedule *schedule_for(const store_options *o);

/* --- config.c ---------------------------------------------------------- */

/* Reads the configuration rows into a new store_config, checks it, and
** swaps it in: on damage s keeps what it had, marked stale (refused again
** at its next use), with an error naming the damage. */
int config_read(store *s);

/* Reads the configuration again if a rollback may have undone a layer or
** another connection may have added one (its layers row differs). */
int config_refresh(store *s);

/* Sets layer i of c (the kind's values[], capacity and fpr read or made);
** chunk ids follow layer i - 1.  SQLITE_CORRUPT_VTAB if they are damaged. */
int config_layer(const store_kind *k, store_config *c, int i,
                 uint64_t capacity, double fpr, const sqlite3_int64 values[]);

/* Writes the rows of one filter: the kind's keys for its sizing (and, for
** a layer, layer >= 0, its capacity and fpr, prefixed "layer.<i>."). */
int config_write_filter(store *s, int fills, int layer, uint64_t capacity,
                        double fpr);
/* The same for a layer whose keys start with prefix (window.c's
** "gen.<k>.layer.<j>."): capacity and fpr always written. */
int config_write_layer(store *s, const char *prefix, uint64_t capacity,
                       double fpr);

/* The rows of the fixed and the scalable schedules (their take_row): a
** fixed store's unprefixed kind keys; a scalable store's growth,
** tightening, layers and layer.<i>.<key>. */
int config_take_fixed(const store_kind *kind, config_rows *r,
                      const char *key, sqlite3_stmt *row);
int config_take_scalable(const store_kind *kind, config_rows *r,
                         const char *key, sqlite3_stmt *row);

/* Files a layer's row (capacity, fpr, or a key of the kind) into g:
** marks g damaged for a key a layer has not or a value of the wrong
** storage class. */
int config_take_layer(const store_kind *kind, config_group *g,
                      const char *name, sqlite3_stmt *row);

/* One line saying what the store is (kind, name, schedule, capacity, fpr,
** affinity) and how to ask it: from sqlite3_mprintf, NULL when out of
** memory.  Made from the configuration alone, at no cost in chunks. */
char *config_summary(const store *s);

/* Writes the rows every store has. */
int config_write_common(store *s, const store_options *o);

/* --- chunks.c: chunk I/O ------------------------------------------------
** A chunk is named by its layer and its number there (`local`); its id in
** <name>_chunks is l->first_chunk + local.  Pointers handed out stay valid
** as each function says; none survives the cache being emptied (a flush
** that drops, chunks_make_room, a rollback, chunks_revalidate). */

/* Units in the layer's chunk `local`, and its row's size in bytes. */
uint32_t chunk_units(const store_layer *l, int64_t local);
int chunk_bytes(const store *s, const store_layer *l, int64_t local);
/* Bytes of `units` units laid end to end. */
uint64_t chunk_unit_bytes(const store *s, const store_layer *l,
                          uint64_t units);

/* The layer holding chunk id (ids run through the layers in order), or
** NULL if no layer does. */
const store_layer *chunk_layer_of(const store *s, int64_t id);

/* A chunk as read: bytes valid until chunk_done (NULL: a layered store's
** chunk with no row yet, all zeros), len of them (chunk_bytes, or fewer
** for a kind whose rows vary, read from its row). */
typedef struct chunk_ref {
  const unsigned char *bytes;
  int len;
  sqlite3_stmt *row; /* the row bytes point into, if not cached */
  int changed;       /* the cache holds it changed, not yet in its row */
} chunk_ref;

/* Reads a chunk without changing it: from the cache, or from its row,
** kept in the cache while the cache is within its budget. */
int chunk_read(store *s, const store_layer *l, int64_t local, chunk_ref *ref);
void chunk_done(chunk_ref *ref);

/* The chunk in the cache, read into it if need be (a layered store's
** missing row as zeros), marked changed if `change`: *bytes may be written
** and stays valid until the cache is emptied (other chunks read or loaded
** meanwhile do not move it). */
int chunk_load(store *s, const store_layer *l, int64_t local, int change,
               unsigned char **bytes);

/* 1 if the cache holds the chunk. */
int chunk_is_cached(const store *s, const store_layer *l, int64_t local);

/* Writes bytes (of the chunk's size) to its row, which a layered store
** creates when it is first written. */
int chunk_write(store *s, const store_layer *l, int64_t local,
                const unsigned char *bytes);

/* Reads every chunk of layer l into the cache (so that a change of all of
** them cannot fail half way). */
int chunks_load_all(store *s, const store_layer *l);

/* *items: the items counted in every chunk of layer l (the kind's
** chunk_items): its rows that exist and this connection's changes, so
** that a layer of a huge capacity costs its rows, not its chunk numbers. */
int chunks_layer_items(store *s, const store_layer *l, uint64_t *items);

/* How many times the cache was emptied: what a kind counted from cached
** chunks holds while this stays the same. */
uint64_t chunks_cache_clears(const store *s);

/* Visits every chunk of the store once, as the database and this
** connection's changes hold it: visit(ctx, l, local, bytes), bytes valid
** during the call; a layered store's chunk with no row is not visited (it
** is all zeros).  Refuses, as damage, a row outside every layer (but one
** the schedule passes over), a fixed store's missing row and a chunk of
** the wrong size; stops at the first code visit returns but SQLITE_OK. */
typedef int (*chunk_visit)(void *ctx, const store_layer *l, int64_t local,
                           const unsigned char *bytes);
int chunks_each(store *s, chunk_visit visit, void *ctx);

/* 1 if the cache holds its budget of chunk bytes with `more`: reads stop
** adding to it, and a Bloom store defers adds. */
int chunks_cache_full(const store *s, size_t more);

/* Chunks a connection holds in memory: past this, reads stop adding to the
** cache, and a Bloom store defers adds (as much memory again). */
#define STORE_CACHE_BUDGET_BYTES ((size_t)64 << 20)

/* Applies the kind's deferred work, then writes every changed chunk back;
** empties the cache if `drop`. */
int chunks_flush(store *s, int drop);

/* Before a change that may load many chunks: past the budget, the cache is
** written back and emptied. */
int chunks_make_room(store *s);

/* At the start of a statement or transaction: keeps the unchanged chunks
** only if no transaction committed since they were read, and reads the
** configuration again when it may have changed. */
int chunks_revalidate(store *s);

/* After COMMIT: the data version our own commit made. */
void chunks_committed(store *s);

/* Frees what the cache holds (the store is going). */
void chunks_free(store *s);

/* After ROLLBACK or ROLLBACK TO: drops every cached chunk and the kind's
** deferred work; a layered store reads its configuration again. */
void chunks_rolled_back(store *s);

/* The kind's deferred work applied (store_kind.settle). */
int chunks_settle(store *s);

/* Errors naming a chunk row (ids as in <name>_chunks). */
int chunk_missing(store *s, int64_t id);
int chunk_damaged(store *s, const store_layer *l, int64_t local, int len);

/* --- items.c: a value through the layers ----------------------------- */

/* The value's hash for this store, by the rules of value_hash after the
** store's affinity (as a column stores a value, or compares a probe):
** *is_null for NULL (nothing hashed), SQLITE_NOMEM when out of memory. */
int items_hash(const store *s, sqlite3_value *value, int stored,
               filter_hash *h, int *is_null);

/* *maybe: the value may be in the store (its hash in *h); never for
** NULL. */
int items_probe(store *s, sqlite3_value *value, filter_hash *h, int *maybe);

/* INSERT INTO t(value): into the layer the schedule places it in (the
** newest by default; own: the row's own columns, NULL if the schedule has
** none); NULL is not added.  With `if_new` (INSERT OR IGNORE, where the
** kind skips_present), a value the store may hold already, or NULL, is not
** added: *skipped 1.  *skipped ITEMS_OUTSIDE: the schedule placed it
** outside every layer, nothing added. */
#define ITEMS_OUTSIDE 2
int items_add(store *s, sqlite3_value *value, sqlite3_value **own,
              int if_new, int *skipped);

/* INSERT INTO t(filter): the kind merges or loads a fixed store's filter. */
int items_load(store *s, sqlite3_value *blob);

/* DELETE: one copy of the value hashed to h, from the one layer that may
** hold it (none when several may). */
int items_remove(store *s, filter_hash h);

/* --- directory.c: a quotient store's leaves ---------------------------
** Which chunk holds each range of the hash space, read from
** <name>_directory once, in the order of the ranges.  Chunk ids are 0 ..
** leaves - 1: a split's right half takes the next, so the largest id tells
** whether another connection split a leaf.  The quotient kind owns it
** (quotient_kind.c) and empties it whenever its configuration is read
** again (a rollback, another connection's commit). */

/* One leaf, with the index the quotient kind makes of it when it is
** probed often (qleaf_index): a probe reads this entry, then the index,
** with no third read between them.  While it has an index, its stretch of
** the directory's guard says where the index holds no hash.  The
** directory frees the index when the leaf splits and when it is
** forgotten; the kind drops it when the leaf is written
** (directory_drop_index). */
typedef struct directory_leaf {
  uint64_t node;   /* core/quotient_leaf.h */
  int64_t chunk;   /* the chunk that holds its record */
  uint32_t *span;  /* its index, NULL while it has none */
  uint32_t count;  /* intervals in span */
  uint16_t probes; /* probes since its index was last dropped, up to 2 */
  /* 1 while its stretch of the guard is set from an index the directory
  ** did not keep (directory_set_guard): span is NULL, and the stretch holds
  ** until the index would have gone. */
  uint16_t guarded;
} directory_leaf;

typedef struct store_directory {
  int64_t leaves;       /* 0: not read */
  int64_t room;
  directory_leaf *leaf; /* in range order */
  uint64_t *node_of;    /* by chunk id */
  size_t index_bytes;   /* the leaves' indexes, 4 bytes an interval */
  int same_depth;       /* every leaf at `depth`: found by a shift */
  unsigned depth;
  /* Otherwise the leaves that may own an h1 with top guide_bits bits k
  ** are guide[k] .. guide[k + 1]: a search of one leaf or two, where one
  ** of every leaf would read a cache line a step (guide_bits 0: none). */
  unsigned guide_bits;
  uint32_t *guide;    /* 2^guide_bits + 1 */
  /* The guard (core/quotient_leaf.h) of the leaves' indexes: 2^guard_bits
  ** bits, guard_leaf_bits more than the directory needs to tell its
  ** leaves apart, at most 2^29 (directory.c); NULL without memory. */
  uint64_t *guard;
  unsigned guard_bits;
  unsigned guard_leaf_bits; /* as directory_load was told */
} store_directory;

/* Reads the directory if d holds none; every leaf at least `base` deep,
** its guard with 2^leaf_bits bits a leaf or so (qleaf_guard_bits of the
** entries a leaf holds).  Damage (rows out of order, nodes that do not
** cover the hashes once) is SQLITE_CORRUPT_VTAB. */
int directory_load(store *s, store_directory *d, unsigned base,
                   unsigned leaf_bits);
/* 0 if no leaf holds h, by the guard alone (d is loaded); 1 if one may. */
static inline int directory_may_hold(const store_directory *d,
                                     filter_hash h) {
  return d->guard == NULL ||
         qleaf_in_guard(d->guard, h.h1 >> (64 - d->guard_bits));
}
/* Frees what d holds, the leaves' indexes with it: it is read again when
** next needed. */
void directory_forget(store_directory *d);
/* The leaf that owns h (d is loaded).  Valid until the directory
** changes: the next split or directory_forget (reading a chunk does
** neither). */
directory_leaf *directory_find(const store_directory *d, filter_hash h);
/* Gives leaf the index span of count intervals (sqlite3_malloc'd; the
** directory owns it from now), or frees leaf's index and forgets its
** probes; directory_drop_indexes does so for every leaf. */
void directory_set_index(store_directory *d, directory_leaf *leaf,
                         uint32_t *span, uint32_t count);
/* Sets leaf's stretch of the guard from an index span of count intervals
** that the directory does not keep (the caller still owns span): a probe
** the guard passes then walks the record.  The stretch is opened again
** where an index would be dropped. */
void directory_set_guard(store_directory *d, directory_leaf *leaf,
                         const uint32_t *span, uint32_t count);
void directory_drop_index(store_directory *d, directory_leaf *leaf);
void directory_drop_indexes(store_directory *d);
/* Halves the leaf of chunk: its left half keeps chunk, its right half is
** *right (new); the directory's rows and d both say so. */
int directory_split(store *s, store_directory *d, int64_t chunk,
                    int64_t *right);
/* The table and the rows of 2^depth leaves, chunk p owning prefix p. */
int directory_create(store *s, unsigned depth);

/* --- cursor.c: a query's rows ------------------------------------------ */

/* summary is the one visible column, so that SELECT * (a table browser's
** first query) gets a row that says what the store is, while value and
** filter, HIDDEN, are named to be used; on that row (PLAN_FILTER) value is
** NULL and filter the export, for a browser that names every column.  The
** schedule's own columns, if any, follow from COL_OWN
** (store_schedule.columns). */
enum { COL_SUMMARY, COL_VALUE, COL_FILTER, COL_OWN };

typedef struct store_cursor {
  sqlite3_vtab_cursor base;
  int plan;                /* PLAN_* of xFilter */
  sqlite3_value **values;  /* IN: the rows, values that may be present */
  filter_hash *hashes;     /* IN: their hashes, for xRowid */
  int count, next;         /* rows, and the one the cursor is on */
  /* =: the one value, kept without an allocation when it is a number */
  int eq_type;
  sqlite3_int64 eq_integer;
  double eq_real;
  sqlite3_value *eq_copy;  /* TEXT or BLOB */
  filter_hash eq_hash;
  /* PLAN_ROWS: the schedule's row `row_read`, read once for its columns */
  schedule_row row;
  int row_read;
} store_cursor;

enum { PLAN_FILTER = 0, PLAN_EQ = 1, PLAN_IN = 2, PLAN_NONE = 3,
       PLAN_ROWS = 4 };


/* Frees the cursor's rows (the cursor stays, empty). */
void cursor_reset(store_cursor *c);

/* The rows of plan (PLAN_*) for xFilter's argv: the plan's rows made, the
** schedule's clock read. */
int cursor_start(store *s, store_cursor *c, int plan, sqlite3_value **argv);

/* Column col of the row the cursor is on. */
int cursor_column(store *s, store_cursor *c, sqlite3_context *ctx, int col);

/* A probe row's rowid numbers its hash among those marked (from 1), so
** that a DELETE, which names its rows only by rowid, finds the value; the
** filter row's is 0. */
int cursor_rowid(store *s, store_cursor *c, sqlite3_int64 *rowid);

/* --- export.c ---------------------------------------------------------- */

/* The whole filter as a blob of FORMAT.md, the result of ctx (a result
** error when it is longer than the connection allows). */
int store_export(store *s, sqlite3_context *ctx);

#endif
