#!/bin/sh
# Golden vectors (tests/vectors/, see README.txt there): the extension must
# read each stored blob (Bloom, cuckoo, layered and quotient) and answer
# bloom_test/cuckoo_test/quotient_test and bloom_info/cuckoo_info/quotient_info
# exactly as recorded, and refuse the malformed ones.  See tests/vectors/vectors.py.
# BLOOM_SO names the extension; BLOOM_PRELOAD is preloaded into Python (the
# ASan runtime for a sanitizer build).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
cd "$(dirname "$0")/.." || exit 1
. tests/python/host.sh
run_python tests/vectors/vectors.py
