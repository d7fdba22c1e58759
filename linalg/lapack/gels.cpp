// LAPACK-style gels: the least-squares solution of an overdetermined op(A) X = B or the
// minimum-norm solution of an underdetermined one, for A of full rank, as LAPACK's (A m x n):
//     m >= n, A X = B:    A = Q R;  B = Q^H B;  R X = B(0:n)          (rows n..m-1 of B: the
//                                                                      residual's components)
//                         (each panel's Q_k^H applied to B beside the factorization's own
//                         updates, in one sequence of tasks)
//     m >= n, A^H X = B:  A = Q R;  R^H Y = B(0:n);  X = Q [Y; 0]
//     m <  n, A X = B:    A = L Q;  L Y = B(0:m);    X = Q^H [Y; 0]
//     m <  n, A^H X = B:  A = L Q;  B = Q B;  L^H X = B(0:m)
// each step a parallel call of its own. info = i > 0 when the i-th diagonal entry of R or L
// is exactly zero (A is not of full rank): no solution, as LAPACK's. Unlike LAPACK's, A and B
// are not scaled first when their largest entry is near the overflow or underflow threshold.
#include <tessera/la/blas.hpp>
#include <tessera/la/context.hpp>
#include <tessera/la/qr.hpp>

#include "linalg/algorithms/qr_compact.hpp"
#include "linalg/instantiate.hpp"
#include "linalg/kernels/cpu/blas_lapack.hpp"
#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"

#include <vector>

namespace tessera::inline la {

namespace {
/// Rows [r0, r1) of the nrhs columns of b set to zero.
template <Scalar T> void zero_rows(int64_t r0, int64_t r1, int64_t nrhs, T* b, int64_t ldb)
{
    for (int64_t j = 0; j < nrhs; ++j)
        for (int64_t i = r0; i < r1; ++i) b[i + j * ldb] = T(0);
}
/// The first (from 1) exactly zero diagonal entry of the k x k triangle of a, or 0.
template <Scalar T> int64_t zero_diagonal(int64_t k, T const* a, int64_t lda)
{
    for (int64_t i = 0; i < k; ++i)
        if (a[i + i * lda] == T(0)) return i + 1;
    return 0;
}

/// A = Q R (compact form) and B = Q^H B in one sequence of tasks: each panel's Q_k^H reaches
/// B as soon as it is made, beside the factorization's own updates.
template <Scalar T>
void factor_and_apply_qh(int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* tau, T* b,
                         int64_t ldb)
{
    const detail::LibraryCall library_call{__func__};
    rt::Runtime& rt = library_call.runtime();
    const int64_t nb = tile_size(Routine::geqrf, precision_letter<T>(), m, n);
    auto A = TileMatrix<T>::wrap(rt, a, m, n, lda, nb);
    auto B = TileMatrix<T>::wrap(rt, b, m, nrhs, ldb, nb);
    detail::TauPieces<T> pieces{rt, tau, n, nb};
    auto factors = detail::panel_factors<T>(rt, A.nt(), nb);
    (void)synchronously(
        rt, [&](Sequence& s) { detail::geqrf_compact_async(A, pieces, factors, s, &B); });
}
}  // namespace

template <Scalar T>
int64_t gels(Op op, int64_t m, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb)
{
    constexpr char const* fn = "gels";
    detail::check_option(op == Op::notrans || op == Op::conjtrans ||
                             (op == Op::trans && !is_complex_v<T>),
                         fn, 1, "trans", op);
    detail::check_dimension(fn, 2, "m", m);
    detail::check_dimension(fn, 3, "n", n);
    detail::check_dimension(fn, 4, "nrhs", nrhs);
    detail::check_array(fn, 5, "A", a, m == 0 || n == 0);
    detail::check_leading(fn, 6, "lda", lda, m);
    detail::check_array(fn, 7, "B", b, std::max(m, n) == 0 || nrhs == 0);
    detail::check_leading(fn, 8, "ldb", ldb, std::max(m, n));
    if (std::min({m, n, nrhs}) == 0) {  // LAPACK: B(0:max(m, n), :) = 0
        zero_rows<T>(0, std::max(m, n), nrhs, b, ldb);
        return 0;
    }
    if (detail::inside_task())
        return detail::run_inline(
            [&] { return kernels::cpu::gels<T>(op, m, n, nrhs, a, lda, b, ldb); });
    const bool notrans = op == Op::notrans;
    std::vector<T> tau(std::size_t(std::min(m, n)));
    if (m >= n && notrans) {
        factor_and_apply_qh(m, n, nrhs, a, lda, tau.data(), b, ldb);
        if (const int64_t info = zero_diagonal(n, a, lda)) return info;
        trsm<T>(Side::left, Uplo::upper, Op::notrans, Diag::nonunit, n, nrhs, T(1), a, lda, b, ldb);
        return 0;
    }
    if (m >= n) {
        (void)geqrf<T>(m, n, a, lda, tau.data());
        if (const int64_t info = zero_diagonal(n, a, lda)) return info;
        trsm<T>(Side::left, Uplo::upper, Op::conjtrans, Diag::nonunit, n, nrhs, T(1), a, lda, b,
                ldb);
        zero_rows<T>(n, m, nrhs, b, ldb);
        (void)unmqr<T>(Side::left, Op::notrans, m, nrhs, n, a, lda, tau.data(), b, ldb);
        return 0;
    }
    (void)gelqf<T>(m, n, a, lda, tau.data());
    if (notrans) {
        if (const int64_t info = zero_diagonal(m, a, lda)) return info;
        trsm<T>(Side::left, Uplo::lower, Op::notrans, Diag::nonunit, m, nrhs, T(1), a, lda, b, ldb);
        zero_rows<T>(m, n, nrhs, b, ldb);
        (void)unmlq<T>(Side::left, Op::conjtrans, n, nrhs, m, a, lda, tau.data(), b, ldb);
    } else {
        (void)unmlq<T>(Side::left, Op::notrans, n, nrhs, m, a, lda, tau.data(), b, ldb);
        if (const int64_t info = zero_diagonal(m, a, lda)) return info;
        trsm<T>(Side::left, Uplo::lower, Op::conjtrans, Diag::nonunit, m, nrhs, T(1), a, lda, b,
                ldb);
    }
    return 0;
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template int64_t gels<T>(Op, int64_t, int64_t, int64_t, T*, int64_t, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
