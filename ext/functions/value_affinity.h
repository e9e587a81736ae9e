/*
** A column's affinity (SQLite's "Datatypes", section 3) applied to a value
** before it is hashed, so that a store fed from a column answers a probe
** as that column would: with INTEGER affinity a probe bound as the TEXT
** '12345' finds the integer 12345, as WHERE id = '12345' finds the row.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef FUNCTIONS_VALUE_AFFINITY_H
#define FUNCTIONS_VALUE_AFFINITY_H

#include "functions/value_hash.h"

/* BLOB ("none") converts nothing: the value rules of value_hash as they
** are.  The order is SQLite's. */
typedef enum {
  AFFINITY_BLOB,
  AFFINITY_TEXT,
  AFFINITY_NUMERIC,
  AFFINITY_INTEGER,
  AFFINITY_REAL
} value_affinity;

/* The affinity of a column declared with type name `declared`, by
** SQLite's rules (INT: INTEGER; CHAR, CLOB or TEXT: TEXT; BLOB or no
** name: BLOB; REAL, FLOA or DOUB: REAL; else NUMERIC), matched without
** regard to case. */
value_affinity affinity_of_type(const char *declared);

/* The affinity's name, "BLOB" ... "REAL"; and back: SQLITE_OK, or
** SQLITE_ERROR for any text but those five names exactly. */
const char *affinity_name(value_affinity a);
int affinity_of_name(const char *name, value_affinity *out);

/* value_hash of the value as a column of affinity a would hold it
** (`stored`: a value written to the column) or compare it (a probe, to
** which SQLite applies NUMERIC where the column has any numeric affinity):
** TEXT that is a decimal integer or real literal is hashed as that number
** under NUMERIC, INTEGER and REAL (the rule of SQLite's numeric affinity,
** read here without sqlite3_value_numeric_type), and a REAL column
** stores an integer as a REAL; a number is hashed as its text under TEXT.
** ARG_NULL for NULL, ARG_ERROR when out of memory. */
arg_status value_hash_as(sqlite3_value *value, value_affinity a, int stored,
                         uint32_t seed, filter_hash *out);

#endif
