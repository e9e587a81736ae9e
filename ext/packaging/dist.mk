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
#   libsqlite3-mod-bloom_$(VERSION)_<arch>.deb
#                                     the module where `.load bloom` finds
#                                     it, named as Debian names SQLite's
#                                     loadable modules
#   libsqlite3-mod-bloom-dev_$(VERSION)_<arch>.deb
#                                     for programs that link the extension
#                                     in: libbloom.a, sqlite3_bloom.h and
#                                     bloom.pc; both built with dpkg-deb
#                                     alone (ext/packaging/deb.sh)
#   sqlite_bloom-$(VERSION)-py3-none-manylinux_2_<N>_<machine>.whl
#                                     a Python wheel, built with Debian's
#                                     python3-setuptools and python3-wheel,
#                                     no network: the module sqlite_bloom
#                                     (loadable_path(), load(conn)) with
#                                     the module inside, tagged with the
#                                     glibc its symbols need
#                                     (ext/packaging/wheel.sh)
#   sqlite-bloom-$(VERSION).tgz         an npm package, made by `npm pack`
#                                     offline: getLoadablePath() and
#                                     load(db), the module inside
#                                     (ext/packaging/npm.sh)
#
# The version is $(VERSION), from ext/sqlite3_bloom.h: no packaging source
# holds one.  The project's links are the three BLOOM_* variables below:
# every package reads them from here.  Every file of every package is dated
# SOURCE_DATE_EPOCH, the last commit's time, so that two make dist runs of
# one commit give the same bytes.  make test-dist (tests/dist/) checks them
# all, installs the Debian packages when run as root, the wheel into a
# fresh venv and the npm package into a fresh project.
DIST          = $(BUILD)/dist
TARBALL       = $(DIST)/bloom-$(VERSION).tar.gz
DEB_ARCH     := $(shell dpkg --print-architecture 2>/dev/null)
DEB_MULTIARCH = $(shell $(CC) -print-multiarch)
DEB_MOD       = $(DIST)/libsqlite3-mod-bloom_$(VERSION)_$(DEB_ARCH).deb
DEB_DEV       = $(DIST)/libsqlite3-mod-bloom-dev_$(VERSION)_$(DEB_ARCH).deb
DEB_MAINTAINER ?= bloom maintainers <maintainers@users.noreply.a-seed-5328c4b7.example>

# The project's links, written once: the Debian packages' Homepage, the
# wheel's Home-page and Project-URL lines, package.json's homepage,
# repository and bugs.  The project has no public address yet: these are
# placeholders under its example domain; give the real ones at make time
# (make dist BLOOM_HOMEPAGE=https://...).
BLOOM_HOMEPAGE   ?= https://bloom.a-seed-5328c4b7.example/
BLOOM_REPOSITORY ?= https://bloom.a-seed-5328c4b7.example/bloom.git
BLOOM_ISSUES     ?= https://bloom.a-seed-5328c4b7.example/issues

# The last commit's time, unless given (1980-01-01 outside a git checkout:
# a zip file cannot date a file earlier).
ifeq ($(origin SOURCE_DATE_EPOCH),undefined)
SOURCE_DATE_EPOCH := $(shell git log -1 --format=%ct 2>/dev/null || echo 315532800)
endif

# What every package script is given besides its arguments (the links
# also to the tests that check them).
DIST_LINKS = BLOOM_HOMEPAGE='$(BLOOM_HOMEPAGE)' BLOOM_REPOSITORY='$(BLOOM_REPOSITORY)' \
             BLOOM_ISSUES='$(BLOOM_ISSUES)'
DIST_ENV   = SOURCE_DATE_EPOCH='$(SOURCE_DATE_EPOCH)' DEB_MAINTAINER='$(DEB_MAINTAINER)' \
             $(DIST_LINKS)

.PHONY: dist dist-native dist-deps $(TARBALL) dist-always

# The wheel is named by the glibc and machine bloom.so needs (wheel.sh
# --platform reads them from it), so its name is known once bloom.so is
# built: make dist builds bloom.so, then the packages in a second make.
# (A shell test, not $(wildcard): make caches what a directory held.)
# The npm package is named by npm pack.  Debian's /usr/bin/python3 builds
# the wheel.
WHEEL_PYTHON ?= /usr/bin/python3
WHEEL_PLAT    = $(shell [ ! -f bloom.so ] || sh ext/packaging/wheel.sh --platform bloom.so)
WHEEL         = $(DIST)/sqlite_bloom-$(VERSION)-py3-none-$(WHEEL_PLAT).whl
NPM_TGZ       = $(DIST)/sqlite-bloom-$(VERSION).tgz

