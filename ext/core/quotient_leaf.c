/*
** Quotient leaves (quotient_leaf.h): the record of one leaf, its checks,
** its probe, and the split that halves it.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** A record is a byte S, the number of sections, then S sections, widest
** keys first.  A section is a 24-bit little-endian header (c: bits 0-11,
** b: 12-18, m: 19-23), then c + 2^m unary bits and c low parts of b - m
** bits, least significant bit first, padded with zeros to a whole byte.
** Every read is bounded by the room the caller gives: a damaged record
** makes the probe answer -1, never read past it.
*/
#include "core/quotient_leaf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/quotient.h"

/* --- bits -------------------------------------------------------------- */

/* 8 bytes from p[at] on, little-endian; bytes at or past end read 0. */
static uint64_t load_bounded(const unsigned char *p, size_t end, size_t at) {
  if (at + 8 <= end) return load_le64(p + at);
  uint64_t v = 0;
  for (unsigned i = 0; i < 8 && at + i < end; i++)
    v |= (uint64_t)p[at + i] << (8 * i);
  return v;
}

/* n bits (n <= 64) at bit position `bit` of p[0..end). */
static inline uint64_t field_at(const unsigned char *p, size_t end, uint64_t bit,
                         unsigned n) {
  if (n == 0) return 0;
  size_t at = (size_t)(bit >> 3);
  unsigned shift = (unsigned)(bit & 7);
  uint64_t v = load_bounded(p, end, at) >> shift;
  if (shift + n > 64 && at + 8 < end) v |= (uint64_t)p[at + 8] << (64 - shift);
  return n == 64 ? v : v & (((uint64_t)1 << n) - 1);
}

/* ORs v, little-endian, into the 8 bytes from p[at] on, those of them
** before p[end]. */
static void or_le64(unsigned char *p, size_t end, size_t at, uint64_t v) {
  if (at + 8 <= end) {
    store_le64(p + at, load_le64(p + at) | v);
    return;
  }
  for (unsigned i = 0; at + i < end; i++)
    p[at + i] |= (unsigned char)(v >> (8 * i));
}

/* Writes fields one after another from a bit position on, a word at a
** time: the bytes are ORed in once each (a store to bytes another store
** just wrote would wait on it). */
typedef struct bit_writer {
  unsigned char *p;
  size_t at;    /* the byte the pending word starts at */
  uint64_t acc; /* the pending bits, from bit `at * 8` on */
  unsigned n;   /* how many, 0 to 63 */
} bit_writer;

static void writer_start(bit_writer *w, unsigned char *p, uint64_t bit) {
  *w = (bit_writer){p, (size_t)(bit >> 3), 0, (unsigned)(bit & 7)};
}

/* The n low bits of v (n <= 64). */
static void writer_put(bit_writer *w, uint64_t v, unsigned n) {
  if (n == 0) return;
  if (n < 64) v &= ((uint64_t)1 << n) - 1;
  w->acc |= v << w->n;
  unsigned room = 64 - w->n;
  if (n < room) {
    w->n += n;
    return;
  }
  or_le64(w->p, w->at + 8, w->at, w->acc);
  w->at += 8;
  w->acc = room == 64 ? 0 : v >> room;
  w->n = n - room;
}

static void writer_end(bit_writer *w) {
  or_le64(w->p, w->at + (w->n + 7) / 8, w->at, w->acc);
}

uint64_t qleaf_key(filter_hash h, unsigned depth, unsigned bits) {
  if (bits == 0) return 0;
  uint64_t hi;
  if (depth == 0)
    hi = h.h1;
  else if (depth < 64)
    hi = h.h1 << depth | h.h2 >> (64 - depth);
  else
    hi = depth < 128 ? h.h2 << (depth - 64) : 0;
  return bits == 64 ? hi : hi >> (64 - bits);
}

/* --- sections ---------------------------------------------------------- */

typedef struct section {
  unsigned count, bits, bucket_bits;
  uint64_t unary_bits; /* c + 2^m */
  uint64_t body_bits;  /* unary, then c * (b - m) */
  size_t at;           /* the header's offset in the record */
  size_t bytes;        /* header and body */
} section;

static void fail(char *err, size_t size, const char *fmt, unsigned a,
                 unsigned b) {
  if (err && size) snprintf(err, size, fmt, a, b);
}

