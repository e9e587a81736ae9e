/*
** Quotient leaves: the growing form of the quotient filter (kind 4,
** layout 1), where each leaf owns one aligned range of the hash space and
** splits in two when it fills.  Plain C: no SQLite header.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** An item's position is the 128-bit string P = h1 h2 (h1's top bit
** first).  A leaf at depth d is named by its node number 2^d + p: it owns
** the items whose P starts with the d bits of p.  An entry is the next b
** bits of P after them (its key), kept in the section of its leaf whose
** keys have b bits; a section is Elias-Fano coded (FORMAT.md, "Kind 4,
** layout 1").  Splitting a leaf turns each key's top bit into the child's
** address bit: the entries go to the child it names with b - 1 bits, so
** no item is needed and an entry's false-positive share, 2^-(d + b),
** never changes.  A key of no bit left matches its whole leaf, and goes
** to both children.
**
** Why sections: a store gives an entry written into a deep leaf more bits
** than one written long ago (each generation of leaves its share of the
** rate), and the keys of one Elias-Fano list share one width.
*/
#ifndef CORE_QUOTIENT_LEAF_H
#define CORE_QUOTIENT_LEAF_H

#include <stddef.h>
#include <stdint.h>

#include "core/bytes.h"
#include "core/hash.h"

/* A leaf's sections: one per key width, 0..64 bits. */
#define QLEAF_MAX_SECTIONS 65u
/* Entries in one section (12 bits of its header). */
#define QLEAF_MAX_SECTION_ENTRIES 4095u
/* Bucket bits of a section (5 bits of its header, at most 16 used). */
#define QLEAF_MAX_BUCKET_BITS 16u
/* The deepest leaf: node numbers stay below 2^63. */
#define QLEAF_MAX_DEPTH 62u
/* A section's header: c (12 bits), b (7 bits), m (5 bits). */
#define QLEAF_SECTION_HEADER_BYTES 3u

/* One entry: its key and how many bits it has. */
typedef struct qleaf_entry {
  uint64_t key;
  unsigned bits;
} qleaf_entry;

/* The depth of node number `node` (>= 1): floor(log2(node)). */
static inline unsigned qleaf_depth(uint64_t node) {
  return bits_top64(node);
}

/* The first h1 a node owns: its prefix followed by zeros. */
static inline uint64_t qleaf_start(uint64_t node) {
  unsigned d = qleaf_depth(node);
  return d == 0 ? 0 : (node - ((uint64_t)1 << d)) << (64 - d);
}

/* 1 if node owns h (its depth's first bits of h1 are its prefix). */
static inline int qleaf_owns(uint64_t node, filter_hash h) {
  unsigned d = qleaf_depth(node);
  return d == 0 || (h.h1 >> (64 - d)) == node - ((uint64_t)1 << d);
}

/* The node at depth d that owns h. */
static inline uint64_t qleaf_node_of(filter_hash h, unsigned d) {
  return ((uint64_t)1 << d) | (d == 0 ? 0 : h.h1 >> (64 - d));
}

/* Before a probe walks the record rec[0..len) of a leaf it found: asks
** for its lines (up to a page) and checks that its sections fill exactly
** its bytes: 0, or -1. */
int qleaf_ready(const unsigned char *rec, size_t len);

/* Bits d .. d + b - 1 of P = h1 h2 (b <= 64, d + b <= 128; 0 if b = 0). */
uint64_t qleaf_key(filter_hash h, unsigned depth, unsigned bits);

/* The length of the leaf record at rec[0..room): 0 with *len if its
** headers fit in room (sections and their sizes only; quick), -1 if not. */
int qleaf_length(const unsigned char *rec, size_t room, size_t *len);

/* The entries the record's section headers count (0 if they do not fit
** room): quick, no body read. */
uint64_t qleaf_entries(const unsigned char *rec, size_t room);

/* The widest key of the record: its first section's bits (0 if it has no
** section, or its first header does not fit room). */
unsigned qleaf_widest_bits(const unsigned char *rec, size_t room);

/* Checks the record rec[0..room) fully (qleaf_decode's checks) and counts
** its entries; 0 or -1 with the reason in err. */
int qleaf_check(const unsigned char *rec, size_t room, uint64_t *entries,
                char *err, size_t err_size);

