# make test-wasm: the WebAssembly build (make wasm, ext/packaging/wasm.mk)
# tested in Node.js and in headless Chromium against the native bloom.so,
# and its npm package (make dist-wasm) installed offline and used:
#   tests/wasm/node.t     the scenario (scenario.js) in Node.js
#   tests/wasm/browser.t  the scenario in a page (page.html) served on
#                         127.0.0.1, screenshot in build/wasm/page.png
#   tests/wasm/package.t  the package's files, installed into a fresh
#                         project, its API from there
# Installs emscripten and chromium as root (deps), else names them.  Not
# part of make test.
# make bench-wasm: bloom_test's probe speed, the WebAssembly build in
# Node.js against the native bloom.so in the sqlite3 shell, same queries
# (tests/bench/wasm.js; BENCH_WASM_N=n,n sets the filter sizes).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
WASM_TEST_PACKAGES = chromium sqlite3 perl

.PHONY: test-wasm bench-wasm

test-wasm: deps
	@$(MAKE) -s deps DEB_PACKAGES="$(WASM_TEST_PACKAGES)"
	$(MAKE) --no-print-directory bloom.so
	$(MAKE) --no-print-directory wasm
	$(MAKE) --no-print-directory $(NPM_WASM_TGZ)
	BLOOM_SO=$(CURDIR)/bloom.so BLOOM_WASM_DIR=$(CURDIR)/$(WASM) \
	BLOOM_VERSION=$(VERSION) BLOOM_NPM_WASM=$(CURDIR)/$(NPM_WASM_TGZ) $(DIST_LINKS) \
	    $(PROVE) tests/wasm/node.t tests/wasm/browser.t tests/wasm/package.t

bench-wasm: deps
	$(MAKE) --no-print-directory bloom.so
	$(MAKE) --no-print-directory wasm
	BLOOM_SO=$(CURDIR)/bloom.so BLOOM_WASM_DIR=$(CURDIR)/$(WASM) node tests/bench/wasm.js
