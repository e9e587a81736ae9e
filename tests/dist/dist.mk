# make test-dist: make dist's packages checked (TAP), each carrying the
# license and the one version:
#   tests/dist/dist.sh   the tarball's files, license and build from its
#                        unpacked tree; the Debian package's metadata,
#                        files and license; and, run as root, the package
#                        installed with apt-get, `.load bloom` by bare name,
#                        a program linked statically against libbloom.a
#                        through pkg-config, then purged leaving no file
#   tests/dist/wheel.sh  the wheel's files and metadata, installed with
#                        pip --no-index into a fresh venv of Debian's
#                        python3, loaded by sqlite_bloom.load(conn)
#   tests/dist/npm.sh    the npm package's files and package.json,
#                        installed offline into a fresh project, loaded by
#                        load(db) into each Node driver at hand
# Part of make test (about 20 s).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
.PHONY: test-dist

test-dist: dist
	BLOOM_VERSION=$(VERSION) BLOOM_TARBALL=$(TARBALL) BLOOM_DEB=$(DEB) \
	BLOOM_WHEEL=$(WHEEL) BLOOM_NPM=$(NPM_TGZ) \
	    $(PROVE) --exec sh tests/dist/dist.sh tests/dist/wheel.sh tests/dist/npm.sh
