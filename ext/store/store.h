/*
** Virtual tables that store data: filters kept in place in shadow tables,
** registered by bloom_ext.c.
**
**   bloom_store.c   CREATE VIRTUAL TABLE ... USING bloom_store(capacity, fpr)
**   shadow.c        the shadow tables (configuration and chunk rows)
**   chunk_cache.c   the chunks a write transaction holds in memory
**   options.c       the CREATE arguments
*/
#ifndef STORE_STORE_H
#define STORE_STORE_H

#include "functions/api.h"

extern const sqlite3_module store_bloom_module;

#endif
