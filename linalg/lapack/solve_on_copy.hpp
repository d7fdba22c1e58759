// The LAPACK-style solvers' handling of B (posv, gesv): B is copied into tile storage by tasks,
// the factorization and the solve run in one sequence on that copy, and only when the
// factorization succeeded is the solution copied back, so that a failed factorization leaves
// B untouched, as LAPACK's solvers do. The copies move O(n nrhs) elements against O(n^3)
// flops. Internal.
#pragma once

#include <tessera/la/layout.hpp>
#include <tessera/la/sequence.hpp>
#include <tessera/la/tile_matrix.hpp>

#include <cstdint>

namespace tessera::inline la::detail {

/// Runs solve(X, s), which submits the factorization and the solve of the tile copy X of the
/// n x nrhs array b into sequence s; copies X back into b when the sequence's info is 0.
/// Returns that info.
template <Scalar T, class Solve>
int64_t solve_on_copy_of_b(rt::Runtime& rt, int64_t n, int64_t nrhs, T* b, int64_t ldb, int64_t nb, Solve&& solve)
{
    TileMatrix<T> X{rt, n, nrhs, nb};
    Sequence s{rt};
    lapack_to_tiles_async(static_cast<T const*>(b), ldb, X, s);
    solve(X, s);
    if (const int64_t info = s.wait(); info != 0) return info;
    tiles_to_lapack(X, b, ldb);
    return 0;
}

}  // namespace tessera::inline la::detail
