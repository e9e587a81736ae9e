/*
** Compacting a filter of leaves: the plan (how far keys are cut) and the
** body it gives (quotient_compact.h says what and why).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Both passes read a body qleaves_stats accepted, so the directory is in
** order and every record decodes; they still stop at -1 rather than trust
** it, as every reader of a blob does.
*/
#include <math.h>
#include <string.h>

#include "core/quotient_compact.h"

/* Leaf i: its node, depth and record (qleaves_leaf's checks). */
typedef struct leaf_ref {
  uint64_t node;
  unsigned depth;
  const unsigned char *rec;
  size_t len;
} leaf_ref;

static int leaf_of(const unsigned char *body, size_t body_bytes,
                   uint64_t leaves, uint64_t i, leaf_ref *l) {
  if (qleaves_leaf(body, body_bytes, leaves, i, &l->node, &l->rec, &l->len))
    return -1;
  l->depth = qleaf_depth(l->node);
  return 0;
}

/* An entry's d + b once cut to `total`: never below its leaf's depth. */
static unsigned cut_total(unsigned depth, unsigned t, unsigned total) {
  unsigned c = t < total ? t : total;
  return c > depth ? c : depth;
}

static double rate_at(const uint64_t *hist, unsigned total) {
  double r = 0;
  for (unsigned d = 0; d <= QLEAF_MAX_DEPTH; d++)
    for (unsigned t = d; t < QCOMPACT_NO_CUT; t++) {
      uint64_t c = hist[d * QCOMPACT_NO_CUT + t];
      if (c) r += (double)c * ldexp(1.0, -(int)cut_total(d, t, total));
    }
  return r;
}

int qcompact_plan_for(const unsigned char *body, size_t body_bytes,
                      uint64_t leaves, double rate, uint64_t *hist,
                      qleaf_entry *scratch, size_t cap, qcompact_plan *plan) {
  memset(hist, 0, QCOMPACT_HISTOGRAM * sizeof *hist);
  for (uint64_t i = 0; i < leaves; i++) {
    leaf_ref l;
    size_t n;
    if (leaf_of(body, body_bytes, leaves, i, &l) != 0 ||
        qleaf_decode(l.rec, l.len, scratch, cap, &n, NULL, 0) != 0)
      return -1;
    for (size_t j = 0; j < n; j++)
      hist[l.depth * QCOMPACT_NO_CUT + l.depth + scratch[j].bits]++;
  }
  plan->total = QCOMPACT_NO_CUT;
  plan->estimated = rate_at(hist, QCOMPACT_NO_CUT);
  plan->spare = 0;
  if (!(plan->estimated <= rate)) return 0; /* nothing to spend */
  for (unsigned t = QCOMPACT_NO_CUT; t-- > 0;) {
    double r = rate_at(hist, t);
    if (!(r <= rate)) break;
    plan->total = t;
    plan->estimated = r;
  }
  plan->spare = rate - plan->estimated;
  return 0;
}

/* Cuts the leaf's n entries to the plan's total, or one bit less when
** what that adds fits *spare (taken from it). */
static void cut(qleaf_entry *e, size_t n, unsigned depth,
                const qcompact_plan *plan, double *spare) {
  unsigned total = plan->total;
  if (total > 0) {
    double extra = 0;
    for (size_t j = 0; j < n; j++) {
      unsigned t = depth + e[j].bits;
      extra += ldexp(1.0, -(int)cut_total(depth, t, total - 1)) -
               ldexp(1.0, -(int)cut_total(depth, t, total));
    }
    if (extra <= *spare) {
      *spare -= extra;
      total--;
    }
  }
  for (size_t j = 0; j < n; j++) {
    unsigned bits = cut_total(depth, depth + e[j].bits, total) - depth;
    unsigned drop = e[j].bits - bits;
    e[j].key = drop >= 64 ? 0 : e[j].key >> drop;
    e[j].bits = bits;
  }
}

/* The entries of a leaf at depth d as keys of its ancestor x levels up:
** the leaf's last x address bits go on top of each key. */
static void lift(qleaf_entry *e, size_t n, uint64_t node, unsigned x) {
  if (x == 0) return;
  uint64_t rel = node & (((uint64_t)1 << x) - 1);
  for (size_t j = 0; j < n; j++) {
    e[j].key |= rel << e[j].bits; /* bits + x <= 64: checked by the caller */
    e[j].bits += x;
  }
}

/* 1 if the sorted run e[0..n) holds key. */
static int run_holds(const qleaf_entry *e, size_t n, uint64_t key) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (e[mid].key < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && e[lo].key == key;
}

/* Drops from sorted entries the copies of a key and the keys a shorter key
** covers (its top bits); returns how many are left, in order. */
static size_t prune(qleaf_entry *e, size_t n) {
  size_t run_at[QLEAF_MAX_SECTIONS + 1], runs = 0;
  for (size_t i = 0; i < n; runs++) {
    run_at[runs] = i;
    while (++i < n && e[i].bits == e[run_at[runs]].bits) {}
  }
  run_at[runs] = n;
  size_t kept = 0;
  for (size_t r = 0; r < runs; r++)
    for (size_t i = run_at[r]; i < run_at[r + 1]; i++) {
      if (kept > 0 && e[kept - 1].bits == e[i].bits &&
          e[kept - 1].key == e[i].key)
        continue;
      int covered = 0;
      for (size_t s = r + 1; s < runs && !covered; s++) {
        unsigned drop = e[i].bits - e[run_at[s]].bits;
        uint64_t top = drop >= 64 ? 0 : e[i].key >> drop;
        covered = run_holds(e + run_at[s], run_at[s + 1] - run_at[s], top);
      }
      if (!covered) e[kept++] = e[i];
    }
  return kept;
}

