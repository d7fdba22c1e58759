// tessera-bench gemm | potrf | potrs | posv | potri | getrf | getrs | gesv | getri | geqrf | gels |
// ormqr | dsgesv: the LAPACK-style routines against the same call of OpenBLAS/LAPACKE in the
// same run (dsgesv, with --precision d or z for zcgesv, against LAPACKE's double-precision
// gesv, as the call it replaces). For each n: a warm-up call of each, then --reps
// timed calls on fresh copies of the inputs (copies are not timed); medians, GFlop/s with
// LAPACK's flop counts, the ratio (peer time / Tessera time: above 1, Tessera is faster) and a
// scaled residual of Tessera's result (Problem::residual: a random vector through the factor
// or inverse, or the solution of the right-hand sides, so that n = 8000 costs no extra
// factorization). The peer runs multithreaded over every core; Tessera's tasks
// call OpenBLAS single-threaded. LAPACKE's NaN check of the inputs is off for the peers, as it
// is for Tessera's kernels. --svg writes GFlop/s against n.
//
// When the runtime has CUDA workers (--ncuda, default: every GPU), every routine but getri
// (cuSOLVER has none) also runs the GPU peer: cublas<t>gemm, cusolverDn<t>potrf, <t>potrs,
// <t>potri, <t>getrf, <t>getrs, cusolverDnDSgesv (ZCgesv), and for posv and gesv (cuSOLVER's
// classic API has neither) <t>potrf then <t>potrs, <t>getrf then <t>getrs, on one GPU with the
// matrices already in its memory (transfers not timed, CUDA events, median of --reps after a
// warm-up), measured after the runtime has stopped, so that it has the GPU to itself. Its
// columns (and JSON fields): gpu_peer_seconds, gpu_peer_gflops and gpu_ratio (GPU peer time /
// Tessera time: above 1, Tessera is faster), and the label gpu_peer. --peer-reps sets the CPU
// peer's repetitions (default --reps).
//
// --peer lapacke,plasma,starpu,cusolver (default all: every one available) reports a row per
// peer, with the same fields and peer_residual, the peer's own answer through the same residual:
// PLASMA (built by scripts/peers.sh) at the best of a few tile sizes (--peer-nb), OpenMP on
// every core, OpenBLAS on one; StarPU's own examples (cholesky_implicit for spotrf,
// lu_implicit_example_double for dgetrf) as processes, at the best of a few block counts, their
// models calibrated by two untimed runs. --max-residual holds the peers' residuals too.
#include "bench/bench.hpp"
#include "bench/distributed.hpp"
#include "bench/peers/plasma_peer.hpp"
#include "bench/peers/starpu_examples.hpp"
#include "bench/svg_plot.hpp"
#if TESSERA_HAVE_CUDA
#include "bench/cuda/gpu_peers.hpp"
#endif

#include <tessera/tessera.hpp>

#include "linalg/kernels/cpu/blas_lapack.hpp"

#include <complex>
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <thread>
#include <vector>

