// LAPACK-style potri: the factor is tiled in place and inverted by the tile algorithm. As
// LAPACK's trtri, a zero on the factor's diagonal is looked for first (O(n) reads), so that
// info > 0 leaves A untouched.
#include <tessera/la/cholesky.hpp>
#include <tessera/la/context.hpp>

#include "linalg/instantiate.hpp"
#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"

namespace tessera::inline la {

template <Scalar T> int64_t potri(Uplo uplo, int64_t n, T* a, int64_t lda)
{
    constexpr char const* fn = "potri";
    detail::check_option(uplo == Uplo::lower || uplo == Uplo::upper, fn, 1, "uplo", uplo);
    detail::check_dimension(fn, 2, "n", n);
    detail::check_array(fn, 3, "A", a, n == 0);
    detail::check_leading(fn, 4, "lda", lda, n);
    for (int64_t i = 0; i < n; ++i)
        if (a[i + i * lda] == T(0)) return i + 1;
    if (n == 0) return 0;
    if (detail::inside_task())
        return detail::run_inline([&] {
            const int64_t info = kernels::cpu::trtri<T>(uplo, Diag::nonunit, n, a,
                                                        lda);  // 0: no zero on the diagonal
            kernels::cpu::lauum<T>(uplo, n, a, lda);
            return info;
        });
    const detail::LibraryCall library_call{
        __func__};  // started first: the tile size depends on its workers
    rt::Runtime& rt = library_call.runtime();
    auto A =
        TileMatrix<T>::wrap(rt, a, n, n, lda, tile_size(Routine::potri, precision_letter<T>(), n));
    return potri(uplo, A);
}

#define TESSERA_INSTANTIATE(T) template int64_t potri<T>(Uplo, int64_t, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
