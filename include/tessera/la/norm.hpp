/// @file norm.hpp
/// Matrix norms of a TileMatrix (LAPACK's lange), computed as one task per tile whose parts
/// the runtime reduces, in the asynchronous and blocking forms of the other tile calls.
#pragma once

#include <tessera/la/enums.hpp>
#include <tessera/la/sequence.hpp>
#include <tessera/la/tile_matrix.hpp>

namespace tessera::inline la {

/// Submits the tasks that compute the norm of A into s and returns at once: *value is
/// written when they are done, valid once s.wait() reports success (at once, 0, for an
/// empty A). It waits for A's writers before it by data, and a later writer of A waits for
/// it. Nothing is written when the sequence has failed. `value` must stay valid until
/// s.wait() returns (InvalidArgument if null).
template <Scalar T>
void norm_async(Norm norm, TileMatrix<T> const& A, real_t<T>* value, Sequence& s);

/// ||A||_1 = max_j sum_i |a_ij|, ||A||_inf = max_i sum_j |a_ij|, max |a_ij|, or
/// ||A||_F = sqrt(sum |a_ij|^2); 0 for an empty matrix. Waits for A's pending writers.
template <Scalar T> real_t<T> norm(Norm norm, TileMatrix<T> const& A);

}  // namespace tessera::inline la
