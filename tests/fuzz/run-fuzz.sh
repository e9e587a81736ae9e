#!/bin/sh
# Runs each libFuzzer target for $FUZZ_SECONDS seconds (called by `make fuzz`).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
#
#   run-fuzz.sh BIN_DIR FUZZ_DIR WORK_DIR TARGET...
#
# Each target starts from its committed seeds (FUZZ_DIR/corpus/T) and
# regressions (FUZZ_DIR/regressions/T) and writes what it finds to the
# git-ignored WORK_DIR/T; a crash goes to WORK_DIR/crashes/T/.  Prints the
# final "#N DONE cov: X ft: Y" line of each and fails if any target failed.
set -u
bin=$1 fuzz=$2 work=$3
shift 3
seconds=${FUZZ_SECONDS:-60}
status=0
summary=""

max_len() {
  case $1 in
    build) echo 1024 ;;
    *) echo 4096 ;;   # a filter of up to 63 blocks plus probe values
  esac
}

for t in "$@"; do
  mkdir -p "$work/$t" "$work/crashes/$t"
  dirs="$work/$t"
  for d in "$fuzz/corpus/$t" "$fuzz/regressions/$t"; do
    [ -d "$d" ] && dirs="$dirs $d"
  done
  log="$work/$t.log"
  echo "== fuzz $t: ${seconds}s, -max_len=$(max_len "$t") (log: $log)"
  # shellcheck disable=SC2086
  "$bin/fuzz-$t" -max_total_time="$seconds" -max_len="$(max_len "$t")" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/crashes/$t/" $dirs >"$log" 2>&1
  rc=$?
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  if [ "$rc" -ne 0 ]; then
    status=1
    echo "!! fuzz $t FAILED (exit $rc); the end of its log:"
    tail -n 40 "$log"
    echo "!! inputs that failed: $(ls "$work/crashes/$t" 2>/dev/null | tr '\n' ' ')"
    echo "!! keep one as tests/fuzz/regressions/$t/<name> so make test replays it"
    summary="$summary
$t: FAILED (exit $rc) after ${execs:-?} execs"
  else
    echo "$done_line"
    summary="$summary
$t: ${execs:-?} execs (${rate:-?}/s): ${done_line:-no DONE line}"
  fi
done

echo
echo "== fuzz summary (${seconds}s each)$summary"
exit $status
