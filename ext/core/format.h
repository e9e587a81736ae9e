/*
** The on-disk (in-BLOB) format shared by every filter kind: a 64-byte
** little-endian header followed by the kind's body.  See FORMAT.md.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** This file and format.c are plain C: no SQLite header.  Every
** function that reads a filter blob calls filter_parse() first, and no code
** touches the body before it has said yes.
*/
#ifndef CORE_FORMAT_H
#define CORE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "core/bytes.h"

#define FILTER_HEADER_BYTES 64
#define FILTER_VERSION 1
/* The magic "BLMF" (42 4C 4D 46) read as a little-endian u32. */
#define FILTER_MAGIC_LE32 0x464d4c42u

/* Where each header field sits (FORMAT.md, "Header" and "Kind 3"): the
** one home of the header's offsets, for filter_parse, filter_write_header
** and filter_bloom_quick alike. */
enum {
  FILTER_OFF_MAGIC = 0,
  FILTER_OFF_VERSION = 4,
  FILTER_OFF_KIND = 5,
  FILTER_OFF_HASH = 6,
  FILTER_OFF_FLAGS = 7,
  FILTER_OFF_SEED = 8,
  FILTER_OFF_HASHES = 12,           /* bloom: u32 */
  FILTER_OFF_FINGERPRINT_BITS = 12, /* cuckoo: u8 */
  FILTER_OFF_SLOTS = 13,            /* cuckoo: u8 */
  FILTER_OFF_CUCKOO_LAYOUT = 14,    /* cuckoo: u8; byte 15 zero */
  FILTER_OFF_BLOCK_BYTES = 12,      /* quotient: u16; bytes 14-15 zero */
  FILTER_OFF_BLOCKS = 16,           /* quotient: u64 */
  FILTER_OFF_BITS = 16,             /* bloom */
  FILTER_OFF_BUCKETS = 16,          /* cuckoo */
  FILTER_OFF_CAPACITY = 24,
  FILTER_OFF_TARGET_FPR = 32,
  FILTER_OFF_COUNT = 40,
  FILTER_OFF_RESERVED = 48,         /* 16 bytes, zero */
  /* layered: the layers' kind and number, growth, tightening; after the
  ** header a directory of one u64 length per layer */
  FILTER_OFF_LAYER_KIND = 12,
  FILTER_OFF_LAYERS = 13,
  FILTER_OFF_GROWTH = 14,
  FILTER_OFF_TIGHTENING = 16,
  FILTER_OFF_DIRECTORY = 64
};

/* kinds */
#define FILTER_KIND_BLOOM 1
#define FILTER_KIND_CUCKOO 2
/* A scalable filter: layers of one kind 1 or 2, oldest first (FORMAT.md,
** "Kind 3").  Never nested. */
#define FILTER_KIND_LAYERED 3
/* Sorted, compressed hash keys in fixed blocks (core/quotient.h); never a
** layer of kind 3. */
#define FILTER_KIND_QUOTIENT 4
#define FILTER_MAX_LAYERS 64

/* Or'ed into filter_parse's want_kind: also accept a layered filter whose
** layers are of the wanted kind (any kind when want_kind is 0).  Without
** it a layered filter is refused, so that code which reads one body as a
** Bloom or cuckoo array never sees a directory of layers instead. */
#define FILTER_WANT_LAYERED 0x100u

/* The target false-positive rates every kind's sizing accepts: p in
** [FILTER_MIN_FPR, 1).  Below 1e-12 a 512-bit blocked Bloom filter needs
** more than 2.7x the classic number of bits. */
#define FILTER_MIN_FPR 1e-12
/* The rate a function uses when its p is omitted. */
#define FILTER_DEFAULT_FPR 0.01

/* Filters built by this version hash with seed 0; readers honour the
** header's seed. */
#define FILTER_DEFAULT_SEED 0u

/* hash functions */
#define FILTER_HASH_MURMUR3_X64_128 1

/* Blocked Bloom layout: each item sets its bits inside one 512-bit block
** (one 64-byte cache line). */
#define BLOOM_BLOCK_BITS 512
#define BLOOM_BLOCK_BYTES 64
#define BLOOM_MAX_HASHES 64

