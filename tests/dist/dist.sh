#!/bin/sh
# make dist's packages (make test-dist, which builds them first and sets
# BLOOM_VERSION, BLOOM_TARBALL and BLOOM_DEB):
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
# - the tarball holds git's tracked files of ext/ sql/ tests/, the Makefile
#   and README.md under bloom-VERSION/, nothing else; every source file in
#   it carries the dedication (tests/license.t run in the unpacked tree);
#   and `make` there builds a bloom.so, warning-free, that answers VERSION;
# - the Debian package is bloom VERSION for this machine's architecture,
#   holds exactly the files ext/packaging/deb.sh lists, its copyright file
#   is ext/packaging/copyright, and its changelog, pkg-config file and
#   header say VERSION;
# - run as root: `apt-get install ./bloom_*.deb`; in an empty directory
#   `.load bloom` loads the package's module by bare name and it answers
#   VERSION; pkg-config gives the flags that compile a program against
#   sqlite3_bloom.h and link libbloom.a into it, which then runs the
#   extension, and so does ext/REFERENCE.md's app.c, built as it says; `apt-get purge` leaves none of the package's files, and
#   `.load bloom` fails again.  Not root, or with a bloom package or a
#   make install in /usr/local already there, those checks are skipped
#   (TAP skip) saying why.
cd "$(dirname "$0")/../.." || exit 1
repo=$(pwd)
version=${BLOOM_VERSION:?run through make test-dist}
tarball=${BLOOM_TARBALL:?run through make test-dist}
deb=${BLOOM_DEB:?run through make test-dist}
tmp=$(mktemp -d)
away=$(mktemp -d)
trap 'rm -rf "$tmp" "$away"' EXIT
. tests/lib/tap.sh
skip() { # skip <count> <reason>
  i=0
  while [ "$i" -lt "$1" ]; do n=$((n + 1)); i=$((i + 1)); echo "ok $n # skip $2"; done
}
# The TEXT the sqlite3 shell prints for SQL after loading $1, or its error.
shell() { sqlite3 :memory: ".load $1" "$2" 2>&1; }

# --- the source tarball ------------------------------------------------------
top=bloom-$version
[ "$(basename "$tarball")" = "$top.tar.gz" ] && [ -s "$tarball" ]
check $? "the tarball is $top.tar.gz"
tar -tzf "$tarball" | sort >"$tmp/entries"
others=$(grep -v "^$top/" "$tmp/entries")
tops=$(sed "s,^$top/,," "$tmp/entries" | cut -d/ -f1 | sort -u | tr '\n' ' ')
[ -z "$others" ] && [ "$tops" = "Makefile README.md ext sql tests " ]
check $? "everything in it is under $top/: ext/ sql/ tests/ Makefile README.md" \
  "top level: $tops; outside: $others"
git ls-files -- ext sql tests Makefile README.md | sed "s,^,$top/," | sort >"$tmp/tracked"
cmp -s "$tmp/entries" "$tmp/tracked"
check $? "it holds git's tracked files of those, and no other" \
  "$(diff "$tmp/tracked" "$tmp/entries" | head -n 10)"

tar -xzf "$tarball" -C "$tmp"
src=$tmp/$top
(cd "$src" && sh tests/license.t) >"$tmp/license.out" 2>&1
check $? "the dedication is in every source file of the tarball (tests/license.t there: $(grep -c '^ok' "$tmp/license.out") checks)" \
  "$(grep -v '^ok' "$tmp/license.out" | head -n 10)"
cmp -s "$src/ext/packaging/copyright" ext/packaging/copyright
check $? "the tarball's ext/packaging/copyright is the repository's"

# As a user runs it: not as a sub-make of make test-dist's.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$src" >"$tmp/make.out" 2>&1
built=$?
[ "$built" = 0 ] && ! grep -q 'warning:' "$tmp/make.out"
check $? "make builds bloom.so in the unpacked tarball, without a warning" \
  "$(tail -n 10 "$tmp/make.out")"
got=$(cd "$away" && shell "$src/bloom" "SELECT bloom_version();")
[ "$got" = "$version" ]
check $? "the tarball's bloom.so answers bloom_version() = $version (got '$got')"

