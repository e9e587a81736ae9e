/*
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** What one kind of filter brings to the shared store (store_vtab.c): its
** geometry in chunk rows, its configuration rows, and how it adds, tests,
** removes, loads and exports over the chunks.  store_vtab.c owns the rest:
** arguments, shadow tables, the chunk cache, transactions, queries and the
** blob's framing.
**
**   bloom_layout.c   kind 1: 512-bit blocks, a counter per chunk row
**   cuckoo_layout.c  kind 2: buckets of 4 fingerprints, no counter
**
** A chunk row holds `chunk_units` units (Bloom blocks or cuckoo buckets),
** the last fewer, followed by `counter_bytes` bytes of the layout's own.
** A scalable store is several such filters (layers.c), each a run of chunk
** rows, so every operation names its layer.
*/
#ifndef STORE_LAYOUT_H
#define STORE_LAYOUT_H

#include <stdint.h>

#include "core/format.h"
#include "core/hash.h"
#include "functions/registry.h"
#include "store/chunk_cache.h"
#include "store/options.h"
#include "store/shadow.h"

typedef struct store_layout store_layout;

/* One filter of a store: a fixed store has one, a scalable store one per
** layer, each in its own run of chunk rows. */
typedef struct store_layer {
  filter_header header; /* kind, capacity, target_fpr, seed and the shape;
                           count is computed at export */
  uint64_t units;       /* Bloom blocks or cuckoo buckets */
  uint32_t chunk_units; /* units per chunk row (the last may hold fewer) */
  int64_t first_chunk;  /* the chunk id of its first chunk row */
  int64_t chunks;
} store_layer;

/* As many layers as a layered blob holds (ext/FORMAT.md, kind 3). */
#define STORE_MAX_LAYERS FILTER_MAX_LAYERS

/* An add a fixed Bloom store has not applied yet: its block and hash. */
typedef struct deferred_add {
  uint64_t block;
  filter_hash hash;
} deferred_add;

typedef struct store {
  sqlite3_vtab base;
  const sql_function *function; /* the registry row: name for errors */
  const store_layout *layout;
  shadow_tables tables;
  /* The store's own figures: its kind and seed; capacity and target_fpr as
  ** created (for a scalable store, the first layer's capacity and the
  ** bound on the compound rate). */
  filter_header header;
  /* Scalable: layer i holds capacity * growth^i at a target rate of
  ** fpr * (1 - tightening) * tightening^i (layers.c). */
  int scalable;
  uint32_t growth;
  double tightening;
  store_layer layers[STORE_MAX_LAYERS];
  int layer_count;
  int layers_stale; /* a rollback may have undone a layer: read again */
  /* Chunks read or changed.  Changed ones belong to this connection's
  ** write transaction; unchanged ones are kept across statements while
  ** the database's data version says nobody committed since. */
  chunk_cache cache;
  /* Adds not yet applied (bloom_layout.c): past the cache's budget, a
  ** Bloom store keeps the hashes of adds to chunks it does not hold and
  ** applies them in chunk order, each chunk read and written once per
  ** batch.  Applied before any read and at every flush.  All are adds to
  ** layer deferred_layer; while there are any, a scalable store counts its
  ** newest layer's items as an estimate made when the first was deferred
  ** (deferred_base) plus the adds since (deferred_adds). */
  deferred_add *deferred;
  size_t deferred_count, deferred_room;
  int deferred_layer;
  double deferred_base;
  uint64_t deferred_adds;
  /* The layers' k as bloom_masks_of takes them (bloom_layout.c), for the
  ** `layers` first layers with these k; made again when they differ. */
  struct {
    unsigned layers, widths;
    unsigned width[STORE_MAX_LAYERS], distinct[STORE_MAX_LAYERS];
    unsigned char rank[STORE_MAX_LAYERS];
  } probe_widths;
  /* The items of a small layer (bloom_layout.c), summed from its chunks
  ** once and counted on from there while the cache keeps them
  ** (cache.clears unchanged). */
  struct {
    int layer; /* -1: none */
    uint64_t clears;
    double items;
  } small_layer;
  unsigned data_version;
  int data_version_known;
  int in_write; /* between xBegin and the transaction's end */
  /* The hashes of the rows whose rowid SQLite asked for, by rowid: a
  ** DELETE names its rows only by rowid. */
  filter_hash *marked;
  int64_t marked_count, marked_room;
} store;

