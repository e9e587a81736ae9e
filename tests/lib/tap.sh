# TAP for the shell tests, sourced: `check <status> <name> [diagnostic]`
# prints one test, passing when status is 0, the diagnostic as comments
# when it fails; `skip <count> <reason>` prints that many skipped tests;
# $failed is 1 once any failed (the script's exit status).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
n=0
failed=0
check() {
  n=$((n + 1))
  if [ "$1" = 0 ]; then
    echo "ok $n - $2"
  else
    echo "not ok $n - $2"
    [ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/#   /'
    failed=1
  fi
}
skip() {
  i=0
  while [ "$i" -lt "$1" ]; do
    n=$((n + 1))
    i=$((i + 1))
    echo "ok $n # skip $2"
  done
}
