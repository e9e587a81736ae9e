# make check: the rest of the battery, kept out of `make test` (CI runs
# both): the whole suite under ASan+UBSan with every fault point of the
# OOM and abort sweeps, and the long and tool-heavy checks (I/O faults,
# threads, the writable globals, valgrind, two compilers' warnings and
# cppcheck).  Included by the Makefile.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   test-asan       every compiled test and script against the ASan+UBSan
#                   build, every fault point swept
#   check-warnings  the sources in ext/ and the C tests (tests/unit, tests/sql,
#                   tests/check) compile with -Wall -Wextra -Wconversion
#                   -Wshadow -Werror under gcc and clang
#   check-cppcheck  cppcheck --enable=warning,performance,portability on ext/
#   check-globals   bloom.so has no writable global but sqlite3_api
#   check-iofault   fault-injecting VFS (WAL and rollback journal) and
#                   SIGKILLed writers, then clean reopens (tests/check/iofault.c)
#   check-threads   4 threads on one WAL database under ThreadSanitizer,
#                   loading the extension concurrently (tests/check/threads.c)
#   check-valgrind  the plain SQL tests (build/plain/sql-*.t) under memcheck
#                   (the model-based store test shortened to 2,000 steps)
#   check-model     the model-based test of every store shape
#                   (tests/sql/store_model.c) at BLOOM_MODEL_STEPS=100000:
#                   100,000 random steps over the ten shapes, in sequences
#                   of at most 1,500 steps, each seed printed (make test
#                   runs one short sequence a shape; about 5 minutes);
#                   MODEL_STEPS=... sets the length
#
# make check runs every step even when one fails, then lists the failures.
# Its time on 2 cores is in tests/README.md: most of it the full ASan+UBSan
# pass, valgrind (which runs tests 30-130 times slower) and check-model.
# `make check VALGRIND_TESTS="build/plain/sql-oom.t ..."` narrows valgrind.
# Extra Debian packages: valgrind cppcheck clang (`make check-deps` installs
# them when run as root, like `make deps`).

CHECK_DEB_PACKAGES = valgrind cppcheck clang
CHECK_DIR  = $(BUILD)/check
TSAN_DIR   = $(BUILD)/tsan
TSAN_FLAGS = -fsanitize=thread -fno-omit-frame-pointer
CHECK_STEPS = test-asan check-warnings check-cppcheck check-globals \
              check-iofault check-threads check-valgrind check-model

# The glibc headers have many #ifdef configurations; cppcheck tries 12 of
# them, one of which no compiler has (it then fails with a syntaxError in
# stdlib.h).  Give it the configuration gcc compiles in, and the
# extension's own headers, whose macros define some functions
# (BITS_COUNTING in ext/core/bytes.h).
CPPCHECK_FLAGS = --enable=warning,performance,portability --error-exitcode=1 \
                 --inline-suppr
CPPCHECK_GCC   = -Iext -I/usr/include -I/usr/include/x86_64-linux-gnu \
                 -D__GNUC__=12 -D__GNUC_MINOR__=2 -D__STDC__=1 \
                 -D__STDC_VERSION__=201112L -D__x86_64__ -D__linux__ \
                 -D__CHAR_BIT__=8 -D__SIZEOF_LONG__=8

