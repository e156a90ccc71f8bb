#!/bin/sh
# Python bindings (python/pte): tests/python/test_bindings.py with Debian's python3 + numpy
# (/usr/bin/python3, python3-numpy; a missing numpy fails) against the build's libpte.so, then the
# package as `cmake --install` lays it out: found through PYTHONPATH alone (no PTE_LIBRARY), it
# must load the installed libpte.so and reproduce the golden AddModel output ([1,2,3] -> [2,3,4]).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
B=$(dirname "${PTE_CLI:?PTE_CLI not set}")
CORPUS=${PTE_CORPUS:?PTE_CORPUS not set}
PY=${PTE_PYTHON:-/usr/bin/python3}
fail() { echo "FAIL: $*" >&2; exit 1; }
"$PY" -c "import numpy" 2>/dev/null || fail "$PY cannot import numpy (Debian: apt-get install python3-numpy)"
[ -e "$B/libpte.so" ] || fail "$B/libpte.so not built"
T=$(mktemp -d "${PTE_TMP:-/tmp}/python.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

# An instrumented build (PTE_SANITIZE) has an instrumented libpte.so: python must preload the runtimes.
# (only for python itself: other commands here run without them)
SAN=$(sed -n 's/^PTE_SANITIZE:[A-Z]*=//p' "$B/CMakeCache.txt" 2>/dev/null || true)
PRE=""
if [ -n "$SAN" ]; then
  case $SAN in *address*) PRE="$PRE $(${CC:-cc} -print-file-name=libasan.so)" ;; esac
  case $SAN in *undefined*) PRE="$PRE $(${CC:-cc} -print-file-name=libubsan.so)" ;; esac
  PRE=${PRE# }
  ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0 # the interpreter's own allocations
  export ASAN_OPTIONS
fi
py() { if [ -n "$PRE" ]; then LD_PRELOAD=$PRE "$PY" "$@"; else "$PY" "$@"; fi; }

PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE # the source tree stays clean
(PTE_TMP=$T PYTHONPATH=$SRC/python PTE_LIBRARY=$B/libpte.so && export PTE_TMP PYTHONPATH PTE_LIBRARY &&
  py "$SRC/tests/python/test_bindings.py") || fail "tests/python/test_bindings.py"

P=$T/prefix
cmake --install "$B" --prefix "$P" >"$T/install.log" 2>&1 || { cat "$T/install.log" >&2; fail "cmake --install"; }
INIT=$(find "$P" -path '*/pte/__init__.py' | head -n 1)
[ -n "$INIT" ] || fail "python/pte not installed"
[ -e "$(dirname "$INIT")/_libpath.py" ] || fail "_libpath.py not installed"
SITE=$(dirname "$(dirname "$INIT")")
got=$(cd "$T" && unset PTE_LIBRARY && PYTHONPATH=$SITE && export PYTHONPATH && py -c '
import os, sys, numpy as np, pte
prefix, corpus = sys.argv[1], sys.argv[2]
assert os.path.realpath(pte.library_path).startswith(os.path.realpath(prefix)), pte.library_path
x = np.fromfile(os.path.join(corpus, "io", "arduino_AddModel.input0.float32.bin"), np.float32)
want = np.fromfile(os.path.join(corpus, "io", "arduino_AddModel.expected_output0.float32.bin"), np.float32)
y = pte.load(os.path.join(corpus, "arduino_AddModel.pte")).forward(x)[0]
assert np.array_equal(y, want), (y, want)
print("installed ok")
' "$P" "$CORPUS" 2>&1) || fail "installed package: $got"
[ "$got" = "installed ok" ] || fail "installed package: $got"
echo "PASS"
