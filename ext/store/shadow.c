/*
** A store's shadow tables (shadow.h).
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#include "store/shadow.h"

#include <stdio.h>
#include <string.h>

static char *copy_text(const char *s) {
  size_t n = strlen(s) + 1;
  char *out = sqlite3_malloc64(n);
  if (out) memcpy(out, s, n);
  return out;
}

int shadow_init(shadow_tables *t, sqlite3 *db, const char *schema,
                const char *name) {
  memset(t, 0, sizeof *t);
  t->db = db;
  t->schema = copy_text(schema);
  t->name = copy_text(name);
  if (t->schema == NULL || t->name == NULL) {
    shadow_free(t);
    return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

static void finalize_statements(shadow_tables *t) {
  sqlite3_finalize(t->read_chunk);
  sqlite3_finalize(t->write_chunk);
  sqlite3_finalize(t->put_chunk);
  sqlite3_finalize(t->get_config);
  sqlite3_finalize(t->scan_chunks);
  sqlite3_finalize(t->put_node);
  sqlite3_finalize(t->last_leaf);
  t->read_chunk = t->write_chunk = t->put_chunk = t->get_config = NULL;
  t->scan_chunks = t->put_node = t->last_leaf = NULL;
}

void shadow_free(shadow_tables *t) {
  finalize_statements(t);
  sqlite3_free(t->schema);
  sqlite3_free(t->name);
  t->schema = t->name = NULL;
}

/* Runs SQL made with sqlite3_mprintf (NULL: out of memory). */
static int run(sqlite3 *db, char *sql) {
  if (sql == NULL) return SQLITE_NOMEM;
  int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
  sqlite3_free(sql);
  return rc;
}

/* Prepares SQL made with sqlite3_mprintf, to be kept (persistent). */
static int prepare(sqlite3 *db, char *sql, sqlite3_stmt **stmt) {
  if (sql == NULL) return SQLITE_NOMEM;
  int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, stmt,
                              NULL);
  sqlite3_free(sql);
  return rc;
}

int shadow_create(shadow_tables *t) {
  int rc = run(t->db, sqlite3_mprintf(
                          "CREATE TABLE \"%w\".\"%w_config\"(key TEXT PRIMARY "
                          "KEY, value) WITHOUT ROWID",
                          t->schema, t->name));
  if (rc == SQLITE_OK)
    rc = run(t->db, sqlite3_mprintf("CREATE TABLE \"%w\".\"%w_chunks\"(id "
                                    "INTEGER PRIMARY KEY, data BLOB NOT NULL)",
                                    t->schema, t->name));
  return rc;
}

int shadow_drop(shadow_tables *t) {
  finalize_statements(t);
  int rc = run(t->db, sqlite3_mprintf("DROP TABLE IF EXISTS \"%w\".\"%w_config\"",
                                      t->schema, t->name));
  if (rc == SQLITE_OK)
    rc = run(t->db, sqlite3_mprintf("DROP TABLE IF EXISTS \"%w\".\"%w_chunks\"",
                                    t->schema, t->name));
  if (rc == SQLITE_OK)
    rc = run(t->db, sqlite3_mprintf("DROP TABLE IF EXISTS "
                                    "\"%w\".\"%w_directory\"",
                                    t->schema, t->name));
  return rc;
}