namespace tessera::bench {
namespace {

using la::Op;
using la::Scalar;
using la::Uplo;
namespace blas = la::kernels::cpu;

// ---- the peers: LAPACKE's own calls (multithreaded OpenBLAS underneath) ------------------------
template <Scalar T> int lapacke_potrf(char uplo, int n, T* a, int lda)
{
    if constexpr (std::is_same_v<T, float>)
        return LAPACKE_spotrf(LAPACK_COL_MAJOR, uplo, n, a, lda);
    else if constexpr (std::is_same_v<T, double>)
        return LAPACKE_dpotrf(LAPACK_COL_MAJOR, uplo, n, a, lda);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_cpotrf(LAPACK_COL_MAJOR, uplo, n, a, lda);
    else
        return LAPACKE_zpotrf(LAPACK_COL_MAJOR, uplo, n, a, lda);
}
template <Scalar T>
int lapacke_potrs(char uplo, int n, int nrhs, T const* a, int lda, T* b, int ldb)
{
    if constexpr (std::is_same_v<T, float>)
        return LAPACKE_spotrs(LAPACK_COL_MAJOR, uplo, n, nrhs, a, lda, b, ldb);
    else if constexpr (std::is_same_v<T, double>)
        return LAPACKE_dpotrs(LAPACK_COL_MAJOR, uplo, n, nrhs, a, lda, b, ldb);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_cpotrs(LAPACK_COL_MAJOR, uplo, n, nrhs, a, lda, b, ldb);
    else
        return LAPACKE_zpotrs(LAPACK_COL_MAJOR, uplo, n, nrhs, a, lda, b, ldb);
}
template <Scalar T> int lapacke_posv(char uplo, int n, int nrhs, T* a, int lda, T* b, int ldb)
{
    if constexpr (std::is_same_v<T, float>)
        return LAPACKE_sposv(LAPACK_COL_MAJOR, uplo, n, nrhs, a, lda, b, ldb);
    else if constexpr (std::is_same_v<T, double>)
        return LAPACKE_dposv(LAPACK_COL_MAJOR, uplo, n, nrhs, a, lda, b, ldb);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_cposv(LAPACK_COL_MAJOR, uplo, n, nrhs, a, lda, b, ldb);
    else
        return LAPACKE_zposv(LAPACK_COL_MAJOR, uplo, n, nrhs, a, lda, b, ldb);
}
template <Scalar T> int lapacke_potri(char uplo, int n, T* a, int lda)
{
    if constexpr (std::is_same_v<T, float>)
        return LAPACKE_spotri(LAPACK_COL_MAJOR, uplo, n, a, lda);
    else if constexpr (std::is_same_v<T, double>)
        return LAPACKE_dpotri(LAPACK_COL_MAJOR, uplo, n, a, lda);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_cpotri(LAPACK_COL_MAJOR, uplo, n, a, lda);
    else
        return LAPACKE_zpotri(LAPACK_COL_MAJOR, uplo, n, a, lda);
}

template <Scalar T> int lapacke_getrf(int m, int n, T* a, int lda, lapack_int* ipiv)
{
    if constexpr (std::is_same_v<T, float>)
        return LAPACKE_sgetrf(LAPACK_COL_MAJOR, m, n, a, lda, ipiv);
    else if constexpr (std::is_same_v<T, double>)
        return LAPACKE_dgetrf(LAPACK_COL_MAJOR, m, n, a, lda, ipiv);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_cgetrf(LAPACK_COL_MAJOR, m, n, a, lda, ipiv);
    else
        return LAPACKE_zgetrf(LAPACK_COL_MAJOR, m, n, a, lda, ipiv);
}
template <Scalar T>
int lapacke_getrs(int n, int nrhs, T const* a, int lda, lapack_int const* ipiv, T* b, int ldb)
{
    if constexpr (std::is_same_v<T, float>)
        return LAPACKE_sgetrs(LAPACK_COL_MAJOR, 'N', n, nrhs, a, lda, ipiv, b, ldb);
    else if constexpr (std::is_same_v<T, double>)
        return LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', n, nrhs, a, lda, ipiv, b, ldb);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_cgetrs(LAPACK_COL_MAJOR, 'N', n, nrhs, a, lda, ipiv, b, ldb);
    else
        return LAPACKE_zgetrs(LAPACK_COL_MAJOR, 'N', n, nrhs, a, lda, ipiv, b, ldb);
}
template <Scalar T>
int lapacke_gesv(int n, int nrhs, T* a, int lda, lapack_int* ipiv, T* b, int ldb)
{
    if constexpr (std::is_same_v<T, float>)
        return LAPACKE_sgesv(LAPACK_COL_MAJOR, n, nrhs, a, lda, ipiv, b, ldb);
    else if constexpr (std::is_same_v<T, double>)
        return LAPACKE_dgesv(LAPACK_COL_MAJOR, n, nrhs, a, lda, ipiv, b, ldb);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_cgesv(LAPACK_COL_MAJOR, n, nrhs, a, lda, ipiv, b, ldb);
    else
        return LAPACKE_zgesv(LAPACK_COL_MAJOR, n, nrhs, a, lda, ipiv, b, ldb);
}

template <Scalar T> int lapacke_getri(int n, T* a, int lda, lapack_int const* ipiv)
{
    if constexpr (std::is_same_v<T, float>)
        return LAPACKE_sgetri(LAPACK_COL_MAJOR, n, a, lda, ipiv);
    else if constexpr (std::is_same_v<T, double>)
        return LAPACKE_dgetri(LAPACK_COL_MAJOR, n, a, lda, ipiv);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_cgetri(LAPACK_COL_MAJOR, n, a, lda, ipiv);
    else
        return LAPACKE_zgetri(LAPACK_COL_MAJOR, n, a, lda, ipiv);
}
template <Scalar T> int lapacke_geqrf(int m, int n, T* a, int lda, T* tau)
{
    if constexpr (std::is_same_v<T, float>)
        return LAPACKE_sgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau);
    else if constexpr (std::is_same_v<T, double>)
        return LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_cgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau);
    else
        return LAPACKE_zgeqrf(LAPACK_COL_MAJOR, m, n, a, lda, tau);
}
template <Scalar T> int lapacke_gels(int m, int n, int nrhs, T* a, int lda, T* b, int ldb)
{
    if constexpr (std::is_same_v<T, float>)
        return LAPACKE_sgels(LAPACK_COL_MAJOR, 'N', m, n, nrhs, a, lda, b, ldb);
    else if constexpr (std::is_same_v<T, double>)
        return LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', m, n, nrhs, a, lda, b, ldb);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_cgels(LAPACK_COL_MAJOR, 'N', m, n, nrhs, a, lda, b, ldb);
    else
        return LAPACKE_zgels(LAPACK_COL_MAJOR, 'N', m, n, nrhs, a, lda, b, ldb);
}
/// C = Q^H C (C m x n), Q from geqrf's compact form of k reflectors in the m-row a.
template <Scalar T>
int lapacke_apply_qh(int m, int n, int k, T const* a, int lda, T const* tau, T* c, int ldc)
{
    if constexpr (std::is_same_v<T, float>)
        return LAPACKE_sormqr(LAPACK_COL_MAJOR, 'L', 'T', m, n, k, a, lda, tau, c, ldc);
    else if constexpr (std::is_same_v<T, double>)
        return LAPACKE_dormqr(LAPACK_COL_MAJOR, 'L', 'T', m, n, k, a, lda, tau, c, ldc);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_cunmqr(LAPACK_COL_MAJOR, 'L', 'C', m, n, k, a, lda, tau, c, ldc);
    else
        return LAPACKE_zunmqr(LAPACK_COL_MAJOR, 'L', 'C', m, n, k, a, lda, tau, c, ldc);
}
/// y = Q y (y of m entries), Q from geqrf's compact form of k reflectors in the m-row a.
template <Scalar T> int lapacke_apply_q(int m, int k, T const* a, int lda, T const* tau, T* y)
{
    if constexpr (std::is_same_v<T, float>)
        return LAPACKE_sormqr(LAPACK_COL_MAJOR, 'L', 'N', m, 1, k, a, lda, tau, y, m);
    else if constexpr (std::is_same_v<T, double>)
        return LAPACKE_dormqr(LAPACK_COL_MAJOR, 'L', 'N', m, 1, k, a, lda, tau, y, m);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_cunmqr(LAPACK_COL_MAJOR, 'L', 'N', m, 1, k, a, lda, tau, y, m);
    else
        return LAPACKE_zunmqr(LAPACK_COL_MAJOR, 'L', 'N', m, 1, k, a, lda, tau, y, m);
}

// ---- inputs and checks ---------------------------------------------------------------------------
template <Scalar T> std::vector<T> random_matrix(int64_t m, int64_t n, uint64_t seed)
{
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-0.5, 0.5);
    std::vector<T> a(std::size_t(m * n));
    for (T& x : a) {
        if constexpr (la::is_complex_v<T>)
            x = T(la::real_t<T>(u(g)), la::real_t<T>(u(g)));
        else
            x = T(u(g));
    }
    return a;
}
/// Hermitian positive definite in O(n^2): random Hermitian plus n I (diagonally dominant).
template <Scalar T> std::vector<T> hpd_matrix(int64_t n, uint64_t seed)
{
    std::vector<T> a = random_matrix<T>(n, n, seed);
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < j; ++i)
            a[std::size_t(i + j * n)] = la::conj(a[std::size_t(j + i * n)]);
        a[std::size_t(j + j * n)] =
            T(la::real_t<T>(std::real(a[std::size_t(j + j * n)]) + double(n)));
    }
    return a;
}
template <Scalar T> double norm1(int64_t m, int64_t n, T const* a, int64_t lda)
{
    double best = 0;
    for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t i = 0; i < m; ++i) s += std::abs(std::complex<double>(a[i + j * lda]));
        best = std::max(best, s);
    }
    return best;
}
/// The full Hermitian matrix whose `uplo` triangle `a` holds.
template <Scalar T> void hermitian_from(Uplo uplo, int64_t n, T* a)
{
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < j; ++i) {
            if (uplo == Uplo::lower)
                a[i + j * n] = la::conj(a[j + i * n]);
            else
                a[j + i * n] = la::conj(a[i + j * n]);
        }
}
/// ||A x - y||_1 / (||A||_1 ||x||_1 n eps) for y computed from x by the routine under test.
template <Scalar T>
double scaled_residual(std::vector<T> const& A, int64_t n, std::vector<T> const& x,
                       std::vector<T> y, double xnorm)
{
    const int64_t k = int64_t(x.size()) / std::max<int64_t>(n, 1);
    blas::gemm<T>(Op::notrans, Op::notrans, n, k, n, T(1), A.data(), n, x.data(), n, T(-1),
                  y.data(), n);
    return norm1(n, k, y.data(), n) /
           (norm1(n, n, A.data(), n) * xnorm * double(n) * double(la::eps<T>));
}