/* Reads section header i at rec[at..): -1 if it does not fit room or its
** fields are out of range, or its width is not below `wider`. */
static int section_at(const unsigned char *rec, size_t room, size_t at,
                      unsigned wider, section *s, char *err, size_t size,
                      unsigned i) {
  if (at + QLEAF_SECTION_HEADER_BYTES > room) {
    fail(err, size, "section %u of %u does not fit the leaf", i, 0);
    return -1;
  }
  uint32_t w = (uint32_t)rec[at] | (uint32_t)rec[at + 1] << 8 |
               (uint32_t)rec[at + 2] << 16;
  s->count = w & 4095u;
  s->bits = w >> 12 & 127u;
  s->bucket_bits = w >> 19 & 31u;
  if (s->count == 0 || s->bits > 64 || s->bucket_bits > QLEAF_MAX_BUCKET_BITS ||
      s->bucket_bits > s->bits || s->bits >= wider) {
    fail(err, size, "section %u has a header out of range (%u)", i, w);
    return -1;
  }
  s->unary_bits = s->count + ((uint64_t)1 << s->bucket_bits);
  s->body_bits =
      s->unary_bits + (uint64_t)s->count * (s->bits - s->bucket_bits);
  s->at = at;
  s->bytes = QLEAF_SECTION_HEADER_BYTES + (size_t)((s->body_bits + 7) / 8);
  if (s->bytes > room - at) {
    fail(err, size, "section %u of %u bytes does not fit the leaf", i,
         (unsigned)s->bytes);
    return -1;
  }
  return 0;
}

/* A walk of a record's section headers, widest first: walk_start, then
** walk_next until it answers 0 (w->at is then the record's length). */
typedef struct section_walk {
  const unsigned char *rec;
  size_t room, at;
  unsigned wider, i;
} section_walk;

/* -1 if the record's first byte does not fit room or counts too many
** sections. */
static int walk_start(section_walk *w, const unsigned char *rec, size_t room) {
  *w = (section_walk){rec, room, 1, 65, 0};
  return room < 1 || rec[0] > QLEAF_MAX_SECTIONS ? -1 : 0;
}

/* The next section into *s: 1, 0 after the last, -1 (with err) if its
** header is damaged (section_at). */
static int walk_next(section_walk *w, section *s, char *err, size_t size) {
  if (w->i == w->rec[0]) return 0;
  if (section_at(w->rec, w->room, w->at, w->wider, s, err, size, w->i) != 0)
    return -1;
  w->wider = s->bits;
  w->at += s->bytes;
  w->i++;
  return 1;
}

int qleaf_length(const unsigned char *rec, size_t room, size_t *len) {
  section_walk w;
  section s;
  int r = walk_start(&w, rec, room);
  while (r == 0 && (r = walk_next(&w, &s, NULL, 0)) == 1) r = 0;
  if (r != 0) return -1;
  *len = w.at;
  return 0;
}

uint64_t qleaf_entries(const unsigned char *rec, size_t room) {
  section_walk w;
  section s;
  uint64_t n = 0;
  int r = walk_start(&w, rec, room);
  while (r == 0 && (r = walk_next(&w, &s, NULL, 0)) == 1) {
    n += s.count;
    r = 0;
  }
  return r == 0 ? n : 0;
}

unsigned qleaf_widest_bits(const unsigned char *rec, size_t room) {
  section_walk w;
  section s;
  return walk_start(&w, rec, room) == 0 && walk_next(&w, &s, NULL, 0) == 1
             ? s.bits
             : 0;
}

/* --- decode and check -------------------------------------------------- */

