/// @file norm.hpp
/// Matrix norms of a TileMatrix, computed as one task per tile and combined on return
/// (LAPACK's lange).
#pragma once

#include <tessera/la/enums.hpp>
#include <tessera/la/tile_matrix.hpp>

namespace tessera::inline la {

/// ||A||_1 = max_j sum_i |a_ij|, ||A||_inf = max_i sum_j |a_ij|, max |a_ij|, or
/// ||A||_F = sqrt(sum |a_ij|^2); 0 for an empty matrix. Waits for A's pending writers.
template <Scalar T>
real_t<T> norm(Norm norm, TileMatrix<T> const& A);

}  // namespace tessera::la
