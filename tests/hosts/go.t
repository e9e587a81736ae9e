#!/bin/sh
# The host scenario (lib.sh) in Go's database/sql with mattn/go-sqlite3,
# Debian's golang-github-mattn-go-sqlite3-dev (tests/hosts/scenario.go),
# built offline in GOPATH mode from /usr/share/gocode with Debian's Go; the
# build cache is build/hosts/go-cache.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
. "$(dirname "$0")/lib.sh"
need_deb golang-go golang-github-mattn-go-sqlite3-dev
GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS='' GOCACHE=$repo/build/hosts/go-cache \
  go build -o "$tmp/scenario" tests/hosts/scenario.go >"$tmp/build.out" 2>&1 ||
  fail_all "go build of tests/hosts/scenario.go failed" "$tmp/build.out"
"$tmp/scenario" "$so" "$version"
exit $?