/* Walks every entry of a checked section into out (when not NULL), and
** checks the order of its keys and the shape of its unary part. */
static int section_entries(const unsigned char *rec, size_t room,
                           const section *s, qleaf_entry *out, char *err,
                           size_t size, unsigned i) {
  const unsigned char *body = rec + s->at + QLEAF_SECTION_HEADER_BYTES;
  size_t end = s->bytes - QLEAF_SECTION_HEADER_BYTES;
  unsigned low = s->bits - s->bucket_bits;
  uint64_t ones = 0, prev = 0, buckets = (uint64_t)1 << s->bucket_bits;
  uint64_t low_bit = s->unary_bits; /* the next entry's low part */
  /* The j-th one (from 0), at bit p of the unary part, is an entry of
  ** bucket p - j, the zeros before it: only the ones are visited. */
  for (uint64_t t = 0; t < s->unary_bits; t += 64) {
    unsigned n = s->unary_bits - t < 64 ? (unsigned)(s->unary_bits - t) : 64;
    uint64_t word = field_at(body, end, t, n);
    for (; word != 0; word &= word - 1) {
      uint64_t q = t + bits_low64(word) - ones;
      if (ones == s->count || q >= buckets) {
        ones = s->count + 1; /* one too many, or past the last bucket */
        break;
      }
      uint64_t key =
          (low == 64 ? 0 : q << low) | field_at(body, end, low_bit, low);
      low_bit += low;
      if (ones > 0 && key < prev) {
        fail(err, size, "section %u has keys out of order at entry %u", i,
             (unsigned)ones);
        return -1;
      }
      if (out) out[ones] = (qleaf_entry){key, s->bits};
      prev = key;
      ones++;
    }
    if (ones > s->count) break;
  }
  /* The unary part has count + 2^m bits: count ones leave 2^m zeros. */
  if (ones != s->count) {
    fail(err, size, "section %u has a unary part of %u ones", i,
         (unsigned)ones);
    return -1;
  }
  /* The padding after the last low part is zero. */
  for (uint64_t t = s->body_bits; t < (uint64_t)end * 8; t++)
    if (field_at(body, end, t, 1)) {
      fail(err, size, "section %u has padding that is not zero (%u)", i,
           (unsigned)t);
      return -1;
    }
  (void)room;
  return 0;
}

int qleaf_decode(const unsigned char *rec, size_t room, qleaf_entry *out,
                 size_t cap, size_t *count, char *err, size_t err_size) {
  *count = 0;
  section_walk w;
  section s;
  if (walk_start(&w, rec, room) != 0) {
    fail(err, err_size, "the leaf has %u sections, more than %u",
         room ? rec[0] : 0, QLEAF_MAX_SECTIONS);
    return -1;
  }
  int r;
  while ((r = walk_next(&w, &s, err, err_size)) == 1) {
    if (out && *count + s.count > cap) {
      fail(err, err_size, "the leaf holds more than %u entries", (unsigned)cap,
           0);
      return -1;
    }
    if (section_entries(rec, room, &s, out ? out + *count : NULL, err,
                        err_size, w.i - 1) != 0)
      return -1;
    *count += s.count;
  }
  if (r != 0) return -1;
  /* A word at a time: a chunk row's zeros after the record are most of
  ** what a decode reads. */
  size_t t = w.at;
  while (t + 8 <= room && load_le64(rec + t) == 0) t += 8;
  for (; t < room; t++)
    if (rec[t] != 0) {
      fail(err, err_size, "the leaf has bytes after its record (byte %u of %u)",
           (unsigned)t, (unsigned)room);
      return -1;
    }
  return 0;
}

int qleaf_check(const unsigned char *rec, size_t room, uint64_t *entries,
                char *err, size_t err_size) {
  size_t count;
  int rc = qleaf_decode(rec, room, NULL, 0, &count, err, err_size);
  *entries = count;
  return rc;
}

/* --- encode ------------------------------------------------------------ */

static int entry_order(const void *a, const void *b) {
  const qleaf_entry *x = a, *y = b;
  if (x->bits != y->bits) return x->bits > y->bits ? -1 : 1;
  return x->key < y->key ? -1 : x->key > y->key;
}

void qleaf_sort(qleaf_entry *e, size_t count) {
  if (count > 1) qsort(e, count, sizeof *e, entry_order);
}

