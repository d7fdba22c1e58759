// The stages of a 2D transform on a GPU, the CUDA twins of kernels/cpu/tile_fft.hpp: stage 1
// gathers a tile column's columns into the task's workspace (cudaMemcpy2DAsync), transforms
// them with one batched cuFFT plan and scatters them back; stage 2 transposes a tile row's
// tiles into the workspace (cuBLAS geam), so that its rows are contiguous, transforms them and
// transposes back; the real transforms gather their columns alike (R2C and C2R out of place
// in the workspace); the tiles of the large arrays' row stage are transposed with geam. Batches
// of columns or rows keep the workspace under 64 MB. Each call queues
// its work on cuda.stream and waits for nothing. Defined in tile_fft.cpp for float and double,
// in CUDA builds only; this header includes no CUDA header. Internal.
#pragma once

#include "fft/kernels/cpu/tile_fft.hpp"

#include <tessera/rt/codelet.hpp>  // rt::CudaContext (declared)

#include <complex>
#include <span>

namespace tessera::fft::kernels::cuda {

using cpu::TilePiece;

/// cpu::columns_c2c on GPU memory.
template <class R>
void columns_c2c(rt::CudaContext const& cuda, std::span<TilePiece<std::complex<R> const> const> in,
                 std::span<TilePiece<std::complex<R>> const> out, int sign);

/// cpu::rows_c2c on GPU memory.
template <class R>
void rows_c2c(rt::CudaContext const& cuda, std::span<TilePiece<std::complex<R>> const> row,
              int sign);

/// cpu::columns_r2c on GPU memory: the columns gathered into the workspace, one batched
/// out-of-place R2C / D2Z there, the half-spectra scattered back.
template <class R>
void columns_r2c(rt::CudaContext const& cuda, int64_t m, std::span<TilePiece<R const> const> in,
                 std::span<TilePiece<std::complex<R>> const> out);

/// cpu::columns_c2r on GPU memory (C2R / Z2D), `in` destroyed as there.
template <class R>
void columns_c2r(rt::CudaContext const& cuda, int64_t m,
                 std::span<TilePiece<std::complex<R>> const> in, std::span<TilePiece<R> const> out);

/// cpu::rows_c2c_twiddled on GPU memory, for an n-point four-step transform: each batch of
/// rows transposed into the workspace, transformed there (cuFFT), multiplied by its twiddles
/// (twiddles.cu) and transposed into `out`.
template <class R>
void rows_c2c_twiddled(rt::CudaContext const& cuda,
                       std::span<TilePiece<std::complex<R> const> const> in,
                       std::span<TilePiece<std::complex<R>> const> out, int sign, int64_t row0,
                       int64_t n);

/// cpu::columns_c2c_transposed on GPU memory: the columns gathered and transformed as in
/// columns_c2c, then written transposed into `out`'s tiles (cuBLAS geam).
template <class R>
void columns_c2c_transposed(rt::CudaContext const& cuda,
                            std::span<TilePiece<std::complex<R> const> const> in,
                            std::span<TilePiece<std::complex<R>> const> out, int sign);

/// cpu::swap_transposed on GPU memory: x (m x n) and y (n x m) each become the other's
/// transpose, through a copy of x in the workspace (cuBLAS geam).
template <class R>
void swap_transposed(rt::CudaContext const& cuda, std::complex<R>* x, int64_t ldx,
                     std::complex<R>* y, int64_t ldy, int64_t m, int64_t n);

/// cpu::transpose_in_place on GPU memory: the n x n x transposed, through the workspace.
template <class R>
void transpose_in_place(rt::CudaContext const& cuda, std::complex<R>* x, int64_t ldx, int64_t n);

}  // namespace tessera::fft::kernels::cuda
