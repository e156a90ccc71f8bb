#!/bin/sh
# Fully-connected fp32 benchmark of the XnnpackBackend against OpenBLAS and XNNPACK.
# Installs the peers from Debian (libopenblas-dev, libxnnpack-dev) when they are missing and
# this runs as root with apt-get; then runs bench_xnnpack_fc (which dlopen()s them).
# Usage: bench/xnnpack_fc.sh [BUILD_DIR] [bench options, e.g. --quick --threads 2]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
[ $# -gt 0 ] && shift
need=""
for p in libopenblas-dev libxnnpack-dev; do
  dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing:$need"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null 2>&1 || true
    for p in $need; do
      apt-get install -y -qq "$p" >/dev/null 2>&1 || echo "note: $p is not installable here; it is skipped"
    done
  else
    echo "note: missing$need (apt-get install them to compare against them)"
  fi
fi
bin="$build/bench/bench_xnnpack_fc"
if [ ! -x "$bin" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" --target bench_xnnpack_fc >/dev/null
fi
# best vs best (each side on its best kernels; OpenBLAS's core pin cleared inside the bench), then
# matched rows: pte limited to AVX2 against OpenBLAS on its AVX2 (Haswell) kernels
"$bin" "$@"
if grep -q avx512f /proc/cpuinfo 2>/dev/null; then
  echo "# matched ISA: both on AVX2"
  "$bin" --isa avx2 --blas-coretype Haswell --no-xnnpack "$@"
fi
