// LAPACK-style dsgesv and zcgesv: A X = B solved with the factorization in single precision
// (twice as fast, half the memory traffic) and the solution refined in double, as LAPACK's:
//
//     SA = single(A), SX = single(B)            overflow: iter = -2, solve in double
//     SA = P L U (single)                       info > 0: iter = -3, solve in double
//     X = double(U^{-1} L^{-1} P^T SX)
//     repeat, at most 30 times:
//         R = B - A X                           (double)
//         stop when for every column c: max|R(:,c)| <= max|X(:,c)| ||A||_inf eps sqrt(n)
//         X = X + double(solve(single(R)))
//     not converged: iter = -31, solve in double (A factored in place, as dgesv)
//
// with LAPACK's measure |Re| + |Im| for complex entries. iter is the number of refinement
// steps taken, or negative when it fell back to double; on success A is untouched and ipiv
// holds the single-precision factorization's pivots. Each step runs as tasks on the library's
// runtime; X and R are registered in place for the step and released after it, so that the
// test of convergence reads them on the host.
#include <tessera/la/blas.hpp>
#include <tessera/la/context.hpp>
#include <tessera/la/lu.hpp>
#include <tessera/la/norm.hpp>

#include "linalg/codelets/precision.hpp"
#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"

#include <atomic>
#include <cmath>
#include <optional>
#include <vector>

