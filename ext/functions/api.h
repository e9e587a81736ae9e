/*
** The SQLite API as every file of the SQL layer reaches it: through the
** sqlite3_api_routines SQLite hands a loadable extension, or directly when the
** extension is compiled into the program (-DSQLITE_CORE).  bloom_ext.c
** defines the pointer; every other file includes this header.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef FUNCTIONS_API_H
#define FUNCTIONS_API_H

#include <sqlite3ext.h>

#ifndef BLOOM_EXT_MAIN
SQLITE_EXTENSION_INIT3
#endif
/* Every read of the api pointer is an atomic load, so that a load of the
** extension in another thread (whose CAS ThreadSanitizer counts as a
** write even when it fails) is no data race.  Free on x86-64 and arm64. */
#ifndef SQLITE_CORE
#define sqlite3_api (__atomic_load_n(&sqlite3_api, __ATOMIC_ACQUIRE))
#endif

#endif
