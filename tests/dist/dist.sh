#!/bin/sh
# make dist's packages (make test-dist, which builds them first and sets
# BLOOM_VERSION, BLOOM_TARBALL, BLOOM_DEB_MOD, BLOOM_DEB_DEV and
# BLOOM_HOMEPAGE):
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
# - the Debian packages are libsqlite3-mod-bloom (the module, the very
#   bytes the tarball's tree builds, stripped) and
#   libsqlite3-mod-bloom-dev VERSION for this machine's architecture, with
#   the project's Homepage; the module depends on libsqlite3-0, runs
#   ldconfig's trigger and carries lintian overrides that say why; the -dev
#   package depends on libsqlite3-dev and not on the module; each holds
#   exactly the files ext/packaging/deb.sh lists, its copyright file is
#   ext/packaging/copyright, its changelog's newest entry is VERSION and
#   every entry is dated later than the one before; the pkg-config file and
#   header say VERSION; lintian (installed as root if missing) finds no
#   error and no warning in either;
# - run as root: `apt-get install` of both .deb files; in an empty directory
#   `.load bloom` loads the module package's file by bare name and it
#   answers VERSION; pkg-config gives the flags that compile a program
#   against sqlite3_bloom.h and link libbloom.a into it, which then runs
#   the extension, and so does ext/REFERENCE.md's app.c, built as it says;
#   `apt-get purge` of both leaves none of their files, and `.load bloom`
#   fails again.  Not root, or with one of these packages (or make dist's
#   former package, bloom) or a make install in /usr/local already there,
#   those checks are skipped (TAP skip) saying why.
cd "$(dirname "$0")/../.." || exit 1
repo=$(pwd)
version=${BLOOM_VERSION:?run through make test-dist}
tarball=${BLOOM_TARBALL:?run through make test-dist}
mod_deb=${BLOOM_DEB_MOD:?run through make test-dist}
dev_deb=${BLOOM_DEB_DEV:?run through make test-dist}
homepage=${BLOOM_HOMEPAGE:?run through make test-dist}
mod=libsqlite3-mod-bloom
dev=libsqlite3-mod-bloom-dev
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

# --- the Debian packages, as files -------------------------------------------
arch=$(dpkg --print-architecture)
multiarch=$(${CC:-cc} -print-multiarch)
lib=/usr/lib/$multiarch
for p in $mod $dev; do
  [ "$p" = $mod ] && deb=$mod_deb || deb=$dev_deb
  fields=$(dpkg-deb -f "$deb" Package Version Architecture Multi-Arch Homepage | tr '\n' ' ')
  [ "$fields" = "Package: $p Version: $version Architecture: $arch Multi-Arch: same Homepage: $homepage " ]
  check $? "$(basename "$deb"): $p $version for $arch, Multi-Arch: same, Homepage $homepage (got: $fields)"
  dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sort >"$tmp/$p.files"
  case $p in
    "$mod") printf '%s\n' ".$lib/bloom.so" "./usr/share/lintian/overrides/$mod" ;;
    *) printf '%s\n' ".$lib/libbloom.a" ".$lib/pkgconfig/bloom.pc" ./usr/include/sqlite3_bloom.h ;;
  esac >"$tmp/$p.want"
  printf '%s\n' "./usr/share/doc/$p/changelog.gz" "./usr/share/doc/$p/copyright" >>"$tmp/$p.want"
  sort -o "$tmp/$p.want" "$tmp/$p.want"
  cmp -s "$tmp/$p.files" "$tmp/$p.want"
  check $? "$p holds $(sed 's,.*/,,' "$tmp/$p.want" | tr '\n' ' ')and nothing else" \
    "$(diff "$tmp/$p.want" "$tmp/$p.files")"
  mkdir "$tmp/$p"
  dpkg-deb -x "$deb" "$tmp/$p"
  cmp -s "$tmp/$p/usr/share/doc/$p/copyright" ext/packaging/copyright
  check $? "$p's copyright file is ext/packaging/copyright (Debian's format, the dedication)"
  gzip -dc "$tmp/$p/usr/share/doc/$p/changelog.gz" >"$tmp/$p.changelog"
  said=$(head -n 1 "$tmp/$p.changelog")
  [ "$said" = "bloom ($version) unstable; urgency=medium" ]
  check $? "$p's changelog's newest entry is $version (got '$said')"
