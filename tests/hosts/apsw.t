#!/bin/sh
# The host scenario (lib.sh) in APSW, Debian's python3-apsw, run by
# Debian's /usr/bin/python3.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
. "$(dirname "$0")/lib.sh"
need_deb python3-apsw
PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 tests/hosts/scenario.py apsw "$so" "$version"
exit $?
