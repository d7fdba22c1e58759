#!/usr/bin/env bash
# Builds a benchmark peer that Debian does not package, installs it under the build tree, and
# reconfigures that tree so that tessera-bench compares with it (`--peer plasma`). The peer
# stays a separate library: Tessera only calls it.
#
#   scripts/peers.sh plasma SOURCE [TREE]
#       SOURCE: PLASMA's source tree or release tarball (on this project's machines,
#       ../shared/peers/plasma-25.5.27.tar.gz); TREE: Tessera's build tree (default: build).
#       PLASMA is built (Release, shared, OpenMP) in TREE/peers/plasma-build and installed in
#       TREE/peers/plasma; TREE is then reconfigured with -DTESSERA_PLASMA_ROOT=TREE/peers/plasma.
#
# JOBS (default: every core) sets the build's parallelism. About 2 minutes on 2 cores. PLASMA's
# own tester is not built: `cmake --build TREE/peers/plasma-build --target plasmatest` builds it.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 2; }
[[ $# -ge 2 ]] || usage
peer=$1 source=$2 tree=${3:-build}
[[ $peer == plasma ]] || { echo "peers.sh: unknown peer '$peer' (known: plasma)" >&2; exit 2; }
[[ -e $source ]] || { echo "peers.sh: $source: no such file or directory" >&2; exit 1; }
[[ -f $tree/CMakeCache.txt ]] || { echo "peers.sh: $tree is not a configured build tree" >&2; exit 1; }
root=$(cd "$(dirname "$0")/.." && pwd)
tree=$(cd "$tree" && pwd)
work=$tree/peers
mkdir -p "$work"

if [[ -d $source ]]; then
    src=$(cd "$source" && pwd)
else  # a tarball: unpacked once, into a directory of its own
    src=$work/plasma-src
    if [[ ! -f $src/CMakeLists.txt ]]; then
        rm -rf "$src" && mkdir -p "$src"
        tar -xzf "$source" -C "$src" --strip-components=1
    fi
fi
[[ -f $src/CMakeLists.txt ]] || { echo "peers.sh: $source holds no CMakeLists.txt" >&2; exit 1; }

launcher=$(command -v ccache || true)  # a second build (CI) takes seconds
# Debian's OpenBLAS has no LAPACKE symbols of its own: PLASMA's core kernels need -llapacke.
# The libraries are built with the install's run path, so that libplasma finds
# libplasma_core_blas in the install wherever it is loaded from.
cmake -S "$src" -B "$work/plasma-build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$work/plasma" -DBUILD_SHARED_LIBS=ON \
    -DCMAKE_INSTALL_RPATH="$work/plasma/lib" -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON \
    -DCMAKE_C_STANDARD_LIBRARIES=-llapacke \
    ${launcher:+-DCMAKE_C_COMPILER_LAUNCHER="$launcher"} >"$work/plasma-configure.log" 2>&1 ||
    { tail -n 30 "$work/plasma-configure.log"; echo "peers.sh: PLASMA's configure failed" >&2; exit 1; }
cmake --build "$work/plasma-build" -j "${JOBS:-$(nproc)}" --target plasma plasma_core_blas \
    >"$work/plasma-build.log" 2>&1 ||
    { tail -n 30 "$work/plasma-build.log"; echo "peers.sh: PLASMA's build failed" >&2; exit 1; }
# Installed by hand: PLASMA's install rules want its test program too, plasmatest, which is a
# quarter of its build (the bench needs only the libraries and the headers). The headers are
# those of its source and the s, d, c ones its build generates beside them (plasma.h includes
# plasma_d.h), which PLASMA 25.5.27's own install leaves out.
rm -rf "$work/plasma"
mkdir -p "$work/plasma/lib" "$work/plasma/include"
cp -P "$work"/plasma-build/libplasma*.so* "$work/plasma/lib/"
cp "$src"/include/*.h "$work/plasma/include/"
cmake -S "$root" -B "$tree" -DTESSERA_PLASMA_ROOT="$work/plasma" >/dev/null
echo "peers.sh: PLASMA installed in $work/plasma; $tree now builds tessera-bench with it"
