/*
** The cuckoo filter itself (Fan, Andersen, Kaminsky, Mitzenmacher, CoNEXT
** 2014): sizing, the bit-packed bucket array, insert with relocation,
** lookup, delete.  Plain C: no SQLite header.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Layouts (FORMAT.md, "Kind 2"): `buckets` buckets of 4 slots; slot j of
** the array (bucket j / 4) holds an f-bit fingerprint at body bits
** [j*f, (j+1)*f), least significant bit first; 0 is an empty slot.  An item
** with hash (h1, h2) has the fingerprint fp = 1 + floor(h2 * (2^f - 1) /
** 2^64) (never 0), and two buckets that depend on the layout:
**
**   layout 0 (XOR; buckets a power of two; what version 1.1.0 wrote):
**     i1 = h1 mod buckets,  i2 = i1 XOR d(fp),
**     d(fp) = 1 + floor(fmix64(fp) * (buckets - 1) / 2^64)  (0: one bucket)
**   layout 1 (SUB; buckets any even number):
**     i1 = floor(h1 * buckets / 2^64),  i2 = (c(fp) - i1) mod buckets,
**     c(fp) = 1 + 2 * floor(fmix64(fp) * (buckets / 2) / 2^64)  (odd)
**
** Either way i2 depends only on i1 and fp, and the same step maps i2 back
** to i1 (XOR with d undoes itself; c - (c - i1) = i1), so a stored
** fingerprint can be moved to its other bucket, or deleted, without the
** item.  In layout 1, c is odd and buckets even, so i2 != i1: every item
** has two buckets, and the table may be as large as its items need (no
** rounding to a power of two), with no division per item: a multiply-high
** and a conditional subtraction.  Two items with the same fingerprint that
** share one bucket share both: a probe's answer depends only on the
** multiset of (bucket pair, fingerprint) stored, not on which bucket of its
** pair each one sits in.
*/
#ifndef CORE_CUCKOO_H
#define CORE_CUCKOO_H

#include <stddef.h>
#include <stdint.h>

#include "core/format.h"
#include "core/hash.h"

/* Sizing: the fewest buckets that hold n at the sized load (see
** cuckoo_sized_items), then the narrowest fingerprint whose model rate at n
** items is at most margin * p.  95%: the first insert of random items
** failed at 95.9% to 98.5% of the slots in seeded fills of layout 1 from
** 1,000 to 25,000,000 buckets (FORMAT.md, "How this version places
** fingerprints and sizes filters"); an even bucket count with c(fp) odd
** matters: with c allowed even, 1 item in B has one bucket only, and the
** same fills failed at 50% to 89%. */
#define CUCKOO_MAX_LOAD 0.95
#define CUCKOO_SIZING_MARGIN 0.97

/* Swaps tried before an insert gives up (and is undone), each after a look
** one step ahead (cuckoo.c, walk), when a breadth-first search of up to
** four moves found no room.  Version 1.1.0's random walk reached 96.6% of
** 16M slots with 1000 (the paper's 500: 95.1%); searching and looking
** ahead, 97.4%.  The undo log is 8 KB on the stack. */
#define CUCKOO_MAX_KICKS 1000

typedef struct cuckoo_sizing {
  uint64_t capacity;         /* n */
  double target_fpr;         /* p */
  uint64_t buckets;          /* even (layout 1) */
  unsigned fingerprint_bits; /* f */
  unsigned layout;           /* CUCKOO_LAYOUT_SUB: what this version writes */
  uint64_t bytes;            /* blob size: header + body */
  double expected_fpr;       /* cuckoo_model_fpr at n items */
} cuckoo_sizing;

typedef enum {
  CUCKOO_SIZING_OK = 0,
  CUCKOO_SIZING_BAD_N,   /* n < 1 or above 2^63 - 1 */
  CUCKOO_SIZING_BAD_P,   /* p not in [min_fpr, 1) or NaN */
  CUCKOO_SIZING_TOO_BIG  /* the blob would exceed max_bytes */
} cuckoo_sizing_status;

