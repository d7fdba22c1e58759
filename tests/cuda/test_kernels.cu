// Kernels for the CUDA driver's tests: fill, add, count mismatches, spin, a launch that fails, trap.
#include "test_kernels.hpp"

#include <cuda_runtime.h>

namespace tessera_test {

namespace {
__global__ void fill_kernel(double* x, int64_t n, double value)
{
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
         i += int64_t(gridDim.x) * blockDim.x)
        x[i] = value;
}
__global__ void add_kernel(double* x, int64_t n, double value)
{
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
         i += int64_t(gridDim.x) * blockDim.x)
        x[i] += value;
}
__global__ void mismatch_kernel(double const* x, int64_t n, double value, unsigned long long* count)
{
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
         i += int64_t(gridDim.x) * blockDim.x)
        if (x[i] != value) atomicAdd(count, 1ull);
}
__global__ void spin_kernel(long long cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles) {}
}
__global__ void trap_kernel()
{
    __trap();
}

constexpr int threads = 256, blocks = 120;
}  // namespace

void launch_fill(double* x, int64_t n, double value, Stream s)
{
    fill_kernel<<<blocks, threads, 0, s>>>(x, n, value);
}
void launch_add(double* x, int64_t n, double value, Stream s)
{
    add_kernel<<<blocks, threads, 0, s>>>(x, n, value);
}
void launch_count_mismatches(double const* x, int64_t n, double value, int64_t* mismatches,
                             Stream s)
{
    static_assert(sizeof(int64_t) == sizeof(unsigned long long));
    mismatch_kernel<<<blocks, threads, 0, s>>>(x, n, value,
                                               reinterpret_cast<unsigned long long*>(mismatches));
}
void launch_spin(double seconds, Stream s)
{
    int device = 0, khz = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device);
    spin_kernel<<<1, 1, 0, s>>>(static_cast<long long>(seconds * khz * 1e3));
}
void launch_misconfigured(Stream s)
{
    fill_kernel<<<1, 4096, 0, s>>>(nullptr, 0, 0.0);
}
void launch_trap(Stream s)
{
    trap_kernel<<<1, 1, 0, s>>>();
}

}  // namespace tessera_test
