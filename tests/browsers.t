#!/bin/sh
# Generic table browsers on the stores: the exact statements of a
# Datasette 0.64 table page and its JSON (tests/python/datasette-0.64.txt)
# replayed on every store shape, and Debian's sqlite-utils command (tables
# --counts, rows, query); see tests/python/browsers.py.  BLOOM_SO names the
# extension; BLOOM_PRELOAD is preloaded into Python (the ASan runtime for a
# sanitizer build).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
cd "$(dirname "$0")/.." || exit 1
. tests/python/host.sh
run_python tests/python/browsers.py
