// Hand-written CUDA kernels of the tile LU: row interchanges over a tile column (LAPACK's
// laswp), column interchanges over a tile row (getri's last step), the panel's pivots made
// rows of the whole matrix, and the split of a tile into its unit lower part and the rest
// (getri). cuBLAS has none of them. Included only by
// sources under cuda/. Internal.
//
// As triangle.hpp, the interface takes the element size instead of a Scalar T (nvcc's front
// end cannot read tessera/error.hpp): entries are 4, 8 or 16 bytes, moved bit for bit.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace tessera::la::kernels::cuda {

/// One tile of a tile column (nb rows, but the last) or of a tile row (nb columns, but the
/// last), in GPU memory.
struct DeviceTile {
    void* ptr = nullptr;
    int64_t ld = 1;
};

/// Applies `count` interchanges to the tile column `tiles` (device memory, `ntiles` entries of
/// nb rows but the last, width n) whose first row is row `column_first` of the matrix: entry
/// i swaps matrix rows `pivots_first` + i and ipiv[i] - 1 (ipiv in device memory, rows from
/// 1 as LAPACK's), for i = 0, 1, ... (forward) or count - 1, ..., 0. One thread per column,
/// which applies the interchanges in order. Queued on `stream`; returns the launch's status.
cudaError_t swap_rows(cudaStream_t stream, std::size_t bytes, DeviceTile const* tiles,
                      int64_t ntiles, int64_t nb, int64_t n, int64_t const* ipiv, int64_t count,
                      int64_t pivots_first, int64_t column_first, bool forward);

/// The same on the columns of the tile row `tiles` (nb columns each but the last, height m):
/// entry i swaps the row's columns `pivots_first` + i and ipiv[i] - 1. One thread per row.
cudaError_t swap_columns(cudaStream_t stream, std::size_t bytes, DeviceTile const* tiles,
                         int64_t ntiles, int64_t nb, int64_t m, int64_t const* ipiv, int64_t count,
                         int64_t pivots_first, bool forward);

/// to[i] = from[i] + shift for i < count (cuSOLVER's int pivots, rows of a panel from 1, as
/// Tessera's int64_t rows of the whole matrix).
cudaError_t widen_pivots(cudaStream_t stream, int const* from, int64_t* to, int64_t count,
                         int64_t shift);

/// getri's split of the m x n tile A: L takes the part of A strictly below the matrix's
/// diagonal (all of A when not `diagonal`; below the tile's diagonal, with ones on it and
/// zeros above, when `diagonal`), and that part of A becomes zero. `one` points to the bits
/// of the element 1 (host memory, `bytes` bytes).
cudaError_t take_lower(cudaStream_t stream, std::size_t bytes, int64_t m, int64_t n, void* a,
                       int64_t lda, void* l, int64_t ldl, bool diagonal, void const* one);

}  // namespace tessera::la::kernels::cuda
