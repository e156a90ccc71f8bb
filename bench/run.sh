#!/bin/sh
# Runs every benchmark built from bench/*.c (and bench/*.sh scripts). Each prints ratios against a
# baseline measured in the same run. Usage: bench/run.sh [BUILD_DIR]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
export PTE_CORPUS="${PTE_CORPUS:-$root/../shared/corpus}"
for b in "$build"/bench/bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b"
  echo
done
for s in "$root"/bench/*.sh; do
  [ "$(basename "$s")" = run.sh ] && continue
  [ -f "$s" ] || continue
  echo "== $(basename "$s")"
  sh "$s" "$build"
  echo
done
