// LAPACK's info for a Cholesky factorization done by cuSOLVER: LAPACK's xPOTRF2 stops at a
// pivot that is not positive or is NaN (ajj <= 0 .or. disnan(ajj)); a factorization that tests
// only ajj <= 0 goes on with a NaN pivot, makes L(j,j) NaN and every later pivot NaN. So the
// first NaN on the factor's diagonal, or the failure reported before it, is LAPACK's info.
// Included only by sources under cuda/. Internal; no Tessera header (see triangle.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace tessera::la::kernels::cuda {

/// Queues on `stream`: *info (device memory, as cuSOLVER left it) := the order of the first
/// NaN among the real parts of the diagonal of the n x n factor `a` before the pivot *info
/// names (all of it when *info = 0), else *info unchanged; a negative *info (a bad argument)
/// is left as it is. `real_bytes` is 4 or 8 (float or
/// double real parts), `complex` says whether entries are (real, imaginary) pairs. Returns the
/// launch's status.
cudaError_t find_nan_pivot(cudaStream_t stream, int64_t n, std::size_t real_bytes, bool complex,
                           void const* a, int64_t lda, int* info);

}  // namespace tessera::la::kernels::cuda
