# Unit tests of the plain-C core (ext/core/, no SQLite): tests/unit/X.c
# builds as build/<variant>/unit-X.t, linked with the core's objects.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
UNIT_NAMES = $(patsubst tests/unit/%.c,unit-%,$(wildcard tests/unit/*.c))

$(BUILD)/plain/unit-%.t: tests/unit/%.c $(TEST_HEADERS) $(call core_objs,plain)
	$(link_test)

$(BUILD)/asan/unit-%.t: tests/unit/%.c $(TEST_HEADERS) $(call core_objs,asan)
	$(link_test)

$(BUILD)/plain/unit-%.t $(BUILD)/asan/unit-%.t: TEST_LIBS = -lm

PLAIN_TESTS += $(addprefix $(BUILD)/plain/,$(addsuffix .t,$(UNIT_NAMES)))
ASAN_TESTS  += $(addprefix $(BUILD)/asan/,$(addsuffix .t,$(UNIT_NAMES)))
