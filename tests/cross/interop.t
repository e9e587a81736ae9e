#!/bin/sh
# The second reader (tests/interop.t) against the emulated machine: the
# independent reader, run here, reads the filters, stores and databases
# that machine's bloom.so made, and must agree with its every answer; the
# shadow tables it wrote are read here by this machine's SQLite, and the
# damaged copies made here are read there.  20,000 probes a filter rather
# than 100,000 (BLOOM_INTEROP_PROBES): the reader's side runs here twice.
# Run by make test-cross (CROSS_ARCH set).
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
BLOOM_INTEROP_PROBES=${BLOOM_INTEROP_PROBES:-20000}
export BLOOM_INTEROP_PROBES
run_python tests/cross/remote_run.py tests/interop/interop.py