# make dist is every package; dist-native those of the native bloom.so,
# which make test-dist checks (the WebAssembly package needs emscripten
# and a minute of compiling: make test-wasm checks it).
dist: dist-native
	$(MAKE) dist-wasm

dist-native: deps
	$(MAKE) dist-deps
	$(MAKE) bloom.so
	$(MAKE) $(TARBALL) $(DEB_MOD) $(DEB_DEV) $(WHEEL) $(NPM_TGZ)

# What the wheel and the npm package are built and tested with, installed
# as deps installs (as root) or named: Debian's npm only when no npm is on
# PATH (Node.js from elsewhere brings its own).
dist-deps:
	@$(MAKE) -s deps DEB_PACKAGES="python3-setuptools python3-wheel python3-venv"
	@command -v npm >/dev/null 2>&1 || $(MAKE) -s deps DEB_PACKAGES="nodejs npm"

# The settings every package is built with, rewritten only when one of them
# changes: the packages depend on it, so a new commit (its date), another
# maintainer or other links rebuild them.
$(DIST)/settings: dist-always
	@mkdir -p $(@D)
	@$(DIST_ENV) env | sort | \
	    grep -E '^(SOURCE_DATE_EPOCH|DEB_MAINTAINER|BLOOM_(HOMEPAGE|REPOSITORY|ISSUES))=' >$@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@; fi

# Made anew each time: it depends on every tracked file.  The entries are
# ordered, owned by root and dated SOURCE_DATE_EPOCH, so the same commit
# gives the same bytes.
$(TARBALL):
	@mkdir -p $(@D)
	@git rev-parse --git-dir >/dev/null 2>&1 || { \
	  echo "make dist: the tarball holds git's tracked files; run it in a git checkout" >&2; \
	  exit 1; }
	git ls-files -z -- ext sql tests Makefile README.md >$(DIST)/tarball-files
	tar --null -T $(DIST)/tarball-files --sort=name --owner=0 --group=0 \
	    --numeric-owner --mtime=@$(SOURCE_DATE_EPOCH) \
	    --transform='flags=r;s,^,bloom-$(VERSION)/,' -cf - | gzip -9n >$@.part
	mv $@.part $@

# Both Debian packages from one run of deb.sh.
$(DEB_MOD) $(DEB_DEV) &: bloom.so $(DIST)/libbloom.a ext/sqlite3_bloom.h \
        ext/packaging/copyright ext/CHANGES.md ext/packaging/deb.sh $(DIST)/settings
	$(DIST_ENV) sh ext/packaging/deb.sh $(DIST)/deb $(DIST) \
	    $(VERSION) $(DEB_ARCH) $(DEB_MULTIARCH) bloom.so $(DIST)/libbloom.a

# The static library: the extension as tests/ links it (-DSQLITE_CORE), in
# position-independent objects, partially linked with murmur's into one
# object in which every symbol but sqlite3_bloom_init is then made local,
# so that a program linking libbloom.a meets none of the extension's
# internal names nor murmur's.  ar's D keeps no dates or owners in it.
VARIANT_CFLAGS_pic = -O2 -fPIC -fvisibility=hidden

$(BUILD)/pic/ext/%.o: ext/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(EXT_OBJ_CFLAGS) $(VARIANT_CFLAGS_pic) -c -o $@ $<

.SECONDARY: $(call ext_objs,pic)

$(DIST)/libbloom.a: $(call ext_objs,pic)
	@mkdir -p $(@D)
	$(CC) -r -nostdlib -o $(DIST)/libbloom.o $^ $(MURMUR_A)
	objcopy --strip-debug --remove-section=.comment \
	    --keep-global-symbol=sqlite3_bloom_init $(DIST)/libbloom.o
	rm -f $@
	ar rcsD $@ $(DIST)/libbloom.o

$(WHEEL): bloom.so ext/sqlite3_bloom.h ext/packaging/copyright ext/packaging/wheel.sh \
          ext/packaging/python/setup.py ext/packaging/python/README.md \
          ext/packaging/python/sqlite_bloom/__init__.py $(DIST)/settings
	@mkdir -p $(@D)
	$(DIST_ENV) sh ext/packaging/wheel.sh $(DIST)/wheel $@ $(VERSION) bloom.so $(WHEEL_PYTHON)

$(NPM_TGZ): bloom.so ext/sqlite3_bloom.h ext/packaging/copyright ext/packaging/npm.sh \
            ext/packaging/npm/index.js ext/packaging/npm/index.d.ts \
            ext/packaging/npm/README.md $(DIST)/settings
	@mkdir -p $(@D)
	$(DIST_ENV) sh ext/packaging/npm.sh $(DIST)/npm $@ $(VERSION) bloom.so
