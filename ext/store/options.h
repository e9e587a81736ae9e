/*
** The arguments of CREATE VIRTUAL TABLE ... USING bloom_store(...): a list
** of `name = value`, each name at most once.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   capacity = N     an integer >= 1 (as n of bloom_build): a fixed store
**                    of that capacity, or with growth or tightening the
**                    first layer's capacity of a scalable one
**   fpr = P          FILTER_MIN_FPR <= P < 1, default 0.01: the fixed
**                    store's rate, or the bound on a scalable one's (whose
**                    first layer's rate P * (1 - R) must not be below
**                    FILTER_MIN_FPR)
**   growth = G       1 <= G <= 65535, default 2: each layer of a scalable
**                    store holds G times the capacity of the one before
**   tightening = R   0 < R < 1, default 0.9: each layer's target rate is R
**                    times the one before
**   affinity = T     a declared type name (INTEGER, 'VARCHAR(40)', ...):
**                    values are added and probed as a column of that type
**                    would hold them (value_affinity.h); default BLOB, none
**   window = W       a positive number of seconds, or text '<n> seconds',
**                    'minutes', 'hours', 'days' or 'weeks' (or singular):
**                    a store that forgets a value W seconds after it was
**                    added (window.c); capacity is then the items per
**                    window, optional
**   generations = G  1 <= G <= STORE_MAX_GENERATIONS, default 8: a
**                    windowed store's generations per window
**   clock = C        'wall' (default) or 'events': a windowed store's time
**   deletes = D      1 (default) or 0: a store made with 0 refuses DELETE,
**                    and its INSERT OR IGNORE adds only what is certainly
**                    new, as a Bloom store's always does (bloom_store
**                    takes 0 only)
** Without capacity the store is scalable from STORE_DEFAULT_FIRST_CAPACITY.
** generations and clock need window; growth and tightening refuse it.
*/
#ifndef STORE_OPTIONS_H
#define STORE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "functions/value_affinity.h"

#define STORE_DEFAULT_FIRST_CAPACITY 10000
#define STORE_DEFAULT_GROWTH 2
#define STORE_DEFAULT_TIGHTENING 0.9
#define STORE_MAX_GROWTH 65535
/* Eight: of the G measured, the least space at a steady rate against a
** fixed store for one window's items (figures for each G in
** tests/bench/RESULTS.md), and a value is forgotten an eighth of a window
** after its window. */
#define STORE_DEFAULT_GENERATIONS 8
/* G + 1 live generations of at least one layer each, in one layered
** export of at most 64 layers, with room to grow during a burst. */
#define STORE_MAX_GENERATIONS 32
/* About 136 years: a window's seconds, generation numbers and chunk ids
** stay far from overflow. */
#define STORE_MAX_WINDOW ((int64_t)1 << 32)

typedef struct store_options {
  uint64_t capacity;
  double fpr;
  int scalable;
  uint32_t growth;
  double tightening;
  value_affinity affinity;
  int64_t window;       /* seconds; 0: the store does not forget */
  uint32_t generations;
  int clock_events;     /* clock = 'events' */
  int deletes;          /* deletes = 1 (the default) or 0 */
  int deletes_given;
  int capacity_given;
  int growth_given;     /* growth or tightening */
  unsigned kind;        /* the store's kind (FILTER_KIND_*), set by the
                           module before a schedule is chosen */
} store_options;

/* Parses argv[0..argc) (the module arguments, after the three SQLite puts
** first): SQLITE_OK, or SQLITE_ERROR with a one-line reason in err. */
int store_parse_options(int argc, const char *const *argv, store_options *o,
                        char *err, size_t err_size);

#endif
