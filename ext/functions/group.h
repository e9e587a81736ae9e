/*
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** The parameters of a building aggregate, (value [, n [, p]]): read and
** checked on a group's first row, compared on every later one.
*/
#ifndef FUNCTIONS_GROUP_H
#define FUNCTIONS_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "core/hash.h"
#include "functions/errors.h"

/* The start of every building aggregate's state: n omitted or NULL means
** "size from the data"; p omitted means FILTER_DEFAULT_FPR. */
typedef struct group_state {
  int started;         /* the first row was read */
  int failed;          /* a step set an error: the final only frees */
  int sized_from_data; /* n omitted or NULL */
  uint64_t n;          /* 0 when sized from the data */
  double p;
  /* The first row's arguments as SQLite gave them, so that a later row is
  ** checked by comparing, not by validating again. */
  int n_type;
  double n_value;      /* exact for every valid n: integral and < 2^63 */
} group_state;

/* The start every building aggregate's step shares.  g is the start of
** the aggregate's state (NULL when sqlite3_aggregate_context failed: an
** out-of-memory error).  This row's n and p are read on the group's first
** row, where first_row(ctx, g) then sizes what it must so that errors come
** at once rather than after the group, and compared with the first row's
** on every later one; then the value in argv[0] is hashed.  1 with *h set:
** add it; 0: a NULL value, skipped; -1 after an error was set (with
** g->failed set, so the final only frees). */
int sql_group_row(sqlite3_context *ctx, int argc, sqlite3_value **argv,
                  group_state *g,
                  int (*first_row)(sqlite3_context *ctx, group_state *g),
                  filter_hash *h);

#endif
