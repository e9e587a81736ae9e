/*
** quotient_store's kind (store.h, store_kind) and its schedule, split: a
** store of leaves (core/quotient_leaf.h) that each own one range of the
** hash space, one chunk row each, found through the directory
** (directory.c).  A leaf that fills halves into two chunk rows, its keys'
** top bits becoming the children's address bit, so the store grows one
** leaf at a time, with no rebuild and no capacity to guess, and a probe
** reads one chunk at any size (ext/FORMAT.md, "Stores").
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** The rate: an entry written into a leaf at depth d with b bits answers
** for a random absent value with probability 2^-(d + b), whatever splits
** it lives through.  The entries written at depth base + g (the g-th
** generation) number at most W_g per leaf of that depth on average, so
** b = ceil(log2(W_g / fpr) + t_g) bits hold their share of the rate under
** fpr * 2^-t_g, and the shares sum below 1:
**   - grown from one leaf (no capacity): W_g = (items + 1) / 2, 2^-t_g =
**     2^-5 for g < 24, then 2^-(7 + g - 24); the first leaf, which holds
**     up to twice W_0, takes 2^-4: 0.80 in all, less what the ceiling of
**     b leaves unspent (up to a bit an entry).  The leaves of depth 1 and
**     more whose range starts below narrow_below spend it, a bit fewer
**     each, as far as the sum stays under 1 (narrow_below_most);
**   - sized (2^base leaves made at CREATE, each for at most FIRST_FILL of
**     a leaf's items): W_0 = m + 3 sqrt(m), m = capacity / 2^base, with
**     15/16 of the rate (first_share: the width is sized for m at 15/16 /
**     (1 + 3 / sqrt(m))), then W_g = (items + 1) / 2 with 2^-(g + 4) (at
**     most 1/16): 1 in all, past the capacity too.  The first K leaves
**     (narrow_leaves) take one bit fewer: the ceiling of b leaves room
**     for them, and without them the entries of a sized store would
**     spend up to a bit each more than their share asks.
** A leaf also splits when more than W_g of its entries have its own
** depth's width (fresh_limit), so that deletes, inserts and inserts past
** a capacity cannot put more of one generation in a leaf than W_g.
** The widths of one generation and of the entries it inherits never
** coincide (they differ by one past the first, by more at the first), but
** in a narrow leaf of depth 1: it counts the first leaf's entries as its
** own, and splits sooner.  Deeper, a narrow leaf's parent is narrow.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/bytes.h"
#include "core/quotient_leaf.h"
#include "functions/leaf_indexes.h"
#include "store/store.h"

enum { KEY_LEAF_ITEMS, KEY_LEAF_BYTES, KEY_BASE_DEPTH, KEY_SIZED,
       KEY_RESERVE, KEY_NARROW, KEY_BY_RANGE, KEY_NARROW_BELOW };

/* A leaf splits past this many entries: a chunk row of about a kilobyte
** at 1%, several to a page. */
#define DEFAULT_LEAF_ITEMS 511
/* A store's leaves are at most 2^40 deep from the start (what a reader
** accepts); this version makes at most 2^22 at CREATE (a directory of
** 4 million rows, 128 MB in memory): larger capacities grow instead. */
#define MAX_BASE_DEPTH 40
#define MAX_MADE_DEPTH 22
/* A layer's chunk ids: any a leaf may take. */
#define LAYER_UNITS ((uint64_t)1 << 62)
/* How full a sized store's leaf is at capacity on average, against the
** items a leaf holds (a leaf's own limit at capacity, m + 3 sqrt(m), is
** fresh_limit's, met by about one leaf in 700). */
#define FIRST_FILL 0.85

/* A leaf probed more than once, and not being written, gets an index
** (qleaf_index): its entries as the intervals of hashes they answer for,
** 4 bytes each, so that a probe reads one interval or two where a walk of
** the record reads every section.  Each leaf keeps its own in its
** directory entry (directory_leaf), so that no leaf's index ever takes
** another's place (were two to share one, random probes would make and
** drop indexes without end), and a probe reads the entry and then the
** index.  Before either, it tests the directory's guard: a bit for each
** stretch of the hashes, about 8 an entry, clear where a leaf's index
** holds none of them (directory_may_hold).  An absent value's probe then
** reads one word from a quarter of the memory the indexes take, and the
** directory and an index only when its bit is set, where every probe read
** both.  The indexes hold while the chunk cache has not been emptied
** since they were made (a rollback, another connection's commit: then
** they all go) and their leaf has not been written (add and remove drop
** it) or split.
** They take at most LEAF_INDEX_BUDGET, as the chunk cache takes at most
** its own, and none that would take SQLite's memory past a soft heap
** limit (sqlite3_soft_heap_limit64) the host set.  Past either, an index
** made is not kept, but still sets its leaf's stretch of the guard, which
** holds as long as the index would have: most probes still read one bit,
** and those it passes walk the record. */

/* What a quotient store keeps between calls (s->kind_state): the
** directory with the leaves' indexes, and room to decode one leaf. */
typedef struct quotient_state {
  store_directory dir;
  qleaf_entry *entries;
  size_t room;
  uint64_t index_clears; /* chunks_cache_clears when the indexes were made */
} quotient_state;

