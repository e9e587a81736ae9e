# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
# make test-dist: make dist's packages checked (tests/dist/dist.sh, TAP):
# the tarball's files, license and build from its unpacked tree; the
# package's metadata, files and license; and, run as root, the package
# installed with apt-get, `.load bloom` by bare name, a program linked
# statically against libbloom.a through pkg-config, then purged leaving no
# file behind.  Part of make test (about 10 s).
.PHONY: test-dist

test-dist: dist
	BLOOM_VERSION=$(VERSION) BLOOM_TARBALL=$(TARBALL) BLOOM_DEB=$(DEB) \
	    $(PROVE) --exec sh tests/dist/dist.sh
