/*
** Layered (scalable) filters, kind 3 of FORMAT.md: filters of one kind
** (Bloom or cuckoo) laid end to end, oldest first, behind a header and a
** directory of their lengths.  A store that grows adds a larger layer
** rather than rebuilding (Almeida et al., "Scalable Bloom Filters", 2007);
** a value is in the whole if some layer may hold it.  Plain C: no SQLite
** header.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Reading: filter_parse (format.h) validates the whole with
** FILTER_WANT_LAYERED; then filter_layer_count / filter_layer_next give each
** layer as a filter_view of its own kind, and filter_contains (filter.h)
** probes them all.
**
** Writing, for a store that assembles each layer's body from its own
** pieces (chunks):
**
**   filter_header layers[L];                 // the layers' own headers
**   layered_params p = {growth, tightening, target_fpr};
**   layered_placement where;
**   if (layered_place(layers, L, &p, &where, why, sizeof why) != 0) ...
**   // where.total_bytes: check the length limit, then allocate
**   layered_write_header(buf, layers, &p, &where);
**   for (i = 0; i < L; i++)                  // each layer's body in place
**     fill buf + where.layer_offset[i] + FILTER_HEADER_BYTES
**       with where.layer_bytes[i] - FILTER_HEADER_BYTES bytes;
**
** or, from complete layers in memory, layered_write (one call).
*/
#ifndef CORE_LAYERED_H
#define CORE_LAYERED_H

#include <stddef.h>
#include <stdint.h>

#include "core/format.h"
#include "core/hash.h"

/* Outer header and directory: 64 bytes, then 8 a layer padded with zeros
** to a multiple of 64, so that every layer (and every Bloom layer's
** blocks) starts on a cache line of a 64-byte-aligned copy. */
static inline uint64_t layered_header_bytes(unsigned layers) {
  return FILTER_HEADER_BYTES + 64 * (((uint64_t)layers + 7) / 8);
}

/* The informational fields of the outer header (FORMAT.md, "Kind 3"). */
typedef struct layered_params {
  unsigned growth;   /* 1..65535: the capacity ratio between layers */
  double tightening; /* (0, 1]: the ratio of successive layers' rates */
  double target_fpr; /* (0, 1): the compound bound the writer promises */
} layered_params;

/* Where each layer goes in the blob: a layered blob's placement of its
** layers. */
typedef struct layered_placement {
  unsigned layers;
  uint64_t total_bytes;                       /* the whole blob */
  uint64_t layer_offset[FILTER_MAX_LAYERS];   /* layer i's own header */
  uint64_t layer_bytes[FILTER_MAX_LAYERS];    /* its length, header included */
  uint64_t capacity;                          /* outer header's sums */
  uint64_t count;
} layered_placement;

/* Checks that layers[0..count) can be the layers of one filter (1 <= count
** <= 64, all of kind 1 or all of kind 2, version 1, MurmurHash3, one seed)
** and that p's fields are in range; fills *where.  0, or -1 with the reason
** in err.  The headers are trusted to be those of valid filters (taken
** from filter_parse or from the writer's own sizing). */
int layered_place(const filter_header *layers, unsigned count,
                  const layered_params *p, layered_placement *where, char *err,
                  size_t err_size);

/* Writes, into dst[0..where->total_bytes), the outer header, the directory
** and the 64-byte header of every layer at where->layer_offset[i]; the
** layers' bodies are left for the caller.  where comes from
** layered_place over the same layers and p.  Once every body is
** written the blob passes filter_parse, provided each layer's body agrees
** with its header as a standalone filter of that kind would. */
void layered_write_header(unsigned char *dst, const filter_header *layers,
                          const layered_params *p,
                          const layered_placement *where);

/* The whole blob from complete layers (each a view from filter_parse):
** layered_place, then the header, then each layer's bytes copied.
** dst_bytes must be exactly the placement's total_bytes (take it from
** layered_place first).  0, or -1 with the reason in err. */
int layered_write(unsigned char *dst, uint64_t dst_bytes,
                  const filter_view *layers, unsigned count,
                  const layered_params *p, char *err, size_t err_size);

/* Layers of a valid filter: its layer count when layered, otherwise 1. */
static inline unsigned filter_layer_count(const filter_view *f) {
  return f->header.kind == FILTER_KIND_LAYERED ? f->header.layers : 1;
}

/* Walking the layers of a valid filter, each step O(1) (a filter that is
** not layered is its own only layer), oldest first:
**   filter_layer_walk w = filter_layers_of(f);
**   for (unsigned i = 0; i < filter_layer_count(f); i++) {
**     filter_view layer;
**     filter_layer_next(&w, &layer);  ...
** or newest first with filter_layers_newest and filter_layer_prev.  A
** layer's place in the blob is layer.blob - f->blob. */
typedef struct filter_layer_walk {
  const filter_view *f;
  unsigned next;    /* oldest first: the layer the next call gives;
                       newest first: one past it */
  uint64_t offset;  /* where that layer starts (newest first: ends) */
} filter_layer_walk;

static inline filter_layer_walk filter_layers_of(const filter_view *f) {
  filter_layer_walk w = {f, 0, layered_header_bytes(f->header.layers)};
  return w;
}
static inline filter_layer_walk filter_layers_newest(const filter_view *f) {
  filter_layer_walk w = {f, filter_layer_count(f), f->blob_bytes};
  return w;
}
/* The next layer, or the one before; at most filter_layer_count(f) calls. */
void filter_layer_next(filter_layer_walk *w, filter_view *layer);
void filter_layer_prev(filter_layer_walk *w, filter_view *layer);

/* 1 if some layer of a valid layered filter may hold h: the layers are
** probed newest first (the newest, largest one holds most items), stopping
** at the first that says maybe. */
int layered_contains(const filter_view *f, filter_hash h);

/* The index of a valid layered filter's layers, laid out for probing many
** values: what layered_contains reads from the directory and the layers'
** headers on every call, read once (bloom_probe and bloom_ref keep one in
** their filter_view). */
typedef struct layer_index {
  unsigned layers, layer_kind;
  const unsigned char *body[FILTER_MAX_LAYERS];
  uint64_t units[FILTER_MAX_LAYERS]; /* Bloom blocks or cuckoo buckets */
  unsigned width[FILTER_MAX_LAYERS]; /* hashes k, or fingerprint bits f */
  unsigned char layout[FILTER_MAX_LAYERS]; /* cuckoo layers' layout */
  /* Bloom layers: their distinct k ascending, and layer i's among them, so
  ** that a probe builds each layer's bit mask once (bloom_masks_of). */
  unsigned widths;
  unsigned distinct_width[FILTER_MAX_LAYERS];
  unsigned char width_rank[FILTER_MAX_LAYERS];
} layer_index;

void layer_index_of(const filter_view *f, layer_index *ix);
/* layered_contains over an index. */
int layer_index_contains(const layer_index *ix, filter_hash h);


#endif
