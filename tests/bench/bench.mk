# make bench: performance targets of issue 3 (owned by tests/bench/).
#
# Builds the C driver (-O2, system libsqlite3, with the plain-C core for the
# floor of target 5) and runs it against ./bloom.so.
# The first run generates tests/bench/bench.db and bench_aux.db (git-ignored,
# ~190 MB, ~20 s); later runs reuse them.  A run takes ~3 minutes on an idle
# 2-core machine.  BENCH_ROUNDS=n sets the timed rounds (default 5);
# BENCH_CLOCK=cpu times with the thread's CPU clock instead of the wall clock.

BENCH_CC     ?= $(CC)
BENCH_CFLAGS ?= -std=c11 -O2 -g -Wall -Wextra -Wshadow
BENCH_BIN     = build/bench/bench

$(BENCH_BIN): tests/bench/bench.c $(CORE_SRC) $(HEADERS)
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_CFLAGS) -Iext -o $@ $< $(CORE_SRC) $(MURMUR_A) -lsqlite3 -lm

bench: bloom.so $(BENCH_BIN)
	$(BENCH_BIN) $(CURDIR)/bloom.so $(CURDIR)/tests/bench
