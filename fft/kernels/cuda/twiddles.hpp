// The four-step 1D transform's twiddle factors on a GPU: a hand-written kernel, as cuFFT has
// no pointwise product. Included only by sources under cuda/. Internal.
//
// As linalg's kernels, no Tessera header (nvcc's front end reads this one): a complex array is
// passed as pairs of reals of the given precision.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace tessera::fft::kernels::cuda {

/// a(k2, r) *= w^(((first_row + r) k2) mod n), w = exp(sign 2 pi i / n), for the `rows`
/// columns r of `a` (row_length x rows complex numbers, leading dimension row_length): the
/// four-step's factors of rows first_row.. of its n1 x n2 matrix, each row transposed into a
/// column. The exponent is reduced mod n exactly and the angle computed in double precision
/// (sincospi), so a factor is within a few eps of the exact one for any n. `single`: `a` holds
/// float pairs, else double pairs. Queued on `stream`; returns the launch's status.
cudaError_t multiply_twiddles(cudaStream_t stream, bool single, void* a, int64_t row_length,
                              int64_t rows, int64_t first_row, int64_t n, int sign);

}  // namespace tessera::fft::kernels::cuda
