#!/bin/sh
# Builds every libFuzzer target with clang (+ASan/UBSan) and runs each for N seconds, seeded
# from ../shared/corpus plus the files in tests/fuzz/seeds. Usage: tests/fuzz/run.sh [SECONDS]
set -eu
secs=${1:-30}
root=$(cd "$(dirname "$0")/../.." && pwd)
bdir="$root/build-fuzz"
corpus_src="${PTE_CORPUS:-$root/../shared/corpus}"
CC=clang cmake -S "$root" -B "$bdir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTE_FUZZ=ON \
  -DPTE_SANITIZE=fuzzer-no-link,address,undefined >/dev/null
targets=$(for f in "$root"/tests/fuzz/fuzz_*.c; do basename "$f" .c; done)
# shellcheck disable=SC2086
cmake --build "$bdir" -j "$(nproc)" --target $targets >/dev/null
status=0
for exe in "$bdir"/fuzz/fuzz_*; do
  [ -x "$exe" ] || continue
  name=$(basename "$exe")
  work="$bdir/corpus-$name"
  mkdir -p "$work"
  # seeds: every corpus file, plus our own generated seeds for this target
  cp -n "$corpus_src"/*.pte "$corpus_src"/*.ptd "$corpus_src"/*.bpte "$work"/ 2>/dev/null || true
  if [ -d "$root/tests/fuzz/seeds/$name" ]; then cp -n "$root/tests/fuzz/seeds/$name"/* "$work"/ 2>/dev/null || true; fi
  echo "fuzz: $name for ${secs}s"
  if ! "$exe" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
      -dict="$root/tests/fuzz/pte.dict" -artifact_prefix="$bdir/crash-$name-" "$work" \
      >"$bdir/$name.log" 2>&1; then
    echo "fuzz: $name FAILED (see $bdir/$name.log)"; tail -40 "$bdir/$name.log"; status=1
  else
    grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "$bdir/$name.log" | tail -1 || true
  fi
done
exit $status
