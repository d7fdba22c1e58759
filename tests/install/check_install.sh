#!/usr/bin/env bash
# Usage: check_install.sh <build-dir> <source-dir>
#
# Installs the build in <build-dir> into a temporary prefix, then checks that the installed
# package works for both kinds of consumer:
#   1. CMake: tests/install/CMakeLists.txt does find_package(Tessera) and links
#      Tessera::tessera; the consumer is built and run.
#   2. pkg-config: the same main.cpp built with
#      g++ -std=c++20 main.cpp $(pkg-config --cflags --libs tessera), and run.
# Run by ctest as the test install_consumer (label "install"), which sets CMAKE and CXX to
# the build's own cmake and compiler.
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: $0 <build-dir> <source-dir>" >&2
    exit 2
fi
build_dir=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
cmake=${CMAKE:-cmake}
cxx=${CXX:-g++}

work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-install-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

echo "== install $build_dir into $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix" >"$work/install.log" ||
    { cat "$work/install.log"; exit 1; }

# The library directory may be lib/ or lib/<multiarch>/ (GNUInstallDirs): ask the install.
pc_file=$(find "$prefix" -name tessera.pc -path '*/pkgconfig/*' | head -n 1)
[[ -n $pc_file ]] || { echo "tessera.pc was not installed" >&2; exit 1; }
libdir=$(dirname "$(dirname "$pc_file")")
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

echo "== CMake consumer (find_package(Tessera))"
"$cmake" -S "$source_dir/tests/install" -B "$work/consumer" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release
"$cmake" --build "$work/consumer"
"$work/consumer/consumer"
echo "CMake consumer: OK"

echo "== pkg-config consumer"
pc_dir=$(dirname "$pc_file")
export PKG_CONFIG_PATH="$pc_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
flags=$(pkg-config --cflags --libs tessera)
echo "pkg-config --cflags --libs tessera: $flags"
# shellcheck disable=SC2086  # the flags must split into words
"$cxx" -std=c++20 "$source_dir/tests/install/main.cpp" $flags -o "$work/consumer-pc"
"$work/consumer-pc"
echo "pkg-config consumer: OK"