/* Cuckoo layout: buckets of 4 slots, each slot a bit-packed fingerprint of
** 4..64 bits (0 = empty).  At 4 bits a full filter already answers "maybe"
** to 42% of absent values, so narrower is of no use; 64 is the widest word
** the code handles. */
#define CUCKOO_SLOTS_PER_BUCKET 4
#define CUCKOO_MIN_FINGERPRINT_BITS 4
#define CUCKOO_MAX_FINGERPRINT_BITS 64

/* Cuckoo layouts (header byte 14, FORMAT.md "Kind 2").  Layout 0, the
** first: a power of two of buckets, an item's other bucket by XOR.
** Layout 1: any even number of buckets, the other bucket by subtraction,
** so that a table is as large as its items need.  A reader that knows
** only layout 0 refuses layout 1 (it requires byte 14 to be 0). */
#define CUCKOO_LAYOUT_XOR 0
#define CUCKOO_LAYOUT_SUB 1

typedef struct filter_header {
  unsigned version;    /* FILTER_VERSION */
  unsigned kind;       /* FILTER_KIND_* */
  unsigned hash;       /* FILTER_HASH_* */
  uint32_t seed;       /* mixed into every hash; 0 for filters built here */
  uint32_t hashes;     /* bloom: k, bits set per item */
  uint64_t bits;       /* bloom: m, a multiple of BLOOM_BLOCK_BITS */
  uint64_t capacity;   /* n the filter was sized for */
  double target_fpr;   /* p the filter was sized for */
  uint64_t count;      /* bloom: non-NULL values added, duplicates included
                          (bloom_info: `inserted`); cuckoo: fingerprints
                          stored (cuckoo_info: `items`); quotient: entries
                          (quotient_info: `items`) */
  unsigned fingerprint_bits; /* cuckoo: f, bits per slot */
  unsigned slots_per_bucket; /* cuckoo: CUCKOO_SLOTS_PER_BUCKET */
  uint64_t buckets;          /* cuckoo: a power of two (layout 0), even
                                (layout 1) */
  unsigned cuckoo_layout;    /* cuckoo: CUCKOO_LAYOUT_XOR or _SUB */
  unsigned block_bytes;      /* quotient: a multiple of 64, 64..1024 */
  uint64_t blocks;           /* quotient: >= 1 */
  /* layered (kind 3); capacity and count are then the layers' sums */
  unsigned layer_kind;       /* FILTER_KIND_BLOOM or FILTER_KIND_CUCKOO */
  unsigned layers;           /* 1..FILTER_MAX_LAYERS */
  unsigned growth;           /* >= 1, informational */
  double tightening;         /* in (0, 1], informational */
} filter_header;

/* A validated view of a blob: header fields plus a pointer to the body,
** which lives in the caller's buffer. */
struct layer_index;
struct leaf_indexes;

typedef struct filter_view {
  filter_header header;
  const unsigned char *blob; /* the whole blob, header first */
  size_t blob_bytes;
  const unsigned char *body; /* blob + FILTER_HEADER_BYTES (layered: the
                                directory of layer lengths) */
  size_t body_bytes;
  /* A layered filter's layers read once (core/layered.h), by a holder that
  ** probes it many times (bloom_probe, bloom_ref); NULL from filter_parse. */
  const struct layer_index *layers;
  /* A filter of leaves' indexes, made as probes come, by the same holders
  ** (functions/leaf_indexes.h; the core never reads it); NULL from
  ** filter_parse. */
  struct leaf_indexes *leaf_indexes;
} filter_view;

/* Validates blob[0..len) in O(1) and fills *view.  Returns 0 on success;
** otherwise writes a one-line reason (no function name) into err and
** returns -1.  want_kind is a FILTER_KIND_* or 0 for any kind, plus
** FILTER_WANT_LAYERED to accept a layered filter of that kind as well.
** A layered filter costs one header check per layer (at most 64). */
int filter_parse(const void *blob, size_t len, unsigned want_kind,
                 filter_view *view, char *err, size_t err_size);

