// Tile dsgesv and zcgesv: A X = B solved with the factorization in single precision (twice as
// fast, half the memory traffic) and the solution refined in double, as LAPACK's:
//
//     SA = single(A), SX = single(B)            overflow: iter = -2, solve in double
//     SA = P L U (single)                       info > 0: iter = -3, solve in double
//     X = double(U^{-1} L^{-1} P^T SX)
//     repeat, at most 30 times:
//         R = B - A X                           (double)
//         stop when for every column c: max|R(:,c)| <= max|X(:,c)| ||A||_inf u sqrt(n)
//         (u = 2^-53, LAPACK's DLAMCH('Epsilon'))
//         X = X + double(solve(single(R)))
//     not converged: iter = -31, solve in double (A factored in place, as gesv)
//
// with LAPACK's measure |Re| + |Im| for complex entries. Each step is one sequence of tasks
// (the conversions, getrs in single, the widening and the residual's gemm run on any unit);
// the test of convergence reads X and R on the host, n x nrhs entries a step.
#include <tessera/la/blas.hpp>
#include <tessera/la/layout.hpp>
#include <tessera/la/lu.hpp>
#include <tessera/la/norm.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/codelets/precision.hpp"

#include <atomic>
#include <cmath>
#include <string>
#include <vector>

namespace tessera::inline la {

namespace {

template <Scalar T> double magnitude(T x)  // |Re| + |Im|, LAPACK's cabs1
{
    if constexpr (is_complex_v<T>)
        return std::abs(x.real()) + std::abs(x.imag());
    else
        return std::abs(x);
}

/// Whether every column c of R has max|R(:,c)| <= max|X(:,c)| cte (LAPACK's test); x and r
/// are n x nrhs, column-major, leading dimension n.
template <Scalar T>
bool converged(int64_t n, int64_t nrhs, std::vector<T> const& x, std::vector<T> const& r,
               double cte)
{
    for (int64_t c = 0; c < nrhs; ++c) {
        double xn = 0, rn = 0;
        for (int64_t i = 0; i < n; ++i) {
            xn = std::max(xn, magnitude(x[std::size_t(i + c * n)]));
            rn = std::max(rn, magnitude(r[std::size_t(i + c * n)]));
        }
        if (!(rn <= xn * cte)) return false;
    }
    return true;
}

/// Submits the rounding of every tile of `from` into `to`.
template <Scalar T>
void round_all(TileMatrix<T> const& from, TileMatrix<cl::lower_precision_t<T>>& to,
               std::atomic<bool>& overflow, Sequence& s)
{
    for (int64_t j = 0; j < from.nt(); ++j)
        for (int64_t i = 0; i < from.mt(); ++i)
            s.submit(cl::round_to_single<T>, read(from(i, j)), rt::write(to(i, j)),
                     rt::value(&overflow));
}

template <Scalar T>
void check_mixed_gesv(char const* fn, TileMatrix<T> const& A, Pivots const& ipiv,
                      TileMatrix<T> const& B, TileMatrix<T> const& X)
{
    require(A.m() == A.n(), [&] {
        return std::string(fn) + ": A is " + std::to_string(A.m()) + " x " + std::to_string(A.n()) +
               ", not square";
    });
    require(B.m() == A.n() && X.m() == A.n() && X.n() == B.n(), [&] {
        return std::string(fn) + ": B is " + std::to_string(B.m()) + " x " + std::to_string(B.n()) +
               " and X " + std::to_string(X.m()) + " x " + std::to_string(X.n()) +
               ", both must be " + std::to_string(A.n()) + " x nrhs";
    });
    require(A.n() == 0 || B.n() == 0 || (A.nb() == B.nb() && A.nb() == X.nb()),
            [&] { return std::string(fn) + ": A, B and X must have the same tile size"; });
    detail::require_pivots_of(fn, ipiv, A);
}

/// The single-precision solve and its refinement; returns iter (>= 0) when it converged, or the
/// negative iter of the reason to fall back to double. b receives B on the host.
template <Scalar T>
int64_t refine(TileMatrix<T> const& A, Pivots& ipiv, TileMatrix<T> const& B, TileMatrix<T>& X,
               std::vector<T>& b)
{
    using S = cl::lower_precision_t<T>;
    constexpr int64_t itermax = 30;
    rt::Runtime& rt = A.runtime();
    const int64_t n = A.n(), nrhs = B.n(), nb = A.nb();
    // LAPACK's eps is DLAMCH('Epsilon'), the unit roundoff 2^-53: half of C++'s epsilon.
    const double unit_roundoff = double(eps<T>) / 2;
    const double cte = double(norm(Norm::inf, A)) * unit_roundoff * std::sqrt(double(n));
    TileMatrix<S> SA{rt, n, n, nb}, SX{rt, n, nrhs, nb};
    TileMatrix<T> R{rt, n, nrhs, nb};
    std::vector<T> x(b.size()), r(b.size());
    std::atomic<bool> overflow{false};
    {
        Sequence s{rt};
        round_all(B, SX, overflow, s);
        round_all(A, SA, overflow, s);
        tiles_to_lapack_async(B, b.data(), std::max<int64_t>(n, 1), s);
        (void)s.wait();
    }
    if (overflow) return -2;
    {
        Sequence s{rt};
        getrf_async(SA, ipiv, s);
        if (s.wait() != 0) return -3;
    }
    // One step: the correction (or, first, the solution) from SX, then R = B - A X.
    auto step = [&](bool first) {
        Sequence s{rt};
        lapack_to_tiles_async(b.data(), std::max<int64_t>(n, 1), R, s);
        getrs_async(Op::notrans, SA, ipiv, SX, s);
        for (int64_t j = 0; j < X.nt(); ++j)
            for (int64_t i = 0; i < X.mt(); ++i)
                s.submit(cl::widen_to_double<T>, read(SX(i, j)), readwrite(X(i, j)),
                         rt::value(!first));
        gemm_async<T>(Op::notrans, Op::notrans, T(-1), A, X, T(1), R, s);
        tiles_to_lapack_async(X, x.data(), std::max<int64_t>(n, 1), s);
        tiles_to_lapack_async(R, r.data(), std::max<int64_t>(n, 1), s);
        (void)s.wait();
    };
    step(true);
    for (int64_t iter = 0; iter <= itermax; ++iter) {
        if (converged(n, nrhs, x, r, cte)) return iter;
        if (iter == itermax) break;
        {
            Sequence s{rt};
            round_all(static_cast<TileMatrix<T> const&>(R), SX, overflow, s);
            (void)s.wait();
        }
        if (overflow) return -2;
        step(false);
    }
    return -itermax - 1;
}

template <Scalar T>
int64_t mixed_gesv(char const* fn, TileMatrix<T>& A, Pivots& ipiv, TileMatrix<T> const& B,
                   TileMatrix<T>& X, int64_t& iter)
{
    check_mixed_gesv(fn, A, ipiv, B, X);
    iter = 0;
    const int64_t n = A.n(), nrhs = B.n();
    if (n == 0) return 0;
    if (nrhs == 0) {  // nothing to solve: the double-precision routine, which factors A
        iter = -1;
        return getrf(A, ipiv);
    }
    std::vector<T> b(static_cast<std::size_t>(n * nrhs));
    iter = refine(static_cast<TileMatrix<T> const&>(A), ipiv, B, X, b);
    if (iter >= 0) return 0;
    lapack_to_tiles(b.data(), n, X);  // X = B (b was read first thing), then solve in double
    return gesv(A, ipiv, X);
}

}  // namespace

int64_t dsgesv(TileMatrix<double>& A, Pivots& ipiv, TileMatrix<double> const& B,
               TileMatrix<double>& X, int64_t& iter)
{
    return mixed_gesv("dsgesv", A, ipiv, B, X, iter);
}

int64_t zcgesv(TileMatrix<std::complex<double>>& A, Pivots& ipiv,
               TileMatrix<std::complex<double>> const& B, TileMatrix<std::complex<double>>& X,
               int64_t& iter)
{
    return mixed_gesv("zcgesv", A, ipiv, B, X, iter);
}

}  // namespace tessera::inline la
