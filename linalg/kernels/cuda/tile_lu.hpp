// The tile LU's own kernels on a GPU, the CUDA twins of kernels/cpu/tile_column_lu.hpp's
// interchanges and of getri's split: each takes the CUDA worker's context first, queues its
// work on ctx.stream and waits for nothing. Those taking tiles put the list in the task's
// host scratch: one such call per task (a second would overwrite the list before the stream
// has copied it). Defined in tile_lu.cpp (over interchanges.cu) for
// the four Scalar types, in CUDA builds only; this header includes no CUDA header, so codelets
// may include it in every build. Internal.
#pragma once

#include "linalg/kernels/cpu/tile_column_lu.hpp"

#include <tessera/la/scalar.hpp>
#include <tessera/rt/codelet.hpp>  // rt::CudaContext (declared)

#include <cstdint>
#include <functional>
#include <span>

namespace tessera::la::kernels::cuda {

/// One piece of a factorization's interchanges, in GPU memory: entry i swaps rows (or columns)
/// `first` + i and ipiv[i] - 1, for i < count.
struct SwapPiece {
    int64_t const* ipiv = nullptr;
    int64_t count = 0;
    int64_t first = 0;
};

/// apply_row_swaps of the CPU kernel, for several pieces and several tile columns in one task:
/// the pieces in the given order (forward), or the last piece first (backward), each piece's
/// entries in that order too. `tiles` holds the tile columns one after the other, as many
/// tiles each (nb rows each but the last), column c being widths[c] wide, their first row
/// being row `column_first` of the matrix.
template <Scalar T>
void apply_row_swaps(rt::CudaContext const& ctx, std::span<cpu::ColumnTile<T> const> tiles,
                     std::span<int64_t const> widths, int64_t nb, std::span<SwapPiece const> pieces,
                     int64_t column_first, cpu::SwapOrder order);

/// apply_column_swaps of the CPU kernel, for several pieces, on the tile row `tiles` (nb
/// columns each but the last, height m); the order as above.
template <Scalar T>
void apply_column_swaps(rt::CudaContext const& ctx, std::span<cpu::RowTile<T> const> tiles,
                        int64_t nb, int64_t m, std::span<SwapPiece const> pieces,
                        cpu::SwapOrder order);

/// getrf_panel of the CPU kernel on a GPU: the panel (the tiles of nb rows each but the last,
/// width n, M rows in all) gathered into the workspace, factored by cuSOLVER's getrf with
/// partial pivoting, scattered back; ipiv (GPU memory, min(M, n) entries) receives the pivots
/// as rows of the whole matrix from 1 (the panel's own plus `shift`), and `report` the first
/// zero pivot (from 1 in the panel), once the stream is done.
template <Scalar T>
void getrf_panel(rt::CudaContext const& ctx, std::span<cpu::ColumnTile<T> const> tiles, int64_t n,
                 int64_t* ipiv, int64_t shift, std::function<void(int64_t)> report);

/// getri's split of the m x n tile A (see cl::take_lower_tile): L takes its part of the unit
/// lower triangle, which becomes zero in A.
template <Scalar T>
void take_lower(rt::CudaContext const& ctx, int64_t m, int64_t n, T* a, int64_t lda, T* l,
                int64_t ldl, bool diagonal);

}  // namespace tessera::la::kernels::cuda