static quotient_state *state_of(const store *s) { return s->kind_state; }

/* The first h1 a leaf owns, over 4: a whole number below 2^62 (leaves are
** at most 62 deep), by which a growing store orders its rows (row_id) and
** tells its narrow leaves (entry_bits). */
static int64_t range_id(uint64_t node) {
  return (int64_t)(qleaf_start(node) >> 2);
}

static unsigned leaf_items(const store_layer *l) {
  return (unsigned)l->kind_values[KEY_LEAF_ITEMS];
}
static int leaf_bytes(const store_layer *l) {
  return (int)l->kind_values[KEY_LEAF_BYTES];
}
static unsigned base_depth(const store_layer *l) {
  return (unsigned)l->kind_values[KEY_BASE_DEPTH];
}

static int open_state(store *s) {
  quotient_state *q = sqlite3_malloc(sizeof *q);
  if (q == NULL) return SQLITE_NOMEM;
  memset(q, 0, sizeof *q);
  s->kind_state = q;
  return SQLITE_OK;
}

static void close_state(store *s) {
  quotient_state *q = state_of(s);
  if (q == NULL) return;
  directory_forget(&q->dir);
  sqlite3_free(q->entries);
  sqlite3_free(q);
  s->kind_state = NULL;
}

/* A rollback may have undone a split. */
static void rollback(store *s) { directory_forget(&state_of(s)->dir); }

/* --- the width of an entry ---------------------------------------------- */

/* A sized store's first generation: the share of the rate it takes, and
** the most entries of its width a leaf holds before it splits, W_0, with
** m items a leaf at capacity: its mean plus 3 standard deviations (at
** capacity about one leaf in 700 splits; past it, the leaves split instead
** of crowding). */
#define FIRST_SHARE 0.9375
static double first_limit(double m) { return m + 3 * sqrt(m); }

/* The items a leaf of a sized store's first generation holds at capacity,
** with 2^base leaves. */
static double first_mean(uint64_t capacity, unsigned base) {
  return (double)capacity / ldexp(1.0, (int)base);
}

/* The share of the rate a sized store's first generation sizes its keys
** for, as a share of m: FIRST_SHARE over W_0 / m, written as 1.4.0 wrote
** it (a store's widths must not move by a rounding). */
static double first_share(double m) { return FIRST_SHARE / (1 + 3 / sqrt(m)); }

/* log2(items / fpr) + share_bits: the real width whose share the entries
** of a generation may take. */
static double real_width(double items, double fpr, double share_bits) {
  return log2(items) - log2(fpr) + share_bits;
}

/* Within 1 .. 64 and the 128 - depth bits a position has past the
** leaf's. */
static unsigned clamp_width(double b, unsigned depth) {
  unsigned most = 128 - depth < 64 ? 128 - depth : 64;
  if (!(b >= 1)) return 1;
  return b > most ? most : (unsigned)b;
}

/* The whole bits whose share the entries of a generation may take, at
** most `items` of them a leaf at this depth. */
static unsigned generation_bits(double items, double fpr, double share_bits,
                                unsigned depth) {
  return clamp_width(ceil(real_width(items, fpr, share_bits)), depth);
}

/* The width of a sized store's first generation, m items a leaf at
** capacity, 2^base leaves (the narrow ones take one bit fewer). */
static unsigned first_bits(double m, double fpr, unsigned base) {
  return generation_bits(m, fpr, -log2(first_share(m)), base);
}

/* How many of a sized store's 2^base first leaves, the first in range
** order, may take b - 1 bits (b = first_bits): the most that keeps W_0 =
** m + 3 sqrt(m) entries in each leaf within 15/16 of fpr, W_0 (2^base +
** K) 2^-(base + b) <= 15/16 fpr.  0 when b has a bit to spare for none
** (or none to give: b = 1). */
static uint64_t narrow_most(double m, double fpr, unsigned base, unsigned b) {
  if (b < 2 || base > MAX_BASE_DEPTH) return 0;
  double leaves = ldexp(1.0, (int)base), limit = first_limit(m);
  double bound = ldexp(FIRST_SHARE * fpr, (int)(base + b));
  double room = bound / limit - leaves;
  if (!(room >= 1)) return 0;
  uint64_t k = room >= leaves ? (uint64_t)leaves - 1 : (uint64_t)floor(room);
  /* the rounding of the line above, undone */
  while (k > 0 && limit * (leaves + (double)k) > bound) k--;
  return k;
}

