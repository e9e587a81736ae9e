# bloom — probabilistic membership filters for SQLite.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   make          build ./bloom.so
#   make demo     build, then run sql/demo.sql in the sqlite3 shell
#   make test     every kind of test once, under prove, on every core: unit,
#                 SQL, recipes, format, interop, the OOM sweep on a sample
#                 of its fault points, the compiled tests again under
#                 ASan+UBSan, then make dist's packages (tests/dist/)
#   make check    the rest of the battery: the whole suite under ASan+UBSan
#                 with every fault point, the long model run, I/O faults,
#                 threads, valgrind, warnings (tests/check/check.mk)
#   make dist     the source tarball, the Debian packages, the wheel and the
#                 npm package, in build/dist/ (ext/packaging/dist.mk)
#
# On Debian, `make demo` and `make test` install missing packages with
# apt-get when run as root, and otherwise print the command to run.

CC      ?= cc
CFLAGS  ?= -O2 -g
WARNINGS = -Wall -Wextra -Wconversion -Wshadow
STD      = -std=c11
SQLITE3 ?= sqlite3
PROVE   ?= prove

DEB_PACKAGES = gcc make sqlite3 libsqlite3-dev libmurmurhash-dev perl python3

# Link murmur3 from Debian's static archive, by path, so the shared
# libmurmurhash.so next to it is never picked instead.
MURMUR_A = $(shell $(CC) -print-file-name=libmurmurhash.a)

# ext/ in layers, each a folder: core/ is the plain-C filter core (no
# SQLite header), functions/ the SQL functions over it, store/ the virtual
# tables that keep a filter in shadow tables, and bloom_ext.c the entry
# point that registers them.  Every .c file of a layer's folder is
# built; `make check-layers` checks what each layer may include.
CORE_SRC = $(wildcard ext/core/*.c)
SQL_SRC  = ext/bloom_ext.c $(wildcard ext/functions/*.c ext/store/*.c)
HEADERS  = $(wildcard ext/*.h ext/*/*.h)

# Only sqlite3_bloom_init is exported; murmur's symbols stay inside;
# nodelete keeps the code mapped if SQLite unloads after a failed init.
SO_FLAGS = -shared -fPIC -fvisibility=hidden -Wl,-soname,bloom.so \
           -Wl,--exclude-libs,ALL -Wl,-z,nodelete -Wl,--no-undefined

SAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
            -fno-omit-frame-pointer
ASAN_LIB  = $(shell $(CC) -print-file-name=libasan.so)

BUILD = build

# The version is written once, as BLOOM_VERSION in ext/sqlite3_bloom.h:
# bloom_version() answers it, and make dist names and labels the packages
# with it (`make version` prints it).
VERSION := $(shell sed -n 's/^.define BLOOM_VERSION "\([^"]*\)"$$/\1/p' ext/sqlite3_bloom.h)

.PHONY: all demo test test-plain test-asan test-asan-short check-layers deps clean \
        bench install uninstall version test-build

# Every core: make test builds with -j and runs prove -j.
NPROC := $(shell nproc 2>/dev/null || echo 2)

# make install [PREFIX=/usr/local] [DESTDIR=] puts the extension in $(LIBDIR),
# where the dynamic loader looks, so that `.load bloom` in the sqlite3 shell
# finds it from any directory.  A bare name is found there only through
# ldconfig's cache, and ldconfig reads only files named lib*.so*: so the
# file is libbloom.so with the SONAME bloom.so, which ldconfig caches it
# under, beside a link bloom.so -> libbloom.so (for `.load $(LIBDIR)/bloom`
# before ldconfig has run).  ldconfig runs when installing into the real
# root, not under DESTDIR.
PREFIX   ?= /usr/local
LIBDIR    = $(PREFIX)/lib
LDCONFIG ?= ldconfig

all: bloom.so

# The checkout's folder is kept out of bloom.so (its debug information, and
# so its build ID): the same sources give the same module in any folder,
# and make dist the same packages.
REPRO_FLAGS = -ffile-prefix-map=$(CURDIR)=.

