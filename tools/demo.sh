#!/bin/sh
# make demo: the main job end to end, on models generated here (nothing downloaded).
#   1. pte synth: a 64 MiB MLP (4 x 2048x2048 fp32 Linear + ReLU) lowered whole into one XNNPACK
#      delegate with its weights as sha256-keyed named data, and a "denoise" model that calls one
#      lowered XNNPACK block 10 times through ONE shared delegate handle;
#   2. pte run --repeat 5 --json on the MLP: method load and execute medians;
#   3. pte prepare: weights packed once and stored; run again: load time, sizes, same outputs;
#   4. the denoise model: delegates / DelegateCalls (pte inspect --json), backend inits (pte run);
#   5. a one-line summary.
# Usage: sh tools/demo.sh [BUILD_DIR]   (default build; needs BUILD_DIR/pte)
# PTE_DEMO_WIDTH=N shrinks the MLP to 4 x NxN (tests/cli/demo.sh runs it small).
set -eu
B=${1:-build}
W=${PTE_DEMO_WIDTH:-2048}
PTE=$B/pte
[ -x "$PTE" ] || { echo "demo: $PTE not built (make demo builds it)" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/pte-demo.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

now_ms() { # milliseconds (whole seconds where date has no %N)
  n=$(date +%s%N 2>/dev/null)
  case $n in *N|'') echo $(( $(date +%s) * 1000 )) ;; *) echo $(( n / 1000000 )) ;; esac
}
T0=$(now_ms)
die() { echo "demo: $*" >&2; exit 1; }
run() { # run OUTFILE cmd...: stdout to OUTFILE, stderr shown on failure
  o=$1; shift
  "$@" >"$o" 2>"$T/err" || { cat "$o" "$T/err" >&2; die "failed: $*"; }
}
# top-level number of a pretty-printed JSON object (pte's --json output: one key per line)
jnum() { sed -n "s/^  \"$1\": \\([-0-9.eE+]*\\),*\$/\\1/p" "$2" | head -n 1; }
# sum of a key at any depth
jsum() { sed -n "s/^ *\"$1\": \\([0-9]*\\),*\$/\\1/p" "$2" | awk '{s += $1} END {print s + 0}'; }
ms() { awk -v x="$1" 'BEGIN { if (x >= 1) printf "%.1f ms", x; else printf "%.3f ms", x }'; }
mib() { awk -v x="$1" 'BEGIN { printf "%.1f MiB", x / 1048576 }'; }
size_of() { wc -c <"$1" | tr -d ' '; }

echo "pte demo: generate -> run -> prepare -> run again, and a shared delegate ($PTE, temp dir $T)"
echo

# ---- 1. generate
echo "1. pte synth (weights streamed from a seeded generator, never all in memory)"
run "$T/s1" "$PTE" synth mlp --delegate xnnpack --widths "$W,$W,$W,$W,$W" --seed 1 --quiet --no-fsync -o "$T/mlp.pte"
run "$T/s2" "$PTE" synth denoise --steps 10 --seed 1 --quiet --no-fsync -o "$T/denoise.pte"
run "$T/s3" "$PTE" synth denoise --steps 10 --seed 1 --no-share --quiet --no-fsync -o "$T/denoise-noshare.pte"
mlp_size=$(size_of "$T/mlp.pte")
mlp_secs=$(sed -n 's/.* in \([0-9.]*\) s$/\1/p' "$T/s1")
printf '   %-22s %10s  4 x Linear %sx%s + ReLU, all in 1 XNNPACK delegate, written in %s s\n' \
  mlp.pte "$(mib "$mlp_size")" "$W" "$W" "$mlp_secs"
printf '   %-22s %10s  x <- x - block(x), 10 steps; block = 2 Linear 256x256, 1 lowered module\n' \
  denoise.pte "$(mib "$(size_of "$T/denoise.pte")")"
echo

# ---- 2. run
echo "2. pte run mlp.pte --repeat 5 (medians of 5 fresh loads + executes, random input)"
run "$T/r1" "$PTE" run "$T/mlp.pte" --repeat 5 --json --input-fill random --seed 7 --output-dir "$T/out1"
load1=$(jnum method_load_ms "$T/r1")
exec1=$(jnum execute_ms "$T/r1")
[ -n "$load1" ] && [ -n "$exec1" ] || die "no timings in pte run --json output"
printf '   %-22s %10s  method load = XNNPACK init: read %s of weights, pack them for the GEMM\n' \
  "load_method" "$(ms "$load1")" "$(mib $((16 * W * W)))"
