#!/bin/sh
# check.sh FBSGEN SRC_DIR TMP — ctest schema_regen: regenerates the schema code from SRC_DIR/schema
# into a temp dir and fails on any difference from the checked-in SRC_DIR/generated/pte_gen.
set -eu
fbsgen=$1
src=$2
tmp=$3/schema_regen.$$
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
[ -x "$fbsgen" ] || { echo "schema_regen: fbsgen not built at $fbsgen"; exit 1; }
ls "$src"/schema/*.fbs >/dev/null || { echo "schema_regen: no schema files in $src/schema"; exit 1; }
sh "$src/tools/fbsgen/regen.sh" "$fbsgen" "$src/schema" "$tmp"
n=$(ls "$tmp/pte_gen" | wc -l)
[ "$n" -gt 0 ] || { echo "schema_regen: fbsgen wrote nothing"; exit 1; }
if ! diff -r -u "$src/generated/pte_gen" "$tmp/pte_gen"; then
  echo "schema_regen: generated/pte_gen differs from what tools/fbsgen makes of schema/*.fbs" >&2
  echo "schema_regen: regenerate with \`make regen-schema\` and commit generated/" >&2
  exit 1
fi
echo "schema_regen: generated/pte_gen matches schema/*.fbs ($n files)"