/* Decodes the record into out (room for `cap` entries, sorted by bits
** descending then key ascending) and *count; -1 with the reason in err if
** it is damaged: sections out of order or of a width twice, a count of 0,
** fields out of range, a unary part without exactly c ones, bits after the
** last section's padding that are not 0 within room, more entries than
** cap. */
int qleaf_decode(const unsigned char *rec, size_t room, qleaf_entry *out,
                 size_t cap, size_t *count, char *err, size_t err_size);

/* The bytes qleaf_encode writes for entries (sorted as qleaf_decode gives
** them). */
size_t qleaf_encoded_bytes(const qleaf_entry *e, size_t count);

/* The bytes of one section of c keys of b bits, its header included. */
size_t qleaf_section_bytes(uint64_t c, unsigned b);

/* Writes the record of e[0..count) (sorted as qleaf_decode gives them) to
** dst, which has qleaf_encoded_bytes(e, count) bytes; returns that
** length.  A section of more than QLEAF_MAX_SECTION_ENTRIES entries cannot
** be written: the caller splits first. */
size_t qleaf_encode(const qleaf_entry *e, size_t count, unsigned char *dst);

/* Sorts entries as qleaf_decode gives them. */
void qleaf_sort(qleaf_entry *e, size_t count);

/* Inserts x into e[0..count) (sorted, with room for one more) in its
** place; returns count + 1. */
size_t qleaf_insert(qleaf_entry *e, size_t count, qleaf_entry x);

/* 1 if the leaf at depth d may hold h, 0 if it certainly does not, -1 if
** what the probe read is damaged.  Reads only rec[0..room). */
int qleaf_contains(const unsigned char *rec, size_t room, unsigned depth,
                   filter_hash h);

/* How many entries of the leaf match h, and in how many sections (a
** delete removes one only when they are all in one section). */
int qleaf_matches(const qleaf_entry *e, size_t count, unsigned depth,
                  filter_hash h, size_t *matches, unsigned *sections,
                  size_t *first);

/* The hashes a leaf's entries answer for, as intervals of x = the top 32
** of the 64 bits of a position after the leaf's depth (qleaf_key(h,
** depth, 32)): an entry of b <= 31 bits answers for [key * 2^(32-b), (key
** + 1) * 2^(32-b) - 1], an aligned interval of 2^s hashes (s = 32 - b, at
** least 1).  Two such intervals are nested or apart, so their union is n
** of them, disjoint; span[] (room for count; e is reordered) gets each as
** one word in ascending order, its first hash with bit s - 1 set (the
** lowest set bit tells s).  What a store keeps for a leaf probed often:
** a probe (qleaf_in_index) reads a word or two, where a walk of the record
** reads every section.  Returns n, or -1 if an entry has more than 31 bits
** (no index then). */
int64_t qleaf_index(qleaf_entry *e, size_t count, uint32_t *span);

/* The first and the last hash of an interval of the index. */
static inline uint32_t qleaf_span_first(uint32_t v) { return v & (v - 1); }
static inline uint32_t qleaf_span_last(uint32_t v) {
  return v | ((v & (0u - v)) - 1);
}

/* 1 if x (qleaf_key(h, depth, 32)) lies in an interval of the index.  The
** hashes are uniform, so the interval x needs lies near its rank, x * n /
** 2^32: the probe starts there and steps to it, reading one cache line
** or two, with no table to read first (each read would be a miss). */
static inline int qleaf_in_index(const uint32_t *span, uint32_t n,
                                 uint32_t x) {
  if (n == 0) return 0;
  uint32_t i = (uint32_t)(((uint64_t)x * n) >> 32); /* the first last >= x */
  if (qleaf_span_last(span[i]) < x) {
    do i++;
    while (i < n && qleaf_span_last(span[i]) < x);
  } else {
    while (i > 0 && qleaf_span_last(span[i - 1]) >= x) i--;
  }
  return i < n && qleaf_span_first(span[i]) <= x;
}

/* A guard: one bit for each stretch of the hash space, kept by a store
** beside its leaves' indexes.  A bit is clear only when its stretch lies
** in one leaf whose index holds no hash of it, so that a probe tests its
** bit before it reads anything else, and a clear bit answers "absent"
** exactly.  A leaf owns, in a guard of 2^R bits (R >= its depth d), the
** 2^r bits (r = R - d) from bit first = its first h1 >> (64 - R): bit
** first + j stands for the x (qleaf_key(h, d, 32)) with x >> (32 - r) = j.
** At about 8 bits an entry a guard is a quarter of the indexes' size, and
** about one bit in eight of a leaf's is set. */

