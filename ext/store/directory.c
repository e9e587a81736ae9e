/*
** A quotient store's directory (store.h, "directory.c"): which chunk holds
** each range of the hash space, read from <name>_directory once and kept
** in the order of the ranges, so that finding a value's leaf is a shift
** while every leaf has one depth, and otherwise a look in a guide by the
** hash's top bits and a search of the leaf or two it names.  Each leaf's
** entry holds the index the quotient kind makes of it (quotient_kind.c):
** a probe reads the entry, then the index, one miss after the other where
** a table of indexes by chunk id would add a third between them.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Rows: (chunk, node) for chunk = 0 .. leaves - 1, node = 2^d + p the
** leaf that owns the hashes whose h1 starts with the d bits of p
** (core/quotient_leaf.h).  The nodes must cover the hash space once: a
** directory that does not is damage.  A split rewrites the row of the
** leaf it halves (its left half keeps the chunk) and adds the right half
** as chunk `leaves`, so chunk ids stay dense and the largest one tells
** another connection whether the directory changed.
*/
#include <stdlib.h>
#include <string.h>

#include "core/quotient_leaf.h"
#include "store/store.h"

/* The largest guard: 2^29 bits, 64 MB (past 2^18 leaves it has fewer
** bits a leaf). */
#define GUARD_MOST_BITS 29

/* The leaf's stretch of the guard from the index span, or all set when
** span is NULL.  A leaf deeper than the guard has bits shares its bit with
** others: that bit stays set. */
static void guard_stretch(store_directory *d, const directory_leaf *leaf,
                          const uint32_t *span, uint32_t count) {
  unsigned depth = qleaf_depth(leaf->node);
  if (d->guard == NULL || depth > d->guard_bits) return;
  uint64_t first = qleaf_start(leaf->node) >> (64 - d->guard_bits);
  unsigned r = d->guard_bits - depth;
  if (span)
    qleaf_guard(span, count, r, d->guard, first);
  else
    qleaf_guard_open(d->guard, first, r);
}

/* The leaf's stretch from its index, or all set while it has none. */
static void guard_leaf(store_directory *d, const directory_leaf *leaf) {
  guard_stretch(d, leaf, leaf->span, leaf->count);
}

static void guard_free(store_directory *d) {
  sqlite3_free(d->guard);
  d->guard = NULL;
  d->guard_bits = 0;
}

/* A guard with guard_leaf_bits bits for each leaf of the directory, or
** so (the least power of two at or above the leaves), made again only
** when that grows; a bit clear only for the leaves with an index (a
** leaf guarded from an index not kept is set again, and guarded again
** by its next walk).  Without memory, none: every probe reads the
** directory. */
static void guard_make(store_directory *d) {
  unsigned t = 0;
  while (((int64_t)1 << t) < d->leaves) t++;
  unsigned bits = t + d->guard_leaf_bits;
  if (bits > GUARD_MOST_BITS) bits = GUARD_MOST_BITS;
  if (d->guard && bits == d->guard_bits) return;
  guard_free(d);
  d->guard = sqlite3_malloc64(((uint64_t)1 << bits) / 8);
  if (d->guard == NULL) return;
  d->guard_bits = bits;
  qleaf_guard_open(d->guard, 0, bits);
  for (int64_t i = 0; i < d->leaves; i++) {
    d->leaf[i].guarded = 0;
    if (d->leaf[i].span) guard_leaf(d, &d->leaf[i]);
  }
}

void directory_drop_index(store_directory *d, directory_leaf *leaf) {
  int had = leaf->span != NULL || leaf->guarded;
  d->index_bytes -= (size_t)leaf->count * 4;
  sqlite3_free(leaf->span);
  leaf->span = NULL;
  leaf->count = leaf->probes = leaf->guarded = 0;
  if (had) guard_leaf(d, leaf);
}

void directory_drop_indexes(store_directory *d) {
  uint64_t *guard = d->guard; /* opened at once, not leaf by leaf */
  d->guard = NULL;
  for (int64_t i = 0; i < d->leaves; i++) directory_drop_index(d, &d->leaf[i]);
  d->guard = guard;
  if (guard) qleaf_guard_open(guard, 0, d->guard_bits);
}

