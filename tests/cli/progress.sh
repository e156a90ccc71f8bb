#!/bin/sh
# One progress reporter for the long phases of synth (hashing, writing), migrate and prepare: a
# bar on a terminal (run under script(1) for a pseudo-terminal), none when stderr is not a
# terminal, none with -q; same style everywhere ("<phase> [####....] NN%  a / b MiB").
set -eu
PTE=${PTE_CLI:?PTE_CLI not set}
T=$(mktemp -d "${PTE_TMP:-/tmp}/progress.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v script >/dev/null || fail "script(1) (util-linux) is needed"
tty_run() { script -qc "$1" /dev/null </dev/null | tr '\r' '\n'; }
bar='^(hashing|writing) +\[[#.]{20}\] +[0-9]+%  [0-9.]+ / [0-9.]+ (MiB|GiB)'

out=$(tty_run "'$PTE' synth large -o '$T/a.pte' --size 64M --delegate xnnpack")
echo "$out" | grep -Eq "^hashing +\[" || fail "synth: no hashing bar on a terminal"
echo "$out" | grep -Eq "^writing +\[####################\] 100%" || fail "synth: no finished writing bar"
echo "$out" | grep -Eq "$bar" || fail "synth: bar not in the common style"
out=$(tty_run "'$PTE' migrate '$T/a.pte' -o '$T/b.pte'")
echo "$out" | grep -Eq "$bar" || fail "migrate: no bar on a terminal"
out=$(tty_run "'$PTE' prepare '$T/a.pte' -o '$T/c.pte' --no-fsync")
echo "$out" | grep -q "preparing XnnpackBackend" || fail "prepare: no phase line"
echo "$out" | grep -Eq "$bar" || fail "prepare: no bar on a terminal"
# -q, and stderr not a terminal: no bar
out=$(tty_run "'$PTE' synth large -o '$T/a.pte' --size 64M -q")
echo "$out" | grep -q '\[#' && fail "synth -q printed a bar"
out=$(tty_run "'$PTE' migrate '$T/a.pte' -o '$T/b.pte' -q")
echo "$out" | grep -q '\[#' && fail "migrate -q printed a bar"
out=$("$PTE" synth large -o "$T/a.pte" --size 64M 2>&1)
echo "$out" | grep -q '\[#' && fail "synth printed a bar into a pipe"
echo "progress bars: 1 passed, 0 failed"
