#!/bin/sh
# The worked examples of ext/FORMAT.md (each kind's, and bloom_key's): the
# SQL each gives, run in the sqlite3 shell, must make exactly the bytes
# the document prints; the extension and the independent reader
# (tests/interop/bloomreader.py) must accept them and agree on every
# figure; and what the text says of them (offsets, fields, bits) must
# hold.  See tests/interop/format_examples.py.  BLOOM_SO names the
# extension; BLOOM_PRELOAD is preloaded (the ASan runtime for a sanitizer
# build), into the shell as well.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
cd "$(dirname "$0")/.." || exit 1
. tests/python/host.sh
run_python tests/interop/format_examples.py