/// ||A0 x - P L U x||_1 / (||A0||_1 ||x||_1 n eps) for getrf's factors F of the m x n A0 (L
/// unit lower m x k, U upper k x n, k = min(m, n)) and its ipiv (from 1), in O(m n).
template <Scalar T>
double lu_residual(std::vector<T> const& A0, int64_t m, int64_t n, std::vector<T> const& F,
                   std::vector<int64_t> const& ipiv)
{
    using C = std::complex<double>;
    const int64_t k = std::min(m, n);
    std::vector<T> xs = random_matrix<T>(n, 1, 5);
    const std::vector<C> x(xs.begin(), xs.end());
    std::vector<C> z(static_cast<std::size_t>(k)), y(static_cast<std::size_t>(m)),
        ax(static_cast<std::size_t>(m));
    auto at = [](std::vector<T> const& a, int64_t ld, int64_t i, int64_t j) {
        return C(a[std::size_t(i + j * ld)]);
    };
    for (int64_t j = 0; j < n; ++j)  // z = U x
        for (int64_t i = 0; i <= std::min(j, k - 1); ++i)
            z[std::size_t(i)] += at(F, m, i, j) * x[std::size_t(j)];
    for (int64_t j = 0; j < k; ++j) {  // y = L z
        y[std::size_t(j)] += z[std::size_t(j)];
        for (int64_t i = j + 1; i < m; ++i) y[std::size_t(i)] += at(F, m, i, j) * z[std::size_t(j)];
    }
    for (int64_t i = k - 1; i >= 0; --i)
        std::swap(y[std::size_t(i)], y[std::size_t(ipiv[std::size_t(i)] - 1)]);
    for (int64_t j = 0; j < n; ++j)  // A0 x
        for (int64_t i = 0; i < m; ++i) ax[std::size_t(i)] += at(A0, m, i, j) * x[std::size_t(j)];
    double r = 0, xn = 0;
    for (int64_t i = 0; i < m; ++i) r += std::abs(ax[std::size_t(i)] - y[std::size_t(i)]);
    for (C v : x) xn += std::abs(v);
    return r / (norm1(m, n, A0.data(), m) * xn * double(n) * double(la::eps<T>));
}

/// ||A0 x - Q (R x)||_1 / (||A0||_1 ||x||_1 m eps) for geqrf's compact form F and tau of the
/// m x n A0, Q applied by LAPACKE's ormqr (so that the check also proves the form LAPACK's).
template <Scalar T>
double qr_residual(std::vector<T> const& A0, int64_t m, int64_t n, std::vector<T> const& F,
                   std::vector<T> const& tau)
{
    const int64_t k = std::min(m, n);
    const std::vector<T> x = random_matrix<T>(n, 1, 5);
    std::vector<T> y(static_cast<std::size_t>(m)), ax(static_cast<std::size_t>(m));
    for (int64_t j = 0; j < n; ++j)  // y = R x
        for (int64_t i = 0; i <= std::min(j, k - 1); ++i)
            y[std::size_t(i)] += F[std::size_t(i + j * m)] * x[std::size_t(j)];
    lapacke_apply_q<T>(int(m), int(k), F.data(), int(m), tau.data(), y.data());
    blas::gemm<T>(Op::notrans, Op::notrans, m, 1, n, T(1), A0.data(), m, x.data(), n, T(0),
                  ax.data(), m);
    double r = 0;
    for (int64_t i = 0; i < m; ++i)
        r += std::abs(std::complex<double>(ax[std::size_t(i)] - y[std::size_t(i)]));
    return r /
           (norm1(m, n, A0.data(), m) * norm1(n, 1, x.data(), n) * double(m) * double(la::eps<T>));
}

/// A QR whose Householder vectors are not in LAPACK's form (PLASMA keeps its own, with T
/// factors), judged by its R alone: A = QR gives A^H A = R^H R, so
/// ||R^H R - A0^H A0||_1 / (||A0||_1^2 m eps) is small for a right R, whatever Q's form.
template <Scalar T>
double r_residual(std::vector<T> const& A0, int64_t m, int64_t n, std::vector<T> const& F)
{
    std::vector<T> R(static_cast<std::size_t>(n * n)), G(R.size());
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= std::min(j, m - 1); ++i)
            R[std::size_t(i + j * n)] = F[std::size_t(i + j * m)];
    blas::gemm<T>(Op::conjtrans, Op::notrans, n, n, m, T(1), A0.data(), m, A0.data(), m, T(0),
                  G.data(), n);
    blas::gemm<T>(Op::conjtrans, Op::notrans, n, n, n, T(1), R.data(), n, R.data(), n, T(-1),
                  G.data(), n);
    const double a = norm1(m, n, A0.data(), m);
    return norm1(n, n, G.data(), n) / (a * a * double(m) * double(la::eps<T>));
}

// ---- the GPU peer (CUDA builds): one library call on device-resident data ----------------------
/// Its name, or "" without CUDA.
template <Scalar T> std::string gpu_peer_name([[maybe_unused]] std::string const& routine)
{
#if TESSERA_HAVE_CUDA
    const std::string letter(1, la::precision_letter<T>());
    if (routine == "gemm") return "cublas_" + letter + "gemm";
    if (routine == "getri") return "";                       // cuSOLVER has no getri
    if (routine == "gels" || routine == "ormqr") return "";  // not yet measured on a GPU (issue 27)
    if (routine == "posv")
        return "cusolver_" + letter + "potrf+" + letter + "potrs";  // no cuSOLVER posv
    if (routine == "gesv") return "cusolver_" + letter + "getrf+" + letter + "getrs";  // nor gesv
    if (routine == "dsgesv") return la::is_complex_v<T> ? "cusolver_zcgesv" : "cusolver_dsgesv";
    return "cusolver_" + letter + routine;
#endif
    return "";
}
/// Its median seconds on the inputs of Tessera's call (gemm: A0, then B and C side by side in B0;
/// getrs: the factors in A0 and their pivots piv0; getrf: A0 is m x n).
template <Scalar T>
double gpu_peer_seconds([[maybe_unused]] std::string const& routine, [[maybe_unused]] Uplo uplo,
                        [[maybe_unused]] int64_t m, [[maybe_unused]] int64_t n,
                        [[maybe_unused]] int64_t nrhs, [[maybe_unused]] std::vector<T> const& A0,
                        [[maybe_unused]] std::vector<T> const& B0,
                        [[maybe_unused]] std::vector<lapack_int> const& piv0,
                        [[maybe_unused]] int64_t reps)
{
#if TESSERA_HAVE_CUDA
    static_assert(sizeof(lapack_int) == sizeof(int));
    if (routine == "getrf") return gpu::getrf_seconds<T>(m, n, A0.data(), reps);
    if (routine == "geqrf") return gpu::geqrf_seconds<T>(m, n, A0.data(), reps);
    if (routine == "getrs")
        return gpu::getrs_seconds<T>(n, nrhs, A0.data(), piv0.data(), B0.data(), reps);
    if (routine == "gesv") return gpu::gesv_seconds<T>(n, nrhs, A0.data(), B0.data(), reps);
    if (routine == "dsgesv") {
        int iter = 0;
        return gpu::mixed_gesv_seconds<T>(n, nrhs, A0.data(), B0.data(), reps, &iter);
    }
    if (routine == "gemm")
        return gpu::gemm_seconds<T>(n, A0.data(), B0.data(), B0.data() + n * n, reps);
    if (routine == "potrf") return gpu::potrf_seconds<T>(uplo, n, A0.data(), reps);
    if (routine == "potrs") return gpu::potrs_seconds<T>(uplo, n, nrhs, A0.data(), B0.data(), reps);
    if (routine == "posv") return gpu::posv_seconds<T>(uplo, n, nrhs, A0.data(), B0.data(), reps);
    if (routine == "potri") return gpu::potri_seconds<T>(uplo, n, A0.data(), reps);
#endif
    return nan;
}
/// CUDA workers of the runtime.
unsigned cuda_workers(rt::Runtime const& rt)
{
    unsigned count = 0;
    for (rt::WorkerId w = 0; w < rt.worker_count(); ++w)
        count += rt.worker(w).arch == rt::Arch::cuda;
    return count;
}