done
# Each entry of a Debian changelog must be dated after the one below it
# (lintian checks the newest two; CHANGES.md gives only days).
entries=$(grep -c '^bloom (' "$tmp/$mod.changelog")
unordered=$(sed -n 's/^ -- .*>  //p' "$tmp/$mod.changelog" |
  while read -r when; do date -u -d "$when" +%s; done |
  awk 'NR > 1 && $1 >= last { print NR": "$1" >= "last } { last = $1 }')
[ "$entries" -gt 1 ] && [ -z "$unordered" ] &&
  [ "$(sed -n 's/^ -- .*>  //p' "$tmp/$mod.changelog" | wc -l)" = "$entries" ]
check $? "every one of its $entries changelog entries is dated after the one below it" "$unordered"
cmp -s "$tmp/$mod.changelog" "$tmp/$dev.changelog"
check $? "both packages carry the same changelog"

fields=$(dpkg-deb -f "$mod_deb" Depends Enhances | tr '\n' ' ')
case "$fields" in
  "Depends: libc6 (>= 2."*"), libsqlite3-0 (>= 3.38.0) Enhances: libsqlite3-0 ") r=0 ;;
  *) r=1 ;;
esac
check $r "$mod depends on libc6 and libsqlite3-0 (>= 3.38.0), enhances libsqlite3-0 (got: $fields)"
said=$(dpkg-deb -I "$mod_deb" triggers 2>&1)
[ "$said" = "activate-noawait ldconfig" ]
check $? "$mod runs ldconfig through its trigger (got '$said')"
grep -q '^# .*loadable extension module, not a normal shared' "$tmp/$mod/usr/share/lintian/overrides/$mod" &&
  [ "$(grep -c "^$mod: " "$tmp/$mod/usr/share/lintian/overrides/$mod")" = 3 ]
check $? "its lintian overrides (3) say why: a loadable module, not a normal library"
fields=$(dpkg-deb -f "$dev_deb" Depends | tr '\n' ' ')
[ "$fields" = "libsqlite3-dev (>= 3.38.0) " ]
check $? "$dev depends on libsqlite3-dev (>= 3.38.0) alone, not on the module (got: $fields)"
said=$(sed -n 's/^Version: //p' "$tmp/$dev$lib/pkgconfig/bloom.pc")
[ "$said" = "$version" ]
check $? "bloom.pc says Version: $version (got '$said')"
said=$(sed -n 's/^#define BLOOM_VERSION "\(.*\)"$/\1/p' "$tmp/$dev/usr/include/sqlite3_bloom.h")
[ "$said" = "$version" ]
check $? "sqlite3_bloom.h defines BLOOM_VERSION \"$version\" (got '$said')"
# The module, built from the same sources in another folder (the tarball's,
# above), stripped as deb.sh strips it, is the same bytes.
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
  -o "$tmp/tarball-bloom.so" "$src/bloom.so" 2>/dev/null &&
  cmp -s "$tmp/tarball-bloom.so" "$tmp/$mod$lib/bloom.so"
check $? "its bloom.so is byte for byte the one built in the unpacked tarball, in another folder" \
  "$(cmp "$tmp/tarball-bloom.so" "$tmp/$mod$lib/bloom.so" 2>&1)"
globals=$(nm -g --defined-only "$tmp/$dev$lib/libbloom.a" 2>&1 | awk 'NF == 3 { print $3 }' | tr '\n' ' ')
[ "$globals" = "sqlite3_bloom_init " ]
check $? "libbloom.a defines one global symbol, sqlite3_bloom_init (got: $globals)"

# lintian, Debian's package checker: installed as root as deps installs.
if ! command -v lintian >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s deps DEB_PACKAGES=lintian \
    >"$tmp/deps.out" 2>&1