/* narrow_below, the most a growing store may take: the share f of the hash
** space (narrow_below / 2^62) whose leaves of depth >= 1 may write one bit
** fewer.  With s = W 2^-b (b generation g < 24's width, W = (items + 1)
** / 2 entries a leaf at 2^-5 of the rate) and r = fpr / s, the first
** leaf takes 2 s, depth g of 1 .. 23 at most s (1 + f + 2^-g) (its
** narrow leaves are ceil(f 2^g) at most, each of W entries of twice the
** share), and the depths past 23 at most fpr (1 + f) / 64 <= fpr / 32:
** s (26 + 23 f) + fpr / 32 <= fpr when f <= (r 31/32 - 26) / 23.  f is
** rounded down to a multiple of 2^-20, so that a reader's own rounding
** of the same formula does not refuse it. */
#define NARROW_ALL ((int64_t)1 << 62)
static int64_t narrow_below_most(unsigned items, double fpr) {
  double w = ((double)items + 1) / 2;
  unsigned b = generation_bits(w, fpr, 5.0, 1);
  if (b < 2) return 0;
  double f = (ldexp(fpr, (int)b) / w * (31.0 / 32) - 26) / 23;
  if (!(f > 0)) return 0;
  if (f >= 1) return NARROW_ALL;
  return (int64_t)floor(ldexp(f, 20)) << 42;
}

/* The bits of an entry written into the leaf `node` (the file's head
** says why). */
static unsigned entry_bits(const store_layer *l, uint64_t node) {
  double items = (double)leaf_items(l) + 1;
  unsigned depth = qleaf_depth(node), g = depth - base_depth(l);
  double fpr = l->header.target_fpr;
  if (l->kind_values[KEY_SIZED] && g == 0) {
    unsigned b = first_bits(first_mean(l->header.capacity, depth), fpr, depth);
    uint64_t p = node - ((uint64_t)1 << depth);
    return b > 1 && p < (uint64_t)l->kind_values[KEY_NARROW] ? b - 1 : b;
  }
  double share_bits = l->kind_values[KEY_SIZED] ? g + 4.0
                      : g < 24 ? 5.0 : 7.0 + (g - 24);
  unsigned b = generation_bits(items / 2, fpr, share_bits, depth);
  /* narrow_below is 0 in a sized store (quotient_kind_configure) */
  int narrow = depth >= 1 &&
               range_id(node) < l->kind_values[KEY_NARROW_BELOW];
  return b > 1 && narrow ? b - 1 : b;
}

/* How many entries of its own depth's width a leaf may hold before it
** splits: what W_g assumes (the file's head).  A sized store's first
** generation: W_0 (first_limit).  A grown store's first leaf: no bound
** but its size. */
static size_t fresh_limit(const store_layer *l, unsigned depth) {
  unsigned g = depth - base_depth(l);
  if (g > 0) return ((size_t)leaf_items(l) + 1) / 2;
  if (!l->kind_values[KEY_SIZED]) return SIZE_MAX;
  return (size_t)floor(first_limit(first_mean(l->header.capacity, depth)));
}

/* --- the shape ---------------------------------------------------------- */

/* The length of the rows a sized store makes at CREATE for leaves whose
** keys have b bits: a leaf's record at capacity, one standard deviation
** above the mean m, within bytes. */
static size_t row_reserve(double m, unsigned b, int bytes) {
  size_t reserve = 1 + qleaf_section_bytes((uint64_t)ceil(m + sqrt(m)), b);
  return reserve > (size_t)bytes ? (size_t)bytes : reserve;
}

static int quotient_kind_size(store *s, int fills, uint64_t *capacity,
                              double fpr, int page_size,
                              sqlite3_int64 values[]) {
  /* A row of a leaf fits one page with room for its cell's header. */
  int bytes = page_size - 96;
  unsigned items = (unsigned)(bytes / 6) < DEFAULT_LEAF_ITEMS
                       ? (unsigned)(bytes / 6)
                       : DEFAULT_LEAF_ITEMS;
  unsigned base = 0;
  if (!fills) {
    while (base < MAX_MADE_DEPTH &&
           first_mean(*capacity, base) > FIRST_FILL * items)
      base++;
    if (first_mean(*capacity, base) > FIRST_FILL * items)
      return store_error(s, "a capacity of %llu is more than this version "
                         "makes leaves for at once (%.0f): leave capacity "
                         "out, and the store grows to any size",
                         (unsigned long long)*capacity,
                         floor(FIRST_FILL * items * ldexp(1.0, MAX_MADE_DEPTH)));
  }
  /* A sized store's rows are made at CREATE, in order, at row_reserve's
  ** length: the pages are laid out once, full, and each page's rows then
  ** grow and shrink within the room they share (a row is its record
  ** only). */
  size_t reserve = 0;
  uint64_t narrow = 0;
  if (!fills) {
    double mean = first_mean(*capacity, base);
    unsigned b = first_bits(mean, fpr, base);
    reserve = row_reserve(mean, b, bytes);
    narrow = narrow_most(mean, fpr, base, b);
  }
  values[KEY_LEAF_ITEMS] = items;
  values[KEY_LEAF_BYTES] = bytes;
  values[KEY_BASE_DEPTH] = base;
  values[KEY_SIZED] = !fills;
  values[KEY_RESERVE] = (sqlite3_int64)reserve;
  values[KEY_NARROW] = (sqlite3_int64)narrow;
  /* A growing store's rows in range order (row_id).  A sized store's
  ** leaves seldom split, and its rows, made at CREATE in order, stay at
  ** their chunk numbers: an id in range order takes a 9-byte varint in
  ** each cell where a chunk number takes 1 to 4, enough to put one row
  ** fewer on some of its pages. */
  values[KEY_BY_RANGE] = fills;
  values[KEY_NARROW_BELOW] = fills ? narrow_below_most(items, fpr) : 0;
  return SQLITE_OK;
}

