// LAPACK-style gesv: A and ipiv are registered in place; B is copied into tile storage by
// tasks, and the factorization and the solve run in one sequence, so that the solve of the
// first tile rows overlaps the end of the factorization. Only when U is nonsingular is the
// solution copied back: an exactly singular A leaves B untouched, as LAPACK's gesv does (A
// and ipiv then hold the completed factorization).
#include <tessera/la/context.hpp>
#include <tessera/la/layout.hpp>
#include <tessera/la/lu.hpp>

#include "linalg/instantiate.hpp"
#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"

namespace tessera::inline la {

template <Scalar T>
int64_t gesv(int64_t n, int64_t nrhs, T* a, int64_t lda, int64_t* ipiv, T* b, int64_t ldb)
{
    constexpr char const* fn = "gesv";
    detail::check_dimension(fn, 1, "n", n);
    detail::check_dimension(fn, 2, "nrhs", nrhs);
    detail::check_array(fn, 3, "A", a, n == 0);
    detail::check_leading(fn, 4, "lda", lda, n);
    detail::check_array(fn, 5, "ipiv", ipiv, n == 0);
    detail::check_array(fn, 6, "B", b, n == 0 || nrhs == 0);
    detail::check_leading(fn, 7, "ldb", ldb, n);
    if (n == 0) return 0;
    if (detail::inside_task()) {  // each inline (library_call.hpp): the factorization, then the solve
        if (const int64_t info = getrf(n, n, a, lda, ipiv); info != 0 || nrhs == 0) return info;
        return getrs(Op::notrans, n, nrhs, static_cast<T const*>(a), lda, static_cast<int64_t const*>(ipiv), b, ldb);
    }
    const detail::LibraryCall library_call;
    rt::Runtime& rt = library_call.runtime();
    const int64_t nb = tile_size(Routine::gesv, precision_letter<T>(), n);
    auto A = TileMatrix<T>::wrap(rt, a, n, n, lda, nb);
    auto P = Pivots::wrap(rt, ipiv, n, nb);
    if (nrhs == 0) return getrf(A, P);  // as LAPACK: A is factored even then
    TileMatrix<T> X{rt, n, nrhs, nb};
    Sequence s{rt};
    lapack_to_tiles_async(static_cast<T const*>(b), ldb, X, s);
    gesv_async(A, P, X, s);
    if (const int64_t info = s.wait(); info != 0) return info;
    tiles_to_lapack(X, b, ldb);
    return 0;
}

#define TESSERA_INSTANTIATE(T) template int64_t gesv<T>(int64_t, int64_t, T*, int64_t, int64_t*, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::la
