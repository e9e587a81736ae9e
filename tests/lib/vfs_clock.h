/*
** A wall clock a test sets: vfs_clock_install() registers a copy of the
** default VFS, whose clock reads vfs_clock_seconds, as the new default, so
** that every database opened after it (a windowed store's 'wall' clock
** reads its database's VFS) lives at the time the test says.
**
** bloom is dedicated to the public domain by its authors: anyone may use,
** copy, modify and distribute it, for any purpose, without asking.  Where
** the law does not allow that dedication, the authors give everyone the
** same permission.  bloom is provided as is, without warranty of any
** kind, express or implied; its authors are not liable for any claim or
** damage arising from its use.
*/
#ifndef TESTS_VFS_CLOCK_H
#define TESTS_VFS_CLOCK_H

#include <sqlite3.h>

/* Unix seconds the clock reads. */
static sqlite3_int64 vfs_clock_seconds = 1700000000;

/* Julian-day milliseconds, as SQLite's VFS gives them. */
static int vfs_clock_int64(sqlite3_vfs *vfs, sqlite3_int64 *ms) {
  (void)vfs;
  *ms = (vfs_clock_seconds + (sqlite3_int64)210866760000) * 1000;
  return SQLITE_OK;
}

static int vfs_clock_days(sqlite3_vfs *vfs, double *days) {
  (void)vfs;
  *days = 2440587.5 + (double)vfs_clock_seconds / 86400.0;
  return SQLITE_OK;
}

/* The unix VFS finds its own data through pAppData, which the copy keeps,
** so the copy opens files as the original does. */
static inline int vfs_clock_install(void) {
  static sqlite3_vfs copy;
  sqlite3_vfs *base = sqlite3_vfs_find(NULL);
  if (base == NULL) return SQLITE_ERROR;
  if (base == &copy) return SQLITE_OK;
  copy = *base;
  copy.zName = "bloom-test-clock";
  copy.pNext = NULL;
  copy.xCurrentTime = vfs_clock_days;
  if (copy.iVersion >= 2) copy.xCurrentTimeInt64 = vfs_clock_int64;
  return sqlite3_vfs_register(&copy, 1);
}

#endif
