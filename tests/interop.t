#!/bin/sh
# The extension against an independent reader of its blob format
# (tests/interop/bloomreader.py, written from ext/FORMAT.md alone): for
# filters of every construction, the answer to each of 100,000 probes of
# every storage class and every bloom_info / cuckoo_info field (bit for
# bit) must agree, for Bloom (kind 1), cuckoo (kind 2) and layered (kind 3,
# both layer kinds, with bloom_layers) filters; so must
# the counters and headers of results, NULL, NaN and non-BLOB arguments,
# a bloom_store reassembled from its shadow tables,
# text that is not valid UTF-8 in UTF-8 and UTF-16 databases, and the
# sizing.  See tests/interop/interop.py.  BLOOM_SO names the extension;
# BLOOM_PRELOAD is preloaded into Python (the ASan runtime for a sanitizer
# build).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
cd "$(dirname "$0")/.." || exit 1
. tests/python/host.sh
run_python tests/interop/interop.py
