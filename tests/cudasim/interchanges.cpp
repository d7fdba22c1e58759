// The simulator's twin of linalg/kernels/cuda/interchanges.cu, compiled into the library
// instead of it with -DTESSERA_ENABLE_CUDA=SIM: the same kernels, queued on the stream as host
// loops. The tile list and the pivots are read when the stream runs the kernel (a copy queued
// before it fills them); every entry touched must lie in device memory.
#include "linalg/kernels/cuda/interchanges.hpp"

#include "tests/cudasim/sim.hpp"

#include <cstring>
#include <string>
#include <vector>

namespace tessera::la::kernels::cuda {
namespace {

namespace sim = tessera::cudasim;

/// The checks every launch makes: a valid element size, the device not faulted, the tile list
/// and the pivots in device memory. False when the launch must not run (the error is recorded).
bool can_launch(cudaStream_t stream, std::size_t bytes, DeviceTile const* tiles, int64_t ntiles,
                int64_t const* ipiv, int64_t count, char const* kernel, cudaError_t& status)
{
    if (bytes != 4 && bytes != 8 && bytes != 16) {
        status = sim::record(cudaErrorInvalidValue);
        return false;
    }
    sim::Device* d = sim::device_for_launch(stream, status);
    return d &&
           sim::kernel_touches(*d, tiles, std::size_t(ntiles) * sizeof(DeviceTile),
                               std::string(kernel) + ": tiles") &&
           sim::kernel_touches(*d, ipiv, std::size_t(count) * sizeof(int64_t),
                               std::string(kernel) + ": ipiv");
}

/// Swaps the entries at p and q, `bytes` each, once both are found in device memory.
bool swap_entries(sim::Device& d, std::byte* p, std::byte* q, std::size_t bytes, char const* kernel)
{
    if (!sim::kernel_touches(d, p, bytes, kernel) || !sim::kernel_touches(d, q, bytes, kernel))
        return false;
    std::byte t[16];
    std::memcpy(t, p, bytes);
    std::memcpy(p, q, bytes);
    std::memcpy(q, t, bytes);
    return true;
}

std::byte* entry(DeviceTile const& t, int64_t row, int64_t col, std::size_t bytes)
{
    return static_cast<std::byte*>(t.ptr) + std::size_t(row + col * t.ld) * bytes;
}

}  // namespace

cudaError_t swap_rows(cudaStream_t stream, std::size_t bytes, DeviceTile const* tiles,
                      int64_t ntiles, int64_t nb, int64_t n, int64_t const* ipiv, int64_t count,
                      int64_t pivots_first, int64_t column_first, bool forward)
{
    if (n <= 0 || count <= 0 || ntiles <= 0) return cudaSuccess;
    if (nb <= 0) return sim::record(cudaErrorInvalidValue);
    cudaError_t status;
    if (!can_launch(stream, bytes, tiles, ntiles, ipiv, count, "swap_rows_kernel", status))
        return status;
    sim::Device& d = sim::device_of(stream);
    sim::submit(stream, [=, &d] {
        for (int64_t s = 0; s < count; ++s) {
            const int64_t i = forward ? s : count - 1 - s;
            const int64_t r1 = pivots_first + i - column_first, r2 = ipiv[i] - 1 - column_first;
            if (r1 == r2) continue;
            if (r1 < 0 || r2 < 0 || r1 / nb >= ntiles || r2 / nb >= ntiles) {
                sim::fault(d, cudaErrorIllegalAddress, "swap_rows_kernel: a row outside the tiles");
                return;
            }
            for (int64_t j = 0; j < n; ++j)
                if (!swap_entries(d, entry(tiles[r1 / nb], r1 % nb, j, bytes),
                                  entry(tiles[r2 / nb], r2 % nb, j, bytes), bytes,
                                  "swap_rows_kernel: an entry"))
                    return;
        }
    });
    return cudaSuccess;
}

cudaError_t swap_columns(cudaStream_t stream, std::size_t bytes, DeviceTile const* tiles,
                         int64_t ntiles, int64_t nb, int64_t m, int64_t const* ipiv, int64_t count,
                         int64_t pivots_first, bool forward)
{
    if (m <= 0 || count <= 0 || ntiles <= 0) return cudaSuccess;
    if (nb <= 0) return sim::record(cudaErrorInvalidValue);
    cudaError_t status;
    if (!can_launch(stream, bytes, tiles, ntiles, ipiv, count, "swap_columns_kernel", status))
        return status;
    sim::Device& d = sim::device_of(stream);
    sim::submit(stream, [=, &d] {
        for (int64_t s = 0; s < count; ++s) {
            const int64_t k = forward ? s : count - 1 - s;
            const int64_t c1 = pivots_first + k, c2 = ipiv[k] - 1;
            if (c1 == c2) continue;
            if (c1 < 0 || c2 < 0 || c1 / nb >= ntiles || c2 / nb >= ntiles) {
                sim::fault(d, cudaErrorIllegalAddress,
                           "swap_columns_kernel: a column outside the tiles");
                return;
            }
            for (int64_t i = 0; i < m; ++i)
                if (!swap_entries(d, entry(tiles[c1 / nb], i, c1 % nb, bytes),
                                  entry(tiles[c2 / nb], i, c2 % nb, bytes), bytes,
                                  "swap_columns_kernel: an entry"))
                    return;
        }
    });
    return cudaSuccess;
}

cudaError_t widen_pivots(cudaStream_t stream, int const* from, int64_t* to, int64_t count,
                         int64_t shift)
{
    if (count <= 0) return cudaSuccess;
    sim::Device& d = sim::device_of(stream);
    if (d.fault.load() != cudaSuccess) return sim::record(d.fault.load());
    if (!sim::kernel_touches(d, from, std::size_t(count) * sizeof(int),
                             "widen_pivots_kernel: from") ||
        !sim::kernel_touches(d, to, std::size_t(count) * sizeof(int64_t),
                             "widen_pivots_kernel: to"))
        return cudaSuccess;
    sim::submit(stream, [=] {
        for (int64_t i = 0; i < count; ++i) to[i] = int64_t(from[i]) + shift;
    });
    return cudaSuccess;
}

cudaError_t take_lower(cudaStream_t stream, std::size_t bytes, int64_t m, int64_t n, void* a,
                       int64_t lda, void* l, int64_t ldl, bool diagonal, void const* one)
{
    if (m <= 0 || n <= 0) return cudaSuccess;
    if (n > 8 * 65535 || (bytes != 4 && bytes != 8 && bytes != 16))
        return sim::record(cudaErrorInvalidValue);
    sim::Device& d = sim::device_of(stream);
    if (d.fault.load() != cudaSuccess) return sim::record(d.fault.load());
    if (!sim::kernel_touches(d, a, sim::matrix_bytes(m, n, lda, bytes), "take_lower_kernel: A") ||
        !sim::kernel_touches(d, l, sim::matrix_bytes(m, n, ldl, bytes), "take_lower_kernel: L"))
        return cudaSuccess;
    std::vector<std::byte> one_bits(static_cast<std::byte const*>(one),
                                    static_cast<std::byte const*>(one) + bytes);
    sim::submit(stream, [=] {
        auto* pa = static_cast<std::byte*>(a);
        auto* pl = static_cast<std::byte*>(l);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) {
                std::byte* to = pl + std::size_t(i + j * ldl) * bytes;
                std::byte* from = pa + std::size_t(i + j * lda) * bytes;
                if (diagonal && i <= j) {
                    if (i == j)
                        std::memcpy(to, one_bits.data(), bytes);
                    else
                        std::memset(to, 0, bytes);
                    continue;
                }
                std::memcpy(to, from, bytes);
                std::memset(from, 0, bytes);
            }
    });
    return cudaSuccess;
}

}  // namespace tessera::la::kernels::cuda
