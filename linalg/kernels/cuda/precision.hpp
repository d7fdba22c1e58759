// Hand-written CUDA kernels of the mixed-precision solvers: a double tile rounded to single
// with LAPACK's overflow check (dlag2s, zlag2c), and a single tile widened back to double,
// optionally added to it (slag2d, clag2z, and the refinement's x = x + d). cuBLAS has no
// conversion. Included only by sources under cuda/. Internal.
//
// As triangle.hpp, no Tessera header (nvcc's front end cannot read tessera/error.hpp): a
// complex tile is passed as its real parts, 2m reals per column with twice the leading
// dimension, which is the same memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace tessera::la::kernels::cuda {

/// lo = hi rounded (m x n); *overflow (device memory) is set to 1 when an entry is beyond
/// single's largest finite value or NaN, as dlag2s's info, and left alone otherwise. Queued on
/// `stream`; returns the launch's status.
cudaError_t round_to_single(cudaStream_t stream, int64_t m, int64_t n, double const* hi,
                            int64_t ldh, float* lo, int64_t ldl, int* overflow);

/// hi = lo widened, or hi = hi + lo widened when `accumulate` (m x n).
cudaError_t widen_to_double(cudaStream_t stream, int64_t m, int64_t n, float const* lo, int64_t ldl,
                            double* hi, int64_t ldh, bool accumulate);

}  // namespace tessera::la::kernels::cuda
