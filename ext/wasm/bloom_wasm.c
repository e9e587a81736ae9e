/*
** The WebAssembly build's C side: SQLite and the extension linked into one
** module, the extension registered for every connection.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
** The module is the SQLite amalgamation, the extension's sources compiled
** with -DSQLITE_CORE and Debian's libmurmurhash compiled for wasm32
** (ext/packaging/wasm.mk); bloom.js (beside this file) drives SQLite's own
** C API through the exports, and calls bloom_wasm_init once, before it
** opens a database.  A browser cannot load an extension, so the extension
** is registered as a program that links it in does (sqlite3_bloom.h).
*/
#include <sqlite3.h>
#include <sqlite3_bloom.h>

/* SQLITE_OK, or the code of the step that failed.  Calling it again is
** harmless: sqlite3_auto_extension registers an entry point only once. */
int bloom_wasm_init(void) {
  int rc = sqlite3_initialize();
  if (rc == SQLITE_OK)
    rc = sqlite3_auto_extension((void (*)(void))sqlite3_bloom_init);
  return rc;
}
