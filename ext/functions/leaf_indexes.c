/*
** Indexes of a filter of leaves, made as its holder probes it
** (leaf_indexes.h).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "functions/leaf_indexes.h"

#include <string.h>

#include "core/bytes.h"
#include "core/quotient_leaf.h"

/* A leaf is indexed at its walk number 1 + (its record's bytes) /
** LEAF_BYTES_PER_WALK: making the index decodes every entry and sorts the
** intervals, which costs about one walk of the record in cache for every
** LEAF_BYTES_PER_WALK bytes of it (RESULTS, "Indexes of a filter of
** leaves probed in bulk"), so that a leaf probed less never pays more
** than about twice what its walks would have cost.  The record's length
** is known without reading it, where counting its entries would read
** every section's header, a cache miss each. */
#define LEAF_BYTES_PER_WALK 8
/* The slots are made at probe 8 + leaves / LEAF_PROBES_PER_LEAF: a probe
** that walks a record costs about what reading that many directory
** entries into slots does. */
#define LEAF_PROBES_PER_LEAF 64
/* walks: no index will be made for the leaf. */
#define LEAF_NO_INDEX UINT32_MAX

typedef struct leaf_slot {
  uint32_t *span;  /* the leaf's index, or NULL */
  uint64_t node;   /* core/quotient_leaf.h */
  uint32_t n;      /* its intervals */
  uint32_t walks;  /* probes that walked the record, or LEAF_NO_INDEX */
  uint32_t at;     /* where its record starts in the body, */
  uint32_t len;    /* and its bytes: the directory is not read again */
} leaf_slot;

struct leaf_indexes {
  /* One slot per leaf, made after a few probes (have_slots) if the
  ** directory is sound (leaves in order, covering the hashes once), and
  ** a guide by the top guide_bits bits of h1 to the leaf that owns the
  ** first h1 of each stretch: a probe reads the guide, steps a leaf or
  ** two, and reads the slot, where a binary search on the directory reads
  ** a dozen entries in a large filter. */
  leaf_slot *slot;
  uint32_t *guide;
  unsigned guide_bits;
  uint64_t leaves;
  uint64_t probes; /* before the slots are made */
  size_t held;     /* bytes of the slots, the guide and the indexes */
  int no_slots;    /* none will be made: budget, memory, or damage */
};

leaf_indexes *leaf_indexes_new(void) {
  leaf_indexes *x = sqlite3_malloc(sizeof *x);
  if (x) memset(x, 0, sizeof *x);
  return x;
}

void leaf_indexes_free(void *p) {
  leaf_indexes *x = p;
  if (x == NULL) return;
  for (uint64_t i = 0; x->slot && i < x->leaves; i++)
    sqlite3_free(x->slot[i].span);
  sqlite3_free(x->slot);
  sqlite3_free(x->guide);
  sqlite3_free(x);
}

int leaf_index_fits(size_t held, size_t bytes) {
  if (held > LEAF_INDEX_BUDGET || bytes > LEAF_INDEX_BUDGET - held) return 0;
  sqlite3_int64 soft = sqlite3_soft_heap_limit64(-1);
  return soft <= 0 || sqlite3_memory_used() + (sqlite3_int64)bytes <= soft;
}

int leaf_index_of(const unsigned char *rec, size_t len, qleaf_entry *e,
                  size_t room, uint32_t **span, uint32_t *n) {
  size_t count;
  *span = NULL;
  if (qleaf_decode(rec, len, e, room, &count, NULL, 0) != 0) return -1;
  uint32_t *words = sqlite3_malloc64((count ? count : 1) * sizeof *words);
  if (words == NULL) return -1;
  int64_t made = qleaf_index(e, count, words);
  if (made < 0) {
    sqlite3_free(words);
    return -1;
  }
  if ((size_t)made < count) { /* intervals merged: give the rest back */
    uint32_t *less =
        sqlite3_realloc64(words, (made ? (size_t)made : 1) * sizeof *words);
    if (less) words = less;
  }
  *span = words;
  *n = (uint32_t)made;
  return 0;
}

/* Reads the directory into the slots: 0, or -1 if a node or a record's
** bounds are out of range, or the leaves do not cover the hashes in order
** (then the probes search and check it as FORMAT.md says, and answer as
** it does), or the body is too long for a slot's offsets (no SQL value
** is). */
static int read_directory(leaf_indexes *x, const unsigned char *body,
                          size_t body_bytes) {
  uint64_t next = 0; /* the first h1 the next leaf must own */
  if (body_bytes > UINT32_MAX) return -1;
  for (uint64_t i = 0; i < x->leaves; i++) {
    const unsigned char *rec;
    size_t len;
    uint64_t node;
    if (qleaves_leaf(body, body_bytes, x->leaves, i, &node, &rec, &len) != 0 ||
        qleaf_start(node) != next || (i > 0 && next == 0))
      return -1;
    unsigned d = qleaf_depth(node);
    if (d == 0 && x->leaves > 1) return -1;
    next += d == 0 ? 0 : (uint64_t)1 << (64 - d);
    x->slot[i].node = node;
    x->slot[i].at = (uint32_t)(rec - body);
    x->slot[i].len = (uint32_t)len;
  }
  if (next != 0) return -1; /* the last leaf ends at 2^64 */
  /* guide[j]: the leaf that owns h1 = j << shift */
  unsigned shift = 64 - x->guide_bits;
  uint64_t j = 0, stretches = (uint64_t)1 << x->guide_bits;
  for (uint64_t i = 0; i < x->leaves; i++) {
    uint64_t last = i + 1 < x->leaves ? qleaf_start(x->slot[i + 1].node) - 1
                                      : UINT64_MAX;
    for (; j < stretches && j <= last >> shift; j++) x->guide[j] = (uint32_t)i;
  }
  return 0;
}

