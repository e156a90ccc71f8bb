#!/bin/sh
# Valgrind memcheck over `pte run` on every corpus program (.pte and .bpte), against the list below
# of what each must do (run, or be refused with a named status); memcheck must report no error and
# no definite/indirect leak. Usage: tests/valgrind/run_corpus.sh [BUILD_DIR]
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

# Every corpus program and what it must do here: run (exit 0), or be refused cleanly with the
# status named (exit 1). A file missing from the corpus, a program that stops running, or one that
# is refused for another reason fails the target.
expect() {
  case "$1" in
    djl_openvino_tiny.pte) echo "NotFound (0x20)" ;; # OpenVINO backend: not in pte
    *) echo run ;;
  esac
}
expected_files="apple_tests_add.pte arduino_AddModel.pte arduino_HelloExecuTorch.pte berry_identity.pte berry_two.pte
deprecated_ModuleLinear-no-constant-segment.pte djl_named_priced.pte djl_openvino_tiny.pte djl_spike_add.pte
djl_spike_add_unplanned.pte djl_spike_clamp5.pte djl_spike_conv.pte djl_spike_lin129.pte djl_spike_lin129_planned.pte
djl_spike_med_output.pte djl_spike_prim_input.pte djl_stress_mlp.pte dnf_test_dnf_executorch1.pte
dnf_test_dnf_executorch5.pte etrs_data_map_model.pte etrs_hello_world_add_old.pte etrs_models_add.pte
module_test_bundled_program.bpte node-executorch_mul.pte numpyrt_add.pte numpyrt_const_methods.pte numpyrt_dtypes.pte
numpyrt_dynamic.pte numpyrt_lstm.pte numpyrt_multi.pte numpyrt_quantized.pte pr17248_add.pte
pr17248_conv2d_quantized.pte pr17248_maxpool2d.pte pr17248_softmax.pte simple-torch-model.pte upstream_android_xor.pte
upstream_module_test_model_2024-03.pte"

files=0 ran=0 failed_cleanly=0 bad=0
for name in $expected_files; do
  f="$corpus/$name"
  if [ ! -f "$f" ]; then
    echo "valgrind: $name: missing from $corpus"; bad=$((bad + 1)); continue
  fi
  files=$((files + 1))
  want=$(expect "$name")
  data=$(data_for "$f")
  set -- run "$f"
  [ -n "$data" ] && set -- "$@" --data "$data"
  rc=0
  valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --log-file="$log/$name.vg" "$pte" "$@" >"$log/$name.out" 2>&1 || rc=$?
  if [ "$rc" -eq 99 ] || [ -s "$log/$name.vg" ]; then
    echo "valgrind: $name: memcheck errors (exit $rc)"; sed -n 1,60p "$log/$name.vg"; bad=$((bad + 1))
  elif [ "$rc" -eq 0 ] && [ "$want" = run ]; then
    ran=$((ran + 1))
  elif [ "$rc" -eq 0 ]; then
    echo "valgrind: $name: ran, but is expected to be refused ($want): update the list"; bad=$((bad + 1))
  elif [ "$rc" -eq 1 ] && [ "$want" != run ] && grep -qF "$want" "$log/$name.out"; then
    failed_cleanly=$((failed_cleanly + 1))
    echo "valgrind: $name: refused as expected: $(tail -1 "$log/$name.out" | cut -c1-140)"
  elif [ "$rc" -eq 1 ]; then
    echo "valgrind: $name: expected to $( [ "$want" = run ] && echo run || echo "be refused with $want"), failed: $(tail -1 "$log/$name.out" | cut -c1-160)"
    bad=$((bad + 1))
  else
    echo "valgrind: $name: pte exited $rc"; tail -5 "$log/$name.out"; bad=$((bad + 1))
  fi
done
echo "valgrind: $files files: $ran executed, $failed_cleanly refused as expected, $bad unexpected (memcheck errors, missing, or not as expected)"
[ "$files" -gt 0 ] && [ "$bad" -eq 0 ]
