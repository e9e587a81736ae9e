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
#   wheel.sh --platform BLOOM_SO      prints the platform tag, as below
#
# STAGE is made anew as the source tree setup.py builds from:
#
#   setup.py, README.md          from ext/packaging/python/
#   COPYRIGHT                    ext/packaging/copyright (the wheel's
#                                .dist-info/COPYRIGHT)
#   sqlite_bloom/__init__.py     loadable_path() and load(conn)
#   sqlite_bloom/bloom.so        the module, stripped
#
# The wheel is tagged py3-none-<platform> (any Python 3 on that platform)
# and must come out named as OUT.whl.  The platform is what the module
# needs, read from it: manylinux_2_N_<machine>, N the newest GLIBC_2.N
# among the symbol versions it needs (pip installs it on a glibc that new
# or newer, PEP 600), the machine from its ELF header; a package index
# refuses the linux_<machine> tag setuptools gives by itself.  pip knows no
# manylinux tag older than glibc 2.5 on x86 and 2.17 elsewhere, so N is at
# least that.  A manylinux wheel may need no shared library but the C
# runtime's (libc, libm, ...): any other is refused.  Its files are dated SOURCE_DATE_EPOCH (default: the last
# commit's time), so the same commit gives the same bytes; BLOOM_HOMEPAGE,
# BLOOM_REPOSITORY and BLOOM_ISSUES are its Home-page and Project-URL
# links.  PYTHON (default /usr/bin/python3) runs setup.py.  Run from the
# project root.
set -eu

# platform BLOOM_SO: the tag, from readelf (which reads any architecture's
# ELF file).
platform() {
  header=$(LC_ALL=C readelf -h "$1") || exit 1
  case "$header" in *"Class:"*ELF64*) bits=64 ;; *) bits=32 ;; esac
  case "$header" in *"little endian"*) endian=little ;; *) endian=big ;; esac
  machine=$(printf '%s\n' "$header" | sed -n 's/^ *Machine: *//p')
  floor=17
  case "$machine:$bits:$endian" in
    *X86-64*:64:*) tag=x86_64 floor=5 ;;
    *80386*:32:*) tag=i686 floor=5 ;;
    AArch64:64:*) tag=aarch64 ;;
    *S/390*:64:*) tag=s390x ;;
    PowerPC64*:64:little) tag=ppc64le ;;
    PowerPC64*:64:big) tag=ppc64 ;;
    ARM:32:little) tag=armv7l ;;
    RISC-V:64:*) tag=riscv64 ;;
    *) echo "wheel.sh: no manylinux tag for a $machine ($bits-bit, $endian endian) binary" >&2
       exit 1 ;;
  esac
  others=$(LC_ALL=C readelf -d -W "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' |
           grep -Ev '^(libc\.so\.6|libm\.so\.6|libdl\.so\.2|librt\.so\.1|libpthread\.so\.0|libgcc_s\.so\.1|ld-linux.*)$' |
           tr '\n' ' ' | sed 's/ $//')
  [ -z "$others" ] ||
    { echo "wheel.sh: $1 needs $others: no manylinux wheel may" >&2; exit 1; }
  minor=$(LC_ALL=C readelf -V -W "$1" | sed -n 's/.*Name: GLIBC_2\.\([0-9]*\).*/\1/p' |
          sort -n | tail -n 1)
  [ -n "$minor" ] || { echo "wheel.sh: $1 needs no GLIBC_2.N symbol version" >&2; exit 1; }
  [ "$minor" -ge "$floor" ] || minor=$floor
  echo "manylinux_2_${minor}_$tag"
}
if [ "${1:-}" = --platform ]; then
  [ $# = 2 ] || { echo "usage: $0 --platform BLOOM_SO" >&2; exit 2; }
  platform "$2"
  exit 0
fi

[ $# = 4 ] || [ $# = 5 ] ||
  { echo "usage: $0 STAGE OUT.whl VERSION BLOOM_SO [PYTHON]" >&2; exit 2; }
stage=$1 out=$2 version=$3 so=$4 python=${5:-/usr/bin/python3}
: "${BLOOM_HOMEPAGE:?}" "${BLOOM_REPOSITORY:?}" "${BLOOM_ISSUES:?}"
export BLOOM_HOMEPAGE BLOOM_REPOSITORY BLOOM_ISSUES
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

epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 315532800)}
plat=$(platform "$stage/sqlite_bloom/bloom.so")
(cd "$stage" &&
  SOURCE_DATE_EPOCH=$epoch BLOOM_VERSION=$version PYTHONDONTWRITEBYTECODE=1 \
    "$python" setup.py -q bdist_wheel --plat-name "$plat" --dist-dir dist \
    >build.log 2>&1) ||
  { cat "$stage/build.log" >&2; exit 1; }
built=$(ls "$stage/dist")
[ "$built" = "$(basename "$out")" ] ||
  { echo "wheel.sh: setup.py built '$built', not $(basename "$out")" >&2; exit 1; }
mv "$stage/dist/$built" "$out"
