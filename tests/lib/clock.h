/*
** Seconds on the monotonic clock, for the tests that bound how long a loop
** runs or report how long a step took (never to assert a speed).  Needs
** clock_gettime: define _POSIX_C_SOURCE 200809L (or _GNU_SOURCE) before the
** first #include.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef TESTS_CLOCK_H
#define TESTS_CLOCK_H

#if !defined(_GNU_SOURCE) && \
    (!defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 199309L)
#error "define _POSIX_C_SOURCE 200809L before any #include (clock.h uses clock_gettime)"
#endif

#include <time.h>

static inline double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
