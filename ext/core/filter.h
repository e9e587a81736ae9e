/*
** A filter of either kind behind one call: the probe that bloom_ref's
** readers and the *_probe and *_test functions share.  Plain C: no SQLite
** header.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef CORE_FILTER_H
#define CORE_FILTER_H

#include "core/bloom.h"
#include "core/cuckoo.h"
#include "core/format.h"
#include "core/hash.h"
#include "core/layered.h"
#include "core/quotient.h"

/* 1 if a validated filter (filter_parse said yes, layered or not) may hold h, 0 if it
** certainly does not; -1 only for a quotient filter whose block for h is
** damaged (filter_parse checks no block: quotient.h).  Inline: it runs
** once per probed row. */
static inline int filter_contains(const filter_view *f, filter_hash h) {
  if (f->header.kind == FILTER_KIND_QUOTIENT)
    return quotient_any_contains(f->body, f->body_bytes, f->header.blocks,
                                 f->header.block_bytes, h);
  if (f->header.kind == FILTER_KIND_CUCKOO)
    return cuckoo_contains(f->body, cuckoo_shape_of(&f->header), h);
  if (f->header.kind == FILTER_KIND_LAYERED)
    return f->layers ? layer_index_contains(f->layers, h)
                     : layered_contains(f, h);
  return bloom_contains(f->body, f->header.bits / BLOOM_BLOCK_BITS,
                        f->header.hashes, h);
}

#endif
