#!/bin/sh
# Cortex-M under QEMU (docs/mcu.md): cross-builds the runner for M4 (mps2-an386), M7 (mps2-an500)
# and M55 (mps3-an547), runs the corpus's Arduino program and the int8 KWS network on each board and
# requires the printed outputs to equal the host build's (int8 bit for bit, float32 within 1e-5),
# the host's to equal independent expectations (the sketch's documented output; a numpy reference).
# Exits 77 (ctest: skipped) only when gcc-arm-none-eabi, newlib or qemu-system-arm is missing.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(dirname "${PTE_CLI:?PTE_CLI must point at the host build's pte}")
exec sh "$HERE/../../targets/qemu/run.sh" "$B" "$B/mcu"
