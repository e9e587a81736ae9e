# make test-dist: the packages of make dist-native (all of make dist but the
# WebAssembly one, which make test-wasm checks) checked (TAP), each carrying the
# license, the one version and the project's links:
#   tests/dist/dist.sh         the tarball's files, license and build from
#                              its unpacked tree; the two Debian packages'
#                              metadata, files, license and changelog,
#                              lintian (no error, no warning); and, run as
#                              root, both installed with apt-get, `.load
#                              bloom` by bare name, a program linked
#                              statically against libbloom.a through
#                              pkg-config, then purged leaving no file
#   tests/dist/reproducible.sh make dist again, into another folder, gives
#                              the same bytes in every package; links given
#                              at make time reach every package
#   tests/dist/wheel.sh        the wheel's files, metadata and platform
#                              tag (the glibc its module needs), installed
#                              with pip --no-index into a fresh venv of
#                              Debian's python3, loaded by
#                              sqlite_bloom.load(conn)
#   tests/dist/npm.sh          the npm package's files and package.json,
#                              installed offline into a fresh project,
#                              loaded by load(db) into each Node driver at
#                              hand
# Part of make test (about 25 s on 2 cores, 2 of them lintian, 4 the
# second make dist).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
.PHONY: test-dist

test-dist: dist-native
	BLOOM_VERSION=$(VERSION) BLOOM_TARBALL=$(TARBALL) BLOOM_DEB_MOD=$(DEB_MOD) \
	BLOOM_DEB_DEV=$(DEB_DEV) BLOOM_WHEEL=$(WHEEL) BLOOM_NPM=$(NPM_TGZ) $(DIST_LINKS) \
	    $(PROVE) --exec sh tests/dist/dist.sh tests/dist/reproducible.sh \
	        tests/dist/wheel.sh tests/dist/npm.sh
