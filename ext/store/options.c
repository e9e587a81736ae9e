/*
** CREATE VIRTUAL TABLE arguments of a store (options.h).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
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

/* A window: seconds, or '<n> <unit>' with unit seconds, minutes, hours,
** days or weeks (or the singular), from 1 second to STORE_MAX_WINDOW. */
static int parse_seconds(const char *text, int64_t *seconds) {
  static const struct { const char *unit; int64_t seconds; } units[] = {
      {"second", 1}, {"minute", 60}, {"hour", 3600}, {"day", 86400},
      {"week", 604800}};
  char *end;
  errno = 0;
  long long n = strtoll(text, &end, 10);
  if (end == text || errno != 0 || n < 1 || !isdigit((unsigned char)*text))
    return SQLITE_ERROR;
  int64_t scale = *end == '\0' ? 1 : 0;
  while (*end == ' ') end++;
  for (size_t u = 0; scale == 0 && u < sizeof units / sizeof units[0]; u++) {
    size_t len = strlen(units[u].unit);
    if (strncmp(end, units[u].unit, len) == 0 &&
        (end[len] == '\0' || (end[len] == 's' && end[len + 1] == '\0')))
      scale = units[u].seconds;
  }
  if (scale == 0 || n > STORE_MAX_WINDOW / scale) return SQLITE_ERROR;
  *seconds = (int64_t)n * scale;
  return SQLITE_OK;
}

/* The arguments: integers from 1 to max (0: no bound but 2^63 - 1),
** rates with FILTER_MIN_FPR <= value < 1, a declared type name, a window,
** a clock's name, or a switch (0 or 1). */
typedef enum { OPT_INTEGER, OPT_RATE, OPT_TYPE, OPT_WINDOW, OPT_CLOCK,
               OPT_SWITCH } option_kind;
typedef struct option {
  const char *name;
  size_t at;        /* offsetof the field in store_options */
  option_kind kind; /* a uint64_t (max 0) or uint32_t field; a double; a
                       value_affinity; an int64_t; an int (clock, switch) */
  uint64_t max;
} option;

enum { OPT_CAPACITY, OPT_FPR, OPT_GROWTH, OPT_TIGHTENING, OPT_AFFINITY,
       OPT_WINDOW_ARG, OPT_GENERATIONS, OPT_CLOCK_ARG, OPT_DELETES };
static const option options[] = {
    {"capacity", offsetof(store_options, capacity), OPT_INTEGER, 0},
    {"fpr", offsetof(store_options, fpr), OPT_RATE, 0},
    {"growth", offsetof(store_options, growth), OPT_INTEGER, STORE_MAX_GROWTH},
    {"tightening", offsetof(store_options, tightening), OPT_RATE, 0},
    {"affinity", offsetof(store_options, affinity), OPT_TYPE, 0},
    {"window", offsetof(store_options, window), OPT_WINDOW, 0},
    {"generations", offsetof(store_options, generations), OPT_INTEGER,
     STORE_MAX_GENERATIONS},
    {"clock", offsetof(store_options, clock_events), OPT_CLOCK, 0},
    {"deletes", offsetof(store_options, deletes), OPT_SWITCH, 0},
};
#define OPTIONS (int)(sizeof options / sizeof options[0])

