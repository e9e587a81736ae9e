#!/bin/sh
# make install / make uninstall: the layout under PREFIX and DESTDIR, and,
# run as root, a real install to the default place after which the sqlite3
# shell loads the extension by its bare name (`.load bloom`) from any
# directory, as a user types it.  Without root those checks are skipped.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
cd "$(dirname "$0")/.." || exit 1
repo=$(pwd)
dest=$(mktemp -d)
away=$(mktemp -d)
trap 'rm -rf "$dest" "$away"' EXIT
n=0
check() { # check <0 = pass> <name>
  n=$((n + 1))
  if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
skip() { # skip <count> <reason>
  i=0
  while [ "$i" -lt "$1" ]; do n=$((n + 1)); i=$((i + 1)); echo "ok $n # skip $2"; done
}
version() { # version <.load argument>: what bloom_version() answers, or the error
  sqlite3 :memory: ".load $1" "SELECT bloom_version();" 2>&1
}
echo "1..13"

# --- into a DESTDIR, with another PREFIX ------------------------------------
make -s install DESTDIR="$dest" PREFIX=/opt/bloomtest >/dev/null
check $? "make install DESTDIR=... PREFIX=/opt/bloomtest"
want=$(version ./bloom) # the build make install installs
lib="$dest/opt/bloomtest/lib"
[ -f "$lib/libbloom.so" ] && [ ! -L "$lib/libbloom.so" ] &&
  [ "$(stat -c %a "$lib/libbloom.so")" = 644 ]
check $? "PREFIX/lib/libbloom.so is a file, mode 644"
[ "$(readlink "$lib/bloom.so")" = libbloom.so ]
check $? "PREFIX/lib/bloom.so is a link to libbloom.so"
# ldconfig caches a library under its SONAME: bloom.so is the name that
# sqlite3 asks the loader for when given `.load bloom`.
soname=$(objdump -p "$lib/libbloom.so" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = bloom.so ]
check $? "its SONAME is bloom.so (got '$soname')"
installed=$(cd "$dest" && find . ! -type d | sort | tr '\n' ' ')
[ "$installed" = "./opt/bloomtest/lib/bloom.so ./opt/bloomtest/lib/libbloom.so " ]
check $? "nothing else is installed (got: $installed)"
got=$(cd "$away" && version "$lib/bloom")
[ -n "$want" ] && [ "$got" = "$want" ]
check $? "the installed extension loads by its path (version '$got', want '$want')"
make -s uninstall DESTDIR="$dest" PREFIX=/opt/bloomtest >/dev/null
left=$(cd "$dest" && find . ! -type d)
[ -z "$left" ]
check $? "make uninstall removes what make install put there (left: $left)"

# --- into the real root, then `.load bloom` -----------------------------------
real=/usr/local/lib
if [ "$(id -u)" != 0 ]; then
  skip 6 "not root: no real install to $real"
elif [ -e "$real/bloom.so" ] || [ -e "$real/libbloom.so" ] ||
     [ -L "$real/bloom.so" ]; then
  skip 6 "$real already has a bloom.so or libbloom.so; not replacing it"
else
  # One real install at a time on this machine (other checkouts may run it).
  if command -v flock >/dev/null 2>&1; then
    exec 9>"${TMPDIR:-/tmp}/bloom-install-test.lock"
    flock 9
  fi
  make -s install PREFIX=/usr/local DESTDIR= >/dev/null
  check $? "make install (PREFIX=/usr/local, no DESTDIR)"
  ldconfig -p | grep -q "^[[:space:]]*bloom\.so .*=> $real/bloom\.so\$"
  check $? "ldconfig has cached $real/bloom.so under bloom.so"
  got=$(cd "$away" && version bloom)
  [ -n "$want" ] && [ "$got" = "$want" ]
  check $? "\`.load bloom\` from another directory ($away) loads it (got '$got')"
  got=$(cd "$away" && sqlite3 :memory: "SELECT load_extension('bloom');" \
          "SELECT bloom_version();" 2>&1 | tail -n 1)
  [ "$got" = "$want" ]
  check $? "load_extension('bloom') in SQL too (got '$got')"
  make -s uninstall PREFIX=/usr/local DESTDIR= >/dev/null
  [ $? = 0 ] && [ ! -e "$real/bloom.so" ] && [ ! -L "$real/bloom.so" ] &&
    [ ! -e "$real/libbloom.so" ]
  check $? "make uninstall removes $real/bloom.so and libbloom.so"
  got=$(cd "$away" && version bloom)
  [ "$got" != "$want" ] && ! ldconfig -p | grep -q "=> $real/bloom\.so\$"
  check $? "after make uninstall, \`.load bloom\` fails and the cache has no bloom.so"
fi
