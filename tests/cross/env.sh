# Sourced from the project root by tests/cross/run.sh and the scripts of
# tests/cross/: the emulated machine CROSS_ARCH (arm64 or s390x) as
# commands, in the environment.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   CROSS_QEMU      the command prefix that runs one of the machine's programs
#   CROSS_BLOOM_SO  its bloom.so (BLOOM_SO is set to it as well)
#   CROSS_SQLPIPE   its SQL server, tests/cross/sqlpipe.c (tests/cross/remote.py)
#   NATIVE_BLOOM_SO this machine's bloom.so
#   PATH            starts with a folder whose sqlite3 is the machine's shell
#
# qemu is run explicitly, so no binfmt registration is needed: -L makes
# the cross compiler's libc folder (/usr/TRIPLE) the guest's root for its
# loader and libc, and the guest's LD_LIBRARY_PATH finds the libraries
# unpacked into build/cross/ARCH/sysroot (tests/cross/sysroot.sh).
case "${CROSS_ARCH:-}" in
  arm64) cross_triple=aarch64-linux-gnu cross_qemu=qemu-aarch64-static ;;
  s390x) cross_triple=s390x-linux-gnu cross_qemu=qemu-s390x-static ;;
  *) echo "tests/cross: CROSS_ARCH must be arm64 or s390x (make test-cross sets it)" >&2
     exit 2 ;;
esac
cross_dir=$(pwd)/build/cross/$CROSS_ARCH
cross_sysroot=$cross_dir/sysroot
CROSS_QEMU="$cross_qemu -L /usr/$cross_triple -E LD_LIBRARY_PATH=$cross_sysroot/usr/lib/$cross_triple:$cross_sysroot/lib/$cross_triple"
CROSS_BLOOM_SO=$cross_dir/bloom.so
CROSS_SQLPIPE=$cross_dir/sqlpipe
NATIVE_BLOOM_SO=$(pwd)/bloom.so
BLOOM_SO=$CROSS_BLOOM_SO
export CROSS_ARCH CROSS_QEMU CROSS_BLOOM_SO CROSS_SQLPIPE NATIVE_BLOOM_SO BLOOM_SO

# The shell, for the tests that run it by name: written by every test (the
# paths are this tree's), replaced whole (two tests may start at once).
mkdir -p "$cross_dir/bin"
printf '#!/bin/sh\nexec %s %s "$@"\n' "$CROSS_QEMU" "$cross_sysroot/usr/bin/sqlite3" \
  >"$cross_dir/bin/sqlite3.$$"
chmod +x "$cross_dir/bin/sqlite3.$$"
mv -f "$cross_dir/bin/sqlite3.$$" "$cross_dir/bin/sqlite3"
PATH=$cross_dir/bin:$PATH
export PATH
