#!/bin/sh
# The libraries are layered one way (docs/architecture.md): every pte_ symbol a static library
# needs is defined in the library itself or in the layers below it that it may use. A library
# that needs a symbol from a layer above it, or one no allowed layer defines, fails the test; so
# does a library missing from the build. Checked on the archives with nm.
set -eu
B=$(dirname "${PTE_CLI:?PTE_CLI not set}")
command -v nm >/dev/null || { echo "FAIL: nm (binutils) is needed" >&2; exit 1; }
T=$(mktemp -d "${PTE_TMP:-/tmp}/layers.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
# library: the libraries it may use (transitively closed)
allowed() {
  case $1 in
    base) echo "" ;;
    format) echo "base" ;;
    runtime) echo "base format" ;;
    io) echo "base format runtime" ;;
    kernels_portable) echo "base format runtime" ;;
    kernels_quantized|kernels_cortex_m|kernels_custom|kernels_llm) echo "base format runtime kernels_portable" ;;
    backend_xnnpack) echo "base format runtime io" ;;
    writer) echo "base format runtime io" ;;
    prepare) echo "base format runtime io writer" ;;
    module) echo "base format runtime io kernels_portable kernels_quantized kernels_cortex_m kernels_custom kernels_llm backend_xnnpack writer prepare" ;;
    llm) echo "base format runtime io kernels_portable kernels_quantized kernels_cortex_m kernels_custom kernels_llm backend_xnnpack writer prepare module" ;;
  esac
}
libs="base format runtime io kernels_portable kernels_quantized kernels_cortex_m kernels_custom kernels_llm backend_xnnpack writer prepare module llm"
# docs/architecture.md states the same table ("| `lib` | may use | ..."): it must not drift from this one.
doc="$(cd "$(dirname "$0")/../.." && pwd)/docs/architecture.md"
[ -f "$doc" ] || { echo "FAIL: $doc is missing" >&2; exit 1; }
awk '/<!-- layers:/ {on = 1; next} on && /^$/ {exit} on && /^\| `/ {
       split($0, c, "|"); lib = c[2]; gsub(/[` ]/, "", lib); use = c[3]; gsub(/^ +| +$/, "", use);
       print lib ":" use }' "$doc" | sort > "$T/doc_table"
for l in $libs; do echo "$l:$(allowed "$l")"; done | sort > "$T/sh_table"
if ! diff "$T/sh_table" "$T/doc_table" > "$T/table_diff"; then
  echo "FAIL: the layer table in docs/architecture.md differs from tests/cli/layers.sh (< script, > doc):" >&2
  cat "$T/table_diff" >&2
  exit 1
fi
for l in $libs; do
  a="$B/libpte_$l.a"
  [ -f "$a" ] || { echo "FAIL: $a is missing" >&2; exit 1; }
  nm --defined-only "$a" | awk '$2 ~ /^[TDBRV]$/ && $3 ~ /^pte_/ {print $3}' | sort -u > "$T/def_$l"
  nm -u "$a" | awk '$2 ~ /^pte_/ {print $2}' | sort -u > "$T/und_$l"
done
bad=0
for l in $libs; do
  comm -23 "$T/und_$l" "$T/def_$l" > "$T/need"
  : > "$T/ok"
  for m in $(allowed "$l"); do cat "$T/def_$m" >> "$T/ok"; done
  sort -u "$T/ok" -o "$T/ok"
  comm -23 "$T/need" "$T/ok" > "$T/wrong"
  if [ -s "$T/wrong" ]; then
    bad=$((bad + 1))
    for s in $(head -5 "$T/wrong"); do
      from=""
      for m in $libs; do grep -qx "$s" "$T/def_$m" && from="$from $m"; done
      echo "FAIL: libpte_$l.a needs $s (defined in:${from:- nothing})" >&2
    done
  fi
done
[ "$bad" -eq 0 ] || exit 1
echo "$(echo $libs | wc -w) libraries, every dependency points down, docs/architecture.md agrees: 1 passed, 0 failed"
