#!/bin/sh
# "-" where it makes sense: inspect and run read the program from stdin (also through a pipe as
# /dev/stdin); -o - is refused with one line (exit 2), no file named "-" appears.
set -eu
PTE=${PTE_CLI:?PTE_CLI not set}
CORPUS=${PTE_CORPUS:?PTE_CORPUS not set}
T=$(mktemp -d "${PTE_TMP:-/tmp}/stdin.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
fail() { echo "FAIL: $*" >&2; exit 1; }
f="$CORPUS/arduino_AddModel.pte"   # forward(x) = x + x (the corpus golden: ones -> 2)
out=$(cat "$f" | "$PTE" run - 2>&1) || fail "run -: $out"
echo "$out" | grep -q "output 0   float32\[3\] = \[2, 2, 2\]" || fail "run -: $out"
out=$(cat "$f" | "$PTE" run /dev/stdin 2>&1) || fail "run /dev/stdin (a pipe): $out"
echo "$out" | grep -q "= \[2, 2, 2\]" || fail "run /dev/stdin: $out"
out=$(cat "$f" | "$PTE" inspect - 2>&1) || fail "inspect -: $out"
echo "$out" | grep -q "^format     pte (program)" || fail "inspect -: $out"
size=$(wc -c < "$f")
cat "$f" | "$PTE" inspect --json - | python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(0 if d['file_size']==$size else 1)" \
  || fail "inspect --json -: wrong file_size"
cd "$T"
for verb in "synth mlp -o -" "migrate $f -o -" "prepare $f -o -"; do
  rc=0
  # shellcheck disable=SC2086
  msg=$("$PTE" $verb 2>&1) || rc=$?
  [ "$rc" -eq 2 ] || fail "$verb: exit $rc"
  echo "$msg" | grep -q "the output cannot go to stdout" || fail "$verb: $msg"
  [ ! -e "$T/-" ] || fail "$verb wrote a file named '-'"
done
echo "stdin and -o -: 1 passed, 0 failed"