/* The most items a sizing puts in `buckets` buckets (slots = 4 * buckets):
**   floor(slots * 0.95)                             with 1 or 2 buckets,
**   floor(slots * min(0.95, 1 - c / sqrt(slots)))   beyond,
** c = 2 in layout 0, 2.6 in layout 1.  Where the first insert fails varies
** more in a small filter (version 1.1.0, layout 0, over 20,000 random fills
** of 16 slots: 1 in 1000 fails by the 14th item, the worst at the 11th);
** the square-root term keeps a build of n distinct values from failing
** there.  Measured at each sizing's largest n: layout 0, at most 1 failure
** in 10^5 fills for 4..128 buckets, none in 10^4 for 256..4096; layout 1,
** whose pairs always join an even bucket to an odd one (half as many
** pairs), with c = 2 up to 5 failures in 2 * 10^5 fills (10 buckets), with
** c = 2.6 at most 1 for every even count 2..64 and none in 2 * 10^4 for
** 66..1500 (every 14th).  95% from 1600 slots on (layout 0), 2704 (1). */
uint64_t cuckoo_sized_items(uint64_t buckets, unsigned layout);

/* Sizes a filter for n items at rate p in layout 1 (CUCKOO_LAYOUT_SUB):
** the fewest buckets, an even number, with n <= cuckoo_sized_items; min_fpr
** is the smallest p accepted (the SQL layer passes FILTER_MIN_FPR, as for
** Bloom). */
cuckoo_sizing_status cuckoo_sizing_for(uint64_t n, double p, double min_fpr,
                                   uint64_t max_bytes, cuckoo_sizing *sizing);

/* The same in a given layout: CUCKOO_LAYOUT_XOR sizes as version 1.1.0 did
** (the fewest buckets that are a power of two), for comparisons. */
cuckoo_sizing_status cuckoo_sizing_for_layout(uint64_t n, double p,
                                              double min_fpr,
                                              uint64_t max_bytes,
                                              unsigned layout,
                                              cuckoo_sizing *sizing);

/* Sizes a filter that takes items until an insert is refused (a scalable
** store's layer) in the given layout (layout 0: the fewest buckets that are
** a power of two; a store that began in layout 0 keeps it for its new
** layers): the buckets cuckoo_sizing_for gives for n, capacity
** raised to cuckoo_sized_items(buckets), and f the narrowest whose rate with
** every slot full (load 1) is within p.  However full such a filter gets,
** its model rate stays within p; expected_fpr is that rate at load 1. */
cuckoo_sizing_status cuckoo_sizing_filled_for(uint64_t n, double p,
                                              double min_fpr, uint64_t max_bytes,
                                              unsigned layout,
                                              cuckoo_sizing *sizing);

/* The false-positive rate at `load` (items / slots): a probe compares its
** fingerprint with the occupied slots of its two buckets, 8 * load on
** average (4 * load with one bucket), each equal with chance 1/(2^f - 1):
**   1 - (1 - 1/(2^f - 1))^(8 * load)
** By Jensen's inequality this is an upper bound on the mean rate. */
double cuckoo_model_fpr(double load, unsigned f, uint64_t buckets);

/* Body bytes for a valid shape: ceil(buckets * 4 * f / 8).  The caller
** keeps buckets / 2 * f within 64 bits. */
uint64_t cuckoo_body_bytes(uint64_t buckets, unsigned f);

/* Header of a new empty filter for a sizing (seed 0, items 0). */
filter_header cuckoo_header_for(const cuckoo_sizing *sizing);

/* Writes a complete empty filter (sizing->bytes bytes) into dst. */
void cuckoo_write_empty(unsigned char *dst, const cuckoo_sizing *sizing);

/* What placing an item needs of a filter: its buckets, fingerprint width
** and layout. */
typedef struct cuckoo_shape {
  uint64_t buckets;
  unsigned f;
  unsigned layout; /* CUCKOO_LAYOUT_XOR or CUCKOO_LAYOUT_SUB */
} cuckoo_shape;

static inline cuckoo_shape cuckoo_shape_of(const filter_header *h) {
  cuckoo_shape s = {h->buckets, h->fingerprint_bits, h->cuckoo_layout};
  return s;
}

