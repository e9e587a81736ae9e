#!/bin/sh
# The host scenario (lib.sh) in Node.js's own node:sqlite
# (tests/hosts/scenario.js): DatabaseSync with loadExtension, in Node 22.13
# and later; with an older Node the test is skipped saying so.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
. "$(dirname "$0")/lib.sh"
need_node node:sqlite
node -e 'process.exit(typeof require("node:sqlite").DatabaseSync.prototype.loadExtension === "function" ? 0 : 1)' \
  >/dev/null 2>&1 ||
  skip_all "node:sqlite with loadExtension needs Node.js 22.13 or later (this is $(node --version))"
node tests/hosts/scenario.js node:sqlite "$so" "$version"
exit $?
