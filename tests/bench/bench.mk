# make bench: the extension's performance, as ratios measured side by side in
# one run (owned by tests/bench/).  make bench-counting: only the counting
# Bloom filter against the cuckoo filter, in C.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
# Builds the C drivers (-O2; bench links the system libsqlite3 and the
# plain-C core for the build's floor and its reference probe; counting links
# the core for the cuckoo and Bloom filters) and runs them against ./bloom.so.
# The first run generates tests/bench/bench.db and bench_aux.db (git-ignored,
# ~190 MB, ~20 s); later runs reuse them.  A run takes ~4 minutes on an idle
# 2-core machine.  BENCH_ROUNDS=n sets the timed rounds (default 5);
# BENCH_CLOCK=cpu times with the thread's CPU clock instead of the wall clock;
# BENCH_CACHES=sysconf or cpuid reads the cache sizes it prints from there
# rather than from sysfs first (where a machine has no sysfs cache directory,
# it falls back to them by itself);
# BENCH_COUNTING_N=n,n,... sets the counting comparison's sizes (default
# 10000,100000,1000000,3000000,10000000).
# make bench-cuckoo: the cuckoo filter's layout 1 against version 1.1.0's
# layout 0 (tests/bench/cuckoo.c: space over n, accuracy, core and SQL
# probes, store inserts; a few minutes; BENCH_CUCKOO_ACCURACY_MAX=n bounds
# the accuracy part, BENCH_CUCKOO_DIR its store databases, default /tmp).
# make bench-store: only the bloom_store figures (tests/bench/store.c; its
# databases, store-*.db, take about 1.5 GB and a few minutes to build once;
# STORE_BENCH_BIG=n sets the large size, default 10000000).
# make bench-scalable: only the scalable stores' figures
# (tests/bench/scalable.c; its database, scalable.db, takes about 250 MB and
# a minute or two to build, again whenever bloom.so changes; a run takes
# about half a minute more; SCALABLE_BENCH_ROUNDS=n sets its rounds).
# make bench-window: what a windowed store (a store that forgets) costs
# against a fixed store: space at a steady rate for G = 2, 4, 8 and 16, an
# autocommit INSERT and a probe, expiring a generation of 100K to 1M items,
# and a simulated week with a burst (tests/bench/window.c; clock =
# 'events', so days run at full speed; about two minutes).  Its databases,
# window-*.db, are made again and removed by each run in WINDOW_BENCH_DIR
# (default /tmp; up to a few hundred MB).  WINDOW_BENCH_ITEMS=n sets the items a
# window (default 1000000), WINDOW_BENCH_RATE=n the week's items a day
# (default 200000), WINDOW_BENCH_DAYS=n its days (default 7, at least 6),
# WINDOW_BENCH_PROBES=n the never-inserted values a week sample tests
# (default 1000000), WINDOW_BENCH_EXPIRE=a,b,c the generation sizes expired
# (default 100000,300000,1000000), WINDOW_BENCH_ROUNDS=n the rounds
# (default 7).
# make bench-quotient: the quotient filter against Bloom and cuckoo filters
# (tests/bench/quotient.c): bits per item against log2(1/p) for n = 10^4 to
# 10^8, measured false-positive rates (BENCH_QUOTIENT_FPR_MAX=n, default
# 10^7), and quotient_test against bloom_test in and out of cache; about
# two minutes, 1 GB of memory.
# make bench-keep: what keeping a store by trigger costs an autocommit
# INSERT at SQLite's default settings, against the same INSERT without the
# trigger and with a trigger that changes one random page, its floor
# (tests/bench/keep.c; databases keep-*.db built once, about 40 MB at 1M
# capacity and 2 GB at 100M; KEEP_BENCH_SIZES=1000000,10000000 sets the
# capacities, add 100000000 for the largest).

BENCH_CC     ?= $(CC)
BENCH_CFLAGS ?= -std=c11 -O2 -g -Wall -Wextra -Wshadow
BENCH_BIN     = build/bench/bench
COUNTING_BIN  = build/bench/counting
STORE_BIN     = build/bench/store
SCALABLE_BIN  = build/bench/scalable
KEEP_BIN      = build/bench/keep
WINDOW_BIN    = build/bench/window
CUCKOO_BIN    = build/bench/cuckoo
QUOTIENT_BIN  = build/bench/quotient

$(BENCH_BIN): tests/bench/bench.c tests/bench/machine.h $(CORE_SRC) $(HEADERS)
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_CFLAGS) -Iext -o $@ $< $(CORE_SRC) $(MURMUR_A) -lsqlite3 -lm

$(COUNTING_BIN): tests/bench/counting.c $(CORE_SRC) $(HEADERS)
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_CFLAGS) -Iext -o $@ $< $(CORE_SRC) $(MURMUR_A) -lm

$(CUCKOO_BIN): tests/bench/cuckoo.c tests/bench/cuckoo_v110.h tests/bench/sqlbench.h \
               $(CORE_SRC) $(HEADERS)
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_CFLAGS) -Iext -o $@ $< $(CORE_SRC) $(MURMUR_A) -lsqlite3 -lm

$(STORE_BIN): tests/bench/store.c tests/bench/sqlbench.h
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_CFLAGS) -o $@ $< -lsqlite3 -lm

