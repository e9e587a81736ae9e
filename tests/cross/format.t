#!/bin/sh
# The worked examples of ext/FORMAT.md (tests/format.t) on the emulated
# machine: its sqlite3 shell and bloom.so must make the very bytes the
# document prints.  Run by make test-cross (CROSS_ARCH set).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
cd "$(dirname "$0")/../.." || exit 1
. tests/cross/env.sh
. tests/python/host.sh
run_python tests/cross/remote_run.py tests/interop/format_examples.py
