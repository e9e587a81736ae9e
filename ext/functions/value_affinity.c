/*
** A column's affinity applied before hashing (value_affinity.h).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "functions/value_affinity.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* 1 if `word` occurs in `text`, without regard to case. */
static int contains_word(const char *text, const char *word) {
  size_t n = strlen(word);
  for (; *text; text++)
    if (sqlite3_strnicmp(text, word, (int)n) == 0) return 1;
  return 0;
}

value_affinity affinity_of_type(const char *declared) {
  if (contains_word(declared, "INT")) return AFFINITY_INTEGER;
  if (contains_word(declared, "CHAR") || contains_word(declared, "CLOB") ||
      contains_word(declared, "TEXT"))
    return AFFINITY_TEXT;
  const char *p = declared;
  while (isspace((unsigned char)*p)) p++;
  if (contains_word(declared, "BLOB") || *p == '\0') return AFFINITY_BLOB;
  if (contains_word(declared, "REAL") || contains_word(declared, "FLOA") ||
      contains_word(declared, "DOUB"))
    return AFFINITY_REAL;
  return AFFINITY_NUMERIC;
}

static const char *const names[] = {"BLOB", "TEXT", "NUMERIC", "INTEGER",
                                    "REAL"};

const char *affinity_name(value_affinity a) { return names[a]; }

int affinity_of_name(const char *name, value_affinity *out) {
  for (int a = AFFINITY_BLOB; a <= AFFINITY_REAL; a++)
    if (strcmp(name, names[a]) == 0) {
      *out = (value_affinity)a;
      return SQLITE_OK;
    }
  return SQLITE_ERROR;
}

/* SQLite's blanks (sqlite3Isspace): space, \t, \n, \v, \f, \r. */
static int blank(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* Whether text[0..n), blanks around it aside, is a decimal literal as
** SQLite's numeric affinity reads one (sqlite3AtoF: a sign, digits with at
** most one '.', at least one digit, an optional exponent; nothing else):
** 0 no; 1 an integer literal that fits 64 bits, in *i; 2 any other
** number, in *r. */
static int numeric_literal(const char *text, int n, sqlite3_int64 *i,
                           double *r) {
  char buf[400];
  while (n > 0 && blank(text[n - 1])) n--;
  while (n > 0 && blank(*text)) text++, n--;
  if (n == 0 || n >= (int)sizeof buf) return 0;
  memcpy(buf, text, (size_t)n);
  buf[n] = '\0';
  const char *p = buf + (*buf == '+' || *buf == '-');
  int digits = 0, integer = 1;
  for (; isdigit((unsigned char)*p); p++) digits++;
  if (*p == '.') {
    integer = 0;
    for (p++; isdigit((unsigned char)*p); p++) digits++;
  }
  if (digits == 0) return 0;
  if (*p == 'e' || *p == 'E') {
    integer = 0;
    p += 1 + (p[1] == '+' || p[1] == '-');
    if (!isdigit((unsigned char)*p)) return 0;
    while (isdigit((unsigned char)*p)) p++;
  }
  if (*p != '\0') return 0;
  if (integer) {
    char *end;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (errno == 0 && *end == '\0') {
      *i = v;
      return 1;
    }
  }
  *r = strtod(buf, NULL);
  return 2;
}

arg_status value_hash_as(sqlite3_value *value, value_affinity a, int stored,
                         uint32_t seed, filter_hash *out) {
  int type = sqlite3_value_type(value);
  if (a == AFFINITY_TEXT && (type == SQLITE_INTEGER || type == SQLITE_FLOAT))
    return value_hash(value, SQLITE_TEXT, seed, out); /* its text */
  if (a == AFFINITY_BLOB || a == AFFINITY_TEXT ||
      (type != SQLITE_TEXT && type != SQLITE_INTEGER))
    return value_hash(value, type, seed, out);
  /* 42 and 42.0 hash alike (value_hash): a REAL column's conversion of an
  ** integer matters only past 2^53, where the double rounds it. */
  int real = stored && a == AFFINITY_REAL;
  sqlite3_int64 i = 0;
  double r = 0;
  int number;
  if (type == SQLITE_INTEGER) {
    i = sqlite3_value_int64(value);
    number = 1;
  } else {
    /* TEXT under a numeric affinity.  Not sqlite3_value_numeric_type: a
    ** value SQLite hands over may not be changed, and newer SQLite
    ** crashes on a copy's, which has no connection. */
    const char *text = (const char *)sqlite3_value_text(value);
    if (text == NULL) return ARG_ERROR;
    number = numeric_literal(text, sqlite3_value_bytes(value), &i, &r);
    if (number == 0) return value_hash(value, SQLITE_TEXT, seed, out);
  }
  if (number == 1 && !real)
    *out = filter_hash_integer(i, seed);
  else
    *out = filter_hash_real(number == 1 ? (double)i : r, seed);
  return ARG_OK;
}
