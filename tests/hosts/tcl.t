#!/bin/sh
# The host scenario (lib.sh) in Tcl's sqlite3 package, Debian's
# libsqlite3-tcl (tests/hosts/scenario.tcl).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
. "$(dirname "$0")/lib.sh"
need_deb tcl libsqlite3-tcl
tclsh tests/hosts/scenario.tcl "$so" "$version"
exit $?
