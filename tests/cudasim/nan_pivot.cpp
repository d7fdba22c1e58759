// The simulator's twin of linalg/kernels/cuda/nan_pivot.cu, compiled into the library instead
// of it with -DTESSERA_ENABLE_CUDA=SIM: the same search, queued on the stream as a host loop.
#include "linalg/kernels/cuda/nan_pivot.hpp"

#include "tests/cudasim/sim.hpp"

#include <climits>
#include <cmath>
#include <cstring>

namespace tessera::la::kernels::cuda {

cudaError_t find_nan_pivot(cudaStream_t stream, int64_t n, std::size_t real_bytes, bool complex,
                           void const* a, int64_t lda, int* info)
{
    namespace sim = tessera::cudasim;
    if (n <= 0) return cudaSuccess;
    if (n > INT_MAX || (real_bytes != 4 && real_bytes != 8))
        return sim::record(cudaErrorInvalidValue);
    sim::Device& d = sim::device_of(stream);
    if (d.fault.load() != cudaSuccess) return sim::record(d.fault.load());
    const std::size_t entry = real_bytes * (complex ? 2 : 1);
    if (!sim::kernel_touches(d, a, sim::matrix_bytes(n, n, lda, entry),
                             "find_nan_pivot_kernel: A") ||
        !sim::kernel_touches(d, info, sizeof(int), "find_nan_pivot_kernel: info"))
        return cudaSuccess;
    sim::submit(stream, [=] {
        const int64_t factored = *info < 0 ? 0 : *info > 0 ? *info - 1 : n;
        auto const* base = static_cast<std::byte const*>(a);
        for (int64_t j = 0; j < factored; ++j) {
            double ajj;
            if (real_bytes == 4) {
                float f;
                std::memcpy(&f, base + std::size_t(j + j * lda) * entry, sizeof f);
                ajj = f;
            } else {
                std::memcpy(&ajj, base + std::size_t(j + j * lda) * entry, sizeof ajj);
            }
            if (std::isnan(ajj)) {
                *info = int(j + 1);
                return;
            }
        }
    });
    return cudaSuccess;
}

}  // namespace tessera::la::kernels::cuda