$(SCALABLE_BIN): tests/bench/scalable.c tests/bench/sqlbench.h
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_CFLAGS) -o $@ $< -lsqlite3 -lm

$(KEEP_BIN): tests/bench/keep.c tests/bench/sqlbench.h
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_CFLAGS) -o $@ $< -lsqlite3 -lm

$(WINDOW_BIN): tests/bench/window.c tests/bench/sqlbench.h tests/bench/machine.h
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_CFLAGS) -o $@ $< -lsqlite3 -lm

$(QUOTIENT_BIN): tests/bench/quotient.c tests/bench/sqlbench.h tests/bench/machine.h \
                 $(CORE_SRC) $(HEADERS)
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_CFLAGS) -Iext -o $@ $< $(CORE_SRC) $(MURMUR_A) -lsqlite3 -lm

.PHONY: bench-counting bench-store bench-scalable bench-keep bench-cuckoo bench-window \
        bench-quotient

bench: bloom.so $(BENCH_BIN) $(COUNTING_BIN) $(STORE_BIN) $(SCALABLE_BIN) \
       $(CUCKOO_BIN) $(WINDOW_BIN) $(QUOTIENT_BIN)
	$(BENCH_BIN) $(CURDIR)/bloom.so $(CURDIR)/tests/bench
	$(COUNTING_BIN)
	$(CUCKOO_BIN) $(CURDIR)/bloom.so
	$(STORE_BIN) $(CURDIR)/bloom.so $(CURDIR)/tests/bench
	$(SCALABLE_BIN) $(CURDIR)/bloom.so $(CURDIR)/tests/bench
	$(WINDOW_BIN) $(CURDIR)/bloom.so
	$(QUOTIENT_BIN) $(CURDIR)/bloom.so

bench-store: bloom.so $(STORE_BIN)
	$(STORE_BIN) $(CURDIR)/bloom.so $(CURDIR)/tests/bench

bench-scalable: bloom.so $(SCALABLE_BIN)
	$(SCALABLE_BIN) $(CURDIR)/bloom.so $(CURDIR)/tests/bench

bench-keep: bloom.so $(KEEP_BIN)
	$(KEEP_BIN) $(CURDIR)/bloom.so $(CURDIR)/tests/bench

bench-window: bloom.so $(WINDOW_BIN)
	$(WINDOW_BIN) $(CURDIR)/bloom.so

bench-quotient: bloom.so $(QUOTIENT_BIN)
	$(QUOTIENT_BIN) $(CURDIR)/bloom.so

bench-counting: $(COUNTING_BIN)
	$(COUNTING_BIN)

# make bench-usecases: when a filter pays (tests/bench/usecases.c): the
# README's use cases against the plain SQLite way, on disk, cold and warm,
# under SQLite's defaults and the documented tuning.  USECASES_IDS=n sets
# the tables' size (default 20000000: its databases, uc-*.db, take about
# 13 GB and 10 to 20 minutes to build once; a run then takes 13 to 16
# minutes); 100000 to 1000000 gives a quick run.  As root, cold runs empty
# the OS page cache (USECASES_COLD=fadvise evicts only the bench's files).
USECASES_BIN  = build/bench/usecases
USECASES_IDS ?= 20000000

$(USECASES_BIN): tests/bench/usecases.c tests/bench/sqlbench.h tests/bench/machine.h
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_CFLAGS) -o $@ $< -lsqlite3 -lm

.PHONY: bench-usecases

bench-usecases: bloom.so $(USECASES_BIN)
	USECASES_IDS=$(USECASES_IDS) $(USECASES_BIN) $(CURDIR)/bloom.so $(CURDIR)/tests/bench

# tests/usecases.t runs the driver at 1,000 ids under make test (a smoke
# run: answers checked, no timing asserted).
test-plain test-asan: $(USECASES_BIN)

bench-cuckoo: bloom.so $(CUCKOO_BIN)
	$(CUCKOO_BIN) $(CURDIR)/bloom.so

# make bench-quotient-store: the quotient_store against bloom_store and
# cuckoo_store on disk (tests/bench/quotient_store.c): bits per item in
# the database and in the export, rates after growth, a burst and churn,
# probe cost, autocommit inserts at SQLite's defaults and the pages each
# commit writes, and insert if new (INSERT OR IGNORE into a store made with
# deletes = 0, against the scalable bloom_store and a PRIMARY KEY table).
# Its databases, build/qstore-bench*.db and build/qstore-ignore.db, are made again and
# removed by each run (a few hundred MB); about 25 minutes on an idle core, 48
# under a load of 5 to 10 (the growing store inserts at 45-130 us an id).
# QSTORE_BENCH_QUICK=1 gives a smoke run of about two minutes; see the file's
# header for the other knobs.
QSTORE_BIN = build/bench/quotient_store

$(QSTORE_BIN): tests/bench/quotient_store.c tests/bench/sqlbench.h tests/bench/machine.h
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_CFLAGS) -o $@ $< -lsqlite3 -lm

.PHONY: bench-quotient-store

bench-quotient-store: bloom.so $(QSTORE_BIN)
	$(QSTORE_BIN) $(CURDIR)/bloom.so $(CURDIR)/build
