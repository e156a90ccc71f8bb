#!/bin/sh
# run.sh HOST_BUILD OUT_DIR [m4 m7 m55] — cross-builds the QEMU runner images for each Cortex-M core
# (cmake/toolchain-arm-none-eabi.cmake, -DPTE_MCU=ON), runs every model on its board under
# qemu-system-arm (semihosting, -icount shift=0) and compares the printed outputs with the host
# build's run of the same model (pte_mcu_host run / compare: int8 bit for bit, float32 within 1e-5).
# Prints one summary line per run: RAM need, stack high-water mark, instructions per inference.
# Exit: 0 all equal, 1 a failure, 77 when the cross toolchain, newlib or qemu-system-arm is absent.
# Used by `make mcu` and ctest cli_mcu_qemu (docs/mcu.md).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
HB=${1:?usage: run.sh HOST_BUILD OUT_DIR [m4 m7 m55]}
OUT=${2:?usage: run.sh HOST_BUILD OUT_DIR [m4 m7 m55]}
shift 2
CPUS=${*:-m4 m7 m55}
CORPUS=${PTE_CORPUS:-$SRC/../shared/corpus}
HOST=$HB/pte_mcu_host
TIMEOUT=${PTE_MCU_TIMEOUT:-300}

missing=""
command -v arm-none-eabi-gcc >/dev/null 2>&1 || missing="$missing gcc-arm-none-eabi"
command -v qemu-system-arm >/dev/null 2>&1 || missing="$missing qemu-system-arm"
if command -v arm-none-eabi-gcc >/dev/null 2>&1; then
  libc=$(arm-none-eabi-gcc -mthumb -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -print-file-name=libc.a)
  [ -f "$libc" ] || missing="$missing libnewlib-arm-none-eabi"
fi
if [ -n "$missing" ]; then
  echo "SKIP: not installed:$missing (apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm)"
  exit 77
fi
[ -x "$HOST" ] || { echo "FAIL: $HOST missing (build the host target pte_mcu_host)" >&2; exit 1; }
[ -f "$CORPUS/arduino_AddModel.pte" ] || { echo "FAIL: corpus not found at $CORPUS (set PTE_CORPUS)" >&2; exit 1; }
CORPUS=$(cd "$CORPUS" && pwd)
JOBS=${JOBS:-2}
mkdir -p "$OUT"
fail=0
# selective registration (mcu_select.c) on the host: the Arduino program (one operator,
# aten::add.out, a portable binary op: kernels/portable/op_binary.c) registers that family alone;
# a registry too small for it is a build-time error naming PTE_MAX_KERNELS
sel=$OUT/select_arduino.c
if ! "$HOST" kernels "$CORPUS/arduino_AddModel.pte" "$sel" 64 >"$OUT/select.log" 2>&1 ||
   [ "$(grep -c 'pte_register_kernels_ex(' "$sel")" != 1 ] ||
   ! grep -q 'pte_register_kernels_ex(pte_portable_binary_kernels, pte_portable_binary_kernels_count, err); /\* aten::add.out \*/' "$sel" ||
   grep -q 'pte_register_prim_ops' "$sel"; then
  echo "FAIL: pte_mcu_host kernels on arduino_AddModel.pte did not select exactly the portable binary family:" >&2
  cat "$OUT/select.log" "$sel" >&2
  fail=1
fi
rc=0
"$HOST" kernels "$CORPUS/arduino_AddModel.pte" "$OUT/select_small.c" 1 >"$OUT/select_small.log" 2>&1 || rc=$?
if [ "$rc" != 1 ] || ! grep -q "registry holds 1 (raise PTE_MAX_KERNELS)" "$OUT/select_small.log"; then
  echo "FAIL: pte_mcu_host kernels with a 1-kernel registry exited $rc: $(cat "$OUT/select_small.log")" >&2
  fail=1