namespace tessera::inline la {

namespace {

template <Scalar T>
double magnitude(T x)  // |Re| + |Im|, LAPACK's cabs1
{
    if constexpr (is_complex_v<T>) return std::abs(x.real()) + std::abs(x.imag());
    else return std::abs(x);
}

/// Whether every column c of R has max|R(:,c)| <= max|X(:,c)| cte (LAPACK's test).
template <Scalar T>
bool converged(int64_t n, int64_t nrhs, T const* x, int64_t ldx, std::vector<T> const& r, double cte)
{
    for (int64_t c = 0; c < nrhs; ++c) {
        double xn = 0, rn = 0;
        for (int64_t i = 0; i < n; ++i) {
            xn = std::max(xn, magnitude(x[i + c * ldx]));
            rn = std::max(rn, magnitude(r[std::size_t(i + c * n)]));
        }
        if (!(rn <= xn * cte)) return false;
    }
    return true;
}

/// Submits the rounding of every tile of `from` into `to`.
template <Scalar T>
void round_all(TileMatrix<T> const& from, TileMatrix<cl::lower_precision_t<T>>& to, std::atomic<bool>& overflow,
               Sequence& s)
{
    for (int64_t j = 0; j < from.nt(); ++j)
        for (int64_t i = 0; i < from.mt(); ++i)
            s.submit(cl::round_to_single<T>, read(from(i, j)), rt::write(to(i, j)), rt::value(&overflow));
}

/// The single-precision solve and its refinement; returns iter (>= 0) when it converged, or the
/// negative iter of the reason to fall back to double.
template <Scalar T>
int64_t refine(rt::Runtime& rt, int64_t n, int64_t nrhs, T const* a, int64_t lda, int64_t* ipiv, T const* b,
               int64_t ldb, T* x, int64_t ldx)
{
    using S = cl::lower_precision_t<T>;
    constexpr int64_t itermax = 30;
    const int64_t nb = tile_size(Routine::gesv, precision_letter<S>(), n);
    const auto A = TileMatrix<T>::wrap(rt, a, n, n, lda, nb);
    const auto B = TileMatrix<T>::wrap(rt, b, n, nrhs, ldb, nb);
    const double cte = double(norm(Norm::inf, A.matrix())) * double(eps<T>) * std::sqrt(double(n));
    TileMatrix<S> SA{rt, n, n, nb}, SX{rt, n, nrhs, nb};
    auto P = Pivots::wrap(rt, ipiv, n, nb);
    std::atomic<bool> overflow{false};
    {
        Sequence s{rt};
        round_all(B.matrix(), SX, overflow, s);
        round_all(A.matrix(), SA, overflow, s);
        (void)s.wait();
    }
    if (overflow) return -2;
    std::vector<T> r(static_cast<std::size_t>(n * nrhs));
    // One step: the correction (or, first, the solution) from SX, then R = B - A X.
    auto step = [&](bool first) {
        for (int64_t c = 0; c < nrhs; ++c)
            std::copy(b + c * ldb, b + c * ldb + n, r.begin() + c * n);
        auto X = TileMatrix<T>::wrap(rt, x, n, nrhs, ldx, nb);
        auto R = TileMatrix<T>::wrap(rt, r.data(), n, nrhs, n, nb);
        Sequence s{rt};
        getrs_async(Op::notrans, SA, P, SX, s);
        for (int64_t j = 0; j < X.nt(); ++j)
            for (int64_t i = 0; i < X.mt(); ++i)
                s.submit(cl::widen_to_double<T>, read(SX(i, j)), readwrite(X(i, j)), rt::value(!first));
        gemm_async<T>(Op::notrans, Op::notrans, T(-1), A.matrix(), X, T(1), R, s);
        return s.wait();
    };  // X and R are released: the host holds their values
    {
        Sequence s{rt};
        getrf_async(SA, P, s);
        if (s.wait() != 0) return -3;
    }
    (void)step(true);
    for (int64_t iter = 0; iter <= itermax; ++iter) {
        if (converged(n, nrhs, x, ldx, r, cte)) return iter;
        if (iter == itermax) break;
        {
            auto R = TileMatrix<T>::wrap(rt, static_cast<T const*>(r.data()), n, nrhs, n, nb);
            Sequence s{rt};
            round_all(R.matrix(), SX, overflow, s);
            (void)s.wait();
        }
        if (overflow) return -2;
        (void)step(false);
    }
    return -itermax - 1;
}

template <Scalar T>
int64_t mixed_gesv(char const* fn, int64_t n, int64_t nrhs, T* a, int64_t lda, int64_t* ipiv, T const* b,
                   int64_t ldb, T* x, int64_t ldx, int64_t* iter)
{
    detail::check_lu_solver_arguments(fn, n, nrhs, a, lda, ipiv, b, ldb);
    detail::check_array(fn, 8, "X", x, n == 0 || nrhs == 0);
    detail::check_leading(fn, 9, "ldx", ldx, n);
    detail::check_array(fn, 10, "iter", iter, false);
    *iter = 0;
    if (n == 0) return 0;
    if (nrhs > 0 && !detail::inside_task()) {
        const detail::LibraryCall library_call;
        *iter = refine(library_call.runtime(), n, nrhs, a, lda, ipiv, b, ldb, x, ldx);
        if (*iter >= 0) return 0;
    } else {
        *iter = -1;  // inside a task, or nothing to solve: the double-precision routine itself
    }
    for (int64_t c = 0; c < nrhs; ++c) std::copy(b + c * ldb, b + c * ldb + n, x + c * ldx);
    return gesv(n, nrhs, a, lda, ipiv, x, ldx);
}

}  // namespace

int64_t dsgesv(int64_t n, int64_t nrhs, double* a, int64_t lda, int64_t* ipiv, double const* b, int64_t ldb, double* x,
               int64_t ldx, int64_t* iter)
{
    return mixed_gesv("dsgesv", n, nrhs, a, lda, ipiv, b, ldb, x, ldx, iter);
}

int64_t zcgesv(int64_t n, int64_t nrhs, std::complex<double>* a, int64_t lda, int64_t* ipiv,
               std::complex<double> const* b, int64_t ldb, std::complex<double>* x, int64_t ldx, int64_t* iter)
{
    return mixed_gesv("zcgesv", n, nrhs, a, lda, ipiv, b, ldb, x, ldx, iter);
}

}  // namespace tessera::la
