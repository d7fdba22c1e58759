#!/usr/bin/env bash
# Builds Tessera (Release, in build/) and shows what it does on this machine: the LAPACK-style
# routines (dgemm, dpotrf, dposv, dpotri) against OpenBLAS/LAPACKE in the same run, GFlop/s and
# ratio, with an SVG plot of dpotrf in build/dpotrf.svg; then the runtime's cost per task
# against StarPU.
#   scripts/demo.sh [extra tessera-bench arguments for the linear algebra, e.g. --n 2000,8000]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh --peers
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)" --target tessera-bench

bench=build/bin/tessera-bench
echo "== Cholesky factorization, double precision (ratio > 1: Tessera is faster than LAPACKE)"
$bench potrf --n 1000,2000,4000,8000 --svg build/dpotrf.svg "$@"
echo "== Solve A X = B (posv), inverse (potri), matrix product (gemm)"
$bench posv --n 2000,4000 "$@"
$bench potri --n 2000,4000 "$@"
$bench gemm --n 2000,4000 "$@"
echo "== What the runtime costs per task (against StarPU 1.3 when installed)"
exec $bench overhead
