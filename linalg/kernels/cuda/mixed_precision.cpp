// mixed_precision.hpp over precision.cu. A complex tile is its real parts: 2m reals a column
// with twice the leading dimension. The overflow flag lives in the workspace, cleared on the
// stream before the kernel and copied after it into the task's page-locked host scratch, which
// the completion function reads.
#include "linalg/kernels/cuda/mixed_precision.hpp"

#include "linalg/kernels/cuda/precision.hpp"

#include <tessera/rt/cuda.hpp>

#include <cuda_runtime_api.h>

#include <utility>

namespace tessera::la::kernels::cuda {

void round_to_single(rt::CudaContext const& ctx, int64_t m, int64_t n, double const* hi,
                     int64_t ldh, float* lo, int64_t ldl, std::function<void()> on_overflow)
{
    if (m == 0 || n == 0) return;
    int* flag = static_cast<int*>(ctx.workspace(sizeof(int)));
    rt::cuda_check(cudaMemsetAsync(flag, 0, sizeof(int), ctx.stream),
                   "cudaMemsetAsync (the overflow flag)");
    rt::cuda_check(cuda::round_to_single(ctx.stream, m, n, hi, ldh, lo, ldl, flag), "round_kernel");
    int* host = static_cast<int*>(ctx.host_scratch(sizeof(int)));
    rt::cuda_check(cudaMemcpyAsync(host, flag, sizeof(int), cudaMemcpyDeviceToHost, ctx.stream),
                   "cudaMemcpyAsync (the overflow flag)");
    ctx.at_completion([host, on_overflow = std::move(on_overflow)] {
        if (*host) on_overflow();
    });
}

void round_to_single(rt::CudaContext const& ctx, int64_t m, int64_t n,
                     std::complex<double> const* hi, int64_t ldh, std::complex<float>* lo,
                     int64_t ldl, std::function<void()> on_overflow)
{
    round_to_single(ctx, 2 * m, n, reinterpret_cast<double const*>(hi), 2 * ldh,
                    reinterpret_cast<float*>(lo), 2 * ldl, std::move(on_overflow));
}

void widen_to_double(rt::CudaContext const& ctx, int64_t m, int64_t n, float const* lo, int64_t ldl,
                     double* hi, int64_t ldh, bool accumulate)
{
    rt::cuda_check(cuda::widen_to_double(ctx.stream, m, n, lo, ldl, hi, ldh, accumulate),
                   "widen_kernel");
}

void widen_to_double(rt::CudaContext const& ctx, int64_t m, int64_t n,
                     std::complex<float> const* lo, int64_t ldl, std::complex<double>* hi,
                     int64_t ldh, bool accumulate)
{
    widen_to_double(ctx, 2 * m, n, reinterpret_cast<float const*>(lo), 2 * ldl,
                    reinterpret_cast<double*>(hi), 2 * ldh, accumulate);
}

}  // namespace tessera::la::kernels::cuda
