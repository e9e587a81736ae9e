#!/bin/sh
# Runs every script in sql/ through the real sqlite3 shell, so the examples
# cannot rot.  A script states what must hold with lines that print
#   check|<what>|<1 or 0>
# Each such line becomes one TAP test; the script must also exit 0 under
# -bail (any SQL error fails it).  BLOOM_SO names the extension to load
# (default ./bloom.so); BLOOM_PRELOAD is preloaded (the ASan runtime when
# the extension is a sanitizer build).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
cd "$(dirname "$0")/.." || exit 1
so=${BLOOM_SO:-./bloom.so}
so=${so%.so}
n=0
fail=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for script in sql/*.sql; do
  sed "s|^\.load \./bloom\$|.load $so|" "$script" |
    LD_PRELOAD=${BLOOM_PRELOAD:-} ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0 \
      sqlite3 -batch -bail :memory: >"$out" 2>&1
  rc=$?
  n=$((n + 1))
  if [ $rc -eq 0 ]; then
    echo "ok $n - $script runs to the end"
  else
    echo "not ok $n - $script runs to the end (exit $rc)"
    sed 's/^/#   /' "$out" | tail -20
    fail=1
  fi
  checks=$(grep -c '^check|' "$out")
  n=$((n + 1))
  if [ "$checks" -gt 0 ]; then
    echo "ok $n - $script states $checks checks"
  else
    echo "not ok $n - $script states no checks"
    fail=1
  fi
  while IFS='|' read -r tag what value; do
    [ "$tag" = check ] || continue
    n=$((n + 1))
    if [ "$value" = 1 ]; then
      echo "ok $n - $script: $what"
    else
      echo "not ok $n - $script: $what (got '$value')"
      fail=1
    fi
  done <"$out"
done
echo "1..$n"
exit $fail
