// LAPACK-style posv: A is tiled in place and factored; only when the factorization succeeds
// is B tiled in place and solved, so that a matrix that is not positive definite leaves B
// untouched, as LAPACK's posv does. The wait in between costs the overlap of the solve with
// the end of the factorization: O(n^2 nrhs) work behind O(n^3) for the usual nrhs << n.
#include <tessera/la/cholesky.hpp>
#include <tessera/la/context.hpp>

#include "linalg/instantiate.hpp"
#include "linalg/lapack/arguments.hpp"

namespace tessera::inline la {

template <Scalar T>
int64_t posv(Uplo uplo, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb)
{
    constexpr char const* fn = "posv";
    detail::check_option(uplo == Uplo::lower || uplo == Uplo::upper, fn, 1, "uplo", uplo);
    detail::check_dimension(fn, 2, "n", n);
    detail::check_dimension(fn, 3, "nrhs", nrhs);
    detail::check_array(fn, 4, "A", a, n == 0);
    detail::check_leading(fn, 5, "lda", lda, n);
    detail::check_array(fn, 6, "B", b, n == 0 || nrhs == 0);
    detail::check_leading(fn, 7, "ldb", ldb, n);
    if (n == 0) return 0;
    rt::Runtime& rt = runtime();
    const int64_t nb = tile_size(Routine::posv, precision_letter<T>(), n);
    auto A = TileMatrix<T>::wrap(rt, a, n, n, lda, nb);
    // As LAPACK: A is factored even when there is no right-hand side.
    if (const int64_t info = potrf(uplo, A); info != 0 || nrhs == 0) return info;
    auto B = TileMatrix<T>::wrap(rt, b, n, nrhs, ldb, nb);
    potrs(uplo, A, B);
    return 0;
}

#define TESSERA_INSTANTIATE(T) template int64_t posv<T>(Uplo, int64_t, int64_t, T*, int64_t, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::la
