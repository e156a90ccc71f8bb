#!/bin/sh
# Builds every libFuzzer target (tests/fuzz/fuzz_*.c) with clang + ASan + UBSan and runs each for
# N seconds (CI smoke: `make fuzz FUZZ_SECONDS=20`). Seeds: every corpus file ($PTE_CORPUS or
# ../shared/corpus), every input of the malformed catalogue (tests/malformed, written by
# test_malformed_catalogue --write-all) and tests/fuzz/seeds/<target>/ if present.
# Usage: tests/fuzz/run.sh [SECONDS] [TARGET...]
# Env: FUZZ_BUILD (build directory, default build-fuzz), FUZZ_WERROR=OFF (build even if clang warns).
set -eu
secs=${1:-30}
[ $# -gt 0 ] && shift
root=$(cd "$(dirname "$0")/../.." && pwd)
bdir="${FUZZ_BUILD:-$root/build-fuzz}"
corpus_src="${PTE_CORPUS:-$root/../shared/corpus}"
CC=clang cmake -S "$root" -B "$bdir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTE_FUZZ=ON -DPTE_WERROR="${FUZZ_WERROR:-ON}" \
  -DPTE_SANITIZE=fuzzer-no-link,address,undefined >/dev/null
if [ $# -gt 0 ]; then targets="$*"; else targets=$(for f in "$root"/tests/fuzz/fuzz_*.c; do basename "$f" .c; done); fi
# shellcheck disable=SC2086
cmake --build "$bdir" -j "$(nproc)" --target $targets test_malformed_catalogue test_xnnpack_q4 >/dev/null
seeds="$bdir/seeds-generated"
rm -rf "$seeds"
mkdir -p "$seeds"
PTE_CORPUS="$corpus_src" "$bdir/test_malformed_catalogue" --write-all "$seeds" >/dev/null
"$bdir/test_xnnpack_q4" --write-seeds "$seeds" # 4-bit FullyConnected blobs (fuzz_xnn_blob)
# 0 seconds: only run the seeds once (libFuzzer's -max_total_time=0 would mean "no limit").
if [ "$secs" -eq 0 ]; then limit="-runs=0"; else limit="-max_total_time=$secs"; fi
status=0
for name in $targets; do
  exe="$bdir/fuzz/$name"
  [ -x "$exe" ] || { echo "fuzz: $name not built"; status=1; continue; }
  work="$bdir/corpus-$name"
  mkdir -p "$work"
  cp -n "$corpus_src"/*.pte "$corpus_src"/*.ptd "$corpus_src"/*.bpte "$work"/ 2>/dev/null || true
  cp -n "$seeds"/* "$work"/ 2>/dev/null || true
  if [ -d "$root/tests/fuzz/seeds/$name" ]; then cp -n "$root/tests/fuzz/seeds/$name"/* "$work"/ 2>/dev/null || true; fi
  echo "fuzz: $name for ${secs}s"
  # A single allocation above 2 GiB fails (returns NULL) the way it does on a machine without that
  # much memory, so a program declaring a huge tensor exercises the runtime's allocation-failure
  # path (MemoryAllocationFailed) instead of tripping libFuzzer's malloc limit (= rss_limit_mb).
  if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=2048 UBSAN_OPTIONS=print_stacktrace=1 \
      "$exe" $limit -timeout=10 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
      -dict="$root/tests/fuzz/pte.dict" -artifact_prefix="$bdir/crash-$name-" "$work" \
      >"$bdir/$name.log" 2>&1; then
    echo "fuzz: $name FAILED (see $bdir/$name.log)"; tail -40 "$bdir/$name.log"; status=1
  else
    grep -E "^stat::number_of_executed_units" "$bdir/$name.log" | sed "s/^/fuzz: $name /" || true
  fi
done
exit $status
