// The simulator's twin of linalg/kernels/cuda/precision.cu, compiled into the library instead
// of it with -DTESSERA_ENABLE_CUDA=SIM: the same conversions, queued on the stream as host loops.
#include "linalg/kernels/cuda/precision.hpp"

#include "tests/cudasim/sim.hpp"

#include <cmath>
#include <limits>
#include <string>

namespace tessera::la::kernels::cuda {
namespace {

namespace sim = tessera::cudasim;

/// The launch's checks: the device not faulted, both matrices in device memory.
bool can_launch(cudaStream_t stream, int64_t m, int64_t n, void const* from, int64_t ldf,
                std::size_t from_bytes, void const* to, int64_t ldt, std::size_t to_bytes,
                char const* kernel, cudaError_t& status)
{
    if (n > 8 * 65535) {
        status = sim::record(cudaErrorInvalidValue);
        return false;
    }
    sim::Device* d = sim::device_for_launch(stream, status);
    return d &&
           sim::kernel_touches(*d, from, sim::matrix_bytes(m, n, ldf, from_bytes),
                               std::string(kernel) + ": source") &&
           sim::kernel_touches(*d, to, sim::matrix_bytes(m, n, ldt, to_bytes),
                               std::string(kernel) + ": target");
}

}  // namespace

cudaError_t round_to_single(cudaStream_t stream, int64_t m, int64_t n, double const* hi,
                            int64_t ldh, float* lo, int64_t ldl, int* overflow)
{
    if (m <= 0 || n <= 0) return cudaSuccess;
    cudaError_t status;
    if (!can_launch(stream, m, n, hi, ldh, sizeof(double), lo, ldl, sizeof(float), "round_kernel",
                    status) ||
        !sim::kernel_touches(sim::device_of(stream), overflow, sizeof(int),
                             "round_kernel: overflow"))
        return status;
    sim::submit(stream, [=] {
        constexpr double rmax = std::numeric_limits<float>::max();
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) {
                const double x = hi[i + j * ldh];
                if (!(std::abs(x) <= rmax)) *overflow = 1;
                lo[i + j * ldl] = float(x);
            }
    });
    return cudaSuccess;
}

cudaError_t widen_to_double(cudaStream_t stream, int64_t m, int64_t n, float const* lo, int64_t ldl,
                            double* hi, int64_t ldh, bool accumulate)
{
    if (m <= 0 || n <= 0) return cudaSuccess;
    cudaError_t status;
    if (!can_launch(stream, m, n, lo, ldl, sizeof(float), hi, ldh, sizeof(double), "widen_kernel",
                    status))
        return status;
    sim::submit(stream, [=] {
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i)
                hi[i + j * ldh] = (accumulate ? hi[i + j * ldh] : 0.0) + double(lo[i + j * ldl]);
    });
    return cudaSuccess;
}

}  // namespace tessera::la::kernels::cuda
