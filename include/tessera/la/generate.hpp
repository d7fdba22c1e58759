/// @file generate.hpp
/// Test matrices generated in place, one task per tile. Entries depend only on the seed and
/// their position in the matrix given (a view's own position, not its parent's), never on the
/// tile size or the schedule, so a matrix can be regenerated exactly (for a residual) in any
/// layout.
#pragma once

#include <tessera/la/sequence.hpp>
#include <tessera/la/tile_matrix.hpp>

#include <cstdint>

namespace tessera::inline la {

/// Fills A with entries uniform in [-0.5, 0.5) (complex: real and imaginary parts each).
template <Scalar T> void generate_random_async(TileMatrix<T>& A, uint64_t seed, Sequence& s);
/// Fills the square A with a Hermitian (symmetric for real T) positive definite matrix of
/// 2-norm condition number `kappa` >= 1 and norm 1: A = H D H^H, H a random Householder
/// reflector, D = diag(kappa^(-k/(n-1))), exactly so before its entries are rounded to T.
/// Rounding moves the eigenvalues by about eps of T, so the condition number is kappa to a
/// relative error of at most about kappa eps (measured: 1e-3 at kappa = 1e6 in single
/// precision). kappa >= 1/eps is refused: A would be indefinite after rounding as likely as
/// not. Close below that limit it still can be, so keep kappa eps well below 1. Both
/// triangles are written. A 1 x 1 matrix has condition number 1: kappa must then be 1.
template <Scalar T>
void generate_hpd_async(TileMatrix<T>& A, double kappa, uint64_t seed, Sequence& s);

/// generate_random_async, then waits.
template <Scalar T> void generate_random(TileMatrix<T>& A, uint64_t seed);
/// generate_hpd_async, then waits.
template <Scalar T> void generate_hpd(TileMatrix<T>& A, double kappa, uint64_t seed);

}  // namespace tessera::inline la
