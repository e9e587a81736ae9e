/*
** The chunks of a store that a connection has read or changed, kept in
** memory by chunk number.  A changed ("dirty") chunk is written
** back to the shadow table when the store flushes (at xSync, at a
** savepoint, or when the cache outgrows its budget); until then a read in
** the same transaction sees it here.  After ROLLBACK or ROLLBACK TO, the
** cache is simply emptied: every change it held was made after the last
** flush, and the pager rolls back what was flushed.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef STORE_CHUNK_CACHE_H
#define STORE_CHUNK_CACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct cached_chunk {
  int64_t id;           /* chunk number; -1 in an empty slot */
  int dirty;            /* changed since it was read or last written */
  unsigned char *bytes; /* the chunk row's bytes */
  size_t size;          /* how many */
} cached_chunk;

typedef struct chunk_cache {
  cached_chunk *slots; /* open addressing, a power of two in size */
  size_t capacity;     /* slots */
  size_t count;        /* occupied slots */
  size_t dirty;        /* dirty chunks */
  int64_t *dirty_ids;  /* their ids, in the order they became dirty (room
                          for `capacity`: written back without a scan of
                          the clean chunks a connection keeps) */
  size_t bytes;        /* chunk bytes held */
  uint64_t clears;     /* how many times cache_clear emptied it: what was
                          learnt from its chunks holds while this stays */
} chunk_cache;

/* How long what the cache hands out stays valid: a cached_chunk * until
** the next cache_add or cache_clear (adding may move every slot); its
** bytes until cache_clear (adding moves no chunk's bytes).  store.h's
** chunk_* functions hand out only bytes. */

/* The chunk numbered id, or NULL if the cache does not hold it. */
cached_chunk *cache_find(const chunk_cache *c, int64_t id);

/* Adds chunk id, taking ownership of bytes (from sqlite3_malloc64) of the
** given size.  NULL when out of memory (bytes is then freed). */
cached_chunk *cache_add(chunk_cache *c, int64_t id, unsigned char *bytes,
                        size_t size);

/* Marks a chunk changed. */
void cache_mark_dirty(chunk_cache *c, cached_chunk *chunk);

/* Marks the first n chunks of dirty_ids written back. */
void cache_mark_clean_first(chunk_cache *c, size_t n);

/* Drops every chunk (dirty ones too) and frees the memory. */
void cache_clear(chunk_cache *c);

#endif
