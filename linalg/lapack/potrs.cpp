// LAPACK-style potrs: the factor A and the right-hand sides B are tiled in place
// (TileMatrix::wrap: no copy) on the library's runtime and solved by the tile algorithm.
#include <tessera/la/cholesky.hpp>
#include <tessera/la/context.hpp>

#include "linalg/instantiate.hpp"
#include "linalg/lapack/arguments.hpp"

namespace tessera::inline la {

template <Scalar T>
int64_t potrs(Uplo uplo, int64_t n, int64_t nrhs, T const* a, int64_t lda, T* b, int64_t ldb)
{
    constexpr char const* fn = "potrs";
    detail::check_option(uplo == Uplo::lower || uplo == Uplo::upper, fn, 1, "uplo", uplo);
    detail::check_dimension(fn, 2, "n", n);
    detail::check_dimension(fn, 3, "nrhs", nrhs);
    detail::check_array(fn, 4, "A", a, n == 0 || nrhs == 0);
    detail::check_leading(fn, 5, "lda", lda, n);
    detail::check_array(fn, 6, "B", b, n == 0 || nrhs == 0);
    detail::check_leading(fn, 7, "ldb", ldb, n);
    if (n == 0 || nrhs == 0) return 0;
    rt::Runtime& rt = runtime();
    const int64_t nb = tile_size(Routine::potrs, precision_letter<T>(), n);
    // A is only read: casting const away for the registration is safe.
    auto A = TileMatrix<T>::wrap(rt, const_cast<T*>(a), n, n, lda, nb);
    auto B = TileMatrix<T>::wrap(rt, b, n, nrhs, ldb, nb);
    potrs(uplo, A, B);
    return 0;
}

#define TESSERA_INSTANTIATE(T) template int64_t potrs<T>(Uplo, int64_t, int64_t, T const*, int64_t, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::la
