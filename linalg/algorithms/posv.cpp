// Tile Cholesky solver (PLASMA's pzposv): A = L L^H (or U^H U) by potrf, then A X = B by
// potrs, on one sequence. The solve's first tasks start as soon as the tiles of the factor
// they read are final, while potrf is still factoring the rest (no barrier in between). When
// the factorization fails the solve's tasks already submitted still run: B is then
// unspecified, as cholesky.hpp says (the LAPACK-style form keeps B untouched instead).
#include <tessera/la/cholesky.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/instantiate.hpp"

#include <string>

namespace tessera::inline la {

namespace {
template <Scalar T> void check_posv(Uplo uplo, TileMatrix<T> const& A, TileMatrix<T> const& B)
{
    detail::require_triangle("posv", uplo);
    require(A.m() == A.n(),
            "posv: A is " + std::to_string(A.m()) + " x " + std::to_string(A.n()) + ", not square");
    require(B.m() == A.n(),
            "posv: B has " + std::to_string(B.m()) + " rows, A has order " + std::to_string(A.n()));
    require(A.n() == 0 || B.n() == 0 || A.nb() == B.nb(),
            "posv: A and B must have the same tile size");
}
}  // namespace

template <Scalar T> void posv_async(Uplo uplo, TileMatrix<T>& A, TileMatrix<T>& B, Sequence& s)
{
    check_posv(uplo, A, B);  // before anything is submitted: a bad B must not leave A factored
    const auto call = detail::begin_call<T>(s, "posv", {{"A", A, true}, {"B", B, true}});
    potrf_async(uplo, A, s);
    potrs_async(uplo, A, B, s);
}

template <Scalar T> int64_t posv(Uplo uplo, TileMatrix<T>& A, TileMatrix<T>& B)
{
    check_posv(uplo, A, B);
    if (A.n() == 0) return 0;
    return synchronously(A.runtime(), [&](Sequence& s) { posv_async(uplo, A, B, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void posv_async<T>(Uplo, TileMatrix<T>&, TileMatrix<T>&, Sequence&);                  \
    template int64_t posv<T>(Uplo, TileMatrix<T>&, TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
