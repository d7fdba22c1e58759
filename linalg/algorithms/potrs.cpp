// Tile Cholesky solve (PLASMA's pzpotrs): with the factor potrf left in A, A X = B is two
// triangular solves on the whole of B, each a tile trsm (trsm.cpp):
//     lower, A = L L^H:    L Y = B,      then  L^H X = Y
//     upper, A = U^H U:    U^H Y = B,    then  U X = Y
// The second solve's tasks on a tile row of B start as soon as the first solve has finished
// that row, by data dependencies: no barrier between the two.
#include <tessera/la/blas.hpp>
#include <tessera/la/cholesky.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/instantiate.hpp"

#include <string>

namespace tessera::inline la {

namespace {
template <Scalar T>
void check_potrs(char const* fn, Uplo uplo, TileMatrix<T> const& A, TileMatrix<T> const& B)
{
    detail::require_triangle(std::string(fn), uplo);
    require(A.m() == A.n(), std::string(fn) + ": A is " + std::to_string(A.m()) + " x " +
                                std::to_string(A.n()) + ", not square");
    require(B.m() == A.n(), std::string(fn) + ": B has " + std::to_string(B.m()) +
                                " rows, A has order " + std::to_string(A.n()));
    require(A.n() == 0 || B.n() == 0 || A.nb() == B.nb(),
            std::string(fn) + ": A and B must have the same tile size");
}
}  // namespace

template <Scalar T>
void potrs_async(Uplo uplo, TileMatrix<T> const& A, TileMatrix<T>& B, Sequence& s)
{
    check_potrs("potrs", uplo, A, B);
    const auto call = detail::begin_call<T>(s, "potrs", {{"A", A}, {"B", B, true}});
    if (B.m() == 0 || B.n() == 0) return;
    const Op conjtrans = is_complex_v<T> ? Op::conjtrans : Op::trans;
    if (uplo == Uplo::lower) {
        trsm_async(Side::left, uplo, Op::notrans, Diag::nonunit, T(1), A, B, s);  // B = L^{-1} B
        trsm_async(Side::left, uplo, conjtrans, Diag::nonunit, T(1), A, B, s);    // B = L^{-H} B
    } else {
        trsm_async(Side::left, uplo, conjtrans, Diag::nonunit, T(1), A, B, s);    // B = U^{-H} B
        trsm_async(Side::left, uplo, Op::notrans, Diag::nonunit, T(1), A, B, s);  // B = U^{-1} B
    }
}

template <Scalar T> void potrs(Uplo uplo, TileMatrix<T> const& A, TileMatrix<T>& B)
{
    check_potrs("potrs", uplo, A, B);
    if (B.m() == 0 || B.n() == 0) return;
    synchronously(B.runtime(), [&](Sequence& s) { potrs_async(uplo, A, B, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void potrs_async<T>(Uplo, TileMatrix<T> const&, TileMatrix<T>&, Sequence&);           \
    template void potrs<T>(Uplo, TileMatrix<T> const&, TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
