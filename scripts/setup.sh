#!/usr/bin/env bash
# Installs the Debian packages Tessera needs to build and test, and only those missing.
# Idempotent and quick when everything is there (one dpkg-query per package, no apt-get).
# As root it installs directly, otherwise through `sudo -n` when that works; else it prints
# the command to run and exits 1.
#   scripts/setup.sh            what building and testing need
#   scripts/setup.sh --peers    also the libraries the benchmarks compare against (StarPU 1.3
#                               and its examples; PLASMA is built by scripts/peers.sh)
set -euo pipefail

packages=(
    build-essential   # g++, make
    cmake             # >= 3.25
    pkg-config
    ccache
    libopenblas-dev   # BLAS (OpenBLAS)
    liblapacke-dev    # LAPACKE
    libfftw3-dev      # FFTW (double and float)
    libhwloc-dev      # topology, worker pinning
    libglpk-dev       # the area bound (tessera-bound, rt::area_bound)
    libgtest-dev      # unit tests
    hwloc             # lstopo, hwloc-ls: to look at the machine
    # the drop-in LAPACK's tests (tests/dropin): reference LAPACK's own test programs, a
    # Fortran program, NumPy and SciPy through the drop-in
    liblapack-test
    gfortran
    python3-numpy
    python3-scipy
    doxygen           # the API reference (cmake --build build --target docs) and its test
    clang-format      # the house format (.clang-format), checked by the test format.clang_format
    librsvg2-bin      # rsvg-convert: the Gantt chart test renders an SVG to PNG
    libopenmpi-dev    # the MPI layer (runtime/mpi/, libtessera_mpi) and its tests
    openmpi-bin       # mpirun, for those tests (ctest -L mpi)
    libscalapack-openmpi-dev  # ScaLAPACK: the peer of tessera-bench potrf --grid
)

if [[ ${1:-} == --peers ]]; then
    packages+=(libstarpu-dev      # StarPU 1.3: tessera-bench overhead's peer
               starpu-examples)   # its cholesky and LU examples: the LAPACK-style benches' peer
fi

missing=()
for pkg in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [[ $status == "install ok installed" ]] || missing+=("$pkg")
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "setup: all ${#packages[@]} packages are installed"
    exit 0
fi

echo "setup: missing packages: ${missing[*]}"
install_cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
    bash -c "$install_cmd"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo -n bash -c "$install_cmd"
else
    echo "setup: cannot install them without root. Run:" >&2
    echo "  sudo bash -c '$install_cmd'" >&2
    exit 1
fi
echo "setup: installed ${missing[*]}"
