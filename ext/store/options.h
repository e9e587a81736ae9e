/*
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** The arguments of CREATE VIRTUAL TABLE ... USING bloom_store(...): a list
** of `name = value`, each name at most once.
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
** Without capacity the store is scalable from STORE_DEFAULT_FIRST_CAPACITY.
*/
#ifndef STORE_OPTIONS_H
#define STORE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#define STORE_DEFAULT_FIRST_CAPACITY 10000
#define STORE_DEFAULT_GROWTH 2
#define STORE_DEFAULT_TIGHTENING 0.9
#define STORE_MAX_GROWTH 65535

typedef struct store_options {
  uint64_t capacity;
  double fpr;
  int scalable;
  uint32_t growth;
  double tightening;
} store_options;

/* Parses argv[0..argc) (the module arguments, after the three SQLite puts
** first): SQLITE_OK, or SQLITE_ERROR with a one-line reason in err. */
int store_parse_options(int argc, const char *const *argv, store_options *o,
                        char *err, size_t err_size);

#endif
