// Tile inverse from the Cholesky factor (PLASMA's pzpotri): with A = L L^H,
//     A^{-1} = L^{-H} L^{-1} = (L^{-1})^H (L^{-1}),
// so trtri inverts the factor in place and lauum forms the product of the inverse with its
// conjugate transpose (upper, A = U^H U: A^{-1} = U^{-1} U^{-H}, the same two steps). lauum's
// tasks on a tile wait for trtri's last write to it, not for all of trtri.
#include <tessera/la/cholesky.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/instantiate.hpp"

#include <string>

namespace tessera::inline la {

template <Scalar T> void potri_async(Uplo uplo, TileMatrix<T>& A, Sequence& s)
{
    detail::require_triangle("potri", uplo);
    require(A.m() == A.n(), "potri: A is " + std::to_string(A.m()) + " x " + std::to_string(A.n()) +
                                ", not square");
    const auto call = detail::begin_call<T>(s, "potri", {{"A", A}});
    trtri_async(uplo, Diag::nonunit, A, s);  // A = L^{-1} (U^{-1})
    lauum_async(uplo, A, s);                 // A = L^{-H} L^{-1} (U^{-1} U^{-H})
}

template <Scalar T> int64_t potri(Uplo uplo, TileMatrix<T>& A)
{
    detail::require_triangle("potri", uplo);
    if (!A) return 0;
    return synchronously(A.runtime(), [&](Sequence& s) { potri_async(uplo, A, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void potri_async<T>(Uplo, TileMatrix<T>&, Sequence&);                                 \
    template int64_t potri<T>(Uplo, TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
