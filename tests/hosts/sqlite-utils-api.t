#!/bin/sh
# The host scenario (lib.sh) through sqlite-utils' Python API (its
# Database class; Debian's sqlite-utils), run by Debian's /usr/bin/python3.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
. "$(dirname "$0")/lib.sh"
need_deb sqlite-utils
PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 tests/hosts/scenario.py sqlite-utils "$so" "$version"
exit $?
