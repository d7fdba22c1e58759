// The simulator's twin of linalg/kernels/cuda/triangle.cu, compiled into the library instead
// of it with -DTESSERA_ENABLE_CUDA=SIM: the same copy, queued on the stream as a host loop.
#include "linalg/kernels/cuda/triangle.hpp"

#include "tests/cudasim/sim.hpp"

#include <cstring>

namespace tessera::la::kernels::cuda {

cudaError_t copy_triangle(cudaStream_t stream, bool lower, int64_t n, std::size_t bytes,
                          void const* a, int64_t lda, void* w, int64_t ldw, bool zero_other)
{
    namespace sim = tessera::cudasim;
    if (n <= 0) return cudaSuccess;
    if (n > 8 * 65535 || (bytes != 4 && bytes != 8 && bytes != 16))
        return sim::record(cudaErrorInvalidValue);
    sim::Device& d = sim::device_of(stream);
    if (d.fault.load() != cudaSuccess) return sim::record(d.fault.load());
    if (!sim::kernel_touches(d, a, sim::matrix_bytes(n, n, lda, bytes),
                             "copy_triangle_kernel: A") ||
        !sim::kernel_touches(d, w, sim::matrix_bytes(n, n, ldw, bytes), "copy_triangle_kernel: W"))
        return cudaSuccess;
    sim::submit(stream, [=] {
        auto const* src = static_cast<std::byte const*>(a);
        auto* dst = static_cast<std::byte*>(w);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) {
                std::byte* to = dst + std::size_t(i + j * ldw) * bytes;
                if (lower ? i >= j : i <= j)
                    std::memcpy(to, src + std::size_t(i + j * lda) * bytes, bytes);
                else if (zero_other)
                    std::memset(to, 0, bytes);
            }
    });
    return cudaSuccess;
}

}  // namespace tessera::la::kernels::cuda
