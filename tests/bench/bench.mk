# make bench: the extension's performance, as ratios measured side by side in
# one run (owned by tests/bench/).  make bench-counting: only the counting
# Bloom filter against the cuckoo filter, in C.
#
# Builds the C drivers (-O2; bench links the system libsqlite3 and the
# plain-C core for the build's floor and its reference probe; counting links
# the core for the cuckoo and Bloom filters) and runs them against ./bloom.so.
# The first run generates tests/bench/bench.db and bench_aux.db (git-ignored,
# ~190 MB, ~20 s); later runs reuse them.  A run takes ~4 minutes on an idle
# 2-core machine.  BENCH_ROUNDS=n sets the timed rounds (default 5);
# BENCH_CLOCK=cpu times with the thread's CPU clock instead of the wall clock;
# BENCH_COUNTING_N=n sets the counting comparison's items (default 1000000).

BENCH_CC     ?= $(CC)
BENCH_CFLAGS ?= -std=c11 -O2 -g -Wall -Wextra -Wshadow
BENCH_BIN     = build/bench/bench
COUNTING_BIN  = build/bench/counting

$(BENCH_BIN): tests/bench/bench.c $(CORE_SRC) $(HEADERS)
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_CFLAGS) -Iext -o $@ $< $(CORE_SRC) $(MURMUR_A) -lsqlite3 -lm

$(COUNTING_BIN): tests/bench/counting.c $(CORE_SRC) $(HEADERS)
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_CFLAGS) -Iext -o $@ $< $(CORE_SRC) $(MURMUR_A) -lm

.PHONY: bench-counting

bench: bloom.so $(BENCH_BIN) $(COUNTING_BIN)
	$(BENCH_BIN) $(CURDIR)/bloom.so $(CURDIR)/tests/bench
	$(COUNTING_BIN)

bench-counting: $(COUNTING_BIN)
	$(COUNTING_BIN)
