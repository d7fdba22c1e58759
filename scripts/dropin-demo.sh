#!/usr/bin/env bash
# NumPy with and without the drop-in LAPACK, in the same run: numpy.linalg.cholesky, solve
# and qr at each order, the median of REPS calls of each (after a warm-up), and the ratio
# (time without / time with: above 1, the drop-in is faster). The drop-in runs with its
# measured crossovers, as a user gets it (TESSERA_LAPACK_MIN_N=0 sends every call to Tessera).
#   scripts/dropin-demo.sh [build-dir] [orders]         (default: build "1000 4000 8000")
#   REPS=5 scripts/dropin-demo.sh build "500 1000"
# Needs Debian's python3-numpy (scripts/setup.sh installs it). Run it on an idle machine.
set -euo pipefail
build=${1:-build}
orders=${2:-"1000 4000 8000"}
lib=$(realpath "$build/lib/libtessera_lapack.so")
python=/usr/bin/python3
export TESSERA_NCUDA=${TESSERA_NCUDA:-0}

timing=$(mktemp)
trap 'rm -f "$timing"' EXIT
cat > "$timing" <<'PY'
import sys, time
import numpy as np
reps = int(sys.argv[1])
rng = np.random.default_rng(1)
for n in map(int, sys.argv[2:]):
    G = rng.standard_normal((n, n))
    A = G @ G.T + n * np.eye(n)
    b = rng.standard_normal((n, 1))
    for name, f in (("cholesky", lambda: np.linalg.cholesky(A)), ("solve", lambda: np.linalg.solve(G, b)),
                    ("qr", lambda: np.linalg.qr(G))):
        f()  # warm-up (the drop-in starts Tessera's runtime on its first call)
        t = []
        for _ in range(reps):
            t0 = time.perf_counter()
            f()
            t.append(time.perf_counter() - t0)
        print(name, n, sorted(t)[len(t) // 2], flush=True)
PY

printf "%-16s %6s %14s %14s %8s\n" routine n "numpy (s)" "+drop-in (s)" ratio
for n in $orders; do
    without=$("$python" "$timing" "${REPS:-3}" "$n")
    with=$(LD_PRELOAD=$lib "$python" "$timing" "${REPS:-3}" "$n")
    paste <(echo "$without") <(echo "$with") |
        awk '{ printf "%-16s %6d %14.4f %14.4f %8.2f\n", "numpy." $1, $2, $3, $6, $3 / $6 }'
done
