// The four-step's twiddle factors (twiddles.hpp): one thread per element.
#include "fft/kernels/cuda/twiddles.hpp"

namespace tessera::fft::kernels::cuda {
namespace {

template <class R> struct Pair {
    R re, im;
};

template <class R>
__global__ void multiply_twiddles_kernel(Pair<R>* a, int64_t row_length, int64_t rows,
                                         int64_t first_row, int64_t n, int sign)
{
    const int64_t k2 = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t r = int64_t(blockIdx.y) * blockDim.y + threadIdx.y;
    if (k2 >= row_length || r >= rows) return;
    // (first_row + r) k2 < n1 n2 = n: exact in 64 bits, then 2 m / n turns of pi
    const int64_t m = ((first_row + r) * k2) % n;
    double s, c;
    sincospi(2.0 * double(m) / double(n), &s, &c);
    s *= sign;
    Pair<R>& x = a[k2 + r * row_length];
    const double re = double(x.re), im = double(x.im);
    x.re = R(re * c - im * s);
    x.im = R(re * s + im * c);
}

constexpr unsigned block_x = 64, block_y = 4;

}  // namespace

cudaError_t multiply_twiddles(cudaStream_t stream, bool single, void* a, int64_t row_length,
                              int64_t rows, int64_t first_row, int64_t n, int sign)
{
    if (row_length <= 0 || rows <= 0) return cudaSuccess;
    const int64_t gx = (row_length + block_x - 1) / block_x, gy = (rows + block_y - 1) / block_y;
    if (n <= 0 || gx > 0x7fffffff || gy > 65535) return cudaErrorInvalidValue;
    const dim3 grid{unsigned(gx), unsigned(gy)}, block{block_x, block_y};
    if (single)
        multiply_twiddles_kernel<float><<<grid, block, 0, stream>>>(
            static_cast<Pair<float>*>(a), row_length, rows, first_row, n, sign);
    else
        multiply_twiddles_kernel<double><<<grid, block, 0, stream>>>(
            static_cast<Pair<double>*>(a), row_length, rows, first_row, n, sign);
    return cudaGetLastError();
}

}  // namespace tessera::fft::kernels::cuda
