#!/bin/sh
# schema_slots.sh — one source for the schema: outside the generated code (generated/pte_gen) and the
# generic flatbuffer reader/builder/verifier (src/format), no code names a schema vtable slot by hand.
# Every slot argument of a generic slot-taking call (pte_fb_get_*, pte_fb_field_pos, pte_fb_add_*,
# pte_fb_raw_*, pte_fb_verify_*) in src/ kernels/ backends/ tools/ must be a generated
# <prefix>_<Table>_<field>_SLOT name (or pte_rt_find_key's key_slot parameter, which its callers fill
# with one); a number, a hand-made constant (ND_KEY, PTE_S_PLAN_INPUTS) or any other expression fails.
# Use the generated accessors (pte_et_Tensor_sizes(t), pte_et_Tensor_sizes_at(b, pos)) instead.
set -u
root=${PTE_SCHEMA_SLOTS_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
FN='pte_fb_(get_[a-z0-9]+|field_pos|add_[a-z0-9_]+|raw_(field|obj|u8|u16|u32|u64|vec_of)|verify_(field|str|table_field|union|vec|vec_str|vec_table|enum_u8))'
ARG1='([^(),]|\([^()]*\))*'
OK='^(pte_[a-z]+_[A-Za-z0-9]+_[A-Za-z0-9_]+_SLOT|key_slot)$'

# scan FILE...: prints "file:line: call" for every slot argument that is not a generated name, and for
# every slot-taking call whose first two arguments are not on one line (so none escapes the check).
scan() {
  grep -nE "\\b$FN\\(" "$@" /dev/null | while IFS= read -r line; do
    loc=${line%%:*}; rest=${line#*:}; ln=${rest%%:*}; code=${rest#*:}
    calls=$(printf '%s\n' "$code" | grep -oE "\\b$FN\\($ARG1,[[:space:]]*[^,()]*[,)]")
    total=$(printf '%s\n' "$code" | grep -oE "\\b$FN\\(" | wc -l)
    found=$(printf '%s\n' "$calls" | grep -c . )
    if [ "$found" -lt "$total" ]; then echo "$loc:$ln: slot-taking call not on one line: $code"; fi
    printf '%s\n' "$calls" | grep . | while IFS= read -r call; do
      slot=$(printf '%s\n' "$call" | sed -E 's/.*,[[:space:]]*([^,()]*)[,)]$/\1/')
      printf '%s\n' "$slot" | grep -qE "$OK" || echo "$loc:$ln: hand-typed slot '$slot' in: $call"
    done
  done
}

# Self-check: the scanner flags a number, a hand constant and a split call, and passes generated names.
tmp=${PTE_TMP:-/tmp}/schema_slots.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/bad.c" <<'C'
x = pte_fb_get_vec(pte_fb_vec_table(v, i), 2);
y = pte_fb_get_u32(nd, ND_SEGMENT_INDEX, 0);
z = pte_fb_raw_u8(b, t,
                  3, 0);
C
cat >"$tmp/good.c" <<'C'
x = pte_fb_get_vec(pte_fb_vec_table(v, i), pte_et_Tensor_sizes_SLOT);
pte_fb_add_u64_forced(&b, pte_ft_DataSegment_offset_SLOT, segs[i].offset);
s = pte_fb_get_str(pte_fb_vec_table(entries, i), key_slot);
C
nbad=$(scan "$tmp/bad.c" | wc -l)
ngood=$(scan "$tmp/good.c" | wc -l)
if [ "$nbad" -ne 3 ] || [ "$ngood" -ne 0 ]; then
  echo "schema_slots: self-check failed (flagged $nbad of 3 bad lines, $ngood of 0 good lines):"
  scan "$tmp/bad.c" "$tmp/good.c"
  exit 1
fi

files=$(cd "$root" && find src kernels backends tools -name '*.[ch]' ! -path 'src/format/*' ! -path 'tools/fbsgen/*' | sort)
[ -n "$files" ] || { echo "schema_slots: no sources found under $root"; exit 1; }
out=$(cd "$root" && scan $files)
# Hand-written unchecked readers or slot tables (program.c had vf/vobj/vu8 over `unsigned slot`).
helpers=$(cd "$root" && grep -nE '\bunsigned[[:space:]]+slot\b|(pte_fb_table|uint32_t)[[:space:]]+[a-z_]+,[[:space:]]*(int|uint32_t|size_t)[[:space:]]+slot\b' $files)
if [ -n "$out$helpers" ]; then
  [ -n "$out" ] && printf '%s\n' "$out"
  [ -n "$helpers" ] && printf '%s\n' "$helpers" | sed 's/$/   <- a function taking a schema slot: use the generated accessors/'
  echo "schema_slots: schema slots named by hand outside generated/pte_gen (see above); use the generated" \
       "<prefix>_<Table>_<field>() / _at() accessors or _SLOT names (docs/schema.md)"
  exit 1
fi
n=$(printf '%s\n' $files | wc -l)
echo "schema_slots: no hand-typed schema slot in $n files (src kernels backends tools; self-check flagged 3/3)"