/* Chunks a connection holds in memory: past this, reads stop adding to the
** cache, and a Bloom store defers adds (as much memory again). */
#define STORE_CACHE_BUDGET_BYTES ((size_t)64 << 20)

/* The configuration values a layout reads, by its own keys' order. */
#define LAYOUT_MAX_KEYS 4

/* layout->add: the layer is full (a scalable store adds a layer). */
#define STORE_LAYER_FULL (-1)

struct store_layout {
  unsigned kind;
  const char *keys[LAYOUT_MAX_KEYS]; /* its config keys, NULL-terminated */
  uint32_t counter_bytes;            /* after the units of each chunk row */
  const char *no_delete;   /* the refusal of DELETE, or NULL if it deletes */
  const char *no_update;   /* the refusal of UPDATE */
  const char *load_verb;   /* what INSERT INTO t(filter) does: merge, load */
  /* Sizes a filter of *capacity items at rate fpr (for the database's page
  ** size) into values[] of keys; SQLITE_OK, or an error set with
  ** store_error.  A layout whose layers take items past their capacity
  ** (cuckoo: until an insert is refused) raises *capacity, for a scalable
  ** store's layer, to what the layer is sized to hold at its rate. */
  int (*size)(store *s, uint64_t *capacity, double fpr, int page_size,
              sqlite3_int64 values[]);
  /* Checks values[] read back and sets the layer's header (beyond kind,
  ** capacity, fpr and seed), units and chunk_units: 0, or -1 if they are
  ** damaged. */
  int (*configure)(store_layer *l, const sqlite3_int64 values[]);
  /* Bytes of `units` units laid end to end. */
  uint64_t (*unit_bytes)(const store_layer *l, uint64_t units);
  /* The value hashed to h, added to / tested in / removed from layer l.
  ** add: SQLITE_OK, STORE_LAYER_FULL (only in a scalable store: nothing
  ** added) or an error code; contains: 1, 0, or a negated error code;
  ** remove (NULL if no_delete): 1 removed, 0 not in this layer, or a
  ** negated error code. */
  int (*add)(store *s, const store_layer *l, filter_hash h);
  int (*contains)(store *s, const store_layer *l, filter_hash h);
  /* 1 if some layer may hold h, 0 if none, or a negated error code; NULL:
  ** contains asks the layers one by one, newest first. */
  int (*contains_any)(store *s, filter_hash h);
  int (*remove)(store *s, const store_layer *l, filter_hash h);
  /* Applies the adds the layout deferred (NULL: it defers none). */
  int (*settle)(store *s);
  /* INSERT INTO t(filter) into a fixed store: a parsed filter of this
  ** kind. */
  int (*load)(store *s, const filter_view *f);
  /* Items counted in one chunk row of the export (its layer's chunk
  ** number `local`). */
  uint64_t (*chunk_items)(const store_layer *l, int64_t local,
                          const unsigned char *bytes);
};

extern const store_layout store_bloom_layout, store_cuckoo_layout;

/* Sets the vtab's error message "<name>: ..." and returns SQLITE_ERROR
** (SQLITE_NOMEM if the message cannot be made). */
int store_error(store *s, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Units in the layer's chunk `local`, and its row's size in bytes. */
uint32_t store_units_in_chunk(const store_layer *l, int64_t local);
int store_chunk_bytes(const store *s, const store_layer *l, int64_t local);

/* The layer's chunk `local`, from the cache or the table.  With `load` (a
** change), or while the cache is within its budget, it is read into the
** cache (*cached); otherwise *bytes points into the table's row, valid
** until shadow_done(*held).  In a scalable store a chunk that has no row
** yet is all zeros: loaded, a zeroed copy; otherwise *bytes is NULL. */
int store_get_chunk(store *s, const store_layer *l, int64_t local, int load,
                    const unsigned char **bytes, cached_chunk **cached,
                    sqlite3_stmt **held);

/* Writes the layer's chunk `local` (bytes of its size) to its row, which a
** scalable store creates when it is first written. */
int store_write_chunk(store *s, const store_layer *l, int64_t local,
                      const unsigned char *bytes);

/* 1 if the cache holds its budget of chunk bytes: reads stop adding to
** it, and changes are written back. */
int store_cache_full(const store *s, size_t more);

/* Reads every chunk of layer l into the cache (so that a change of all of
** them cannot fail half way). */
int store_load_all(store *s, const store_layer *l);

#endif
