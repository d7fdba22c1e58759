// LAPACK-style gesv: A and ipiv are registered in place; the factorization and the solve run
// in one sequence on a copy of B (solve_on_copy.hpp), whose forward solve goes along with the
// factorization (gesv_async). An exactly singular A leaves B untouched,
// as LAPACK's gesv does (A and ipiv then hold the completed factorization).
#include <tessera/la/context.hpp>
#include <tessera/la/lu.hpp>

#include "linalg/algorithms/getrf_steps.hpp"
#include "linalg/instantiate.hpp"
#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"
#include "linalg/lapack/lu_strips.hpp"
#include "linalg/lapack/solve_on_copy.hpp"
#include "linalg/lapack/strips.hpp"

namespace tessera::inline la {

template <Scalar T>
int64_t gesv(int64_t n, int64_t nrhs, T* a, int64_t lda, int64_t* ipiv, T* b, int64_t ldb)
{
    detail::check_lu_solver_arguments("gesv", n, nrhs, a, lda, ipiv, b, ldb);
    if (n == 0) return 0;
    if (detail::
            inside_task()) {  // each inline (library_call.hpp): the factorization, then the solve
        if (const int64_t info = getrf(n, n, a, lda, ipiv); info != 0 || nrhs == 0) return info;
        return getrs(Op::notrans, n, nrhs, static_cast<T const*>(a), lda,
                     static_cast<int64_t const*>(ipiv), b, ldb);
    }
    const detail::LibraryCall library_call{__func__};
    rt::Runtime& rt = library_call.runtime();
    const int64_t nb = tile_size(Routine::gesv, precision_letter<T>(), n);
    auto A = TileMatrix<T>::wrap(rt, a, n, n, lda, nb);
    auto P = Pivots::wrap(rt, ipiv, n, nb);
    if (nrhs == 0) return getrf(A, P);  // as LAPACK: A is factored even then
    // On cores alone with many right-hand sides, the solve with U by strips once A is factored
    const int64_t width = detail::strip_width(rt, nrhs);
    return detail::solve_on_copy_of_b(
        rt, n, nrhs, b, ldb, nb,
        [&](TileMatrix<T>& X, Sequence& s) {
            if (width > 0)
                detail::getrf_then_forward_solve_async(A, P, &X, s);
            else
                gesv_async(A, P, X, s);
        },
        [&](T* x) {
            if (width > 0)
                detail::lu_solve_in_strips<T>(rt, detail::LuSolvePart::upper_only, Op::notrans, n,
                                              nrhs, a, lda, nullptr, x, n, width);
        });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template int64_t gesv<T>(int64_t, int64_t, T*, int64_t, int64_t*, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
