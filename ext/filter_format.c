/*
** Header parse and write for the filter blob format (FORMAT.md).
**
** filter_parse() is the single gate every blob goes through.  It reads only
** the 64 header bytes and compares sizes, so it costs the same on a 1 KB and
** a 100 MB filter.  All size arithmetic is done so that it cannot wrap:
** the body length is derived from the blob length (which fits in size_t)
** and compared against fields, never the other way round.
*/
#include "filter_format.h"

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
  OFF_HASHES = 12,
  OFF_BITS = 16,
  OFF_CAPACITY = 24,
  OFF_TARGET_FPR = 32,
  OFF_INSERTED = 40,
  OFF_RESERVED = 48
};

const char *filter_kind_name(unsigned kind) {
  switch (kind) {
    case FILTER_KIND_BLOOM: return "bloom";
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

int filter_parse(const void *blob, size_t len, unsigned want_kind,
                 filter_view *view, char *err, size_t err_size) {
  const unsigned char *b = blob;
  filter_header *h = &view->h;

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
  if (h->kind != FILTER_KIND_BLOOM)
    return fail(err, err_size, "unknown filter kind %u", h->kind);
  if (want_kind && h->kind != want_kind)
    return fail(err, err_size, "got a %s filter, expected a %s filter",
                filter_kind_name(h->kind), filter_kind_name(want_kind));
  h->hash = b[OFF_HASH];
  if (h->hash != FILTER_HASH_MURMUR3_X64_128)
    return fail(err, err_size, "unknown hash function id %u", h->hash);
  if (b[OFF_FLAGS] != 0)
    return fail(err, err_size, "unknown flags 0x%02x", b[OFF_FLAGS]);
  for (int i = OFF_RESERVED; i < FILTER_HEADER_BYTES; i++)
    if (b[i] != 0)
      return fail(err, err_size, "reserved header byte %d is %u, not 0", i,
                  b[i]);

  h->seed = load_le32(b + OFF_SEED);
  h->hashes = load_le32(b + OFF_HASHES);
  h->bits = load_le64(b + OFF_BITS);
  h->capacity = load_le64(b + OFF_CAPACITY);
  h->target_fpr = load_le_double(b + OFF_TARGET_FPR);
  h->inserted = load_le64(b + OFF_INSERTED);

  if (h->capacity == 0 || h->capacity > (uint64_t)INT64_MAX)
    return fail(err, err_size, "capacity %llu out of range",
                (unsigned long long)h->capacity);
  /* Written as a negated range test so that NaN fails too. */
  if (!(h->target_fpr > 0.0 && h->target_fpr < 1.0))
    return fail(err, err_size, "target false-positive rate out of (0,1)");

  /* kind == FILTER_KIND_BLOOM */
  if (h->hashes < 1 || h->hashes > BLOOM_MAX_HASHES)
    return fail(err, err_size, "hash count %u out of range 1..%d",
                (unsigned)h->hashes, BLOOM_MAX_HASHES);
  if (h->bits == 0 || h->bits % BLOOM_BLOCK_BITS != 0)
    return fail(err, err_size,
                "bit count %llu is not a positive multiple of %d",
                (unsigned long long)h->bits, BLOOM_BLOCK_BITS);
  /* Compare bits/8 with the body length: no multiplication, no wrap. */
  size_t body = len - FILTER_HEADER_BYTES;
  if (h->bits / 8 != (uint64_t)body)
    return fail(err, err_size,
                "header says %llu bits but the blob holds %llu bytes of bits",
                (unsigned long long)h->bits, (unsigned long long)body);
  view->blob = b;
  view->blob_bytes = len;
  view->body = b + FILTER_HEADER_BYTES;
  view->body_bytes = body;
  return 0;
}

static void store_le_double(unsigned char *p, double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  store_le64(p, u);
}

void filter_write_header(unsigned char *dst, const filter_header *h) {
  memset(dst, 0, FILTER_HEADER_BYTES);
  memcpy(dst + OFF_MAGIC, MAGIC, sizeof MAGIC);
  dst[OFF_VERSION] = (unsigned char)h->version;
  dst[OFF_KIND] = (unsigned char)h->kind;
  dst[OFF_HASH] = (unsigned char)h->hash;
  dst[OFF_FLAGS] = 0;
  store_le32(dst + OFF_SEED, h->seed);
  store_le32(dst + OFF_HASHES, h->hashes);
  store_le64(dst + OFF_BITS, h->bits);
  store_le64(dst + OFF_CAPACITY, h->capacity);
  store_le_double(dst + OFF_TARGET_FPR, h->target_fpr);
  store_le64(dst + OFF_INSERTED, h->inserted);
}

void filter_write_inserted(unsigned char *dst, uint64_t inserted) {
  store_le64(dst + OFF_INSERTED, inserted);
}