fi
if ! command -v lintian >/dev/null 2>&1; then
  skip 1 "no lintian (the Debian package lintian; as root make test installs it)"
else
  lintian --no-tag-display-limit "$mod_deb" "$dev_deb" >"$tmp/lintian.out" 2>"$tmp/lintian.err"
  status=$?
  errors=$(grep -c '^E: ' "$tmp/lintian.out")
  warnings=$(grep -c '^W: ' "$tmp/lintian.out")
  [ "$status" = 0 ] && [ "$errors" = 0 ] && [ "$warnings" = 0 ]
  check $? "lintian $(lintian --version | sed 's/^Lintian v//'): 0 errors and 0 warnings in both (got $errors and $warnings, exit $status)" \
    "$(cat "$tmp/lintian.out"; grep -v 'root privileges' "$tmp/lintian.err")"
fi

# --- installed, used and purged (root) ---------------------------------------
installed_checks=11
installed_already=$(for p in $mod $dev bloom; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' && echo "$p"
done | tr '\n' ' ')
if [ "$(id -u)" != 0 ]; then
  skip $installed_checks "not root: the packages are not installed (make test-dist as root does it)"
elif [ -n "$installed_already" ]; then
  skip $installed_checks "installed already: $installed_already; not replacing it"
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
  paths=""
  for deb in "$mod_deb" "$dev_deb"; do
    case "$deb" in /*) paths="$paths $deb" ;; *) paths="$paths $repo/$deb" ;; esac
  done
  # shellcheck disable=SC2086 # two paths without spaces
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    -o DPkg::Lock::Timeout=300 $paths >"$tmp/apt.out" 2>&1
  said=$(dpkg-query -W -f='${Package} ${Status} ${Version};' $mod $dev 2>&1)
  [ "$said" = "$mod install ok installed $version;$dev install ok installed $version;" ]
  check $? "apt-get install of both .deb files installs $mod and $dev $version (status: $said)" \
    "$(tail -n 10 "$tmp/apt.out")"
  dpkg -L $mod $dev 2>/dev/null | while read -r f; do [ -d "$f" ] || echo "$f"; done |
    sort >"$tmp/owned"

  got=$(cd "$away" && shell bloom "SELECT bloom_version();")
  [ "$got" = "$version" ]
  check $? "\`.load bloom\` by bare name in an empty directory, bloom_version() = $version (got '$got')"
  loaded=$(cd "$away" && LD_DEBUG=files sqlite3 :memory: ".load bloom" 2>&1 |
           sed -n 's/.*calling init: \(.*bloom\.so\)$/\1/p' | head -n 1)
  [ -n "$loaded" ] && [ "$(readlink -f "$loaded")" = "$(readlink -f "$lib/bloom.so")" ] &&
    dpkg -S "$lib/bloom.so" 2>/dev/null | grep -q "^$mod:"
  check $? "the module loaded is $mod's $lib/bloom.so (loaded: $loaded)"

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
    -o DPkg::Lock::Timeout=300 $mod $dev >"$tmp/purge.out" 2>&1
  said=$(dpkg-query -W -f='${Status};' $mod $dev 2>/dev/null)
  case "$said" in ""|"unknown ok not-installed;unknown ok not-installed;") r=0 ;; *) r=1 ;; esac
  check $r "apt-get purge $mod $dev removes both (status: '$said')" \
    "$(tail -n 10 "$tmp/purge.out")"
  left=$(while read -r f; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done <"$tmp/owned")
  [ -s "$tmp/owned" ] && [ -z "$left" ] && [ ! -e /usr/share/doc/$mod ] &&
    [ ! -e /usr/share/doc/$dev ]
  check $? "none of their $(wc -l <"$tmp/owned") files is left, nor their /usr/share/doc folders (left: $left)"
  got=$(cd "$away" && shell bloom "SELECT bloom_version();")
  [ "$got" != "$version" ]
  check $? "after the purge, \`.load bloom\` fails (got '$got')"
fi

echo "1..$n"
exit $failed