static inline cuckoo_shape cuckoo_shape_of_sizing(const cuckoo_sizing *z) {
  cuckoo_shape s = {z->buckets, z->fingerprint_bits, z->layout};
  return s;
}

/* Where an item lives: its first bucket and its fingerprint. */
typedef struct cuckoo_key {
  uint64_t bucket;
  uint64_t fingerprint;
} cuckoo_key;

cuckoo_key cuckoo_key_of(filter_hash h, cuckoo_shape s);
/* The other bucket of a fingerprint stored in `bucket`. */
uint64_t cuckoo_alt_bucket(uint64_t bucket, uint64_t fp, cuckoo_shape s);

/* Slot j of the array (j < buckets * 4): read and write in place. */
uint64_t cuckoo_slot_get(const unsigned char *body, uint64_t slot, unsigned f);
void cuckoo_slot_set(unsigned char *body, uint64_t slot, unsigned f,
                     uint64_t fp);

typedef enum {
  CUCKOO_OK = 0,
  CUCKOO_FULL,            /* no room within CUCKOO_MAX_KICKS relocations */
  CUCKOO_TOO_MANY_COPIES, /* both buckets already hold only this fingerprint */
  CUCKOO_UNREACHABLE      /* a cuckoo_buckets' locate failed */
} cuckoo_status;

/* cuckoo_buckets: the bucket array seen through an accessor rather than as
** one contiguous body, so that it may be cut into separately stored pieces
** (a store's chunk rows) across which relocations move fingerprints.
**
** locate(ctx, bucket, for_write, &first) returns the bytes holding the
** bucket, with *first set to the index of its first slot in those bytes
** (for cuckoo_slot_get/set), or NULL when the bucket cannot be reached;
** the operation then stops and undoes every change it made.  for_write is
** 1 just before one of the bucket's slots is set, so that the owner knows
** which pieces really change.  A bucket located once during an operation
** must be located again without failing (the undo relies on it). */
typedef struct cuckoo_buckets {
  unsigned char *(*locate)(void *ctx, uint64_t bucket, int for_write,
                           uint64_t *first_slot);
  void *ctx;
  cuckoo_shape shape;
} cuckoo_buckets;

/* cuckoo_insert through the accessor: the same walk, the same bytes; on any
** status but CUCKOO_OK every bucket is as it was. */
cuckoo_status cuckoo_buckets_insert(const cuckoo_buckets *bk, filter_hash h);
/* 1 if the item's fingerprint is in one of its buckets, 0 if not, -1 when
** a bucket cannot be reached. */
int cuckoo_buckets_contains(const cuckoo_buckets *bk, filter_hash h);
/* cuckoo_remove through the accessor: 1 removed, 0 absent, -1 unreachable
** (nothing changed). */
int cuckoo_buckets_remove(const cuckoo_buckets *bk, filter_hash h);

/* Adds one copy of the item.  On any status but CUCKOO_OK the body is left
** exactly as it was: every relocation is undone. */
cuckoo_status cuckoo_insert(unsigned char *body, cuckoo_shape s,
                            filter_hash h);
/* 1 if the item's fingerprint is in one of its buckets, else 0. */
int cuckoo_contains(const unsigned char *body, cuckoo_shape s,
                    filter_hash h);
/* Removes one copy of the item's fingerprint from its buckets: 1 if one
** was removed, 0 (body untouched) if none was there.  Only items that were
** added may be removed: removing a false positive removes the fingerprint
** of another item, which then tests 0. */
int cuckoo_remove(unsigned char *body, cuckoo_shape s, filter_hash h);

/* Why an insert failed, as one line into out[0..size): the words both
** cuckoo_add and cuckoo_store use.  items is the count stored, or
** UINT64_MAX when the caller does not know it. */
void cuckoo_insert_failure(cuckoo_status st, uint64_t buckets, uint64_t items,
                           char *out, size_t size);

/* The most copies of one item a filter holds: 8, or 4 with one bucket
** (layout 0 only: layout 1 has at least two, and every item two). */
unsigned cuckoo_max_copies(uint64_t buckets);

#endif
