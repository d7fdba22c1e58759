// The simulator's twin of fft/kernels/cuda/twiddles.cu, compiled into the library instead of
// it with -DTESSERA_ENABLE_CUDA=SIM: the same products, queued on the stream as a host loop
// (the angle in long double here).
#include "fft/kernels/cuda/twiddles.hpp"

#include "tests/cudasim/sim.hpp"

#include <complex>
#include <numbers>

namespace tessera::fft::kernels::cuda {
namespace {

namespace sim = tessera::cudasim;

template <class R>
void multiply(std::complex<R>* a, int64_t row_length, int64_t rows, int64_t first_row, int64_t n,
              int sign)
{
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t k2 = 0; k2 < row_length; ++k2) {
            const int64_t m = ((first_row + r) * k2) % n;
            const auto w = std::polar(1.0L, sign * 2 * std::numbers::pi_v<long double> *
                                                (long double)(m) / (long double)(n));
            a[k2 + r * row_length] =
                std::complex<R>(std::complex<long double>(a[k2 + r * row_length]) * w);
        }
}

}  // namespace

cudaError_t multiply_twiddles(cudaStream_t stream, bool single, void* a, int64_t row_length,
                              int64_t rows, int64_t first_row, int64_t n, int sign)
{
    if (row_length <= 0 || rows <= 0) return cudaSuccess;
    if (n <= 0 || (rows + 3) / 4 > 65535) return sim::record(cudaErrorInvalidValue);
    cudaError_t status;
    sim::Device* d = sim::device_for_launch(stream, status);
    const std::size_t bytes = std::size_t(row_length * rows) * (single ? 8 : 16);
    if (!d || !sim::kernel_touches(*d, a, bytes, "multiply_twiddles_kernel: a")) return status;
    sim::submit(stream, [=] {
        if (single)
            multiply(static_cast<std::complex<float>*>(a), row_length, rows, first_row, n, sign);
        else
            multiply(static_cast<std::complex<double>*>(a), row_length, rows, first_row, n, sign);
    });
    return cudaSuccess;
}

}  // namespace tessera::fft::kernels::cuda