printf '   %-22s %10s  one forward pass (batch 1)\n' "execute" "$(ms "$exec1")"
echo

# ---- 3. prepare
echo "3. pte prepare mlp.pte -o mlp.prepared.pte (pack once, store the packed weights in the file)"
run "$T/p1" "$PTE" prepare "$T/mlp.pte" -o "$T/mlp.prepared.pte" --json --no-fsync
named_rep=$(jsum named_replaced "$T/p1")
blobs_rep=$(jsum blobs_replaced "$T/p1")
replaced=$(( named_rep + blobs_rep ))
prep_ms=$(jnum time_ms "$T/p1")
run "$T/r2" "$PTE" run "$T/mlp.prepared.pte" --repeat 5 --json --input-fill random --seed 7 --output-dir "$T/out2"
load2=$(jnum method_load_ms "$T/r2")
size2=$(size_of "$T/mlp.prepared.pte")
if [ "$replaced" -eq 0 ]; then
  printf '   %-22s %10s  prepare replaced nothing: this build has no XNNPACK prepare hook\n' "replaced" "0"
else
  printf '   %-22s %10s  weight tensors now stored packed, %s delegate blob(s) rewritten with their index (prepare took %s)\n' \
    "replaced" "$named_rep" "$blobs_rep" "$(ms "$prep_ms")"
fi
printf '   %-22s %10s  -> %s\n' "file size" "$(mib "$mlp_size")" "$(mib "$size2")"
speedup=$(awk -v a="$load1" -v b="$load2" 'BEGIN { if (b > 0) printf "%.0fx", a / b; else print "-" }')
if [ "$replaced" -eq 0 ]; then how="nothing prepared: no change expected"; else how="$speedup faster"; fi
printf '   %-22s %10s  -> %s  (%s)\n' "load_method" "$(ms "$load1")" "$(ms "$load2")" "$how"
if cmp -s "$T/out1/forward.output0.npy" "$T/out2/forward.output0.npy"; then same=identical; else same=DIFFERENT; fi
printf '   %-22s %10s  (cmp of the two output .npy files)\n' "outputs" "$same"
[ "$same" = identical ] || die "outputs differ after prepare"
echo

# ---- 4. shared delegate
echo "4. denoise.pte: one lowered XNNPACK module called 10 times; unshared = synth --no-share"
run "$T/i1" "$PTE" inspect --json "$T/denoise.pte"
run "$T/i2" "$PTE" inspect --json "$T/denoise-noshare.pte"
run "$T/r3" "$PTE" run "$T/denoise.pte" --json --output-dir "$T/out3"
run "$T/r4" "$PTE" run "$T/denoise-noshare.pte" --json --output-dir "$T/out4"
del1=$(grep -c '"share_handle":' "$T/i1" || true)
del2=$(grep -c '"share_handle":' "$T/i2" || true)
calls1=$(jsum DelegateCall "$T/i1")
calls2=$(jsum DelegateCall "$T/i2")
inits1=$(jnum delegate_inits "$T/r3")
inits2=$(jnum delegate_inits "$T/r4")
if cmp -s "$T/out3/forward.output0.npy" "$T/out4/forward.output0.npy"; then same2=identical; else same2=DIFFERENT; fi
printf '   %-22s %10s %9s\n' "" "shared" "unshared"
printf '   %-22s %10s %9s  BackendDelegate entries (pte inspect)\n' "delegates" "$del1" "$del2"
printf '   %-22s %10s %9s  DelegateCall instructions (pte inspect)\n' "delegate calls" "$calls1" "$calls2"
printf '   %-22s %10s %9s  backend init() calls of one method load (pte run)\n' "backend inits" "$inits1" "$inits2"
printf '   %-22s %10s %9s  (cmp of the two output .npy files)\n' "outputs" "$same2" ""
[ "$same2" = identical ] || die "shared and unshared outputs differ"
echo

# ---- 5. summary
T1=$(now_ms)
if [ "$replaced" -eq 0 ]; then
  prep_note="prepare replaced nothing"
else
  prep_note="prepare cut method load $(ms "$load1") -> $(ms "$load2") ($speedup), same outputs"
fi
echo "summary: $(mib $((16 * W * W))) XNNPACK MLP executes in $(ms "$exec1"); $prep_note; 10 delegate calls share ${inits1} init ($(awk -v x=$((T1 - T0)) 'BEGIN { printf "%.1f", x / 1000 }') s)"
