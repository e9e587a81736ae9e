/*
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** CREATE VIRTUAL TABLE arguments of a store (options.h).
*/
#include "store/options.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"

/* The argument with surrounding blanks and one pair of quotes removed, in
** out[0..size).  -1 if it does not fit. */
static int trimmed(const char *start, const char *end, char *out, size_t size) {
  while (start < end && isspace((unsigned char)*start)) start++;
  while (end > start && isspace((unsigned char)end[-1])) end--;
  if (end - start >= 2 && (*start == '\'' || *start == '"') &&
      end[-1] == *start) {
    start++;
    end--;
  }
  if ((size_t)(end - start) >= size) return -1;
  memcpy(out, start, (size_t)(end - start));
  out[end - start] = '\0';
  return 0;
}

/* An integer >= 1, written as digits or as a number with an integral value
** (1e6 is 1000000). */
static int parse_capacity(const char *text, uint64_t *n) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end != '\0' || errno != 0) return -1;
  if (!(v >= 1.0 && v < 9223372036854775808.0) || floor(v) != v) return -1;
  /* Digits beyond a double's precision: read them exactly. */
  if (strspn(text, "0123456789") == strlen(text)) {
    unsigned long long exact = strtoull(text, &end, 10);
    if (errno != 0 || exact < 1 || exact > 9223372036854775807ull) return -1;
    *n = exact;
    return 0;
  }
  *n = (uint64_t)v;
  return 0;
}

static int parse_fpr(const char *text, double *p) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end != '\0' || errno != 0) return -1;
  if (!(v >= FILTER_MIN_FPR && v < 1.0)) return -1;
  *p = v;
  return 0;
}

int store_parse_options(int argc, const char *const *argv, store_options *o,
                        char *err, size_t err_size) {
  int have_capacity = 0, have_fpr = 0, have_growth = 0, have_tightening = 0;
  o->capacity = 0;
  o->fpr = FILTER_DEFAULT_FPR;
  for (int i = 0; i < argc; i++) {
    const char *arg = argv[i];
    const char *eq = strchr(arg, '=');
    char name[32], value[64];
    if (eq == NULL || trimmed(arg, eq, name, sizeof name) != 0 ||
        trimmed(eq + 1, arg + strlen(arg), value, sizeof value) != 0 ||
        name[0] == '\0' || value[0] == '\0') {
      snprintf(err, err_size,
               "arguments are written name = value, as in capacity = 1000000;"
               " got \"%s\"", arg);
      return -1;
    }
    if (strcmp(name, "capacity") == 0) {
      if (have_capacity++) {
        snprintf(err, err_size, "capacity is given twice");
        return -1;
      }
      if (parse_capacity(value, &o->capacity) != 0) {
        snprintf(err, err_size, "capacity must be an integer >= 1, got %s",
                 value);
        return -1;
      }
    } else if (strcmp(name, "fpr") == 0) {
      if (have_fpr++) {
        snprintf(err, err_size, "fpr is given twice");
        return -1;
      }
      if (parse_fpr(value, &o->fpr) != 0) {
        snprintf(err, err_size, "fpr must be a number with %g <= fpr < 1, got %s",
                 FILTER_MIN_FPR, value);
        return -1;
      }
    } else if (strcmp(name, "growth") == 0) {
      if (have_growth++) {
        snprintf(err, err_size, "growth is given twice");
        return -1;
      }
      uint64_t g;
      if (parse_capacity(value, &g) != 0 || g > STORE_MAX_GROWTH) {
        snprintf(err, err_size, "growth must be an integer from 1 to %d, got %s",
                 STORE_MAX_GROWTH, value);
        return -1;
      }
      o->growth = (uint32_t)g;
    } else if (strcmp(name, "tightening") == 0) {
      if (have_tightening++) {
        snprintf(err, err_size, "tightening is given twice");
        return -1;
      }
      if (parse_fpr(value, &o->tightening) != 0) {
        snprintf(err, err_size,
                 "tightening must be a number with %g <= tightening < 1, got %s",
                 FILTER_MIN_FPR, value);
        return -1;
      }
    } else {
      snprintf(err, err_size, "unknown argument \"%s\" (known: capacity, fpr, "
               "growth, tightening)", name);
      return -1;
    }
  }
  /* Without capacity, or with growth or tightening, the store grows. */
  o->scalable = !have_capacity || have_growth || have_tightening;
  if (!have_capacity) o->capacity = STORE_DEFAULT_FIRST_CAPACITY;
  if (!have_growth) o->growth = STORE_DEFAULT_GROWTH;
  if (!have_tightening) o->tightening = STORE_DEFAULT_TIGHTENING;
  return 0;
}