/* 1 if every section of sorted e[0..n) can be written. */
static int sections_fit(const qleaf_entry *e, size_t n) {
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && e[j].bits == e[i].bits) j++;
    if (j - i > QLEAF_MAX_SECTION_ENTRIES) return 0;
    i = j;
  }
  return 1;
}

/* Where leaf l's widest key ends once cut by the plan: its depth plus the
** bits it keeps.  Lifted to an ancestor at depth u, it has that less u. */
static unsigned cut_end(const leaf_ref *l, const qcompact_plan *plan) {
  unsigned b = qleaf_widest_bits(l->rec, l->len);
  unsigned room = plan->total > l->depth ? plan->total - l->depth : 0;
  return l->depth + (b < room ? b : room);
}

/* The last leaf of the group leaf i begins, and the group's node: the
** largest aligned range that starts at leaf i, holds at most
** QCOMPACT_MOST_ENTRIES entries, and whose keys fit 64 bits once lifted.
** Each larger range holds the smaller one, so the scan goes on from
** where it stopped, keeping the sum of entries and the deepest key end. */
static int group_of(const unsigned char *body, size_t body_bytes,
                    uint64_t leaves, uint64_t i, const qcompact_plan *plan,
                    uint64_t *group_node, uint64_t *last) {
  leaf_ref l;
  if (leaf_of(body, body_bytes, leaves, i, &l) != 0) return -1;
  uint64_t first = qleaf_start(l.node), node = l.node, k = i + 1;
  uint64_t sum = qleaf_entries(l.rec, l.len);
  unsigned deepest = cut_end(&l, plan);
  *last = i;
  for (unsigned d = l.depth; d > 0; d--) {
    uint64_t up = node >> 1;
    unsigned ud = d - 1;
    if (qleaf_start(up) != first) break;
    /* up's range ends at its start + 2^(64 - ud); 0: the whole space */
    uint64_t end = ud == 0 ? 0 : first + ((uint64_t)1 << (64 - ud));
    int nested = 1; /* what qleaves_stats accepted always is */
    for (; k < leaves; k++) {
      if (leaf_of(body, body_bytes, leaves, k, &l) != 0) return -1;
      if (end != 0 && qleaf_start(l.node) >= end) break;
      nested &= l.depth > ud;
      sum += qleaf_entries(l.rec, l.len);
      unsigned e = cut_end(&l, plan);
      if (e > deepest) deepest = e;
    }
    if (!nested || sum > QCOMPACT_MOST_ENTRIES || deepest - ud > 64) break;
    node = up;
    *last = k - 1;
  }
  *group_node = node;
  return 0;
}

/* Writes leaf `made` of the result (its node, and its record's end `at`
** in the records area) when out is given. */
static void put_entry(unsigned char *out, uint64_t made, uint64_t node,
                      size_t at) {
  if (out == NULL) return;
  store_le64(out + made * QLEAVES_ENTRY_BYTES, node);
  store_le64(out + made * QLEAVES_ENTRY_BYTES + 8, at);
}

int qcompact_body(const unsigned char *body, size_t body_bytes,
                  uint64_t leaves, const qcompact_plan *plan,
                  qleaf_entry *scratch, size_t cap, unsigned char *out,
                  qcompact_size *size) {
  size_t room = out ? size->bytes - size->leaves * QLEAVES_ENTRY_BYTES : 0;
  unsigned char *area = out ? out + size->leaves * QLEAVES_ENTRY_BYTES : NULL;
  uint64_t made = 0;
  size_t at = 0;
  double spare = plan->spare;
  for (uint64_t i = 0, last; i < leaves; i = last + 1) {
    uint64_t node;
    if (group_of(body, body_bytes, leaves, i, plan, &node, &last) != 0)
      return -1;
    unsigned depth = qleaf_depth(node);
    size_t c = 0;
    for (uint64_t j = i; j <= last; j++) {
      leaf_ref l;
      size_t n;
      if (leaf_of(body, body_bytes, leaves, j, &l) != 0 || c > cap ||
          qleaf_decode(l.rec, l.len, scratch + c, cap - c, &n, NULL, 0) != 0)
        return -1;
      cut(scratch + c, n, l.depth, plan, &spare);
      lift(scratch + c, n, l.node, l.depth - depth);
      c += n;
    }
    qleaf_sort(scratch, c);
    c = prune(scratch, c);
    if (out && (made >= size->leaves || at > room)) return -1;
    if (sections_fit(scratch, c)) {
      size_t bytes = qleaf_encoded_bytes(scratch, c);
      if (out && bytes > room - at) return -1; /* not what was measured */
      if (out) qleaf_encode(scratch, c, area + at);
      at += bytes;
      put_entry(out, made++, node, at);
      continue;
    }
    /* Only a leaf of more than a section's entries can fail here; it goes
    ** out as it came (its keys uncut: the rate only falls). */
    for (uint64_t j = i; j <= last; j++) {
      leaf_ref l;
      if (leaf_of(body, body_bytes, leaves, j, &l) != 0 ||
          (out && (made >= size->leaves || l.len > room - at)))
        return -1;
      if (out) memcpy(area + at, l.rec, l.len);
      at += l.len;
      put_entry(out, made++, l.node, at);
    }
  }
  if (out && made != size->leaves) return -1;
  size->leaves = made;
  size->bytes = (size_t)made * QLEAVES_ENTRY_BYTES + at;
  return 0;
}
