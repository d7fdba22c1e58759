// The LU's kernels of interchanges.hpp. An entry moves as 1, 2 or 4 32-bit words (Words<N>),
// the alignment of every Scalar type. The interchanges are sequential by nature (a row may be
// swapped twice), so each thread owns one column (rows) or one row (columns) and applies them
// all in order; the threads of a warp read one pivot at a time, which the cache serves.
#include "linalg/kernels/cuda/interchanges.hpp"

namespace tessera::la::kernels::cuda {
namespace {

template <int N> struct Words {
    uint32_t w[N];
};

/// Entry (row, col) of the tile `t`.
template <class E> __device__ E& at(DeviceTile const& t, int64_t row, int64_t col)
{
    return static_cast<E*>(t.ptr)[row + col * t.ld];
}

template <class E> __device__ void swap(E& a, E& b)
{
    const E t = a;
    a = b;
    b = t;
}

template <class E>
__global__ void swap_rows_kernel(DeviceTile const* tiles, int64_t nb, int64_t n,
                                 int64_t const* ipiv, int64_t count, int64_t pivots_first,
                                 int64_t column_first, bool forward)
{
    const int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j >= n) return;
    for (int64_t s = 0; s < count; ++s) {
        const int64_t i = forward ? s : count - 1 - s;
        const int64_t r1 = pivots_first + i - column_first, r2 = ipiv[i] - 1 - column_first;
        if (r1 != r2) swap(at<E>(tiles[r1 / nb], r1 % nb, j), at<E>(tiles[r2 / nb], r2 % nb, j));
    }
}

template <class E>
__global__ void swap_columns_kernel(DeviceTile const* tiles, int64_t nb, int64_t m,
                                    int64_t const* ipiv, int64_t count, int64_t pivots_first,
                                    bool forward)
{
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= m) return;
    for (int64_t s = 0; s < count; ++s) {
        const int64_t k = forward ? s : count - 1 - s;
        const int64_t c1 = pivots_first + k, c2 = ipiv[k] - 1;
        if (c1 != c2) swap(at<E>(tiles[c1 / nb], i, c1 % nb), at<E>(tiles[c2 / nb], i, c2 % nb));
    }
}

template <class E>
__global__ void take_lower_kernel(int64_t m, int64_t n, E* a, int64_t lda, E* l, int64_t ldl,
                                  bool diagonal, E one)
{
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t j = int64_t(blockIdx.y) * blockDim.y + threadIdx.y;
    if (i >= m || j >= n) return;
    if (diagonal && i <= j) {
        l[i + j * ldl] = i == j ? one : E{};
        return;
    }
    l[i + j * ldl] = a[i + j * lda];
    a[i + j * lda] = E{};
}

__global__ void widen_pivots_kernel(int const* from, int64_t* to, int64_t count, int64_t shift)
{
    const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) to[i] = int64_t(from[i]) + shift;
}

constexpr unsigned threads = 128;

unsigned blocks_for(int64_t count)
{
    return unsigned((count + threads - 1) / threads);
}

/// Calls f.template operator()<E>() with E the Words type of `bytes`; invalid value otherwise.
template <class F> cudaError_t by_size(std::size_t bytes, F&& f)
{
    switch (bytes) {
    case 4:
        return f.template operator()<Words<1>>();
    case 8:
        return f.template operator()<Words<2>>();
    case 16:
        return f.template operator()<Words<4>>();
    default:
        return cudaErrorInvalidValue;
    }
}

}  // namespace

cudaError_t swap_rows(cudaStream_t stream, std::size_t bytes, DeviceTile const* tiles,
                      int64_t ntiles, int64_t nb, int64_t n, int64_t const* ipiv, int64_t count,
                      int64_t pivots_first, int64_t column_first, bool forward)
{
    if (n <= 0 || count <= 0 || ntiles <= 0) return cudaSuccess;
    if (nb <= 0 || blocks_for(n) > 0x7fffffffu) return cudaErrorInvalidValue;
    return by_size(bytes, [&]<class E>() {
        swap_rows_kernel<E><<<blocks_for(n), threads, 0, stream>>>(
            tiles, nb, n, ipiv, count, pivots_first, column_first, forward);
        return cudaGetLastError();
    });
}

cudaError_t swap_columns(cudaStream_t stream, std::size_t bytes, DeviceTile const* tiles,
                         int64_t ntiles, int64_t nb, int64_t m, int64_t const* ipiv, int64_t count,
                         int64_t pivots_first, bool forward)
{
    if (m <= 0 || count <= 0 || ntiles <= 0) return cudaSuccess;
    if (nb <= 0 || blocks_for(m) > 0x7fffffffu) return cudaErrorInvalidValue;
    return by_size(bytes, [&]<class E>() {
        swap_columns_kernel<E><<<blocks_for(m), threads, 0, stream>>>(tiles, nb, m, ipiv, count,
                                                                      pivots_first, forward);
        return cudaGetLastError();
    });
}

cudaError_t widen_pivots(cudaStream_t stream, int const* from, int64_t* to, int64_t count,
                         int64_t shift)
{
    if (count <= 0) return cudaSuccess;
    if (blocks_for(count) > 0x7fffffffu) return cudaErrorInvalidValue;
    widen_pivots_kernel<<<blocks_for(count), threads, 0, stream>>>(from, to, count, shift);
    return cudaGetLastError();
}

cudaError_t take_lower(cudaStream_t stream, std::size_t bytes, int64_t m, int64_t n, void* a,
                       int64_t lda, void* l, int64_t ldl, bool diagonal, void const* one)
{
    if (m <= 0 || n <= 0) return cudaSuccess;
    if (n > 8 * 65535) return cudaErrorInvalidValue;  // gridDim.y
    return by_size(bytes, [&]<class E>() {
        E one_bits;
        for (std::size_t b = 0; b < sizeof(E); ++b)
            reinterpret_cast<unsigned char*>(&one_bits)[b] =
                static_cast<unsigned char const*>(one)[b];
        const dim3 block(32, 8);
        const dim3 grid(unsigned((m + 31) / 32), unsigned((n + 7) / 8));
        take_lower_kernel<E><<<grid, block, 0, stream>>>(
            m, n, static_cast<E*>(a), lda, static_cast<E*>(l), ldl, diagonal, one_bits);
        return cudaGetLastError();
    });
}

}  // namespace tessera::la::kernels::cuda
