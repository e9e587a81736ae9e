#!/bin/sh
# bloom from Python's standard sqlite3 module: the idempotency flow end to
# end, composite keys from Python values, and the README's Python example
# (tests/python/idempotency.py).  Fails, saying how to get one, when no
# Python here can load SQLite extensions.  BLOOM_SO names the extension;
# BLOOM_PRELOAD is preloaded into Python (the ASan runtime for a sanitizer
# build).
cd "$(dirname "$0")/.." || exit 1
. tests/python/host.sh
run_python tests/python/idempotency.py
