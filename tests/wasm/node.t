#!/bin/sh
# The WebAssembly build's scenario in Node.js (run.js), checked and compared
# with the native bloom.so's answers.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
exec node "$(dirname "$0")/run.js" node
