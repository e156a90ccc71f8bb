#!/bin/sh
# footprint.sh BUILD_DIR [--no-budget] — core runtime footprint report and checks (docs/footprint.md).
#
# Reads what the pte_core / pte_size_test targets produced in BUILD_DIR:
#   libpte_core.a          the core runtime library (compiled -Os, one section per function)
#   pte_size_test          tests/footprint/size_test.c linked against it with --gc-sections
#   pte_size_test.map      the linker map of that link
# and
#   1. checks that the core references no heap, stdio or OS function: every symbol the archive
#      leaves undefined must be on a short allow-list (mem*/str* and sanitizer/compiler runtime);
#   2. runs the size test (identity model -> exit 0; a model with an operator -> 30, "operator
#      missing", since the core links no kernels) when PTE_CORPUS is set;
#   3. prints .text per object (whole archive, and what the size test links) and the totals;
#   4. fails if the linked core .text exceeds PTE_CORE_TEXT_BUDGET (default 51200 = 50 KiB) —
#      only for GCC on x86-64 without sanitizers/coverage (the budget is defined for that build;
#      other compilers are reported, e.g. clang 14 -Os is ~10% larger).
set -eu
B=${1:-}
[ -n "$B" ] || { echo "usage: footprint.sh BUILD_DIR [--no-budget]" >&2; exit 2; }
CHECK_BUDGET=1
[ "${2:-}" = "--no-budget" ] && CHECK_BUDGET=0
BUDGET=${PTE_CORE_TEXT_BUDGET:-51200}
NM=${NM:-nm}
SIZE=${SIZE:-size}
LIB=$B/libpte_core.a
EXE=$B/pte_size_test
MAP=$B/pte_size_test.map
for f in "$LIB" "$EXE" "$MAP"; do
  [ -f "$f" ] || { echo "FAIL: $f missing (build the pte_core and pte_size_test targets)" >&2; exit 1; }
done
TMP=${TMPDIR:-/tmp}/pte_footprint.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT INT TERM
fail=0

# ---- 1. undefined symbols of the core archive
"$NM" -g --defined-only "$LIB" 2>/dev/null | awk 'NF >= 3 {print $3}' | sort -u >"$TMP/defined"
"$NM" -u "$LIB" 2>/dev/null | awk 'NF >= 2 && $1 == "U" {print $2} NF == 1 && $1 !~ /:$/ {print $1}' | sort -u >"$TMP/undef"
comm -23 "$TMP/undef" "$TMP/defined" >"$TMP/external"
# Allowed: freestanding memory/string functions the compiler may emit anyway, and runtime hooks of
# instrumented builds. Everything else (malloc/free, printf/puts/fopen..., open/read/mmap, abort)
# is a violation of the core's contract.
grep -Ev '^(memcpy|memmove|memset|memcmp|bcmp|memchr|strlen|strnlen|strcmp|strncmp|strchr|strrchr|__stack_chk_fail|_GLOBAL_OFFSET_TABLE_|__(asan|ubsan|tsan|msan|sanitizer|sancov|gcov|llvm)_.*|__sanitizer_cov_.*|__(a|t|m)san_.*)$' \
  "$TMP/external" >"$TMP/bad" || true
echo "== core runtime external references ($(wc -l <"$TMP/external" | tr -d ' ') symbols): $(grep -Ev '^__(asan|ubsan|tsan|msan|sanitizer|sancov|gcov|llvm)' "$TMP/external" | tr '\n' ' ')"
if [ -s "$TMP/bad" ]; then
  echo "FAIL: the core runtime references symbols outside the allow-list (heap/stdio/OS):" >&2
  for s in $(cat "$TMP/bad"); do
    # nm -A prints "archive:member: U symbol"
    objs=$("$NM" -A -u "$LIB" 2>/dev/null | awk -v s="$s" '$NF == s {n = split($1, a, ":"); print (n >= 2 ? a[2] : a[1])}' | sort -u | tr '\n' ' ')
    echo "  $s  (from: $objs)" >&2
  done
  fail=1
fi
# Name the classic offenders explicitly, so a regression message is obvious.
for s in malloc calloc realloc free posix_memalign aligned_alloc printf fprintf sprintf snprintf vsnprintf \
         puts fputs putchar fwrite fopen fclose stdout stderr __printf_chk __fprintf_chk __snprintf_chk; do
  if grep -qx "$s" "$TMP/external"; then echo "FAIL: core references $s" >&2; fail=1; fi
done

