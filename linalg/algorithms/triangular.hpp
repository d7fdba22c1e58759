// What the tile trsm and trmm share before their loops: the checks of their operands, and the
// cases that need no loop (B empty; alpha = 0, where B = 0 and A is not referenced, as in the
// BLAS). Internal.
#pragma once

#include <tessera/la/blas.hpp>
#include <tessera/la/sequence.hpp>
#include <tessera/la/tile_matrix.hpp>

#include <string>

namespace tessera::inline la::detail {

/// Checks A and B of `routine` (A square of the order of B's rows or columns, one tile size);
/// true when nothing is left to do.
template <Scalar T>
bool triangular_done_early(std::string const& routine, Side side, Uplo uplo, T alpha, TileMatrix<T> const& A,
                           TileMatrix<T>& B, Sequence& s)
{
    require(side == Side::left || side == Side::right, routine + ": side must be Side::left or Side::right");
    require(uplo == Uplo::lower || uplo == Uplo::upper, routine + ": uplo must be Uplo::lower or Uplo::upper");
    const int64_t na = side == Side::left ? B.m() : B.n();
    require(A.m() == A.n() && A.m() == na, routine + ": A is " + std::to_string(A.m()) + " x " +
                                               std::to_string(A.n()) + ", it must be square of order " +
                                               std::to_string(na) + " (the " +
                                               (side == Side::left ? "rows" : "columns") + " of B)");
    require(na == 0 || B.m() == 0 || B.n() == 0 || A.nb() == B.nb(),
            routine + ": A and B must have the same tile size");
    if (B.m() == 0 || B.n() == 0) return true;
    if (alpha == T(0)) {
        scale_async(T(0), B, s);
        return true;
    }
    return false;
}

}  // namespace tessera::inline la::detail