size_t qleaf_insert(qleaf_entry *e, size_t count, qleaf_entry x) {
  size_t lo = 0, hi = count; /* the first entry that sorts after x */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (entry_order(&e[mid], &x) <= 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  memmove(e + lo + 1, e + lo, (count - lo) * sizeof *e);
  e[lo] = x;
  return count + 1;
}

/* The bucket bits that make a section of c keys of b bits smallest: the
** fewest c + 2^m + c * (b - m), the smallest m on a tie, up to
** min(b, QLEAF_MAX_BUCKET_BITS).  One more bucket bit changes the sum by
** 2^m - c, so it falls while 2^m < c: the least m with 2^m >= c. */
static unsigned bucket_bits_for(uint64_t c, unsigned b) {
  unsigned top = b < QLEAF_MAX_BUCKET_BITS ? b : QLEAF_MAX_BUCKET_BITS;
  unsigned m = c <= 1 ? 0 : bits_top64(c - 1) + 1;
  return m < top ? m : top;
}

static uint64_t section_body_bits(uint64_t c, unsigned b, unsigned m) {
  return c + ((uint64_t)1 << m) + c * (b - m);
}

/* The run of entries of one width starting at e[i]: its length. */
static size_t run_of(const qleaf_entry *e, size_t count, size_t i) {
  size_t j = i;
  while (j < count && e[j].bits == e[i].bits) j++;
  return j - i;
}


size_t qleaf_section_bytes(uint64_t c, unsigned b) {
  unsigned m = bucket_bits_for(c, b);
  return QLEAF_SECTION_HEADER_BYTES +
         (size_t)((section_body_bits(c, b, m) + 7) / 8);
}

size_t qleaf_encoded_bytes(const qleaf_entry *e, size_t count) {
  size_t bytes = 1;
  for (size_t i = 0; i < count;) {
    size_t c = run_of(e, count, i);
    unsigned m = bucket_bits_for(c, e[i].bits);
    bytes += QLEAF_SECTION_HEADER_BYTES +
             (size_t)((section_body_bits(c, e[i].bits, m) + 7) / 8);
    i += c;
  }
  return bytes;
}

size_t qleaf_encode(const qleaf_entry *e, size_t count, unsigned char *dst) {
  size_t at = 1;
  unsigned sections = 0;
  for (size_t i = 0; i < count;) {
    size_t c = run_of(e, count, i);
    unsigned b = e[i].bits, m = bucket_bits_for(c, b), low = b - m;
    size_t body_bytes = (size_t)((section_body_bits(c, b, m) + 7) / 8);
    uint32_t w = (uint32_t)c | (uint32_t)b << 12 | (uint32_t)m << 19;
    dst[at] = (unsigned char)w;
    dst[at + 1] = (unsigned char)(w >> 8);
    dst[at + 2] = (unsigned char)(w >> 16);
    unsigned char *body = dst + at + QLEAF_SECTION_HEADER_BYTES;
    memset(body, 0, body_bytes);
    bit_writer lows;
    writer_start(&lows, body, c + ((uint64_t)1 << m));
    for (size_t j = 0; j < c; j++) writer_put(&lows, e[i + j].key, low);
    writer_end(&lows);
    /* The j-th one follows q zeros: its bits in order, a word at a time. */
    uint64_t word = 0;
    size_t word_at = 0;
    for (size_t j = 0; j < c; j++) {
      uint64_t one = (low == 64 ? 0 : e[i + j].key >> low) + j;
      if (one >> 6 != word_at) {
        or_le64(body, body_bytes, 8 * word_at, word);
        word = 0;
        word_at = (size_t)(one >> 6);
      }
      word |= (uint64_t)1 << (one & 63);
    }
    or_le64(body, body_bytes, 8 * word_at, word);
    at += QLEAF_SECTION_HEADER_BYTES + body_bytes;
    sections++;
    i += c;
  }
  dst[0] = (unsigned char)sections;
  return at;
}

/* --- probe ------------------------------------------------------------- */

/* The position of the q-th zero of a unary part of `bits` bits at
** body[0..end), a word at a time, or UINT64_MAX if it has fewer zeros.
** With popcnt where the build or the CPU has it, as quotient.c's scan. */
#define ZERO_AT_ARGS                                                        \
  const unsigned char *body, size_t end, uint64_t bits, uint64_t q
#define ZERO_AT_BODY(POPCOUNT)                                              \
  for (uint64_t t = 0; t < bits; t += 64) {                                 \
    uint64_t n = bits - t;                                                  \
    uint64_t zeros = ~load_bounded(body, end, (size_t)(t >> 3));            \
    if (n < 64) zeros &= ((uint64_t)1 << n) - 1;                            \
    unsigned k = POPCOUNT(zeros);                                           \
    if (k > q) return t + quotient_select64(zeros, (unsigned)q);            \
    q -= k;                                                                 \
  }                                                                         \
  return UINT64_MAX;
BITS_COUNTING(uint64_t, qleaf_zero_at, ZERO_AT_ARGS, ZERO_AT_BODY)

/* 1 if section s holds key, 0 if not, -1 if what it read is damaged.  The
** unary part starts the section's body, so its words are plain loads. */
static int section_holds(const unsigned char *rec, const section *s,
                         uint64_t key) {
  const unsigned char *body = rec + s->at + QLEAF_SECTION_HEADER_BYTES;
  size_t end = s->bytes - QLEAF_SECTION_HEADER_BYTES;
  unsigned low = s->bits - s->bucket_bits;
  uint64_t q = low == 64 ? 0 : key >> low;
  uint64_t want = low == 64 ? key : key & (((uint64_t)1 << low) - 1);
  uint64_t z = qleaf_zero_at(body, end, s->unary_bits, q);
  if (z == UINT64_MAX) return -1;
  uint64_t ones_before = z - q;
  if (ones_before > s->count) return -1;
  /* The ones just before the zero are bucket q's entries. */
  for (uint64_t j = 1; j <= z && (body[(z - j) >> 3] >> ((z - j) & 7) & 1);
       j++) {
    if (j > ones_before) return -1;
    if (field_at(body, end, s->unary_bits + (ones_before - j) * low, low) ==
        want)
      return 1;
  }
  return 0;
}

int qleaf_contains(const unsigned char *rec, size_t room, unsigned depth,
                   filter_hash h) {
  section_walk w;
  section s;
  if (walk_start(&w, rec, room) != 0) return -1;
  int r;
  while ((r = walk_next(&w, &s, NULL, 0)) == 1) {
    if (depth + s.bits > 128) return -1;
    int hit = section_holds(rec, &s, qleaf_key(h, depth, s.bits));
    if (hit != 0) return hit;
  }
  return r;
}

/* --- entries ----------------------------------------------------------- */

int qleaf_matches(const qleaf_entry *e, size_t count, unsigned depth,
                  filter_hash h, size_t *matches, unsigned *sections,
                  size_t *first) {
  *matches = 0;
  *sections = 0;
  *first = 0;
  unsigned last_bits = 65;
  for (size_t i = 0; i < count; i++) {
    if (e[i].key != qleaf_key(h, depth, e[i].bits)) continue;
    if (*matches == 0) *first = i;
    (*matches)++;
    if (e[i].bits != last_bits) (*sections)++;
    last_bits = e[i].bits;
  }
  return 0;
}

/* The word of an entry of at most 31 bits in the index (qleaf_index). */
static uint32_t span_of(const qleaf_entry *e) {
  unsigned spare = 32 - e->bits; /* 1 .. 32: key is a uint64_t */
  return (uint32_t)(e->key << spare) | (uint32_t)1 << (spare - 1);
}

/* By first hash, the wider first: an interval then comes after every
** one that contains it. */
static int by_start(const void *a, const void *b) {
  const qleaf_entry *x = a, *y = b;
  uint32_t fx = qleaf_span_first(span_of(x)), fy = qleaf_span_first(span_of(y));
  if (fx != fy) return fx < fy ? -1 : 1;
  return x->bits < y->bits ? -1 : x->bits > y->bits;
}

int64_t qleaf_index(qleaf_entry *e, size_t count, uint32_t *span) {
  for (size_t i = 0; i < count; i++)
    if (e[i].bits > 31) return -1;
  if (count > 1) qsort(e, count, sizeof *e, by_start);
  uint32_t n = 0;
  for (size_t i = 0; i < count; i++) {
    uint32_t word = span_of(&e[i]);
    /* within the last one (aligned intervals are nested or apart) */
    if (n > 0 && qleaf_span_first(word) <= qleaf_span_last(span[n - 1]))
      continue;
    span[n++] = word;
  }
  return n;
}

unsigned qleaf_guard_bits(uint64_t n) {
  unsigned r = 6;
  while (r < 40 && ((uint64_t)1 << r) < n * 8) r++;
  return r;
}

/* Sets (one) or clears bits from to last, inclusive, a word at a time. */
static void bits_range(uint64_t *bits, uint64_t from, uint64_t last,
                       int one) {
  for (uint64_t w = from >> 6; w <= last >> 6; w++) {
    unsigned lo = w == from >> 6 ? (unsigned)(from & 63) : 0;
    unsigned hi = w == last >> 6 ? (unsigned)(last & 63) : 63;
    uint64_t mask = UINT64_MAX >> (63 - hi) & UINT64_MAX << lo;
    bits[w] = one ? bits[w] | mask : bits[w] & ~mask;
  }
}

void qleaf_guard(const uint32_t *span, uint32_t n, unsigned r,
                 uint64_t *bits, uint64_t first) {
  bits_range(bits, first, first + ((uint64_t)1 << r) - 1, 0);
  for (uint32_t i = 0; i < n; i++)
    bits_range(bits, first + ((uint64_t)qleaf_span_first(span[i]) >> (32 - r)),
               first + ((uint64_t)qleaf_span_last(span[i]) >> (32 - r)), 1);
}

void qleaf_guard_open(uint64_t *bits, uint64_t first, unsigned r) {
  bits_range(bits, first, first + ((uint64_t)1 << r) - 1, 1);
}

void qleaf_split(const qleaf_entry *e, size_t count, qleaf_entry *left,
                 size_t *nl, qleaf_entry *right, size_t *nr) {
  *nl = *nr = 0;
  for (size_t i = 0; i < count; i++) {
    unsigned b = e[i].bits;
    if (b == 0) { /* matches the whole leaf: both halves */
      left[(*nl)++] = e[i];
      right[(*nr)++] = e[i];
      continue;
    }
    uint64_t rest = b == 1 ? 0 : e[i].key & (UINT64_MAX >> (65 - b));
    qleaf_entry child = {rest, b - 1};
    if (e[i].key >> (b - 1) & 1)
      right[(*nr)++] = child;
    else
      left[(*nl)++] = child;
  }
}

/* --- layout 1: a blob of leaves ---------------------------------------- */

int qleaves_check_header(const unsigned char *body, size_t body_bytes,
                         uint64_t leaves) {
  if (leaves == 0 || body_bytes / QLEAVES_ENTRY_BYTES < leaves) return -1;
  size_t area = body_bytes - (size_t)leaves * QLEAVES_ENTRY_BYTES;
  uint64_t last_end = load_le64(body + (leaves - 1) * QLEAVES_ENTRY_BYTES + 8);
  return last_end == area ? 0 : -1;
}

int qleaves_leaf(const unsigned char *body, size_t body_bytes,
                 uint64_t leaves, uint64_t i, uint64_t *node,
                 const unsigned char **rec, size_t *len) {
  size_t area_at = (size_t)leaves * QLEAVES_ENTRY_BYTES;
  size_t area = body_bytes - area_at;
  uint64_t begin = i == 0 ? 0 : load_le64(body + (i - 1) * QLEAVES_ENTRY_BYTES + 8);
  uint64_t end = load_le64(body + i * QLEAVES_ENTRY_BYTES + 8);
  *node = load_le64(body + i * QLEAVES_ENTRY_BYTES);
  if (begin > end || end > area || *node == 0 ||
      qleaf_depth(*node) > QLEAF_MAX_DEPTH)
    return -1;
  *rec = body + area_at + begin;
  *len = (size_t)(end - begin);
  return 0;
}

int64_t qleaves_find(const unsigned char *body, size_t body_bytes,
                     uint64_t leaves, filter_hash h) {
  /* The last leaf whose first h1 is at most h1: starts ascend. */
  uint64_t lo = 0, hi = leaves; /* the answer lies in [lo, hi) */
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2;
    uint64_t node = load_le64(body + mid * QLEAVES_ENTRY_BYTES);
    if (node != 0 && qleaf_depth(node) <= QLEAF_MAX_DEPTH &&
        qleaf_start(node) <= h.h1)
      lo = mid;
    else
      hi = mid;
  }
  (void)body_bytes;
  return (int64_t)lo;
}

