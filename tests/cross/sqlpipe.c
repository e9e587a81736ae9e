/*
** A SQL server on a pipe, for the tests of make test-cross: run under
** qemu as another machine, it opens one database with the extension
** loaded and runs the statements a native Python test sends it on stdin
** (tests/cross/remote.py), answering rows and errors on stdout.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   sqlpipe DATABASE     (loads $BLOOM_SO, as the Python tests' connect())
**
** So the Python tests (the golden vectors, the second reader) run natively
** while SQLite and the extension run on the emulated machine: each blob
** the reader reads was made there.
**
** Messages, every integer little-endian whatever the machine: a frame is
** one byte (its type), a u32 length, then that many bytes.  A value is a
** byte then its payload: 'n' NULL; 'i' an i64; 'f' a binary64's bits as a
** u64; 't' TEXT (UTF-8) and 'b' BLOB, a u32 length then the bytes.
**
**   first, the server sends  'K' (ready: the machine it was built for,
**       as text, say "s390x big-endian") or 'E' (see below)
**   'X' u32 n, n bytes of SQL (one statement), u32 sets, then each set
**       of parameters: u32 count, count values.  The statement runs once
**       per set (executemany); once with none when sets is 0.  The server
**       answers 'C' u32 columns, each name as u32 length + bytes, then
**       one 'R' per row (its values), then 'D' or 'E'.
**   'S' the bytes of a script, run by sqlite3_exec: 'D' or 'E'.
**   'Q' or end of input: closes the database and exits.
**   'D' u8 autocommit (sqlite3_get_autocommit); the statement is done.
**   'E' u32 result code, u8 autocommit, then the message.
*/
#define _POSIX_C_SOURCE 200809L

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/le.h"

/* ---- output ------------------------------------------------------------------ */

/* One frame is built in `out`, then written whole. */
typedef struct buf {
  unsigned char *p;
  size_t n, cap;
} buf;

static void need(buf *b, size_t more) {
  if (b->cap - b->n >= more) return;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap - b->n < more) cap *= 2;
  unsigned char *p = realloc(b->p, cap);
  if (!p) {
    fprintf(stderr, "sqlpipe: out of memory\n");
    exit(3);
  }
  b->p = p;
  b->cap = cap;
}
static void put(buf *b, const void *p, size_t n) {
  need(b, n);
  if (n) memcpy(b->p + b->n, p, n);
  b->n += n;
}
static void put_u8(buf *b, unsigned v) {
  unsigned char c = (unsigned char)v;
  put(b, &c, 1);
}
static void put_u32(buf *b, uint32_t v) {
  need(b, 4);
  put_le32(b->p + b->n, v);
  b->n += 4;
}
static void put_u64(buf *b, uint64_t v) {
  need(b, 8);
  put_le64(b->p + b->n, v);
  b->n += 8;
}
static void put_bytes(buf *b, const void *p, size_t n) {
  put_u32(b, (uint32_t)n);
  put(b, p, n);
}

static void send_frame(int type, buf *body) {
  unsigned char head[5];
  head[0] = (unsigned char)type;
  put_le32(head + 1, (uint32_t)body->n);
  if (fwrite(head, 1, 5, stdout) != 5 ||
      (body->n && fwrite(body->p, 1, body->n, stdout) != body->n)) {
    fprintf(stderr, "sqlpipe: cannot write to stdout\n");
    exit(3);
  }
  body->n = 0;
}

static void send_error(sqlite3 *db, int rc, const char *msg, buf *b) {
  put_u32(b, (uint32_t)rc);
  put_u8(b, db ? (unsigned)sqlite3_get_autocommit(db) : 1u);
  put(b, msg, strlen(msg));
  send_frame('E', b);
}

static void send_done(sqlite3 *db, buf *b) {
  put_u8(b, (unsigned)sqlite3_get_autocommit(db));
  send_frame('D', b);
}

/* The machine this was compiled for, so that a test can tell that it
** talks to the emulated machine it meant. */
#if defined(__aarch64__)
#define MACHINE "arm64"
#elif defined(__s390x__)
#define MACHINE "s390x"
#elif defined(__x86_64__)
#define MACHINE "x86-64"
#else
#define MACHINE "unknown"
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ORDER "big-endian"
#else
#define ORDER "little-endian"
#endif

