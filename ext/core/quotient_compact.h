/*
** Compacting a filter of leaves (kind 4, layout 1) for shipping: fewer,
** larger leaves and keys no longer than the rate asked for needs.  Plain
** C: no SQLite header, no allocation (the caller gives every buffer).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Why: a store's leaves are sized for its writes (a row a fraction of a
** page, split when full), and a growing store gives each generation of
** entries its own share of the rate, so its export spends bits on leaf
** headers and on keys longer than a finished filter needs.  A blob that is
** only read can drop both, and any hash the input answers "maybe" the
** result answers "maybe" too: never a false negative.
**
** Two things change, and nothing else (FORMAT.md, "Kind 4, layout 1"):
** - Keys are cut.  An entry of b bits in a leaf at depth d matches a
**   random item with probability 2^-(d + b); cutting its key to fewer bits
**   (the top ones) raises that and saves a bit each.  Entries lose bits
**   from the longest d + b down to one total T for all, the least T whose
**   estimated rate (each entry's 2^-(d + b), summed) stays within the rate
**   given; then each leaf in order takes one bit less (T - 1) while what
**   that adds fits what is left.  A key never goes below 0 bits.
** - Leaves merge.  From each leaf that begins an aligned range, the largest
**   such range of at most QCOMPACT_MOST_ENTRIES entries becomes one leaf:
**   the inverse of a split, each key taking its leaf's bits below the
**   common ancestor as its top bits.  Keys equal after the cut are kept
**   once, and a key that a shorter key of the leaf covers is dropped.
*/
#ifndef CORE_QUOTIENT_COMPACT_H
#define CORE_QUOTIENT_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "core/quotient_leaf.h"

/* The most entries a merged leaf takes.  A probe selects within one
** section's unary part, so larger leaves cost probe time for the header
** bytes they save. */
#define QCOMPACT_MOST_ENTRIES 2048u
/* The share of the rate given that the plan may spend.  The estimate is
** the rate's expectation over random probes, so a measurement of it
** scatters around it: at 0.1% a million probes see about a thousand hits,
** and a margin of a few standard deviations keeps what they measure within
** the rate given. */
#define QCOMPACT_RATE_MARGIN 0.9
/* Key totals d + b run from 0 to 126 (d <= 62, b <= 64); 127: no cut. */
#define QCOMPACT_NO_CUT 127u
/* The words of the histogram qcompact_plan_for counts in: entries by depth
** and by d + b. */
#define QCOMPACT_HISTOGRAM ((QLEAF_MAX_DEPTH + 1u) * QCOMPACT_NO_CUT)

typedef struct qcompact_plan {
  unsigned total;   /* T: keys keep at most T - d bits; QCOMPACT_NO_CUT */
  double spare;     /* rate left for leaves cut to T - 1 */
  double estimated; /* the rate the cut at T gives, before T - 1 */
} qcompact_plan;

/* The plan for a rate: decodes every leaf of a body that qleaves_stats
** accepted into scratch (room for `cap` entries, at least the largest
** leaf's) and counts into hist (QCOMPACT_HISTOGRAM words).  A rate below
** the body's own estimate cuts nothing.  0, or -1 if a leaf does not fit
** cap or does not decode. */
int qcompact_plan_for(const unsigned char *body, size_t body_bytes,
                      uint64_t leaves, double rate, uint64_t *hist,
                      qleaf_entry *scratch, size_t cap, qcompact_plan *plan);

/* What qcompact_body writes: the leaves, and the body's bytes (directory
** and records). */
typedef struct qcompact_size {
  uint64_t leaves;
  size_t bytes;
} qcompact_size;

/* The compacted body of a body that qleaves_stats accepted, by plan.
** With out NULL it only measures into *size; then, with out of size->bytes
** and *size as that call left it, it writes.  scratch has room for `cap`
** entries, at least QCOMPACT_MOST_ENTRIES and the largest leaf's.  0, or
** -1 if a leaf does not fit cap or does not decode. */
int qcompact_body(const unsigned char *body, size_t body_bytes,
                  uint64_t leaves, const qcompact_plan *plan,
                  qleaf_entry *scratch, size_t cap, unsigned char *out,
                  qcompact_size *size);

#endif