WARN_TEST_SOURCES = $(wildcard tests/unit/*.c tests/sql/*.c tests/check/*.c)
VALGRIND_TESTS    = $(addprefix $(BUILD)/plain/,$(addsuffix .t,$(SQLT_NAMES)))

.PHONY: check check-deps $(CHECK_STEPS)

check: check-deps
	@failed=""; t0=$$(date +%s); \
	for s in $(CHECK_STEPS); do \
	  echo "=== $$s"; s0=$$(date +%s); \
	  if $(MAKE) --no-print-directory $$s; then r=passed; \
	  else r=FAILED; failed="$$failed $$s"; fi; \
	  echo "=== $$s: $$r ($$(( $$(date +%s) - s0 )) s)"; \
	done; \
	echo "=== check: $$(( $$(date +%s) - t0 )) s"; \
	if [ -n "$$failed" ]; then echo "=== check FAILED:$$failed"; exit 1; fi; \
	echo "=== check: every step passed"

check-deps:
	@$(MAKE) --no-print-directory deps \
	    DEB_PACKAGES="$(DEB_PACKAGES) $(CHECK_DEB_PACKAGES)"

check-warnings:
	@n=0; bad=""; \
	for cc in gcc clang; do \
	  for f in $(CORE_SRC) $(SQL_SRC); do \
	    n=$$((n + 1)); \
	    $$cc $(STD) -O2 $(WARNINGS) -Werror -fPIC -Iext -c -o /dev/null $$f \
	      || bad="$$bad $$cc:$$f"; \
	  done; \
	  for f in $(WARN_TEST_SOURCES); do \
	    n=$$((n + 1)); \
	    $$cc $(TEST_CFLAGS) -O2 -Werror -c -o /dev/null $$f \
	      || bad="$$bad $$cc:$$f"; \
	  done; \
	done; \
	if [ -n "$$bad" ]; then echo "check-warnings: warnings in$$bad"; exit 1; fi; \
	echo "check-warnings: $$n compilations (gcc and clang, $(WARNINGS) -Werror), no warning"

check-cppcheck:
	cppcheck -q $(CPPCHECK_FLAGS) $(CPPCHECK_GCC) ext/
	cppcheck -q --force $(CPPCHECK_FLAGS) --library=posix --std=c11 -Iext ext/
	@echo "check-cppcheck: clean (with the system headers as gcc sees them, and without them over every configuration)"

check-globals: bloom.so
	sh tests/check/globals.sh bloom.so

$(CHECK_DIR)/iofault.t: tests/check/iofault.c $(TEST_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -O2 -o $@ $< -lsqlite3 -lm

check-iofault: bloom.so $(CHECK_DIR)/iofault.t
	BLOOM_SO=$(CURDIR)/bloom.so $(PROVE) -v $(CHECK_DIR)/iofault.t

# The extension as the Makefile builds it, with ThreadSanitizer.
$(TSAN_DIR)/bloom.so: $(CORE_SRC) $(SQL_SRC) $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(STD) -Iext -O1 -g $(WARNINGS) $(TSAN_FLAGS) $(SO_FLAGS) -o $@ \
	    $(CORE_SRC) $(SQL_SRC) $(MURMUR_A) -lm

$(TSAN_DIR)/threads.t: tests/check/threads.c $(TEST_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -O1 $(TSAN_FLAGS) -o $@ $< -lsqlite3 -lpthread -lm

check-threads: $(TSAN_DIR)/bloom.so $(TSAN_DIR)/threads.t
	BLOOM_SO=$(CURDIR)/$(TSAN_DIR)/bloom.so \
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
	    $(PROVE) -v $(TSAN_DIR)/threads.t

# The fault and abort sweeps visit one point in 13 under valgrind, as in
# `make test` (every point in test-asan), and the model-based store test
# runs 2,000 steps (200 a shape); everything else runs as in `make test`.
# Its tests are listed by tests/sql/sql.mk, which is included after this
# fragment: expanded a second time, when the rule runs, the list is whole.
.SECONDEXPANSION:
check-valgrind: bloom.so $$(VALGRIND_TESTS)
	BLOOM_SO=$(CURDIR)/bloom.so BLOOM_SWEEP_STEP=13 BLOOM_MODEL_STEPS=2000 \
	    sh tests/check/valgrind.sh $(CHECK_DIR)/valgrind $(VALGRIND_TESTS)

# The model-based store test, long: every shape through many seeds.
MODEL_STEPS = 100000

check-model: bloom.so $(BUILD)/plain/sql-store_model.t
	BLOOM_SO=$(CURDIR)/bloom.so BLOOM_MODEL_STEPS=$(MODEL_STEPS) \
	    $(PROVE) -v $(BUILD)/plain/sql-store_model.t
