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
#include <stddef.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "functions/api.h"

/* The argument with surrounding blanks and one pair of quotes removed, in
** out[0..size): SQLITE_ERROR if it does not fit. */
static int trimmed(const char *start, const char *end, char *out, size_t size) {
  while (start < end && isspace((unsigned char)*start)) start++;
  while (end > start && isspace((unsigned char)end[-1])) end--;
  if (end - start >= 2 && (*start == '\'' || *start == '"') &&
      end[-1] == *start) {
    start++;
    end--;
  }
  if ((size_t)(end - start) >= size) return SQLITE_ERROR;
  memcpy(out, start, (size_t)(end - start));
  out[end - start] = '\0';
  return SQLITE_OK;
}

/* An integer >= 1, written as digits or as a number with an integral value
** (1e6 is 1000000). */
static int parse_capacity(const char *text, uint64_t *n) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end != '\0' || errno != 0) return SQLITE_ERROR;
  if (!(v >= 1.0 && v < 9223372036854775808.0) || floor(v) != v)
    return SQLITE_ERROR;
  /* Digits beyond a double's precision: read them exactly. */
  if (strspn(text, "0123456789") == strlen(text)) {
    unsigned long long exact = strtoull(text, &end, 10);
    if (errno != 0 || exact < 1 || exact > 9223372036854775807ull)
      return SQLITE_ERROR;
    *n = exact;
    return SQLITE_OK;
  }
  *n = (uint64_t)v;
  return SQLITE_OK;
}

/* A number in [lo, 1). */
static int parse_rate(const char *text, double lo, double *p) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end != '\0' || errno != 0) return SQLITE_ERROR;
  if (!(v >= lo && v < 1.0)) return SQLITE_ERROR;
  *p = v;
  return SQLITE_OK;
}

/* The arguments: integers from 1 to max (0: no bound but 2^63 - 1), or
** rates with FILTER_MIN_FPR <= value < 1. */
typedef struct option {
  const char *name;
  size_t at;    /* offsetof the field in store_options */
  int integer;  /* uint64_t or uint32_t field; else a double */
  uint64_t max; /* integers: the largest, 0 none (then a uint64_t field) */
} option;

enum { OPT_CAPACITY, OPT_FPR, OPT_GROWTH, OPT_TIGHTENING };
static const option options[] = {
    {"capacity", offsetof(store_options, capacity), 1, 0},
    {"fpr", offsetof(store_options, fpr), 0, 0},
    {"growth", offsetof(store_options, growth), 1, STORE_MAX_GROWTH},
    {"tightening", offsetof(store_options, tightening), 0, 0},
};
#define OPTIONS (int)(sizeof options / sizeof options[0])

/* Reads one argument's value into o: SQLITE_OK, or SQLITE_ERROR with the
** rule it breaks in err. */
static int take_option(const option *opt, const char *value,
                       store_options *o, char *err, size_t err_size) {
  char *field = (char *)o + opt->at;
  uint64_t n;
  double r;
  if (opt->integer && parse_capacity(value, &n) == SQLITE_OK &&
      (opt->max == 0 || n <= opt->max)) {
    if (opt->max == 0)
      memcpy(field, &n, sizeof n);
    else
      memcpy(field, &(uint32_t){(uint32_t)n}, sizeof(uint32_t));
    return SQLITE_OK;
  }
  if (!opt->integer && parse_rate(value, FILTER_MIN_FPR, &r) == SQLITE_OK) {
    memcpy(field, &r, sizeof r);
    return SQLITE_OK;
  }
  if (opt->integer && opt->max == 0)
    snprintf(err, err_size, "%s must be an integer >= 1, got %s", opt->name,
             value);
  else if (opt->integer)
    snprintf(err, err_size, "%s must be an integer from 1 to %llu, got %s",
             opt->name, (unsigned long long)opt->max, value);
  else
    snprintf(err, err_size, "%s must be a number with %g <= %s < 1, got %s",
             opt->name, FILTER_MIN_FPR, opt->name, value);
  return SQLITE_ERROR;
}

/* Splits "name = value" into its trimmed halves. */
static int split(const char *arg, char *name, size_t name_size, char *value,
                 size_t value_size) {
  const char *eq = strchr(arg, '=');
  if (eq == NULL || trimmed(arg, eq, name, name_size) != SQLITE_OK ||
      trimmed(eq + 1, arg + strlen(arg), value, value_size) != SQLITE_OK ||
      name[0] == '\0' || value[0] == '\0')
    return SQLITE_ERROR;
  return SQLITE_OK;
}

/* The defaults of what was not given, and the rules between arguments. */
static int settle_options(unsigned given, store_options *o, char *err,
                          size_t err_size) {
  /* Without capacity, or with growth or tightening, the store grows. */
  o->scalable = !(given & 1u << OPT_CAPACITY) ||
                (given & (1u << OPT_GROWTH | 1u << OPT_TIGHTENING));
  if (!(given & 1u << OPT_CAPACITY))
    o->capacity = STORE_DEFAULT_FIRST_CAPACITY;
  if (!(given & 1u << OPT_FPR)) o->fpr = FILTER_DEFAULT_FPR;
  if (!(given & 1u << OPT_GROWTH)) o->growth = STORE_DEFAULT_GROWTH;
  if (!(given & 1u << OPT_TIGHTENING))
    o->tightening = STORE_DEFAULT_TIGHTENING;
  /* A scalable store's first layer gets fpr * (1 - tightening). */
  if (o->scalable && !(o->fpr * (1 - o->tightening) >= FILTER_MIN_FPR)) {
    snprintf(err, err_size, "a scalable store's first layer gets fpr * (1 - "
             "tightening) = %g, below %g: use fpr above %g, a smaller "
             "tightening, or a fixed store (capacity without growth)",
             o->fpr * (1 - o->tightening), FILTER_MIN_FPR,
             FILTER_MIN_FPR / (1 - o->tightening));
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

int store_parse_options(int argc, const char *const *argv, store_options *o,
                        char *err, size_t err_size) {
  unsigned given = 0;
  memset(o, 0, sizeof *o);
  for (int i = 0; i < argc; i++) {
    char name[32], value[64];
    if (split(argv[i], name, sizeof name, value, sizeof value) != SQLITE_OK) {
      snprintf(err, err_size,
               "arguments are written name = value, as in capacity = 1000000;"
               " got \"%s\"", argv[i]);
      return SQLITE_ERROR;
    }
    int k = 0;
    while (k < OPTIONS && strcmp(name, options[k].name) != 0) k++;
    if (k == OPTIONS) {
      snprintf(err, err_size, "unknown argument \"%s\" (known: capacity, fpr, "
               "growth, tightening)", name);
      return SQLITE_ERROR;
    }
    if (given & 1u << k) {
      snprintf(err, err_size, "%s is given twice", name);
      return SQLITE_ERROR;
    }
    given |= 1u << k;
    if (take_option(&options[k], value, o, err, err_size) != SQLITE_OK)
      return SQLITE_ERROR;
  }
  return settle_options(given, o, err, err_size);
}
