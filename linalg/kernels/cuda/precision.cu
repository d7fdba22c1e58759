// The kernels of precision.hpp: one thread per entry, 32 x 8 threads a block, the 32 down a
// column so that reads and writes coalesce.
#include "linalg/kernels/cuda/precision.hpp"

#include <cfloat>

namespace tessera::la::kernels::cuda {
namespace {

__global__ void round_kernel(int64_t m, int64_t n, double const* hi, int64_t ldh, float* lo,
                             int64_t ldl, int* overflow)
{
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t j = int64_t(blockIdx.y) * blockDim.y + threadIdx.y;
    if (i >= m || j >= n) return;
    const double x = hi[i + j * ldh];
    if (!(fabs(x) <= double(FLT_MAX))) *overflow = 1;  // NaN too, as dlag2s
    lo[i + j * ldl] = float(x);
}

__global__ void widen_kernel(int64_t m, int64_t n, float const* lo, int64_t ldl, double* hi,
                             int64_t ldh, bool accumulate)
{
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t j = int64_t(blockIdx.y) * blockDim.y + threadIdx.y;
    if (i >= m || j >= n) return;
    const double x = double(lo[i + j * ldl]);
    hi[i + j * ldh] = accumulate ? hi[i + j * ldh] + x : x;
}

bool fits(int64_t m, int64_t n)
{
    return (m + 31) / 32 <= 0x7fffffff && (n + 7) / 8 <= 65535;
}
dim3 grid(int64_t m, int64_t n)
{
    return dim3(unsigned((m + 31) / 32), unsigned((n + 7) / 8));
}

}  // namespace

cudaError_t round_to_single(cudaStream_t stream, int64_t m, int64_t n, double const* hi,
                            int64_t ldh, float* lo, int64_t ldl, int* overflow)
{
    if (m <= 0 || n <= 0) return cudaSuccess;
    if (!fits(m, n)) return cudaErrorInvalidValue;
    round_kernel<<<grid(m, n), dim3(32, 8), 0, stream>>>(m, n, hi, ldh, lo, ldl, overflow);
    return cudaGetLastError();
}

cudaError_t widen_to_double(cudaStream_t stream, int64_t m, int64_t n, float const* lo, int64_t ldl,
                            double* hi, int64_t ldh, bool accumulate)
{
    if (m <= 0 || n <= 0) return cudaSuccess;
    if (!fits(m, n)) return cudaErrorInvalidValue;
    widen_kernel<<<grid(m, n), dim3(32, 8), 0, stream>>>(m, n, lo, ldl, hi, ldh, accumulate);
    return cudaGetLastError();
}

}  // namespace tessera::la::kernels::cuda
