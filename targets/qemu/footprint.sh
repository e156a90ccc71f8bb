#!/bin/sh
# footprint.sh MCU_OUT [m4 m55 ...] — Thumb-2 footprint of pte (docs/mcu.md; `make footprint-mcu`).
# Reads the cross builds targets/qemu/run.sh left in MCU_OUT/<core>/ and its run logs:
#   1. .text/.rodata/.data/.bss of each archive (core runtime, portable/cortex_m/quantized kernels);
#   2. what the runner images link: the core's share of .text/.rodata (from the linker map) and the
#      whole image per section; pte_mcu_core_only is the runner with no kernels (the core alone);
#   3. each model's RAM need: method pool + planned buffers (static arenas, printed by the board
#      before it runs), the measured stack high-water mark (stack painting) and instructions per
#      inference (SysTick under -icount shift=0, calibrated);
#   3b. selective registration: each model's image with only its kernel families (pte_mcu_<m>)
#      against the same image registering every kernel (pte_mcu_<m>_all);
#   4. the budget: core .text linked in pte_mcu_core_only <= PTE_MCU_CORE_TEXT_BUDGET (default 32768 = 32 KiB), checked
#      on every core given. PASS / FAIL printed; exit 1 on FAIL or missing builds (with
#      PTE_MCU_BUDGET=report an over-budget core is printed as FAIL but does not fail the script).
set -eu
OUT=${1:?usage: footprint.sh MCU_OUT [m4 m55 ...]}
shift
CORES=${*:-m4 m55}
BUDGET=${PTE_MCU_CORE_TEXT_BUDGET:-32768}
SIZE=${SIZE:-arm-none-eabi-size}
fail=0

# sum of the sections of an archive or ELF by kind: prints "text rodata data bss"
sections() {
  "$SIZE" -A "$1" | awk '
    $1 ~ /^\.text/ {t += $2} $1 ~ /^\.rodata/ {r += $2} $1 ~ /^\.data/ {d += $2} $1 ~ /^\.bss/ {b += $2}
    END {printf "%d %d %d %d\n", t, r, d, b}'
}

# input sections of one archive kept in a linked image, from the map: prints "text rodata"
linked_from() { # map archive
  awk -v lib="$2" '
    function hex(s,   i, n) { s = tolower(s); sub(/^0x/, "", s); n = 0
      for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
      return n }
    function add(kind, sz, f) { if (index(f, lib "(") == 1) by[kind] += hex(sz) }
    /^Linker script and memory map/ { on = 1; next }
    !on { next }
    /^ \.(text|rodata)/ { k = ($1 ~ /^\.text/) ? "t" : "r"; if (NF >= 4) add(k, $3, $4); else pend = k; next }
    pend != "" { if (NF >= 3 && $1 ~ /^0x/) add(pend, $2, $3); pend = ""; next }
    END { printf "%d %d\n", by["t"], by["r"] }' "$1"
}