/* Reads one argument's value into o: SQLITE_OK, or SQLITE_ERROR with the
** rule it breaks in err. */
static int take_option(const option *opt, const char *value,
                       store_options *o, char *err, size_t err_size) {
  char *field = (char *)o + opt->at;
  uint64_t n;
  double r;
  if (opt->kind == OPT_TYPE) {
    value_affinity a = affinity_of_type(value);
    memcpy(field, &a, sizeof a);
    return SQLITE_OK;
  }
  if (opt->kind == OPT_WINDOW) {
    int64_t w;
    if (parse_seconds(value, &w) == SQLITE_OK) {
      memcpy(field, &w, sizeof w);
      return SQLITE_OK;
    }
    snprintf(err, err_size, "window must be a number of seconds from 1 to "
             "%lld, or text such as '30 minutes', '24 hours', '7 days'; "
             "got %s", (long long)STORE_MAX_WINDOW, value);
    return SQLITE_ERROR;
  }
  if (opt->kind == OPT_CLOCK) {
    int events = strcmp(value, "events") == 0;
    if (events || strcmp(value, "wall") == 0) {
      memcpy(field, &events, sizeof events);
      return SQLITE_OK;
    }
    snprintf(err, err_size, "clock must be 'wall' or 'events', got %s",
             value);
    return SQLITE_ERROR;
  }
  if (opt->kind == OPT_SWITCH) {
    int on = strcmp(value, "1") == 0;
    if (on || strcmp(value, "0") == 0) {
      memcpy(field, &on, sizeof on);
      return SQLITE_OK;
    }
    snprintf(err, err_size, "%s must be 0 or 1, got %s", opt->name, value);
    return SQLITE_ERROR;
  }
  if (opt->kind == OPT_INTEGER && parse_capacity(value, &n) == SQLITE_OK &&
      (opt->max == 0 || n <= opt->max)) {
    if (opt->max == 0)
      memcpy(field, &n, sizeof n);
    else
      memcpy(field, &(uint32_t){(uint32_t)n}, sizeof(uint32_t));
    return SQLITE_OK;
  }
  if (opt->kind == OPT_RATE &&
      parse_rate(value, FILTER_MIN_FPR, &r) == SQLITE_OK) {
    memcpy(field, &r, sizeof r);
    return SQLITE_OK;
  }
  if (opt->kind == OPT_INTEGER && opt->max == 0)
    snprintf(err, err_size, "%s must be an integer >= 1, got %s", opt->name,
             value);
  else if (opt->kind == OPT_INTEGER)
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

/* The rules of a windowed store's arguments. */
static int window_rules(unsigned given, store_options *o, char *err,
                         size_t err_size) {
  unsigned needs_window = 1u << OPT_GENERATIONS | 1u << OPT_CLOCK_ARG;
  if (!(given & 1u << OPT_WINDOW_ARG)) {
    if (given & needs_window)
      snprintf(err, err_size, "%s applies to a store with a window, as in "
               "window = '24 hours'",
               given & 1u << OPT_GENERATIONS ? "generations" : "clock");
    return given & needs_window ? SQLITE_ERROR : SQLITE_OK;
  }
  if (given & (1u << OPT_GROWTH | 1u << OPT_TIGHTENING)) {
    snprintf(err, err_size, "growth and tightening do not apply to a store "
             "with a window: its generations grow on their own");
    return SQLITE_ERROR;
  }
  if (!(given & 1u << OPT_GENERATIONS))
    o->generations = STORE_DEFAULT_GENERATIONS;
  o->scalable = 0;
  return SQLITE_OK;
}

/* The defaults of what was not given, and the rules between arguments. */
static int apply_defaults(unsigned given, store_options *o, char *err,
                          size_t err_size) {
  o->capacity_given = (given & 1u << OPT_CAPACITY) != 0;
  o->growth_given = (given & (1u << OPT_GROWTH | 1u << OPT_TIGHTENING)) != 0;
  /* Without capacity, or with growth or tightening, the store grows. */
  o->scalable = !(given & 1u << OPT_CAPACITY) ||
                (given & (1u << OPT_GROWTH | 1u << OPT_TIGHTENING));
  if (!(given & 1u << OPT_CAPACITY))
    o->capacity = STORE_DEFAULT_FIRST_CAPACITY;
  if (!(given & 1u << OPT_FPR)) o->fpr = FILTER_DEFAULT_FPR;
  if (!(given & 1u << OPT_GROWTH)) o->growth = STORE_DEFAULT_GROWTH;
  if (!(given & 1u << OPT_TIGHTENING))
    o->tightening = STORE_DEFAULT_TIGHTENING;
  if (!(given & 1u << OPT_AFFINITY)) o->affinity = AFFINITY_BLOB;
  o->deletes_given = (given & 1u << OPT_DELETES) != 0;
  if (!o->deletes_given) o->deletes = 1;
  if (window_rules(given, o, err, err_size) != SQLITE_OK)
    return SQLITE_ERROR;
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
               "growth, tightening, affinity, window, generations, "
               "clock, deletes)", name);
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
  return apply_defaults(given, o, err, err_size);
}
