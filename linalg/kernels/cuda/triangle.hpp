// A hand-written CUDA kernel of the linear algebra: a triangle of a tile copied into a
// full matrix with zeros in the other triangle, or into a triangle alone (cuBLAS has no masked
// copy), for lauum's base case (blas_lapack.cpp) and the tile QR's eliminations (tile_qr.cpp). Included only by sources under cuda/. Internal.
//
// Its interface takes the element size instead of a Scalar T: nvcc's front end (CUDA 13.0)
// crashes on tessera/error.hpp (inherited constructors with std::source_location default
// arguments), so triangle.cu includes no Tessera header.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace tessera::la::kernels::cuda {

/// W = the lower (`lower`) or upper triangle of the n x n A, diagonal included, with zeros in
/// the other triangle of W (`zero_other`) or that triangle of W left as it is; the other
/// triangle of A is not read. Entries are `bytes` bytes (4, 8 or 16: float, double or
/// complex<float>, complex<double>), copied bit for bit. Queued on `stream`; returns the
/// launch's status.
cudaError_t copy_triangle(cudaStream_t stream, bool lower, int64_t n, std::size_t bytes,
                          void const* a, int64_t lda, void* w, int64_t ldw, bool zero_other = true);

}  // namespace tessera::la::kernels::cuda
