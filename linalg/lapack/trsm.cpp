// LAPACK-style trsm: A and B tiled in place on the library's runtime.
#include <tessera/la/blas.hpp>
#include <tessera/la/context.hpp>

#include "linalg/instantiate.hpp"
#include "linalg/lapack/arguments.hpp"

#include <algorithm>

namespace tessera::inline la {

template <Scalar T>
void trsm(Side side, Uplo uplo, Op transa, Diag diag, int64_t m, int64_t n, scalar_arg<T> alpha, T const* a,
          int64_t lda, T* b, int64_t ldb)
{
    constexpr char const* fn = "trsm";
    detail::check_option(side == Side::left || side == Side::right, fn, 1, "side", side);
    detail::check_option(uplo == Uplo::lower || uplo == Uplo::upper, fn, 2, "uplo", uplo);
    detail::check_option(transa == Op::notrans || transa == Op::trans || transa == Op::conjtrans, fn, 3, "transa",
                         transa);
    detail::check_option(diag == Diag::nonunit || diag == Diag::unit, fn, 4, "diag", diag);
    detail::check_dimension(fn, 5, "m", m);
    detail::check_dimension(fn, 6, "n", n);
    const int64_t ka = side == Side::left ? m : n;  // the order of A
    const bool uses_a = alpha != T(0) && m > 0 && n > 0;
    detail::check_array(fn, 8, "A", a, !uses_a);
    detail::check_leading(fn, 9, "lda", lda, ka);
    detail::check_array(fn, 10, "B", b, m == 0 || n == 0);
    detail::check_leading(fn, 11, "ldb", ldb, m);
    if (m == 0 || n == 0) return;
    rt::Runtime& rt = runtime();
    const int64_t nb = tile_size(Routine::trsm, precision_letter<T>(), std::max(m, n));
    auto B = TileMatrix<T>::wrap(rt, b, m, n, ldb, nb);
    if (!uses_a) {  // B = 0: A is not referenced
        scale(T(0), B);
        return;
    }
    // A is only read: casting const away for the registration is safe.
    auto A = TileMatrix<T>::wrap(rt, const_cast<T*>(a), ka, ka, lda, nb);
    trsm(side, uplo, transa, diag, alpha, A, B);
}

#define TESSERA_INSTANTIATE(T) \
    template void trsm<T>(Side, Uplo, Op, Diag, int64_t, int64_t, T, T const*, int64_t, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::la
