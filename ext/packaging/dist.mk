# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
# make dist: the packages, in build/dist/, each carrying the license:
#
#   bloom-$(VERSION).tar.gz           git's tracked files of ext/ sql/ tests/,
#                                     the Makefile and README.md, under
#                                     bloom-$(VERSION)/ (a git checkout only)
#   bloom_$(VERSION)_<arch>.deb       a Debian package, built with dpkg-deb
#                                     alone: the module where `.load bloom`
#                                     finds it, libbloom.a, sqlite3_bloom.h,
#                                     bloom.pc, the copyright file and a
#                                     changelog (ext/packaging/deb.sh)
#
# The version is $(VERSION), from ext/sqlite3_bloom.h.  make test-dist
# (tests/dist/) checks both and installs the package when run as root.
DIST          = $(BUILD)/dist
TARBALL       = $(DIST)/bloom-$(VERSION).tar.gz
DEB_ARCH     := $(shell dpkg --print-architecture 2>/dev/null)
DEB_MULTIARCH = $(shell $(CC) -print-multiarch)
DEB           = $(DIST)/bloom_$(VERSION)_$(DEB_ARCH).deb
DEB_MAINTAINER ?= bloom maintainers <maintainers@users.noreply.a-seed-5328c4b7.example>

.PHONY: dist $(TARBALL)

dist: deps
	$(MAKE) $(TARBALL) $(DEB)

# Made anew each time: it depends on every tracked file.  The entries are
# ordered, owned by root and dated by the last commit, so the same commit
# gives the same bytes.
$(TARBALL):
	@mkdir -p $(@D)
	@git rev-parse --git-dir >/dev/null 2>&1 || { \
	  echo "make dist: the tarball holds git's tracked files; run it in a git checkout" >&2; \
	  exit 1; }
	git ls-files -z -- ext sql tests Makefile README.md >$(DIST)/tarball-files
	tar --null -T $(DIST)/tarball-files --sort=name --owner=0 --group=0 \
	    --numeric-owner --mtime=@$$(git log -1 --format=%ct) \
	    --transform='flags=r;s,^,bloom-$(VERSION)/,' -cf - | gzip -9n >$@.part
	mv $@.part $@

$(DEB): bloom.so $(DIST)/libbloom.a ext/sqlite3_bloom.h ext/packaging/copyright \
        ext/CHANGES.md ext/packaging/deb.sh
	DEB_MAINTAINER='$(DEB_MAINTAINER)' sh ext/packaging/deb.sh $(DIST)/deb $@ \
	    $(VERSION) $(DEB_ARCH) $(DEB_MULTIARCH) bloom.so $(DIST)/libbloom.a

# The static library: the extension as tests/ links it (-DSQLITE_CORE), in
# position-independent objects, partially linked with murmur's into one
# object in which every symbol but sqlite3_bloom_init is then made local,
# so that a program linking libbloom.a meets none of the extension's
# internal names nor murmur's.
VARIANT_CFLAGS_pic = -O2 -fPIC -fvisibility=hidden

$(BUILD)/pic/ext/%.o: ext/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(EXT_OBJ_CFLAGS) $(VARIANT_CFLAGS_pic) -c -o $@ $<

.SECONDARY: $(call ext_objs,pic)

$(DIST)/libbloom.a: $(call ext_objs,pic)
	@mkdir -p $(@D)
	$(CC) -r -nostdlib -o $(DIST)/libbloom.o $^ $(MURMUR_A)
	objcopy --strip-debug --keep-global-symbol=sqlite3_bloom_init $(DIST)/libbloom.o
	rm -f $@
	ar rcsD $@ $(DIST)/libbloom.o