fi
printf '%-5s %-11s %-12s %-6s %10s %10s %8s %12s\n' core board model result ram-need stack-hw pool-use instructions
for c in $CPUS; do
  case $c in
    m4) cpu=cortex-m4; board=mps2-an386 ;;
    m7) cpu=cortex-m7; board=mps2-an500 ;;
    m55) cpu=cortex-m55; board=mps3-an547 ;;
    *) echo "FAIL: unknown core $c (m4, m7 or m55)" >&2; exit 1 ;;
  esac
  B=$OUT/$c
  if ! { cmake -S "$SRC" -B "$B" -DPTE_MCU=ON -DCMAKE_TOOLCHAIN_FILE="$SRC/cmake/toolchain-arm-none-eabi.cmake" \
           -DPTE_MCU_CPU=$cpu -DCMAKE_BUILD_TYPE=MinSizeRel -DPTE_MCU_HOST_TOOL="$HOST" -DPTE_CORPUS_DIR="$CORPUS" \
           ${PTE_MCU_CMAKE_ARGS:-} >"$OUT/$c.configure.log" 2>&1 &&
         cmake --build "$B" -j "$JOBS" >"$OUT/$c.build.log" 2>&1; }; then
    echo "FAIL: cross build for $cpu (logs: $OUT/$c.configure.log, $OUT/$c.build.log)" >&2
    grep -E "error|Error" "$OUT/$c.configure.log" "$OUT/$c.build.log" | head -20 >&2
    fail=1
    continue
  fi
  # the exit status really comes from the board: the core alone (no kernels) must fail to load the
  # Arduino program with OperatorMissing, and QEMU must exit with the runner's step code 14
  rc=0
  timeout "$TIMEOUT" qemu-system-arm -M "$board" -nographic -monitor none -serial none -icount shift=0 \
    -semihosting-config enable=on,target=native -kernel "$B/pte_mcu_core_only.elf" >"$OUT/$c.core_only.board.txt" 2>&1 </dev/null || rc=$?
  if [ "$rc" != 14 ] || ! grep -q "^error: method load: OperatorMissing" "$OUT/$c.core_only.board.txt"; then
    echo "FAIL: pte_mcu_core_only on $board exited $rc (expected 14, method load: OperatorMissing):" >&2
    tail -n 5 "$OUT/$c.core_only.board.txt" >&2
    fail=1
  fi
  # every kernel registered (the footprint's "before selective registration" images) does not fit
  # the MCU's registry (PTE_MAX_KERNELS): registration must fail with RegistrationExceedingMaxKernels,
  # QEMU exiting with the runner's step code 10
  for m in arduino_add_all kws_all; do
    rc=0
    timeout "$TIMEOUT" qemu-system-arm -M "$board" -nographic -monitor none -serial none -icount shift=0 \
      -semihosting-config enable=on,target=native -kernel "$B/pte_mcu_$m.elf" >"$OUT/$c.$m.board.txt" 2>&1 </dev/null || rc=$?
    if [ "$rc" != 10 ] || ! grep -q "^error: register kernels: RegistrationExceedingMaxKernels: .*capacity" "$OUT/$c.$m.board.txt"; then
      echo "FAIL: pte_mcu_$m on $board exited $rc (expected 10, register kernels: RegistrationExceedingMaxKernels):" >&2
      tail -n 5 "$OUT/$c.$m.board.txt" >&2
      fail=1
    fi
  done
  for m in arduino_add kws; do
    case $m in
      arduino_add) pte=$CORPUS/arduino_AddModel.pte; in=$CORPUS/io/arduino_AddModel.input0.float32.bin ;;
      kws) pte=$B/kws.pte; in=$B/kws.input.bin ;;
    esac
    log=$OUT/$c.$m.board.txt
    ref=$OUT/$c.$m.host.txt
    rc=0
    timeout "$TIMEOUT" qemu-system-arm -M "$board" -nographic -monitor none -serial none -icount shift=0 \
      -semihosting-config enable=on,target=native -kernel "$B/pte_mcu_$m.elf" >"$log" 2>&1 </dev/null || rc=$?
    "$HOST" run "$pte" "$in" >"$ref" 2>&1 || { echo "FAIL: host run of $m: $(tail -n 3 "$ref")" >&2; fail=1; }
    result=PASS
    # the host run itself against an independent expectation: the Arduino sketch's documented
    # output [2, 3, 4] (corpus io/), the KWS network's numpy reference (kws_ref.py: pooled
    # features, logits, label)
    case $m in
      arduino_add)
        want="out 0 float32 3: $(od -An -v -tx4 "$CORPUS/io/arduino_AddModel.expected_output0.float32.bin" | tr -s ' \n' '  ' | sed 's/^ *//; s/ *$//')"
        if [ "$want" = "out 0 float32 3: " ] || ! grep -qxF "$want" "$ref"; then
          echo "FAIL: host output of arduino_add is not the expected [2, 3, 4] ($want)" >&2
          result=FAIL; fail=1
        fi ;;
      kws)
        if ! /usr/bin/python3 "$HERE/kws_ref.py" >"$OUT/$c.kws.numpy.txt" 2>&1; then
          echo "FAIL: kws_ref.py (needs /usr/bin/python3 with numpy): $(tail -n 2 "$OUT/$c.kws.numpy.txt")" >&2
          result=FAIL; fail=1
        else
          for k in 2 3; do
            line=$(grep "^out $k " "$OUT/$c.kws.numpy.txt")
            if [ -z "$line" ] || ! grep -qxF "$line" "$ref"; then
              echo "FAIL: host kws output $k differs from the numpy reference: $line" >&2
              result=FAIL; fail=1
            fi
          done
          label=$(sed -n 's/^label //p' "$OUT/$c.kws.numpy.txt")
          if [ -z "$label" ] || ! grep -qx "argmax 0: $label" "$ref" || ! grep -qx "argmax 0: $label" "$log"; then
            echo "FAIL: kws label (argmax of the probabilities) is not the numpy reference's $label" >&2
            result=FAIL; fail=1
          fi
        fi ;;
    esac
    if [ "$rc" != 0 ]; then
      echo "FAIL: $m on $board exited $rc (124 = timeout):" >&2
      tail -n 5 "$log" >&2
      result=FAIL
      fail=1
    elif ! "$HOST" compare "$ref" "$log" >"$OUT/$c.$m.compare.txt" 2>&1; then
      echo "FAIL: $m on $board differs from the host:" >&2
      cat "$OUT/$c.$m.compare.txt" >&2
      result=DIFF
      fail=1
    fi
    # RAM need = static arenas + .data + .bss + stack of the image; instructions from the SysTick
    # count and the runner's calibration loop (2000000 instructions)
    ram=$(arm-none-eabi-size -A "$B/pte_mcu_$m.elf" | awk '$1 == ".data" || $1 == ".bss" || $1 == ".stack" {s += $2} END {print s + 0}')
    hw=$(sed -n 's/^stack high-water: \([0-9]*\) of.*/\1/p' "$log")
    pool=$(sed -n 's/^loaded: method-pool used \([0-9]*\).*/\1/p' "$log")
    insn=$(sed -n 's/^execute systick: \([0-9]*\) ticks.*calibration 2000000 instructions = \([0-9]*\) ticks.*/\1 \2/p' "$log" |
      awk '$2 > 0 {printf "%.0f", $1 * 2000000 / $2}')
    printf '%-5s %-11s %-12s %-6s %10s %10s %8s %12s\n' "$c" "$board" "$m" "$result" "$ram" "${hw:-?}" "${pool:-?}" "${insn:-?}"
  done
done
[ "$fail" = 0 ] && echo "PASS: every model on every board equals the host"
exit "$fail"
