#!/bin/sh
# Long fuzzing sessions: each target in turn (never two at once), under `nice`, for SECONDS
# (default 1800) or until it has run MIN_EXECS executions (default 1,000,000) — whichever comes
# LAST — then a summary line per target is appended to build-fuzz/long-run/results.tsv:
#   date  target  seconds  executions  exec/s  corpus_files  coverage  findings(crash/leak/timeout/oom files)
# Findings are kept as build-fuzz/long-run/<target>/crash-*; minimise one with
#   build-fuzz/fuzz/<target> -minimize_crash=1 -runs=100000 <file>
# and add it to the malformed catalogue (tests/malformed) as a regression case.
# Usage: tests/fuzz/long_run.sh [SECONDS] [TARGET...]
set -eu
secs=${1:-1800}
[ $# -gt 0 ] && shift
min_execs=${MIN_EXECS:-1000000}
root=$(cd "$(dirname "$0")/../.." && pwd)
bdir="${FUZZ_BUILD:-$root/build-fuzz}"
out="$bdir/long-run"
mkdir -p "$out"
# Build + seed (0-second smoke run of the requested targets).
FUZZ_BUILD="$bdir" sh "$root/tests/fuzz/run.sh" 0 "$@" >/dev/null 2>&1 || true
if [ $# -gt 0 ]; then targets="$*"; else targets=$(for f in "$root"/tests/fuzz/fuzz_*.c; do basename "$f" .c; done); fi
[ -f "$out/results.tsv" ] || printf 'date\ttarget\tseconds\texecutions\texec_per_s\tcorpus\tcoverage\tfindings\n' >"$out/results.tsv"
for name in $targets; do
  exe="$bdir/fuzz/$name"
  [ -x "$exe" ] || { echo "long_run: $name not built"; continue; }
  mkdir -p "$out/$name"
  work="$bdir/corpus-$name"
  start=$(date +%s)
  total=0
  round=0
  # Rounds of at most SECONDS each until both the time and the execution floor are reached. A
  # finding ends a round (libFuzzer stops); the next round goes on from the grown corpus, so one
  # session collects several findings. Executions are summed over the rounds.
  while :; do
    round=$((round + 1))
    log="$out/$name/round$round.log"
    left=$(( secs - ($(date +%s) - start) ))
    [ "$left" -lt 60 ] && left=60
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=2048 UBSAN_OPTIONS=print_stacktrace=1 \
      nice -n 15 "$exe" -max_total_time="$left" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
      -print_final_stats=1 -dict="$root/tests/fuzz/pte.dict" -artifact_prefix="$out/$name/" "$work" \
      >"$log" 2>&1 || true
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    total=$((total + ${n:-0}))
    elapsed=$(( $(date +%s) - start ))
    if [ "$total" -ge "$min_execs" ] && [ "$elapsed" -ge "$secs" ]; then break; fi
    if [ -z "$n" ] || [ "$round" -ge 20 ]; then break; fi
  done
  elapsed=$(( $(date +%s) - start ))
  rate=$(( total / (elapsed > 0 ? elapsed : 1) ))
  files=$(ls "$work" | wc -l)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  findings=$(ls "$out/$name" | grep -cE '^(crash|leak|timeout|oom|slow-unit)-' || true)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$name" "$elapsed" "$total" "$rate" \
    "$files" "${cov:-?}" "$findings" >>"$out/results.tsv"
  echo "long_run: $name: $total executions in ${elapsed}s ($rate/s), coverage ${cov:-?}, findings $findings"
done
