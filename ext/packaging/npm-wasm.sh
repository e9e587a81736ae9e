#!/bin/sh
# The npm package of the WebAssembly build (make dist-wasm), packed offline
# with `npm pack`:
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   npm-wasm.sh STAGE OUT.tgz VERSION WASM_DIR
#
# STAGE is made anew as the package's tree:
#
#   package.json          written here: name sqlite-bloom-wasm, VERSION,
#                         the license "SEE LICENSE IN LICENSE", the
#                         project's links (BLOOM_HOMEPAGE, BLOOM_REPOSITORY,
#                         BLOOM_ISSUES, as make dist gives them to npm.sh);
#                         no os or cpu (WebAssembly runs anywhere)
#   sqlite-bloom.js       the module's loader and the API, and
#   sqlite-bloom.wasm     SQLite with the extension, from WASM_DIR
#   sqlite-bloom.d.ts     the API's types, from ext/wasm/
#   README.md             ext/wasm/README.md
#   LICENSE               ext/packaging/copyright
#
# npm pack dates every entry alike, so the same build gives the same
# bytes.  The package must come out named as OUT.tgz.  Run from the
# project root.
set -eu
[ $# = 4 ] || { echo "usage: $0 STAGE OUT.tgz VERSION WASM_DIR" >&2; exit 2; }
stage=$1 out=$2 version=$3 wasm=$4
: "${BLOOM_HOMEPAGE:?}" "${BLOOM_REPOSITORY:?}" "${BLOOM_ISSUES:?}"
umask 022
root=$(pwd)
case "$out" in /*) ;; *) out=$root/$out ;; esac

rm -rf "$stage"
install -d "$stage/package" "$stage/packed"
pkg=$stage/package
install -m 644 "$wasm/sqlite-bloom.js" "$wasm/sqlite-bloom.wasm" \
  ext/wasm/sqlite-bloom.d.ts ext/wasm/README.md "$pkg/"
install -m 644 ext/packaging/copyright "$pkg/LICENSE"

cat >"$pkg/package.json" <<JSON
{
  "name": "sqlite-bloom-wasm",
  "version": "$version",
  "description": "SQLite compiled to WebAssembly with the bloom extension (Bloom and cuckoo filters) linked in, for browsers and Node.js",
  "keywords": ["sqlite", "wasm", "webassembly", "bloom-filter", "cuckoo-filter"],
  "license": "SEE LICENSE IN LICENSE",
  "homepage": "$BLOOM_HOMEPAGE",
  "repository": { "type": "git", "url": "$BLOOM_REPOSITORY" },
  "bugs": { "url": "$BLOOM_ISSUES" },
  "main": "sqlite-bloom.js",
  "browser": "sqlite-bloom.js",
  "types": "sqlite-bloom.d.ts",
  "files": ["sqlite-bloom.js", "sqlite-bloom.wasm", "sqlite-bloom.d.ts", "README.md", "LICENSE"]
}
JSON

(cd "$pkg" && npm pack --offline --silent --pack-destination ../packed \
   >../pack.log 2>&1) || { cat "$stage/pack.log" >&2; exit 1; }
packed=$(ls "$stage/packed")
[ "$packed" = "$(basename "$out")" ] ||
  { echo "npm-wasm.sh: npm pack made '$packed', not $(basename "$out")" >&2; exit 1; }
mv "$stage/packed/$packed" "$out"
