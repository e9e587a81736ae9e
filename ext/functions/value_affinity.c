/*
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** A column's affinity applied before hashing (value_affinity.h).
*/
#include "functions/value_affinity.h"

#include <ctype.h>
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
  if (type == SQLITE_INTEGER) {
    if (!real) return value_hash(value, type, seed, out);
    *out = filter_hash_real((double)sqlite3_value_int64(value), seed);
    return ARG_OK;
  }
  /* TEXT under a numeric affinity: a copy takes the conversion, since a
  ** value SQLite hands over may not be changed. */
  sqlite3_value *copy = sqlite3_value_dup(value);
  if (copy == NULL) return ARG_ERROR;
  int as = sqlite3_value_numeric_type(copy);
  arg_status st = ARG_OK;
  if (real && as == SQLITE_INTEGER)
    *out = filter_hash_real((double)sqlite3_value_int64(copy), seed);
  else
    st = value_hash(copy, as, seed, out);
  sqlite3_value_free(copy);
  return st;
}
