/*
** Layered filters: the writer and the layer-by-layer reads (layered.h).
** Validation lives with the other kinds' in format.c.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "core/layered.h"

#include <stdio.h>
#include <string.h>

#include "core/bloom.h"
#include "core/cuckoo.h"
#include "core/filter.h"

/* The length of the blob of a valid filter with header h (kind 1 or 2):
** 64 + its body.  0 if the header's sizes cannot be a blob (a wrap). */
static uint64_t filter_blob_bytes(const filter_header *h) {
  if (h->kind == FILTER_KIND_BLOOM) return bloom_blob_bytes(h->bits);
  if (h->kind != FILTER_KIND_CUCKOO || h->fingerprint_bits == 0) return 0;
  /* buckets / 2 * f + 64 must not wrap (cuckoo_body_bytes' promise). */
  if (h->buckets / 2 > (UINT64_MAX - FILTER_HEADER_BYTES) / h->fingerprint_bits)
    return 0;
  return FILTER_HEADER_BYTES + cuckoo_body_bytes(h->buckets, h->fingerprint_bits);
}

int layered_place(const filter_header *layers, unsigned count,
                  const layered_params *p, layered_placement *where, char *err,
                  size_t err_size) {
  if (count < 1 || count > FILTER_MAX_LAYERS) {
    snprintf(err, err_size, "%u layers: a layered filter has 1 to %d",
             count, FILTER_MAX_LAYERS);
    return -1;
  }
  if (p->growth < 1 || p->growth > 65535) {
    snprintf(err, err_size, "growth %u out of range 1..65535", p->growth);
    return -1;
  }
  if (!(p->tightening > 0.0 && p->tightening <= 1.0)) {
    snprintf(err, err_size, "tightening ratio out of (0,1]");
    return -1;
  }
  if (!(p->target_fpr > 0.0 && p->target_fpr < 1.0)) {
    snprintf(err, err_size, "target false-positive rate out of (0,1)");
    return -1;
  }
  const filter_header *first = &layers[0];
  uint64_t total = layered_header_bytes(count), capacity = 0, items = 0;
  for (unsigned i = 0; i < count; i++) {
    const filter_header *h = &layers[i];
    if (h->kind != FILTER_KIND_BLOOM && h->kind != FILTER_KIND_CUCKOO) {
      snprintf(err, err_size, "layer %u is a %s filter, not bloom or cuckoo",
               i, filter_kind_name(h->kind));
      return -1;
    }
    if (h->kind != first->kind) {
      snprintf(err, err_size, "layer %u is a %s filter, layer 0 a %s filter",
               i, filter_kind_name(h->kind), filter_kind_name(first->kind));
      return -1;
    }
    if (h->version != FILTER_VERSION ||
        h->hash != FILTER_HASH_MURMUR3_X64_128) {
      snprintf(err, err_size, "layer %u: version %u, hash %u (need 1, 1)", i,
               h->version, h->hash);
      return -1;
    }
    if (h->seed != first->seed) {
      snprintf(err, err_size, "layer %u has seed %lu, layer 0 seed %lu", i,
               (unsigned long)h->seed, (unsigned long)first->seed);
      return -1;
    }
    if (h->capacity < 1 || h->capacity > (uint64_t)INT64_MAX) {
      snprintf(err, err_size, "layer %u: capacity out of range", i);
      return -1;
    }
    uint64_t bytes = filter_blob_bytes(h);
    if (bytes < FILTER_HEADER_BYTES || bytes > UINT64_MAX - total) {
      snprintf(err, err_size, "layer %u: the filter would be too large", i);
      return -1;
    }
    where->layer_offset[i] = total;
    where->layer_bytes[i] = bytes;
    total += bytes;
    capacity += h->capacity;
    if (capacity > (uint64_t)INT64_MAX) capacity = (uint64_t)INT64_MAX;
    items = saturating_add(items, h->count);
  }
  if (total > (uint64_t)SIZE_MAX) {
    snprintf(err, err_size, "the filter would be too large");
    return -1;
  }
  where->layers = count;
  where->total_bytes = total;
  where->capacity = capacity;
  where->count = items;
  return 0;
}

void layered_write_header(unsigned char *dst, const filter_header *layers,
                          const layered_params *p,
                          const layered_placement *where) {
  filter_header outer =
      filter_header_new(FILTER_KIND_LAYERED, where->capacity, p->target_fpr);
  outer.seed = layers[0].seed;
  outer.count = where->count;
  outer.layer_kind = layers[0].kind;
  outer.layers = where->layers;
  outer.growth = p->growth;
  outer.tightening = p->tightening;
  filter_write_header(dst, &outer);
  /* The directory, its padding zero. */
  memset(dst + FILTER_OFF_DIRECTORY, 0,
         (size_t)(layered_header_bytes(where->layers) -
                  FILTER_OFF_DIRECTORY));
  for (unsigned i = 0; i < where->layers; i++) {
    store_le64(dst + FILTER_OFF_DIRECTORY + 8 * i, where->layer_bytes[i]);
    filter_write_header(dst + where->layer_offset[i], &layers[i]);
  }
}