/* 0 if a valid filter with header h is what want_kind (as for
** filter_parse) asks for; otherwise the reason in err and -1.  For a
** filter parsed once and handed on (bloom_ref). */
int filter_kind_check(const filter_header *h, unsigned want_kind, char *err,
                      size_t err_size);

/* The kind of a valid filter's layers: its kind, or layer_kind when
** layered. */
static inline unsigned filter_base_kind(const filter_header *h) {
  return h->kind == FILTER_KIND_LAYERED ? h->layer_kind : h->kind;
}

/* A header of the given kind for a new, empty filter: current version,
** MurmurHash3, seed 0, nothing inserted; kind-specific fields zero. */
filter_header filter_header_new(unsigned kind, uint64_t capacity,
                                double target_fpr);

/* Writes the 64-byte header for h into dst. */
void filter_write_header(unsigned char *dst, const filter_header *h);

/* Overwrites only the counter of a serialized header. */
void filter_write_count(unsigned char *dst, uint64_t count);

/* Total blob size for a bloom filter of `bits` bits. */
static inline uint64_t bloom_blob_bytes(uint64_t bits) {
  return FILTER_HEADER_BYTES + bits / 8;
}

const char *filter_kind_name(unsigned kind);
const char *filter_hash_name(unsigned hash);

/* What probing a Bloom filter needs of its header. */
typedef struct bloom_quick {
  const unsigned char *body;
  uint64_t blocks;
  uint32_t seed;
  unsigned k;
} bloom_quick;

/* 0 with *q filled if blob[0..len) is a valid Bloom filter, exactly when
** filter_parse(blob, len, FILTER_KIND_BLOOM, ...) accepts it; -1 otherwise,
** with no reason: call filter_parse for that.  The same checks as
** filter_parse's field by field, as a few compares of 8-byte header words.
** Inline for bloom_test, which validates its filter argument on every row
** (SQLite hands it the blob anew each time) and reads only four fields.
** Offsets as in FORMAT.md; the 8-byte word at FILTER_OFF_MAGIC holds magic,
** version, kind, hash and flags. */
static inline int filter_bloom_quick(const void *blob, size_t len,
                                     bloom_quick *q) {
  /* "BLMF", version 1, kind Bloom, MurmurHash3, flags 0 */
  const uint64_t head =
      FILTER_MAGIC_LE32 | (uint64_t)FILTER_VERSION << 8 * FILTER_OFF_VERSION |
      (uint64_t)FILTER_KIND_BLOOM << 8 * FILTER_OFF_KIND |
      (uint64_t)FILTER_HASH_MURMUR3_X64_128 << 8 * FILTER_OFF_HASH;
  const unsigned char *b = blob;
  if (b == NULL || len < FILTER_HEADER_BYTES) return -1;
  uint32_t k = load_le32(b + FILTER_OFF_HASHES);
  uint64_t bits = load_le64(b + FILTER_OFF_BITS);
  uint64_t capacity = load_le64(b + FILTER_OFF_CAPACITY);
  uint64_t fpr_bits = load_le64(b + FILTER_OFF_TARGET_FPR);
  double fpr;
  memcpy(&fpr, &fpr_bits, sizeof fpr);
  if (load_le64(b + FILTER_OFF_MAGIC) != head ||
      (load_le64(b + FILTER_OFF_RESERVED) |
       load_le64(b + FILTER_OFF_RESERVED + 8)) != 0 ||
      k - 1 >= BLOOM_MAX_HASHES || bits == 0 ||
      bits % BLOOM_BLOCK_BITS != 0 ||
      bits / 8 != (uint64_t)(len - FILTER_HEADER_BYTES) ||
      capacity - 1 >= (uint64_t)INT64_MAX || !(fpr > 0.0 && fpr < 1.0))
    return -1;
  q->body = b + FILTER_HEADER_BYTES;
  q->blocks = bits / BLOOM_BLOCK_BITS;
  q->seed = load_le32(b + FILTER_OFF_SEED);
  q->k = k;
  return 0;
}

#endif
