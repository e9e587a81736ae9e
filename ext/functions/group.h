/*
** The parameters of a building aggregate, (value [, n [, p]]): read and
** checked on a group's first row, compared on every later one.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef FUNCTIONS_GROUP_H
#define FUNCTIONS_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "core/format.h"
#include "core/hash.h"
#include "functions/errors.h"
#include "functions/value_hash.h"

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

/* sql_group_row for the rows it does not take inline: the group's first,
** and any whose n or p differs from the first row's. */
int sql_group_row_slow(sqlite3_context *ctx, int argc, sqlite3_value **argv,
                       group_state *g,
                       int (*first_row)(sqlite3_context *ctx, group_state *g),
                       filter_hash *h);

/* A later row with the first row's n and p, told without validating: the
** type and value SQLite gives for each, compared with the first row's. */
static inline int sql_group_same_params(int argc, sqlite3_value **argv,
                                        const group_state *g) {
  int n_type = argc >= 2 ? sqlite3_value_type(argv[1]) : SQLITE_NULL;
  if (n_type != g->n_type) return 0;
  if (n_type == SQLITE_INTEGER &&
      sqlite3_value_int64(argv[1]) != (sqlite3_int64)g->n)
    return 0;
  if (n_type == SQLITE_FLOAT && sqlite3_value_double(argv[1]) != g->n_value)
    return 0;
  return argc < 3 || (sqlite3_value_type(argv[2]) == SQLITE_FLOAT &&
                      sqlite3_value_double(argv[2]) == g->p);
}

/* The start every building aggregate's step shares.  g is the start of
** the aggregate's state (NULL when sqlite3_aggregate_context failed: an
** out-of-memory error).  This row's n and p are read on the group's first
** row, where first_row(ctx, g) then sizes what it must so that errors come
** at once rather than after the group, and compared with the first row's
** on every later one; then the value in argv[0] is hashed.  1 with *h set:
** add it; 0: a NULL value, skipped; -1 after an error was set (with
** g->failed set, so the final only frees).
** Inline for a later row with the first row's n and p, which is every row
** of a group but one: a call through sql_group_row and its first_row
** pointer cost bloom_build 2 to 4 ns a row of about 47 on the machine of
** tests/bench/RESULTS.md (2026-11-26), more than the check itself. */
static inline int sql_group_row(sqlite3_context *ctx, int argc,
                                sqlite3_value **argv, group_state *g,
                                int (*first_row)(sqlite3_context *ctx,
                                                 group_state *g),
                                filter_hash *h) {
  if (g != NULL && g->started && sql_group_same_params(argc, argv, g)) {
    arg_status st = sql_hash_value(ctx, argv[0], FILTER_DEFAULT_SEED, h);
    if (st != ARG_ERROR) return st == ARG_OK;
    g->failed = 1;
    return -1;
  }
  return sql_group_row_slow(ctx, argc, argv, g, first_row, h);
}

#endif