int layered_write(unsigned char *dst, uint64_t dst_bytes,
                  const filter_view *layers, unsigned count,
                  const layered_params *p, char *err, size_t err_size) {
  filter_header headers[FILTER_MAX_LAYERS];
  if (count < 1 || count > FILTER_MAX_LAYERS) {
    snprintf(err, err_size, "%u layers: a layered filter has 1 to %d",
             count, FILTER_MAX_LAYERS);
    return -1;
  }
  for (unsigned i = 0; i < count; i++) headers[i] = layers[i].header;
  layered_placement where;
  if (layered_place(headers, count, p, &where, err, err_size) != 0)
    return -1;
  if (dst_bytes != where.total_bytes) {
    snprintf(err, err_size, "the buffer is %llu bytes, the filter %llu",
             (unsigned long long)dst_bytes,
             (unsigned long long)where.total_bytes);
    return -1;
  }
  for (unsigned i = 0; i < count; i++) {
    if (layers[i].blob_bytes != where.layer_bytes[i]) {
      snprintf(err, err_size, "layer %u is %llu bytes, its header says %llu",
               i, (unsigned long long)layers[i].blob_bytes,
               (unsigned long long)where.layer_bytes[i]);
      return -1;
    }
  }
  layered_write_header(dst, headers, p, &where);
  /* The bodies as they are; the headers were just written from the same
  ** fields (and a layer's own header is rewritten byte for byte). */
  for (unsigned i = 0; i < count; i++)
    memcpy(dst + where.layer_offset[i], layers[i].blob, layers[i].blob_bytes);
  return 0;
}

void filter_layer_next(filter_layer_walk *w, filter_view *layer) {
  const filter_view *f = w->f;
  if (f->header.kind != FILTER_KIND_LAYERED) {
    *layer = *f;
    return;
  }
  uint64_t bytes = load_le64(f->body + 8 * w->next);
  /* Validated with the whole, so it parses again. */
  filter_parse(f->blob + w->offset, (size_t)bytes, f->header.layer_kind,
               layer, NULL, 0);
  w->offset += bytes;
  w->next++;
}

void filter_layer_prev(filter_layer_walk *w, filter_view *layer) {
  const filter_view *f = w->f;
  if (f->header.kind != FILTER_KIND_LAYERED) {
    *layer = *f;
    return;
  }
  w->next--;
  uint64_t bytes = load_le64(f->body + 8 * w->next);
  w->offset -= bytes;
  filter_parse(f->blob + w->offset, (size_t)bytes, f->header.layer_kind,
               layer, NULL, 0);
}

void layer_index_of(const filter_view *f, layer_index *ix) {
  const unsigned char *end = f->blob + f->blob_bytes;
  ix->layers = f->header.layers;
  ix->layer_kind = f->header.layer_kind;
  for (unsigned i = ix->layers; i-- > 0;) {
    uint64_t bytes = load_le64(f->body + 8 * i);
    end -= bytes;
    filter_view layer;
    /* Validated with the whole, so it parses again. */
    filter_parse(end, (size_t)bytes, ix->layer_kind, &layer, NULL, 0);
    ix->body[i] = layer.body;
    if (ix->layer_kind == FILTER_KIND_BLOOM) {
      ix->units[i] = layer.header.bits / BLOOM_BLOCK_BITS;
      ix->width[i] = layer.header.hashes;
    } else {
      ix->units[i] = layer.header.buckets;
      ix->width[i] = layer.header.fingerprint_bits;
      ix->layout[i] = (unsigned char)layer.header.cuckoo_layout;
    }
  }
  if (ix->layer_kind == FILTER_KIND_BLOOM)
    ix->widths = bloom_width_ladder(ix->width, ix->layers, ix->distinct_width,
                                   ix->width_rank);
}

int layer_index_contains(const layer_index *ix, filter_hash h) {
  unsigned n = ix->layers;
  if (ix->layer_kind == FILTER_KIND_BLOOM) {
    /* An absent value is looked up in every layer: ask for every layer's
    ** block first, so that the cache misses of the large layers overlap
    ** instead of following one another. */
    const unsigned char *block[FILTER_MAX_LAYERS];
    for (unsigned i = 0; i < n; i++) {
      block[i] = ix->body[i] + bloom_block_of(h, ix->units[i]) * BLOOM_BLOCK_BYTES;
#ifdef __GNUC__
      __builtin_prefetch(block[i]);
#endif
    }
    /* The layers' k bits are prefixes of one sequence: compute it once
    ** (callgrind, 10 layers: about 1,300 instructions a probe with
    ** bloom_contains per layer). */
    bloom_mask mask[FILTER_MAX_LAYERS];
    bloom_masks_of(h, ix->distinct_width, ix->widths, mask);
    for (unsigned i = n; i-- > 0;)
      if (bloom_block_holds(block[i], &mask[ix->width_rank[i]])) return 1;
    return 0;
  }
  for (unsigned i = n; i-- > 0;) {
    cuckoo_shape s = {ix->units[i], ix->width[i], ix->layout[i]};
    if (cuckoo_contains(ix->body[i], s, h)) return 1;
  }
  return 0;
}

int layered_contains(const filter_view *f, filter_hash h) {
  /* One probe: each layer read as it is reached, no index. */
  filter_layer_walk w = filter_layers_newest(f);
  for (unsigned i = 0; i < f->header.layers; i++) {
    filter_view layer;
    filter_layer_prev(&w, &layer);
    if (filter_contains(&layer, h)) return 1;
  }
  return 0;
}