void directory_set_index(store_directory *d, directory_leaf *leaf,
                         uint32_t *span, uint32_t count) {
  directory_drop_index(d, leaf);
  leaf->span = span;
  leaf->count = count;
  d->index_bytes += (size_t)count * 4;
  guard_leaf(d, leaf);
}

void directory_set_guard(store_directory *d, directory_leaf *leaf,
                         const uint32_t *span, uint32_t count) {
  directory_drop_index(d, leaf);
  leaf->guarded = 1;
  guard_stretch(d, leaf, span, count);
}

void directory_forget(store_directory *d) {
  guard_free(d);
  directory_drop_indexes(d);
  sqlite3_free(d->leaf);
  sqlite3_free(d->node_of);
  sqlite3_free(d->guide);
  memset(d, 0, sizeof *d);
}

/* Room for `need` leaves in both arrays, the new entries with no index
** (so that directory_forget may free any leaf's). */
static int make_room(store_directory *d, int64_t need) {
  if (need <= d->room) return SQLITE_OK;
  int64_t room = d->room ? d->room : 64;
  while (room < need) room *= 2;
  directory_leaf *leaf =
      sqlite3_realloc64(d->leaf, (uint64_t)room * sizeof *leaf);
  if (leaf) {
    memset(leaf + d->room, 0, (size_t)(room - d->room) * sizeof *leaf);
    d->leaf = leaf;
  }
  uint64_t *node_of = sqlite3_realloc64(d->node_of, (uint64_t)room * 8);
  if (node_of) d->node_of = node_of;
  if (!leaf || !node_of) return SQLITE_NOMEM;
  d->room = room;
  return SQLITE_OK;
}

static int damaged(store *s, const char *why, long long chunk) {
  return store_corrupt(s, "the directory of %s is damaged (%s, chunk %lld): "
                       "the store is damaged", s->tables.name, why, chunk);
}

typedef struct range_key {
  uint64_t start;
  int64_t chunk;
} range_key;

