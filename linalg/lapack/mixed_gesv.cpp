// LAPACK-style dsgesv and zcgesv: A, ipiv and X registered in place, B read in place, and the
// tile form (algorithms/mixed_gesv.cpp) on them, with the single-precision tile size. Inside a
// task, the double-precision gesv runs inline (iter = -1).
#include <tessera/la/context.hpp>
#include <tessera/la/lu.hpp>

#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"

#include <algorithm>

namespace tessera::inline la {

namespace {

template <Scalar T>
int64_t mixed_gesv(char const* fn, int64_t n, int64_t nrhs, T* a, int64_t lda, int64_t* ipiv,
                   T const* b, int64_t ldb, T* x, int64_t ldx, int64_t* iter)
{
    detail::check_lu_solver_arguments(fn, n, nrhs, a, lda, ipiv, b, ldb);
    detail::check_array(fn, 8, "X", x, n == 0 || nrhs == 0);
    detail::check_leading(fn, 9, "ldx", ldx, n);
    detail::check_array(fn, 10, "iter", iter, false);
    *iter = 0;
    if (n == 0) return 0;
    if (detail::inside_task()) {  // the double-precision routine itself, inline
        *iter = -1;
        for (int64_t c = 0; c < nrhs; ++c) std::copy(b + c * ldb, b + c * ldb + n, x + c * ldx);
        return gesv(n, nrhs, a, lda, ipiv, x, ldx);
    }
    const detail::LibraryCall library_call{__func__};
    rt::Runtime& rt = library_call.runtime();
    const int64_t nb = tile_size(Routine::gesv, is_complex_v<T> ? 'c' : 's', n);
    auto A = TileMatrix<T>::wrap(rt, a, n, n, lda, nb);
    const auto B = TileMatrix<T>::wrap(rt, b, n, nrhs, ldb, nb);
    auto X = TileMatrix<T>::wrap(rt, x, n, nrhs, ldx, nb);
    auto P = Pivots::wrap(rt, ipiv, n, nb);
    if constexpr (is_complex_v<T>)
        return zcgesv(A, P, B.matrix(), X, *iter);
    else
        return dsgesv(A, P, B.matrix(), X, *iter);
}

}  // namespace

int64_t dsgesv(int64_t n, int64_t nrhs, double* a, int64_t lda, int64_t* ipiv, double const* b,
               int64_t ldb, double* x, int64_t ldx, int64_t* iter)
{
    return mixed_gesv("dsgesv", n, nrhs, a, lda, ipiv, b, ldb, x, ldx, iter);
}

int64_t zcgesv(int64_t n, int64_t nrhs, std::complex<double>* a, int64_t lda, int64_t* ipiv,
               std::complex<double> const* b, int64_t ldb, std::complex<double>* x, int64_t ldx,
               int64_t* iter)
{
    return mixed_gesv("zcgesv", n, nrhs, a, lda, ipiv, b, ldb, x, ldx, iter);
}

}  // namespace tessera::inline la
