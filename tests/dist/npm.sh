#!/bin/sh
# make dist's npm package (make test-dist sets BLOOM_VERSION, BLOOM_NPM and
# the project's links, BLOOM_HOMEPAGE, BLOOM_REPOSITORY and BLOOM_ISSUES).
# Prints TAP.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
# - the package is sqlite-bloom-VERSION.tgz; it holds package.json,
#   index.js, index.d.ts, README.md, LICENSE and the module bloom.so under
#   package/, nothing else; package.json says sqlite-bloom VERSION, the
#   license "SEE LICENSE IN LICENSE", this os and cpu, and the project's
#   links as homepage, repository (git) and bugs; LICENSE is
#   ext/packaging/copyright; its module answers VERSION;
# - `npm install --offline` of the tarball into a fresh project directory
#   installs sqlite-bloom VERSION; there getLoadablePath() is the installed
#   module, which the sqlite3 shell loads, and load(db) loads it into each
#   driver at hand: node:sqlite when this Node has it (22.13 and later) or
#   make test-hosts has installed a Node 22 (build/hosts/node22/),
#   better-sqlite3 and node-sqlite3 when make test-hosts has installed them
#   (in build/hosts/node/); a driver missing is a TAP skip saying why.
cd "$(dirname "$0")/../.." || exit 1
repo=$(pwd)
version=${BLOOM_VERSION:?run through make test-dist}
tgz=${BLOOM_NPM:?run through make test-dist}
case "$tgz" in /*) ;; *) tgz=$repo/$tgz ;; esac
drivers=$repo/build/hosts/node/node_modules
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$repo/tests/lib/tap.sh"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "1..0 # SKIP no node and npm here (Debian packages nodejs and npm); make dist needs them"
  exit 0
fi

# --- the package, as a file --------------------------------------------------
[ "$(basename "$tgz")" = "sqlite-bloom-$version.tgz" ] && [ -s "$tgz" ]
check $? "the package is sqlite-bloom-$version.tgz"
tar -tzf "$tgz" | sort >"$tmp/list"
printf 'package/%s\n' LICENSE README.md bloom.so index.d.ts index.js package.json >"$tmp/want"
cmp -s "$tmp/list" "$tmp/want"
check $? "it holds package.json, index.js, index.d.ts, README.md, LICENSE and bloom.so, nothing else" \
  "$(diff "$tmp/want" "$tmp/list")"
mkdir "$tmp/unpacked"
tar -xzf "$tgz" -C "$tmp/unpacked"
p=$tmp/unpacked/package
arch=$(node -p process.arch)
fields=$(node -e '
  const p = require(process.argv[1]);
  console.log([p.name, p.version, p.license, p.main, p.os.join(","), p.cpu.join(",")].join("|"));
' "$p/package.json" 2>&1)
[ "$fields" = "sqlite-bloom|$version|SEE LICENSE IN LICENSE|index.js|linux|$arch" ]
check $? "package.json: sqlite-bloom $version, license in LICENSE, main index.js, linux $arch (got: $fields)"
fields=$(node -e '
  const p = require(process.argv[1]);
  console.log([p.homepage, p.repository.type, p.repository.url, p.bugs.url].join("|"));
' "$p/package.json" 2>&1)
[ "$fields" = "${BLOOM_HOMEPAGE:?}|git|${BLOOM_REPOSITORY:?}|${BLOOM_ISSUES:?}" ]
check $? "package.json links the project: homepage, repository (git), bugs (got: $fields)"
cmp -s "$p/LICENSE" ext/packaging/copyright
check $? "its LICENSE is ext/packaging/copyright"
got=$(cd "$tmp" && sqlite3 :memory: ".load $p/bloom" "SELECT bloom_version();" 2>&1)
[ "$got" = "$version" ]
check $? "its module answers bloom_version() = $version in the sqlite3 shell (got '$got')"

# --- installed into a fresh project ------------------------------------------
app=$tmp/app
mkdir "$app"
printf '{ "name": "app", "version": "1.0.0", "private": true }\n' >"$app/package.json"
(cd "$app" && npm install --offline --no-audit --no-fund --silent "$tgz") >"$tmp/npm.out" 2>&1
said=$(node -p 'require(process.argv[1]).version' "$app/node_modules/sqlite-bloom/package.json" 2>&1)
[ "$said" = "$version" ]
check $? "npm install --offline of the tarball into a fresh project installs sqlite-bloom $version (got '$said')" \
  "$(tail -n 10 "$tmp/npm.out")"
got=$(cd "$app" && node -p 'require("sqlite-bloom").getLoadablePath()' 2>&1)
[ "$got" = "$app/node_modules/sqlite-bloom/bloom.so" ]
check $? "getLoadablePath() is the installed module, suffix included (got '$got')"
got=$(cd "$tmp" && sqlite3 :memory: "SELECT load_extension('$app/node_modules/sqlite-bloom/bloom.so');" \
        "SELECT bloom_version();" 2>&1 | tail -n 1)
[ "$got" = "$version" ]
check $? "the sqlite3 shell loads that path: bloom_version() = $version (got '$got')"

# load(db) into each driver, from the project: one process per driver (the
# extension loads into one SQLite library per process).
cat >"$app/use.js" <<'JS'
const bloom = require('sqlite-bloom');
const [driver, version] = process.argv.slice(2);
const sql = 'SELECT bloom_version() AS v, bloom_test(bloom_add(bloom_empty(100), 42), 42) AS t';
const done = (row) => {
  const ok = row.v === version && row.t === 1;
  console.log(`${ok ? 'ok' : 'not ok'} - ${driver}: load(db), then bloom_version() = ${row.v}, a member found: ${row.t}`);
};
if (driver === 'better-sqlite3') {
  const db = new (require('better-sqlite3'))(':memory:');
  bloom.load(db);
  done(db.prepare(sql).get());
} else if (driver === 'node:sqlite') {
  const { DatabaseSync } = require('node:sqlite');
  const db = new DatabaseSync(':memory:', { allowExtension: true });
  bloom.load(db);
  done(db.prepare(sql).get());
} else {
  const sqlite3 = require('sqlite3');
  const db = new sqlite3.Database(':memory:');
  bloom.load(db).then(() => db.get(sql, (err, row) => {
    if (err) throw err;
    done(row);
  }));
}
JS
# node:sqlite: this Node's, or the Node 22 make test-hosts installs.
sqlite_node=node
node22=$repo/build/hosts/node22/node_modules/.bin/node
[ -x "$node22" ] && sqlite_node=$node22
has_node_sqlite=$("$sqlite_node" -e '
  try { const s = require("node:sqlite"); console.log(typeof s.DatabaseSync.prototype.loadExtension === "function" ? "yes" : "no"); }
  catch (e) { console.log("no"); }' 2>/dev/null)
for driver in node:sqlite better-sqlite3 sqlite3; do
  run=node
  if [ "$driver" = node:sqlite ]; then
    if [ "$has_node_sqlite" != yes ]; then
      skip 1 "node:sqlite with loadExtension needs Node.js 22.13 or later (this is $(node --version); make test-hosts installs one)"
      continue
    fi
    run=$sqlite_node
  elif [ ! -d "$drivers/$driver" ]; then
    skip 1 "the npm package $driver is not in build/hosts/node (make test-hosts installs it)"
    continue
  fi
  out=$(cd "$app" && NODE_PATH=$drivers "$run" --no-warnings use.js "$driver" "$version" 2>&1)
  case "$out" in
    "ok - "*) check 0 "${out#ok - } ($("$run" --version))" ;;
    *) check 1 "$driver: load(db) from the installed package" "$out" ;;
  esac
done

echo "1..$n"
exit $failed
