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

# The quotient tests again with the portable count of bits: on x86-64 the
# library takes copies of a probe's scans built for popcnt wherever the CPU
# has it (BITS_IFUNC_POPCNT in ext/core/bytes.h), so the copies other CPUs
# run are tested here too, the core compiled into the test without them.
PORTABLE_UNITS = core_quotient core_quotient_leaf
$(BUILD)/plain/unit-%_portable.t: TEST_DEFS = -DBLOOM_NO_IFUNC
$(BUILD)/plain/unit-%_portable.t: TEST_LIBS = -lm
$(BUILD)/plain/unit-%_portable.t: tests/unit/%.c $(CORE_SRC) $(HEADERS) \
    $(TEST_HEADERS)
	$(link_test)

PLAIN_TESTS += $(patsubst %,$(BUILD)/plain/unit-%_portable.t,$(PORTABLE_UNITS))