/* The most of a record qleaf_prefetch asks for: a page, more than the
** records quotient_compact writes (2,048 entries) take at the usual rates. */
#define QLEAF_PREFETCH_BYTES 4096u

/* Asks for the lines of the record rec[0..len) (up to
** QLEAF_PREFETCH_BYTES) before a probe walks it: where a section starts is
** known only once the one before it is read, so a walk of a record out of
** cache would otherwise wait on each section in turn. */
static void qleaf_prefetch(const unsigned char *rec, size_t len) {
  size_t reach = len < QLEAF_PREFETCH_BYTES ? len : QLEAF_PREFETCH_BYTES;
  for (size_t off = 64 - ((uintptr_t)rec & 63); off < reach; off += 64)
    __builtin_prefetch(rec + off);
}

int qleaf_ready(const unsigned char *rec, size_t len) {
  size_t used;
  qleaf_prefetch(rec, len);
  return qleaf_length(rec, len, &used) == 0 && used == len ? 0 : -1;
}

int qleaves_probed(const unsigned char *body, size_t body_bytes,
                   uint64_t leaves, uint64_t i, filter_hash h, uint64_t *node,
                   const unsigned char **rec, size_t *len) {
  if (qleaves_leaf(body, body_bytes, leaves, i, node, rec, len) != 0 ||
      !qleaf_owns(*node, h))
    return -1;
  return qleaf_ready(*rec, *len);
}

