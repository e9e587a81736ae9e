/*
** The parameters of a building aggregate, (value [, n [, p]]): read and
** checked on a group's first row, compared on every later one.
*/
#ifndef FUNCTIONS_GROUP_H
#define FUNCTIONS_GROUP_H

#include <stdint.h>

#include "core/hash.h"
#include "functions/errors.h"

/* n omitted or NULL means "size from the data"; p omitted means
** FILTER_DEFAULT_FPR. */
typedef struct group_params {
  int started;         /* the first row was read */
  int sized_from_data; /* n omitted or NULL */
  uint64_t n;          /* 0 when sized from the data */
  double p;
  /* The first row's arguments as SQLite gave them, so that a later row is
  ** checked by comparing, not by validating again. */
  int n_type;
  double n_value;      /* exact for every valid n: integral and < 2^63 */
} group_params;

/* Reads this row's n and p.  Returns 1 on the group's first row (recorded
** in *g), 0 on a later row with the same values, -1 after setting an error
** (bad values, or values that differ from the first row's). */
int sql_group_params(sqlite3_context *ctx, int argc,
                     sqlite3_value **argv, group_params *g);

/* The start every building aggregate's step shares: this row's n and p (on
** the group's first row, first_row(ctx, state) then sizes what it must, so
** that errors come at once rather than after the group), then the hash of
** the value in argv[0].  1 with *h set: add it; 0: a NULL value, skipped;
** -1 after an error was set, with *failed set so the final only frees. */
int sql_group_row(sqlite3_context *ctx, int argc, sqlite3_value **argv,
                  group_params *g, int *failed,
                  int (*first_row)(sqlite3_context *ctx, void *state),
                  void *state, filter_hash *h);

#endif
