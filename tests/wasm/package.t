#!/bin/sh
# The WebAssembly build's npm package (make dist-wasm; make test-wasm sets
# BLOOM_VERSION and BLOOM_NPM_WASM).  Prints TAP.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
# - the package is sqlite-bloom-wasm-VERSION.tgz; it holds package.json,
#   sqlite-bloom.js, sqlite-bloom.wasm, sqlite-bloom.d.ts, README.md and
#   LICENSE under package/, nothing else; package.json names it, VERSION,
#   the license "SEE LICENSE IN LICENSE", main and types; LICENSE is
#   ext/packaging/copyright;
# - `npm install --offline` of the tarball into a fresh project installs
#   it; there require('sqlite-bloom-wasm').init() opens a database that
#   answers bloom_version() = VERSION and a Bloom filter's probes.
cd "$(dirname "$0")/../.." || exit 1
repo=$(pwd)
version=${BLOOM_VERSION:?run through make test-wasm}
tgz=${BLOOM_NPM_WASM:?run through make test-wasm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$repo/tests/lib/tap.sh"

[ "$(basename "$tgz")" = "sqlite-bloom-wasm-$version.tgz" ] && [ -s "$tgz" ]
check $? "the package is sqlite-bloom-wasm-$version.tgz"
tar -tzf "$tgz" | sort >"$tmp/list"
printf 'package/%s\n' LICENSE README.md package.json sqlite-bloom.d.ts sqlite-bloom.js \
  sqlite-bloom.wasm >"$tmp/want"
cmp -s "$tmp/list" "$tmp/want"
check $? "it holds package.json, the .js, .wasm and .d.ts, README.md and LICENSE, nothing else" \
  "$(diff "$tmp/want" "$tmp/list")"
mkdir "$tmp/unpacked"
tar -xzf "$tgz" -C "$tmp/unpacked"
p=$tmp/unpacked/package
fields=$(node -e '
  const p = require(process.argv[1]);
  console.log([p.name, p.version, p.license, p.main, p.types].join("|"));
' "$p/package.json" 2>&1)
[ "$fields" = "sqlite-bloom-wasm|$version|SEE LICENSE IN LICENSE|sqlite-bloom.js|sqlite-bloom.d.ts" ]
check $? "package.json: sqlite-bloom-wasm $version, license in LICENSE, main and types (got: $fields)"
links=$(node -e '
  const p = require(process.argv[1]);
  console.log([p.homepage, p.repository && p.repository.url, p.bugs && p.bugs.url].join("|"));
' "$p/package.json" 2>&1)
[ "$links" = "${BLOOM_HOMEPAGE:?}|${BLOOM_REPOSITORY:?}|${BLOOM_ISSUES:?}" ]
check $? "package.json names the project's links as make dist gives them (got: $links)"
cmp -s "$p/LICENSE" ext/packaging/copyright
check $? "its LICENSE is ext/packaging/copyright"

app=$tmp/app
mkdir "$app"
printf '{ "name": "app", "version": "1.0.0", "private": true }\n' >"$app/package.json"
(cd "$app" && npm install --offline --no-audit --no-fund --silent "$tgz") >"$tmp/npm.out" 2>&1
said=$(node -p 'require(process.argv[1]).version' \
  "$app/node_modules/sqlite-bloom-wasm/package.json" 2>&1)
[ "$said" = "$version" ]
check $? "npm install --offline into a fresh project installs sqlite-bloom-wasm $version (got '$said')" \
  "$(tail -n 10 "$tmp/npm.out")"

# From the project's directory, as an application requires it: a filter of
# 1..1000 built and probed with its members (all present) and 1001..21000
# (at most 1% present).
got=$(cd "$app" && node -e '
  require("sqlite-bloom-wasm").init().then((sqlite) => {
    const db = sqlite.open();
    const v = db.all("SELECT bloom_version() AS v")[0].v;
    db.exec("CREATE TABLE t(x)");
    const add = db.prepare("INSERT INTO t VALUES (?)");
    for (let i = 1; i <= 1000; i++) add.run([i]);
    add.finalize();
    const f = db.all("SELECT bloom_build(x, 1000, 0.01) AS f FROM t")[0].f;
    const probe = db.prepare("SELECT bloom_test(:f, :v) AS hit");
    let missed = 0, present = 0;
    for (let i = 1; i <= 1000; i++) if (probe.all({ f, v: i })[0].hit !== 1) missed++;
    for (let i = 1001; i <= 21000; i++) if (probe.all({ f, v: i })[0].hit === 1) present++;
    db.close();
    console.log([v, missed, present <= 200 ? "ok" : present].join("|"));
  }).catch((e) => { console.log(String(e)); });
' 2>&1)
[ "$got" = "$version|0|ok" ]
check $? "require('sqlite-bloom-wasm').init() there: bloom_version() $version, no member missed, at most 1% of others present (got '$got')"

echo "1..$n"
exit "$failed"