/* 1 in *has if the store has a directory table. */
static int has_directory(shadow_tables *t, int *has) {
  sqlite3_stmt *stmt;
  char *sql = sqlite3_mprintf("SELECT 1 FROM \"%w\".sqlite_master WHERE "
                              "type = 'table' AND name = '%q_directory'",
                              t->schema, t->name);
  if (sql == NULL) return SQLITE_NOMEM;
  int rc = sqlite3_prepare_v2(t->db, sql, -1, &stmt, NULL);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_step(stmt);
  *has = rc == SQLITE_ROW;
  sqlite3_finalize(stmt);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int shadow_rename(shadow_tables *t, const char *new_name) {
  finalize_statements(t);
  char *name = copy_text(new_name);
  if (name == NULL) return SQLITE_NOMEM;
  int rc = run(t->db, sqlite3_mprintf(
                          "ALTER TABLE \"%w\".\"%w_config\" RENAME TO \"%w_config\"",
                          t->schema, t->name, new_name));
  if (rc == SQLITE_OK)
    rc = run(t->db, sqlite3_mprintf(
                        "ALTER TABLE \"%w\".\"%w_chunks\" RENAME TO \"%w_chunks\"",
                        t->schema, t->name, new_name));
  int has = 0;
  if (rc == SQLITE_OK) rc = has_directory(t, &has);
  if (rc == SQLITE_OK && has)
    rc = run(t->db, sqlite3_mprintf("ALTER TABLE \"%w\".\"%w_directory\" "
                                    "RENAME TO \"%w_directory\"",
                                    t->schema, t->name, new_name));
  if (rc != SQLITE_OK) {
    sqlite3_free(name);
    return rc;
  }
  sqlite3_free(t->name);
  t->name = name;
  return SQLITE_OK;
}

int shadow_is_suffix(const char *suffix) {
  return strcmp(suffix, "config") == 0 || strcmp(suffix, "chunks") == 0 ||
         strcmp(suffix, "directory") == 0;
}

int shadow_create_directory(shadow_tables *t) {
  return run(t->db, sqlite3_mprintf("CREATE TABLE \"%w\".\"%w_directory\"("
                                    "chunk INTEGER PRIMARY KEY, node INTEGER "
                                    "NOT NULL)", t->schema, t->name));
}

/* Prepares a statement used once: sql has two %w, the schema and the
** table name.  *stmt is NULL on a failure. */
static int prepare_once(shadow_tables *t, const char *sql,
                        sqlite3_stmt **stmt) {
  char *text = sqlite3_mprintf(sql, t->schema, t->name);
  *stmt = NULL;
  if (text == NULL) return SQLITE_NOMEM;
  int rc = sqlite3_prepare_v2(t->db, text, -1, stmt, NULL);
  sqlite3_free(text);
  return rc;
}

/* One configuration row: value i (type SQLITE_INTEGER), r (SQLITE_FLOAT)
** or text (SQLITE_TEXT). */
static int put_config(shadow_tables *t, const char *key, int type,
                      sqlite3_int64 i, double r, const char *text) {
  sqlite3_stmt *stmt;
  /* OR REPLACE: a scalable store rewrites its layer count, and a layer's
  ** rows left by a failed growth are written again. */
  int rc = prepare_once(t, "INSERT OR REPLACE INTO \"%w\".\"%w_config\"(key, "
                        "value) VALUES (?1, ?2)", &stmt);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(stmt, 1, key, -1, SQLITE_STATIC);
  if (type == SQLITE_FLOAT)
    sqlite3_bind_double(stmt, 2, r);
  else if (type == SQLITE_TEXT)
    sqlite3_bind_text(stmt, 2, text, -1, SQLITE_STATIC);
  else
    sqlite3_bind_int64(stmt, 2, i);
  rc = sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int shadow_put_config(shadow_tables *t, const char *key, sqlite3_int64 value) {
  return put_config(t, key, SQLITE_INTEGER, value, 0, NULL);
}

int shadow_put_config_real(shadow_tables *t, const char *key, double value) {
  return put_config(t, key, SQLITE_FLOAT, 0, value, NULL);
}

int shadow_put_config_text(shadow_tables *t, const char *key,
                           const char *value) {
  return put_config(t, key, SQLITE_TEXT, 0, 0, value);
}

int shadow_read_config(shadow_tables *t, sqlite3_stmt **stmt) {
  return prepare_once(t, "SELECT key, value FROM \"%w\".\"%w_config\"", stmt);
}

int shadow_add_chunks(shadow_tables *t, int64_t first, int64_t count,
                      int bytes, int last_bytes) {
  sqlite3_stmt *stmt;
  int rc = prepare_once(t, "INSERT INTO \"%w\".\"%w_chunks\"(id, data) "
                        "VALUES (?1, ?2)", &stmt);
  for (int64_t i = 0; rc == SQLITE_OK && i < count; i++) {
    sqlite3_bind_int64(stmt, 1, first + i);
    sqlite3_bind_zeroblob(stmt, 2, i == count - 1 ? last_bytes : bytes);
    rc = sqlite3_step(stmt);
    rc = rc == SQLITE_DONE ? sqlite3_reset(stmt) : rc;
  }
  sqlite3_finalize(stmt);
  return rc;
}

/* The statement in *slot, prepared (and kept) the first time: sql has two
** %w, the schema and the table name. */
static int statement(shadow_tables *t, sqlite3_stmt **slot, const char *sql) {
  if (*slot) return SQLITE_OK;
  return prepare(t->db, sqlite3_mprintf(sql, t->schema, t->name), slot);
}

int shadow_find_chunk(shadow_tables *t, int64_t id, sqlite3_stmt **stmt) {
  *stmt = NULL;
  int rc = statement(t, &t->read_chunk,
                     "SELECT data FROM \"%w\".\"%w_chunks\" WHERE id = ?1");
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(t->read_chunk, 1, id);
  rc = sqlite3_step(t->read_chunk);
  if (rc == SQLITE_ROW) {
    *stmt = t->read_chunk;
    return SQLITE_OK;
  }
  int reset = sqlite3_reset(t->read_chunk);
  if (rc == SQLITE_DONE) return SQLITE_OK;
  return reset != SQLITE_OK ? reset : rc;
}

void shadow_done(sqlite3_stmt *stmt) { sqlite3_reset(stmt); }

/* Runs a chunk write (?1 the id, ?2 the bytes); *changed: the rows it
** changed. */
static int write_with(shadow_tables *t, sqlite3_stmt *stmt, int64_t id,
                      const void *bytes, int size, int *changed) {
  sqlite3_bind_int64(stmt, 1, id);
  sqlite3_bind_blob(stmt, 2, bytes, size, SQLITE_STATIC);
  int rc = sqlite3_step(stmt);
  *changed = sqlite3_changes(t->db);
  int reset = sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  return rc == SQLITE_DONE ? SQLITE_OK : reset != SQLITE_OK ? reset : rc;
}

int shadow_write_chunk(shadow_tables *t, int64_t id, const void *bytes,
                       int size) {
  int changed;
  int rc = statement(t, &t->write_chunk,
                     "UPDATE \"%w\".\"%w_chunks\" SET data = ?2 WHERE id = ?1");
  if (rc == SQLITE_OK)
    rc = write_with(t, t->write_chunk, id, bytes, size, &changed);
  if (rc != SQLITE_OK) return rc;
  return changed == 1 ? SQLITE_OK : SQLITE_CORRUPT_VTAB;
}

int shadow_put_chunk(shadow_tables *t, int64_t id, const void *bytes,
                     int size) {
  /* Most writes change a row that exists: UPDATE first, as a fixed store
  ** does, and INSERT only when there was none. */
  int rc = shadow_write_chunk(t, id, bytes, size);
  if (rc != SQLITE_CORRUPT_VTAB) return rc;
  int changed;
  rc = statement(t, &t->put_chunk,
                 "INSERT INTO \"%w\".\"%w_chunks\"(id, data) VALUES (?1, ?2)");
  return rc == SQLITE_OK
             ? write_with(t, t->put_chunk, id, bytes, size, &changed)
             : rc;
}

int shadow_get_config(shadow_tables *t, const char *key, sqlite3_int64 *value) {
  int rc = statement(t, &t->get_config,
                     "SELECT value FROM \"%w\".\"%w_config\" WHERE key = ?1");
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(t->get_config, 1, key, -1, SQLITE_STATIC);
  rc = sqlite3_step(t->get_config);
  *value = rc == SQLITE_ROW ? sqlite3_column_int64(t->get_config, 0) : -1;
  int reset = sqlite3_reset(t->get_config);
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) return SQLITE_OK;
  return reset != SQLITE_OK ? reset : rc;
}

int shadow_scan_chunks(shadow_tables *t, int64_t lo, int64_t hi,
                       sqlite3_stmt **stmt) {
  *stmt = NULL;
  int rc = statement(t, &t->scan_chunks,
                     "SELECT id, data FROM \"%w\".\"%w_chunks\" WHERE id "
                     "BETWEEN ?1 AND ?2 ORDER BY id");
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(t->scan_chunks, 1, lo);
  sqlite3_bind_int64(t->scan_chunks, 2, hi);
  *stmt = t->scan_chunks;
  return SQLITE_OK;
}

int shadow_delete_slot(shadow_tables *t, int k, int64_t lo, int64_t hi) {
  sqlite3_stmt *stmt;
  int rc = prepare_once(t, "DELETE FROM \"%w\".\"%w_chunks\" WHERE id "
                        "BETWEEN ?1 AND ?2", &stmt);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(stmt, 1, lo);
    sqlite3_bind_int64(stmt, 2, hi);
    rc = sqlite3_step(stmt);
    rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_OK) return rc;
  /* gen.<k>. up to gen.<k>/ ('/' follows '.'): every key of the slot. */
  char from[32], to[32];
  snprintf(from, sizeof from, "gen.%d.", k);
  snprintf(to, sizeof to, "gen.%d/", k);
  rc = prepare_once(t, "DELETE FROM \"%w\".\"%w_config\" WHERE key >= ?1 "
                    "AND key < ?2", &stmt);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(stmt, 1, from, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, to, -1, SQLITE_STATIC);
    rc = sqlite3_step(stmt);
    rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
  }
  sqlite3_finalize(stmt);
  return rc;
}