int qleaves_locate(const unsigned char *body, size_t body_bytes,
                   uint64_t leaves, filter_hash h, uint64_t *index,
                   uint64_t *node, const unsigned char **rec, size_t *len) {
  *index = (uint64_t)qleaves_find(body, body_bytes, leaves, h);
  return qleaves_probed(body, body_bytes, leaves, *index, h, node, rec, len);
}

int qleaves_contains(const unsigned char *body, size_t body_bytes,
                     uint64_t leaves, filter_hash h) {
  uint64_t i, node;
  const unsigned char *rec;
  size_t len;
  if (qleaves_locate(body, body_bytes, leaves, h, &i, &node, &rec, &len) != 0)
    return -1;
  return qleaf_contains(rec, len, qleaf_depth(node), h);
}

int qleaves_stats(const unsigned char *body, size_t body_bytes,
                  uint64_t leaves, qleaves_summary *sum,
                  void (*visit)(void *ctx, const qleaf_info *leaf), void *ctx,
                  char *err, size_t err_size) {
  memset(sum, 0, sizeof *sum);
  uint64_t next_start = 0; /* the first h1 the next leaf must own */
  int wrapped = 0;         /* the leaves so far reach 2^64 */
  for (uint64_t i = 0; i < leaves; i++) {
    uint64_t node, entries;
    const unsigned char *rec;
    size_t len, used;
    char why[120];
    if (qleaves_leaf(body, body_bytes, leaves, i, &node, &rec, &len) != 0) {
      fail(err, err_size, "leaf %u of %u has a node or bounds out of range",
           (unsigned)i, (unsigned)leaves);
      return -1;
    }
    unsigned d = qleaf_depth(node);
    if (wrapped || qleaf_start(node) != next_start) {
      fail(err, err_size, "leaf %u of %u does not follow the one before it",
           (unsigned)i, (unsigned)leaves);
      return -1;
    }
    uint64_t span = d == 0 ? 0 : (uint64_t)1 << (64 - d);
    next_start += span;
    wrapped = d == 0 || next_start == 0;
    if (qleaf_length(rec, len, &used) != 0 || used != len ||
        qleaf_check(rec, len, &entries, why, sizeof why) != 0) {
      if (err && err_size) snprintf(err, err_size, "leaf %u: %s", (unsigned)i,
                                    qleaf_length(rec, len, &used) != 0 ||
                                            used != len
                                        ? "its record does not fill its bytes"
                                        : why);
      return -1;
    }
    sum->entries += entries;
    if (d > sum->max_depth) sum->max_depth = d;
    if (i == 0 || d < sum->min_depth) sum->min_depth = d;
    /* the leaf's share of the rate: 2^-(d + b) for each entry */
    qleaf_info leaf = {i, node, d, rec[0], 0, 0, entries, len, 0.0};
    section_walk w;
    section s;
    walk_start(&w, rec, len); /* checked above */
    while (walk_next(&w, &s, NULL, 0) == 1) {
      leaf.estimated_fpr += (double)s.count * ldexp(1.0, -(int)(d + s.bits));
      if (w.i == 1) leaf.max_bits = s.bits;
      leaf.min_bits = s.bits;
    }
    sum->estimated_fpr += leaf.estimated_fpr;
    if (visit) visit(ctx, &leaf);
  }
  if (!wrapped) {
    fail(err, err_size, "the %u leaves do not cover every hash", (unsigned)leaves,
         0);
    return -1;
  }
  return 0;
}
