#!/bin/sh
# The Debian binary package of make dist, built offline with dpkg-deb
# alone (no debhelper):
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   deb.sh STAGE OUT.deb VERSION ARCH MULTIARCH BLOOM_SO LIBBLOOM_A
#
# STAGE is made anew as the package's tree, then packed into OUT.deb:
#
#   usr/lib/MULTIARCH/bloom.so            the module, stripped; the dynamic
#                                         loader searches this directory by
#                                         default, so `.load bloom` finds it
#                                         by its bare name with no ldconfig
#   usr/lib/MULTIARCH/libbloom.a          the extension to link in
#   usr/lib/MULTIARCH/pkgconfig/bloom.pc  its flags: pkg-config --libs bloom
#   usr/include/sqlite3_bloom.h           sqlite3_bloom_init, BLOOM_VERSION
#   usr/share/doc/bloom/copyright         ext/packaging/copyright
#   usr/share/doc/bloom/changelog.gz      ext/CHANGES.md, in Debian's format
#
# No file is named libbloom.so or bloom.h: Debian's libbloom-dev (another
# Bloom filter library) owns those.  The package depends on the C library
# the module's symbols need and on a SQLite with every API call the
# extension makes (3.38.0: sqlite3_vtab_in).  DEB_MAINTAINER names the
# maintainer.  Run from the project root.
set -eu
[ $# = 7 ] || { echo "usage: $0 STAGE OUT.deb VERSION ARCH MULTIARCH BLOOM_SO LIBBLOOM_A" >&2; exit 2; }
stage=$1 out=$2 version=$3 arch=$4 multiarch=$5 so=$6 lib=$7
maintainer=${DEB_MAINTAINER:?DEB_MAINTAINER names the maintainer}
min_sqlite=3.38.0
umask 022

rm -rf "$stage"
libdir=$stage/usr/lib/$multiarch
doc=$stage/usr/share/doc/bloom
install -d "$stage/DEBIAN" "$libdir/pkgconfig" "$stage/usr/include" "$doc"
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
  -o "$libdir/bloom.so" "$so"
chmod 644 "$libdir/bloom.so"
install -m 644 "$lib" "$libdir/libbloom.a"
install -m 644 ext/sqlite3_bloom.h "$stage/usr/include/sqlite3_bloom.h"
install -m 644 ext/packaging/copyright "$doc/copyright"

cat >"$libdir/pkgconfig/bloom.pc" <<PC
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
chmod 644 "$libdir/pkgconfig/bloom.pc"

# The changelog: each "## VERSION (YYYY-MM-DD)" section of CHANGES.md is an
# entry; its paragraphs and list items are the entry's lines.
awk -v maintainer="$maintainer" '
  function trailer() {
    if (!version) return
    cmd = "date -u -R -d " date; cmd | getline when; close(cmd)
    printf "\n -- %s  %s\n", maintainer, when
  }
  /^## / {
    trailer()
    version = $2; date = $3; gsub(/[()]/, "", date)
    if (version !~ /^[0-9]+\.[0-9]+\.[0-9]+$/ || date !~ /^[0-9]+-[0-9]+-[0-9]+$/) {
      print "deb.sh: a CHANGES.md heading is not \"## X.Y.Z (YYYY-MM-DD)\": " $0 >"/dev/stderr"
      exit 1
    }
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
' ext/CHANGES.md | gzip -9n >"$doc/changelog.gz"
chmod 644 "$doc/changelog.gz"

glibc=$(objdump -T "$libdir/bloom.so" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' |
        sort -uV | tail -n 1)
cat >"$stage/DEBIAN/control" <<CONTROL
Package: bloom
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk "$stage/usr" | cut -f 1)
Depends: libc6 (>= $glibc), libsqlite3-0 (>= $min_sqlite)
Suggests: libsqlite3-dev
Section: libs
Priority: optional
Description: Bloom and cuckoo filters for SQLite
 bloom is a SQLite extension that gives SQLite Bloom filters and cuckoo
 filters: as BLOB values that SQL functions build, probe and combine, and
 as stores, virtual tables whose filter grows with the data one
 page-sized write at a time.
 .
 This package holds the loadable module (".load bloom" in the sqlite3
 shell), and, for programs that link the extension in, the static library
 libbloom.a, its header sqlite3_bloom.h and the pkg-config file bloom.
CONTROL
(cd "$stage" && find usr -type f | sort | xargs md5sum) >"$stage/DEBIAN/md5sums"
chmod 644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"

dpkg-deb --root-owner-group -Zxz --build "$stage" "$out"
