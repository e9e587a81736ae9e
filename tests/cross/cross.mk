# The extension on other machines: built with Debian's cross compilers for
# arm64 and for s390x (big-endian), its tests run under qemu-user
# (tests/cross/, "Other machines" in tests/README.md), and filters and
# databases carried both ways between this machine and the emulated one.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   make test-cross [CROSS_ARCHES="arm64 s390x"]
#
# Each architecture builds in build/cross/ARCH/: its libsqlite3 and
# libmurmurhash come from Debian's archive into build/cross/ARCH/sysroot/
# (tests/cross/sysroot.sh: downloaded and unpacked, never installed), its
# libc is the cross compiler's (/usr/TRIPLE).  tests/cross/run.sh runs a
# compiled test under qemu and a script natively, with the emulated
# machine as its SQLite (tests/cross/remote.py).

CROSS_ARCHES ?= arm64 s390x
CROSS_TRIPLE_arm64 = aarch64-linux-gnu
CROSS_TRIPLE_s390x = s390x-linux-gnu
CROSS_DEB_PACKAGES = $(DEB_PACKAGES) gcc-aarch64-linux-gnu gcc-s390x-linux-gnu \
                     qemu-user-static
CROSS_DIR = $(BUILD)/cross

# What runs under emulation (about 9 minutes of CPU in all; tests/README.md,
# "Other machines"), slowest first, as prove starts them in this order:
# - on both machines: every unit test; every SQL test but the fault sweeps
#   (abort, oom: allocation and step counts, nothing of byte order, and the
#   paths they fail are run by the others); the scripts of tests/cross/
#   (the golden vectors, FORMAT.md's examples, the second reader, the
#   exchange of filters and databases both ways);
# - the Bloom suite loading bloom.so on s390x, and linked in statically
#   (static-bloom_functions, the same tests) on arm64;
# - on s390x only, the one big-endian machine: the SQL tests that spend
#   most of their time on volume (millions of rows for measured rates,
#   days of a windowed store, long model runs), in CROSS_BIG_ONLY.
CROSS_BIG_ONLY = sql-window_store sql-algebra sql-store_model
CROSS_SQL_SKIP = sql-abort sql-oom
CROSS_SUITE_arm64 = static-bloom_functions interop
CROSS_SUITE_s390x = sql-bloom_functions interop
CROSS_REST     = $(filter-out $(CROSS_BIG_ONLY) $(CROSS_SQL_SKIP) sql-bloom_functions \
    interop,$(patsubst tests/sql/%.c,sql-%,$(wildcard tests/sql/*.c)) \
    $(patsubst tests/unit/%.c,unit-%,$(wildcard tests/unit/*.c)) \
    $(patsubst tests/cross/%.t,%,$(wildcard tests/cross/*.t)))

# $(call cross_names,ARCH,NAMES): those tests of one machine, as prove sees them.
cross_names = $(addprefix $(CROSS_DIR)/$(1)/,$(addsuffix .t,$(2)))
CROSS_TESTS = \
    $(if $(filter s390x,$(CROSS_ARCHES)),$(call cross_names,s390x,$(CROSS_BIG_ONLY))) \
    $(foreach a,$(CROSS_ARCHES),$(call cross_names,$(a),$(CROSS_SUITE_$(a)))) \
    $(foreach a,$(CROSS_ARCHES),$(call cross_names,$(a),$(CROSS_REST)))

.PHONY: test-cross cross-deps cross-build

test-cross: cross-deps
	$(MAKE) -j$(NPROC) cross-build
	$(PROVE) -j$(NPROC) --exec 'sh tests/cross/run.sh' $(CROSS_TESTS)

cross-deps:
	@$(MAKE) -s deps DEB_PACKAGES="$(CROSS_DEB_PACKAGES)"

cross-build: bloom.so $(CROSS_TESTS) $(foreach a,$(CROSS_ARCHES),\
    $(CROSS_DIR)/$(a)/bloom.so $(CROSS_DIR)/$(a)/sqlpipe)

# The rules of one architecture ($(1)).  A compiled test is linked as
# link_test links it, with the architecture's compiler and libraries; a
# script of tests/cross/ is copied into the folder, so that its path names
# the architecture to tests/cross/run.sh.
define cross_rules
CROSS_SYSROOT_$(1) = $(CROSS_DIR)/$(1)/sysroot
CROSS_CC_$(1) = $(CROSS_TRIPLE_$(1))-gcc
CROSS_LIBDIR_$(1) = $$(CROSS_SYSROOT_$(1))/usr/lib/$(CROSS_TRIPLE_$(1))
CROSS_FLAGS_$(1) = -isystem $$(CROSS_SYSROOT_$(1))/usr/include -L$$(CROSS_LIBDIR_$(1)) \
    -Wl,-rpath-link,$$(CROSS_LIBDIR_$(1))
CROSS_MURMUR_$(1) = $$(CROSS_LIBDIR_$(1))/libmurmurhash.a

$$(CROSS_SYSROOT_$(1))/.complete: tests/cross/sysroot.sh
	sh tests/cross/sysroot.sh $(1) $(CROSS_DIR)/$(1)

$(CROSS_DIR)/$(1)/bloom.so: $(CORE_SRC) $(SQL_SRC) $(HEADERS) $$(CROSS_SYSROOT_$(1))/.complete
	$$(CROSS_CC_$(1)) $(STD) -Iext -O2 -g $(WARNINGS) $$(CROSS_FLAGS_$(1)) $(SO_FLAGS) \
	    -o $$@ $(CORE_SRC) $(SQL_SRC) $$(CROSS_MURMUR_$(1)) -lm

$(CROSS_DIR)/$(1)/ext/%.o: ext/%.c $(HEADERS) $$(CROSS_SYSROOT_$(1))/.complete
	@mkdir -p $$(@D)
	$$(CROSS_CC_$(1)) $(EXT_OBJ_CFLAGS) -O2 $$(CROSS_FLAGS_$(1)) -c -o $$@ $$<

$(CROSS_DIR)/$(1)/unit-%.t: tests/unit/%.c $(TEST_HEADERS) \
    $(patsubst ext/%.c,$(CROSS_DIR)/$(1)/ext/%.o,$(CORE_SRC))
	$$(CROSS_CC_$(1)) $(TEST_CFLAGS) -O2 $$(CROSS_FLAGS_$(1)) -o $$@ \
	    $$(filter %.c %.o,$$^) $$(CROSS_MURMUR_$(1)) -lm

$(CROSS_DIR)/$(1)/sql-%.t: tests/sql/%.c $(TEST_HEADERS) $$(CROSS_SYSROOT_$(1))/.complete
	$$(CROSS_CC_$(1)) $(TEST_CFLAGS) -O2 $$(CROSS_FLAGS_$(1)) -o $$@ \
	    $$< $$(CROSS_MURMUR_$(1)) -lsqlite3 -lm

$(CROSS_DIR)/$(1)/static-bloom_functions.t: tests/sql/bloom_functions.c $(TEST_HEADERS) \
    $(patsubst ext/%.c,$(CROSS_DIR)/$(1)/ext/%.o,$(CORE_SRC) $(SQL_SRC))
	$$(CROSS_CC_$(1)) $(TEST_CFLAGS) -O2 -DSQLITE_CORE -DBLOOM_STATIC \
	    $$(CROSS_FLAGS_$(1)) -o $$@ $$(filter %.c %.o,$$^) $$(CROSS_MURMUR_$(1)) -lsqlite3 -lm

$(CROSS_DIR)/$(1)/sqlpipe: tests/cross/sqlpipe.c $(TEST_HEADERS) $$(CROSS_SYSROOT_$(1))/.complete
	$$(CROSS_CC_$(1)) $(TEST_CFLAGS) -O2 $$(CROSS_FLAGS_$(1)) -o $$@ $$< -lsqlite3

$(CROSS_DIR)/$(1)/%.t: tests/cross/%.t
	@mkdir -p $$(@D)
	cp $$< $$@
endef

$(foreach a,$(CROSS_ARCHES),$(eval $(call cross_rules,$(a))))

.SECONDARY: $(foreach a,$(CROSS_ARCHES),\
    $(patsubst ext/%.c,$(CROSS_DIR)/$(a)/ext/%.o,$(CORE_SRC) $(SQL_SRC)))
