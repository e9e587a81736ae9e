/*
** The extension's version and its entry point, for a program that links
** the extension in (libbloom.a from the package, or the sources compiled
** with -DSQLITE_CORE) instead of loading bloom.so:
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
**
**   #include <sqlite3.h>
**   #include <sqlite3_bloom.h>
**   ...
**   sqlite3_auto_extension((void (*)(void))sqlite3_bloom_init);
**   (then every connection opened has the extension's functions)
**
** BLOOM_VERSION is the one place the version is written: bloom_version()
** answers it, and the Makefile reads it for the packages.
*/
#ifndef SQLITE3_BLOOM_H
#define SQLITE3_BLOOM_H

#include <sqlite3.h>

#define BLOOM_VERSION "1.9.3"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every function and virtual table of the extension on db; on
** failure returns an SQLite error code and, when err is not NULL, sets *err
** to a message from sqlite3_malloc.  SQLite calls it on loading bloom.so,
** and sqlite3_auto_extension has it called for every new connection. */
int sqlite3_bloom_init(sqlite3 *db, char **err,
                       const sqlite3_api_routines *api);

#ifdef __cplusplus
}
#endif

#endif /* SQLITE3_BLOOM_H */
