#!/bin/sh
# Every verb's --json output is one strict JSON document in valid UTF-8 (or nothing): run over every
# input of the malformed catalogue (inspect, run, test, prepare, migrate), a file whose strings
# hold a byte that is not UTF-8, the corpus, and bad command lines. Parsed by Python's json module
# (strict: NaN/Infinity rejected, input decoded as strict UTF-8). Failures must be an object with
# "ok": false, the exit code and, when the message names one, the pte status.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(dirname "${PTE_CLI:?PTE_CLI not set}")
CORPUS=${PTE_CORPUS:?PTE_CORPUS not set}
T=$(mktemp -d "${PTE_TMP:-/tmp}/json.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
command -v python3 >/dev/null || { echo "FAIL: python3 is needed" >&2; exit 1; }
mkdir -p "$T/cases"
"$B/test_malformed_catalogue" --write-all "$T/cases" >/dev/null || { echo "FAIL: cannot write the catalogue" >&2; exit 1; }
exec python3 "$HERE/json_everywhere.py" "$PTE_CLI" "$T" "$CORPUS"
