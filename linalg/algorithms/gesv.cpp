// Tile LU solver: A = P L U by getrf, with B updated at each step as more columns right of A
// (Gaussian elimination on [A B]), so that the forward solve L^{-1} P^T B fills the
// factorization's idle moments instead of following it; then U X = B by the tile trsm. When
// U is exactly singular the solve's tasks still run (B is then unspecified, as lu.hpp says;
// the LAPACK-style form keeps B untouched instead).
#include <tessera/la/blas.hpp>
#include <tessera/la/lu.hpp>

#include "linalg/algorithms/getrf_steps.hpp"
#include "linalg/algorithms/operands.hpp"
#include "linalg/instantiate.hpp"

#include <string>

namespace tessera::inline la {

namespace {
template <Scalar T> void check_gesv(TileMatrix<T> const& A, TileMatrix<T> const& B)
{
    require(A.m() == A.n(), [&] {
        return "gesv: A is " + std::to_string(A.m()) + " x " + std::to_string(A.n()) +
               ", not square";
    });
    require(B.m() == A.n(), [&] {
        return "gesv: B has " + std::to_string(B.m()) + " rows, A has order " +
               std::to_string(A.n());
    });
    require(A.n() == 0 || B.n() == 0 || A.nb() == B.nb(),
            "gesv: A and B must have the same tile size");
}
}  // namespace

template <Scalar T> void gesv_async(TileMatrix<T>& A, Pivots& ipiv, TileMatrix<T>& B, Sequence& s)
{
    check_gesv(A, B);  // before anything is submitted: a bad B must not leave A factored
    const auto call = detail::begin_call<T>(s, "gesv", {{"A", A, true}, {"B", B, true}});
    detail::getrf_then_forward_solve_async(A, ipiv, &B, s);
    if (A.n() > 0 && B.n() > 0)
        trsm_async<T>(Side::left, Uplo::upper, Op::notrans, Diag::nonunit, T(1), A, B, s);
}

template <Scalar T> int64_t gesv(TileMatrix<T>& A, Pivots& ipiv, TileMatrix<T>& B)
{
    check_gesv(A, B);
    if (A.n() == 0) return 0;
    return synchronously(A.runtime(), [&](Sequence& s) { gesv_async(A, ipiv, B, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void gesv_async<T>(TileMatrix<T>&, Pivots&, TileMatrix<T>&, Sequence&);               \
    template int64_t gesv<T>(TileMatrix<T>&, Pivots&, TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