// ---- one routine: inputs, the two calls, the flop count and the check --------------------------
template <Scalar T> struct Problem {
    std::string routine;
    la::Routine kind;
    Uplo uplo = Uplo::lower;         ///< the triangle of A the Cholesky routines use
    int64_t m = 0, n = 0, nrhs = 0;  ///< A is m x n (m = n but for getrf --m)
    double flops = 0;
    std::vector<T> A0, B0, A, B, Cpeer;  ///< inputs, the working copies, the peer's gemm result
    std::vector<T> H;  ///< the positive definite matrix (potrs, potri: A0 is its factor)
    std::vector<lapack_int> piv0, piv;  ///< getrs's pivots (from A0's factorization), the peer's
    std::vector<int64_t> ipiv;          ///< Tessera's pivots
    std::vector<T> tau;                 ///< geqrf's scalars of the reflectors
    std::vector<T> X;                   ///< dsgesv's solution (B is only read)
    void fresh() { A = A0, B = B0; }
    void peer();
    void tessera();
    /// Runs PLASMA's call (double precision; plasma_runs(routine)).
    void plasma(peers::Plasma& session);
    /// The residual of what the last call left in A, B and ipiv (or tau); `r_only`: a QR
    /// judged by its R alone (r_residual).
    double residual(bool r_only = false);
    /// The residual of a peer's output, computed while it is in A, B and ipiv, without
    /// disturbing what Tessera's run leaves there later.
    double peer_residual(bool r_only)
    {
        if (routine == "getrf" || routine == "gesv") ipiv.assign(piv.begin(), piv.end());
        return residual(r_only);
    }
};

template <Scalar T>
Problem<T> make_problem(std::string const& routine, Uplo uplo, int64_t m, int64_t n, int64_t nrhs)
{
    Problem<T> p;
    p.routine = routine;
    p.uplo = uplo;
    p.m =
        routine == "getrf" || routine == "geqrf" || routine == "gels" || routine == "ormqr" ? m : n;
    p.n = n;
    const bool mixed = routine == "dsgesv";
    p.nrhs = routine == "potrs" || routine == "posv" || routine == "getrs" || routine == "gesv" ||
                     mixed || routine == "gels" || routine == "ormqr"
                 ? nrhs
                 : 0;
    const double fma = la::fma_flops<T>, N = double(n), M = double(p.m), K = std::min(M, N);
    const double lu =
        M * N * K - (M + N) * K * K / 2 + K * K * K / 3;  // LAPACK's multiply-adds of getrf
    const double qr =
        2 * M * N * K - (M + N) * K * K + 2 * K * K * K / 3;  // LAPACK's multiply-adds of geqrf
    const double R = double(p.nrhs);
    if (routine == "geqrf") {
        p.kind = la::Routine::geqrf;
        p.A0 = random_matrix<T>(p.m, n, 6);
        p.tau.resize(std::size_t(std::min(p.m, n)));
        p.flops = fma * qr;
        return p;
    }
    if (routine == "gels" ||
        routine == "ormqr") {  // m >= n: least squares; ormqr: Q^H C, Q of geqrf(A)
        require(p.m >= n, "--m must be >= --n (an overdetermined system; Q of a tall A)");
        p.kind = la::Routine::geqrf;
        p.A0 = random_matrix<T>(p.m, n, 6);
        p.B0 = random_matrix<T>(p.m, p.nrhs, 4);
        p.tau.resize(std::size_t(n));
        const double apply_qh = 2 * M * R * N - R * N * N;  // ormqr's multiply-adds
        if (routine == "gels") {
            p.H = p.A0;
            p.flops = fma * (qr + apply_qh + N * N * R / 2);  // geqrf, ormqr, trsm
        } else {
            openblas_set_num_threads(int(std::max(1u, std::thread::hardware_concurrency())));
            lapacke_geqrf<T>(int(p.m), int(n), p.A0.data(), int(p.m),
                             p.tau.data());  // ormqr starts from the factors
            p.flops = fma * apply_qh;
        }
        return p;
    }
    if (routine == "getrf" || routine == "getrs" || routine == "gesv" || routine == "getri" ||
        mixed) {
        p.A0 = random_matrix<T>(p.m, n, 6);
        p.piv.resize(std::size_t(std::min(p.m, n)));
        p.ipiv.resize(p.piv.size());
        if (routine == "getrf") {
            p.kind = la::Routine::getrf;
            p.flops = fma * lu;
        } else if (routine == "getri") {
            p.kind = la::Routine::getri;
            p.H = p.A0;
            openblas_set_num_threads(int(std::max(1u, std::thread::hardware_concurrency())));
            p.piv0.resize(p.piv.size());
            lapacke_getrf<T>(int(n), int(n), p.A0.data(), int(n),
                             p.piv0.data());    // getri starts from the factors
            p.flops = fma * 2 * N * N * N / 3;  // LAPACK's count: 4n^3/3 (real)
        } else {
            p.B0 = random_matrix<T>(n, nrhs, 4);
            p.H = p.A0;
            if (routine == "getrs") {
                p.kind = la::Routine::getrs;
                openblas_set_num_threads(int(std::max(1u, std::thread::hardware_concurrency())));
                p.piv0.resize(p.piv.size());
                lapacke_getrf<T>(int(n), int(n), p.A0.data(), int(n),
                                 p.piv0.data());  // getrs starts from the factors
                p.flops = fma * N * N * double(nrhs);
            } else {  // gesv, dsgesv: the flops of the double-precision solve
                p.kind = la::Routine::gesv;
                p.flops = fma * lu + fma * N * N * double(nrhs);
                if (mixed) p.X.resize(p.B0.size());
            }
        }
        return p;
    }
    if (routine == "gemm") {
        p.kind = la::Routine::gemm;
        p.A0 = random_matrix<T>(n, n, 1);
        p.B0 = random_matrix<T>(n, 2 * n, 2);  // B then C, side by side
        p.flops = fma * N * N * N;
    } else {
        p.A0 = p.H = hpd_matrix<T>(n, 3);
        if (routine == "potrf") {
            p.kind = la::Routine::potrf;
            p.flops = fma / 2 * N * N * N / 3;
        } else if (routine == "potri") {
            p.kind = la::Routine::potri;
            openblas_set_num_threads(int(std::max(1u, std::thread::hardware_concurrency())));
            lapacke_potrf<T>(char(uplo), int(n), p.A0.data(),
                             int(n));       // potri starts from the factor
            p.flops = fma * N * N * N / 3;  // trtri n^3/3 + lauum n^3/3 (real)
        } else {
            p.B0 = random_matrix<T>(n, nrhs, 4);
            if (routine == "potrs") {
                p.kind = la::Routine::potrs;
                openblas_set_num_threads(int(std::max(1u, std::thread::hardware_concurrency())));
                lapacke_potrf<T>(char(uplo), int(n), p.A0.data(),
                                 int(n));  // potrs starts from the factor
                p.flops = fma * N * N * double(nrhs);
            } else {
                p.kind = la::Routine::posv;
                p.flops = fma / 2 * N * N * N / 3 + fma * N * N * double(nrhs);
            }
        }
    }
    return p;
}

