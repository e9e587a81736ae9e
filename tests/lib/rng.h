/*
** Seeded randomness for the C tests: splitmix64 (Steele, Lea and Flood), a
** small generator whose every output is a fixed function of the seed, so a
** failing run repeats exactly.  Every seed a test uses is printed as
** "# seed: 0x... (what)" so that the run can be reproduced from its log.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** splitmix64(&state) steps a caller's own stream (one per test or per
** thread); rng_seed and rng_next are the one shared stream of a program.
*/
#ifndef TESTS_RNG_H
#define TESTS_RNG_H

#include <stdint.h>

#include "tap.h"

static inline uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Prints seed as "# seed: 0x... (what)" and returns it. */
static inline uint64_t seed_print(uint64_t seed, const char *what) {
  tap_diag("seed: 0x%016llx (%s)", (unsigned long long)seed, what);
  return seed;
}

static uint64_t rng_state;

static inline void rng_seed(uint64_t seed, const char *what) {
  rng_state = seed_print(seed, what);
}

static inline uint64_t rng_next(void) { return splitmix64(&rng_state); }

#endif
