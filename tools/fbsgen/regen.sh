#!/bin/sh
# regen.sh FBSGEN SCHEMA_DIR OUT_DIR — runs the host tool fbsgen on every SCHEMA_DIR/*.fbs and writes
# OUT_DIR/pte_gen/<name>_gen.h, <name>_gen.c and <name>_gen_json.c (each schema names its own
# prefix in a `// fbsgen: prefix` comment). `make regen-schema` runs it into generated/ (checked in);
# ctest schema_regen runs it into a temp dir and compares (tools/fbsgen/check.sh).
set -eu
fbsgen=$1
schema_dir=$2
out=$3
mkdir -p "$out/pte_gen"
for fbs in "$schema_dir"/*.fbs; do
  name=$(basename "$fbs" .fbs)
  prefix=$(sed -n 's|^// fbsgen: prefix \([A-Za-z0-9_]*\).*|\1|p' "$fbs" | head -n 1)
  [ -n "$prefix" ] || { echo "regen.sh: $fbs has no \`// fbsgen: prefix NAME\` line" >&2; exit 1; }
  "$fbsgen" --prefix "$prefix" --include-dir "$schema_dir" --out-h "$out/pte_gen/${name}_gen.h" --out-c "$out/pte_gen/${name}_gen.c" \
    --out-json "$out/pte_gen/${name}_gen_json.c" "$fbs"
done