# Rebuilt when the Makefile changes too: the link flags (SONAME, exports)
# are part of what make install delivers.
bloom.so: $(CORE_SRC) $(SQL_SRC) $(HEADERS) Makefile
	$(CC) $(STD) -Iext $(CFLAGS) $(WARNINGS) $(SO_FLAGS) $(REPRO_FLAGS) -o $@ \
	    $(CORE_SRC) $(SQL_SRC) $(MURMUR_A) -lm

$(BUILD)/asan/bloom.so: $(CORE_SRC) $(SQL_SRC) $(HEADERS) Makefile
	@mkdir -p $(@D)
	$(CC) $(STD) -Iext -O1 -g $(WARNINGS) $(SAN_FLAGS) $(SO_FLAGS) -o $@ \
	    $(CORE_SRC) $(SQL_SRC) $(MURMUR_A) -lm

# --- tests -----------------------------------------------------------------
# Compiled tests come in two variants, plain and asan (ASan+UBSan), each in
# build/<variant>/ as a .t file that prove runs; tests/*.t are scripts prove
# runs as they are.  A folder of tests/ that needs rules has one fragment,
# tests/X/X.mk, included below; the fragments append their compiled tests
# to PLAIN_TESTS and ASAN_TESTS.
# Shared test code (TAP, opening a database, seeded randomness, ...) is in
# tests/lib/.
VARIANT_CFLAGS_plain = -O2
VARIANT_CFLAGS_asan  = -O1 $(SAN_FLAGS)
TEST_CFLAGS  = $(STD) -g $(WARNINGS) -Iext -Itests
TEST_HEADERS = $(wildcard tests/lib/*.h)

# Test programs that link the extension in rather than load bloom.so (unit
# tests, the static build of the SQL suite, the fuzz targets) share its
# objects, compiled once per variant with -DSQLITE_CORE:
# $(call ext_objs,<variant>) is every object, $(call core_objs,<variant>)
# those of ext/core/ only.
ext_objs  = $(patsubst ext/%.c,$(BUILD)/$(1)/ext/%.o,$(CORE_SRC) $(SQL_SRC))
core_objs = $(patsubst ext/%.c,$(BUILD)/$(1)/ext/%.o,$(CORE_SRC))
EXT_OBJ_CFLAGS = $(STD) -g $(WARNINGS) -DSQLITE_CORE -Iext

$(BUILD)/plain/ext/%.o: ext/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(EXT_OBJ_CFLAGS) $(VARIANT_CFLAGS_plain) -c -o $@ $<

$(BUILD)/asan/ext/%.o: ext/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(EXT_OBJ_CFLAGS) $(VARIANT_CFLAGS_asan) -c -o $@ $<

# Keep them (make would delete them as intermediate files after each link).
.SECONDARY: $(call ext_objs,plain) $(call ext_objs,asan)

# One link line for every compiled test: the test's .c files and objects
# (its other prerequisites are headers), in the variant of its folder.
# A rule may add TEST_DEFS and TEST_LIBS for its targets.
TEST_LIBS = -lsqlite3 -lm
define link_test
@mkdir -p $(@D)
$(CC) $(TEST_CFLAGS) $(VARIANT_CFLAGS_$(notdir $(@D))) $(TEST_DEFS) -o $@ \
    $(filter %.c %.o,$^) $(MURMUR_A) $(TEST_LIBS)
endef

PLAIN_TESTS  =
ASAN_TESTS   =
SCRIPT_TESTS = $(wildcard tests/*.t)

include $(sort $(wildcard tests/*.mk tests/*/*.mk))
include $(wildcard ext/dqlite/*.mk)
include $(wildcard ext/packaging/*.mk)

# The sanitizer pass of make test: the static build of the Bloom suite
# (the same tests as sql-bloom_functions, linked in) runs sanitized in make
# check only.
ASAN_SHORT_TESTS = $(filter-out $(BUILD)/asan/static-%,$(ASAN_TESTS))

test: deps
	$(MAKE) check-layers
	$(MAKE) -j$(NPROC) test-build
	$(MAKE) test-plain
	$(MAKE) test-asan-short
	$(MAKE) test-dist

# Everything make test runs, built side by side.
test-build: bloom.so $(PLAIN_TESTS) $(BUILD)/asan/bloom.so $(ASAN_SHORT_TESTS)

# What each layer of ext/ may include (tests/check/layers.sh says how).
check-layers:
	$(PROVE) --exec sh tests/check/layers.sh

# The OOM and abort sweeps visit every 13th fault point here (a prime, so
# that each statement's points are sampled at every offset across the
# scenarios); make check visits every one.
SAMPLE_SWEEP = BLOOM_SWEEP_STEP=13

test-plain: bloom.so $(PLAIN_TESTS)
	BLOOM_SO=$(CURDIR)/bloom.so $(SAMPLE_SWEEP) \
	    $(PROVE) -j$(NPROC) $(PLAIN_TESTS) $(SCRIPT_TESTS)

# The stock sqlite3 shell loads the sanitized bloom.so only with the ASan
# runtime preloaded; the C tests link it themselves.
ASAN_ENV = BLOOM_SO=$(CURDIR)/$(BUILD)/asan/bloom.so BLOOM_PRELOAD=$(ASAN_LIB) \
           ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# make check: every test, scripts too, every fault point.
test-asan: $(BUILD)/asan/bloom.so $(ASAN_TESTS)
	$(ASAN_ENV) $(PROVE) -j$(NPROC) $(ASAN_TESTS) $(SCRIPT_TESTS)

# make test: the compiled tests, the sweeps sampled; the scripts (which
# drive the same bloom.so through the shell, Python and the docs) run in
# the plain pass only, and so does the static build of the Bloom suite
# (ASAN_SHORT_TESTS, above).
test-asan-short: $(BUILD)/asan/bloom.so $(ASAN_SHORT_TESTS)
	$(ASAN_ENV) $(SAMPLE_SWEEP) $(PROVE) -j$(NPROC) $(ASAN_SHORT_TESTS)

# deps first, then the build: as prerequisites side by side, `make -j`
# would compile while apt-get installs the compiler.
demo: deps
	$(MAKE) bloom.so
	$(SQLITE3) -bail :memory: < sql/demo.sql

# Installs what is missing when run as root; otherwise says what to run.
# Without dpkg-query (not Debian) it says so and checks nothing.
deps:
	@if ! command -v dpkg-query >/dev/null 2>&1; then \
	  echo "deps: no dpkg-query (not Debian); not checking for: $(DEB_PACKAGES)"; \
	  exit 0; \
	fi; \
	missing=""; \
	for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' \
	    || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "Installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else \
	    echo "Missing Debian packages:$$missing"; \
	    echo "Run:  sudo apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi

install: bloom.so
	install -d $(DESTDIR)$(LIBDIR)
	install -m 644 bloom.so $(DESTDIR)$(LIBDIR)/libbloom.so
	ln -sf libbloom.so $(DESTDIR)$(LIBDIR)/bloom.so
	@$(if $(DESTDIR),:,$(run_ldconfig))

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/bloom.so $(DESTDIR)$(LIBDIR)/libbloom.so
	@$(if $(DESTDIR),:,$(run_ldconfig))

# ldconfig lives in /sbin, often not in a user's PATH; as a user (installing
# under $HOME, say) it cannot write the cache, which is then only a warning.
run_ldconfig = echo $(LDCONFIG); \
    PATH="$$PATH:/usr/sbin:/sbin" $(LDCONFIG) || \
    echo "warning: $(LDCONFIG) failed; .load bloom needs $(LIBDIR) in its cache (.load $(LIBDIR)/bloom works)"

version:
	@echo $(VERSION)

clean:
	rm -rf $(BUILD) bloom.so