template <Scalar T> void Problem<T>::peer()
{
    const int N = int(n);
    if (routine == "gemm")
        blas::gemm<T>(Op::notrans, Op::notrans, n, n, n, T(1), A.data(), n, B.data(), n, T(1),
                      B.data() + n * n, n);
    else if (routine == "potrf")
        lapacke_potrf<T>(char(uplo), N, A.data(), N);
    else if (routine == "potrs")
        lapacke_potrs<T>(char(uplo), N, int(nrhs), A.data(), N, B.data(), N);
    else if (routine == "posv")
        lapacke_posv<T>(char(uplo), N, int(nrhs), A.data(), N, B.data(), N);
    else if (routine == "getrf")
        lapacke_getrf<T>(int(m), N, A.data(), int(m), piv.data());
    else if (routine == "geqrf")
        lapacke_geqrf<T>(int(m), N, A.data(), int(m), tau.data());
    else if (routine == "gels")
        lapacke_gels<T>(int(m), N, int(nrhs), A.data(), int(m), B.data(), int(m));
    else if (routine == "ormqr")
        lapacke_apply_qh<T>(int(m), int(nrhs), N, A.data(), int(m), tau.data(), B.data(), int(m));
    else if (routine == "getrs")
        lapacke_getrs<T>(N, int(nrhs), A.data(), N, piv0.data(), B.data(), N);
    else if (routine == "gesv" || routine == "dsgesv")
        lapacke_gesv<T>(N, int(nrhs), A.data(), N, piv.data(), B.data(), N);
    else if (routine == "getri")
        lapacke_getri<T>(N, A.data(), N, piv0.data());
    else
        lapacke_potri<T>(char(uplo), N, A.data(), N);
}

template <Scalar T> void Problem<T>::plasma([[maybe_unused]] peers::Plasma& session)
{
    if constexpr (std::is_same_v<T, double>) {
        const int N = int(n);
        std::vector<int64_t> pivots;
        if (routine == "gemm")
            session.gemm(N, A.data(), B.data(), B.data() + n * n);
        else if (routine == "potrf")
            require(session.potrf(char(uplo), N, A.data()) == 0, "plasma_dpotrf: info != 0");
        else if (routine == "posv")
            require(session.posv(char(uplo), N, int(nrhs), A.data(), B.data()) == 0,
                    "plasma_dposv: info != 0");
        else if (routine == "getrf")
            session.getrf(int(m), N, A.data(), pivots);
        else if (routine == "gesv")
            session.gesv(N, int(nrhs), A.data(), B.data(), pivots);
        else if (routine == "geqrf")
            session.geqrf(int(m), N, A.data());
        if (!pivots.empty()) piv.assign(pivots.begin(), pivots.end());
    } else {
        throw InvalidArgument("--peer plasma: double precision only (--precision d)");
    }
}

template <Scalar T> void Problem<T>::tessera()
{
    int64_t info = 0;
    if (routine == "gemm")
        la::gemm<T>(Op::notrans, Op::notrans, n, n, n, T(1), A.data(), n, B.data(), n, T(1),
                    B.data() + n * n, n);
    else if (routine == "potrf")
        info = la::potrf<T>(uplo, n, A.data(), n);
    else if (routine == "potrs")
        info = la::potrs<T>(uplo, n, nrhs, A.data(), n, B.data(), n);
    else if (routine == "posv")
        info = la::posv<T>(uplo, n, nrhs, A.data(), n, B.data(), n);
    else if (routine == "getrf")
        info = la::getrf<T>(m, n, A.data(), m, ipiv.data());
    else if (routine == "geqrf")
        info = la::geqrf<T>(m, n, A.data(), m, tau.data());
    else if (routine == "gels")
        info = la::gels<T>(Op::notrans, m, n, nrhs, A.data(), m, B.data(), m);
    else if (routine == "ormqr")
        info = la::unmqr<T>(la::Side::left, Op::conjtrans, m, nrhs, n, A.data(), m, tau.data(),
                            B.data(), m);
    else if (routine == "getrs") {
        const std::vector<int64_t> pivots(piv0.begin(), piv0.end());  // not timed: n entries
        info = la::getrs<T>(Op::notrans, n, nrhs, A.data(), n, pivots.data(), B.data(), n);
    } else if (routine == "gesv")
        info = la::gesv<T>(n, nrhs, A.data(), n, ipiv.data(), B.data(), n);
    else if (routine == "getri") {
        const std::vector<int64_t> pivots(piv0.begin(), piv0.end());  // not timed: n entries
        info = la::getri<T>(n, A.data(), n, pivots.data());
    } else if (routine == "dsgesv") {
        int64_t iter = 0;
        if constexpr (std::is_same_v<T, double>)
            info = la::dsgesv(n, nrhs, A.data(), n, ipiv.data(), B.data(), n, X.data(), n, &iter);
        else if constexpr (std::is_same_v<T, std::complex<double>>)
            info = la::zcgesv(n, nrhs, A.data(), n, ipiv.data(), B.data(), n, X.data(), n, &iter);
        else
            throw InvalidArgument("dsgesv: --precision must be d (dsgesv) or z (zcgesv)");
        B = X;  // the solution where the residual looks for it
    } else
        info = la::potri<T>(uplo, n, A.data(), n);
    require(info == 0, routine + ": info = " + std::to_string(info) + " on a nonsingular matrix");
}

