#!/bin/sh
# Runs tools/demo.sh (what `make demo` shows) with a small MLP (PTE_DEMO_WIDTH=128) in a temp dir
# and checks its key lines: prepare replaced the weights and kept the outputs identical, the
# denoise model has 1 delegate / 10 calls / 1 init shared and 10 / 10 / 10 unshared with identical
# outputs, a summary line; and the demo's temp dir is gone afterwards.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
B=$(dirname "${PTE_CLI:?PTE_CLI not set}")
T=$(mktemp -d "${PTE_TMP:-/tmp}/demo.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
fail() { echo "FAIL: $*" >&2; echo "---- demo output:" >&2; cat "$T/out" >&2; exit 1; }

TMPDIR=$T PTE_DEMO_WIDTH=128 sh "$SRC/tools/demo.sh" "$B" >"$T/out" 2>&1 || fail "demo exited with $?"
has() { grep -Eq "$1" "$T/out" || fail "no line matching '$1'"; }
has '^   mlp\.pte +[0-9.]+ MiB +4 x Linear 128x128 \+ ReLU, all in 1 XNNPACK delegate'
has '^   load_method +[0-9.]+ ms +method load'
has '^   execute +[0-9.]+ ms'
has '^   replaced +4 +weight tensors now stored packed'
has '^   load_method +[0-9.]+ ms +-> [0-9.]+ ms +\([0-9]+x faster\)'
has '^   delegates +1 +10 '
has '^   delegate calls +10 +10 '
has '^   backend inits +1 +10 '
has '^summary: .* same outputs; 10 delegate calls share 1 init'
[ "$(grep -Ec '^   outputs +identical' "$T/out")" -eq 2 ] || fail "expected two 'outputs identical' lines"
# the demo cleans up its own temp dir
left=$(find "$T" -maxdepth 1 -name 'pte-demo.*' | wc -l)
[ "$left" -eq 0 ] || fail "demo left its temp dir behind"
echo "ok: demo"
