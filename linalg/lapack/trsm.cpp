// LAPACK-style trsm: A and B tiled in place on the library's runtime.
#include <tessera/la/blas.hpp>

#include "linalg/instantiate.hpp"
#include "linalg/lapack/triangular.hpp"

namespace tessera::inline la {

template <Scalar T>
void trsm(Side side, Uplo uplo, Op transa, Diag diag, int64_t m, int64_t n, scalar_arg<T> alpha,
          T const* a, int64_t lda, T* b, int64_t ldb)
{
    detail::triangular_in_place<T>(
        "trsm", Routine::trsm, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb,
        [&](TileMatrix<T> const& A, TileMatrix<T>& B) {
            trsm(side, uplo, transa, diag, alpha, A, B);
        },
        [&] { kernels::cpu::trsm<T>(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void trsm<T>(Side, Uplo, Op, Diag, int64_t, int64_t, T, T const*, int64_t, T*,        \
                          int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
