/*
** The indexes a holder of a filter of leaves (kind 4, layout 1: a
** quotient store's export, or quotient_compact's result) makes as it
** probes it, for bloom_ref and quotient_probe, which keep one filter for a
** whole statement; and how one leaf's index is made within a budget, which
** a quotient store's own indexes share (store/quotient_kind.c).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Why: a probe of a leaf walks its record, section by section, counting
** each unary part from its start, which makes a probe of a large leaf
** (quotient_compact merges leaves of up to 2,048 entries) several times a
** Bloom probe.  A leaf's index (core/quotient_leaf.h, qleaf_index) answers
** in a word or two.  A leaf gets one once it has been walked about as
** many times as the index costs to make (LEAF_BYTES_PER_WALK), so that
** a statement that probes few rows pays little for it; the indexes of a
** filter take at most LEAF_INDEX_BUDGET bytes, and none that would take
** SQLite's memory past a soft heap limit the host set.  Past either, or
** out of memory, or for a leaf whose keys are wider than an index holds,
** or whose record is damaged, a probe walks the record: the answers are
** the walk's, so the indexes change only the time.
*/
#ifndef FUNCTIONS_LEAF_INDEXES_H
#define FUNCTIONS_LEAF_INDEXES_H

#include "core/format.h"
#include "core/hash.h"
#include "core/quotient_leaf.h"
#include "functions/api.h"

/* As much as the indexes of one filter may take: a quotient store's
** (store/quotient_kind.c), or those a holder of a blob makes. */
#define LEAF_INDEX_BUDGET ((size_t)64 << 20)

/* 1 if indexes that hold `held` bytes may take `bytes` more: within
** LEAF_INDEX_BUDGET, and not past a soft heap limit the host set
** (sqlite3_soft_heap_limit64). */
int leaf_index_fits(size_t held, size_t bytes);

/* The index (core/quotient_leaf.h, qleaf_index) of the record
** rec[0..len), decoded into e[0..room): 0, with *span from sqlite3_malloc
** (the caller's to free) of exactly *n words; or -1, *span NULL, if the
** record does not decode whole into `room` entries (qleaf_decode's
** checks, stricter than a probe's), a key is wider than an index holds,
** or memory is out.  The caller checks the budget (leaf_index_fits). */
int leaf_index_of(const unsigned char *rec, size_t len, qleaf_entry *e,
                  size_t room, uint32_t **span, uint32_t *n);

typedef struct leaf_indexes leaf_indexes;

/* 1 if f is a filter of leaves, whose holder makes indexes as it probes. */
static inline int leaf_indexes_wanted(const filter_view *f) {
  return f->header.kind == FILTER_KIND_QUOTIENT && f->header.block_bytes == 0;
}

/* An empty set, or NULL when out of memory.  It belongs to one filter,
** whose bytes must not change while it lives (a holder's copy, or an
** argument SQLite keeps constant for the statement); it keeps no pointer
** into them.  leaf_indexes_free takes a leaf_indexes (or NULL), typed
** for sqlite3_set_auxdata. */
leaf_indexes *leaf_indexes_new(void);
void leaf_indexes_free(void *x);

/* qleaves_contains for the body of a valid filter of `leaves` leaves
** (filter_parse's checks), x its own set: 1, 0, or -1 if the leaf h
** needs, or the directory on the way, is damaged. */
int leaf_indexes_contains(leaf_indexes *x, const unsigned char *body,
                          size_t body_bytes, uint64_t leaves, filter_hash h);

#endif
