#!/bin/sh
# ctest amalgamation: `make amalgamation` output builds alone and runs a corpus model.
#   run.sh SOURCE_DIR BUILD_DIR CC PYTHON CORPUS_DIR
# Writes BUILD_DIR/amalgamation/{pte.h,pte.c,pte_kernels.c} with tools/amalgamate.py, compiles each
# unit with -std=c11 -Wall -Wextra -Wpedantic -Werror (no include path into the source tree; also
# for Cortex-M4 when arm-none-eabi-gcc is installed), links
# tests/amalgamation/amalg_main.c against them and runs arduino_AddModel.pte (x + 1 through the
# portable add.out) on the corpus input, comparing with the golden published with the upstream
# model (corpus io/, MANIFEST.md). A missing corpus file is a failure.
set -eu
S=$1 B=$2 CC=$3 PY=$4 C=$5
A="$B/amalgamation"
for f in arduino_AddModel.pte io/arduino_AddModel.input0.float32.bin io/arduino_AddModel.expected_output0.float32.bin; do
  [ -s "$C/$f" ] || { echo "FAIL: corpus file $C/$f is missing or empty" >&2; exit 1; }
done
"$PY" "$S/tools/amalgamate.py" --out "$A"
O="$A/obj"
rm -rf "$O" && mkdir -p "$O"
W="-std=c11 -Wall -Wextra -Wpedantic -Werror -O2"
for u in pte pte_kernels; do
  "$CC" $W -c "$A/$u.c" -o "$O/$u.o" || { echo "FAIL: $A/$u.c does not compile with $W" >&2; exit 1; }
done
# the same two units for a Cortex-M4 when the cross compiler is there (.ci/run installs it)
if command -v arm-none-eabi-gcc >/dev/null 2>&1; then
  for u in pte pte_kernels; do
    arm-none-eabi-gcc $W -Os -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -c "$A/$u.c" -o "$O/$u.m4.o" ||
      { echo "FAIL: $A/$u.c does not compile for Cortex-M4 with $W" >&2; exit 1; }
  done
  echo "amalgamation: pte.c and pte_kernels.c also compile for Cortex-M4 (arm-none-eabi-gcc)"
fi
"$CC" $W -I"$A" "$S/tests/amalgamation/amalg_main.c" "$O/pte.o" "$O/pte_kernels.o" -lm -o "$O/amalg_main"
"$O/amalg_main" "$C/arduino_AddModel.pte" "$C/io/arduino_AddModel.input0.float32.bin" \
  "$C/io/arduino_AddModel.expected_output0.float32.bin"