/* The bits a leaf of n entries needs in a guard: the least r with 2^r >=
** 8 n, at least 6. */
unsigned qleaf_guard_bits(uint64_t n);
/* Sets the leaf's 2^r bits from first (a multiple of 2^r; r <= 32) as its
** index span[0..n) says: bit first + j if an interval holds an x with x
** >> (32 - r) = j, else clear. */
void qleaf_guard(const uint32_t *span, uint32_t n, unsigned r,
                 uint64_t *bits, uint64_t first);
/* Sets the 2^r bits from first (a multiple of 2^r): while a leaf has no
** index its stretch says nothing. */
void qleaf_guard_open(uint64_t *bits, uint64_t first, unsigned r);
static inline int qleaf_in_guard(const uint64_t *bits, uint64_t j) {
  return (int)(bits[j >> 6] >> (j & 63) & 1);
}

/* Splits e[0..count) (sorted) into the two children: the left child's
** entries into left (*nl), the right's into right (*nr), each sorted;
** left and right have room for count entries each. */
void qleaf_split(const qleaf_entry *e, size_t count, qleaf_entry *left,
                 size_t *nl, qleaf_entry *right, size_t *nr);

/* --- layout 1: a blob of leaves (FORMAT.md, "Kind 4, layout 1") -------
** The body is `leaves` directory entries of 16 bytes (the node, u64; the
** end of its record in the records area, u64), leaves in the order of
** the hash ranges they own, then the records area.  Reads are bounded by
** body_bytes; a damaged directory or record makes a probe answer -1. */
#define QLEAVES_ENTRY_BYTES 16u

/* The O(1) check filter_parse makes: the directory fits the body, and its
** last end is the records area's size.  0 or -1. */
int qleaves_check_header(const unsigned char *body, size_t body_bytes,
                         uint64_t leaves);

/* Leaf i's node, and its record rec[0..len) in the records area: 0, or -1
** if the node is 0 or deeper than QLEAF_MAX_DEPTH or the bounds do not lie
** within the area in order.  rec points into body. */
int qleaves_leaf(const unsigned char *body, size_t body_bytes,
                 uint64_t leaves, uint64_t i, uint64_t *node,
                 const unsigned char **rec, size_t *len);

/* The directory index of the leaf that owns h (when the directory is
** sound). */
int64_t qleaves_find(const unsigned char *body, size_t body_bytes,
                     uint64_t leaves, filter_hash h);

/* Leaf i (i < leaves) as a probe of h finds it, with the checks a probe
** makes before it reads the record (FORMAT.md, "Body"): its node, and
** its record rec[0..len) (pointing into body), which owns h and whose
** sections fill exactly its bytes.  0, or -1 if it is damaged. */
int qleaves_probed(const unsigned char *body, size_t body_bytes,
                   uint64_t leaves, uint64_t i, filter_hash h, uint64_t *node,
                   const unsigned char **rec, size_t *len);

/* The same for the leaf h needs, found by qleaves_find: its directory
** index too.  0, or -1 if the leaf or the directory on the way is
** damaged. */
int qleaves_locate(const unsigned char *body, size_t body_bytes,
                   uint64_t leaves, filter_hash h, uint64_t *index,
                   uint64_t *node, const unsigned char **rec, size_t *len);

/* 1, 0, or -1 if the leaf h needs (or the directory on the way) is
** damaged. */
int qleaves_contains(const unsigned char *body, size_t body_bytes,
                     uint64_t leaves, filter_hash h);

typedef struct qleaves_summary {
  uint64_t entries;
  unsigned min_depth, max_depth;
  double estimated_fpr; /* sum over entries of 2^-(depth + bits) */
} qleaves_summary;

/* One leaf, as qleaves_stats hands it to its visitor. */
typedef struct qleaf_info {
  uint64_t index, node;
  unsigned depth, sections, min_bits, max_bits; /* bits: 0 if empty */
  uint64_t entries, bytes;
  double estimated_fpr; /* its entries' 2^-(depth + bits), summed */
} qleaf_info;

/* Checks every directory entry (the leaves cover the hash space in order)
** and every record, handing each leaf to visit (if not NULL) in order; 0,
** or -1 with the reason in err. */
int qleaves_stats(const unsigned char *body, size_t body_bytes,
                  uint64_t leaves, qleaves_summary *sum,
                  void (*visit)(void *ctx, const qleaf_info *leaf), void *ctx,
                  char *err, size_t err_size);

#endif
