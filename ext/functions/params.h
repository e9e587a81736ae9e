/*
** The sizing arguments every building function takes: n, the capacity, and
** p, the target false-positive rate.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef FUNCTIONS_PARAMS_H
#define FUNCTIONS_PARAMS_H

#include <stdint.h>

#include "functions/errors.h"

/* n: an INTEGER >= 1, or a REAL with such an integral value.  The
** read_ forms write the reason into err; the sql_ forms set it on ctx. */
arg_status read_capacity(sqlite3_value *arg, uint64_t *n, char *err,
                         size_t err_size);
arg_status sql_capacity_arg(sqlite3_context *ctx, sqlite3_value *arg, uint64_t *n);
/* p: an INTEGER or REAL with FILTER_MIN_FPR <= p < 1; NULL is an error too
** (no function takes a NULL p): never ARG_NULL. */
arg_status read_fpr(sqlite3_value *arg, double *p, char *err, size_t err_size);
arg_status sql_fpr_arg(sqlite3_context *ctx, sqlite3_value *arg, double *p);

#endif
