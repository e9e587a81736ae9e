#!/bin/sh
# A smoke run of the use-case benchmark's driver (make bench-usecases) at
# 1,000 ids: it builds its databases in a scratch folder, runs every
# comparison once and checks every answer itself; it stops with an error
# when a store calls a processed id new, a table skips a new one, or the
# filtered and plain forms of a query disagree.  No timing is asserted.
# BLOOM_SO and BLOOM_PRELOAD as in tests/scripts.t.
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
cd "$(dirname "$0")/.." || exit 1
bin=build/bench/usecases
so=${BLOOM_SO:-./bloom.so}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "1..7"
if [ ! -x "$bin" ]; then
  echo "not ok 1 - $bin is built (make $bin)"
  exit 1
fi
LD_PRELOAD=${BLOOM_PRELOAD:-} ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0 \
  USECASES_IDS=1000 USECASES_OPS=100 USECASES_ROUNDS=1 USECASES_COLD=none \
  "$bin" "$so" "$dir" >"$dir/out" 2>"$dir/err"
rc=$?
n=1
check() { # check <description> <command...>
  what=$1
  shift
  if "$@"; then echo "ok $n - $what"; else echo "not ok $n - $what"; fail=1; fi
  n=$((n + 1))
}
fail=0
check "the driver runs to the end (exit $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$dir/err" | tail -20
for section in "Idempotency, 32-hex-digit TEXT" "Idempotency, 63-bit INTEGER" \
               "Probably exists" "URL de-duplication"; do
  check "it reports: $section" grep -q "^## $section" "$dir/out"
done
# 12 comparisons x 2 settings x 2 states for each kind of id, 4 x 4 for
# the joins, 2 x 4 for the URLs: every one printed with its three figures.
rows=$(grep -c '^| .* | .* ([0-9.]*-[0-9.]*) | .* ([0-9.]*-[0-9.]*) | [0-9.]* ([0-9.]*-[0-9.]*) |$' "$dir/out")
check "every comparison has its figures (120 rows, got $rows)" [ "$rows" -eq 120 ]
check "insert-if-new was timed (the store knows INSERT OR IGNORE)" \
  grep -q '^| insert-if-new, one statement | 50% retries | tuned | cold |' "$dir/out"
exit $fail
