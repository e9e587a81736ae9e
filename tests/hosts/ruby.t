#!/bin/sh
# The host scenario (lib.sh) in Ruby's sqlite3 gem, Debian's ruby-sqlite3
# (tests/hosts/scenario.rb).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
. "$(dirname "$0")/lib.sh"
need_deb ruby-sqlite3
ruby tests/hosts/scenario.rb "$so" "$version"
exit $?
