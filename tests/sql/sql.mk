# SQL-level tests: tests/sql/X.c builds as build/<variant>/sql-X.t, a
# program on the system libsqlite3 that loads $BLOOM_SO (make test sets it
# to the plain or the sanitized bloom.so).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
SQLT_NAMES = $(patsubst tests/sql/%.c,sql-%,$(wildcard tests/sql/*.c))

$(BUILD)/plain/sql-%.t: tests/sql/%.c $(TEST_HEADERS)
	$(link_test)

$(BUILD)/asan/sql-%.t: tests/sql/%.c $(TEST_HEADERS)
	$(link_test)

PLAIN_TESTS += $(addprefix $(BUILD)/plain/,$(addsuffix .t,$(SQLT_NAMES)))
ASAN_TESTS  += $(addprefix $(BUILD)/asan/,$(addsuffix .t,$(SQLT_NAMES)))

# Static embedding: the Bloom suite again, with the extension linked into
# the test program (-DSQLITE_CORE) and registered by sqlite3_auto_extension,
# as a host that cannot load extensions would use it (README, "Linking it
# into a program").
STATIC_SUITE = tests/sql/bloom_functions.c

$(BUILD)/plain/static-bloom_functions.t: $(STATIC_SUITE) $(TEST_HEADERS) $(call ext_objs,plain)
	$(link_test)

$(BUILD)/asan/static-bloom_functions.t: $(STATIC_SUITE) $(TEST_HEADERS) $(call ext_objs,asan)
	$(link_test)

$(BUILD)/plain/static-bloom_functions.t $(BUILD)/asan/static-bloom_functions.t: \
    TEST_DEFS = -DSQLITE_CORE -DBLOOM_STATIC

PLAIN_TESTS += $(BUILD)/plain/static-bloom_functions.t
ASAN_TESTS  += $(BUILD)/asan/static-bloom_functions.t
