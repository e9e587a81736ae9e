# Fuzzing (tests/fuzz/): libFuzzer targets over the SQL functions, with the
# extension linked in statically (-DSQLITE_CORE) and an in-memory SQLite.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   make fuzz                  build every target with clang and run each for
#                              FUZZ_SECONDS (default 60) seconds; prints the
#                              exec count and coverage of each
#   make fuzz-corpus           regenerate the committed seed corpus
#   make test                  also replays tests/fuzz/corpus/<target>/ and
#                              tests/fuzz/regressions/<target>/ through each
#                              target, built with $(CC) without libFuzzer, in
#                              the plain and the ASan+UBSan run
#
# Targets are tests/fuzz/fuzz_<name>.c.  New inputs go to the git-ignored
# tests/fuzz/corpus-work/<name>/, crashes to tests/fuzz/corpus-work/crashes/.

FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_DIR      = tests/fuzz
FUZZ_WORK     = $(FUZZ_DIR)/corpus-work
FUZZ_TARGETS  = $(patsubst $(FUZZ_DIR)/fuzz_%.c,%,$(wildcard $(FUZZ_DIR)/fuzz_*.c))
FUZZ_HEADERS  = $(FUZZ_DIR)/fuzz_common.h tests/lib/bloom_spec.h \
                tests/lib/quotient_spec.h $(HEADERS)
FUZZ_CFLAGS   = $(STD) -g $(WARNINGS) -DSQLITE_CORE -Iext -Itests
FUZZ_SAN      = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
                -fno-omit-frame-pointer
FUZZ_SAN_OBJ  = -fsanitize=fuzzer-no-link,address,undefined \
                -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_BINS     = $(addprefix $(BUILD)/fuzz/fuzz-,$(FUZZ_TARGETS))
# The clang and libFuzzer runtime packages of Debian bookworm.
FUZZ_PACKAGES = clang libclang-rt-14-dev

# The extension's objects: the plain and asan ones are the Makefile's
# (ext_objs); the fuzz variant is compiled by clang with libFuzzer's
# instrumentation.
$(BUILD)/fuzz/ext/%.o: ext/%.c $(HEADERS) | fuzz-deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(EXT_OBJ_CFLAGS) -O1 $(FUZZ_SAN_OBJ) -c -o $@ $<

# Replay binaries: the target plus replay.c, plain and sanitized.
REPLAY_DEFS = -DREPLAY_CORPUS='"$(CURDIR)/$(FUZZ_DIR)/corpus/$*"' \
              -DREPLAY_REGRESSIONS='"$(CURDIR)/$(FUZZ_DIR)/regressions/$*"'

$(BUILD)/plain/fuzz-%.t: $(FUZZ_DIR)/fuzz_%.c $(FUZZ_DIR)/replay.c $(FUZZ_HEADERS) \
                         $(call ext_objs,plain)
	$(link_test)

$(BUILD)/asan/fuzz-%.t: $(FUZZ_DIR)/fuzz_%.c $(FUZZ_DIR)/replay.c $(FUZZ_HEADERS) \
                        $(call ext_objs,asan)
	$(link_test)

$(BUILD)/plain/fuzz-%.t $(BUILD)/asan/fuzz-%.t: TEST_DEFS = -DSQLITE_CORE $(REPLAY_DEFS)

PLAIN_TESTS += $(addprefix $(BUILD)/plain/fuzz-,$(addsuffix .t,$(FUZZ_TARGETS)))
ASAN_TESTS  += $(addprefix $(BUILD)/asan/fuzz-,$(addsuffix .t,$(FUZZ_TARGETS)))

# libFuzzer binaries.
$(BUILD)/fuzz/fuzz-%: $(FUZZ_DIR)/fuzz_%.c $(FUZZ_HEADERS) $(call ext_objs,fuzz) | fuzz-deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -O1 $(FUZZ_SAN) -o $@ $< \
	    $(call ext_objs,fuzz) $(MURMUR_A) -lsqlite3 -lm

# The seed corpus generator: the extension itself writes the valid blobs.
$(BUILD)/fuzz/gen-corpus: $(FUZZ_DIR)/gen_corpus.c $(FUZZ_HEADERS) $(call ext_objs,plain)
	@mkdir -p $(@D)
	$(CC) $(FUZZ_CFLAGS) -O1 -o $@ $< $(call ext_objs,plain) $(MURMUR_A) -lsqlite3 -lm

.PHONY: fuzz fuzz-build fuzz-deps fuzz-corpus

fuzz-corpus: $(BUILD)/fuzz/gen-corpus
	$(BUILD)/fuzz/gen-corpus $(FUZZ_DIR)/corpus

# One step after another (as `make test` does): deps and fuzz-deps may run
# apt-get, which must finish before anything compiles, and not overlap.
fuzz-build: deps
	$(MAKE) fuzz-deps
	$(MAKE) $(FUZZ_BINS)

fuzz: fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) sh $(FUZZ_DIR)/run-fuzz.sh $(BUILD)/fuzz \
	    $(FUZZ_DIR) $(FUZZ_WORK) $(FUZZ_TARGETS)

# clang with its libFuzzer runtime: checked by linking an empty target.
# Installs what is missing when run as root; otherwise says what to run.
fuzz-deps:
	@probe="$$(mktemp -d)"; \
	printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' > "$$probe/t.c"; \
	if ! $(FUZZ_CC) $(FUZZ_SAN) -o "$$probe/t" "$$probe/t.c" >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing: $(FUZZ_PACKAGES)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq $(FUZZ_PACKAGES) || { rm -rf "$$probe"; exit 1; }; \
	    if ! $(FUZZ_CC) $(FUZZ_SAN) -o "$$probe/t" "$$probe/t.c"; then \
	      echo "$(FUZZ_CC) still cannot link a libFuzzer target"; rm -rf "$$probe"; exit 1; \
	    fi; \
	  else \
	    echo "make fuzz needs clang and its libFuzzer runtime ($(FUZZ_CC) -fsanitize=fuzzer failed)."; \
	    echo "Run:  sudo apt-get install -y $(FUZZ_PACKAGES)"; \
	    rm -rf "$$probe"; exit 1; \
	  fi; \
	fi; \
	rm -rf "$$probe"

# Keep the fuzz variant's objects (make would delete them as intermediate
# files after each link).
.SECONDARY: $(call ext_objs,fuzz)
