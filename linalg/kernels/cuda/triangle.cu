// copy_triangle (triangle.hpp): one thread per entry of W's n x n, 32 x 8 threads a block, the 32 down
// a column so that reads and writes coalesce. An entry is copied as 1, 2 or 4 32-bit words, the
// alignment of every Scalar type (std::complex is not usable in device code).
#include "linalg/kernels/cuda/triangle.hpp"

namespace tessera::la::kernels::cuda {
namespace {

template <int N> struct Words {
    uint32_t w[N];
};

template <class E>
__global__ void copy_triangle_kernel(bool lower, int64_t n, E const* a, int64_t lda, E* w,
                                     int64_t ldw, bool zero_other)
{
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t j = int64_t(blockIdx.y) * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    const bool inside = lower ? i >= j : i <= j;
    if (inside)
        w[i + j * ldw] = a[i + j * lda];
    else if (zero_other)
        w[i + j * ldw] = E{};
}

template <class E>
cudaError_t launch(cudaStream_t stream, bool lower, int64_t n, void const* a, int64_t lda, void* w,
                   int64_t ldw, bool zero_other)
{
    const dim3 threads(32, 8);
    const dim3 blocks(unsigned((n + 31) / 32), unsigned((n + 7) / 8));
    copy_triangle_kernel<E><<<blocks, threads, 0, stream>>>(lower, n, static_cast<E const*>(a), lda,
                                                            static_cast<E*>(w), ldw, zero_other);
    return cudaGetLastError();
}

}  // namespace

cudaError_t copy_triangle(cudaStream_t stream, bool lower, int64_t n, std::size_t bytes,
                          void const* a, int64_t lda, void* w, int64_t ldw, bool zero_other)
{
    if (n <= 0) return cudaSuccess;
    if (n > 8 * 65535) return cudaErrorInvalidValue;  // gridDim.y
    switch (bytes) {
    case 4:
        return launch<Words<1>>(stream, lower, n, a, lda, w, ldw, zero_other);
    case 8:
        return launch<Words<2>>(stream, lower, n, a, lda, w, ldw, zero_other);
    case 16:
        return launch<Words<4>>(stream, lower, n, a, lda, w, ldw, zero_other);
    default:
        return cudaErrorInvalidValue;
    }
}

}  // namespace tessera::la::kernels::cuda
