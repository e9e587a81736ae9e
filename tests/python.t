#!/bin/sh
# bloom from Python's standard sqlite3 module: the idempotency flow end to
# end, composite keys from Python values, and the README's Python example
# (tests/python/idempotency.py).  Fails, saying how to get one, when no
# Python here can load SQLite extensions.  BLOOM_SO names the extension;
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
run_python tests/python/idempotency.py
