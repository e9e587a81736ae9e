/*
** Unit tests of layered filters (kind 3) in the core: the writer's bytes
** read back by FORMAT.md's offsets, the two-step writer against the
** one-call writer, filter_parse's want_kind rules, layer views, membership
** as the OR of the layers' answers (random hashes from a fixed, printed
** seed), no false negative, and one malformed blob per validation rule,
** each made by damaging a valid blob and judged also by bloom_spec.h's
** independent reading of FORMAT.md.  Blobs live in exactly sized heap
** buffers so that the ASan build sees any over-read.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bloom.h"
#include "core/cuckoo.h"
#include "core/filter.h"
#include "core/format.h"
#include "core/layered.h"
#include "lib/bloom_spec.h"
#include "lib/rng.h"
#include "lib/tap.h"

#define LAYERS 3

typedef struct blob {
  unsigned char *p;
  size_t n;
} blob;

static filter_hash random_hash(void) {
  filter_hash h;
  h.h1 = rng_next();
  h.h2 = rng_next();
  return h;
}

/* Items given to layer i: hashes [start[i], start[i] + n[i]) of the seeded
** stream, kept to check for false negatives. */
static filter_hash items[LAYERS][400];

/* The layers' seed: not the default 0, so that a writer that wrote 0 for
** the outer seed would be caught (the items are given as hashes, so the
** seed does not change their bits). */
#define LAYER_SEED 0x1234u
static unsigned item_count[LAYERS];

/* A Bloom layer for n items at rate p, with `fill` random items added. */
static blob bloom_layer(uint64_t n, double p, unsigned layer, unsigned fill) {
  bloom_sizing s;
  if (bloom_sizing_for(n, p, UINT64_MAX, &s) != BLOOM_SIZING_OK) abort();
  blob b = {malloc(s.bytes), (size_t)s.bytes};
  bloom_write_empty(b.p, &s);
  put_le32(b.p + 8, LAYER_SEED);
  for (unsigned i = 0; i < fill; i++) {
    filter_hash h = random_hash();
    bloom_insert(b.p + 64, s.bits / 512, s.hashes, h);
    items[layer][i] = h;
  }
  item_count[layer] = fill;
  filter_write_count(b.p, fill);
  return b;
}

static blob cuckoo_layer(uint64_t n, double p, unsigned layer, unsigned fill) {
  cuckoo_sizing s;
  if (cuckoo_sizing_for(n, p, FILTER_MIN_FPR, UINT64_MAX, &s) !=
      CUCKOO_SIZING_OK)
    abort();
  blob b = {malloc(s.bytes), (size_t)s.bytes};
  cuckoo_write_empty(b.p, &s);
  put_le32(b.p + 8, LAYER_SEED);
  unsigned placed = 0;
  for (unsigned i = 0; i < fill; i++) {
    filter_hash h = random_hash();
    if (cuckoo_insert(b.p + 64, cuckoo_shape_of_sizing(&s), h) == CUCKOO_OK)
      items[layer][placed++] = h;
  }
  item_count[layer] = placed;
  filter_write_count(b.p, placed);
  return b;
}

static const layered_params params = {2, 0.5, 0.02};

/* The layered blob of the three layers, by the one-call writer. */
static blob write_layered(blob *layers, unsigned kind) {
  filter_view v[LAYERS];
  char why[200];
  for (unsigned i = 0; i < LAYERS; i++)
    if (filter_parse(layers[i].p, layers[i].n, kind, &v[i], why, sizeof why))
      abort();
  filter_header h[LAYERS];
  for (unsigned i = 0; i < LAYERS; i++) h[i] = v[i].header;
  layered_placement where;
  if (layered_place(h, LAYERS, &params, &where, why, sizeof why)) abort();
  blob out = {malloc(where.total_bytes), (size_t)where.total_bytes};
  int rc = layered_write(out.p, where.total_bytes, v, LAYERS, &params, why,
                         sizeof why);
  tap_ok(rc == 0, "%s: layered_write succeeds", filter_kind_name(kind));
  if (rc) tap_diag("  %s", why);
  return out;
}

