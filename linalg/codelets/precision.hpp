// Codelets that move tiles between precisions, for the mixed-precision solvers (dsgesv,
// zcgesv): a double (complex double) tile rounded to single (LAPACK's dlag2s and zlag2c, which
// report an entry beyond single's range instead of rounding it to infinity), and a single tile
// widened back and added to a double one; on the cores or on a GPU (kernels/cuda/precision.cu).
// Internal.
#pragma once

#include "linalg/codelets/blas3.hpp"
#include "linalg/kernels/cuda/mixed_precision.hpp"  // declarations only, no CUDA header

#include <tessera/la/scalar.hpp>

#include <atomic>
#include <cmath>
#include <complex>
#include <limits>

namespace tessera::la::cl {

/// The single-precision type of a double one: float for double, complex<float> for complex<double>.
template <Scalar Hi>
using lower_precision_t = std::conditional_t<is_complex_v<Hi>, std::complex<float>, float>;

/// lo = hi rounded; *overflow set when an entry (a real or imaginary part) is beyond single's
/// largest finite value, as dlag2s's info = 1 (that tile then holds garbage: the solver falls
/// back to double).
template <Scalar Hi>
void round_tile(ConstTile<Hi> hi, Tile<lower_precision_t<Hi>> lo, std::atomic<bool>* overflow)
{
    using Lo = lower_precision_t<Hi>;
    constexpr double rmax = std::numeric_limits<float>::max();
    bool out = false;
    for (int64_t j = 0; j < hi.n; ++j)
        for (int64_t i = 0; i < hi.m; ++i) {
            const Hi x = hi(i, j);
            if constexpr (is_complex_v<Hi>) {
                out = out || !(std::abs(x.real()) <= rmax) || !(std::abs(x.imag()) <= rmax);
                lo(i, j) = Lo(float(x.real()), float(x.imag()));
            } else {
                out = out || !(std::abs(x) <= rmax);
                lo(i, j) = Lo(x);
            }
        }
    if (out) overflow->store(true, std::memory_order_relaxed);
}
template <Scalar Hi>
void round_tile_cuda(rt::CudaContext const& cuda, ConstTile<Hi> hi, Tile<lower_precision_t<Hi>> lo,
                     std::atomic<bool>* overflow)
{
    kernels::cuda::round_to_single(cuda, hi.m, hi.n, hi.ptr, hi.ld, lo.ptr, lo.ld, [overflow] {
        overflow->store(true, std::memory_order_relaxed);
    });
}
template <Scalar Hi>
inline const rt::Codelet<ConstTile<Hi>, Tile<lower_precision_t<Hi>>, std::atomic<bool>*>
    round_to_single{
        .name = is_complex_v<Hi> ? "zlag2c" : "dlag2s",
        .cpu = &round_tile<Hi>,
        .cuda = TESSERA_IF_CUDA(&round_tile_cuda<Hi>),
    };

/// hi = lo widened (accumulate: hi = hi + lo widened, the refinement's x = x + d).
template <Scalar Hi>
void widen_tile(ConstTile<lower_precision_t<Hi>> lo, Tile<Hi> hi, bool accumulate)
{
    for (int64_t j = 0; j < hi.n; ++j)
        for (int64_t i = 0; i < hi.m; ++i)
            hi(i, j) = (accumulate ? hi(i, j) : Hi(0)) + Hi(lo(i, j));
}
template <Scalar Hi>
void widen_tile_cuda(rt::CudaContext const& cuda, ConstTile<lower_precision_t<Hi>> lo, Tile<Hi> hi,
                     bool accumulate)
{
    kernels::cuda::widen_to_double(cuda, hi.m, hi.n, lo.ptr, lo.ld, hi.ptr, hi.ld, accumulate);
}
template <Scalar Hi>
inline const rt::Codelet<ConstTile<lower_precision_t<Hi>>, Tile<Hi>, bool> widen_to_double{
    .name = is_complex_v<Hi> ? "clag2z" : "slag2d",
    .cpu = &widen_tile<Hi>,
    .cuda = TESSERA_IF_CUDA(&widen_tile_cuda<Hi>),
};

}  // namespace tessera::la::cl
