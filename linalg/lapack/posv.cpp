// LAPACK-style posv: A is tiled in place; B is copied (solve_on_copy.hpp), and the
// factorization and the solve run in one sequence, so that the solve of the first tile rows
// overlaps the end of the factorization. Only when the factorization succeeded is the
// solution copied back into B: a matrix that is not positive definite leaves B untouched, as
// LAPACK's posv does. The copies move O(n nrhs) elements against O(n^3) flops. On cores
// alone with many right-hand sides, the factorization runs first and the solve by strips of B
// (potrs.cpp, strips.hpp).
#include <tessera/la/cholesky.hpp>
#include <tessera/la/context.hpp>

#include "linalg/instantiate.hpp"
#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"
#include "linalg/lapack/solve_on_copy.hpp"
#include "linalg/lapack/strips.hpp"

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
    if (detail::
            inside_task()) {  // each inline (library_call.hpp): the factorization, then the solve
        if (const int64_t info = potrf(uplo, n, a, lda); info != 0 || nrhs == 0) return info;
        return potrs(uplo, n, nrhs, static_cast<T const*>(a), lda, b, ldb);
    }
    const detail::LibraryCall library_call{
        __func__};  // finalize() on another thread waits for this call
    rt::Runtime& rt = library_call.runtime();
    if (nrhs > 0 && detail::strip_width(rt, nrhs) > 0) {  // the factorization, then B in strips
        if (const int64_t info = potrf(uplo, n, a, lda); info != 0) return info;
        return potrs(uplo, n, nrhs, static_cast<T const*>(a), lda, b, ldb);
    }
    const int64_t nb = tile_size(Routine::posv, precision_letter<T>(), n);
    auto A = TileMatrix<T>::wrap(rt, a, n, n, lda, nb);
    if (nrhs == 0) return potrf(uplo, A);  // as LAPACK: A is factored even then
    return detail::solve_on_copy_of_b(
        rt, n, nrhs, b, ldb, nb, [&](TileMatrix<T>& X, Sequence& s) { posv_async(uplo, A, X, s); },
        [](T*) {});
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template int64_t posv<T>(Uplo, int64_t, int64_t, T*, int64_t, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
