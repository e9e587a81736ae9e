#!/bin/sh
# make install / make uninstall honour PREFIX and DESTDIR: the installed
# bloom.so loads in the sqlite3 shell, and uninstall removes it.
cd "$(dirname "$0")/.." || exit 1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
echo "1..4"
if make -s install DESTDIR="$dest" PREFIX=/opt/bloomtest >/dev/null; then
  echo "ok 1 - make install DESTDIR=... PREFIX=/opt/bloomtest"
else
  echo "not ok 1 - make install DESTDIR=... PREFIX=/opt/bloomtest"
fi
so="$dest/opt/bloomtest/lib/sqlite3/bloom.so"
if [ -f "$so" ]; then echo "ok 2 - bloom.so is in PREFIX/lib/sqlite3"; else echo "not ok 2 - bloom.so is in PREFIX/lib/sqlite3"; fi
got=$(sqlite3 :memory: ".load ${so%.so}" "SELECT bloom_version();" 2>&1)
if [ -n "$got" ] && [ "$got" = "$(sqlite3 :memory: '.load ./bloom' 'SELECT bloom_version();')" ]; then
  echo "ok 3 - the installed extension loads (version $got)"
else
  echo "not ok 3 - the installed extension loads: $got"
fi
make -s uninstall DESTDIR="$dest" PREFIX=/opt/bloomtest >/dev/null
if [ ! -e "$so" ]; then echo "ok 4 - make uninstall removes it"; else echo "not ok 4 - make uninstall removes it"; fi
