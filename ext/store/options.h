/*
** The arguments of CREATE VIRTUAL TABLE ... USING bloom_store(...): a list
** of `name = value`, each name at most once.
**
**   capacity = N     required: an integer >= 1 (as n of bloom_build)
**   fpr = P          optional: FILTER_MIN_FPR <= P < 1, default 0.01
*/
#ifndef STORE_OPTIONS_H
#define STORE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

typedef struct store_options {
  uint64_t capacity;
  double fpr;
} store_options;

/* Parses argv[0..argc) (the module arguments, after the three SQLite puts
** first).  0 on success; -1 with a one-line reason in err. */
int store_parse_options(int argc, const char *const *argv, store_options *o,
                        char *err, size_t err_size);

#endif
