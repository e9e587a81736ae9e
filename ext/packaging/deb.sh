#!/bin/sh
# The Debian binary packages of make dist, built offline with dpkg-deb
# alone (no debhelper):
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   deb.sh STAGE OUTDIR VERSION ARCH MULTIARCH BLOOM_SO LIBBLOOM_A
#
# STAGE is made anew with one tree per package, packed into OUTDIR as
# PACKAGE_VERSION_ARCH.deb.  Debian names SQLite's loadable modules
# libsqlite3-mod-NAME (libsqlite3-mod-spatialite, libsqlite3-mod-impexp)
# and puts what a compiler needs in a -dev package:
#
#   libsqlite3-mod-bloom
#     usr/lib/MULTIARCH/bloom.so            the module, stripped; the dynamic
#                                           loader searches this directory by
#                                           default, so `.load bloom` finds it
#                                           by its bare name
#     usr/share/lintian/overrides/libsqlite3-mod-bloom
#                                           why lintian's library rules do not
#                                           apply to a loadable module
#   libsqlite3-mod-bloom-dev
#     usr/lib/MULTIARCH/libbloom.a          the extension to link in
#     usr/lib/MULTIARCH/pkgconfig/bloom.pc  its flags: pkg-config --libs bloom
#     usr/include/sqlite3_bloom.h           sqlite3_bloom_init, BLOOM_VERSION
#   and in each, usr/share/doc/PACKAGE/
#     copyright                             ext/packaging/copyright
#     changelog.gz                          ext/CHANGES.md, in Debian's format
#
# No file is named libbloom.so or bloom.h: Debian's libbloom-dev (another
# Bloom filter library) owns those.  The module depends on the C library
# its symbols need and on a SQLite with every API call the extension makes
# (3.38.0: sqlite3_vtab_in).  The -dev package depends on libsqlite3-dev
# (bloom.pc requires sqlite3.pc, and a program that links libbloom.a links
# SQLite) and not on the module: unlike a shared library's -dev package,
# which Debian ties to its runtime package's exact version because its
# libNAME.so link points into it, libbloom.a is the whole extension and
# uses nothing of the module package.  Both replace the single package
# "bloom" that make dist built before.
#
# The environment gives DEB_MAINTAINER (the maintainer), BLOOM_HOMEPAGE
# (the Homepage field) and SOURCE_DATE_EPOCH: every file is dated by it,
# so that the same commit gives the same bytes.  Run from the project root.
set -eu
[ $# = 7 ] ||
  { echo "usage: $0 STAGE OUTDIR VERSION ARCH MULTIARCH BLOOM_SO LIBBLOOM_A" >&2; exit 2; }
stage=$1 outdir=$2 version=$3 arch=$4 multiarch=$5 so=$6 lib=$7
maintainer=${DEB_MAINTAINER:?DEB_MAINTAINER names the maintainer}
homepage=${BLOOM_HOMEPAGE:?BLOOM_HOMEPAGE is the project home page}
epoch=${SOURCE_DATE_EPOCH:?SOURCE_DATE_EPOCH dates the files}
export SOURCE_DATE_EPOCH LC_ALL=C
mod=libsqlite3-mod-bloom
dev=$mod-dev
min_sqlite=3.38.0
umask 022
printf '%s\n' "$homepage" | grep -Eqx 'https?://[^[:space:]"\\]+' ||
  { echo "deb.sh: BLOOM_HOMEPAGE is not a URL: $homepage" >&2; exit 2; }

rm -rf "$stage"
install -d "$stage/$mod/DEBIAN" "$stage/$mod/usr/lib/$multiarch" \
  "$stage/$mod/usr/share/lintian/overrides" \
  "$stage/$dev/DEBIAN" "$stage/$dev/usr/lib/$multiarch/pkgconfig" "$stage/$dev/usr/include"

# --- the files ---------------------------------------------------------------
m=$stage/$mod/usr/lib/$multiarch
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
  -o "$m/bloom.so" "$so"
chmod 644 "$m/bloom.so"
# Debian's own modules say the same of these tags.
cat >"$stage/$mod/usr/share/lintian/overrides/$mod" <<OVERRIDES
# bloom.so is a SQLite loadable extension module, not a normal shared
# library: SQLite opens it by name (.load bloom), no program links it, so
# it has no version in its name, no symbols file, and the package is named
# as Debian names SQLite's modules, not after it.
$mod: shared-library-lacks-version
$mod: no-symbols-control-file
$mod: package-name-doesnt-match-sonames
OVERRIDES
# Its directory is one ldconfig caches: Debian packages shipping a shared
# object there run ldconfig through this trigger.
echo "activate-noawait ldconfig" >"$stage/$mod/DEBIAN/triggers"

d=$stage/$dev/usr/lib/$multiarch
install -m 644 "$lib" "$d/libbloom.a"
install -m 644 ext/sqlite3_bloom.h "$stage/$dev/usr/include/sqlite3_bloom.h"
cat >"$d/pkgconfig/bloom.pc" <<PC
prefix=/usr
libdir=\${prefix}/lib/$multiarch
includedir=\${prefix}/include

Name: bloom
Description: Bloom and cuckoo filters for SQLite, linked into a program (sqlite3_auto_extension(sqlite3_bloom_init))
Version: $version
Requires: sqlite3 >= $min_sqlite
Cflags: -I\${includedir}
Libs: -L\${libdir} -l:libbloom.a -lm
PC

# The changelog: each "## VERSION (YYYY-MM-DD)" section of CHANGES.md is an
# entry; its paragraphs and list items are the entry's lines.  CHANGES.md
# gives days; Debian's entries carry times and each must be later than the
# one before it.  Versions released on one day are dated that day a minute
# apart, in their order, from 00:00 UTC.
changelog=$stage/changelog.gz
awk -v maintainer="$maintainer" '
  function trailer() {
    if (!version) return
    cmd = sprintf("date -u -R -d \"%s %02d:%02d\"", date, int(k / 60), k % 60)
    when = ""; cmd | getline when; close(cmd)
    if (when == "") { print "deb.sh: no date from: " cmd >"/dev/stderr"; exit 1 }
    printf "\n -- %s  %s\n", maintainer, when
  }
  FNR == NR { if (/^## /) { d = $3; gsub(/[()]/, "", d); count[d]++ } next }
  /^## / {
    trailer()
    version = $2; date = $3; gsub(/[()]/, "", date)
    if (version !~ /^[0-9]+\.[0-9]+\.[0-9]+$/ || date !~ /^[0-9]+-[0-9]+-[0-9]+$/) {
      print "deb.sh: a CHANGES.md heading is not \"## X.Y.Z (YYYY-MM-DD)\": " $0 >"/dev/stderr"
      exit 1
    }
    k = count[date] - ++seen[date]
    printf "%sbloom (%s) unstable; urgency=medium\n", (entries++ ? "\n" : ""), version
    blanks = 1
    next
  }
  !version { next }
  /^[[:space:]]*$/ { blanks++; next }
  {
    if (blanks) print ""
    blanks = 0
    if (sub(/^- /, "")) print "  * " $0
    else if (sub(/^  +/, "")) print "    " $0
    else print "  " $0
  }
  END { trailer() }
' ext/CHANGES.md ext/CHANGES.md | gzip -9n >"$changelog"
for p in $mod $dev; do
  install -d "$stage/$p/usr/share/doc/$p"
  install -m 644 ext/packaging/copyright "$stage/$p/usr/share/doc/$p/copyright"
  install -m 644 "$changelog" "$stage/$p/usr/share/doc/$p/changelog.gz"
done
rm -f "$changelog"

# --- the control files -------------------------------------------------------
# Installed-Size as dpkg-gencontrol counts it (KiB per file, rounded up; 1
# per directory), not as the build's file system stores it.
installed_size() {
  find "$1/usr" -printf '%y %s\n' |
    awk '{ kib += ($1 == "f") ? int(($2 + 1023) / 1024) : 1 } END { print kib }'
}
glibc=$(objdump -T "$m/bloom.so" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' |
        sort -uV | tail -n 1)
# The long description's first paragraph, the same in both packages.
about=' The bloom extension gives SQLite Bloom, cuckoo and quotient filters: as
 BLOB values that SQL functions build, probe and combine, and as stores,
 virtual tables whose filter grows with the data one page-sized write at
 a time.'
cat >"$stage/$mod/DEBIAN/control" <<CONTROL
Package: $mod
Source: bloom
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(installed_size "$stage/$mod")
Depends: libc6 (>= $glibc), libsqlite3-0 (>= $min_sqlite)
Enhances: libsqlite3-0
Conflicts: bloom
Replaces: bloom
Section: libs
Priority: optional
Multi-Arch: same
Homepage: $homepage
Description: Bloom, cuckoo and quotient filters for SQLite - loadable module
$about
 .
 This package holds the loadable module: ".load bloom" in the sqlite3
 shell, or load_extension('bloom') from any program using SQLite.
CONTROL
cat >"$stage/$dev/DEBIAN/control" <<CONTROL
Package: $dev
Source: bloom
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(installed_size "$stage/$dev")
Depends: libsqlite3-dev (>= $min_sqlite)
Conflicts: bloom
Replaces: bloom
Section: libdevel
Priority: optional
Multi-Arch: same
Homepage: $homepage
Description: Bloom, cuckoo and quotient filters for SQLite - static library
$about
 .
 This package is for programs that link the extension in rather than
 load it: the static library libbloom.a, its header sqlite3_bloom.h
 (sqlite3_bloom_init, for sqlite3_auto_extension) and the pkg-config
 file bloom.
CONTROL

for p in $mod $dev; do
  root=$stage/$p
  (cd "$root" && find usr -type f | sort | xargs md5sum) >"$root/DEBIAN/md5sums"
  find "$root" -type f -exec chmod 644 {} +
  find "$root" -type d -exec chmod 755 {} +
  find "$root" -exec touch -h -d "@$epoch" {} +
  dpkg-deb --root-owner-group -Zxz --build "$root" "$outdir/${p}_${version}_$arch.deb" \
    >/dev/null
done
