// In-place transposes of tiles for the 2D transform's second stage on large arrays: there the
// rows of a tile are strided by a whole array row (128 KiB and more), and FFTW's strided
// batches, or any gather of them, miss the TLB and the cache on every few elements. The square
// matrix of tiles is transposed instead (tile (i, j) swapped with tile (j, i), each
// transposed), its columns transformed where they are contiguous, and transposed back, as
// FFTW's own 2D plans do (its "indirect-transpose"). Internal.
#pragma once

#include <cstdint>

namespace tessera::fft::kernels::cpu {

/// x (p x q, leading dimension ldx) and y (q x p, leading dimension ldy), two distinct tiles,
/// swapped transposed: x = y^T and y = x^T, by blocks that stay in the L1 cache.
template <class T> void swap_transposed(T* x, int64_t ldx, T* y, int64_t ldy, int64_t p, int64_t q);

/// x (p x p, leading dimension ld) = x^T.
template <class T> void transpose_in_place(T* x, int64_t ld, int64_t p);

}  // namespace tessera::fft::kernels::cpu
