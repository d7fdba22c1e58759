// The four-step 1D transform of n = n1 n2 points as tasks (Bailey's algorithm): with x seen as
// the n1 x n2 column-major matrix A (A(j1, j2) = x[j1 + n1 j2]),
//
//     1. the DFT of each row (n2 points), then A(j1, k2) *= w^(j1 k2), w = exp(sign 2 pi i / n);
//     2. the DFT of each column (n1 points): A(k1, k2) = X[k2 + n2 k1];
//     3. X, seen as the n2 x n1 column-major matrix, is A^T.
//
// Two passes of tasks: one per tile row of A (step 1, into a scratch matrix T), one per tile
// column of T (steps 2 and 3: its DFTs written transposed into a tile row of X^T).
//
// Internal: the plans over arrays run it for dft_1d.
#pragma once

#include <tessera/fft/fft2d.hpp>

#include <cstddef>

namespace tessera::fft::detail {

/// The n1 of n = n1 n2 that the four-step uses: n's largest divisor at most sqrt(n), or 0
/// when it is under 32 (n prime, or nearly: the transform then runs as one FFTW call).
int64_t four_step_rows(int64_t n);

/// The leading dimension of the scratch matrix T for n1 rows of `element`-byte elements: n1
/// and half a cache line. Pass 1's split steps across T's columns (by ld, and by its n2 ld),
/// and at n1 = 1024 complex doubles a column is 16 KiB, a multiple of the 4 KiB that spans
/// the L1's sets: every element of a stride then fell in one set, and in one set of the L2
/// at the longer stride. 2^20 points took 9.0 to 10.3 ms an execute against 7.4 to 8.4 ms so.
int64_t four_step_scratch_ld(int64_t n1, std::size_t element);

/// Elements of T for an n-point transform (0 when it runs as one FFTW call).
int64_t four_step_scratch_elements(int64_t n, std::size_t element);

/// X = DFT(x), x in A (n1 x n2), X into Xt (n2 x n1), through the scratch T (n1 x n2); all of
/// one tile size. A may be T itself (then overwritten).
template <Real R>
void four_step_async(Sign sign, TileMatrix<std::complex<R>> const& A,
                     TileMatrix<std::complex<R>>& T, TileMatrix<std::complex<R>>& Xt, Sequence& s);

}  // namespace tessera::fft::detail