/* The slots and the guide, made once the probes have cost about what
** reading the directory into them does (LEAF_PROBES_PER_LEAF), so that
** a statement of a few probes, or a filter that changes from row to row
** (whose set lives for one call), never makes them. */
static int have_slots(leaf_indexes *x, const unsigned char *body,
                      size_t body_bytes, uint64_t leaves) {
  if (x->slot) return 1;
  if (x->no_slots || ++x->probes < 8 + leaves / LEAF_PROBES_PER_LEAF)
    return 0;
  x->no_slots = 1;
  if (leaves > LEAF_INDEX_BUDGET / sizeof(leaf_slot)) return 0;
  unsigned g = 1; /* twice as many stretches as leaves, or more */
  while (((uint64_t)1 << g) < 2 * leaves) g++;
  size_t bytes = (size_t)leaves * sizeof(leaf_slot) +
                 ((size_t)1 << g) * sizeof(uint32_t);
  if (!leaf_index_fits(x->held, bytes)) return 0;
  x->slot = sqlite3_malloc64((size_t)leaves * sizeof(leaf_slot));
  x->guide = sqlite3_malloc64(((size_t)1 << g) * sizeof(uint32_t));
  x->leaves = leaves;
  x->guide_bits = g;
  if (x->slot) memset(x->slot, 0, (size_t)leaves * sizeof(leaf_slot));
  if (x->slot == NULL || x->guide == NULL ||
      read_directory(x, body, body_bytes) != 0) {
    sqlite3_free(x->slot);
    sqlite3_free(x->guide);
    x->slot = NULL;
    x->guide = NULL;
    return 0;
  }
  x->held = bytes;
  x->no_slots = 0;
  return 1;
}

/* Makes the index of a leaf from its record rec[0..len), which the probe
** checked only as far as a walk needs (qleaves_probed): a record that
** does not decode gets no index, and its probes go on walking it,
** answering as the walk does. */
static void make_index(leaf_indexes *x, leaf_slot *slot,
                       const unsigned char *rec, size_t len) {
  slot->walks = LEAF_NO_INDEX;
  uint64_t entries = qleaf_entries(rec, len);
  /* as many intervals as entries at most: past the budget, no decode */
  if (entries > LEAF_INDEX_BUDGET / sizeof(uint32_t) ||
      !leaf_index_fits(x->held, (size_t)entries * sizeof(uint32_t)))
    return;
  size_t room = entries ? (size_t)entries : 1;
  qleaf_entry *e = sqlite3_malloc64(room * sizeof *e);
  uint32_t *span = NULL, n = 0;
  int rc = e ? leaf_index_of(rec, len, e, room, &span, &n) : -1;
  sqlite3_free(e);
  if (rc != 0 || !leaf_index_fits(x->held, (size_t)n * sizeof *span)) {
    sqlite3_free(span);
    return;
  }
  slot->span = span;
  slot->n = n;
  x->held += (size_t)n * sizeof *span;
}

static inline int in_index(const leaf_slot *slot, filter_hash h) {
  return qleaf_in_index(slot->span, slot->n,
                        (uint32_t)qleaf_key(h, qleaf_depth(slot->node), 32));
}

int leaf_indexes_contains(leaf_indexes *x, const unsigned char *body,
                          size_t body_bytes, uint64_t leaves, filter_hash h) {
  uint64_t i, node;
  const unsigned char *rec;
  size_t len;
  if (x->slot) {
    /* The directory is sound, so the leaf that owns h is the one the
    ** search of FORMAT.md finds; an indexed leaf passed the walk's checks
    ** of its record, and decoded whole, when its index was made. */
    i = x->guide[h.h1 >> (64 - x->guide_bits)];
    while (i + 1 < x->leaves && qleaf_start(x->slot[i + 1].node) <= h.h1) i++;
    if (x->slot[i].span) return in_index(&x->slot[i], h);
    /* qleaves_probed's checks: the search found the leaf that owns h,
    ** and its node and bounds passed when the slots were made */
    node = x->slot[i].node;
    rec = body + x->slot[i].at;
    len = x->slot[i].len;
    if (qleaf_ready(rec, len) != 0) return -1;
  } else {
    if (qleaves_locate(body, body_bytes, leaves, h, &i, &node, &rec, &len) != 0)
      return -1;
    if (!have_slots(x, body, body_bytes, leaves))
      return qleaf_contains(rec, len, qleaf_depth(node), h);
  }
  leaf_slot *slot = &x->slot[i];
  if (slot->walks != LEAF_NO_INDEX && ++slot->walks > len / LEAF_BYTES_PER_WALK) {
    make_index(x, slot, rec, len);
    if (slot->span) return in_index(slot, h);
  }
  return qleaf_contains(rec, len, qleaf_depth(node), h);
}
