// getrf's task flow with right-hand sides carried along, for gesv. Internal.
#pragma once

#include <tessera/la/lu.hpp>

namespace tessera::inline la::detail {

/// getrf_async of A; with B (A's order of rows, A's tile size), each step also updates B's
/// tile columns as more columns right of A: the step's interchanges, L(k,k)^{-1} on tile row
/// k, minus the panel's L below times that row. When the factorization ends, B holds
/// L^{-1} P^T B, and only the solve with U is left (Gaussian elimination on [A B]).
template <Scalar T>
void getrf_then_forward_solve_async(TileMatrix<T>& A, Pivots& ipiv, TileMatrix<T>* B, Sequence& s);

}  // namespace tessera::inline la::detail