static int quotient_kind_configure(store_layer *l,
                                   const sqlite3_int64 values[]) {
  if (values[KEY_LEAF_ITEMS] < 1 ||
      values[KEY_LEAF_ITEMS] > QLEAF_MAX_SECTION_ENTRIES - 1 ||
      values[KEY_LEAF_BYTES] < 64 || values[KEY_LEAF_BYTES] > 65536 ||
      values[KEY_BASE_DEPTH] < 0 || values[KEY_BASE_DEPTH] > MAX_BASE_DEPTH ||
      (values[KEY_SIZED] != 0 && values[KEY_SIZED] != 1) ||
      values[KEY_RESERVE] < 0 || values[KEY_RESERVE] > values[KEY_LEAF_BYTES] ||
      (values[KEY_BY_RANGE] != 0 && values[KEY_BY_RANGE] != 1))
    return SQLITE_CORRUPT_VTAB;
  /* A growing store's narrow leaves: at most a share that keeps the
  ** rate. */
  if (values[KEY_NARROW_BELOW] != 0 &&
      (values[KEY_SIZED] != 0 || values[KEY_NARROW_BELOW] < 0 ||
       values[KEY_NARROW_BELOW] >
           narrow_below_most((unsigned)values[KEY_LEAF_ITEMS],
                             l->header.target_fpr)))
    return SQLITE_CORRUPT_VTAB;
  /* Narrow leaves: at most as many as keep the rate (a sized store's). */
  if (values[KEY_NARROW] != 0) {
    unsigned base = (unsigned)values[KEY_BASE_DEPTH];
    double m = first_mean(l->header.capacity, base);
    if (values[KEY_SIZED] != 1 || values[KEY_NARROW] < 0 ||
        (uint64_t)values[KEY_NARROW] >
            narrow_most(m, l->header.target_fpr, base,
                        first_bits(m, l->header.target_fpr, base)))
      return SQLITE_CORRUPT_VTAB;
  }
  memcpy(l->kind_values, values, sizeof l->kind_values);
  l->units = LAYER_UNITS;
  l->chunk_units = 1;
  l->header.block_bytes = 0;
  return SQLITE_OK;
}

static uint64_t unit_bits(const store_layer *l) {
  return 8 * (uint64_t)leaf_bytes(l);
}

static uint64_t chunk_items(const store_layer *l, int64_t local,
                            const unsigned char *bytes) {
  (void)local;
  return bytes ? qleaf_entries(bytes, (size_t)leaf_bytes(l)) : 0;
}

/* Only a windowed store asks (quotient stores have no window). */
static double model_fpr(const store_layer *l, double items) {
  (void)items;
  return l->header.target_fpr;
}

/* A row holds the leaf's record, and zeros to half the reserve: a page of
** rows made at CREATE never falls under a third full, where SQLite would
** move its rows to other pages, undoing the layout. */
static int row_bytes(const store_layer *l, const unsigned char *bytes,
                     int size) {
  size_t len;
  if (qleaf_length(bytes, (size_t)size, &len) != 0) return size;
  size_t least = (size_t)l->kind_values[KEY_RESERVE] / 2;
  if (len < least) len = least;
  return len < 1 ? 1 : (int)len;
}

/* The record's sections end within the row. */
static int row_holds(const store_layer *l, const unsigned char *bytes,
                     int len) {
  (void)l;
  size_t used;
  return qleaf_length(bytes, (size_t)len, &used) == 0;
}

/* --- a leaf ------------------------------------------------------------- */

static int leaf_damaged(store *s, int64_t chunk, const char *why) {
  return store_corrupt(s, "chunk %lld of %s is damaged (%s): the store is "
                       "damaged", (long long)chunk, s->tables.name, why);
}

/* The directory, read if need be. */
static int directory_of(store *s, const store_layer *l,
                        store_directory **out) {
  quotient_state *q = state_of(s);
  *out = &q->dir;
  if (q->dir.leaves > 0) return SQLITE_OK; /* loaded: a probe goes on */
  /* a growing store's leaf holds E / 2 to E entries between splits */
  return directory_load(s, &q->dir, base_depth(l),
                        qleaf_guard_bits(leaf_items(l) / 2));
}

/* Where a leaf's row lies.  Sized stores, and stores made before
** rows_by_range, keep chunk i at id i, so a split's right half is
** appended after every other row while its left half stays, half as
** long, among rows that do not split with it: those pages lose half their
** bytes at each round of splits and refill only as the leaves grow back.
** A row at the first h1 its leaf owns, over 4 (a whole number: leaves are
** at most 62 deep), keeps the rows in the order of their ranges, a
** split's halves side by side on the page that held the leaf, and its
** bytes where they were. */
static int row_id(store *s, const store_layer *l, int64_t chunk,
                  int64_t *row) {
  *row = chunk;
  if (!l->kind_values[KEY_BY_RANGE]) return SQLITE_OK;
  store_directory *d;
  int rc = directory_of(s, l, &d);
  if (rc != SQLITE_OK) return rc;
  if (chunk < 0 || chunk >= d->leaves)
    return store_corrupt(s, "chunk %lld of %s is no leaf of its directory: "
                         "the store is damaged", (long long)chunk,
                         s->tables.name);
  *row = range_id(d->node_of[chunk]);
  return SQLITE_OK;
}