for c in $CORES; do
  B=$OUT/$c
  if [ ! -f "$B/libpte_core.a" ] || [ ! -f "$B/pte_mcu_arduino_add.elf" ]; then
    echo "FAIL: no cross build in $B (run targets/qemu/run.sh first)" >&2
    fail=1
    continue
  fi
  cpu=$(sed -n 's/^PTE_MCU_CPU:STRING=//p' "$B/CMakeCache.txt")
  echo "== $c ($cpu, -Os, Thumb-2): archives (bytes)"
  printf '  %-28s %9s %9s %7s %7s\n' library .text .rodata .data .bss
  for lib in pte_core pte_kernels_portable pte_kernels_cortex_m pte_kernels_quantized; do
    set -- $(sections "$B/lib$lib.a")
    printf '  %-28s %9d %9d %7d %7d\n' "$lib" "$1" "$2" "$3" "$4"
  done
  echo "== $c: linked images (bytes; .bss includes the static arenas, .stack the runner's stack)"
  printf '  %-28s %9s %9s %7s %7s %7s %12s %12s\n' image .text .rodata .data .bss .stack "core .text" "core .rodata"
  for elf in "$B"/pte_mcu_*.elf; do
    n=$(basename "$elf" .elf)
    set -- $(sections "$elf")
    st=$("$SIZE" -A "$elf" | awk '$1 == ".stack" {print $2}')
    set -- "$@" $(linked_from "$B/$n.map" libpte_core.a)
    printf '  %-28s %9d %9d %7d %7d %7d %12d %12d\n' "$n" "$1" "$2" "$3" "$4" "${st:-0}" "$5" "$6"
  done
  # selective registration (mcu_select.c): the image registering only the kernel families its
  # model needs against the same image registering every kernel of the three libraries
  echo "== $c: selective kernel registration (image bytes: every kernel registered -> the model's families only)"
  printf '  %-12s %15s %15s %17s %17s\n' model ".text all" ".text selected" ".rodata all" ".rodata selected"
  for m in arduino_add kws; do
    if [ ! -f "$B/pte_mcu_$m.elf" ] || [ ! -f "$B/pte_mcu_${m}_all.elf" ]; then
      echo "FAIL: $B/pte_mcu_$m.elf or pte_mcu_${m}_all.elf missing" >&2
      fail=1
      continue
    fi
    set -- $(sections "$B/pte_mcu_${m}_all.elf") $(sections "$B/pte_mcu_$m.elf")
    printf '  %-12s %15d %15d %17d %17d\n' "$m" "$1" "$5" "$2" "$6"
  done
  # the budget: the core alone (pte_mcu_core_only: the runner without kernels, as the host's
  # size_test); the runners above also link what kernels call into the core
  [ -f "$B/pte_mcu_core_only.map" ] || { echo "FAIL: $B/pte_mcu_core_only.map missing" >&2; fail=1; continue; }
  core_text=$(linked_from "$B/pte_mcu_core_only.map" libpte_core.a | awk '{print $1}')
  if [ "${core_text:-0}" -lt 4096 ]; then
    echo "FAIL: linked core .text ${core_text:-0} is implausibly small (map parsing broken?)" >&2
    fail=1
  elif [ "$core_text" -gt "$BUDGET" ]; then
    echo "FAIL: $c core runtime alone (pte_mcu_core_only) .text $core_text > budget $BUDGET bytes" >&2
    if [ "${PTE_MCU_BUDGET:-check}" = report ]; then
      echo "  (PTE_MCU_BUDGET=report: over budget reported, not enforced)"
    else
      fail=1
    fi
  else
    echo "== $c: core runtime alone (pte_mcu_core_only) .text $core_text bytes ($(awk -v n="$core_text" 'BEGIN {printf "%.1f", n / 1024}') KiB) <= budget $BUDGET: PASS"
  fi
  echo "== $c: model RAM need and cost (board output under QEMU)"
  printf '  %-12s %11s %9s %11s %12s %13s %14s\n' model method-pool planned pool-used stack-hw "RAM total" instructions
  for m in arduino_add kws; do
    log=$OUT/$c.$m.board.txt
    if [ ! -f "$log" ]; then
      echo "  $m: no board log ($log): run targets/qemu/run.sh" >&2
      fail=1
      continue
    fi
    set -- $(sed -n 's/^ram: method-pool \([0-9]*\) planned \([0-9]*\) .*/\1 \2/p' "$log")
    pool=${1:-0} planned=${2:-0}
    used=$(sed -n 's/^loaded: method-pool used \([0-9]*\).*/\1/p' "$log")
    hw=$(sed -n 's/^stack high-water: \([0-9]*\) of.*/\1/p' "$log")
    insn=$(sed -n 's/^execute systick: \([0-9]*\) ticks.*calibration 2000000 instructions = \([0-9]*\) ticks.*/\1 \2/p' "$log" |
      awk '$2 > 0 {printf "%.0f", $1 * 2000000 / $2}')
    printf '  %-12s %11s %9s %11s %12s %13s %14s\n' "$m" "$pool" "$planned" "${used:-?}" "${hw:-?}" \
      "$((pool + planned + ${hw:-0}))" "${insn:-?}"
  done
done
echo "(RAM total = method pool + planned buffers + stack high-water; the kernel registry, newlib and"
echo " the runner add the rest of .data/.bss shown above)"
[ "$fail" = 0 ] && echo "PASS"
exit "$fail"