/* ---- input ------------------------------------------------------------------- */

/* A request, read whole; `at` walks it. */
typedef struct req {
  unsigned char *p;
  size_t n, at;
  int bad; /* read past the end */
} req;

static const unsigned char *take(req *r, size_t n) {
  if (r->bad || r->n - r->at < n) {
    r->bad = 1;
    return NULL;
  }
  const unsigned char *p = r->p + r->at;
  r->at += n;
  return p;
}
static uint32_t take_u32(req *r) {
  const unsigned char *p = take(r, 4);
  return p ? le32(p) : 0;
}

/* Binds the next value of the request to parameter `col`. */
static int bind_value(sqlite3_stmt *st, int col, req *r) {
  const unsigned char *t = take(r, 1), *p;
  if (!t) return SQLITE_MISUSE;
  uint32_t n;
  switch (*t) {
    case 'n': return sqlite3_bind_null(st, col);
    case 'i':
      p = take(r, 8);
      return p ? sqlite3_bind_int64(st, col, (sqlite3_int64)le64(p)) : SQLITE_MISUSE;
    case 'f':
      p = take(r, 8);
      return p ? sqlite3_bind_double(st, col, le_double(p)) : SQLITE_MISUSE;
    case 't':
    case 'b':
      n = take_u32(r);
      p = take(r, n);
      if (!p) return SQLITE_MISUSE;
      if (*t == 't') return sqlite3_bind_text64(st, col, (const char *)p, n, SQLITE_TRANSIENT,
                                                SQLITE_UTF8);
      return sqlite3_bind_blob64(st, col, p, n, SQLITE_TRANSIENT);
    default: r->bad = 1; return SQLITE_MISUSE;
  }
}

static void put_column(buf *b, sqlite3_stmt *st, int i) {
  switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER:
      put_u8(b, 'i');
      put_u64(b, (uint64_t)sqlite3_column_int64(st, i));
      break;
    case SQLITE_FLOAT: {
      double d = sqlite3_column_double(st, i);
      uint64_t u;
      memcpy(&u, &d, sizeof u);
      put_u8(b, 'f');
      put_u64(b, u);
      break;
    }
    case SQLITE_TEXT: {
      const unsigned char *s = sqlite3_column_text(st, i);
      put_u8(b, 't');
      put_bytes(b, s, (size_t)sqlite3_column_bytes(st, i));
      break;
    }
    case SQLITE_BLOB: {
      const void *p = sqlite3_column_blob(st, i);
      put_u8(b, 'b');
      put_bytes(b, p, (size_t)sqlite3_column_bytes(st, i));
      break;
    }
    default: put_u8(b, 'n'); break;
  }
}

/* ---- requests ---------------------------------------------------------------- */

/* Only white space (and SQL comments) after the one statement, as
** Python's sqlite3 requires of execute(). */
static int only_space(const char *s, const char *end) {
  while (s < end) {
    if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == ';') {
      s++;
    } else if (end - s >= 2 && s[0] == '-' && s[1] == '-') {
      while (s < end && *s != '\n') s++;
    } else if (end - s >= 2 && s[0] == '/' && s[1] == '*') {
      for (s += 2; s < end && !(end - s >= 2 && s[0] == '*' && s[1] == '/'); s++) {}
      s = s < end ? s + 2 : end;
    } else {
      return 0;
    }
  }
  return 1;
}

