/*
** Header parse and write for the filter blob format (FORMAT.md).
**
** filter_parse() is the single gate every blob goes through.  It reads only
** the 64 header bytes and compares sizes, so it costs the same on a 1 KB and
** a 100 MB filter.  All size arithmetic is done so that it cannot wrap:
** the body length is derived from the blob length (which fits in size_t)
** and compared against fields, never the other way round.
*/
#include "core/format.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const unsigned char MAGIC[4] = {'B', 'L', 'M', 'F'};

/* Offsets of the header fields; FORMAT.md has the same table. */
enum {
  OFF_MAGIC = 0,
  OFF_VERSION = 4,
  OFF_KIND = 5,
  OFF_HASH = 6,
  OFF_FLAGS = 7,
  OFF_SEED = 8,
  OFF_HASHES = 12,           /* bloom */
  OFF_FINGERPRINT_BITS = 12, /* cuckoo: u8 */
  OFF_SLOTS = 13,            /* cuckoo: u8; bytes 14-15 zero */
  OFF_BITS = 16,             /* bloom */
  OFF_BUCKETS = 16,          /* cuckoo */
  OFF_CAPACITY = 24,
  OFF_TARGET_FPR = 32,
  OFF_COUNT = 40,
  OFF_RESERVED = 48
};

const char *filter_kind_name(unsigned kind) {
  switch (kind) {
    case FILTER_KIND_BLOOM: return "bloom";
    case FILTER_KIND_CUCKOO: return "cuckoo";
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

int filter_parse(const void *blob, size_t len, unsigned want_kind,
                 filter_view *view, char *err, size_t err_size) {
  const unsigned char *b = blob;
  filter_header *h = &view->header;

  if (b == NULL || len < FILTER_HEADER_BYTES)
    return fail(err, err_size,
                "not a filter: %llu bytes is shorter than the %d-byte header",
                (unsigned long long)len, FILTER_HEADER_BYTES);
  if (memcmp(b + OFF_MAGIC, MAGIC, sizeof MAGIC) != 0)
    return fail(err, err_size, "not a filter: bad magic");
  h->version = b[OFF_VERSION];
  if (h->version != FILTER_VERSION)
    return fail(err, err_size,
                "unsupported format version %u (this build reads version %d)",
                h->version, FILTER_VERSION);
  h->kind = b[OFF_KIND];
  if (h->kind != FILTER_KIND_BLOOM && h->kind != FILTER_KIND_CUCKOO)
    return fail(err, err_size, "unknown filter kind %u", h->kind);
  if (want_kind && h->kind != want_kind)
    return fail(err, err_size, "got a %s filter, expected a %s filter",
                filter_kind_name(h->kind), filter_kind_name(want_kind));
  h->hash = b[OFF_HASH];
  if (h->hash != FILTER_HASH_MURMUR3_X64_128)
    return fail(err, err_size, "unknown hash function id %u", h->hash);
  if (b[OFF_FLAGS] != 0)
    return fail(err, err_size, "unknown flags 0x%02x", b[OFF_FLAGS]);
  if ((load_le64(b + OFF_RESERVED) | load_le64(b + OFF_RESERVED + 8)) != 0) {
    int i = OFF_RESERVED;
    while (b[i] == 0) i++;
    return fail(err, err_size, "reserved header byte %d is %u, not 0", i, b[i]);
  }

  h->seed = load_le32(b + OFF_SEED);
  h->hashes = 0;
  h->bits = 0;
  h->fingerprint_bits = 0;
  h->slots_per_bucket = 0;
  h->buckets = 0;
  h->capacity = load_le64(b + OFF_CAPACITY);
  h->target_fpr = load_le_double(b + OFF_TARGET_FPR);
  h->count = load_le64(b + OFF_COUNT);

  if (h->capacity == 0 || h->capacity > (uint64_t)INT64_MAX)
    return fail(err, err_size, "capacity %llu out of range",
                (unsigned long long)h->capacity);
  /* Written as a negated range test so that NaN fails too. */
  if (!(h->target_fpr > 0.0 && h->target_fpr < 1.0))
    return fail(err, err_size, "target false-positive rate out of (0,1)");

  size_t body = len - FILTER_HEADER_BYTES;
  if (h->kind == FILTER_KIND_CUCKOO) {
    if (check_cuckoo(b, body, h, err, err_size) != 0) return -1;
  } else if (check_bloom(b, body, h, err, err_size) != 0) {
    return -1;
  }
  view->blob = b;
  view->blob_bytes = len;
  view->body = b + FILTER_HEADER_BYTES;
  view->body_bytes = body;
  return 0;
}

static int check_bloom(const unsigned char *b, size_t body, filter_header *h,
                       char *err, size_t err_size) {
  h->hashes = load_le32(b + OFF_HASHES);
  h->bits = load_le64(b + OFF_BITS);
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
** (division only), because buckets * f can wrap on a hostile header. */
static int check_cuckoo(const unsigned char *b, size_t body, filter_header *h,
                        char *err, size_t err_size) {
  h->fingerprint_bits = b[OFF_FINGERPRINT_BITS];
  h->slots_per_bucket = b[OFF_SLOTS];
  h->buckets = load_le64(b + OFF_BUCKETS);
  if (h->slots_per_bucket != CUCKOO_SLOTS_PER_BUCKET)
    return fail(err, err_size, "slots per bucket is %u, not %d",
                h->slots_per_bucket, CUCKOO_SLOTS_PER_BUCKET);
  if (b[OFF_SLOTS + 1] != 0 || b[OFF_SLOTS + 2] != 0)
    return fail(err, err_size, "header bytes 14-15 are not 0");
  unsigned f = h->fingerprint_bits;
  if (f < CUCKOO_MIN_FINGERPRINT_BITS || f > CUCKOO_MAX_FINGERPRINT_BITS)
    return fail(err, err_size, "fingerprint width %u out of range %d..%d", f,
                CUCKOO_MIN_FINGERPRINT_BITS, CUCKOO_MAX_FINGERPRINT_BITS);
  if (h->buckets == 0 || (h->buckets & (h->buckets - 1)) != 0)
    return fail(err, err_size, "bucket count %llu is not a power of two",
                (unsigned long long)h->buckets);
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
  memcpy(dst + OFF_MAGIC, MAGIC, sizeof MAGIC);
  dst[OFF_VERSION] = (unsigned char)h->version;
  dst[OFF_KIND] = (unsigned char)h->kind;
  dst[OFF_HASH] = (unsigned char)h->hash;
  dst[OFF_FLAGS] = 0;
  store_le32(dst + OFF_SEED, h->seed);
  if (h->kind == FILTER_KIND_CUCKOO) {
    dst[OFF_FINGERPRINT_BITS] = (unsigned char)h->fingerprint_bits;
    dst[OFF_SLOTS] = (unsigned char)h->slots_per_bucket;
    store_le64(dst + OFF_BUCKETS, h->buckets);
  } else {
    store_le32(dst + OFF_HASHES, h->hashes);
    store_le64(dst + OFF_BITS, h->bits);
  }
  store_le64(dst + OFF_CAPACITY, h->capacity);
  store_le_double(dst + OFF_TARGET_FPR, h->target_fpr);
  store_le64(dst + OFF_COUNT, h->count);
}

void filter_write_count(unsigned char *dst, uint64_t count) {
  store_le64(dst + OFF_COUNT, count);
}
