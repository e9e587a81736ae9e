/*
** A value's way through a store's layers (store.h, "items.c"): hashed
** once, probed in every layer (newest first), added to the newest layer
** (the schedule adding the next when it is full), removed from the one
** layer that holds it.  store_vtab.c maps SQL onto these; the kind does
** the work in each layer.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "functions/value_affinity.h"
#include "store/store.h"

int items_hash(const store *s, sqlite3_value *value, int stored,
               filter_hash *h, int *is_null) {
  arg_status st = s->config.affinity == AFFINITY_BLOB
                      ? value_hash(value, sqlite3_value_type(value),
                                   s->config.header.seed, h)
                      : value_hash_as(value, s->config.affinity, stored,
                                      s->config.header.seed, h);
  *is_null = st == ARG_NULL;
  return st == ARG_ERROR ? SQLITE_NOMEM : SQLITE_OK;
}

/* *maybe: some layer may hold h.  The newest layer holds the most items:
** it is asked first. */
static int items_contains_any(store *s, filter_hash h, int *maybe) {
  if (s->kind->contains_any) return s->kind->contains_any(s, h, maybe);
  *maybe = 0;
  int rc = SQLITE_OK;
  for (int i = s->config.layer_count; rc == SQLITE_OK && !*maybe && i-- > 0;)
    rc = s->kind->contains(s, &s->config.layers[i], h, maybe);
  return rc;
}

int items_probe(store *s, sqlite3_value *value, filter_hash *h, int *maybe) {
  int is_null;
  int rc = items_hash(s, value, 0, h, &is_null);
  *maybe = 0;
  if (rc != SQLITE_OK || is_null) return rc; /* NULL = x is never true */
  if (s->config.layer_count == 0) return SQLITE_OK; /* no live generation */
  rc = chunks_settle(s);
  return rc == SQLITE_OK ? items_contains_any(s, *h, maybe) : rc;
}

int items_add(store *s, sqlite3_value *value, sqlite3_value **own,
              int if_new, int *skipped) {
  filter_hash h;
  int is_null, full = 0, maybe = 0, layer = s->config.layer_count - 1;
  int rc = items_hash(s, value, 1, &h, &is_null);
  *skipped = is_null; /* NULL is never added */
  if (rc != SQLITE_OK || is_null) return rc;
  if (s->config.schedule->place) {
    int outside;
    rc = s->config.schedule->place(s, own, &layer, &outside);
    *skipped = outside ? ITEMS_OUTSIDE : 0;
    if (rc != SQLITE_OK || outside) return rc;
  }
  if (if_new) {
    rc = chunks_settle(s);
    if (rc == SQLITE_OK) rc = items_contains_any(s, h, &maybe);
    *skipped = maybe;
    if (rc != SQLITE_OK || maybe) return rc;
  }
  rc = chunks_make_room(s);
  if (rc == SQLITE_OK) rc = s->kind->add(s, &s->config.layers[layer], h, &full);
  if (rc != SQLITE_OK || !full) return rc;
  /* The layer is full: the next one, the work the kind put off applied
  ** first. */
  rc = chunks_settle(s);
  if (rc == SQLITE_OK) rc = s->config.schedule->grow(s, &layer);
  if (rc == SQLITE_OK) rc = s->kind->add(s, &s->config.layers[layer], h, &full);
  if (rc == SQLITE_OK && full)
    rc = store_error(s, "a new layer of %s refused an item", s->tables.name);
  return rc;
}

int items_load(store *s, sqlite3_value *blob) {
  int rc = chunks_settle(s);
  if (rc != SQLITE_OK) return rc;
  if (s->kind->load == NULL)
    return store_error(s, "a %s takes values, not a filter: insert the "
                       "values", s->function->name);
  if (s->config.schedule->layered)
    return store_error(s, "a %s store takes values, not a filter: "
                       "insert the values, or create a fixed store (capacity "
                       "without growth) to %s a filter",
                       s->config.schedule->name,
                       s->kind->load_verb);
  if (sqlite3_value_type(blob) != SQLITE_BLOB)
    return store_error(s, "the filter to %s must be a BLOB",
                       s->kind->load_verb);
  filter_view f;
  char why[160];
  if (filter_parse(sqlite3_value_blob(blob), (size_t)sqlite3_value_bytes(blob),
                   s->kind->kind, &f, why, sizeof why) != 0)
    return store_error(s, "%s", why);
  return s->kind->load(s, &f);
}

/* One copy, from the one layer whose buckets hold its fingerprint.  When
** several layers do, one of them may hold another value's colliding
** fingerprint (as often as the store's rate): taking that one would make
** the other value a false negative, so nothing is removed and the value
** stays "maybe present", which a filter may say of anything.  None: an
** earlier row of the same DELETE took it. */
int items_remove(store *s, filter_hash h) {
  int rc = chunks_make_room(s);
  int holder = -1, holders = 0;
  for (int i = s->config.layer_count; rc == SQLITE_OK && i-- > 0;) {
    int maybe;
    rc = s->kind->contains(s, &s->config.layers[i], h, &maybe);
    if (rc == SQLITE_OK && maybe) {
      holder = i;
      holders++;
    }
  }
  if (rc != SQLITE_OK || holders != 1) return rc;
  int removed;
  return s->kind->remove(s, &s->config.layers[holder], h, &removed);
}
