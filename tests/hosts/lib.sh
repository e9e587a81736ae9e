# Sourced by the host tests, tests/hosts/*.t (make test-hosts), from any
# directory.  Each test runs one scenario, the same in every host, through
# the host's own API and parameter binding, and prints TAP:
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   1. load BLOOM_SO the host's way; bloom_version() is VERSION;
#   2. a BLOB filter: bloom_build over 1..1000 for n = 1000, p = 0.01 comes
#      back as the host's bytes type, 1344 bytes long, and bloom_test with
#      it bound back finds 42 and not 4242 (bound as host integers);
#   3. a store kept by a trigger: items(id INTEGER PRIMARY KEY), a
#      bloom_store(capacity = 1000, fpr = 0.01) `seen`, a second one
#      `typed` with affinity = INTEGER, and an AFTER INSERT trigger adding
#      NEW.id to both; ids 1..100 inserted bound as host integers in one
#      transaction; each probed in `seen` (EXISTS ... WHERE value = ?)
#      bound as a host integer is found, and fewer than 10 of 1001..1100 are;
#   4. numbers as text: what the host binds its integer 12345 and its text
#      '12345' as (typeof(?)), recorded as a TAP comment and checked; the
#      id '12345' bound as text is stored as the integer 12345 (the
#      column's affinity); in `seen`, a store without affinity, a probe
#      bound as text '12345' does not find it (a TAP TODO: such a store
#      compares values as stored) and one written CAST(? AS INTEGER) does;
#      in `typed` a probe bound as text '12345' finds it (the store applies
#      the column's affinity too), and ones bound as text 'abc' and '12346'
#      do not;
#   5. the export: SELECT filter FROM seen comes back as bytes equal to
#      bloom_build(id, 1000, 0.01) over the table, and finds 12345;
#   6. quotient stores: `qgrow` a quotient_store(fpr = 0.01) and `qsized`
#      a quotient_store(capacity = 1000, fpr = 0.01), kept by an AFTER
#      INSERT trigger on events(id INTEGER PRIMARY KEY); qsized has 4
#      leaves once made (FORMAT.md: the least D with 1000 / 2^D <= 0.85 *
#      511, 511 entries a leaf at 4096-byte pages); ids 1..600 inserted
#      bound as host integers in one transaction split qgrow's one leaf
#      (more than 511); in each store, each id probed bound as a host
#      integer is found, fewer than 10 of 1001..1100 are; after DELETEs of
#      1..50 bound as host integers, 51..600 are all still found; SELECT
#      filter comes back as the host's bytes and, bound back,
#      quotient_info counts 550 items (more only by deleted ids that match
#      entries of several widths, which FORMAT.md lets a DELETE keep and
#      which the export then still finds) in as many leaves (blocks) as
#      the store's directory has rows, and quotient_test answers each of
#      1..1100 as the store does.
#
# This file gives them: repo (the project root), so (BLOOM_SO, absolute;
# default ./bloom.so), version (BLOOM_VERSION, default make version), tmp
# (a scratch directory, removed at exit), and
#   need_deb PKG...  every Debian package named is installed: missing ones
#                    are installed with apt-get as root; otherwise the test
#                    is skipped (TAP skip_all) naming them;
#   skip_all WHY     prints "1..0 # SKIP WHY" and exits;
#   fail_all WHY [LOG]  one failing test saying WHY (and LOG's tail).
cd "$(dirname "$0")/../.." || exit 1
repo=$(pwd)
so=${BLOOM_SO:-$repo/bloom.so}
case "$so" in /*) ;; *) so=$repo/$so ;; esac
# shellcheck disable=SC2034 # used by the tests that source this file
version=${BLOOM_VERSION:-$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory version)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C.UTF-8

skip_all() {
  echo "1..0 # SKIP $*"
  exit 0
}

fail_all() {
  echo "1..1"
  echo "not ok 1 - $1"
  [ -n "${2:-}" ] && [ -f "$2" ] && tail -n 15 "$2" | sed 's/^/#   /'
  exit 1
}

need_deb() {
  missing=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
      missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  [ "$(id -u)" = 0 ] ||
    skip_all "needs the Debian package(s)$missing (as root: apt-get install$missing)"
  # shellcheck disable=SC2086 # the names are words
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 \
      $missing >"$tmp/apt.out" 2>&1 ||
    { apt-get update -qq >>"$tmp/apt.out" 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 \
        $missing >>"$tmp/apt.out" 2>&1; } ||
    fail_all "apt-get install$missing failed" "$tmp/apt.out"
}

# need_node DRIVER: node and npm (as root, Debian's nodejs and npm are
# installed if there is no node; otherwise the test is skipped), and, for an
# npm DRIVER (better-sqlite3, sqlite3), the pinned npm packages in
# build/hosts/node/ (installed with npm when missing or when the pins
# change; they compile against Node's headers, a few minutes), found
# through NODE_PATH.
NODE_DRIVERS='"better-sqlite3": "12.11.1", "sqlite3": "6.0.1"'
need_node() {
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    need_deb nodejs npm
  fi
  NODE_PATH=$repo/build/hosts/node/node_modules
  export NODE_PATH
  case "$1" in node:*) return 0 ;; esac
  dir=$repo/build/hosts/node
  want="{ \"name\": \"bloom-hosts\", \"private\": true,
  \"dependencies\": { $NODE_DRIVERS },
  \"allowScripts\": { \"better-sqlite3\": true, \"sqlite3\": true } }"
  if [ "$(cat "$dir/package.json" 2>/dev/null)" != "$want" ] ||
     ! (cd "$tmp" && node -e "require('$1')") >/dev/null 2>&1; then
    mkdir -p "$dir"
    printf '%s\n' "$want" >"$dir/package.json"
    (cd "$dir" && npm install --no-audit --no-fund --no-package-lock) >"$tmp/npm.out" 2>&1 ||
      fail_all "npm install of $NODE_DRIVERS into build/hosts/node failed" "$tmp/npm.out"
  fi
}

# need_node22: a Node.js that has node:sqlite with loadExtension (22.13
# and later) in $node22: npm's node-linux-<arch> package, which carries
# Node.js itself, at a pinned version, installed into build/hosts/node22/
# when missing or when the pin changes (a 50 MB download, 185 MB unpacked;
# offline after that).  npm carries it for x86_64 and aarch64; elsewhere
# the test is skipped saying so.
NODE22_VERSION=22.23.3
need_node22() {
  if ! command -v npm >/dev/null 2>&1; then
    need_deb nodejs npm
  fi
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64) arch=arm64 ;;
    *) skip_all "npm carries no Node.js $NODE22_VERSION for $(uname -m) (node-linux-<arch>)" ;;
  esac
  dir=$repo/build/hosts/node22
  node22=$dir/node_modules/.bin/node
  [ "$("$node22" --version 2>/dev/null)" = "v$NODE22_VERSION" ] && return 0
  rm -rf "$dir"
  mkdir -p "$dir"
  (cd "$dir" && npm install --prefix . --no-audit --no-fund --no-package-lock \
     "node-linux-$arch@$NODE22_VERSION") >"$tmp/npm.out" 2>&1 &&
    [ "$("$node22" --version 2>/dev/null)" = "v$NODE22_VERSION" ] ||
    fail_all "npm install of node-linux-$arch@$NODE22_VERSION into build/hosts/node22 failed" \
      "$tmp/npm.out"
}

# TAP for the shell-script hosts: check <0 = pass> <name> [todo] prints one
# test; a failing one with a todo is a TAP TODO and does not count in
# $failed (the script's exit status).
n=0
failed=0
check() { # check <0 = pass> <name> [todo]
  n=$((n + 1))
  if [ "$1" = 0 ]; then r=ok; else r="not ok"; [ -n "${3:-}" ] || failed=1; fi
  echo "$r $n - $2${3:+ # TODO $3}"
}
