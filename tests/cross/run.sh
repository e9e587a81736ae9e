#!/bin/sh
# Runs one test of make test-cross: tests/cross/run.sh build/cross/ARCH/NAME.
# A compiled test (an ELF file) runs under qemu-user with ARCH's libraries
# and bloom.so; a script (a copy of tests/cross/NAME) runs natively, with
# the emulated machine described in its environment (tests/cross/env.sh).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
test=$1
CROSS_ARCH=$(basename "$(dirname "$test")")
. tests/cross/env.sh
if [ "$(head -c 4 "$test" | od -An -c | tr -d ' ')" = '177ELF' ]; then
  exec $CROSS_QEMU "$test"
fi
exec sh "tests/cross/$(basename "$test")"
