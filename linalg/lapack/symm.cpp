// LAPACK-style symm and hemm: A, B and C tiled in place on the library's runtime.
#include <tessera/la/blas.hpp>
#include <tessera/la/context.hpp>

#include "linalg/instantiate.hpp"
#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"

#include <algorithm>

namespace tessera::inline la {

namespace {

/// symm (hermitian = false) or hemm: BLAS's checks and numbering, then the tile form.
template <Scalar T>
void symm_or_hemm(char const* fn, bool hermitian, Side side, Uplo uplo, int64_t m, int64_t n,
                  T alpha, T const* a, int64_t lda, T const* b, int64_t ldb, T beta, T* c,
                  int64_t ldc)
{
    detail::check_option(side == Side::left || side == Side::right, fn, 1, "side", side);
    detail::check_option(uplo == Uplo::lower || uplo == Uplo::upper, fn, 2, "uplo", uplo);
    detail::check_dimension(fn, 3, "m", m);
    detail::check_dimension(fn, 4, "n", n);
    const int64_t ka = side == Side::left ? m : n;  // the order of A
    const bool uses_ab = alpha != T(0) && m > 0 && n > 0;
    detail::check_array(fn, 6, "A", a, !uses_ab);
    detail::check_leading(fn, 7, "lda", lda, ka);
    detail::check_array(fn, 8, "B", b, !uses_ab);
    detail::check_leading(fn, 9, "ldb", ldb, m);
    // BLAS's quick return, C not referenced: nothing to multiply and beta = 1
    const bool quick = m == 0 || n == 0 || (!uses_ab && beta == T(1));
    detail::check_array(fn, 11, "C", c, quick);
    detail::check_leading(fn, 12, "ldc", ldc, m);
    if (quick) return;
    if (detail::inside_task())
        return detail::run_inline([&] {
            kernels::cpu::symm<T>(side, uplo, hermitian, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
        });
    const detail::LibraryCall library_call{
        __func__};  // finalize() on another thread waits for this call
    rt::Runtime& rt = library_call.runtime();
    const int64_t nb = tile_size(Routine::symm, precision_letter<T>(), std::max(m, n));
    auto C = TileMatrix<T>::wrap(rt, c, m, n, ldc, nb);
    if (!uses_ab) {  // C = beta C: A and B are not referenced
        scale(beta, C);
        return;
    }
    const auto A = TileMatrix<T>::wrap(rt, a, ka, ka, lda, nb);  // read only
    const auto B = TileMatrix<T>::wrap(rt, b, m, n, ldb, nb);
    if (hermitian)
        hemm(side, uplo, alpha, A.matrix(), B.matrix(), beta, C);
    else
        symm(side, uplo, alpha, A.matrix(), B.matrix(), beta, C);
}

}  // namespace

template <Scalar T>
void symm(Side side, Uplo uplo, int64_t m, int64_t n, scalar_arg<T> alpha, T const* a, int64_t lda,
          T const* b, int64_t ldb, scalar_arg<T> beta, T* c, int64_t ldc)
{
    symm_or_hemm<T>("symm", false, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
}

template <Scalar T>
void hemm(Side side, Uplo uplo, int64_t m, int64_t n, scalar_arg<T> alpha, T const* a, int64_t lda,
          T const* b, int64_t ldb, scalar_arg<T> beta, T* c, int64_t ldc)
{
    symm_or_hemm<T>("hemm", true, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void symm<T>(Side, Uplo, int64_t, int64_t, T, T const*, int64_t, T const*, int64_t,   \
                          T, T*, int64_t);                                                         \
    template void hemm<T>(Side, Uplo, int64_t, int64_t, T, T const*, int64_t, T const*, int64_t,   \
                          T, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
