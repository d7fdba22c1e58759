// LAPACK-style potrf: the column-major array is tiled in place (TileMatrix::wrap: no copy) on
// the library's runtime and factored by the tile algorithm.
#include <tessera/la/cholesky.hpp>
#include <tessera/la/context.hpp>

#include "linalg/instantiate.hpp"
#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"

namespace tessera::inline la {

template <Scalar T> int64_t potrf(Uplo uplo, int64_t n, T* a, int64_t lda)
{
    constexpr char const* fn = "potrf";
    detail::check_option(uplo == Uplo::lower || uplo == Uplo::upper, fn, 1, "uplo", uplo);
    detail::check_dimension(fn, 2, "n", n);
    detail::check_array(fn, 3, "A", a, n == 0);
    detail::check_leading(fn, 4, "lda", lda, n);
    if (n == 0) return 0;
    if (detail::inside_task())
        return detail::run_inline([&] { return kernels::cpu::potrf<T>(uplo, n, a, lda); });
    const detail::LibraryCall library_call{
        __func__};  // started first: the tile size depends on its workers
    rt::Runtime& rt = library_call.runtime();
    auto A =
        TileMatrix<T>::wrap(rt, a, n, n, lda, tile_size(Routine::potrf, precision_letter<T>(), n));
    return potrf(uplo, A);
}

#define TESSERA_INSTANTIATE(T) template int64_t potrf<T>(Uplo, int64_t, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
