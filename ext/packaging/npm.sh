#!/bin/sh
# The npm package of make dist, packed offline with `npm pack`:
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   npm.sh STAGE OUT.tgz VERSION BLOOM_SO
#
# STAGE is made anew as the package's tree:
#
#   package.json          written here: name sqlite-bloom, VERSION, the
#                         license "SEE LICENSE IN LICENSE", the project's
#                         links (homepage, repository, bugs: BLOOM_HOMEPAGE,
#                         BLOOM_REPOSITORY, BLOOM_ISSUES in the
#                         environment), and the os and cpu the module was
#                         built for
#   index.js, index.d.ts  getLoadablePath() and load(db), from
#   README.md             ext/packaging/npm/
#   LICENSE               ext/packaging/copyright
#   bloom.so              the module, stripped
#
# npm pack dates every entry alike, so the same commit gives the same
# bytes.  The package must come out named as OUT.tgz.  Run from the
# project root.
set -eu
[ $# = 4 ] || { echo "usage: $0 STAGE OUT.tgz VERSION BLOOM_SO" >&2; exit 2; }
stage=$1 out=$2 version=$3 so=$4
for url in "${BLOOM_HOMEPAGE:?}" "${BLOOM_REPOSITORY:?}" "${BLOOM_ISSUES:?}"; do
  printf '%s\n' "$url" | grep -Eqx 'https?://[^[:space:]"\\]+' ||
    { echo "npm.sh: not a URL: $url" >&2; exit 2; }
done
umask 022
root=$(pwd)
case "$out" in /*) ;; *) out=$root/$out ;; esac

rm -rf "$stage"
install -d "$stage/package" "$stage/packed"
pkg=$stage/package
install -m 644 ext/packaging/npm/index.js ext/packaging/npm/index.d.ts \
  ext/packaging/npm/README.md "$pkg/"
install -m 644 ext/packaging/copyright "$pkg/LICENSE"
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
  -o "$pkg/bloom.so" "$so"
chmod 644 "$pkg/bloom.so"

cpu=$(node -p process.arch)
cat >"$pkg/package.json" <<JSON
{
  "name": "sqlite-bloom",
  "version": "$version",
  "description": "Bloom and cuckoo filters for SQLite: the bloom extension, with getLoadablePath() and load(db)",
  "keywords": ["sqlite", "sqlite-extension", "bloom-filter", "cuckoo-filter"],
  "license": "SEE LICENSE IN LICENSE",
  "homepage": "$BLOOM_HOMEPAGE",
  "repository": { "type": "git", "url": "$BLOOM_REPOSITORY" },
  "bugs": { "url": "$BLOOM_ISSUES" },
  "main": "index.js",
  "types": "index.d.ts",
  "files": ["index.js", "index.d.ts", "bloom.so", "README.md", "LICENSE"],
  "os": ["linux"],
  "cpu": ["$cpu"]
}
JSON

(cd "$pkg" && npm pack --offline --silent --pack-destination ../packed \
   >../pack.log 2>&1) || { cat "$stage/pack.log" >&2; exit 1; }
packed=$(ls "$stage/packed")
[ "$packed" = "$(basename "$out")" ] ||
  { echo "npm.sh: npm pack made '$packed', not $(basename "$out")" >&2; exit 1; }
mv "$stage/packed/$packed" "$out"
