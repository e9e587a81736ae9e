/*
** A cuckoo filter's sizing, written from ext/FORMAT.md alone ("How this
** version places fingerprints and sizes filters"), for the tests that
** compare the extension with it: B is 2 for n <= 7, otherwise the smallest
** even number from 4 with n <= floor(4B * L), L = 0.95 when B <= 2 and
** min(0.95, 1 - 2.6 / sqrt(4B)) beyond; f is the smallest width in 4..64
** with fpr(n / 4B) <= 0.97 p, where fpr(load) = 1 - (1 - 1/(2^f - 1))^(8
** load) (4 load when B = 1, which only layout 0 has); the blob is 64 +
** ceil(4Bf / 8) bytes.  Long double, log1p/expm1, a linear search: not
** the code's way.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef TESTS_CUCKOO_SPEC_H
#define TESTS_CUCKOO_SPEC_H

#include <math.h>
#include <stdint.h>

/* floor(4B * L): the most items the sizing puts in B buckets. */
static inline uint64_t spec_cuckoo_items(uint64_t buckets) {
  long double slots = 4.0L * (long double)buckets, limit = 0.95L;
  if (buckets > 2 && 1.0L - 2.6L / sqrtl(slots) < limit)
    limit = 1.0L - 2.6L / sqrtl(slots);
  return (uint64_t)floorl(slots * limit);
}

/* fpr(load) for f-bit fingerprints in B buckets. */
static inline double spec_cuckoo_fpr(double load, unsigned f,
                                     uint64_t buckets) {
  long double compared = (buckets == 1 ? 4.0L : 8.0L) * (long double)load;
  long double one_slot = 1.0L / (ldexpl(1.0L, (int)f) - 1.0L);
  return (double)-expm1l(compared * log1pl(-one_slot));
}

typedef struct spec_cuckoo_sizing {
  uint64_t buckets, bytes;
  unsigned f;
  double fpr; /* the model at n items */
} spec_cuckoo_sizing;

/* B for n: from an estimate below it (load 0.95 at most), up by 2. */
static inline uint64_t spec_cuckoo_buckets(uint64_t n) {
  if (n <= 7) return 2;
  uint64_t b = (uint64_t)((long double)n / (4.0L * 0.95L)) & ~(uint64_t)1;
  b = b > 16 ? b - 16 : 4;
  while (n > spec_cuckoo_items(b)) b += 2;
  return b;
}

/* The sizing for n and p: 1, or 0 if no width up to 64 meets p. */
static inline int spec_cuckoo_sizing_for(uint64_t n, double p,
                                         spec_cuckoo_sizing *out) {
  uint64_t b = spec_cuckoo_buckets(n);
  double load = (double)n / (4.0 * (double)b);
  for (unsigned f = 4; f <= 64; f++) {
    double fpr = spec_cuckoo_fpr(load, f, b);
    if (fpr <= 0.97 * p) {
      out->buckets = b;
      out->f = f;
      out->fpr = fpr;
      out->bytes = 64 + (b * 4 * f + 7) / 8;
      return 1;
    }
  }
  return 0;
}

#endif
