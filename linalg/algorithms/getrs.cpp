// Tile solve with the LU factors of getrf (PLASMA's pzgetrs): A = P L U, so
//     op = N:       X = U^{-1} L^{-1} P^T B    (interchanges forward, then the two solves)
//     op = T or C:  X = P L^{-op} U^{-op} B    (the two solves, then the interchanges backward)
// Each tile column of B takes every piece of the interchanges in one task; the solves are
// the tile trsm.
#include <tessera/la/blas.hpp>
#include <tessera/la/lu.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/codelets/lu.hpp"
#include "linalg/instantiate.hpp"

#include <string>
#include <vector>

namespace tessera::inline la {

namespace {
template <Scalar T>
void check_getrs(Op trans, TileMatrix<T> const& A, Pivots const& ipiv, TileMatrix<T> const& B)
{
    detail::require_op("getrs", "trans", trans);
    require(A.m() == A.n(), [&] {
        return "getrs: A is " + std::to_string(A.m()) + " x " + std::to_string(A.n()) +
               ", not square";
    });
    require(B.m() == A.n(), [&] {
        return "getrs: B has " + std::to_string(B.m()) + " rows, A has order " +
               std::to_string(A.n());
    });
    require(A.n() == 0 || B.n() == 0 || A.nb() == B.nb(),
            "getrs: A and B must have the same tile size");
    detail::require_pivots_of("getrs", ipiv, A);
}

template <Scalar T>
void swap_rows_of(TileMatrix<T>& B, Pivots const& ipiv, kernels::cpu::SwapOrder order, Sequence& s)
{
    std::vector<Pivots::Piece const*> pieces;
    for (int64_t k = 0; k < ipiv.pieces(); ++k) pieces.push_back(&ipiv.piece(k));
    for (int64_t j = 0; j < B.nt(); ++j) {
        std::vector<typename TileMatrix<T>::Tile*> column;
        for (int64_t i = 0; i < B.mt(); ++i) column.push_back(&B(i, j));
        s.submit(cl::swap_rows_all_pieces<T>, rt::readwrite_all(column), rt::read_all(pieces),
                 rt::value(order));
    }
}
}  // namespace

template <Scalar T>
void getrs_async(Op trans, TileMatrix<T> const& A, Pivots const& ipiv, TileMatrix<T>& B,
                 Sequence& s)
{
    check_getrs(trans, A, ipiv, B);
    require(A.n() == 0 || &ipiv.runtime() == &s.runtime(),
            "getrs: ipiv lives on another runtime than the sequence");
    const auto call = detail::begin_call<T>(s, "getrs", {{"A", A}, {"B", B, true}});
    if (A.n() == 0 || B.n() == 0) return;
    if (trans == Op::notrans) {
        swap_rows_of(B, ipiv, kernels::cpu::SwapOrder::forward, s);
        trsm_async<T>(Side::left, Uplo::lower, Op::notrans, Diag::unit, T(1), A, B, s);
        trsm_async<T>(Side::left, Uplo::upper, Op::notrans, Diag::nonunit, T(1), A, B, s);
    } else {
        trsm_async<T>(Side::left, Uplo::upper, trans, Diag::nonunit, T(1), A, B, s);
        trsm_async<T>(Side::left, Uplo::lower, trans, Diag::unit, T(1), A, B, s);
        swap_rows_of(B, ipiv, kernels::cpu::SwapOrder::backward, s);
    }
}

template <Scalar T>
void getrs(Op trans, TileMatrix<T> const& A, Pivots const& ipiv, TileMatrix<T>& B)
{
    check_getrs(trans, A, ipiv, B);
    if (A.n() == 0 || B.n() == 0) return;
    (void)synchronously(A.runtime(), [&](Sequence& s) { getrs_async(trans, A, ipiv, B, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void getrs_async<T>(Op, TileMatrix<T> const&, Pivots const&, TileMatrix<T>&,          \
                                 Sequence&);                                                       \
    template void getrs<T>(Op, TileMatrix<T> const&, Pivots const&, TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
