// What the tile trsm and trmm share before their loops: the checks of their operands, and the
// cases that need no loop (B empty; alpha = 0, where B = 0 and A is not referenced, as in the
// BLAS). Internal.
#pragma once

#include "linalg/algorithms/operands.hpp"

#include <tessera/la/blas.hpp>
#include <tessera/la/sequence.hpp>
#include <tessera/la/tile_matrix.hpp>

#include <string>

namespace tessera::inline la::detail {

/// Checks the options, A and B of `routine` (A square of the order of B's rows or columns, one
/// tile size).
template <Scalar T>
void check_triangular(std::string const& routine, Side side, Uplo uplo, Op trans, Diag diag,
                      TileMatrix<T> const& A, TileMatrix<T> const& B)
{
    detail::require_side(routine, side);
    detail::require_triangle(routine, uplo);
    detail::require_op(routine, "trans", trans);
    require(diag == Diag::nonunit || diag == Diag::unit,
            routine + ": diag must be Diag::nonunit or Diag::unit");
    const int64_t na = side == Side::left ? B.m() : B.n();
    require(A.m() == A.n() && A.m() == na,
            routine + ": A is " + std::to_string(A.m()) + " x " + std::to_string(A.n()) +
                ", it must be square of order " + std::to_string(na) + " (the " +
                (side == Side::left ? "rows" : "columns") + " of B)");
    require(na == 0 || B.m() == 0 || B.n() == 0 || A.nb() == B.nb(),
            routine + ": A and B must have the same tile size");
}

/// True when the triangular product or solve has nothing left to do: B is empty, or alpha = 0
/// (then B = 0 is submitted, and A is not read).
template <Scalar T> bool triangular_done_early(T alpha, TileMatrix<T>& B, Sequence& s)
{
    if (B.m() == 0 || B.n() == 0) return true;
    if (alpha == T(0)) {
        scale_async(T(0), B, s);
        return true;
    }
    return false;
}

}  // namespace tessera::inline la::detail
