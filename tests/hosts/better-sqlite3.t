#!/bin/sh
# The host scenario (lib.sh) in Node.js with better-sqlite3 from npm
# (tests/hosts/scenario.js), which bundles its own, newer SQLite and turns
# SQLITE_DBCONFIG_DEFENSIVE on.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
. "$(dirname "$0")/lib.sh"
need_node better-sqlite3
node tests/hosts/scenario.js better-sqlite3 "$so" "$version"
exit $?
