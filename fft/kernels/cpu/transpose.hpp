// In-place transposes of tiles for the 2D transform's second stage on large arrays: there the
// rows of a tile are strided by a whole array row (128 KiB and more), and FFTW's strided
// batches, or any gather of them, miss the TLB and the cache on every few elements. The square
// matrix of tiles is transposed instead (tile (i, j) swapped with tile (j, i), each
// transposed), its columns transformed where they are contiguous, and transposed back, as
// FFTW's own 2D plans do (its "indirect-transpose"). Internal.
#pragma once

#include <cstdint>

namespace tessera::fft::kernels::cpu {

/// o[k ldo + j] = b[j ldb + k] for k < rows, j < cols: the columns of b (rows x cols) become
/// the rows of o (cols x rows), two distinct arrays. Four of o's columns at a time: each of
/// b's columns gives four adjacent elements (a cache line of complex doubles) at once, where
/// one at a time reads one element of each of `cols` lines and finds some gone by the next
/// (2 to 3% of a 2^20-point four-step, whose b is a buffer larger than the L1).
template <class T>
void store_transposed(T const* b, int64_t ldb, int64_t rows, int64_t cols, T* o, int64_t ldo);

/// x (p x q, leading dimension ldx) and y (q x p, leading dimension ldy), two distinct tiles,
/// swapped transposed: x = y^T and y = x^T, by blocks that stay in the L1 cache.
template <class T> void swap_transposed(T* x, int64_t ldx, T* y, int64_t ldy, int64_t p, int64_t q);

/// x (p x p, leading dimension ld) = x^T.
template <class T> void transpose_in_place(T* x, int64_t ld, int64_t p);

}  // namespace tessera::fft::kernels::cpu
