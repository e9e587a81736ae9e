#!/bin/sh
# Runs compiled tests under valgrind's memcheck (`make check-valgrind`).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   BLOOM_SO=... tests/check/valgrind.sh LOGDIR test.t...
#
# Each test runs as `valgrind --error-exitcode=99 --leak-check=full`, two at
# a time, with one log per process (forked children included) under LOGDIR.
# A test passes when no process of it logged a memcheck error or leak
# (valgrind -q logs nothing else) and it was not killed by a signal.
#
# Its own TAP verdicts are shown but not judged here: valgrind computes
# x87 long double in 64 bits, so SQLite's integer/real comparisons near
# 2^53 and 2^63 answer differently under it and value-rule checks of
# tests/sql/bloom_functions.c fail there only; the plain and ASan runs of
# `make test` judge them.  Prints TAP.
logdir=$1; shift
here=$(dirname "$0")
mkdir -p "$logdir"
if [ "${1:-}" = "--one" ]; then
  t=$2
  name=$(basename "$t" .t)
  rm -f "$logdir/$name".*.log
  if [ ! -x "$t" ]; then # a test that is not there passes nothing
    echo "not ok - $name: $t is not built" > "$logdir/$name.result"
    exit 0
  fi
  start=$(date +%s)
  valgrind -q --error-exitcode=99 --leak-check=full \
      --errors-for-leak-kinds=definite,possible \
      --suppressions="$here/valgrind.supp" \
      --log-file="$logdir/$name.%p.log" "$t" > "$logdir/$name.tap" 2>&1
  rc=$?
  end=$(date +%s)
  errs=""
  for f in "$logdir/$name".*.log; do
    [ -s "$f" ] && errs="$errs $f"
  done
  notok=$(grep -c '^not ok' "$logdir/$name.tap")
  total=$(grep -c '^\(not \)\?ok' "$logdir/$name.tap")
  {
    if [ -z "$errs" ] && [ "$rc" -lt 128 ] && [ "$rc" != 99 ]; then
      echo "ok - $name: no memcheck error or leak ($((end - start)) s; its checks: $((total - notok)) of $total passed under valgrind)"
    else
      echo "not ok - $name: memcheck errors, exit status $rc ($((end - start)) s)"
      for f in $errs; do echo "#   see $f"; sed -n '1,40s/^/#   /p' "$f"; done
    fi
    grep '^not ok' "$logdir/$name.tap" | sed 's/^/#   (under valgrind) /'
  } > "$logdir/$name.result"
  exit 0
fi
printf '%s\n' "$@" | xargs -P 2 -I{} sh "$0" "$logdir" --one {}
n=0; fail=0
for t in "$@"; do
  n=$((n + 1))
  name=$(basename "$t" .t)
  sed "1s/^\(not \)\?ok -/\1ok $n -/" "$logdir/$name.result"
  grep -q '^not ok' "$logdir/$name.result" && fail=1
done
echo "1..$n"
exit $fail
