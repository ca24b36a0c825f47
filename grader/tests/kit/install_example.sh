#!/usr/bin/env bash
# kit.install_example: the engine as a library. Installs this build folder into a
# temporary prefix (cmake --install), then configures, builds and runs examples/,
# a project of its own that finds the engine with find_package(Kindling).
#
#   install_example.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?usage: install_example.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: install_example.sh BUILD_DIR SOURCE_DIR}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kindling-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
[ -f "$tmp/prefix/lib/cmake/Kindling/KindlingConfig.cmake" ] || [ -n "$(find "$tmp/prefix" -name KindlingConfig.cmake)" ] ||
  { echo "install_example: no KindlingConfig.cmake installed"; exit 1; }
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# The same compiler as the build: a static library's OpenMP runtime (libgomp or libomp)
# is the compiler's own.
compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
[ -n "$compiler" ] && launcher+=(-DCMAKE_CXX_COMPILER="$compiler")
cmake -S "$src/examples" -B "$tmp/examples" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/examples" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
"$tmp/examples/fit_a_line" | tee "$tmp/run.log"
# The fit must find y = 3x - 1.
grep -Eq '^weight 3\.00[0-9]  bias -1\.00[0-9]$|^weight 2\.99[0-9]  bias -0\.99[0-9]$' "$tmp/run.log" ||
  { echo "install_example: the example did not fit y = 3x - 1"; exit 1; }
echo "install_example: installed, found with find_package(Kindling), built and ran examples/"