template <Scalar T> double Problem<T>::residual(bool r_only)
{
    // Tessera's outputs are in A and B (the last timed call).
    if (routine == "gemm") {  // against the peer's C: ||C - C_peer||_1 / (||A||_1 ||B||_1 n eps)
        double diff = 0;
        for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t i = 0; i < n; ++i)
                s += std::abs(std::complex<double>(B[std::size_t(n * n + i + j * n)] -
                                                   Cpeer[std::size_t(i + j * n)]));
            diff = std::max(diff, s);
        }
        return diff / (norm1(n, n, A0.data(), n) * norm1(n, n, B0.data(), n) * double(n) *
                       double(la::eps<T>));
    }
    if (routine == "getrf") return lu_residual(A0, m, n, A, ipiv);
    if (routine == "geqrf") return r_only ? r_residual(A0, m, n, A) : qr_residual(A0, m, n, A, tau);
    if (routine == "ormqr") {  // against the peer's: ||C - C_peer||_1 / (||C0||_1 m eps)
        std::vector<T> d = B;
        for (std::size_t i = 0; i < d.size(); ++i) d[i] -= Cpeer[i];
        return norm1(m, nrhs, d.data(), m) /
               (norm1(m, nrhs, B0.data(), m) * double(m) * double(la::eps<T>));
    }
    if (routine ==
        "gels") {  // the normal equations: ||A^H (B0 - A X)||_1 / (||A||_1 (||A||_1 ||X||_1 + ||B0||_1) m eps)
        std::vector<T> r = B0, g(static_cast<std::size_t>(n * nrhs));
        blas::gemm<T>(Op::notrans, Op::notrans, m, nrhs, n, T(-1), H.data(), m, B.data(), m, T(1),
                      r.data(), m);
        blas::gemm<T>(Op::conjtrans, Op::notrans, n, nrhs, m, T(1), H.data(), m, r.data(), m, T(0),
                      g.data(), n);
        const double a = norm1(m, n, H.data(), m);
        return norm1(n, nrhs, g.data(), n) /
               (a * (a * norm1(n, nrhs, B.data(), m) + norm1(m, nrhs, B0.data(), m)) * double(m) *
                double(la::eps<T>));
    }
    std::vector<T> x = random_matrix<T>(n, 1, 5), y = x;
    if (routine == "potrf") {  // y = L (L^H x), or U^H (U x)
        const bool lower = uplo == Uplo::lower;
        for (Op op : {lower ? Op::conjtrans : Op::notrans, lower ? Op::notrans : Op::conjtrans})
            blas::trmm<T>(la::Side::left, uplo, op, la::Diag::nonunit, n, 1, T(1), A.data(), n,
                          y.data(), n);
        return scaled_residual(A0, n, x, y, norm1(n, 1, x.data(), n));
    }
    if (routine == "potri" ||
        routine == "getri") {  // ||H (A^{-1} x) - x||_1 / (||H||_1 ||A^{-1}||_1 ||x||_1 n eps)
        std::vector<T> inv = A;
        if (routine == "potri") hermitian_from(uplo, n, inv.data());
        blas::gemm<T>(Op::notrans, Op::notrans, n, 1, n, T(1), inv.data(), n, x.data(), n, T(0),
                      y.data(), n);
        return scaled_residual(H, n, y, x, norm1(n, n, inv.data(), n) * norm1(n, 1, x.data(), n));
    }
    // potrs, posv, getrs, gesv, dsgesv: ||H X - B0||_1 / (||H||_1 ||X||_1 n eps) (double's eps)
    return scaled_residual(H, n, B, B0, norm1(n, nrhs, B.data(), n));
}

/// A peer's measurement at one size, reported as one row per Tessera configuration.
struct PeerRow {
    std::string name;  // e.g. "lapacke_dpotrf", "plasma_dpotrf"
    double seconds = nan, residual = nan;
    std::vector<std::pair<std::string, std::string>> settings;  // e.g. {"peer_nb", "256"}
};

/// The peers --peer asks for (default: every one available for this routine and precision).
/// One asked for by name and not available is an error that says why; "all" takes what is.
std::vector<std::string> chosen_peers(Options const& o, std::string const& routine, char letter)
{
    auto available = [&](std::string const& peer) -> std::string {  // "" when it is, else why
        if (peer == "lapacke") return "";
        if (peer == "plasma") {
            if (!peers::plasma_available())
                return "tessera-bench was built without PLASMA (scripts/peers.sh plasma SOURCE)";
            if (!peers::plasma_runs(routine)) return "this bench has no PLASMA call for " + routine;
            if (letter != 'd') return "the PLASMA peer runs double precision only";
            return "";
        }
        if (peer == "starpu") {
            if (peers::starpu_examples_dir().empty())
                return "StarPU's examples were not found (Debian's starpu-examples, or "
                       "TESSERA_STARPU_EXAMPLES=DIR)";
            if (peers::starpu_example_for(routine, letter).empty())
                return std::string("StarPU's examples compute spotrf (cholesky_implicit) and "
                                   "dgetrf (lu_implicit_example_double), not ") +
                       letter + routine;
            return "";
        }
        if (peer == "cusolver") {  // cuBLAS/cuSOLVER on the GPU, when the run has GPU workers
#if TESSERA_HAVE_CUDA
            return "";
#else
            return "tessera-bench was built without CUDA";
#endif
        }
        if (peer == "magma")
            return "tessera-bench has no MAGMA peer yet (MAGMA is not packaged by Debian and was "
                   "not installed on the machines it was written on)";
        return "unknown peer (known: lapacke, plasma, starpu, magma, cusolver, all)";
    };
    const std::vector<std::string> known{"lapacke", "plasma", "starpu", "magma", "cusolver"};
    std::vector<std::string> out;
    for (std::string const& peer : o.list("peer", {"all"})) {
        if (peer == "all") {
            for (std::string const& k : known)
                if (available(k).empty() && std::find(out.begin(), out.end(), k) == out.end())
                    out.push_back(k);
            continue;
        }
        const std::string why = available(peer);
        require(why.empty(), "--peer " + peer + ": " + why);
        if (std::find(out.begin(), out.end(), peer) == out.end()) out.push_back(peer);
    }
    return out;
}

/// Where StarPU keeps its examples' models (STARPU_HOME): beside Tessera's own, so that a
/// benchmark calibrates them once.
std::string starpu_models_dir()
{
    char const* models = std::getenv("TESSERA_PERFMODEL_DIR");
    return models && *models && std::string(models) != "none"
               ? std::string(models) + "/starpu-peer"
               : (std::filesystem::temp_directory_path() / "tessera-starpu-peer").string();
}

/// --trace FILE's file for size n and policy `sched`: FILE itself when the run measures one
/// configuration, else FILE.n<n>.<sched>.
std::string numbered(std::string const& file, std::size_t configurations, int64_t n,
                     std::string const& sched)
{
    if (configurations == 1) return file;
    return file + ".n" + std::to_string(n) + "." + (sched.empty() ? "default" : sched);
}