/* The outer header and directory as FORMAT.md lays them out. */
static void check_bytes(const blob *out, blob *layers, unsigned kind) {
  const unsigned char *b = out->p;
  const char *k = filter_kind_name(kind);
  size_t want_len = 64 + spec_layered_directory(LAYERS);
  uint64_t capacity = 0, count = 0;
  for (unsigned i = 0; i < LAYERS; i++) {
    want_len += layers[i].n;
    capacity += le64(layers[i].p + 24);
    count += le64(layers[i].p + 40);
  }
  TAP_EQ_U64(out->n, want_len, "%s: length is 64 + the directory (8L padded to 64) + the layers'", k);
  tap_ok(memcmp(b, "BLMF", 4) == 0 && b[4] == 1 && b[5] == 3 && b[6] == 1 &&
             b[7] == 0,
         "%s: magic, version 1, kind 3, hash 1, flags 0", k);
  TAP_EQ_U64(le32(b + 8), LAYER_SEED, "%s: seed of the layers", k);
  TAP_EQ_U64(b[12], kind, "%s: layer_kind", k);
  TAP_EQ_U64(b[13], LAYERS, "%s: layer count", k);
  TAP_EQ_U64(b[14] + 256u * b[15], params.growth, "%s: growth", k);
  tap_ok(le_double(b + 16) == params.tightening, "%s: tightening", k);
  TAP_EQ_U64(le64(b + 24), capacity, "%s: capacity is the layers' sum", k);
  tap_ok(le_double(b + 32) == params.target_fpr, "%s: target_fpr", k);
  TAP_EQ_U64(le64(b + 40), count, "%s: count is the layers' sum", k);
  int zero = 1;
  for (int i = 48; i < 64; i++) zero &= b[i] == 0;
  tap_ok(zero, "%s: reserved bytes zero", k);
  int padded = 1;
  for (size_t i = 8 * LAYERS; i < spec_layered_directory(LAYERS); i++) padded &= b[64 + i] == 0;
  tap_ok(padded, "%s: the directory is padded with zeros to 64 bytes", k);
  size_t at = 64 + spec_layered_directory(LAYERS);
  int same = 1;
  for (unsigned i = 0; i < LAYERS; i++) {
    same &= le64(b + 64 + 8 * i) == layers[i].n;
    same &= memcmp(b + at, layers[i].p, layers[i].n) == 0;
    at += layers[i].n;
  }
  tap_ok(same, "%s: directory and layers byte for byte, oldest first", k);
  tap_ok(spec_layered_valid(b, out->n, kind),
         "%s: FORMAT.md's reading accepts it", k);
}

/* The store's way: placement, header, then each body in place. */
static void check_two_step(const blob *out, blob *layers, unsigned kind) {
  filter_header h[LAYERS];
  char why[200];
  for (unsigned i = 0; i < LAYERS; i++) {
    filter_view v;
    filter_parse(layers[i].p, layers[i].n, kind, &v, why, sizeof why);
    h[i] = v.header;
  }
  layered_placement where;
  layered_place(h, LAYERS, &params, &where, why, sizeof why);
  unsigned char *buf = malloc(where.total_bytes);
  memset(buf, 0xAB, where.total_bytes);
  layered_write_header(buf, h, &params, &where);
  for (unsigned i = 0; i < LAYERS; i++)
    memcpy(buf + where.layer_offset[i] + 64, layers[i].p + 64,
           where.layer_bytes[i] - 64);
  tap_ok(where.total_bytes == out->n && memcmp(buf, out->p, out->n) == 0,
         "%s: header then bodies in place gives the one-call bytes",
         filter_kind_name(kind));
  TAP_EQ_U64(layered_header_bytes(LAYERS), 64 + spec_layered_directory(LAYERS),
             "layered_header_bytes(3)");
  free(buf);
}

