# make wasm: SQLite compiled to WebAssembly with the extension linked in,
# and its JavaScript API: build/wasm/sqlite-bloom.{js,wasm}.  make
# dist-wasm: the npm package sqlite-bloom-wasm-$(VERSION).tgz in
# build/dist/, packed offline (ext/packaging/npm-wasm.sh).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
# Everything comes from a registry, pinned and checked by SHA-256:
#   - the SQLite amalgamation: deps/sqlite3/ of npm's better-sqlite3 tarball
#     (fetched with `npm pack`, never installed), SQLite 3.54.1;
#   - MurmurHash3: Debian's libmurmurhash source (the upstream tarball of
#     its 1.6-1 source package, from Debian's pool: the one this archive
#     serves; its murmurhash.h is bookworm's 1.5's byte for byte), compiled
#     with emcc into build/wasm/libmurmurhash.a;
#   - the compiler: Debian's emscripten (3.1.6), with its prebuilt system
#     libraries; it runs its JavaScript passes with node-acorn, found
#     through NODE_PATH when Node.js is not Debian's.
# Nothing else of the build needs these: `make`, `make test` and `make
# dist` build and run as before without emscripten.
WASM            = $(BUILD)/wasm
WASM_JS         = $(WASM)/sqlite-bloom.js
WASM_BIN        = $(WASM)/sqlite-bloom.wasm
WASM_PACKAGES   = emscripten
NPM_WASM_TGZ    = $(DIST)/sqlite-bloom-wasm-$(VERSION).tgz
EMCC            = NODE_PATH=/usr/share/nodejs emcc
EMAR            = emar

SQLITE_NPM        = better-sqlite3
SQLITE_NPM_VER    = 13.2.0
SQLITE_NPM_SHA256 = 40487589df3496f2ee0079d22b73c63fccebe7db0e8ee9a2c42421861e321e0b
MURMUR_SRC_VER    = 1.6
MURMUR_SRC_URL    = http://deb.debian.org/debian/pool/main/libm/libmurmurhash/libmurmurhash_$(MURMUR_SRC_VER).orig.tar.gz
MURMUR_SRC_SHA256 = a19a92769e3bf022d86a0715f2ac7ed535c853952b80de522e8430e0bab35c3b

# SQLite for a page: no loadable extensions (the extension is linked in),
# one thread, temporary tables in memory, and SQLite's recommended options.
WASM_SQLITE_DEFS = -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_THREADSAFE=0 \
    -DSQLITE_TEMP_STORE=3 -DSQLITE_DQS=0 -DSQLITE_DEFAULT_MEMSTATUS=0 \
    -DSQLITE_OMIT_DEPRECATED -DSQLITE_OMIT_SHARED_CACHE \
    -DSQLITE_ENABLE_MATH_FUNCTIONS
WASM_CFLAGS = -O2
WASM_SRC    = $(WASM)/src

# What JavaScript calls: SQLite's C API, the heap's allocator, the init.
WASM_EXPORTS = bloom_wasm_init malloc free sqlite3_libversion sqlite3_open_v2 \
    sqlite3_close_v2 sqlite3_errmsg sqlite3_changes sqlite3_prepare_v2 \
    sqlite3_step sqlite3_reset sqlite3_finalize sqlite3_bind_parameter_index \
    sqlite3_bind_null sqlite3_bind_int64 sqlite3_bind_double sqlite3_bind_text \
    sqlite3_bind_blob sqlite3_column_count sqlite3_column_name \
    sqlite3_column_type sqlite3_column_int64 sqlite3_column_double \
    sqlite3_column_text sqlite3_column_blob sqlite3_column_bytes
wasm_comma := ,
wasm_empty :=
wasm_space := $(wasm_empty) $(wasm_empty)
WASM_EXPORT_LIST = [$(subst $(wasm_space),$(wasm_comma),$(patsubst %,'_%',$(WASM_EXPORTS)))]

# A module factory (createBloomModule) for browsers, workers and Node.js,
# its memory growing as filters do; 64-bit integers as BigInt; in Node.js
# it leaves the process's exit and rejection handlers alone.
WASM_LDFLAGS = -O2 -sMODULARIZE=1 -sEXPORT_NAME=createBloomModule \
    -sENVIRONMENT=web,worker,node -sALLOW_MEMORY_GROWTH=1 -sWASM_BIGINT=1 \
    -sNODEJS_CATCH_EXIT=0 -sNODEJS_CATCH_REJECTION=0 \
    -sEXPORTED_FUNCTIONS="$(WASM_EXPORT_LIST)"

WASM_EXT_OBJS = $(patsubst ext/%.c,$(WASM)/obj/%.o,$(CORE_SRC) $(SQL_SRC) ext/wasm/bloom_wasm.c)
WASM_MURMUR_OBJS = $(WASM)/obj/murmur/PMurHash.o $(WASM)/obj/murmur/murmurhash.o

.PHONY: wasm wasm-deps dist-wasm