template <Scalar T> int run_routine(std::string const& routine, Options const& o, Report& report)
{
    auto ns = o.integers("n", {1000, 2000, 4000});
    const int64_t nb_opt = o.integer("nb", 0), reps = o.integer("reps", 3);
    // the CPU peer's repetitions: fewer saves minutes at large n where only the GPU matters
    const int64_t peer_reps = o.integer("peer-reps", reps);
    const std::optional<int> ncpus = o.given_integer("ncpus"), ncuda = o.given_integer("ncuda");
    const int nemu = int(o.integer("nemu", 0));
    auto scheds = o.policies({"dmdas"});
    const std::string svg = o.text("svg", "");
    // --bound: one more run, traced, against its area and critical-path bounds; --trace FILE
    // keeps that run's trace (tessera-trace FILE --gantt chart.svg)
    const bool bound = o.has("bound");
    const std::string trace_file = o.text("trace", "");
    const std::string uplo_text = o.text("uplo", "L");
    require(uplo_text.size() == 1, "--uplo must be L or U, not '" + uplo_text + "'");
    const Uplo uplo = la::uplo_from_char(uplo_text[0], "--uplo");
    require(reps >= 1 && nb_opt >= 0, "--reps must be >= 1 and --nb >= 0 (0: automatic)");
    require(peer_reps >= 1, "--peer-reps must be >= 1");
    const int64_t nrhs_opt = o.integer("nrhs", 0);  // 0: n/10
    require(!o.has("nrhs") || nrhs_opt >= 1, "--nrhs must be >= 1");
    const int64_t m_opt = o.integer("m", 0);  // getrf, geqrf: the rows (0: m = n)
    require(!o.has("m") || m_opt >= 1, "--m must be >= 1");
    const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
    // LAPACKE's high-level calls scan their inputs for NaN first (O(n^2)), which Tessera's
    // kernels (the _work calls) do not: off, so that both sides do the same work.
    LAPACKE_set_nancheck(0);
    const std::string letter(1, la::precision_letter<T>());
    const bool mixed = routine == "dsgesv";  // --precision z: zcgesv; the peer is ?gesv
    const std::string name = mixed ? (la::is_complex_v<T> ? "zcgesv" : "dsgesv") : letter + routine;
    const std::string peer_name = mixed ? "lapacke_" + letter + "gesv"
                                        : (routine == "gemm" ? "openblas_" : "lapacke_") + name;
    std::vector<Series> plot(scheds.size() + 1);
    plot[0].name = routine == "gemm" ? "OpenBLAS" : "LAPACKE";
    for (std::size_t i = 0; i < scheds.size(); ++i) plot[i + 1].name = "Tessera " + scheds[i];
    Series gpu_plot{.name = gpu_peer_name<T>(routine)};

    for (int64_t n : ns) require(n >= 1, "--n must be >= 1");  // before anything is measured
    const std::vector<std::string> peer_list = chosen_peers(o, routine, la::precision_letter<T>());
    const std::vector<std::string> asked_peers = o.list("peer", {"all"});
    auto wants = [&](char const* peer) {
        return std::find(peer_list.begin(), peer_list.end(), peer) != peer_list.end();
    };
    const std::vector<int64_t> peer_nbs = o.integers("peer-nb", {});
    for (int64_t nb : peer_nbs) require(nb >= 1, "--peer-nb must be >= 1");
    Series plasma_plot{.name = "PLASMA"}, starpu_plot{.name = "StarPU (its example)"};
    for (int64_t n : ns) {
        Problem<T> p = make_problem<T>(routine, uplo, m_opt > 0 ? m_opt : n, n,
                                       nrhs_opt > 0 ? nrhs_opt : std::max<int64_t>(1, n / 10));
        // The peer: every core in OpenBLAS.
        openblas_set_num_threads(cores);
        std::vector<double> peer;
        for (int64_t r = 0; r <= peer_reps; ++r) {
            p.fresh();
            double t = seconds_of([&] { p.peer(); });
            if (r > 0) peer.push_back(t);  // r = 0 warms up
        }
        if (routine == "gemm") p.Cpeer.assign(p.B.begin() + n * n, p.B.end());
        if (routine == "ormqr") p.Cpeer = p.B;
        plot[0].points.push_back({double(n), p.flops / median(peer) * 1e-9});
        std::vector<PeerRow> peer_rows;
        if (wants("lapacke"))
            peer_rows.push_back({peer_name, median(peer), p.peer_residual(false)});
        if (wants("plasma")) {  // the best of a few tile sizes, with every core in OpenMP
            peers::Plasma session(cores, cores);
            PeerRow best{"plasma_" + name};
            const std::vector<int64_t> nbs = !peer_nbs.empty() ? peer_nbs
                                             : n < 2000        ? std::vector<int64_t>{64, 128, 192}
                                                        : std::vector<int64_t>{128, 192, 256, 384};
            for (int64_t nb : nbs) {
                session.set_tile_size(int(nb));
                std::vector<double> t;
                for (int64_t r = 0; r <= peer_reps; ++r) {
                    p.fresh();
                    const double s = seconds_of([&] { p.plasma(session); });
                    if (r > 0) t.push_back(s);
                }
                if (!(median(t) >= best.seconds)) {
                    best.seconds = median(t);
                    best.residual = p.peer_residual(true);
                    best.settings = {{"peer_nb", std::to_string(nb)}};
                }
            }
            plasma_plot.points.push_back({double(n), p.flops / best.seconds * 1e-9});
            peer_rows.push_back(best);
        }
        if (wants("starpu")) {  // its example's best block count, its models calibrated first
            const std::string program = peers::starpu_example_for(routine, letter[0]);
            PeerRow best{"starpu_" + program};
            bool checked = false;
            for (int64_t blocks : peers::starpu_block_counts(n)) {
                std::vector<double> t;
                for (int64_t r = 0; r < peer_reps + 2; ++r) {  // 2 runs calibrate, untimed
                    const auto run = peers::run_starpu_example(program, n, blocks, cores, !checked,
                                                               starpu_models_dir());
                    if (!checked && run.residual >= 0) best.residual = run.residual;
                    checked = true;  // -check once: the first run, with its own residual
                    if (r >= 2) t.push_back(run.seconds);
                }
                if (!(median(t) >= best.seconds)) {
                    best.seconds = median(t);
                    best.settings = {{"peer_nblocks", std::to_string(blocks)},
                                     {"peer_nb", std::to_string(n / blocks)},
                                     {"peer_check", "passed"}};
                }
            }
            starpu_plot.points.push_back({double(n), p.flops / best.seconds * 1e-9});
            peer_rows.push_back(best);
        }

        std::vector<Result> results;  // reported once the GPU peer, if any, has run
        bool with_gpus = false;
        for (std::size_t si = 0; si < scheds.size(); ++si) {
            la::finalize();
            la::init({.ncpus = ncpus,
                      .scheduler = scheduler_of(scheds[si]),
                      .nemu = nemu,
                      .ncuda = ncuda});
            const unsigned gpus = cuda_workers(la::runtime());
            with_gpus = with_gpus || gpus > 0;
            la::set_tile_size(nb_opt);
            std::vector<double> times;
            for (int64_t r = 0; r <= reps; ++r) {
                p.fresh();
                double t = seconds_of([&] { p.tessera(); });
                if (r > 0) times.push_back(t);
            }
            Result res;
            res.bench = routine;
            res.variant = name;
            res.labels = {{"sched", scheds[si]},
                          {"workers", std::to_string(la::runtime().worker_count())}};
            if (gpus > 0) res.labels.push_back({"gpus", std::to_string(gpus)});
            const bool cholesky = routine.starts_with("po");
            if (cholesky) res.labels.push_back({"uplo", std::string(1, char(uplo))});
            res.sizes = {{"n", double(n)},
                         {"nb", double(la::tile_size(p.kind, la::precision_letter<T>(), p.m, n))}};
            if (p.m != n) res.sizes.insert(res.sizes.begin(), {"m", double(p.m)});
            if (p.nrhs) res.sizes.push_back({"nrhs", double(p.nrhs)});
            res.seconds = median(times);
            res.gflops = p.flops / res.seconds * 1e-9;
            res.peer = peer_name;
            res.peer_seconds = median(peer);
            res.peer_gflops = p.flops / res.peer_seconds * 1e-9;
            res.ratio = res.peer_seconds / res.seconds;
            res.residual = p.residual();
            if (bound || !trace_file.empty()) {  // one more run, traced, out of the timings
                p.fresh();
                la::runtime().start_trace(
                    trace_file.empty()
                        ? std::string()
                        : numbered(trace_file, ns.size() * scheds.size(), n, scheds[si]));
                p.tessera();
                la::runtime().stop_trace();
            }
            if (bound) {
                const rt::TraceBounds b = la::runtime().trace_bounds();
                res.extra.push_back({"area_bound_seconds", b.area.seconds});
                res.extra.push_back({"critical_path_seconds", b.critical_path.seconds});
                res.extra.push_back({"over_bound", res.seconds / b.seconds()});
            }
            results.push_back(res);
            plot[si + 1].points.push_back({double(n), res.gflops});
        }
        la::set_tile_size(0);
        la::finalize();  // frees the GPUs for their peer
        if (with_gpus && !gpu_plot.name.empty()) {
            const double gpu =
                gpu_peer_seconds<T>(routine, uplo, p.m, n, p.nrhs, p.A0, p.B0, p.piv0, reps);
            for (Result& res : results) {
                res.labels.push_back({"gpu_peer", gpu_plot.name});
                res.extra.push_back({"gpu_peer_seconds", gpu});
                res.extra.push_back({"gpu_peer_gflops", p.flops / gpu * 1e-9});
                res.extra.push_back(
                    {"gpu_ratio", gpu / res.seconds});  // above 1: Tessera is faster
            }
            gpu_plot.points.push_back({double(n), p.flops / gpu * 1e-9});
            // its own row too (its answer is checked by tests/cuda's test_gpu_peers)
            if (wants("cusolver")) peer_rows.push_back({gpu_plot.name, gpu, nan});
        } else if (std::find(asked_peers.begin(), asked_peers.end(), "cusolver") !=
                   asked_peers.end()) {
            std::cerr << "tessera-bench " << routine << ": --peer cusolver: no GPU worker in "
                      << "this run (or no GPU peer for " << routine << "), no cuSOLVER row\n";
        }
        for (Result const& res : results) {
            if (peer_rows.empty()) report.add(res);
            for (PeerRow const& peer_row : peer_rows) {  // one row per peer, same fields
                Result row = res;
                row.peer = peer_row.name;
                row.peer_seconds = peer_row.seconds;
                row.peer_gflops = p.flops / peer_row.seconds * 1e-9;
                row.ratio = peer_row.seconds / res.seconds;
                if (!std::isnan(peer_row.residual))  // StarPU's Cholesky checks, says no number
                    row.extra.push_back({"peer_residual", peer_row.residual});
                row.labels.insert(row.labels.end(), peer_row.settings.begin(),
                                  peer_row.settings.end());
                report.add(row);
            }
        }
    }
    if (!starpu_plot.points.empty()) plot.insert(plot.begin() + 1, starpu_plot);
    if (!plasma_plot.points.empty()) plot.insert(plot.begin() + 1, plasma_plot);
    if (!wants("lapacke")) plot.erase(plot.begin());
    if (!gpu_plot.points.empty()) plot.push_back(gpu_plot);
    if (!svg.empty())
        write_svg_plot(svg,
                       name + ": Tessera against " + plot[0].name + " (" + std::to_string(cores) +
                           " cores)",
                       "n", "GFlop/s", plot);
    return 0;
}