static void check_parse(const blob *out, blob *layers, unsigned kind) {
  const char *k = filter_kind_name(kind);
  unsigned other = kind == FILTER_KIND_BLOOM ? FILTER_KIND_CUCKOO
                                             : FILTER_KIND_BLOOM;
  filter_view f;
  char why[200] = "";
  int rc = filter_parse(out->p, out->n, kind | FILTER_WANT_LAYERED, &f, why,
                        sizeof why);
  tap_ok(rc == 0, "%s: parses with FILTER_WANT_LAYERED", k);
  if (rc) tap_diag("  %s", why);
  tap_ok(filter_parse(out->p, out->n, FILTER_WANT_LAYERED, &f, NULL, 0) == 0,
         "%s: parses as any kind with FILTER_WANT_LAYERED", k);
  rc = filter_parse(out->p, out->n, kind, &f, why, sizeof why);
  tap_ok(rc != 0 && strstr(why, "layered filter") != NULL,
         "%s: refused without FILTER_WANT_LAYERED (%s)", k, why);
  rc = filter_parse(out->p, out->n, other | FILTER_WANT_LAYERED, &f, why,
                    sizeof why);
  tap_ok(rc != 0 && strstr(why, "layered") != NULL,
         "%s: refused as the other kind (%s)", k, why);
  filter_parse(out->p, out->n, kind | FILTER_WANT_LAYERED, &f, NULL, 0);
  TAP_EQ_U64(filter_layer_count(&f), LAYERS, "%s: three layers", k);
  int views = 1, walked = 1;
  filter_layer_walk w = filter_layers_of(&f), back = filter_layers_newest(&f);
  filter_view forward[LAYERS];
  for (unsigned i = 0; i < LAYERS; i++) {
    filter_view *l = &forward[i];
    filter_layer_next(&w, l);
    views &= l->blob_bytes == layers[i].n &&
             memcmp(l->blob, layers[i].p, layers[i].n) == 0 &&
             l->header.kind == kind;
  }
  for (unsigned i = LAYERS; i-- > 0;) {
    filter_view l;
    filter_layer_prev(&back, &l);
    walked &= l.blob == forward[i].blob && l.blob_bytes == forward[i].blob_bytes &&
              l.body == forward[i].body;
  }
  tap_ok(views, "%s: filter_layer_next gives each layer's bytes, in order", k);
  tap_ok(walked, "%s: filter_layer_prev gives the same layers, newest first",
         k);
  filter_view plain, l0, l0_back;
  filter_parse(layers[0].p, layers[0].n, kind, &plain, NULL, 0);
  filter_layer_walk wp = filter_layers_of(&plain),
                    bp = filter_layers_newest(&plain);
  filter_layer_next(&wp, &l0);
  filter_layer_prev(&bp, &l0_back);
  tap_ok(filter_layer_count(&plain) == 1 && l0.blob == plain.blob &&
             l0_back.blob == plain.blob,
         "%s: a plain filter is its own only layer", k);

  /* Membership: the OR of the layers, and every item found. */
  filter_view lv[LAYERS];
  for (unsigned i = 0; i < LAYERS; i++)
    filter_parse(layers[i].p, layers[i].n, kind, &lv[i], NULL, 0);
  unsigned agree = 0, maybe = 0, trials = 20000;
  for (unsigned t = 0; t < trials; t++) {
    filter_hash h = random_hash();
    int any = 0;
    for (unsigned i = 0; i < LAYERS; i++) any |= filter_contains(&lv[i], h);
    int got = filter_contains(&f, h);
    agree += got == any;
    maybe += (unsigned)got;
  }
  TAP_EQ_U64(agree, trials, "%s: membership equals the OR of the layers "
             "over %u random hashes (%u maybe)", k, trials, maybe);
  unsigned found = 0, total = 0;
  for (unsigned i = 0; i < LAYERS; i++)
    for (unsigned j = 0; j < item_count[i]; j++, total++)
      found += (unsigned)filter_contains(&f, items[i][j]);
  TAP_EQ_U64(found, total, "%s: no false negative among %u items", k, total);
}

