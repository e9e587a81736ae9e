#!/bin/sh
# make dist-native again gives the same bytes, and takes the project's links from
# the make command line (make test-dist sets BLOOM_VERSION, BLOOM_TARBALL,
# BLOOM_DEB_MOD, BLOOM_DEB_DEV, BLOOM_WHEEL, BLOOM_NPM).  Prints TAP.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
# - at least a second after make test-dist's own, `make dist-native DIST=<another
#   folder>` builds every package anew (the static library too, and every
#   staging tree) from the same commit: each of the five files is byte for
#   byte the one make test-dist checks, although each was written at
#   another time;
# - `make dist-native` into that folder again with other BLOOM_HOMEPAGE,
#   BLOOM_REPOSITORY and BLOOM_ISSUES rebuilds the Debian packages, the
#   wheel and the npm package, and each now carries the new links.
cd "$(dirname "$0")/../.." || exit 1
repo=$(pwd)
: "${BLOOM_VERSION:?run through make test-dist}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$repo/tests/lib/tap.sh"
files="${BLOOM_TARBALL:?} ${BLOOM_DEB_MOD:?} ${BLOOM_DEB_DEV:?} ${BLOOM_WHEEL:?} ${BLOOM_NPM:?}"
again=$tmp/dist

# As a user runs it: not as a sub-make of make test-dist's.
remake() {
  env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s dist-native DIST="$again" "$@" \
    >"$tmp/make.out" 2>&1
}

sleep 1
remake
check $? "make dist-native DIST=<another folder> builds every package again" "$(tail -n 10 "$tmp/make.out")"
for f in $files; do
  name=$(basename "$f")
  newer=$(find "$again/$name" -newer "$f" 2>/dev/null)
  [ -n "$newer" ] && cmp -s "$f" "$again/$name"
  check $? "$name, written a second or more later, is byte for byte the same" \
    "$(ls -l --time-style=+%s "$f" "$again/$name" 2>&1)"
done

home=https://elsewhere.invalid/bloom/
repository=https://elsewhere.invalid/bloom.git
issues=https://elsewhere.invalid/bloom/issues
remake BLOOM_HOMEPAGE=$home BLOOM_REPOSITORY=$repository BLOOM_ISSUES=$issues
check $? "make dist-native BLOOM_HOMEPAGE=$home BLOOM_REPOSITORY=... BLOOM_ISSUES=... into that folder" \
  "$(tail -n 10 "$tmp/make.out")"
for f in $BLOOM_DEB_MOD $BLOOM_DEB_DEV; do
  said=$(dpkg-deb -f "$again/$(basename "$f")" Homepage 2>&1)
  [ "$said" = "$home" ]
  check $? "$(basename "$f") was rebuilt with Homepage: $home (got '$said')"
done
said=$(/usr/bin/python3 - "$again/$(basename "$BLOOM_WHEEL")" <<'PY' 2>&1 | tr '\n' '|'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    for line in z.read(meta).decode().splitlines():
        if line.startswith(("Home-page: ", "Project-URL: ")):
            print(line)
PY
)
[ "$said" = "Home-page: $home|Project-URL: Homepage, $home|Project-URL: Source, $repository|Project-URL: Issues, $issues|" ]
check $? "the wheel was rebuilt with them as Home-page and Project-URL (got '$said')"
mkdir "$tmp/npm"
tar -xzf "$again/$(basename "$BLOOM_NPM")" -C "$tmp/npm" package/package.json 2>/dev/null
said=$(node -e '
  const p = require(process.argv[1]);
  console.log([p.homepage, p.repository.type, p.repository.url, p.bugs.url].join("|"));
' "$tmp/npm/package/package.json" 2>&1)
[ "$said" = "$home|git|$repository|$issues" ]
check $? "the npm package was rebuilt with them as homepage, repository and bugs (got '$said')"

echo "1..$n"
exit $failed