#if !TESSERA_BENCH_HAS_MPI
}  // namespace

int run_distributed(std::string const&, Options const&, Report&)
{
    throw InvalidArgument("--grid: tessera-bench was built without MPI (install libopenmpi-dev)");
}

namespace {
#endif

int run(std::string const& routine, Options const& o, Report& report)
{
    if (o.has("grid")) return run_distributed(routine, o, report);
    const std::string prec = o.text("precision", "d");
    if (prec == "s") return run_routine<float>(routine, o, report);
    if (prec == "d") return run_routine<double>(routine, o, report);
    if (prec == "c") return run_routine<std::complex<float>>(routine, o, report);
    if (prec == "z") return run_routine<std::complex<double>>(routine, o, report);
    throw InvalidArgument("--precision must be s, d, c or z, not '" + prec + "'");
}

Subcommand linalg_subcommand(std::string const& routine, std::string const& what)
{
    const bool rhs = routine == "potrs" || routine == "posv" || routine == "getrs" ||
                     routine == "gesv" || routine == "dsgesv" || routine == "gels" ||
                     routine == "ormqr";
    const bool cholesky = routine.starts_with("po"), rows = routine == "getrf" ||
                                                            routine == "geqrf" ||
                                                            routine == "gels" || routine == "ormqr";
    std::vector<std::string> options{"n",       "nb",    "precision", "sched", "ncpus",
                                     "nemu",    "ncuda", "reps",      "peer",  "peer-reps",
                                     "peer-nb", "svg",   "bound",     "trace"};
    if (rhs) options.push_back("nrhs");
    if (cholesky) options.push_back("uplo");
    if (routine == "potrf") options.push_back("grid");
    if (rows) options.push_back("m");
    return {routine,
            what + " (LAPACK-style call) against " + (routine == "gemm" ? "OpenBLAS" : "LAPACKE") +
                ": GFlop/s, ratio",
            "tessera-bench " + routine +
                " [--n 1000,2000,4000] [--nb 0 (auto)] [--precision s|d|c|z] " +
                (cholesky ? "[--uplo L|U] " : "") + (rhs ? "[--nrhs n/10] " : "") +
                (routine == "potrf" ? "[--grid PxQ (under mpirun: against ScaLAPACK)] " : "") +
                (rows ? "[--m n] " : "") +
                "[--sched dmdas,ws,...] [--ncpus k] [--nemu k] [--ncuda k (all)] " +
                "[--reps 3] [--peer lapacke,plasma,starpu,cusolver,all (all)] [--peer-reps reps] " +
                "[--peer-nb 128,192,... (PLASMA's tile sizes to try)] [--svg plot.svg] " +
                "[--bound] [--trace FILE] " + "[--json]",
            options, [routine](Options const& o, Report& r) { return run(routine, o, r); }};
}

Register gemm_reg{linalg_subcommand("gemm", "C = A B + C, square")};
Register potrf_reg{linalg_subcommand("potrf", "Cholesky factorization A = L L^H")};
Register potrs_reg{linalg_subcommand("potrs", "solve with the Cholesky factor")};
Register posv_reg{linalg_subcommand("posv", "factor and solve A X = B")};
Register potri_reg{linalg_subcommand("potri", "inverse from the Cholesky factor")};
Register getrf_reg{linalg_subcommand("getrf", "LU factorization with partial pivoting A = P L U")};
Register getrs_reg{linalg_subcommand("getrs", "solve with the LU factors")};
Register gesv_reg{linalg_subcommand("gesv", "LU factor and solve A X = B")};
Register getri_reg{linalg_subcommand("getri", "inverse from the LU factors")};
Register geqrf_reg{linalg_subcommand("geqrf", "QR factorization A = Q R (LAPACK's compact form)")};
Register gels_reg{
    linalg_subcommand("gels", "least squares min ||B - A X|| through QR (--m >= --n)")};
Register ormqr_reg{
    linalg_subcommand("ormqr", "C = Q^H C, Q of the QR of an --m x --n A, C --m x nrhs")};
Register dsgesv_reg{
    linalg_subcommand("dsgesv", "A X = B factored in single, refined in double, vs dgesv")};

}  // namespace
}  // namespace tessera::bench