/* One damaged copy per rule: refused by filter_parse with the reason
** expected, and by FORMAT.md's reading. */
static void expect_refused(const blob *good, unsigned kind, const char *rule,
                           void (*damage)(unsigned char *, size_t *),
                           const char *reason) {
  size_t n = good->n;
  /* a damage may lengthen the blob by a byte, which is then 0 */
  unsigned char *tmp = calloc(1, n + 1);
  memcpy(tmp, good->p, n);
  damage(tmp, &n);
  unsigned char *b = malloc(n ? n : 1);
  memcpy(b, tmp, n);
  free(tmp);
  filter_view f;
  char why[200] = "";
  /* Any kind, so that each rule is met by its own check. */
  int rc = filter_parse(b, n, FILTER_WANT_LAYERED, &f, why, sizeof why);
  int spec = spec_layered_valid(b, n, 1) || spec_layered_valid(b, n, 2);
  tap_ok(rc != 0 && !spec && strstr(why, reason) != NULL,
         "%s: %s is refused (%s)", filter_kind_name(kind), rule, why);
  free(b);
}

static uint64_t layer0_at(const unsigned char *b) {
  return 64 + spec_layered_directory(b[13]);
}
static void d_layers0(unsigned char *b, size_t *n) { (void)n; b[13] = 0; }
static void d_layers65(unsigned char *b, size_t *n) { (void)n; b[13] = 65; }
static void d_layer_kind3(unsigned char *b, size_t *n) { (void)n; b[12] = 3; }
static void d_layer_kind0(unsigned char *b, size_t *n) { (void)n; b[12] = 0; }
static void d_growth0(unsigned char *b, size_t *n) {
  (void)n;
  b[14] = b[15] = 0;
}
static void d_tightening0(unsigned char *b, size_t *n) {
  (void)n;
  put_le_double(b + 16, 0.0);
}
static void d_tightening_big(unsigned char *b, size_t *n) {
  (void)n;
  put_le_double(b + 16, 1.5);
}
static void d_tightening_nan(unsigned char *b, size_t *n) {
  (void)n;
  put_le_double(b + 16, NAN);
}
static void d_short_directory(unsigned char *b, size_t *n) {
  (void)b;
  *n = 64 + spec_layered_directory(3) - 1;
}
static void d_padding(unsigned char *b, size_t *n) {
  (void)n;
  b[64 + 8 * 3] = 1; /* the first byte after the 3 lengths */
}
static void d_length_past_end(unsigned char *b, size_t *n) {
  (void)n;
  put_le64(b + 64 + 8 * 2, le64(b + 64 + 8 * 2) + 1);
}
static void d_length_huge(unsigned char *b, size_t *n) {
  (void)n;
  put_le64(b + 64, UINT64_MAX);
}
static void d_lengths_short(unsigned char *b, size_t *n) {
  /* one trailing byte the directory does not cover */
  (void)b;
  *n += 1;
}
static void d_trailing(unsigned char *b, size_t *n) {
  (void)b;
  *n -= 1;
}
static void d_bad_layer(unsigned char *b, size_t *n) {
  (void)n;
  b[layer0_at(b)] = 'X'; /* layer 0's magic */
}
static void d_layer_version(unsigned char *b, size_t *n) {
  (void)n;
  b[layer0_at(b) + le64(b + 64) + 4] = 2; /* layer 1's version */
}
static void d_mixed_seed(unsigned char *b, size_t *n) {
  (void)n;
  put_le32(b + layer0_at(b) + 8, 7); /* layer 0's seed only */
}
static void d_outer_seed(unsigned char *b, size_t *n) {
  (void)n;
  put_le32(b + 8, 7);
}
static void d_capacity(unsigned char *b, size_t *n) {
  (void)n;
  put_le64(b + 24, le64(b + 24) + 1);
}
static void d_count(unsigned char *b, size_t *n) {
  (void)n;
  put_le64(b + 40, le64(b + 40) + 1);
}
static void d_layer_capacity(unsigned char *b, size_t *n) {
  (void)n;
  uint64_t at = layer0_at(b) + 24;
  put_le64(b + at, le64(b + at) + 1);
}
static void d_nested(unsigned char *b, size_t *n) {
  (void)n;
  b[layer0_at(b) + 5] = 3; /* layer 0 claims to be layered */
}
static void d_other_kind(unsigned char *b, size_t *n) {
  (void)n;
  b[12] = b[12] == 1 ? 2 : 1; /* layers of the other kind than declared */
}

