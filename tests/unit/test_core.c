/*
** Unit tests of the plain-C core: hash, sizing, layout, format.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bloom_core.h"
#include "filter_format.h"
#include "filter_hash.h"
#include "tap.h"

#include <murmurhash.h>

/* SMHasher's verification: hash keys {0}, {0,1}, ... {0..254} with seeds
** 256, 255, ... 1, hash the concatenated 128-bit outputs (little-endian)
** with seed 0, and read the first 4 bytes as a little-endian integer.
** Austin Appleby publishes 0x6384BA69 for MurmurHash3_x64_128. */
static void test_murmur_reference(void) {
  unsigned char key[256], outs[256 * 16];
  for (int i = 0; i < 256; i++) {
    uint64_t h[2];
    key[i] = (unsigned char)i;
    lmmh_x64_128(key, (unsigned)i, (uint32_t)(256 - i), h);
    store_le64(outs + i * 16, h[0]);
    store_le64(outs + i * 16 + 8, h[1]);
  }
  uint64_t final[2];
  lmmh_x64_128(outs, sizeof outs, 0, final);
  unsigned char le[8];
  store_le64(le, final[0]);
  TAP_EQ_U64(load_le32(le), 0x6384BA69u,
             "MurmurHash3_x64_128 matches SMHasher's verification value");
}

int main(void) {
  test_murmur_reference();
  return tap_done();
}
