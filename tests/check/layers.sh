#!/bin/sh
# The layers of ext/, checked from the file list and the #include lines, so
# that no arrow points up:
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   core/       plain C: includes nothing of SQLite and no other layer
#   functions/  the SQL functions: includes core/ and functions/ only
#   store/      virtual tables that store data: core/, functions/, store/
#   dqlite/     the dqlite node: reaches the extension only through
#               sqlite3_bloom_init (includes dqlite/ only, no header of
#               core/, functions/ or store/)
#   wasm/       the WebAssembly build's C side: as dqlite/, through
#               sqlite3_bloom_init only (includes wasm/ only)
#   bloom_ext.c the entry point: may include any layer, and
#               sqlite3_bloom.h, the public header (version, entry point)
#
# Every .c and .h file under ext/ must belong to one of these: a file in
# another folder fails the check rather than being skipped.  Prints TAP.
cd "$(dirname "$0")/../.." || exit 1

. tests/lib/tap.sh

# The layer a file belongs to, by its folder; empty if none.
layer_of() {
  case "$1" in
    ext/bloom_ext.c|ext/sqlite3_bloom.h) echo entry ;;
    ext/core/*) echo core ;;
    ext/functions/*) echo functions ;;
    ext/store/*) echo store ;;
    ext/dqlite/*) echo dqlite ;;
    ext/wasm/*) echo wasm ;;
  esac
}

# Which quoted includes a layer may use ("" = none of the extension's).
allowed() {
  case "$1" in
    core) echo 'core/' ;;
    functions) echo 'core/ functions/' ;;
    store) echo 'core/ functions/ store/' ;;
    dqlite) echo 'dqlite/' ;;
    wasm) echo 'wasm/' ;;
    entry) echo 'core/ functions/ store/ sqlite3_bloom.h' ;;
  esac
}

files=$(find ext -name '*.c' -o -name '*.h' | sort)
check "$([ -n "$files" ] && echo 0 || echo 1)" "ext/ holds C sources"

stray=""
for f in $files; do
  [ -n "$(layer_of "$f")" ] || stray="$stray $f"
done
check "$([ -z "$stray" ] && echo 0 || echo 1)" \
  "every C file under ext/ is in a layer's folder" "outside every layer:$stray"

for layer in core functions store dqlite wasm entry; do
  bad=""
  count=0
  for f in $files; do
    [ "$(layer_of "$f")" = "$layer" ] || continue
    count=$((count + 1))
    # Quoted includes must name an allowed folder; the core may not include
    # SQLite's headers at all, in either form.
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
      ok=1
      for prefix in $(allowed "$layer"); do
        case "$inc" in "$prefix"*) ok=0 ;; esac
      done
      [ "$ok" = 0 ] || bad="$bad $f:\"$inc\""
    done
    if [ "$layer" = core ] &&
       grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]sqlite3' "$f" >/dev/null; then
      bad="$bad $f:<sqlite3...>"
    fi
  done
  [ "$count" -gt 0 ] || [ "$layer" = store ] || [ "$layer" = dqlite ] || [ "$layer" = wasm ] ||
    bad=" (no file in this layer)"
  check "$([ -z "$bad" ] && echo 0 || echo 1)" \
    "$layer: $count files include only $(allowed "$layer" | sed 's/^$/nothing of the extension/')" \
    "not allowed:$bad"
done

echo "1..$n"
exit $failed