/* The leaf that owns h (valid as directory_find says), the directory
** read if need be. */
static int leaf_of(store *s, const store_layer *l, filter_hash h,
                   directory_leaf **leaf) {
  store_directory *d;
  int rc = directory_of(s, l, &d);
  *leaf = rc == SQLITE_OK ? directory_find(d, h) : NULL;
  return rc;
}

/* Room in the state's entries for a leaf and one more. */
static int read_leaf_room(store *s, const store_layer *l) {
  quotient_state *q = state_of(s);
  size_t need = (size_t)leaf_items(l) + 2;
  if (q->room < need) {
    qleaf_entry *e = sqlite3_realloc64(q->entries, need * sizeof *e);
    if (e == NULL) return SQLITE_NOMEM;
    q->entries = e;
    q->room = need;
  }
  return SQLITE_OK;
}

/* Decodes chunk's bytes into the state's entries (room for one more). */
static int read_leaf(store *s, const store_layer *l, int64_t chunk,
                     const unsigned char *bytes, size_t *count) {
  quotient_state *q = state_of(s);
  size_t need = (size_t)leaf_items(l) + 2;
  int rc = read_leaf_room(s, l);
  if (rc != SQLITE_OK) return rc;
  char why[120];
  if (qleaf_decode(bytes, (size_t)leaf_bytes(l), q->entries, need - 1, count,
                   why, sizeof why) != 0)
    return leaf_damaged(s, chunk, why);
  return SQLITE_OK;
}

/* 1 if the leaf `node` of these entries must split. */
static int must_split(const store_layer *l, const qleaf_entry *e,
                      size_t count, uint64_t node) {
  if (count > leaf_items(l) ||
      qleaf_encoded_bytes(e, count) > (size_t)leaf_bytes(l))
    return 1;
  size_t limit = fresh_limit(l, qleaf_depth(node));
  if (limit >= count) return 0;
  unsigned own = entry_bits(l, node);
  size_t fresh = 0;
  for (size_t i = 0; i < count; i++) fresh += e[i].bits == own;
  return fresh > limit;
}

/* Writes e[0..count) as the leaf `node` of chunk into bytes (its cached
** copy, marked changed), halving it first as often as it must. */
static int put_leaf(store *s, const store_layer *l, int64_t chunk,
                    uint64_t node, const qleaf_entry *e, size_t count,
                    unsigned char *bytes) {
  unsigned depth = qleaf_depth(node);
  if (!must_split(l, e, count, node)) {
    size_t len = qleaf_encode(e, count, bytes);
    memset(bytes + len, 0, (size_t)leaf_bytes(l) - len);
    return SQLITE_OK;
  }
  if (depth >= QLEAF_MAX_DEPTH)
    return store_error(s, "a leaf of %s at depth %u is full: a value added "
                       "more than %u times (the most copies a leaf holds), "
                       "or values whose hashes agree beyond chance",
                       s->tables.name, depth, leaf_items(l));
  qleaf_entry *left = sqlite3_malloc64(2 * count * sizeof *left);
  if (left == NULL) return SQLITE_NOMEM;
  qleaf_entry *right = left + count;
  size_t nl, nr;
  qleaf_split(e, count, left, &nl, right, &nr);
  store_directory *d;
  int64_t fresh;
  unsigned char *fresh_bytes;
  int rc = directory_of(s, l, &d);
  if (rc == SQLITE_OK) rc = directory_split(s, d, chunk, &fresh);
  if (rc == SQLITE_OK) rc = chunk_load(s, l, fresh, 1, &fresh_bytes);
  if (rc == SQLITE_OK) rc = put_leaf(s, l, chunk, 2 * node, left, nl, bytes);
  if (rc == SQLITE_OK)
    rc = put_leaf(s, l, fresh, 2 * node + 1, right, nr, fresh_bytes);
  sqlite3_free(left);
  /* A split half made is undone by the statement's rollback: the
  ** directory is read again then. */
  if (rc != SQLITE_OK) directory_forget(&state_of(s)->dir);
  return rc;
}

/* --- the items ---------------------------------------------------------- */

static int quotient_kind_add(store *s, const store_layer *l, filter_hash h,
                             int *full) {
  *full = 0;
  directory_leaf *leaf;
  int rc = leaf_of(s, l, h, &leaf);
  if (rc != SQLITE_OK) return rc;
  int64_t chunk = leaf->chunk;
  unsigned depth = qleaf_depth(leaf->node);
  unsigned char *bytes;
  size_t count;
  rc = chunk_load(s, l, chunk, 1, &bytes);
  if (rc == SQLITE_OK) rc = read_leaf(s, l, chunk, bytes, &count);
  if (rc != SQLITE_OK) return rc;
  quotient_state *q = state_of(s);
  uint64_t node = qleaf_node_of(h, depth);
  unsigned b = entry_bits(l, node);
  count = qleaf_insert(q->entries, count,
                       (qleaf_entry){qleaf_key(h, depth, b), b});
  /* Its index is no longer true; a split's halves start without one. */
  directory_drop_index(&q->dir, leaf);
  return put_leaf(s, l, chunk, node, q->entries, count, bytes);
}

