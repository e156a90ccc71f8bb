#!/bin/sh
# Installs the build into a temporary prefix (cmake --install, what `make install PREFIX=` does)
# and checks the package the way a user meets it:
#   - layout: headers, libpte.a, libpte.so with SONAME libpte.so.0, libpte_core.a, bin/pte,
#     lib/cmake/pte/pteConfig*.cmake, lib/pkgconfig/pte.pc;
#   - installed headers include only <system> and "pte/..." headers, and each compiles alone;
#   - libpte.so exports only pte_* names, none of the internal families (pte_fb_, pte_et_...);
#   - examples/ built with find_package(pte) against libpte.so and libpte.a, and with pkg-config,
#     then run: run_model on arduino_AddModel.pte (x + 1, ones in) prints "output 0: 2 2 2", module_run
#     the golden [1,2,3] -> [2,3,4] and a model with a .ptd,
#     build_model prints "output 0: 6.5 0", prepare_cache prepares / hits / re-prepares;
#   - tests/footprint/size_test.c links against the installed libpte_core.a alone and runs.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
B=$(dirname "${PTE_CLI:?PTE_CLI not set}")
CORPUS=${PTE_CORPUS:?PTE_CORPUS not set}
T=$(mktemp -d "${PTE_TMP:-/tmp}/examples.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
P=$T/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() { # expect "description" "wanted output line" command...
  what=$1; want=$2; shift 2
  got=$("$@" 2>&1) || fail "$what: exit $? ($got)"
  printf '%s\n' "$got" | grep -qxF "$want" || fail "$what: wanted line '$want', got: $got"
}

# An instrumented build (PTE_SANITIZE) installs instrumented libraries: build the examples the same way.
SAN=$(sed -n 's/^PTE_SANITIZE:[A-Z]*=//p' "$B/CMakeCache.txt" 2>/dev/null || true)
SANFLAGS=""
[ -n "$SAN" ] && SANFLAGS="-fsanitize=$SAN -fno-omit-frame-pointer -fno-sanitize-recover=all"

# ---- install
cmake --install "$B" --prefix "$P" >"$T/install.log" 2>&1 || { cat "$T/install.log" >&2; fail "cmake --install"; }
PC=$(find "$P" -name pte.pc | head -n 1)
[ -n "$PC" ] || fail "pte.pc not installed"
LIB=$(dirname "$(dirname "$PC")")
for f in "$P/include/pte/program.h" "$P/include/pte/method.h" "$P/include/pte/writer.h" "$P/include/pte/prepare.h" \
         "$LIB/libpte.a" "$LIB/libpte.so" "$LIB/libpte_core.a" "$LIB/cmake/pte/pteConfig.cmake" \
         "$LIB/cmake/pte/pteConfigVersion.cmake" "$P/bin/pte"; do
  [ -e "$f" ] || fail "not installed: $f"
done
[ "$(ls "$P/include/pte" | wc -l)" -eq "$(ls "$SRC/include/pte"/*.h | wc -l)" ] || fail "include/pte/*.h not all installed"
soname=$(readelf -d "$LIB/libpte.so" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
[ "$soname" = libpte.so.0 ] || fail "SONAME is '$soname', want libpte.so.0"
[ -e "$LIB/libpte.so.0" ] || fail "libpte.so.0 link missing"
"$P/bin/pte" inspect "$CORPUS/arduino_AddModel.pte" >/dev/null 2>&1 || fail "installed bin/pte inspect failed"

# ---- public headers: self-contained, no internal includes
for h in "$P"/include/pte/*.h; do
  bad=$(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$h" | grep -Ev '#[[:space:]]*include[[:space:]]*"pte/[a-z0-9_]+\.h"' || true)
  [ -z "$bad" ] || fail "$(basename "$h") includes a non-public header: $bad"
  printf '#include "pte/%s"\nint pte_header_check_%s;\n' "$(basename "$h")" "$(basename "$h" .h)" >"$T/h.c"
  ${CC:-cc} -std=c11 -Wall -Wextra -Werror -pedantic -I"$P/include" -c "$T/h.c" -o "$T/h.o" 2>"$T/h.log" ||
    { cat "$T/h.log" >&2; fail "$(basename "$h") does not compile alone (-std=c11 -pedantic)"; }
done

# ---- exported symbols of the shared library
nm -D --defined-only "$LIB/libpte.so" | awk 'NF >= 3 {print $3}' >"$T/exports"
[ "$(wc -l <"$T/exports")" -gt 100 ] || fail "libpte.so exports only $(wc -l <"$T/exports") symbols"
grep -v '^pte_' "$T/exports" >"$T/bad" && fail "libpte.so exports non-pte symbols: $(head -5 "$T/bad" | tr '\n' ' ')"
grep -E '^pte_(fb|et|st|ft|bp|xn|rt|wr|pp|gen)_' "$T/exports" >"$T/bad" && fail "libpte.so exports internal symbols: $(head -5 "$T/bad" | tr '\n' ' ')"
for s in pte_program_load pte_method_load pte_method_execute pte_writer_create pte_prepare_file \
         pte_register_portable_kernels pte_file_loader_open pte_module_open pte_module_forward; do
  grep -qx "$s" "$T/exports" || fail "libpte.so does not export $s"
done

# ---- examples with find_package(pte): shared, then static
run_examples() { # dir label
  d=$1
  expect "$2 run_model AddModel" "output 0: 2 2 2" "$d/run_model" "$CORPUS/arduino_AddModel.pte"
  expect "$2 build_model" "output 0: 6.5 0" "$d/build_model" "$T/built_$2.pte"
  # module_run: the golden [1,2,3] -> [2,3,4] of AddModel.ino; etrs_data_map_model 3x+2 with its .ptd (ones -> 5)
  expect "$2 module_run AddModel" "output 0: 2 3 4" "$d/module_run" "$CORPUS/arduino_AddModel.pte" "$CORPUS/io/arduino_AddModel.input0.float32.bin"
  expect "$2 module_run .ptd" "output 0: 5 5 5 5" "$d/module_run" "$CORPUS/etrs_data_map_model.pte" --data "$CORPUS/etrs_data_map__default_external_constant.ptd"
  rm -rf "$T/cache_$2"
  cp "$CORPUS/arduino_AddModel.pte" "$T/model_$2.pte"
  touch -d '2020-01-01 00:00:00' "$T/model_$2.pte"
  expect "$2 prepare_cache first launch" "cache: prepared $T/model_$2.pte -> $T/cache_$2/model_$2.pte (nothing to prepare: copy)" \
    "$d/prepare_cache" "$T/model_$2.pte" "$T/cache_$2"
  expect "$2 prepare_cache output" "output 0: 2 2 2" "$d/prepare_cache" "$T/model_$2.pte" "$T/cache_$2"
  expect "$2 prepare_cache second launch" "cache: hit $T/cache_$2/model_$2.pte" "$d/prepare_cache" "$T/model_$2.pte" "$T/cache_$2"
  cmp -s "$T/model_$2.pte" "$T/cache_$2/model_$2.pte" || fail "$2: prepared copy of a delegate-free model differs"
  touch "$T/model_$2.pte" # a newer model: the cached copy is stale
  expect "$2 prepare_cache after model update" "cache: prepared $T/model_$2.pte -> $T/cache_$2/model_$2.pte (nothing to prepare: copy)" \
    "$d/prepare_cache" "$T/model_$2.pte" "$T/cache_$2"
}
for kind in shared static; do
  st=OFF; [ $kind = static ] && st=ON
  cmake -S "$SRC/examples" -B "$T/ex_$kind" -DCMAKE_PREFIX_PATH="$P" -DPTE_EXAMPLES_STATIC=$st \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS="$SANFLAGS" -DCMAKE_EXE_LINKER_FLAGS="$SANFLAGS" >"$T/cfg_$kind.log" 2>&1 || { cat "$T/cfg_$kind.log" >&2; fail "examples configure ($kind)"; }
  cmake --build "$T/ex_$kind" -j 2 >"$T/build_$kind.log" 2>&1 || { cat "$T/build_$kind.log" >&2; fail "examples build ($kind)"; }
  needs=$(readelf -d "$T/ex_$kind/run_model" | grep -c 'libpte\.so' || true)
  if [ $kind = shared ]; then [ "$needs" = 1 ] || fail "shared run_model does not need libpte.so"
  else [ "$needs" = 0 ] || fail "static run_model still needs libpte.so"; fi
  run_examples "$T/ex_$kind" "$kind"
done

# ---- pkg-config
PKG_CONFIG_PATH=$LIB/pkgconfig
export PKG_CONFIG_PATH
[ "$(pkg-config --modversion pte)" = "$(sed -n 's/^project(pte VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")" ] || fail "pkg-config --modversion pte"
mkdir -p "$T/pc"
for e in run_model build_model prepare_cache module_run; do
  # shellcheck disable=SC2046
  ${CC:-cc} -std=c11 -Wall -Wextra -Werror $SANFLAGS "$SRC/examples/$e.c" $(pkg-config --cflags --libs pte) -Wl,-rpath,"$LIB" \
    -o "$T/pc/$e" 2>"$T/pc.log" || { cat "$T/pc.log" >&2; fail "pkg-config build of $e"; }
done
run_examples "$T/pc" pkgconfig

# ---- the core runtime alone (libpte_core.a: no heap, no stdio)
${CC:-cc} -std=c11 -Os -Wall -Wextra -Werror $SANFLAGS -I"$P/include" "$SRC/tests/footprint/size_test.c" "$LIB/libpte_core.a" \
  -o "$T/size_test" 2>"$T/core.log" || { cat "$T/core.log" >&2; fail "size_test against the installed libpte_core.a"; }
"$T/size_test" "$CORPUS/berry_identity.pte" || fail "size_test on berry_identity.pte exited $?"
echo "PASS"
