# make dqlite: build/bloom-dqlite-node, a dqlite node with the extension
# compiled in (objects built with -DSQLITE_CORE, as the static tests use).
# Nothing else depends on it: without libdqlite-dev, every other target
# builds and `make test` runs as before.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
DQLITE_NODE     = $(BUILD)/bloom-dqlite-node
DQLITE_SRC      = $(wildcard ext/dqlite/*.c)
DQLITE_PACKAGES = gcc make libsqlite3-dev libmurmurhash-dev libdqlite-dev

.PHONY: dqlite

# deps with this list: installs what is missing as root, else names it.
dqlite:
	$(MAKE) --no-print-directory deps DEB_PACKAGES="$(DQLITE_PACKAGES)"
	$(MAKE) --no-print-directory $(DQLITE_NODE)

$(DQLITE_NODE): $(DQLITE_SRC) $(wildcard ext/dqlite/*.h) $(call ext_objs,plain)
	@mkdir -p $(@D)
	$(CC) $(STD) -Iext -O2 -g $(WARNINGS) -o $@ $(DQLITE_SRC) \
	    $(call ext_objs,plain) $(MURMUR_A) -ldqlite -lsqlite3 -lpthread -lm