/* Makes leaf's index from its record (already checked by the probe that
** read it), or only its stretch of the guard past the budget; nothing if
** memory is out or a key is wider than an index holds. */
static void index_make(store *s, const store_layer *l, directory_leaf *leaf,
                       const unsigned char *rec, size_t len) {
  quotient_state *q = state_of(s);
  uint32_t *span, n;
  if (read_leaf_room(s, l) != SQLITE_OK ||
      leaf_index_of(rec, len, q->entries, q->room - 1, &span, &n) != 0)
    return;
  if (!leaf_index_fits(q->dir.index_bytes, (size_t)n * sizeof *span)) {
    directory_set_guard(&q->dir, leaf, span, n);
    sqlite3_free(span);
    return;
  }
  directory_set_index(&q->dir, leaf, span, n);
}

static int quotient_kind_contains(store *s, const store_layer *l,
                                  filter_hash h, int *maybe) {
  *maybe = 0;
  quotient_state *q = state_of(s);
  store_directory *d;
  int rc = directory_of(s, l, &d);
  if (rc != SQLITE_OK) return rc;
  uint64_t clears = chunks_cache_clears(s);
  if (clears != q->index_clears) { /* the records may have changed */
    directory_drop_indexes(d);
    q->index_clears = clears;
  }
  if (!directory_may_hold(d, h)) return SQLITE_OK;
  directory_leaf *leaf = directory_find(d, h);
  unsigned depth = qleaf_depth(leaf->node);
  if (leaf->span) {
    *maybe = qleaf_in_index(leaf->span, leaf->count,
                            (uint32_t)qleaf_key(h, depth, 32));
    return SQLITE_OK;
  }
  chunk_ref ref;
  int64_t chunk = leaf->chunk;
  rc = chunk_read(s, l, chunk, &ref);
  if (rc != SQLITE_OK || ref.bytes == NULL) return rc; /* no row: empty */
  int r = qleaf_contains(ref.bytes, (size_t)ref.len, depth, h);
  /* The second probe of a leaf makes its index, unless the leaf is being
  ** written (changed in the cache, not yet in its row): then the next
  ** write would drop it at once, as under INSERT OR IGNORE, where each
  ** insert probes first.  A leaf guarded past the budget is not made
  ** again: it would not be kept either. */
  if (r >= 0 && !leaf->guarded) {
    if (leaf->probes < 2) leaf->probes++;
    if (leaf->probes == 2 && !ref.changed)
      index_make(s, l, leaf, ref.bytes, (size_t)ref.len);
  }
  chunk_done(&ref);
  if (r < 0) return leaf_damaged(s, chunk, "its record");
  *maybe = r;
  return SQLITE_OK;
}

/* One entry that answers for h, when every entry that does is in one
** section: then they are copies of one key, and one of them is the
** value's own (a value is deleted only if it was added).  Entries of
** several widths may be another value's: none is taken. */
static int quotient_kind_remove(store *s, const store_layer *l,
                                filter_hash h, int *removed) {
  *removed = 0;
  directory_leaf *leaf;
  int rc = leaf_of(s, l, h, &leaf);
  if (rc != SQLITE_OK) return rc;
  int64_t chunk = leaf->chunk;
  unsigned depth = qleaf_depth(leaf->node);
  unsigned char *bytes;
  size_t count, matches, first;
  unsigned sections;
  rc = chunk_load(s, l, chunk, 0, &bytes);
  if (rc == SQLITE_OK) rc = read_leaf(s, l, chunk, bytes, &count);
  if (rc != SQLITE_OK) return rc;
  quotient_state *q = state_of(s);
  qleaf_matches(q->entries, count, depth, h, &matches, &sections, &first);
  if (matches == 0 || sections != 1) return SQLITE_OK;
  memmove(q->entries + first, q->entries + first + 1,
          (count - first - 1) * sizeof *q->entries);
  directory_drop_index(&q->dir, leaf);
  rc = chunk_load(s, l, chunk, 1, &bytes);
  if (rc != SQLITE_OK) return rc;
  size_t len = qleaf_encode(q->entries, count - 1, bytes);
  memset(bytes + len, 0, (size_t)leaf_bytes(l) - len);
  *removed = 1;
  return SQLITE_OK;
}

/* --- SELECT filter: kind 4, layout 1 ----------------------------------- */