# ---- 2. run the size test
if [ -n "${PTE_CORPUS:-}" ] && [ -f "$PTE_CORPUS/berry_identity.pte" ]; then
  rc=0; "$EXE" "$PTE_CORPUS/berry_identity.pte" || rc=$?
  if [ "$rc" != 0 ]; then echo "FAIL: pte_size_test berry_identity.pte exited $rc (expected 0)" >&2; fail=1; fi
  rc=0; "$EXE" "$PTE_CORPUS/berry_two.pte" || rc=$?
  if [ "$rc" != 30 ]; then echo "FAIL: pte_size_test berry_two.pte exited $rc (expected 30: operator missing)" >&2; fail=1; fi
  rc=0; "$EXE" "$B/nonexistent.pte" 2>/dev/null || rc=$?
  if [ "$rc" != 2 ]; then echo "FAIL: pte_size_test on a missing file exited $rc (expected 2)" >&2; fail=1; fi
  [ "$fail" = 0 ] && echo "== pte_size_test: identity model runs (exit 0); add model without kernels -> operator missing (exit 30)"
fi

# ---- 3. sizes
# whole archive: .text of every member (size -A prints one block per member)
"$SIZE" -A "$LIB" | awk '
  /\(ex / { name = $1; sub(/ *:$/, "", name); next }
  $1 ~ /^\.text/ { t[name] += $2 }
  $1 ~ /^\.rodata/ { r[name] += $2 }
  END { for (n in t) printf "%s %d %d\n", n, t[n], r[n] }' | sort >"$TMP/archive"
# linked: .text input sections kept in the size test, per input file (from the map)
awk '
  function hex(s,   i, n) { s = tolower(s); sub(/^0x/, "", s); n = 0
    for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
    return n }
  /^Linker script and memory map/ { on = 1; next }
  !on { next }
  /^ \.text/ { if (NF >= 4) { add($3, $4) } else { pend = 1 } ; next }
  pend { pend = 0; if (NF >= 3 && $1 ~ /^0x/) add($2, $3); next }
  function add(sz, f) { f2 = f; sub(/.*\//, "", f2); by[f2] += hex(sz) }
  END { for (f in by) if (by[f] > 0) printf "%s %d\n", f, by[f] }' "$MAP" | sort >"$TMP/linked"

echo "== core runtime .text per object (bytes; -Os)"
printf '  %-28s %10s %10s %14s\n' object "archive" "linked" "archive .rodata"
awk 'NR == FNR { l[$1] = $2; next }
     { n = $1; key = "libpte_core.a(" n ")"; v = (key in l) ? l[key] : 0
       printf "  %-28s %10d %10d %14d\n", n, $2, v, $3; ta += $2; tl += v; tr += $3 }
     END { printf "  %-28s %10d %10d %14d\n", "TOTAL", ta, tl, tr }' "$TMP/linked" "$TMP/archive"
core_linked=$(awk '$1 ~ /^libpte_core\.a\(/ {s += $2} END {print s + 0}' "$TMP/linked")
other_linked=$(awk '$1 !~ /^libpte_core\.a\(/ {s += $2} END {print s + 0}' "$TMP/linked")
exe_text=$("$SIZE" -A "$EXE" | awk '$1 == ".text" {print $2}')
"$SIZE" -A "$LIB" | awk '$1 ~ /^\.(data|data\.rel\.ro)($|\.)/ {d += $2} $1 ~ /^\.bss($|\.)/ {b += $2}
  END {printf "== core runtime static data: .data + .data.rel.ro %d bytes, .bss %d bytes (largest .bss: ", d, b}'
"$SIZE" -A "$LIB" | awk '/\(ex / {name = $1; sub(/ *:$/, "", name); next} $1 ~ /^\.bss($|\.)/ {b[name] += $2}
  END {m = ""; for (n in b) if (m == "" || b[n] > b[m]) m = n; printf "%s %d)\n", m, b[m]}'
echo "== pte_size_test: .text $exe_text bytes = core $core_linked + size_test.c and C runtime startup $other_linked (+ alignment)"
echo "== linked core runtime .text: $core_linked bytes ($(awk -v n="$core_linked" 'BEGIN {printf "%.1f", n / 1024}') KiB); budget $BUDGET"

# ---- 4. budget
instrumented=0
grep -Eq '^__(asan|ubsan|tsan|msan|sanitizer|sancov|gcov|llvm)' "$TMP/external" && instrumented=1
arch=$(uname -m)
compiler=$(sed -n 's/^set(CMAKE_C_COMPILER_ID "\(.*\)")$/\1/p' "$B"/CMakeFiles/*/CMakeCCompiler.cmake 2>/dev/null | head -n 1)
compiler=${compiler:-GNU}
if [ "$CHECK_BUDGET" = 1 ] && [ "$instrumented" = 0 ] && [ "$arch" = x86_64 ] && [ "$compiler" = GNU ]; then
  if [ "$core_linked" -gt "$BUDGET" ]; then
    echo "FAIL: linked core runtime .text $core_linked > budget $BUDGET bytes" >&2
    fail=1
  fi
  if [ "$core_linked" -lt 10000 ]; then
    echo "FAIL: linked core .text $core_linked is implausibly small (map parsing broken?)" >&2
    fail=1
  fi
else
  echo "== budget not checked (arch $arch, compiler $compiler, instrumented $instrumented, check $CHECK_BUDGET)"
fi
[ "$fail" = 0 ] && echo "PASS"
exit "$fail"
