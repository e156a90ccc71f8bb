#!/bin/sh
# Every writing verb (synth, migrate, prepare, run --output-dir) interrupted by SIGINT, SIGTERM or
# SIGHUP at spread-out points leaves nothing behind: no temp file, no lock file, and the
# destination either absent or complete (byte-identical to an uninterrupted run's). A leftover of a
# killed writer (SIGKILL cannot be caught) is removed by the next writer of the same destination.
# A destination whose directory cannot be written fails with exit 1 and a message naming the path
# and the reason, leaving nothing either.
set -eu
B=$(dirname "${PTE_CLI:?PTE_CLI not set}")
PTE=$PTE_CLI
T=$(mktemp -d "${PTE_TMP:-/tmp}/interrupt.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
fail() { echo "FAIL: $*" >&2; ls -la "$T/out" >&2 || true; exit 1; }
mkdir "$T/in" "$T/out"

# inputs and the uninterrupted outputs
"$PTE" synth large -o "$T/in/big.pte" --size 192M >/dev/null
"$PTE" synth large -o "$T/ref_synth.pte" --size 192M --seed 7 >/dev/null
"$PTE" migrate "$T/in/big.pte" -o "$T/ref_migrate.pte" >/dev/null
"$PTE" prepare "$T/in/big.pte" -o "$T/ref_prepare.pte" -q >/dev/null
"$PTE" synth mlp -o "$T/in/mlp.pte" --widths 512,512,512 >/dev/null

leftovers() { find "$T/out" -name '.*.tmp' -o -name '.*.lock' | head -5; }

# verb command lines writing $T/out/x (the run verb writes $T/out/npy/forward.output0.npy)
cmd() {
  case $1 in
    synth) echo synth large -o "$T/out/x.pte" --size 192M --seed 7 ;;
    migrate) echo migrate "$T/in/big.pte" -o "$T/out/x.pte" ;;
    prepare) echo prepare "$T/in/big.pte" -o "$T/out/x.pte" --no-fsync -q ;;
    run) echo run "$T/in/mlp.pte" --num-executions 2000 --print-output none --output-dir "$T/out/npy" ;;
  esac
}

rounds=0
for verb in synth migrate prepare run; do
  i=0
  for sig in INT TERM HUP INT TERM HUP; do
    i=$((i + 1))
    rm -rf "$T/out"/* "$T/out"/.[!.]* 2>/dev/null || true
    # shellcheck disable=SC2046
    "$PTE" $(cmd $verb) >/dev/null 2>&1 &
    pid=$!
    # delays spread over the run: 0.02 s .. 0.6 s
    sleep "0.$(printf '%02d' $((i * i * 2)))"
    kill -s "$sig" "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rounds=$((rounds + 1))
    left=$(leftovers)
    [ -z "$left" ] || fail "$verb after SIG$sig (round $i): left behind: $left"
    case $verb in
      run) ;;
      *) if [ -f "$T/out/x.pte" ]; then cmp -s "$T/out/x.pte" "$T/ref_$verb.pte" || fail "$verb after SIG$sig: incomplete destination"; fi ;;
    esac
  done
done

# SIGKILL cannot be cleaned up by the process: the next writer of the destination removes it
rm -rf "$T/out"/* "$T/out"/.[!.]* 2>/dev/null || true
"$PTE" synth large -o "$T/out/x.pte" --size 192M --seed 7 >/dev/null 2>&1 &
pid=$!
sleep 0.2
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
"$PTE" synth large -o "$T/out/x.pte" --size 192M --seed 7 >/dev/null || fail "synth after a SIGKILL failed"
left=$(leftovers)
[ -z "$left" ] || fail "the next synth did not remove the killed one's temp file: $left"
cmp -s "$T/out/x.pte" "$T/ref_synth.pte" || fail "synth after SIGKILL: output differs"

# a destination directory that cannot be written (a path through a regular file)
: > "$T/notadir"
for verb in synth migrate prepare; do
  case $verb in
    synth) set -- synth mlp -o "$T/notadir/x.pte" --widths 4,4 ;;
    migrate) set -- migrate "$T/in/mlp.pte" -o "$T/notadir/x.pte" ;;
    prepare) set -- prepare "$T/in/mlp.pte" -o "$T/notadir/x.pte" ;;
  esac
  rc=0
  out=$("$PTE" "$@" 2>&1) || rc=$?
  [ "$rc" -eq 1 ] || fail "$verb into a non-directory: exit $rc"
  echo "$out" | grep -q "$T/notadir" || fail "$verb: the message does not name the directory: $out"
  echo "$out" | grep -qi "not a directory" || fail "$verb: the message does not say why: $out"
done
rc=0
out=$("$PTE" run "$T/in/mlp.pte" --output-dir "$T/notadir/o" 2>&1) || rc=$?
[ "$rc" -eq 1 ] || fail "run --output-dir through a file: exit $rc"
echo "$out" | grep -q "$T/notadir" || fail "run: the message does not name the directory: $out"
echo "$out" | grep -q "execute" && fail "run: the model ran before the output directory was checked: $out"
[ ! -s "$T/notadir" ] || fail "something was written into the file"
echo "$rounds interrupted runs + SIGKILL + unwritable destinations: 1 passed, 0 failed"
