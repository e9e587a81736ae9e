/*
** Little-endian reads and writes of the tests, one set for all of them
** (ext/FORMAT.md stores every integer and binary64 little-endian).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef TESTS_LE_H
#define TESTS_LE_H

#include <stdint.h>
#include <string.h>

static inline uint64_t le64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}
static inline uint32_t le32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}
static inline void put_le32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static inline void put_le64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static inline void put_le_double(unsigned char *p, double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  put_le64(p, u);
}
static inline double le_double(const unsigned char *p) {
  uint64_t u = le64(p);
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

#endif
