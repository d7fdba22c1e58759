// The precision conversions of the mixed-precision solvers on a GPU, the CUDA twins of the
// codelets' round_tile and widen_tile (codelets/precision.hpp), over precision.cu. Each takes
// the CUDA worker's context first and queues its work on ctx.stream. Defined in
// mixed_precision.cpp, in CUDA builds only; this header includes no CUDA header. Internal.
#pragma once

#include <tessera/rt/codelet.hpp>  // rt::CudaContext (declared)

#include <complex>
#include <cstdint>
#include <functional>

namespace tessera::la::kernels::cuda {

/// lo = hi rounded to single (m x n); `on_overflow` runs on the worker, once the stream is
/// done, when an entry (a real or imaginary part) was beyond single's range (dlag2s's info).
void round_to_single(rt::CudaContext const& ctx, int64_t m, int64_t n, double const* hi,
                     int64_t ldh, float* lo, int64_t ldl, std::function<void()> on_overflow);
void round_to_single(rt::CudaContext const& ctx, int64_t m, int64_t n,
                     std::complex<double> const* hi, int64_t ldh, std::complex<float>* lo,
                     int64_t ldl, std::function<void()> on_overflow);

/// hi = lo widened (m x n), or hi + lo widened when `accumulate`.
void widen_to_double(rt::CudaContext const& ctx, int64_t m, int64_t n, float const* lo, int64_t ldl,
                     double* hi, int64_t ldh, bool accumulate);
void widen_to_double(rt::CudaContext const& ctx, int64_t m, int64_t n,
                     std::complex<float> const* lo, int64_t ldl, std::complex<double>* hi,
                     int64_t ldh, bool accumulate);

}  // namespace tessera::la::kernels::cuda
