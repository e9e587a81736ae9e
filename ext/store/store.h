/*
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** Virtual tables that store data: filters kept in place in shadow tables,
** registered by bloom_ext.c.
**
**   store_vtab.c    CREATE VIRTUAL TABLE ... USING bloom_store(...) or
**                   cuckoo_store(...): one module for both, fixed or scalable
**   layers.c        the configuration rows and a scalable store's layers
**   bloom_layout.c  what is Bloom's (layout.h), cuckoo_layout.c cuckoo's
**   shadow.c        the shadow tables (configuration and chunk rows)
**   chunk_cache.c   the chunks a write transaction holds in memory
**   options.c       the CREATE arguments
*/
#ifndef STORE_STORE_H
#define STORE_STORE_H

#include "functions/api.h"

/* The kind comes from the registry row (its kind field). */
extern const sqlite3_module store_module;

#endif
