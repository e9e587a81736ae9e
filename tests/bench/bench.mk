# make bench: performance targets of issue 3 (owned by tests/bench/).
bench: bloom.so
	@echo "benchmark not written yet"; exit 1
