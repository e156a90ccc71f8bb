#!/bin/sh
# bench/run.sh — runs every benchmark (bench/*.c built as BUILD_DIR/bench/bench_*, and the
# bench/*.sh scripts), each measuring its peers in the same run, and writes one markdown table of
# the results: bench/RESULTS.md (`make bench`).
#
# Usage: bench/run.sh [BUILD_DIR]        (default: build; configure it RelWithDebInfo or Release)
# Environment:
#   BENCH_QUICK=1    smoke run: 256 MiB big files instead of 2 GiB (prepare) / 4 GiB (writer_synth),
#                    fewer iterations; writes BUILD_DIR/bench/RESULTS-quick.md unless BENCH_OUT is
#                    set (the numbers are not the reference ones, so bench/RESULTS.md is kept)
#   BENCH_OUT=FILE   where to write the table
#   BENCH_TMP=DIR    where the temporary directory for the big files is made (default BUILD_DIR;
#                    use a disk, not a tmpfs); it is removed at the end. The big-file benchmarks
#                    are skipped, with a note in the table, when it has less than 10 GiB free
#                    (2 GiB with BENCH_QUICK=1); prepare then still measures its load part.
#   BENCH_ONLY="a b" run only these benchmarks (names as in the table: program_load, prepare, ...)
#   PTE_CORPUS=DIR   the corpus of upstream .pte files (default ../shared/corpus)
#
# Every benchmark prints its human output (shown here and kept, per benchmark, at the end of the
# results file) and RESULT lines (format: bench/bench_result.h; shell: bench/lib/bench_result.sh)
# that become the table. Order: the light benchmarks first, the big-file ones last; a benchmark
# not listed below runs before the heavy ones, with no arguments.
# Exit status: 0 when every benchmark ran (a missed goal is a FAIL row, not an error); 1 when a
# benchmark failed without printing any RESULT line.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
export PTE_CORPUS="${PTE_CORPUS:-$root/../shared/corpus}"
quick=${BENCH_QUICK:-0}
[ "$quick" = 0 ] && quick=""
if [ -n "$quick" ]; then out=${BENCH_OUT:-$build/bench/RESULTS-quick.md}; else out=${BENCH_OUT:-$root/bench/RESULTS.md}; fi

light="program_load method_corpus delegate_sharing q8_conv xnnpack_models"
heavy="prepare_load xnnpack_fc prepare writer_synth"
bigfile="prepare writer_synth"