# --- the Debian package, as a file -------------------------------------------
arch=$(dpkg --print-architecture)
fields=$(dpkg-deb -f "$deb" Package Version Architecture | tr '\n' ' ')
[ "$fields" = "Package: bloom Version: $version Architecture: $arch " ]
check $? "the package is bloom $version for $arch (got: $fields)"
multiarch=$(${CC:-cc} -print-multiarch)
lib=/usr/lib/$multiarch
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sort >"$tmp/files"
cat >"$tmp/want" <<WANT
.$lib/bloom.so
.$lib/libbloom.a
.$lib/pkgconfig/bloom.pc
./usr/include/sqlite3_bloom.h
./usr/share/doc/bloom/changelog.gz
./usr/share/doc/bloom/copyright
WANT
sort -o "$tmp/want" "$tmp/want"
cmp -s "$tmp/files" "$tmp/want"
check $? "it holds the module, libbloom.a, bloom.pc, the header, the changelog and the copyright, nothing else" \
  "$(diff "$tmp/want" "$tmp/files")"
mkdir "$tmp/deb"
dpkg-deb -x "$deb" "$tmp/deb"
cmp -s "$tmp/deb/usr/share/doc/bloom/copyright" ext/packaging/copyright
check $? "its copyright file is ext/packaging/copyright (Debian's format, the dedication)"
said=$(gzip -dc "$tmp/deb/usr/share/doc/bloom/changelog.gz" | head -n 1)
[ "$said" = "bloom ($version) unstable; urgency=medium" ]
check $? "its changelog's newest entry is $version (got '$said')"
said=$(sed -n 's/^Version: //p' "$tmp/deb$lib/pkgconfig/bloom.pc")
[ "$said" = "$version" ]
check $? "bloom.pc says Version: $version (got '$said')"
said=$(sed -n 's/^#define BLOOM_VERSION "\(.*\)"$/\1/p' "$tmp/deb/usr/include/sqlite3_bloom.h")
[ "$said" = "$version" ]
check $? "sqlite3_bloom.h defines BLOOM_VERSION \"$version\" (got '$said')"
globals=$(nm -g --defined-only "$tmp/deb$lib/libbloom.a" 2>&1 | awk 'NF == 3 { print $3 }' | tr '\n' ' ')
[ "$globals" = "sqlite3_bloom_init " ]
check $? "libbloom.a defines one global symbol, sqlite3_bloom_init (got: $globals)"

# --- installed, used and purged (root) ---------------------------------------
installed_checks=11
if [ "$(id -u)" != 0 ]; then
  skip $installed_checks "not root: the package is not installed (make test-dist as root does it)"
elif dpkg-query -W -f='${Status}' bloom 2>/dev/null | grep -q 'ok installed'; then
  skip $installed_checks "a bloom package is installed already; not replacing it"
elif [ -e /usr/local/lib/bloom.so ] || [ -L /usr/local/lib/bloom.so ]; then
  skip $installed_checks "make install's /usr/local/lib/bloom.so is there, and .load bloom would find it first"