static void check_malformed(const blob *good, unsigned kind) {
  expect_refused(good, kind, "0 layers", d_layers0, "layer count 0");
  expect_refused(good, kind, "65 layers", d_layers65, "layer count 65");
  expect_refused(good, kind, "layer_kind 3 (nesting)", d_layer_kind3,
                 "layer kind 1 (bloom) or 2 (cuckoo), not 3");
  expect_refused(good, kind, "layer_kind 0", d_layer_kind0,
                 "layer kind 1 (bloom) or 2 (cuckoo), not 0");
  expect_refused(good, kind, "growth 0", d_growth0, "growth");
  expect_refused(good, kind, "tightening 0", d_tightening0, "tightening");
  expect_refused(good, kind, "tightening 1.5", d_tightening_big, "tightening");
  expect_refused(good, kind, "tightening NaN", d_tightening_nan, "tightening");
  expect_refused(good, kind, "a blob shorter than the directory",
                 d_short_directory, "directory");
  expect_refused(good, kind, "a padding byte of the directory set",
                 d_padding, "padding");
  expect_refused(good, kind, "a layer length past the end",
                 d_length_past_end, "past the end");
  expect_refused(good, kind, "a layer length of 2^64-1", d_length_huge,
                 "past the end");
  expect_refused(good, kind, "lengths summing short of the blob",
                 d_lengths_short, "leave 1 bytes");
  expect_refused(good, kind, "a blob one byte short", d_trailing,
                 "past the end");
  expect_refused(good, kind, "a layer with a bad magic", d_bad_layer,
                 "layer 0: not a filter");
  expect_refused(good, kind, "a layer of version 2", d_layer_version,
                 "layer 1: unsupported format version");
  expect_refused(good, kind, "one layer with another seed", d_mixed_seed,
                 "layer 0 has seed 7");
  expect_refused(good, kind, "an outer seed unlike the layers'", d_outer_seed,
                 "has seed 4660, the filter 7"); /* 0x1234 */
  expect_refused(good, kind, "a capacity that is not the sum", d_capacity,
                 "capacity");
  expect_refused(good, kind, "a layer capacity off the sum", d_layer_capacity,
                 "is not the layers' sum");
  expect_refused(good, kind, "a count that is not the sum", d_count,
                 "count");
  expect_refused(good, kind, "a layered layer (nesting)", d_nested,
                 "layer 0: a layered filter");
  expect_refused(good, kind, "layers of the other kind", d_other_kind,
                 "layer 0");
}