/* Leaf i's record (in range order): its bytes and length, valid until
** chunk_done(ref). */
static int record_of(store *s, const store_layer *l, int64_t chunk,
                     chunk_ref *ref, const unsigned char **rec, size_t *len,
                     uint64_t *entries) {
  static const unsigned char empty[1] = {0};
  int rc = chunk_read(s, l, chunk, ref);
  if (rc != SQLITE_OK) return rc;
  *rec = ref->bytes ? ref->bytes : empty;
  size_t room = ref->bytes ? (size_t)ref->len : 1;
  char why[120];
  if (qleaf_length(*rec, room, len) != 0 ||
      qleaf_check(*rec, room, entries, why, sizeof why) != 0) {
    chunk_done(ref);
    return leaf_damaged(s, chunk, "its record");
  }
  return SQLITE_OK;
}

/* Rows in range order: each id must be a leaf's (row_id), both in
** ascending order. */
static int rows_off_ranges(store *s, const store_directory *d) {
  sqlite3_stmt *scan;
  int rc = shadow_scan_chunks(&s->tables, INT64_MIN, INT64_MAX, &scan);
  if (rc != SQLITE_OK) return rc;
  int64_t i = 0, id = 0;
  int outside = 0;
  while (!outside && (rc = sqlite3_step(scan)) == SQLITE_ROW) {
    id = sqlite3_column_int64(scan, 0);
    while (i < d->leaves && range_id(d->leaf[i].node) < id) i++;
    outside = i == d->leaves || range_id(d->leaf[i].node) != id;
  }
  shadow_done(scan);
  if (outside)
    return store_corrupt(s, "the row of id %lld in %s_chunks is no leaf's: "
                         "the store is damaged", (long long)id,
                         s->tables.name);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* SELECT filter reads every row: one of no leaf (a chunk id below 0 or
** past the directory's; in range order, an id no leaf's range gives) is
** damage. */
static int rows_outside(store *s, const store_layer *l,
                        const store_directory *d) {
  if (l->kind_values[KEY_BY_RANGE]) return rows_off_ranges(s, d);
  const int64_t bounds[2][2] = {{INT64_MIN, -1}, {d->leaves, INT64_MAX}};
  for (int i = 0; i < 2; i++) {
    sqlite3_stmt *scan;
    int rc = shadow_scan_chunks(&s->tables, bounds[i][0], bounds[i][1], &scan);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_step(scan);
    int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(scan, 0) : 0;
    shadow_done(scan);
    if (rc == SQLITE_ROW)
      return store_corrupt(s, "chunk %lld of %s is no leaf of its directory: "
                           "the store is damaged", (long long)id,
                           s->tables.name);
    if (rc != SQLITE_DONE) return rc;
  }
  return SQLITE_OK;
}

/* Walks the leaves in range order, adding up the records' bytes and
** entries; with a blob (its directory and records area), copies each
** record in and writes its directory entry. */
static int walk_records(store *s, const store_layer *l,
                        const store_directory *d, unsigned char *dir,
                        unsigned char *area, uint64_t *bytes,
                        uint64_t *items) {
  *bytes = *items = 0;
  for (int64_t i = 0; i < d->leaves; i++) {
    chunk_ref ref;
    const unsigned char *rec;
    size_t len;
    uint64_t entries;
    int rc = record_of(s, l, d->leaf[i].chunk, &ref, &rec, &len, &entries);
    if (rc != SQLITE_OK) return rc;
    if (area) memcpy(area + *bytes, rec, len);
    chunk_done(&ref);
    *bytes += len;
    *items += entries;
    if (dir) {
      store_le64(dir + i * QLEAVES_ENTRY_BYTES, d->leaf[i].node);
      store_le64(dir + i * QLEAVES_ENTRY_BYTES + 8, *bytes);
    }
  }
  return SQLITE_OK;
}

static int quotient_kind_export(store *s, sqlite3_context *ctx) {
  const store_layer *l = &s->config.layers[0];
  store_directory *d;
  int rc = directory_of(s, l, &d);
  if (rc == SQLITE_OK) rc = rows_outside(s, l, d);
  uint64_t records, items;
  if (rc == SQLITE_OK) rc = walk_records(s, l, d, NULL, NULL, &records, &items);
  if (rc != SQLITE_OK) return rc;
  size_t dir_bytes = (size_t)d->leaves * QLEAVES_ENTRY_BYTES;
  uint64_t bytes = FILTER_HEADER_BYTES + dir_bytes + records;
  int limit = sqlite3_limit(sqlite3_context_db_handle(ctx),
                            SQLITE_LIMIT_LENGTH, -1);
  if (bytes > (uint64_t)limit) {
    sqlite3_result_error_toobig(ctx);
    return SQLITE_OK;
  }
  unsigned char *blob = sqlite3_malloc64(bytes);
  if (blob == NULL) return SQLITE_NOMEM;
  unsigned char *dir = blob + FILTER_HEADER_BYTES;
  rc = walk_records(s, l, d, dir, dir + dir_bytes, &records, &items);
  if (rc != SQLITE_OK) {
    sqlite3_free(blob);
    return rc;
  }
  filter_header h = l->header;
  h.count = items;
  h.block_bytes = 0;
  h.blocks = (uint64_t)d->leaves;
  filter_write_header(blob, &h);
  sqlite3_result_blob64(ctx, blob, bytes, sqlite3_free);
  return SQLITE_OK;
}

const store_kind store_quotient_kind = {
    .kind = FILTER_KIND_QUOTIENT,
    .keys = {"leaf_items", "leaf_bytes", "base_depth", "sized", "row_reserve",
             "narrow_leaves", "rows_by_range", "narrow_below"},
    .optional_keys = 1u << KEY_NARROW | 1u << KEY_BY_RANGE |
                     1u << KEY_NARROW_BELOW,
    .counter_bytes = 0,
    .no_delete = NULL,
    .no_update = "an item cannot be changed: delete it and insert the new "
                 "value",
    .load_verb = "load",
    .skips_present = 0,
    .open = open_state, .close = close_state, .rollback = rollback,
    /* the shape */
    .size = quotient_kind_size, .configure = quotient_kind_configure,
    .unit_bits = unit_bits, .chunk_items = chunk_items,
    .model_fpr = model_fpr, .row_bytes = row_bytes, .row_holds = row_holds,
    .row_id = row_id,
    /* the items */
    .add = quotient_kind_add, .contains = quotient_kind_contains,
    .remove = quotient_kind_remove, .export = quotient_kind_export,
};

/* --- the split schedule ------------------------------------------------ */

static int split_chooses(const store_options *o) {
  return o->kind == FILTER_KIND_QUOTIENT;
}

static int split_check(const store_options *o, char *err, size_t err_size) {
  if (o->window == 0 && !o->growth_given) return SQLITE_OK;
  snprintf(err, err_size, "a quotient store grows by splitting its leaves: "
           "growth, tightening and window are bloom_store's and "
           "cuckoo_store's");
  return SQLITE_ERROR;
}

static int split_create(store *s, const store_options *o) {
  int rc = config_write_common(s, o);
  if (rc == SQLITE_OK)
    rc = config_write_filter(s, !o->capacity_given, -1, o->capacity, o->fpr);
  if (rc == SQLITE_OK) rc = config_read(s);
  const store_layer *l = &s->config.layers[0];
  if (rc == SQLITE_OK) rc = directory_create(s, base_depth(l));
  /* A sized store's rows, empty leaves at their reserve (row_reserve;
  ** the narrow leaves' keys have a bit fewer), at their chunk numbers
  ** (a sized store has no rows_by_range). */
  int reserve = (int)l->kind_values[KEY_RESERVE];
  int64_t leaves = (int64_t)1 << base_depth(l);
  int64_t narrow = l->kind_values[KEY_NARROW];
  if (rc == SQLITE_OK && reserve > 0 && narrow > 0) {
    double m = first_mean(l->header.capacity, base_depth(l));
    int less = (int)row_reserve(
        m, first_bits(m, l->header.target_fpr, base_depth(l)) - 1,
        leaf_bytes(l));
    rc = shadow_add_chunks(&s->tables, 0, narrow, less, less);
  }
  if (rc == SQLITE_OK && reserve > 0)
    rc = shadow_add_chunks(&s->tables, narrow, leaves - narrow, reserve,
                           reserve);
  return rc;
}

/* The kind's keys, unprefixed, as a fixed store's: only a quotient
** store's (the other kinds' rows are the other schedules'). */
static int split_take_row(const store_kind *k, config_rows *r,
                          const char *key, sqlite3_stmt *row) {
  return k->kind == FILTER_KIND_QUOTIENT ? config_take_fixed(k, r, key, row)
                                         : SQLITE_NOTFOUND;
}

static int split_parse(const store_kind *k, const config_rows *r,
                       store_config *c) {
  if (!schedule_group_complete(k, &r->fixed, 0)) return SQLITE_CORRUPT_VTAB;
  c->layer_count = 1;
  return config_layer(k, c, 0, c->header.capacity, c->header.target_fpr,
                      r->fixed.v + LAYER_KEY_KIND);
}

/* The configuration was read again (a rollback, another connection's
** commit): the directory too. */
static void split_focus(store *s) {
  if (s->kind_state) directory_forget(&state_of(s)->dir);
}

/* Another connection split a leaf if the directory's last chunk moved. */
static int split_refresh(store *s) {
  quotient_state *q = state_of(s);
  if (q->dir.leaves == 0) return SQLITE_OK;
  int64_t last;
  int rc = shadow_last_leaf(&s->tables, &last);
  if (rc == SQLITE_OK && last != q->dir.leaves - 1) directory_forget(&q->dir);
  return rc;
}

static char *split_summary(const store *s) {
  const store_layer *l = &s->config.layers[0];
  if (l->kind_values[KEY_SIZED])
    return sqlite3_mprintf("for %llu items in %llu leaves, which split past "
                           "it", (unsigned long long)s->config.header.capacity,
                           (unsigned long long)1 << base_depth(l));
  return sqlite3_mprintf("growing: leaves of up to %u items that split in two",
                         leaf_items(l));
}

const store_schedule store_split_schedule = {
    .name = "split",
    .layered = 1,
    .chooses = split_chooses,
    .check = split_check,
    .create = split_create,
    .take_row = split_take_row,
    .parse = split_parse,
    .focus = split_focus,
    .refresh = split_refresh,
    .summary = split_summary,
};
