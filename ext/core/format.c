/*
** Header parse and write for the filter blob format (FORMAT.md).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** filter_parse() is the single gate every blob goes through.  It reads only
** the 64 header bytes and compares sizes, so it costs the same on a 1 KB and
** a 100 MB filter.  All size arithmetic is done so that it cannot wrap:
** the body length is derived from the blob length (which fits in size_t)
** and compared against fields, never the other way round.
*/
#include "core/format.h"
#include "core/quotient_leaf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *filter_kind_name(unsigned kind) {
  switch (kind) {
    case FILTER_KIND_BLOOM: return "bloom";
    case FILTER_KIND_CUCKOO: return "cuckoo";
    case FILTER_KIND_LAYERED: return "layered";
    case FILTER_KIND_QUOTIENT: return "quotient";
    default: return "unknown";
  }
}

const char *filter_hash_name(unsigned hash) {
  return hash == FILTER_HASH_MURMUR3_X64_128 ? "murmur3_x64_128" : "unknown";
}

static double load_le_double(const unsigned char *p) {
  uint64_t u = load_le64(p);
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

static int fail(char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t err_size, const char *fmt, ...) {
  if (err && err_size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static int check_bloom(const unsigned char *b, size_t body, filter_header *h,
                       char *err, size_t err_size);
static int check_cuckoo(const unsigned char *b, size_t body, filter_header *h,
                        char *err, size_t err_size);
static int check_layered(const unsigned char *b, size_t len, filter_header *h,
                         char *err, size_t err_size);
static int check_quotient(const unsigned char *b, size_t body,
                          filter_header *h, char *err, size_t err_size);

int filter_kind_check(const filter_header *h, unsigned want_kind, char *err,
                      size_t err_size) {
  unsigned want = want_kind & 0xffu;
  if (h->kind == FILTER_KIND_LAYERED) {
    if (!(want_kind & FILTER_WANT_LAYERED))
      return want ? fail(err, err_size,
                         "a layered filter is not accepted here: expected a "
                         "plain %s filter", filter_kind_name(want))
                  : fail(err, err_size,
                         "a layered filter is not accepted here");
    if (want && h->layer_kind != want)
      return fail(err, err_size, "got a layered %s filter, expected a %s "
                  "filter", filter_kind_name(h->layer_kind),
                  filter_kind_name(want));
    return 0;
  }
  if (want && h->kind != want)
    return fail(err, err_size, "got a %s filter, expected a %s filter",
                filter_kind_name(h->kind), filter_kind_name(want));
  return 0;
}

int filter_parse(const void *blob, size_t len, unsigned want_kind,
                 filter_view *view, char *err, size_t err_size) {
  const unsigned char *b = blob;
  filter_header *h = &view->header;

  if (b == NULL || len < FILTER_HEADER_BYTES)
    return fail(err, err_size,
                "not a filter: %llu bytes is shorter than the %d-byte header",
                (unsigned long long)len, FILTER_HEADER_BYTES);
  if (load_le32(b + FILTER_OFF_MAGIC) != FILTER_MAGIC_LE32)
    return fail(err, err_size, "not a filter: bad magic");
  h->version = b[FILTER_OFF_VERSION];
  if (h->version != FILTER_VERSION)
    return fail(err, err_size,
                "unsupported format version %u (this build reads version %d)",
                h->version, FILTER_VERSION);
  h->kind = b[FILTER_OFF_KIND];
  if (h->kind != FILTER_KIND_BLOOM && h->kind != FILTER_KIND_CUCKOO &&
      h->kind != FILTER_KIND_LAYERED && h->kind != FILTER_KIND_QUOTIENT)
    return fail(err, err_size, "unknown filter kind %u", h->kind);
  h->layer_kind = 0;
  h->layers = 0;
  h->growth = 0;
  h->tightening = 0.0;
  if (h->kind == FILTER_KIND_LAYERED) {
    /* Refused before its fields are read, when a layered filter is not
    ** wanted (a layer of a layered filter, for one). */
    if (!(want_kind & FILTER_WANT_LAYERED))
      return filter_kind_check(h, want_kind, err, err_size);
    h->layer_kind = b[FILTER_OFF_LAYER_KIND];
    if (h->layer_kind != FILTER_KIND_BLOOM &&
        h->layer_kind != FILTER_KIND_CUCKOO)
      return fail(err, err_size,
                  "a layered filter (kind 3) needs layer kind 1 (bloom) or "
                  "2 (cuckoo), not %u", h->layer_kind);
  }
  if (filter_kind_check(h, want_kind, err, err_size) != 0) return -1;
  h->hash = b[FILTER_OFF_HASH];
  if (h->hash != FILTER_HASH_MURMUR3_X64_128)
    return fail(err, err_size, "unknown hash function id %u", h->hash);
  if (b[FILTER_OFF_FLAGS] != 0)
    return fail(err, err_size, "unknown flags 0x%02x", b[FILTER_OFF_FLAGS]);
  if ((load_le64(b + FILTER_OFF_RESERVED) |
       load_le64(b + FILTER_OFF_RESERVED + 8)) != 0) {
    int i = FILTER_OFF_RESERVED;
    while (b[i] == 0) i++;
    return fail(err, err_size, "reserved header byte %d is %u, not 0", i, b[i]);
  }

  h->seed = load_le32(b + FILTER_OFF_SEED);
  h->hashes = 0;
  h->bits = 0;
  h->fingerprint_bits = 0;
  h->slots_per_bucket = 0;
  h->buckets = 0;
  h->cuckoo_layout = 0;
  h->block_bytes = 0;
  h->blocks = 0;
  h->capacity = load_le64(b + FILTER_OFF_CAPACITY);
  h->target_fpr = load_le_double(b + FILTER_OFF_TARGET_FPR);
  h->count = load_le64(b + FILTER_OFF_COUNT);

  if (h->capacity == 0 || h->capacity > (uint64_t)INT64_MAX)
    return fail(err, err_size, "capacity %llu out of range",
                (unsigned long long)h->capacity);
  /* Written as a negated range test so that NaN fails too. */
  if (!(h->target_fpr > 0.0 && h->target_fpr < 1.0))
    return fail(err, err_size, "target false-positive rate out of (0,1)");

  size_t body = len - FILTER_HEADER_BYTES;
  if (h->kind == FILTER_KIND_LAYERED) {
    if (check_layered(b, len, h, err, err_size) != 0) return -1;
  } else if (h->kind == FILTER_KIND_CUCKOO) {
    if (check_cuckoo(b, body, h, err, err_size) != 0) return -1;
  } else if (h->kind == FILTER_KIND_QUOTIENT) {
    if (check_quotient(b, body, h, err, err_size) != 0) return -1;
  } else if (check_bloom(b, body, h, err, err_size) != 0) {
    return -1;
  }
  view->blob = b;
  view->blob_bytes = len;
  view->body = b + FILTER_HEADER_BYTES;
  view->body_bytes = body;
  view->layers = NULL;
  view->leaf_indexes = NULL;
  return 0;
}

static int check_bloom(const unsigned char *b, size_t body, filter_header *h,
                       char *err, size_t err_size) {
  h->hashes = load_le32(b + FILTER_OFF_HASHES);
  h->bits = load_le64(b + FILTER_OFF_BITS);
  if (h->hashes < 1 || h->hashes > BLOOM_MAX_HASHES)
    return fail(err, err_size, "hash count %u out of range 1..%d",
                (unsigned)h->hashes, BLOOM_MAX_HASHES);
  if (h->bits == 0 || h->bits % BLOOM_BLOCK_BITS != 0)
    return fail(err, err_size,
                "bit count %llu is not a positive multiple of %d",
                (unsigned long long)h->bits, BLOOM_BLOCK_BITS);
  /* Compare bits/8 with the body length: no multiplication, no wrap. */
  if (h->bits / 8 != (uint64_t)body)
    return fail(err, err_size,
                "header says %llu bits but the blob holds %llu bytes of bits",
                (unsigned long long)h->bits, (unsigned long long)body);
  return 0;
}

/* The body is ceil(buckets * 4 * f / 8) bytes: f/2 bytes per bucket pair,
** (4f + 7) / 8 for a single bucket.  Checked as body / f == buckets / 2
** (division only), because buckets * f can wrap on a hostile header.
** Layout 0 has a power of two of buckets, layout 1 an even number. */
static int check_cuckoo(const unsigned char *b, size_t body, filter_header *h,
                        char *err, size_t err_size) {
  h->fingerprint_bits = b[FILTER_OFF_FINGERPRINT_BITS];
  h->slots_per_bucket = b[FILTER_OFF_SLOTS];
  h->cuckoo_layout = b[FILTER_OFF_CUCKOO_LAYOUT];
  h->buckets = load_le64(b + FILTER_OFF_BUCKETS);
  if (h->slots_per_bucket != CUCKOO_SLOTS_PER_BUCKET)
    return fail(err, err_size, "slots per bucket is %u, not %d",
                h->slots_per_bucket, CUCKOO_SLOTS_PER_BUCKET);
  if (h->cuckoo_layout != CUCKOO_LAYOUT_XOR &&
      h->cuckoo_layout != CUCKOO_LAYOUT_SUB)
    return fail(err, err_size, "cuckoo layout %u unknown (header byte 14: "
                "0 or 1)", h->cuckoo_layout);
  if (b[FILTER_OFF_CUCKOO_LAYOUT + 1] != 0)
    return fail(err, err_size, "header byte 15 is not 0");
  unsigned f = h->fingerprint_bits;
  if (f < CUCKOO_MIN_FINGERPRINT_BITS || f > CUCKOO_MAX_FINGERPRINT_BITS)
    return fail(err, err_size, "fingerprint width %u out of range %d..%d", f,
                CUCKOO_MIN_FINGERPRINT_BITS, CUCKOO_MAX_FINGERPRINT_BITS);
  if (h->cuckoo_layout == CUCKOO_LAYOUT_XOR &&
      (h->buckets == 0 || (h->buckets & (h->buckets - 1)) != 0))
    return fail(err, err_size, "bucket count %llu is not a power of two",
                (unsigned long long)h->buckets);
  if (h->cuckoo_layout == CUCKOO_LAYOUT_SUB &&
      (h->buckets == 0 || h->buckets % 2 != 0))
    return fail(err, err_size, "bucket count %llu is not a positive even "
                "number (layout 1)", (unsigned long long)h->buckets);
  int sized = h->buckets == 1
                  ? (uint64_t)body == (CUCKOO_SLOTS_PER_BUCKET * f + 7) / 8
                  : (uint64_t)body % f == 0 &&
                        (uint64_t)body / f == h->buckets / 2;
  if (!sized)
    return fail(err, err_size,
                "header says %llu buckets of %d %u-bit slots but the blob "
                "holds %llu bytes of buckets",
                (unsigned long long)h->buckets, CUCKOO_SLOTS_PER_BUCKET, f,
                (unsigned long long)body);
  /* items <= buckets * 4, without forming the product. */
  uint64_t full = h->count / CUCKOO_SLOTS_PER_BUCKET;
  if (full > h->buckets ||
      (full == h->buckets && h->count % CUCKOO_SLOTS_PER_BUCKET != 0))
    return fail(err, err_size,
                "item count %llu exceeds the slot count (%llu buckets x %d)",
                (unsigned long long)h->count,
                (unsigned long long)h->buckets, CUCKOO_SLOTS_PER_BUCKET);
  return 0;
}

/* The body is blocks * block_bytes bytes, checked by division (the
** product can wrap).  The blocks themselves are checked by the probe that
** reads one (core/quotient.h): validation stays O(1). */
static int check_quotient(const unsigned char *b, size_t body,
                          filter_header *h, char *err, size_t err_size) {
  h->block_bytes = (unsigned)b[FILTER_OFF_BLOCK_BYTES] |
                   (unsigned)b[FILTER_OFF_BLOCK_BYTES + 1] << 8;
  h->blocks = load_le64(b + FILTER_OFF_BLOCKS);
  unsigned layout = b[FILTER_OFF_BLOCK_BYTES + 2];
  if (layout > 1 || b[FILTER_OFF_BLOCK_BYTES + 3] != 0)
    return fail(err, err_size, "header byte 14 (the layout) is not 0 or 1, "
                "or byte 15 is not 0");
  if (layout == 1) {
    /* Leaves (core/quotient_leaf.h): the directory fits the body and its
    ** last entry ends the records; each leaf is checked by its reader. */
    if (h->block_bytes != 0)
      return fail(err, err_size, "a quotient filter of leaves has a block "
                  "size of %u, not 0", h->block_bytes);
    if (qleaves_check_header(b + FILTER_HEADER_BYTES, body, h->blocks) != 0)
      return fail(err, err_size, "header says %llu leaves but the blob's "
                  "directory does not end at its %llu bytes",
                  (unsigned long long)h->blocks, (unsigned long long)body);
    return 0;
  }
  unsigned bb = h->block_bytes;
  if (bb < 64 || bb > 1024 || bb % 64 != 0)
    return fail(err, err_size, "block size %u is not a multiple of 64 from "
                "64 to 1024 bytes", bb);
  if (h->blocks == 0 || (uint64_t)body % bb != 0 ||
      (uint64_t)body / bb != h->blocks)
    return fail(err, err_size,
                "header says %llu blocks of %u bytes but the blob holds %llu "
                "bytes of blocks", (unsigned long long)h->blocks, bb,
                (unsigned long long)body);
  return 0;
}

/* O(layers) header reads, at most 64: the layers' bodies are never read.
** Lengths are subtracted from what is left of the blob, never added, so a
** hostile directory cannot wrap a sum. */
static int check_layered(const unsigned char *b, size_t len, filter_header *h,
                         char *err, size_t err_size) {
  h->layers = b[FILTER_OFF_LAYERS];
  h->growth = (unsigned)b[FILTER_OFF_GROWTH] |
              (unsigned)b[FILTER_OFF_GROWTH + 1] << 8;
  h->tightening = load_le_double(b + FILTER_OFF_TIGHTENING);
  if (h->layers < 1 || h->layers > FILTER_MAX_LAYERS)
    return fail(err, err_size, "layer count %u out of range 1..%d",
                h->layers, FILTER_MAX_LAYERS);
  if (h->growth < 1)
    return fail(err, err_size, "growth is 0, not at least 1");
  if (!(h->tightening > 0.0 && h->tightening <= 1.0))
    return fail(err, err_size, "tightening ratio out of (0,1]");
  /* The directory, padded with zeros to a multiple of 64 bytes. */
  size_t directory = (size_t)64 * ((h->layers + 7u) / 8u);
  if (len - FILTER_HEADER_BYTES < directory)
    return fail(err, err_size,
                "%llu bytes cannot hold the directory of %u layers",
                (unsigned long long)len, h->layers);
  for (size_t i = 8 * (size_t)h->layers; i < directory; i++)
    if (b[FILTER_OFF_DIRECTORY + i] != 0)
      return fail(err, err_size, "the directory's padding is not zero");
  size_t left = len - FILTER_HEADER_BYTES - directory;
  const unsigned char *layer = b + FILTER_HEADER_BYTES + directory;
  uint64_t capacity = 0, count = 0;
  for (unsigned i = 0; i < h->layers; i++) {
    uint64_t n = load_le64(b + FILTER_OFF_DIRECTORY + 8 * i);
    if (n > (uint64_t)left)
      return fail(err, err_size,
                  "layer %u is %llu bytes, past the end of the blob", i,
                  (unsigned long long)n);
    filter_view lv;
    char why[128];
    if (filter_parse(layer, (size_t)n, h->layer_kind, &lv, why, sizeof why))
      return fail(err, err_size, "layer %u: %s", i, why);
    if (lv.header.seed != h->seed)
      return fail(err, err_size, "layer %u has seed %lu, the filter %lu", i,
                  (unsigned long)lv.header.seed, (unsigned long)h->seed);
    capacity += lv.header.capacity; /* two values below 2^63: no wrap */
    if (capacity > (uint64_t)INT64_MAX) capacity = (uint64_t)INT64_MAX;
    count = saturating_add(count, lv.header.count);
    layer += n;
    left -= (size_t)n;
  }
  if (left != 0)
    return fail(err, err_size,
                "the layers' lengths leave %llu bytes at the end of the blob",
                (unsigned long long)left);
  if (capacity != h->capacity)
    return fail(err, err_size,
                "capacity %llu is not the layers' sum %llu",
                (unsigned long long)h->capacity,
                (unsigned long long)capacity);
  if (count != h->count)
    return fail(err, err_size, "count %llu is not the layers' sum %llu",
                (unsigned long long)h->count, (unsigned long long)count);
  return 0;
}

static void store_le_double(unsigned char *p, double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  store_le64(p, u);
}

filter_header filter_header_new(unsigned kind, uint64_t capacity,
                                double target_fpr) {
  filter_header h;
  memset(&h, 0, sizeof h);
  h.version = FILTER_VERSION;
  h.kind = kind;
  h.hash = FILTER_HASH_MURMUR3_X64_128;
  h.seed = FILTER_DEFAULT_SEED;
  h.capacity = capacity;
  h.target_fpr = target_fpr;
  return h;
}

void filter_write_header(unsigned char *dst, const filter_header *h) {
  memset(dst, 0, FILTER_HEADER_BYTES);
  store_le32(dst + FILTER_OFF_MAGIC, FILTER_MAGIC_LE32);
  dst[FILTER_OFF_VERSION] = (unsigned char)h->version;
  dst[FILTER_OFF_KIND] = (unsigned char)h->kind;
  dst[FILTER_OFF_HASH] = (unsigned char)h->hash;
  dst[FILTER_OFF_FLAGS] = 0;
  store_le32(dst + FILTER_OFF_SEED, h->seed);
  if (h->kind == FILTER_KIND_LAYERED) {
    dst[FILTER_OFF_LAYER_KIND] = (unsigned char)h->layer_kind;
    dst[FILTER_OFF_LAYERS] = (unsigned char)h->layers;
    dst[FILTER_OFF_GROWTH] = (unsigned char)(h->growth & 0xffu);
    dst[FILTER_OFF_GROWTH + 1] = (unsigned char)(h->growth >> 8 & 0xffu);
    store_le_double(dst + FILTER_OFF_TIGHTENING, h->tightening);
  } else if (h->kind == FILTER_KIND_QUOTIENT) {
    dst[FILTER_OFF_BLOCK_BYTES] = (unsigned char)(h->block_bytes & 0xffu);
    dst[FILTER_OFF_BLOCK_BYTES + 1] = (unsigned char)(h->block_bytes >> 8);
    dst[FILTER_OFF_BLOCK_BYTES + 2] = h->block_bytes == 0; /* layout 1 */
    store_le64(dst + FILTER_OFF_BLOCKS, h->blocks);
  } else if (h->kind == FILTER_KIND_CUCKOO) {
    dst[FILTER_OFF_FINGERPRINT_BITS] = (unsigned char)h->fingerprint_bits;
    dst[FILTER_OFF_SLOTS] = (unsigned char)h->slots_per_bucket;
    dst[FILTER_OFF_CUCKOO_LAYOUT] = (unsigned char)h->cuckoo_layout;
    store_le64(dst + FILTER_OFF_BUCKETS, h->buckets);
  } else {
    store_le32(dst + FILTER_OFF_HASHES, h->hashes);
    store_le64(dst + FILTER_OFF_BITS, h->bits);
  }
  store_le64(dst + FILTER_OFF_CAPACITY, h->capacity);
  store_le_double(dst + FILTER_OFF_TARGET_FPR, h->target_fpr);
  store_le64(dst + FILTER_OFF_COUNT, h->count);
}

void filter_write_count(unsigned char *dst, uint64_t count) {
  store_le64(dst + FILTER_OFF_COUNT, count);
}
