#!/bin/sh
# oracle_bad_arguments: every family's table into one file, then pte_oracle --mutate=1 over it.
# usage: run_mutate.sh PTE_ORACLE PYTHON GEN_PY OUT.cases FAMILY.py...
set -e
oracle=$1 py=$2 gen=$3 out=$4
shift 4
"$py" "$gen" "$out" "$@" >/dev/null
exec "$oracle" --mutate=1 "$out"
