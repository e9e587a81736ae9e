# make dist: the packages, in build/dist/, each carrying the license:
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   bloom-$(VERSION).tar.gz           git's tracked files of ext/ sql/ tests/,
#                                     the Makefile and README.md, under
#                                     bloom-$(VERSION)/ (a git checkout only)
#   bloom_$(VERSION)_<arch>.deb       a Debian package, built with dpkg-deb
#                                     alone: the module where `.load bloom`
#                                     finds it, libbloom.a, sqlite3_bloom.h,
#                                     bloom.pc, the copyright file and a
#                                     changelog (ext/packaging/deb.sh)
#   sqlite_bloom-$(VERSION)-py3-none-<platform>.whl
#                                     a Python wheel, built with Debian's
#                                     python3-setuptools and python3-wheel,
#                                     no network: the module sqlite_bloom
#                                     (loadable_path(), load(conn)) with
#                                     the module inside
#                                     (ext/packaging/wheel.sh)
#   sqlite-bloom-$(VERSION).tgz         an npm package, made by `npm pack`
#                                     offline: getLoadablePath() and
#                                     load(db), the module inside
#                                     (ext/packaging/npm.sh)
#
# The version is $(VERSION), from ext/sqlite3_bloom.h: no packaging source
# holds one.  make test-dist (tests/dist/) checks them all, installs the
# Debian package when run as root, the wheel into a fresh venv and the npm
# package into a fresh project.
DIST          = $(BUILD)/dist
TARBALL       = $(DIST)/bloom-$(VERSION).tar.gz
DEB_ARCH     := $(shell dpkg --print-architecture 2>/dev/null)
DEB_MULTIARCH = $(shell $(CC) -print-multiarch)
DEB           = $(DIST)/bloom_$(VERSION)_$(DEB_ARCH).deb
DEB_MAINTAINER ?= bloom maintainers <maintainers@users.noreply.a-seed-5328c4b7.example>

.PHONY: dist dist-deps $(TARBALL)

# The wheel is for this platform, as bdist_wheel names it (linux_x86_64,
# linux_aarch64, ...; wheel.sh checks the name it gets); the npm package is
# named by npm pack.  Debian's /usr/bin/python3 builds the wheel.
WHEEL_PYTHON ?= /usr/bin/python3
WHEEL_PLAT   := linux_$(shell uname -m)
WHEEL         = $(DIST)/sqlite_bloom-$(VERSION)-py3-none-$(WHEEL_PLAT).whl
NPM_TGZ       = $(DIST)/sqlite-bloom-$(VERSION).tgz

dist: deps
	$(MAKE) dist-deps
	$(MAKE) $(TARBALL) $(DEB) $(WHEEL) $(NPM_TGZ)
	$(MAKE) dist-wasm

# What the wheel and the npm package are built and tested with, installed
# as deps installs (as root) or named: Debian's npm only when no npm is on
# PATH (Node.js from elsewhere brings its own).
dist-deps:
	@$(MAKE) -s deps DEB_PACKAGES="python3-setuptools python3-wheel python3-venv"
	@command -v npm >/dev/null 2>&1 || $(MAKE) -s deps DEB_PACKAGES="nodejs npm"

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

$(WHEEL): bloom.so ext/sqlite3_bloom.h ext/packaging/copyright ext/packaging/wheel.sh \
          ext/packaging/python/setup.py ext/packaging/python/README.md \
          ext/packaging/python/sqlite_bloom/__init__.py
	@mkdir -p $(@D)
	sh ext/packaging/wheel.sh $(DIST)/wheel $@ $(VERSION) bloom.so $(WHEEL_PYTHON)

$(NPM_TGZ): bloom.so ext/sqlite3_bloom.h ext/packaging/copyright ext/packaging/npm.sh \
            ext/packaging/npm/index.js ext/packaging/npm/index.d.ts ext/packaging/npm/README.md
	@mkdir -p $(@D)
	sh ext/packaging/npm.sh $(DIST)/npm $@ $(VERSION) bloom.so
