/*
** Minimal TAP producer for the C tests.  Each check prints "ok N - name" or
** "not ok N - name" (with a diagnostic); tap_done() prints the plan and
** returns the exit status prove expects (a failure when nothing ran).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef TAP_H
#define TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failed;

static inline int tap_ok(int pass, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline int tap_ok(int pass, const char *fmt, ...) {
  va_list ap;
  tap_count++;
  if (!pass) tap_failed++;
  printf("%sok %d - ", pass ? "" : "not ", tap_count);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
  return pass;
}

static inline void tap_diag(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static inline void tap_diag(const char *fmt, ...) {
  va_list ap;
  printf("# ");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}

#define TAP_EQ_U64(got, want, ...)                                         \
  do {                                                                     \
    unsigned long long tap_g_ = (unsigned long long)(got);                 \
    unsigned long long tap_w_ = (unsigned long long)(want);                \
    if (!tap_ok(tap_g_ == tap_w_, __VA_ARGS__))                            \
      tap_diag("  got %llu, want %llu", tap_g_, tap_w_);                   \
  } while (0)

/* Prints the plan; returns the exit status.  A program that ran no check
** at all failed (a skipped or broken setup must not pass as "1..0"). */
static inline int tap_done(void) {
  if (tap_count == 0) tap_ok(0, "at least one check ran");
  printf("1..%d\n", tap_count);
  return tap_failed ? 1 : 0;
}

#endif