static void execute(sqlite3 *db, req *r, buf *b) {
  uint32_t len = take_u32(r);
  const unsigned char *sql = take(r, len);
  uint32_t sets = take_u32(r);
  if (!sql) {
    send_error(db, SQLITE_MISUSE, "sqlpipe: a malformed request", b);
    return;
  }
  sqlite3_stmt *st = NULL;
  const char *tail = NULL;
  int rc = sqlite3_prepare_v2(db, (const char *)sql, (int)len, &st, &tail);
  if (rc != SQLITE_OK) {
    send_error(db, rc, sqlite3_errmsg(db), b);
    return;
  }
  if (tail && !only_space(tail, (const char *)sql + len)) {
    sqlite3_finalize(st);
    send_error(db, SQLITE_MISUSE, "You can only execute one statement at a time.", b);
    return;
  }
  int columns = st ? sqlite3_column_count(st) : 0;
  put_u32(b, (uint32_t)columns);
  for (int i = 0; i < columns; i++) {
    const char *name = sqlite3_column_name(st, i);
    put_bytes(b, name ? name : "", name ? strlen(name) : 0);
  }
  send_frame('C', b);
  for (uint32_t set = 0; st && (set < sets || (set == 0 && sets == 0)); set++) {
    uint32_t count = sets ? take_u32(r) : 0;
    if ((int)count != sqlite3_bind_parameter_count(st)) {
      sqlite3_finalize(st);
      send_error(db, SQLITE_RANGE, "Incorrect number of bindings supplied.", b);
      return;
    }
    for (uint32_t i = 0; i < count; i++) {
      rc = bind_value(st, (int)i + 1, r);
      if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        send_error(db, rc, r->bad ? "sqlpipe: a malformed request" : sqlite3_errmsg(db), b);
        return;
      }
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      for (int i = 0; i < columns; i++) put_column(b, st, i);
      send_frame('R', b);
    }
    if (rc != SQLITE_DONE) {
      /* The message before finalize: it is the statement's. */
      char *msg = sqlite3_mprintf("%s", sqlite3_errmsg(db));
      rc = sqlite3_extended_errcode(db);
      sqlite3_finalize(st);
      send_error(db, rc, msg ? msg : "out of memory", b);
      sqlite3_free(msg);
      return;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
  }
  sqlite3_finalize(st);
  send_done(db, b);
}

static void script(sqlite3 *db, req *r, buf *b) {
  char *sql = malloc(r->n + 1);
  if (!sql) {
    send_error(db, SQLITE_NOMEM, "out of memory", b);
    return;
  }
  memcpy(sql, r->p, r->n);
  sql[r->n] = 0;
  char *err = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
  free(sql);
  if (rc != SQLITE_OK)
    send_error(db, rc, err ? err : sqlite3_errstr(rc), b);
  else
    send_done(db, b);
  sqlite3_free(err);
}

/* Reads one frame: 0 at the end of input. */
static int read_frame(int *type, req *r) {
  unsigned char head[5];
  size_t got = fread(head, 1, 5, stdin);
  if (got == 0) return 0;
  if (got != 5) {
    fprintf(stderr, "sqlpipe: a truncated frame\n");
    exit(3);
  }
  *type = head[0];
  r->n = le32(head + 1);
  r->at = 0;
  r->bad = 0;
  free(r->p);
  r->p = malloc(r->n ? r->n : 1);
  if (!r->p || fread(r->p, 1, r->n, stdin) != r->n) {
    fprintf(stderr, "sqlpipe: cannot read a frame of %zu bytes\n", r->n);
    exit(3);
  }
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: sqlpipe DATABASE   (loads $BLOOM_SO)\n");
    return 2;
  }
  buf b = {NULL, 0, 0};
  sqlite3 *db = NULL;
  const char *so = getenv("BLOOM_SO");
  char *err = NULL;
  int rc = sqlite3_open(argv[1], &db);
  if (rc == SQLITE_OK) rc = sqlite3_enable_load_extension(db, 1);
  if (rc == SQLITE_OK) rc = sqlite3_load_extension(db, so ? so : "./bloom.so", NULL, &err);
  if (rc == SQLITE_OK) rc = sqlite3_enable_load_extension(db, 0);
  if (rc != SQLITE_OK) {
    send_error(db, rc, err ? err : db ? sqlite3_errmsg(db) : "cannot open", &b);
    sqlite3_free(err);
    sqlite3_close(db);
    fflush(stdout);
    return 1;
  }
  put(&b, MACHINE " " ORDER, strlen(MACHINE " " ORDER));
  send_frame('K', &b);
  fflush(stdout);
  req r = {NULL, 0, 0, 0};
  int type;
  while (read_frame(&type, &r) && type != 'Q') {
    if (type == 'X')
      execute(db, &r, &b);
    else if (type == 'S')
      script(db, &r, &b);
    else
      send_error(db, SQLITE_MISUSE, "sqlpipe: an unknown request", &b);
    fflush(stdout);
  }
  free(r.p);
  free(b.p);
  return sqlite3_close(db) == SQLITE_OK ? 0 : 1;
}
