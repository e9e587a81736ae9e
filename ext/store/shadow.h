/*
** A store's shadow tables, in the manner of FTS5 and R*Tree: the filter
** lives in ordinary tables beside the virtual table, so that every change is
** an ordinary, journaled, replicated SQLite write.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   "<name>_config"(key TEXT PRIMARY KEY, value) WITHOUT ROWID
**       the store's shape, written once by CREATE VIRTUAL TABLE
**   "<name>_chunks"(id INTEGER PRIMARY KEY, data BLOB NOT NULL)
**       the filter's body cut into chunk rows, each small enough for one
**       database page, so that an insert changes one page
**
** ext/FORMAT.md ("Stores") gives the layout of both.
*/
#ifndef STORE_SHADOW_H
#define STORE_SHADOW_H

#include <stdint.h>

#include "functions/api.h"

typedef struct shadow_tables {
  sqlite3 *db;
  char *schema;              /* the database the store lives in */
  char *name;                /* the virtual table's name */
  sqlite3_stmt *read_chunk;  /* SELECT data ... WHERE id = ?1 */
  sqlite3_stmt *write_chunk; /* UPDATE ... SET data = ?2 WHERE id = ?1 */
  sqlite3_stmt *put_chunk;   /* the same, creating the row if need be */
  sqlite3_stmt *get_config;  /* SELECT value ... WHERE key = ?1 */
  sqlite3_stmt *scan_chunks; /* SELECT id, data ... BETWEEN ... ORDER BY id */
  sqlite3_stmt *put_node;    /* INSERT OR REPLACE INTO directory */
  sqlite3_stmt *last_leaf;   /* SELECT max(chunk) FROM directory */
} shadow_tables;

/* Binds the names (copied); prepares nothing yet.  SQLITE_NOMEM or OK. */
int shadow_init(shadow_tables *t, sqlite3 *db, const char *schema,
                const char *name);
/* Finalizes the statements and frees the names. */
void shadow_free(shadow_tables *t);

/* Creates both tables, empty. */
int shadow_create(shadow_tables *t);
/* Drops the tables (a quotient store's directory too). */
int shadow_drop(shadow_tables *t);
/* Renames the tables (a quotient store's directory too) for a virtual
** table renamed to new_name. */
int shadow_rename(shadow_tables *t, const char *new_name);

/* A quotient store's third table, <name>_directory(chunk INTEGER PRIMARY
** KEY, node INTEGER NOT NULL): which hash range each chunk holds. */
int shadow_create_directory(shadow_tables *t);
/* Writes (or rewrites) the directory row of chunk. */
int shadow_put_node(shadow_tables *t, int64_t chunk, int64_t node);
/* Prepares "SELECT chunk, node FROM directory ORDER BY chunk" for the
** caller to step and finalize. */
int shadow_scan_directory(shadow_tables *t, sqlite3_stmt **stmt);
/* *chunk: the largest chunk of the directory, -1 if it has no row. */
int shadow_last_leaf(shadow_tables *t, int64_t *chunk);

/* 1 if name is one of a store's shadow-table suffixes. */
int shadow_is_suffix(const char *suffix);

/* Writes (or rewrites) one configuration row. */
int shadow_put_config(shadow_tables *t, const char *key, sqlite3_int64 value);
int shadow_put_config_real(shadow_tables *t, const char *key, double value);
int shadow_put_config_text(shadow_tables *t, const char *key,
                           const char *value);

/* Prepares "SELECT key, value FROM config" for the caller to step. */
int shadow_read_config(shadow_tables *t, sqlite3_stmt **stmt);

/* Appends chunk rows id = first .. first + count - 1 of zero bytes: all of
** `bytes` bytes but the last, which has last_bytes. */
int shadow_add_chunks(shadow_tables *t, int64_t first, int64_t count,
                      int bytes, int last_bytes);

/* Steps read_chunk for chunk id: *stmt positioned on its row (read column
** 0, then call shadow_done), or NULL if there is no such row.  Like every
** function of the store it answers SQLITE_OK or an error: sqlite3_step's
** SQLITE_ROW and SQLITE_DONE never leave the function that stepped. */
int shadow_find_chunk(shadow_tables *t, int64_t id, sqlite3_stmt **stmt);
void shadow_done(sqlite3_stmt *stmt);

/* Overwrites chunk id with bytes[0..size).  SQLITE_CORRUPT_VTAB when the
** row does not exist. */
int shadow_write_chunk(shadow_tables *t, int64_t id, const void *bytes,
                       int size);

/* Writes chunk id, creating its row if it has none (the layers of a
** scalable store are created without rows: a missing row reads as zeros). */
int shadow_put_chunk(shadow_tables *t, int64_t id, const void *bytes,
                     int size);

/* The integer configuration value of key, -1 if there is no such row. */
int shadow_get_config(shadow_tables *t, const char *key, sqlite3_int64 *value);

/* Deletes a windowed store's slot k: its chunk rows lo..hi and its
** configuration rows gen.<k>.*, two range deletes on the primary keys. */
int shadow_delete_slot(shadow_tables *t, int k, int64_t lo, int64_t hi);

/* "SELECT id, data FROM chunks WHERE id BETWEEN lo AND hi ORDER BY id",
** prepared once: step it, then shadow_done.  A range reads only the rows
** that exist in it, however wide it is. */
int shadow_scan_chunks(shadow_tables *t, int64_t lo, int64_t hi,
                       sqlite3_stmt **stmt);

#endif