# ---- scratch: results, per-benchmark output, big files ------------------------------------------
tmp_parent=${BENCH_TMP:-$build}
mkdir -p "$tmp_parent" || exit 1
work=$(mktemp -d "$tmp_parent/pte-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'rm -rf "$work"; exit 130' INT TERM
results="$work/results.tsv"
: > "$results"
mkdir "$work/big" "$work/out"
need_gib=10
[ -n "$quick" ] && need_gib=2
free_kib=$(df -P -k "$work" | awk 'NR == 2 {print $4}')
free_gib=$((free_kib / 1048576))
disk_ok=1
[ "$free_gib" -lt "$need_gib" ] && disk_ok=""

# ---- the benchmark list ----------------------------------------------------------------------
known=" $light $heavy "
others=""
for b in "$build"/bench/bench_*; do
  [ -x "$b" ] || continue
  n=${b##*/bench_}
  case $known in *" $n "*) continue ;; esac
  others="$others $n"
done
for s in "$root"/bench/*.sh; do
  [ -f "$s" ] || continue
  n=$(basename "$s" .sh)
  case $n in run|highlights) continue ;; esac   # the driver and the README step, not benchmarks
  case "$known $others " in *" $n "*) continue ;; esac
  others="$others $n"
done

args_for() { # prints the arguments of benchmark $1 (full or quick)
  case $1 in
    program_load) if [ -n "$quick" ]; then echo "$PTE_CORPUS 100"; else echo "$PTE_CORPUS 1000"; fi ;;
    method_corpus) if [ -n "$quick" ]; then echo "$PTE_CORPUS 20"; else echo "$PTE_CORPUS 200"; fi ;;
    q8_conv) if [ -n "$quick" ]; then echo 20; else echo 200; fi ;;
    prepare_load) if [ -n "$quick" ]; then echo 3; else echo 9; fi ;;
    xnnpack_fc) if [ -n "$quick" ]; then echo --quick; fi ;;
    xnnpack_models) if [ -n "$quick" ]; then echo --quick; fi ;;
    xnnpack_q4) if [ -n "$quick" ]; then echo --quick; fi ;;
    prepare) if [ -n "$quick" ]; then echo 256; else echo 2048; fi ;;
  esac
}

status_of=""   # "name:rc" pairs
failed=""
note_status() { status_of="$status_of $1:$2"; }

run_one() { # name: runs the script bench/NAME.sh or the program BUILD/bench/bench_NAME
  n=$1
  if [ -f "$root/bench/$n.sh" ]; then
    set -- sh "$root/bench/$n.sh" "$build"
  elif [ -x "$build/bench/bench_$n" ]; then
    set -- "$build/bench/bench_$n"
  else
    return 0
  fi
  # the arguments are split on spaces: PTE_CORPUS must not contain any
  set -- "$@" $(args_for "$n")
  echo "== $n"
  skip_big=""
  if [ -z "$disk_ok" ] && case " $bigfile " in *" $n "*) true ;; *) false ;; esac; then
    skip_big="${free_gib} GiB free in $tmp_parent, needs $need_gib GiB"
  fi
  if [ -n "$skip_big" ] && [ "$n" = prepare ]; then
    : # runs: skips its big-file part itself (PTE_BENCH_SKIP_BIG), still measures the rest
  elif [ -n "$skip_big" ]; then
    msg="skipped: $skip_big"
    echo "$msg"
    printf 'RESULT\t%s\t-\t-\t%s\t-\t-\t-\t-\t-\n' "$n" "$msg" >> "$results"
    note_status "$n" skipped
    echo
    return 0
  fi
  before=$(wc -l < "$results")
  t0=$(date +%s)
  rm -f "$work/rc"
  (
    cd "$work/big" || exit 1
    DIR="$work/big"
    export DIR
    if [ -n "$skip_big" ]; then PTE_BENCH_SKIP_BIG=$skip_big; export PTE_BENCH_SKIP_BIG; fi
    if [ "$n" = writer_synth ]; then
      if [ -n "$quick" ]; then SIZE=256M ROUNDS=1; else SIZE=4G; fi
      export SIZE ROUNDS
    fi
    "$@" 2>&1
    echo $? > "$work/rc"
  ) | awk -v res="$results" -v raw="$work/out/$n.txt" '
      /^RESULT\t/ { print >> res; fflush(res); next }
      { print; fflush(); print >> raw; fflush(raw) }'
  rc=$(cat "$work/rc" 2>/dev/null || echo 127)
  rm -rf "$work/big"/* 2>/dev/null
  after=$(wc -l < "$results")
  echo "($n: $(($(date +%s) - t0)) s, exit status $rc)"
  echo
  note_status "$n" "$rc"
  if [ "$rc" != 0 ] && [ "$after" = "$before" ]; then
    failed="$failed $n"
    printf 'RESULT\t%s\t-\t-\tfailed: exit status %s, no result\t-\t-\t-\t-\tFAIL\n' "$n" "$rc" >> "$results"
  fi
}

selected() { [ -z "${BENCH_ONLY:-}" ] || case " $BENCH_ONLY " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
start_date=$(date -u '+%Y-%m-%d %H:%M UTC')
echo "pte benchmarks$([ -n "$quick" ] && echo ' (BENCH_QUICK=1 smoke run)'), build $build, load average $load_before"
echo "big files in $work/big ($free_gib GiB free)"
echo
ran=""
for n in $light $others $heavy; do
  selected "$n" || continue
  if [ -f "$root/bench/$n.sh" ] || [ -x "$build/bench/bench_$n" ]; then ran="$ran $n"; fi
  run_one "$n"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
elapsed=$(($(date +%s) - start))

# ---- RESULTS.md ------------------------------------------------------------------------------
cache="$build/CMakeCache.txt"
cache_get() { [ -f "$cache" ] && sed -n "s/^$1:[A-Z]*=//p" "$cache" | head -1; }
cc=$(cache_get CMAKE_C_COMPILER)
cc_version=$([ -n "$cc" ] && "$cc" --version 2>/dev/null | head -1)
build_type=$(cache_get CMAKE_BUILD_TYPE)
build_type_uc=$(echo "$build_type" | tr '[:lower:]' '[:upper:]')
flags=$(cache_get "CMAKE_C_FLAGS_$build_type_uc")
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
[ -n "$cpu" ] || cpu=$(uname -m)
cores=$(grep -c '^processor' /proc/cpuinfo)
mem=$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
flags_cpu=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'avx2|avx512f|fma|avx512vnni|avx_vnni' | tr '\n' ' ' | sed 's/ $//')
mkdir -p "$(dirname "$out")"
{
  echo "# pte benchmark results"
  echo
  if [ -n "$quick" ]; then
    echo "**Smoke run (\`BENCH_QUICK=1\`): small files and few iterations; not reference numbers.**"
    echo
  fi
  echo "Written by \`make bench\` (\`bench/run.sh\`). Every ratio is against a peer measured in the same run"
  echo "on the same machine."
  echo
  echo "- Date: $start_date; all benchmarks took $((elapsed / 60)) min $((elapsed % 60)) s"
  echo "- Machine: $cpu, $cores logical cores, $mem RAM ($(uname -sr); CPU features: ${flags_cpu:-none of avx2/avx512f/fma})"
  echo "- Load average (1, 5, 15 min): $load_before at the start, $load_after at the end. The machine is shared"
  echo "  with other jobs, which makes timings noisier (and ratios less so: both sides share the conditions)."
  echo "- Compiler: ${cc_version:-unknown} ($cc); build type ${build_type:-unknown} (\`${flags:-}\`)"
  case $build_type in
    Release|RelWithDebInfo|MinSizeRel) ;;
    *) echo "- **Warning: not an optimised build; these numbers do not represent pte.**" ;;
  esac
  echo "- Big files in a temporary directory under \`${tmp_parent}\` (removed afterwards; ${free_gib} GiB free at the start)"
  echo
  echo "**ratio > 1 means pte is better**: baseline time / pte time, pte throughput / baseline throughput,"
  echo "baseline memory / pte memory. *status*: PASS / FAIL against the goal, \`-\` when there is no goal."
  echo
  echo "| bench | case | metric | pte | baseline | ratio | goal | status |"
  echo "|---|---|---|---|---|---|---|---|"
  awk -F'\t' '{
      base = ($6 == "-" || $6 == "") ? "-" : ($7 == "-" ? $6 : $7 " (" $6 ")")
      st = $10 == "FAIL" ? "**FAIL**" : $10
      printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, $3, $4, $5, base, $8, $9, st) }' "$results"
  echo
  notrun=""
  for n in $light $heavy; do
    selected "$n" || continue
    case " $ran " in *" $n "*) ;; *) notrun="$notrun $n" ;; esac
  done
  [ -n "$notrun" ] && echo "Not present in this build (not run):$notrun." && echo
  nonzero=""
  for p in $status_of; do
    case $p in *:0|*:skipped) ;; *) nonzero="$nonzero ${p%%:*} (exit status ${p##*:})" ;; esac
  done
  [ -n "$nonzero" ] && echo "Exited non-zero:$nonzero (a benchmark may exit 1 when it misses a goal; see its raw output)." && echo
  echo "## How each benchmark measures"
  echo
  for n in $ran; do
    case $n in
      program_load) echo "- **program_load** (\`bench/program_load.c\`): \`pte_program_load\` of every corpus file, median of $([ -n "$quick" ] && echo 100 || echo 1000) runs per file and loader, opening and closing the loader included. Baseline: open + fstat + pread of the same program bytes + close, the least any file-based loader can do. Rows: geometric mean over the files and the slowest file; the goals are upstream ExecuTorch's figures on a machine of this kind (file loader 2-4 µs, mmap loader 8-16 µs, both at its default minimal verification), so the goals sit on pte's minimal-verification rows; full verification (pte's default) is printed for both loaders without a goal." ;;
      method_corpus) echo "- **method_corpus** (\`bench/method_corpus.c\`): \`pte_method_load\` and \`pte_method_execute\` (inputs of ones) of method \`forward\` (else the first) of every corpus program that runs with the portable kernels, median of $([ -n "$quick" ] && echo 20 || echo 200) runs. Baselines: mmap program load of the same file (for load) and a memcpy of the method's planned-memory bytes (for execute: touching the activations once). Goal: the slowest load_method within upstream's 1-130 µs." ;;
      delegate_sharing) echo "- **delegate_sharing** (\`bench/delegate_sharing.c\`): a method calling one 16 MiB lowered module 10 times (test backend that copies and checksums its blob at init), written once with one shared delegate and once with one delegate per call (the baseline). Method load: fastest of 3; delegate memory: bytes the backend allocated; RSS growth across the load. Goal: shared needs 1 init and at most 1/5 of the time and memory, with identical outputs." ;;
      q8_conv) echo "- **q8_conv** (\`bench/q8_conv.c\`): the cortex_m int8 kernels on a keyword-spotting stack (49x10 input, conv 10x4/2 to 64 channels, 4 depthwise-separable blocks, average pool, FC 64->12, softmax, quantize/dequantize), median of $([ -n "$quick" ] && echo 20 || echo 200) calls per op. Baseline: a plain dense int8 dot-product loop with an input offset over the same number of MACs (the bare inner loop of an int8 convolution, compiled with the same flags)." ;;
      prepare_load) echo "- **prepare_load** (\`bench/prepare_load.c\`): a 4096x4096 fp32 linear layer fully delegated to the XnnpackBackend (64 MiB of weights in named data), warm page cache: \`pte_method_load\` before prepare (the backend packs the weights at every load) and after \`pte_prepare_file\` (the packed panels are used in place), median of $([ -n "$quick" ] && echo 3 || echo 9) on the default mmap loader; time to first inference (open + program load + method load + first execute, all timed, a fresh session each time) before and after prepare for the mmap (default), mmap + PTE_MMAP_POPULATE (the pre-faulting timed as part of the open), file and buffer loaders, with the packs / in-place / copied counters; the first execute with the default loader against the steady-state execute; outputs compared bit for bit with the unprepared model. Goals: load_method >= 100x faster (same run), <= 0.25 ms (a fixed budget), first execute <= 1.5x steady state." ;;
      xnnpack_fc) echo "- **xnnpack_fc** (\`bench/xnnpack_fc.sh\`, \`bench/xnnpack_fc.c\`): fully-connected fp32 through the XnnpackBackend (a real delegate blob) against OpenBLAS (cblas_sgemv for M=1, cblas_sgemm for M=64) and Debian's XNNPACK (fully_connected_nc_f32), one thread, all loaded in the same process (peers by dlopen; the script apt-get installs libopenblas-dev and libxnnpack-dev when missing). Each peer row names the library version and the kernels it ran (OpenBLAS: openblas_get_corename(), with the machine's OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE pin cleared for the bench process; XNNPACK: the ISA it picks on this CPU). Best-vs-best rows first, then matched rows with both pte and OpenBLAS on AVX2 (XNNPACK cannot be limited, so it has no matched row). Interleaved rounds, best batch per contender; outputs cross-checked first. Goal: at least 0.9 of each peer's speed." ;;
      prepare) echo "- **prepare** (\`bench/prepare.c\`): \`pte prepare --passthrough\` on a $([ -n "$quick" ] && echo 256 || echo 2048) MiB file of 16 delegate blobs, all replaced, against \`cp\` of the same file, best of 3, page cache warm, no dirty pages at each start: durable (prepare fsyncs and renames; cp is followed by \`sync FILE\`) and page cache only (\`--no-fsync\` vs plain cp); also the copy path (no hook). Peak RSS from wait4 ru_maxrss, goal 64 MiB + the largest replaced value. Then load_method of a model packing 4 x 2048x2048 fp32 weights at init, before and after prepare (best of 5, outputs compared)." ;;
      writer_synth) echo "- **writer_synth** (\`bench/writer_synth.sh\`): \`pte synth large\` streams a $([ -n "$quick" ] && echo 256 MiB || echo 4 GiB) model of generated constants (never held in memory) under \`/usr/bin/time -v\` (peak RSS, goal 64 MiB), against \`cp\` of a file of the same size, best of $([ -n "$quick" ] && echo 1 || echo 3) alternating rounds, durable (writer fsyncs at publish; cp + \`sync FILE\`, goal ratio 0.8) and page cache only." ;;
      xnnpack_models) echo "- **xnnpack_models** (\`bench/xnnpack_models.c\`): whole XNNPACK subgraphs (YOLO-like fp32 CNN on 416x416x3 with SiLU/upsample/concat, \`pte synth mlp\` and \`pte synth cnn --delegate xnnpack\`, an int8 KWS DS-CNN) in pte's XnnpackBackend against the real XNNPACK library (Debian libxnnpack-dev, 2022 snapshot) running pte's parsed graph translated by \`tests/support/xnnpack_lib.c\` (data-movement nodes the snapshot lacks run as host copies, counted in its time), 1 and 2 threads, outputs compared first, median of $([ -n "$quick" ] && echo 5 || echo 21) interleaved runs. Goal: pte at least as fast on 1 thread." ;;
      *) echo "- **$n**: see the comment at the top of its source in \`bench/\`." ;;
    esac
  done
  echo
  echo "## Raw output"
  echo
  for n in $ran; do
    [ -s "$work/out/$n.txt" ] || continue
    echo "<details><summary>$n</summary>"
    echo
    echo '```'
    cat "$work/out/$n.txt"
    echo '```'
    echo
    echo "</details>"
    echo
  done
} > "$out.tmp" && mv "$out.tmp" "$out"
echo "wrote $out ($(wc -l < "$results") results, $((elapsed / 60)) min $((elapsed % 60)) s, load $load_before -> $load_after)"
# the README's highlights come from the reference results only (not from a quick or partial run)
if [ -z "$quick" ] && [ -z "${BENCH_ONLY:-}" ] && [ "$out" = "$root/bench/RESULTS.md" ]; then
  sh "$root/bench/highlights.sh" "$out" "$root/README.md" || echo "note: README highlights not updated"
fi
[ -z "$failed" ] || { echo "failed:$failed"; exit 1; }
exit 0
