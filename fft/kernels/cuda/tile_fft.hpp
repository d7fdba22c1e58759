// The stages of a 2D transform on a GPU, the CUDA twins of kernels/cpu/tile_fft.hpp: stage 1
// gathers a tile column's columns into the task's workspace (cudaMemcpy2DAsync), transforms
// them with one batched cuFFT plan and scatters them back; stage 2 transposes a tile row's
// tiles into the workspace (cuBLAS geam), so that its rows are contiguous, transforms them and
// transposes back. Batches of columns or rows keep the workspace under 64 MB. Each call queues
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

}  // namespace tessera::fft::kernels::cuda
