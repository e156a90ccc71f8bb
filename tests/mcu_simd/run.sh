#!/bin/sh
# tests/mcu_simd/run.sh SRC_DIR [WORK_DIR]
# 1. Cross-compiles every kernels/cortex_m source with -Werror for Cortex-M4F, M7, M55 (with and
#    without Helium) and M0+ (no DSP extension: the portable build) and checks the DSP objects use
#    SMLAD and the Helium one VMLADAVA.
# 2. Builds tests/mcu_simd/simd_exact.c + the DSP routines bare-metal (with the runner's startup,
#    board linker scripts and semihosting from targets/qemu: one copy) and runs it under
#    qemu-system-arm on mps2-an386 (M4), mps2-an500 (M7) and mps3-an547 (M55); every board must
#    print 0 mismatches.
# 3. Builds the keyword-spotting stack of bench/q8_conv over the real cortex_m kernels (plus the
#    runtime and portable kernel utilities they use) for M4 (DSP) and M55 (Helium), runs it
#    under `-icount shift=0` once with the portable loops and once with the SIMD path: the
#    outputs must be bit-identical, and the instruction counts are printed (the on-target cost
#    proxy; QEMU does not model timing).
# Exit 77 (skip) when arm-none-eabi-gcc is missing; the QEMU parts are skipped (with a message)
# when qemu-system-arm is missing.
set -eu
SRC=${1:?source dir}
WORK=${2:-$(mktemp -d)}
mkdir -p "$WORK"
command -v arm-none-eabi-gcc >/dev/null 2>&1 || { echo "arm-none-eabi-gcc not installed: skip"; exit 77; }
CFLAGS="-std=c11 -mthumb -Os -ffunction-sections -fdata-sections -Wall -Wextra -Werror -I$SRC/include -I$SRC/kernels -I$SRC/src"
fail=0
for cpu in "cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard" "cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard" \
           "cortex-m55 -mfloat-abi=soft" "cortex-m55 -mfloat-abi=hard" "cortex-m0plus"; do
  name=$(echo "$cpu" | cut -d' ' -f1)
  case $cpu in cortex-m55*hard*) name=$name-hard ;; esac
  for f in "$SRC"/kernels/cortex_m/*.c; do
    o="$WORK/$name-$(basename "$f" .c).o"
    # shellcheck disable=SC2086
    arm-none-eabi-gcc $CFLAGS -mcpu=$cpu -c "$f" -o "$o" || { echo "FAIL: $f for $name"; fail=1; }
  done
  n=$(arm-none-eabi-objdump -d "$WORK/$name-cm_simd_arm.o" | grep -c -i 'smlad' || true)
  case $name in
    cortex-m0plus) [ "$n" -eq 0 ] || { echo "FAIL: SMLAD on $name"; fail=1; } ;;
    *) [ "$n" -gt 0 ] || { echo "FAIL: no SMLAD in the $name DSP path"; fail=1; } ;;
  esac
  v=$(arm-none-eabi-objdump -d -m armv8.1-m.main "$WORK/$name-cm_simd_mve.o" | grep -c -i -E 'vmla(da)?va' || true)
  case $name in
    cortex-m55-hard) [ "$v" -gt 0 ] || { echo "FAIL: no VMLADAVA in the $name Helium path"; fail=1; } ;;
    *) [ "$v" -eq 0 ] || { echo "FAIL: Helium code for $name"; fail=1; } ;;
  esac
  echo "compiled kernels/cortex_m for $name (SMLAD in cm_simd_arm.o: $n, VMLADAVA in cm_simd_mve.o: $v)"
done
[ $fail -eq 0 ] || exit 1
if ! command -v qemu-system-arm >/dev/null 2>&1; then
  echo "qemu-system-arm not installed: bare-metal run skipped"
  exit 0
fi
for board in "mps2-an386 cortex-m4 soft" "mps2-an500 cortex-m7 soft" "mps3-an547 cortex-m55 soft" \
             "mps3-an547 cortex-m55 hard"; do
  # shellcheck disable=SC2086
  set -- $board
  elf="$WORK/simd_exact-$2-$3.elf"
  rm -f "$elf"
  # the runner's startup, board linker script and semihosting (targets/qemu), newlib-nano's memcpy
  # shellcheck disable=SC2086
  arm-none-eabi-gcc -std=c11 -mthumb -mcpu=$2 -mfloat-abi=$3 -O2 -nostartfiles \
    -Wall -Wextra -Werror -I$SRC/include -I$SRC/kernels -I$SRC/src -I$SRC/targets/qemu \
    -L "$SRC/targets/qemu" -T "$SRC/targets/qemu/mps-${1#mps[23]-}.ld" "$SRC/targets/qemu/startup.c" \
    "$SRC/tests/mcu_simd/simd_exact.c" "$SRC/kernels/cortex_m/cm_simd_arm.c" \
    "$SRC/kernels/cortex_m/cm_simd_mve.c" -Wl,--start-group -lc_nano -lgcc -lnosys -Wl,--end-group \
    -o "$elf" 2>&1 | grep -v 'is not implemented and will always fail' || true
  [ -f "$elf" ] || { echo "FAIL: simd_exact link for $2"; fail=1; continue; }
  out=$(timeout 300 qemu-system-arm -M "$1" -nographic -monitor none -serial none \
        -semihosting-config enable=on,target=native -kernel "$elf" 2>&1) && rc=0 || rc=$?
  echo "$1 ($2, float-abi=$3): $out (exit $rc)"
  case $out in
    *" 0 mismatches"*) [ "$rc" -eq 0 ] || fail=1 ;;
    *) fail=1 ;;
  esac
done
for board in "mps2-an386 cortex-m4 soft" "mps3-an547 cortex-m55 hard"; do
  # shellcheck disable=SC2086
  set -- $board
  obj="$WORK/kws-$2"
  rm -rf "$obj"
  mkdir -p "$obj"
  for f in "$SRC"/src/base/*.c "$SRC"/src/runtime/*.c "$SRC"/kernels/portable/util/*.c \
           "$SRC"/kernels/cortex_m/*.c "$SRC"/tests/mcu_simd/kws_icount.c "$SRC"/targets/qemu/startup.c; do
    # shellcheck disable=SC2086
    arm-none-eabi-gcc -std=c11 -mthumb -mcpu=$2 -mfloat-abi=$3 -O2 -ffunction-sections -fdata-sections \
      -Wall -Wextra -Werror -I$SRC/include -I$SRC/kernels -I$SRC/src -I$SRC/generated -I$SRC/targets/qemu \
      -c "$f" -o "$obj/$(basename "$(dirname "$f")")_$(basename "$f" .c).o" || { fail=1; continue; }
  done
  # shellcheck disable=SC2086
  arm-none-eabi-gcc -mthumb -mcpu=$2 -mfloat-abi=$3 -nostartfiles -L "$SRC/targets/qemu" -T "$SRC/targets/qemu/mps-${1#mps[23]-}.ld" \
    -Wl,--gc-sections "$obj"/*.o -Wl,--start-group -lc_nano -lm -lgcc -lnosys -Wl,--end-group \
    -o "$obj/kws.elf" 2>&1 | grep -v 'is not implemented and will always fail' || true
  [ -f "$obj/kws.elf" ] || { echo "FAIL: kws link for $2"; fail=1; continue; }
  out=$(timeout 300 qemu-system-arm -M "$1" -nographic -monitor none -serial none -icount shift=0 \
        -semihosting-config enable=on,target=native -kernel "$obj/kws.elf" 2>&1) && rc=0 || rc=$?
  echo "KWS stack on $1 ($2):"
  echo "$out" | sed 's/^/  /'
  case $out in
    *"identical: yes"*) [ "$rc" -eq 0 ] || fail=1 ;;
    *) fail=1 ;;
  esac
done
exit $fail