int shadow_put_node(shadow_tables *t, int64_t chunk, int64_t node) {
  int rc = statement(t, &t->put_node,
                     "INSERT OR REPLACE INTO \"%w\".\"%w_directory\"(chunk, "
                     "node) VALUES (?1, ?2)");
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(t->put_node, 1, chunk);
  sqlite3_bind_int64(t->put_node, 2, node);
  rc = sqlite3_step(t->put_node);
  sqlite3_reset(t->put_node);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int shadow_scan_directory(shadow_tables *t, sqlite3_stmt **stmt) {
  return prepare_once(t, "SELECT chunk, node FROM \"%w\".\"%w_directory\" "
                      "ORDER BY chunk", stmt);
}

int shadow_last_leaf(shadow_tables *t, int64_t *chunk) {
  int rc = statement(t, &t->last_leaf,
                     "SELECT max(chunk) FROM \"%w\".\"%w_directory\"");
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_step(t->last_leaf);
  *chunk = rc == SQLITE_ROW && sqlite3_column_type(t->last_leaf, 0) ==
                                   SQLITE_INTEGER
               ? sqlite3_column_int64(t->last_leaf, 0)
               : -1;
  sqlite3_reset(t->last_leaf);
  return rc == SQLITE_ROW ? SQLITE_OK : rc;
}