wasm: wasm-deps
	$(MAKE) --no-print-directory -j$(NPROC) $(WASM_JS)

# deps's pattern: installs emscripten as root, else names it; npm (for
# `npm pack`) as dist-deps finds it.
wasm-deps:
	@$(MAKE) -s deps DEB_PACKAGES="$(WASM_PACKAGES)"
	@command -v npm >/dev/null 2>&1 || $(MAKE) -s deps DEB_PACKAGES="nodejs npm"

# --- the sources, fetched once and checked --------------------------------
$(WASM_SRC)/$(SQLITE_NPM)-$(SQLITE_NPM_VER).tgz:
	@mkdir -p $(@D)
	cd $(@D) && npm pack --silent $(SQLITE_NPM)@$(SQLITE_NPM_VER) >/dev/null
	echo "$(SQLITE_NPM_SHA256)  $@" | sha256sum -c --quiet || { rm -f $@; exit 1; }

$(WASM_SRC)/sqlite3/sqlite3.c: $(WASM_SRC)/$(SQLITE_NPM)-$(SQLITE_NPM_VER).tgz
	rm -rf $(@D) && mkdir -p $(@D)
	tar -xzf $< -C $(@D) --strip-components=3 \
	    package/deps/sqlite3/sqlite3.c package/deps/sqlite3/sqlite3.h \
	    package/deps/sqlite3/sqlite3ext.h
	touch $@

# apt's own downloader (in every Debian system) checks the hash.
$(WASM_SRC)/libmurmurhash_$(MURMUR_SRC_VER).orig.tar.gz:
	@mkdir -p $(@D)
	/usr/lib/apt/apt-helper -qq download-file $(MURMUR_SRC_URL) $@.part \
	    SHA256:$(MURMUR_SRC_SHA256) 2>&1 | grep -v '^W: Download is performed unsandboxed' || true
	echo "$(MURMUR_SRC_SHA256)  $@.part" | sha256sum -c --quiet
	mv $@.part $@

$(WASM_SRC)/libmurmurhash/murmurhash.c: $(WASM_SRC)/libmurmurhash_$(MURMUR_SRC_VER).orig.tar.gz
	rm -rf $(@D) && mkdir -p $(@D)
	tar -xzf $< -C $(@D) --strip-components=1
	touch $@

# --- the objects ------------------------------------------------------------
$(WASM)/obj/sqlite3.o: $(WASM_SRC)/sqlite3/sqlite3.c
	@mkdir -p $(@D)
	$(EMCC) $(WASM_CFLAGS) $(WASM_SQLITE_DEFS) -c -o $@ $<

# libmurmurhash's two sources, as its Makefile.am builds the library (its
# endianness macros repeat the values emscripten's headers define).
$(WASM)/obj/murmur/%.o: $(WASM_SRC)/libmurmurhash/murmurhash.c
	@mkdir -p $(@D)
	$(EMCC) $(WASM_CFLAGS) -Wno-macro-redefined -c -o $@ $(WASM_SRC)/libmurmurhash/$*.c

$(WASM)/libmurmurhash.a: $(WASM_MURMUR_OBJS)
	rm -f $@
	$(EMAR) rcs $@ $^

# The extension as the static tests build it (-DSQLITE_CORE), against the
# amalgamation's sqlite3.h and the Debian source's murmurhash.h.
$(WASM)/obj/%.o: ext/%.c $(HEADERS) $(WASM_SRC)/sqlite3/sqlite3.c \
                 $(WASM_SRC)/libmurmurhash/murmurhash.c
	@mkdir -p $(@D)
	$(EMCC) $(STD) $(WASM_CFLAGS) $(WARNINGS) -DSQLITE_CORE -Iext \
	    -I$(WASM_SRC)/sqlite3 -I$(WASM_SRC)/libmurmurhash -c -o $@ $<

$(WASM_JS): $(WASM)/obj/sqlite3.o $(WASM_EXT_OBJS) $(WASM)/libmurmurhash.a \
            ext/wasm/api.js ext/wasm/sqlite-bloom.d.ts ext/packaging/wasm.mk
	$(EMCC) $(WASM_LDFLAGS) --extern-post-js ext/wasm/api.js -o $@ \
	    $(WASM)/obj/sqlite3.o $(WASM_EXT_OBJS) $(WASM)/libmurmurhash.a
	cp ext/wasm/sqlite-bloom.d.ts $(WASM)/

$(WASM_BIN): $(WASM_JS)

# --- the npm package --------------------------------------------------------
dist-wasm: wasm
	$(MAKE) --no-print-directory $(NPM_WASM_TGZ)

$(NPM_WASM_TGZ): $(WASM_JS) ext/wasm/sqlite-bloom.d.ts ext/wasm/README.md \
                 ext/packaging/copyright ext/packaging/npm-wasm.sh $(DIST)/settings
	@mkdir -p $(@D)
	$(DIST_ENV) sh ext/packaging/npm-wasm.sh $(DIST)/npm-wasm $@ $(VERSION) $(WASM)