else
  # One real install at a time on this machine (tests/install.t takes the
  # same lock): another checkout's test would find this module.
  if command -v flock >/dev/null 2>&1; then
    exec 9>"${TMPDIR:-/tmp}/bloom-install-test.lock"
    flock 9
  fi
  command -v pkg-config >/dev/null 2>&1 ||
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s deps DEB_PACKAGES=pkgconf \
      >"$tmp/deps.out" 2>&1
  case "$deb" in /*) path=$deb ;; *) path=$repo/$deb ;; esac
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    -o DPkg::Lock::Timeout=300 "$path" >"$tmp/apt.out" 2>&1
  said=$(dpkg-query -W -f='${Status} ${Version}' bloom 2>&1)
  [ "$said" = "install ok installed $version" ]
  check $? "apt-get install $(basename "$deb") installs bloom $version (status: $said)" \
    "$(tail -n 10 "$tmp/apt.out")"
  dpkg -L bloom 2>/dev/null | while read -r f; do [ -d "$f" ] || echo "$f"; done |
    sort >"$tmp/owned"

  got=$(cd "$away" && shell bloom "SELECT bloom_version();")
  [ "$got" = "$version" ]
  check $? "\`.load bloom\` by bare name in an empty directory, bloom_version() = $version (got '$got')"
  loaded=$(cd "$away" && LD_DEBUG=files sqlite3 :memory: ".load bloom" 2>&1 |
           sed -n 's/.*calling init: \(.*bloom\.so\)$/\1/p' | head -n 1)
  [ -n "$loaded" ] && [ "$(readlink -f "$loaded")" = "$(readlink -f "$lib/bloom.so")" ]
  check $? "the module loaded is the package's $lib/bloom.so (loaded: $loaded)"

  said=$(pkg-config --modversion bloom 2>&1)
  [ "$said" = "$version" ]
  check $? "pkg-config --modversion bloom = $version (got '$said')"
  cat >"$tmp/app.c" <<'APP'
#include <stdio.h>
#include <sqlite3.h>
#include <sqlite3_bloom.h>

/* The extension linked in, registered for every connection. */
int main(void) {
  sqlite3 *db;
  sqlite3_stmt *st;
  if (sqlite3_auto_extension((void (*)(void))sqlite3_bloom_init) != SQLITE_OK ||
      sqlite3_open(":memory:", &db) != SQLITE_OK)
    return 1;
  if (sqlite3_prepare_v2(db,
                         "SELECT bloom_version(), bloom_test(f, 42), "
                         "bloom_test(f, 'absent') FROM "
                         "(SELECT bloom_add(bloom_empty(100), 42) AS f)",
                         -1, &st, NULL) != SQLITE_OK ||
      sqlite3_step(st) != SQLITE_ROW) {
    fprintf(stderr, "%s\n", sqlite3_errmsg(db));
    return 1;
  }
  printf("%s %s %d %d\n", BLOOM_VERSION,
         (const char *)sqlite3_column_text(st, 0), sqlite3_column_int(st, 1),
         sqlite3_column_int(st, 2));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return 0;
}
APP
  # shellcheck disable=SC2046 # pkg-config's flags are words
  ${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$tmp/app" "$tmp/app.c" \
    $(pkg-config --cflags --libs bloom) >"$tmp/cc.out" 2>&1
  check $? "a program compiles and links with \$(pkg-config --cflags --libs bloom)" \
    "$(cat "$tmp/cc.out")"
  ! objdump -p "$tmp/app" 2>/dev/null | grep NEEDED | grep -q bloom &&
    nm "$tmp/app" 2>/dev/null | grep -q ' T sqlite3_bloom_init$'
  check $? "libbloom.a is linked into it statically (sqlite3_bloom_init defined, no bloom library needed)"
  got=$(cd "$away" && "$tmp/app" 2>&1)
  [ "$got" = "$version $version 1 0" ]
  check $? "it runs the extension: BLOOM_VERSION, bloom_version(), a member, an absent value (got '$got')"
  # The app.c of ext/REFERENCE.md, "Linking it into a program", built by
  # the command it gives there (tests/commands.t holds this file to it).
  mkdir "$tmp/ref"
  awk '/^## Linking it into a program/ { s = 1 } s && /^```c$/ { f = 1; next }
       f && /^```$/ { exit } f' ext/REFERENCE.md >"$tmp/ref/app.c"
  # shellcheck disable=SC2046 # pkg-config's flags are words
  got=$(cd "$tmp/ref" && cc app.c $(pkg-config --cflags --libs bloom) 2>&1 && cd "$away" &&
          "$tmp/ref/a.out" 2>&1)
  [ "$got" = "bloom $version, linked in as $version" ]
  check $? "ext/REFERENCE.md's app.c builds with \`cc app.c \$(pkg-config --cflags --libs bloom)\` and runs (got '$got')"

  DEBIAN_FRONTEND=noninteractive apt-get purge -y -q \
    -o DPkg::Lock::Timeout=300 bloom >"$tmp/purge.out" 2>&1
  said=$(dpkg-query -W -f='${Status}' bloom 2>/dev/null)
  [ -z "$said" ] || [ "$said" = "unknown ok not-installed" ]
  check $? "apt-get purge bloom removes the package (status: '$said')" \
    "$(tail -n 10 "$tmp/purge.out")"
  left=$(while read -r f; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done <"$tmp/owned")
  [ -s "$tmp/owned" ] && [ -z "$left" ] && [ ! -e /usr/share/doc/bloom ]
  check $? "none of its $(wc -l <"$tmp/owned") files is left, nor /usr/share/doc/bloom (left: $left)"
  got=$(cd "$away" && shell bloom "SELECT bloom_version();")
  [ "$got" != "$version" ]
  check $? "after the purge, \`.load bloom\` fails (got '$got')"
fi

echo "1..$n"
exit $failed