static void check_placement_errors(blob *bl, blob *cu) {
  filter_view b, c;
  filter_parse(bl[0].p, bl[0].n, FILTER_KIND_BLOOM, &b, NULL, 0);
  filter_parse(cu[0].p, cu[0].n, FILTER_KIND_CUCKOO, &c, NULL, 0);
  filter_header h[FILTER_MAX_LAYERS + 1];
  layered_placement where;
  char why[200] = "";
  for (unsigned i = 0; i <= FILTER_MAX_LAYERS; i++) h[i] = b.header;
  tap_ok(layered_place(h, 0, &params, &where, why, sizeof why) != 0,
         "layered_place: 0 layers refused (%s)", why);
  tap_ok(layered_place(h, FILTER_MAX_LAYERS + 1, &params, &where, why,
                          sizeof why) != 0,
         "layered_place: 65 layers refused (%s)", why);
  tap_ok(layered_place(h, FILTER_MAX_LAYERS, &params, &where, why,
                          sizeof why) == 0 &&
             where.total_bytes == 64 + spec_layered_directory(64) + 64 * bl[0].n,
         "layered_place: 64 layers accepted, sized 64 + 8*64 + 64 layers");
  h[1] = c.header;
  tap_ok(layered_place(h, 2, &params, &where, why, sizeof why) != 0 &&
             strstr(why, "layer 1") != NULL,
         "layered_place: mixed kinds refused (%s)", why);
  h[1] = b.header;
  h[1].seed = 9;
  tap_ok(layered_place(h, 2, &params, &where, why, sizeof why) != 0 &&
             strstr(why, "seed") != NULL,
         "layered_place: mixed seeds refused (%s)", why);
  h[1] = b.header;
  layered_params bad = params;
  bad.growth = 0;
  tap_ok(layered_place(h, 2, &bad, &where, why, sizeof why) != 0,
         "layered_place: growth 0 refused (%s)", why);
  bad = params;
  bad.target_fpr = 1.0;
  tap_ok(layered_place(h, 2, &bad, &where, why, sizeof why) != 0,
         "layered_place: target_fpr 1 refused (%s)", why);
  bad = params;
  bad.tightening = 0.0;
  tap_ok(layered_place(h, 2, &bad, &where, why, sizeof why) != 0,
         "layered_place: tightening 0 refused (%s)", why);
  /* Counts that saturate: the outer count stops at 2^64 - 1. */
  h[0].count = UINT64_MAX - 1;
  h[1].count = 5;
  layered_place(h, 2, &params, &where, why, sizeof why);
  TAP_EQ_U64(where.count, UINT64_MAX, "layered_place: count saturates at 2^64-1");
  h[0].capacity = (uint64_t)INT64_MAX;
  layered_place(h, 2, &params, &where, why, sizeof why);
  TAP_EQ_U64(where.capacity, (uint64_t)INT64_MAX,
             "layered_place: capacity saturates at 2^63-1");
}

int main(void) {
  rng_seed(0x1a7e4edf11e4ULL, "layered layers and probes");
  blob bl[LAYERS], cu[LAYERS];
  bl[0] = bloom_layer(100, 0.01, 0, 100);
  bl[1] = bloom_layer(200, 0.005, 1, 200);
  bl[2] = bloom_layer(400, 0.0025, 2, 150);
  blob bout = write_layered(bl, FILTER_KIND_BLOOM);
  check_bytes(&bout, bl, FILTER_KIND_BLOOM);
  check_two_step(&bout, bl, FILTER_KIND_BLOOM);
  check_parse(&bout, bl, FILTER_KIND_BLOOM);
  check_malformed(&bout, FILTER_KIND_BLOOM);

  cu[0] = cuckoo_layer(100, 0.01, 0, 100);
  cu[1] = cuckoo_layer(200, 0.005, 1, 200);
  cu[2] = cuckoo_layer(400, 0.0025, 2, 150);
  blob cout = write_layered(cu, FILTER_KIND_CUCKOO);
  check_bytes(&cout, cu, FILTER_KIND_CUCKOO);
  check_two_step(&cout, cu, FILTER_KIND_CUCKOO);
  check_parse(&cout, cu, FILTER_KIND_CUCKOO);
  check_malformed(&cout, FILTER_KIND_CUCKOO);

  check_placement_errors(bl, cu);

  for (unsigned i = 0; i < LAYERS; i++) {
    free(bl[i].p);
    free(cu[i].p);
  }
  free(bout.p);
  free(cout.p);
  return tap_done();
}
