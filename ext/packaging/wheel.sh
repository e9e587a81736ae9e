#!/bin/sh
# The Python wheel of make dist, built offline with Debian's
# python3-setuptools and python3-wheel (no pip, no network):
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   wheel.sh STAGE OUT.whl VERSION BLOOM_SO [PYTHON]
#
# STAGE is made anew as the source tree setup.py builds from:
#
#   setup.py, README.md          from ext/packaging/python/
#   COPYRIGHT                    ext/packaging/copyright (the wheel's
#                                .dist-info/COPYRIGHT)
#   sqlite_bloom/__init__.py     loadable_path() and load(conn)
#   sqlite_bloom/bloom.so        the module, stripped
#
# The wheel is tagged py3-none-<platform> (any Python 3 on this platform)
# and must come out named as OUT.whl.  Its files are dated by the last
# commit (SOURCE_DATE_EPOCH), so the same commit gives the same bytes.
# PYTHON (default /usr/bin/python3) runs setup.py.  Run from the project
# root.
set -eu
[ $# = 4 ] || [ $# = 5 ] ||
  { echo "usage: $0 STAGE OUT.whl VERSION BLOOM_SO [PYTHON]" >&2; exit 2; }
stage=$1 out=$2 version=$3 so=$4 python=${5:-/usr/bin/python3}
umask 022
root=$(pwd)
case "$out" in /*) ;; *) out=$root/$out ;; esac

rm -rf "$stage"
install -d "$stage/sqlite_bloom" "$stage/dist"
install -m 644 ext/packaging/python/setup.py ext/packaging/python/README.md "$stage/"
install -m 644 ext/packaging/python/sqlite_bloom/__init__.py "$stage/sqlite_bloom/"
install -m 644 ext/packaging/copyright "$stage/COPYRIGHT"
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
  -o "$stage/sqlite_bloom/bloom.so" "$so"
chmod 644 "$stage/sqlite_bloom/bloom.so"

epoch=$(git log -1 --format=%ct 2>/dev/null || echo 315532800)
(cd "$stage" &&
  SOURCE_DATE_EPOCH=$epoch BLOOM_VERSION=$version PYTHONDONTWRITEBYTECODE=1 \
    "$python" setup.py -q bdist_wheel --dist-dir dist >build.log 2>&1) ||
  { cat "$stage/build.log" >&2; exit 1; }
built=$(ls "$stage/dist")
[ "$built" = "$(basename "$out")" ] ||
  { echo "wheel.sh: setup.py built '$built', not $(basename "$out")" >&2; exit 1; }
mv "$stage/dist/$built" "$out"
