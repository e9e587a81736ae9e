#!/bin/sh
# The host scenario (lib.sh) in Node.js's own node:sqlite
# (tests/hosts/scenario.js): DatabaseSync opened with allowExtension, then
# loadExtension, which Node.js has from 22.13 on: run in the Node.js 22
# that lib.sh's need_node22 installs into build/hosts/node22/ (skipped
# only on a machine for which npm carries none).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
. "$(dirname "$0")/lib.sh"
need_node22
"$node22" -e 'process.exit(typeof require("node:sqlite").DatabaseSync.prototype.loadExtension === "function" ? 0 : 1)' \
  >/dev/null 2>&1 ||
  fail_all "node:sqlite has no loadExtension in $("$node22" --version 2>&1) ($node22)"
"$node22" --no-warnings tests/hosts/scenario.js node:sqlite "$so" "$version"
exit $?