static int by_start(const void *a, const void *b) {
  const range_key *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Puts the leaves in range order and checks that they cover the hash
** space once. */
static int order(store *s, store_directory *d, unsigned base) {
  range_key *keys = sqlite3_malloc64((uint64_t)d->leaves * sizeof *keys);
  if (keys == NULL) return SQLITE_NOMEM;
  for (int64_t c = 0; c < d->leaves; c++)
    keys[c] = (range_key){qleaf_start(d->node_of[c]), c};
  qsort(keys, (size_t)d->leaves, sizeof *keys, by_start);
  for (int64_t i = 0; i < d->leaves; i++)
    d->leaf[i] = (directory_leaf){d->node_of[keys[i].chunk], keys[i].chunk,
                                  NULL, 0, 0, 0};
  sqlite3_free(keys);
  uint64_t next = 0;
  int whole = 0;
  d->same_depth = 1;
  d->depth = qleaf_depth(d->leaf[0].node);
  for (int64_t i = 0; i < d->leaves; i++) {
    uint64_t node = d->leaf[i].node;
    unsigned depth = qleaf_depth(node);
    if (whole || qleaf_start(node) != next || depth < base)
      return damaged(s, "its leaves do not cover the hashes once",
                     (long long)d->leaf[i].chunk);
    next += depth == 0 ? 0 : (uint64_t)1 << (64 - depth);
    whole = depth == 0 || next == 0;
    if (depth != d->depth) d->same_depth = 0;
  }
  return whole ? SQLITE_OK
               : damaged(s, "its leaves do not cover the hashes", -1);
}

/* Makes the guide for the leaves as they are: 2^t slots for the largest t
** with 2^t <= leaves (at most 2^22), slot k naming the leaf that owns the
** first h1 of prefix k.  Without memory, no guide: a search of every leaf
** finds the same leaf. */
static void guide_make(store_directory *d) {
  unsigned t = 0;
  while (t < 22 && ((int64_t)1 << (t + 1)) <= d->leaves) t++;
  if (d->same_depth || t == 0 || d->leaves > INT32_MAX) t = 0;
  if (t != d->guide_bits || d->guide == NULL) {
    sqlite3_free(d->guide);
    d->guide = NULL;
    d->guide_bits = 0;
    if (t == 0) return;
    d->guide = sqlite3_malloc64((((uint64_t)1 << t) + 1) * 4);
    if (d->guide == NULL) return;
    d->guide_bits = t;
  }
  int64_t i = 0;
  for (uint64_t k = 0; k < (uint64_t)1 << t; k++) {
    uint64_t start = k << (64 - t);
    while (i + 1 < d->leaves && qleaf_start(d->leaf[i + 1].node) <= start) i++;
    d->guide[k] = (uint32_t)i;
  }
  d->guide[(uint64_t)1 << t] = (uint32_t)(d->leaves - 1);
}

int directory_load(store *s, store_directory *d, unsigned base,
                   unsigned leaf_bits) {
  if (d->leaves > 0) return SQLITE_OK;
  directory_forget(d);
  d->guard_leaf_bits = leaf_bits;
  sqlite3_stmt *row = NULL;
  int rc = shadow_scan_directory(&s->tables, &row);
  int64_t n = 0;
  while (rc == SQLITE_OK && (rc = sqlite3_step(row)) == SQLITE_ROW) {
    int64_t chunk = sqlite3_column_int64(row, 0);
    if (sqlite3_column_type(row, 1) != SQLITE_INTEGER || chunk != n) {
      rc = damaged(s, "a row out of order or not an integer", (long long)n);
      break;
    }
    int64_t node = sqlite3_column_int64(row, 1);
    if (node < 1 || qleaf_depth((uint64_t)node) > QLEAF_MAX_DEPTH) {
      rc = damaged(s, "a node out of range", (long long)chunk);
      break;
    }
    rc = make_room(d, n + 1);
    if (rc == SQLITE_OK) d->node_of[n++] = (uint64_t)node;
  }
  sqlite3_finalize(row);
  if (rc == SQLITE_DONE) rc = n > 0 ? SQLITE_OK : damaged(s, "no row", 0);
  if (rc == SQLITE_OK) {
    d->leaves = n;
    rc = order(s, d, base);
  }
  if (rc == SQLITE_OK) {
    guide_make(d);
    guard_make(d);
  }
  if (rc != SQLITE_OK) directory_forget(d);
  return rc;
}

/* The range-order index of the leaf that owns h1. */
static int64_t index_of(const store_directory *d, uint64_t h1) {
  if (d->same_depth)
    return d->depth == 0 ? 0 : (int64_t)(h1 >> (64 - d->depth));
  int64_t lo = 0, hi = d->leaves; /* the answer lies in [lo, hi) */
  if (d->guide_bits) {
    uint64_t k = h1 >> (64 - d->guide_bits);
    lo = d->guide[k];
    hi = (int64_t)d->guide[k + 1] + 1;
  }
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (qleaf_start(d->leaf[mid].node) <= h1)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

directory_leaf *directory_find(const store_directory *d, filter_hash h) {
  return &d->leaf[index_of(d, h.h1)];
}

int directory_split(store *s, store_directory *d, int64_t chunk,
                    int64_t *right) {
  uint64_t node = d->node_of[chunk];
  int64_t i = index_of(d, qleaf_start(node));
  int64_t fresh = d->leaves;
  int rc = make_room(d, d->leaves + 1);
  if (rc == SQLITE_OK)
    rc = shadow_put_node(&s->tables, chunk, (int64_t)(2 * node));
  if (rc == SQLITE_OK)
    rc = shadow_put_node(&s->tables, fresh, (int64_t)(2 * node + 1));
  if (rc != SQLITE_OK) return rc;
  directory_drop_index(d, &d->leaf[i]);
  memmove(d->leaf + i + 2, d->leaf + i + 1,
          (size_t)(d->leaves - i - 1) * sizeof *d->leaf);
  d->leaf[i] = (directory_leaf){2 * node, chunk, NULL, 0, 0, 0};
  d->leaf[i + 1] = (directory_leaf){2 * node + 1, fresh, NULL, 0, 0, 0};
  d->node_of[chunk] = 2 * node;
  d->node_of[fresh] = 2 * node + 1;
  d->leaves++;
  d->same_depth = 0;
  guide_make(d);
  guard_make(d);
  *right = fresh;
  return SQLITE_OK;
}

int directory_create(store *s, unsigned depth) {
  int rc = shadow_create_directory(&s->tables);
  for (uint64_t p = 0; rc == SQLITE_OK && p < (uint64_t)1 << depth; p++)
    rc = shadow_put_node(&s->tables, (int64_t)p,
                         (int64_t)(((uint64_t)1 << depth) + p));
  return rc;
}
