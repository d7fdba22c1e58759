#!/usr/bin/python3
"""NumPy and SciPy (Debian's python3-numpy, python3-scipy) through the drop-in LAPACK and CBLAS.

    tests/dropin/numpy_scipy.py <libtessera_lapack.so>

Runs itself again with LD_PRELOAD of the drop-in and TESSERA_LAPACK_MIN_N=0, so that Tessera
runs every LAPACK call NumPy and SciPy make; each result is checked by its own residual (an
oracle independent of any LAPACK), and the drop-in's call counters (TESSERA_LAPACK_VERBOSE)
must show that Tessera served the routines behind them. Exit 77 (skipped) without NumPy/SciPy.
"""
import os
import subprocess
import sys

SERVED = ["dpotrf_", "dgesv_", "dgeqrf_", "dorgqr_", "dgetrf_", "dgetrs_", "dgels_", "zpotrf_", "zgesv_",
          "cblas_dgemm", "cblas_zgemm", "cblas_dsyrk"]


def child():
    import numpy as np
    import scipy.linalg as sl
    from scipy.linalg import lapack

    rng = np.random.default_rng(7)
    eps = np.finfo(float).eps
    failures = []

    def check(name, value, limit):
        ok = bool(np.isfinite(value) and value <= limit)
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {value:.3e} (limit {limit:.1e})")
        if not ok:
            failures.append(name)

    for n in (1, 7, 300):
        G = rng.standard_normal((n, n))
        A = G @ G.T + n * np.eye(n)
        b = rng.standard_normal((n, 3))
        anorm = np.linalg.norm(A, 1)

        L = np.linalg.cholesky(A)
        check(f"numpy.linalg.cholesky n={n}", np.linalg.norm(L @ L.T - A, 1) / (anorm * n * eps), 30)
        U = sl.cholesky(A)
        check(f"scipy.linalg.cholesky n={n}", np.linalg.norm(U.T @ U - A, 1) / (anorm * n * eps), 30)

        M = rng.standard_normal((n, n))
        mnorm = np.linalg.norm(M, 1)
        x = np.linalg.solve(M, b)
        check(f"numpy.linalg.solve n={n}",
              np.linalg.norm(M @ x - b, 1) / (mnorm * np.linalg.norm(x, 1) * n * eps), 30)
        x = sl.solve(M, b)
        check(f"scipy.linalg.solve n={n}",
              np.linalg.norm(M @ x - b, 1) / (mnorm * np.linalg.norm(x, 1) * n * eps), 30)
        lu, piv = sl.lu_factor(M)
        x = sl.lu_solve((lu, piv), b)
        check(f"scipy.linalg.lu_factor/lu_solve n={n}",
              np.linalg.norm(M @ x - b, 1) / (mnorm * np.linalg.norm(x, 1) * n * eps), 30)

        Z = rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))
        H = Z @ Z.conj().T + n * np.eye(n)
        L = np.linalg.cholesky(H)
        check(f"numpy.linalg.cholesky complex n={n}",
              np.linalg.norm(L @ L.conj().T - H, 1) / (np.linalg.norm(H, 1) * n * eps), 30)
        x = np.linalg.solve(Z, b)
        check(f"numpy.linalg.solve complex n={n}",
              np.linalg.norm(Z @ x - b, 1) / (np.linalg.norm(Z, 1) * np.linalg.norm(x, 1) * n * eps), 30)

    for m, n in ((5, 3), (400, 60), (60, 60)):
        A = rng.standard_normal((m, n))
        anorm = np.linalg.norm(A, 1)
        for name, (Q, R) in (("numpy.linalg.qr", np.linalg.qr(A)), ("scipy.linalg.qr", sl.qr(A, mode="economic"))):
            check(f"{name} {m}x{n} A = QR", np.linalg.norm(Q @ R - A, 1) / (anorm * m * eps), 30)
            check(f"{name} {m}x{n} Q^T Q = I", np.linalg.norm(Q.T @ Q - np.eye(n), 1) / (m * eps), 30)
        b = rng.standard_normal(m)
        # least squares: the residual is orthogonal to A's columns (the normal equations)
        x = np.linalg.lstsq(A, b, rcond=None)[0]
        r = b - A @ x
        check(f"numpy.linalg.lstsq {m}x{n}",
              np.linalg.norm(A.T @ r) / (anorm * (np.linalg.norm(b) + anorm * np.linalg.norm(x)) * m * eps), 30)
        lqr, x, info = lapack.dgels(A, b.reshape(m, 1))[0:3]
        x = x[:n, 0]
        r = b - A @ x
        check(f"scipy.linalg.lapack.dgels {m}x{n} (info {info})",
              np.linalg.norm(A.T @ r) / (anorm * (np.linalg.norm(b) + anorm * np.linalg.norm(x)) * m * eps)
              if info == 0 else np.inf, 30)

    # matmul: NumPy calls OpenBLAS's CBLAS (cblas_dgemm, cblas_zgemm; cblas_dsyrk for A @ A.T),
    # checked against einsum's own loops (no BLAS)
    for m, k, n in ((3, 4, 5), (200, 150, 120)):
        A = rng.standard_normal((m, k))
        B = rng.standard_normal((k, n))
        scale = k * eps * np.abs(A).max() * np.abs(B).max()
        check(f"numpy matmul {m}x{k}x{n}",
              np.abs(A @ B - np.einsum("ik,kj->ij", A, B, optimize=False)).max() / scale, 30)
        check(f"numpy A @ A.T {m}x{k}",
              np.abs(A @ A.T - np.einsum("ik,jk->ij", A, A, optimize=False)).max() / scale, 30)
        Z = A + 1j * rng.standard_normal((m, k))
        W = B - 1j * rng.standard_normal((k, n))
        check(f"numpy matmul complex {m}x{k}x{n}",
              np.abs(Z @ W - np.einsum("ik,kj->ij", Z, W, optimize=False)).max() / (4 * scale), 30)

    return 1 if failures else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child()
    try:
        import numpy  # noqa: F401
        import scipy  # noqa: F401
    except ImportError as e:
        print(f"SKIP: {e} (install Debian's python3-numpy and python3-scipy: scripts/setup.sh does)")
        return 77
    lib = os.path.realpath(sys.argv[1])
    env = dict(os.environ, LD_PRELOAD=lib, TESSERA_LAPACK_MIN_N="0", TESSERA_LAPACK_VERBOSE="1", TESSERA_NCUDA="0")
    run = subprocess.run([sys.executable, os.path.abspath(__file__), "--child"], env=env,
                         capture_output=True, text=True, timeout=600)
    print(run.stdout)
    print(run.stderr)
    status = run.returncode
    served = {}
    for line in run.stderr.splitlines():
        words = line.split()
        if len(words) > 3 and words[0] == "tessera_lapack:":
            served[words[1]] = int(words[2])
    for symbol in SERVED:
        if served.get(symbol, 0) == 0:
            print(f"FAIL: Tessera served no call of {symbol}")
            status = status or 1
    if status == 0:
        print(f"PASS: NumPy and SciPy results checked; Tessera served {', '.join(SERVED)}")
    return status


if __name__ == "__main__":
    sys.exit(main())
