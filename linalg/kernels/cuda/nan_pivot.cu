// find_nan_pivot (nan_pivot.hpp): one block; thread t looks at diagonal entries t, t + 256, ...
// and the block keeps the smallest NaN position with atomicMin in shared memory. The diagonal
// is n entries lda + 1 apart: no coalescing to gain, and n is a tile's order.
#include "linalg/kernels/cuda/nan_pivot.hpp"

#include <climits>

namespace tessera::la::kernels::cuda {
namespace {

constexpr int threads = 256;

template <class R>
__global__ void find_nan_pivot_kernel(int64_t n, int stride, R const* a, int64_t lda, int* info)
{
    __shared__ int first;
    if (threadIdx.x == 0) first = INT_MAX;
    __syncthreads();
    const int reported = *info;
    // a bad argument (info < 0) stays reported; a failure (info > 0) bounds the search
    const int64_t factored = reported < 0 ? 0 : reported > 0 ? reported - 1 : n;
    for (int64_t j = threadIdx.x; j < factored; j += blockDim.x) {
        const R ajj = a[(j + j * lda) * stride];
        if (ajj != ajj) {  // NaN
            atomicMin(&first, int(j));
            break;  // later entries of this thread's are further down
        }
    }
    __syncthreads();
    if (threadIdx.x == 0 && first != INT_MAX) *info = first + 1;
}

}  // namespace

cudaError_t find_nan_pivot(cudaStream_t stream, int64_t n, std::size_t real_bytes, bool complex,
                           void const* a, int64_t lda, int* info)
{
    if (n <= 0) return cudaSuccess;
    if (n > INT_MAX) return cudaErrorInvalidValue;
    const int stride = complex ? 2 : 1;
    switch (real_bytes) {
    case 4:
        find_nan_pivot_kernel<float>
            <<<1, threads, 0, stream>>>(n, stride, static_cast<float const*>(a), lda, info);
        break;
    case 8:
        find_nan_pivot_kernel<double>
            <<<1, threads, 0, stream>>>(n, stride, static_cast<double const*>(a), lda, info);
        break;
    default:
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

}  // namespace tessera::la::kernels::cuda
