#!/bin/sh
# Valgrind memcheck over `pte run` on every corpus program (.pte and .bpte): the runnable files
# execute, the others fail cleanly (missing backend/operator); either way memcheck must report no
# error and no definite/indirect leak. Usage: tests/valgrind/run_corpus.sh [BUILD_DIR]
# (the pte CLI is BUILD_DIR/pte; the corpus is $PTE_CORPUS or ../shared/corpus).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
pte="$build/pte"
corpus="${PTE_CORPUS:-$root/../shared/corpus}"
[ -x "$pte" ] || { echo "valgrind: $pte not built"; exit 1; }
command -v valgrind >/dev/null 2>&1 || { echo "valgrind: not installed"; exit 1; }
log="$build/valgrind-logs"
mkdir -p "$log"

# .ptd companions of programs with EXTERNAL tensors
data_for() {
  case "$(basename "$1")" in
    etrs_data_map_model.pte) echo "$corpus/etrs_data_map__default_external_constant.ptd" ;;
    upstream_android_xor.pte) echo "$corpus/upstream_android_xor.ptd" ;;
    *) echo "" ;;
  esac
}

files=0 ran=0 failed_cleanly=0 bad=0
for f in "$corpus"/*.pte "$corpus"/*.bpte; do
  [ -f "$f" ] || continue
  files=$((files + 1))
  name=$(basename "$f")
  data=$(data_for "$f")
  set -- run "$f"
  [ -n "$data" ] && set -- "$@" --data "$data"
  rc=0
  valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --log-file="$log/$name.vg" "$pte" "$@" >"$log/$name.out" 2>&1 || rc=$?
  if [ "$rc" -eq 99 ] || [ -s "$log/$name.vg" ]; then
    echo "valgrind: $name: memcheck errors (exit $rc)"; sed -n 1,60p "$log/$name.vg"; bad=$((bad + 1))
  elif [ "$rc" -eq 0 ]; then
    ran=$((ran + 1))
  elif [ "$rc" -eq 1 ]; then
    failed_cleanly=$((failed_cleanly + 1))
    echo "valgrind: $name: not runnable here: $(tail -1 "$log/$name.out" | cut -c1-140)"
  else
    echo "valgrind: $name: pte exited $rc"; tail -5 "$log/$name.out"; bad=$((bad + 1))
  fi
done
echo "valgrind: $files files: $ran executed, $failed_cleanly refused cleanly, $bad with memcheck errors"
[ "$files" -gt 0 ] && [ "$bad" -eq 0 ]
