// Codelets of the level-3 BLAS on tiles: each wraps a kernel of kernels/cpu (and, in CUDA
// builds, its twin of kernels/cuda) with a name, a performance model per precision and the
// LAPACK flop count. Options (trans, uplo, side ...) and scalars are value arguments, so one
// codelet serves every combination. Internal.
#pragma once

#include "linalg/kernels/cpu/blas_lapack.hpp"
#include "linalg/kernels/cuda/blas_lapack.hpp"  // declarations only, no CUDA header

#include <tessera/la/enums.hpp>
#include <tessera/la/scalar.hpp>
#include <tessera/rt/codelet.hpp>
#include <tessera/rt/perfmodel.hpp>

/// `.cuda = TESSERA_IF_CUDA(&f<T>)`: the CUDA implementation in a CUDA build, none otherwise,
/// where kernels/cuda is not compiled and so f<T> must not even be instantiated. The one #if
/// of the codelets (STYLE.md); the *_cuda wrappers themselves are templates, compiled in every
/// build but instantiated only through this macro.
#ifndef TESSERA_IF_CUDA
#if TESSERA_HAVE_CUDA
#define TESSERA_IF_CUDA(...) __VA_ARGS__
#else
#define TESSERA_IF_CUDA(...) nullptr
#endif
#endif

namespace tessera::la::cl {

template <Scalar T> using Tile = rt::Matrix<T>;
template <Scalar T> using ConstTile = rt::Matrix<const T>;

// ---- gemm: C = alpha op(A) op(B) + beta C --------------------------------------------------
template <Scalar T>
void gemm_tile(Op ta, Op tb, T alpha, ConstTile<T> a, ConstTile<T> b, T beta, Tile<T> c)
{
    const int64_t k = ta == Op::notrans ? a.n : a.m;
    kernels::cpu::gemm(ta, tb, c.m, c.n, k, alpha, a.ptr, a.ld, b.ptr, b.ld, beta, c.ptr, c.ld);
}
template <Scalar T>
void gemm_tile_cuda(rt::CudaContext const& cuda, Op ta, Op tb, T alpha, ConstTile<T> a,
                    ConstTile<T> b, T beta, Tile<T> c)
{
    const int64_t k = ta == Op::notrans ? a.n : a.m;
    kernels::cuda::gemm(cuda, ta, tb, c.m, c.n, k, alpha, a.ptr, a.ld, b.ptr, b.ld, beta, c.ptr,
                        c.ld);
}
template <Scalar T>
inline constexpr rt::PerfModel gemm_model{
    by_precision<T>("tile_sgemm", "tile_dgemm", "tile_cgemm", "tile_zgemm")};
template <Scalar T>
inline const rt::Codelet<Op, Op, T, ConstTile<T>, ConstTile<T>, T, Tile<T>> gemm{
    .name = by_precision<T>("sgemm", "dgemm", "cgemm", "zgemm"),
    .cpu = &gemm_tile<T>,
    .cuda = TESSERA_IF_CUDA(&gemm_tile_cuda<T>),
    .model = &gemm_model<T>,
    .flops =
        [](Op const& ta, Op const&, T const&, ConstTile<T> const& a, ConstTile<T> const&, T const&,
           Tile<T> const& c) {
            return fma_flops<T> * double(c.m) * double(c.n) * double(ta == Op::notrans ? a.n : a.m);
        },
};

// ---- gemm on two stacked tiles: [C1; C2] = alpha op([A1; A2]) op(B) + beta [C1; C2] ----------
// OpenBLAS packs B once per call and interleaves the first row block of C with that packing, so
// one call on 2nb rows runs about 9% faster than two on nb (one core, nb = 768: 84 against 77
// GFlop/s). The tiles of a column-major matrix tiled in place (TileMatrix::wrap) are adjacent in
// memory, one below the other: then the pair is one call, otherwise two.
template <class P> bool stacked_below(P const& top, P const& bottom)
{
    return top.ld == bottom.ld && top.n == bottom.n && bottom.ptr == top.ptr + top.m;
}
template <Scalar T>
void gemm_stacked_tile(Op ta, Op tb, T alpha, ConstTile<T> a1, ConstTile<T> a2, ConstTile<T> b,
                       T beta, Tile<T> c1, Tile<T> c2)
{
    const int64_t k = ta == Op::notrans ? a1.n : a1.m;
    if (ta == Op::notrans && stacked_below(a1, a2) && stacked_below(c1, c2)) {
        kernels::cpu::gemm(ta, tb, c1.m + c2.m, c1.n, k, alpha, a1.ptr, a1.ld, b.ptr, b.ld, beta,
                           c1.ptr, c1.ld);
        return;
    }
    kernels::cpu::gemm(ta, tb, c1.m, c1.n, k, alpha, a1.ptr, a1.ld, b.ptr, b.ld, beta, c1.ptr,
                       c1.ld);
    kernels::cpu::gemm(ta, tb, c2.m, c2.n, k, alpha, a2.ptr, a2.ld, b.ptr, b.ld, beta, c2.ptr,
                       c2.ld);
}
template <Scalar T>
void gemm_stacked_tile_cuda(rt::CudaContext const& cuda, Op ta, Op tb, T alpha, ConstTile<T> a1,
                            ConstTile<T> a2, ConstTile<T> b, T beta, Tile<T> c1, Tile<T> c2)
{
    gemm_tile_cuda(cuda, ta, tb, alpha, a1, b, beta, c1);
    gemm_tile_cuda(cuda, ta, tb, alpha, a2, b, beta, c2);
}
template <Scalar T>
inline constexpr rt::PerfModel gemm_stacked_model{by_precision<T>(
    "tile_sgemm_stacked", "tile_dgemm_stacked", "tile_cgemm_stacked", "tile_zgemm_stacked")};
template <Scalar T>
inline const rt::Codelet<Op, Op, T, ConstTile<T>, ConstTile<T>, ConstTile<T>, T, Tile<T>, Tile<T>>
    gemm_stacked{
        .name = by_precision<T>("sgemm_stacked", "dgemm_stacked", "cgemm_stacked", "zgemm_stacked"),
        .cpu = &gemm_stacked_tile<T>,
        .cuda = TESSERA_IF_CUDA(&gemm_stacked_tile_cuda<T>),
        .model = &gemm_stacked_model<T>,
        .flops =
            [](Op const& ta, Op const&, T const&, ConstTile<T> const& a1, ConstTile<T> const&,
               ConstTile<T> const&, T const&, Tile<T> const& c1, Tile<T> const& c2) {
                return fma_flops<T> * double(c1.m + c2.m) * double(c1.n) *
                       double(ta == Op::notrans ? a1.n : a1.m);
            },
    };

// ---- symm / hemm: C = alpha A B + beta C (left) or alpha B A + beta C (right) ---------------
template <Scalar T>
void symm_tile(Side side, Uplo uplo, bool hermitian, T alpha, ConstTile<T> a, ConstTile<T> b,
               T beta, Tile<T> c)
{
    kernels::cpu::symm(side, uplo, hermitian, c.m, c.n, alpha, a.ptr, a.ld, b.ptr, b.ld, beta,
                       c.ptr, c.ld);
}
template <Scalar T>
void symm_tile_cuda(rt::CudaContext const& cuda, Side side, Uplo uplo, bool hermitian, T alpha,
                    ConstTile<T> a, ConstTile<T> b, T beta, Tile<T> c)
{
    kernels::cuda::symm(cuda, side, uplo, hermitian, c.m, c.n, alpha, a.ptr, a.ld, b.ptr, b.ld,
                        beta, c.ptr, c.ld);
}
template <Scalar T>
inline constexpr rt::PerfModel symm_model{
    by_precision<T>("tile_ssymm", "tile_dsymm", "tile_csymm", "tile_zsymm")};
template <Scalar T>
inline const rt::Codelet<Side, Uplo, bool, T, ConstTile<T>, ConstTile<T>, T, Tile<T>> symm{
    .name = by_precision<T>("ssymm", "dsymm", "csymm", "zsymm"),
    .cpu = &symm_tile<T>,
    .cuda = TESSERA_IF_CUDA(&symm_tile_cuda<T>),
    .model = &symm_model<T>,
    .flops =
        [](Side const&, Uplo const&, bool const&, T const&, ConstTile<T> const& a,
           ConstTile<T> const&, T const&,
           Tile<T> const& c) { return fma_flops<T> * double(c.m) * double(c.n) * double(a.m); },
};

// ---- syrk / herk: C = alpha op(A) op(A)^T + beta C, or ^H with real alpha, beta --------------
template <Scalar T>
void syrk_tile(Uplo uplo, Op trans, bool hermitian, T alpha, ConstTile<T> a, T beta, Tile<T> c)
{
    const int64_t k = trans == Op::notrans ? a.n : a.m;
    kernels::cpu::syrk(uplo, trans, hermitian, c.n, k, alpha, a.ptr, a.ld, beta, c.ptr, c.ld);
}
template <Scalar T>
void syrk_tile_cuda(rt::CudaContext const& cuda, Uplo uplo, Op trans, bool hermitian, T alpha,
                    ConstTile<T> a, T beta, Tile<T> c)
{
    const int64_t k = trans == Op::notrans ? a.n : a.m;
    kernels::cuda::syrk(cuda, uplo, trans, hermitian, c.n, k, alpha, a.ptr, a.ld, beta, c.ptr,
                        c.ld);
}
template <Scalar T>
inline constexpr rt::PerfModel syrk_model{
    by_precision<T>("tile_ssyrk", "tile_dsyrk", "tile_csyrk", "tile_zsyrk")};
template <Scalar T>
inline const rt::Codelet<Uplo, Op, bool, T, ConstTile<T>, T, Tile<T>> syrk{
    .name = by_precision<T>("ssyrk", "dsyrk", "csyrk", "zsyrk"),
    .cpu = &syrk_tile<T>,
    .cuda = TESSERA_IF_CUDA(&syrk_tile_cuda<T>),
    .model = &syrk_model<T>,
    .flops =
        [](Uplo const&, Op const& trans, bool const&, T const&, ConstTile<T> const& a, T const&,
           Tile<T> const& c) {
            const double k = double(trans == Op::notrans ? a.n : a.m);
            return 0.5 * fma_flops<T> * double(c.n) * double(c.n + 1) *
                   k;  // n(n+1)k multiply-adds / 2
        },
};

// ---- trsm: B = alpha op(A)^{-1} B or alpha B op(A)^{-1} --------------------------------------
template <Scalar T>
void trsm_tile(Side side, Uplo uplo, Op trans, Diag diag, T alpha, ConstTile<T> a, Tile<T> b)
{
    kernels::cpu::trsm(side, uplo, trans, diag, b.m, b.n, alpha, a.ptr, a.ld, b.ptr, b.ld);
}
template <Scalar T>
void trsm_tile_cuda(rt::CudaContext const& cuda, Side side, Uplo uplo, Op trans, Diag diag, T alpha,
                    ConstTile<T> a, Tile<T> b)
{
    kernels::cuda::trsm(cuda, side, uplo, trans, diag, b.m, b.n, alpha, a.ptr, a.ld, b.ptr, b.ld);
}
template <Scalar T>
inline constexpr rt::PerfModel trsm_model{
    by_precision<T>("tile_strsm", "tile_dtrsm", "tile_ctrsm", "tile_ztrsm")};
/// m n^2 / 2 multiply-adds from the right, m^2 n / 2 from the left (LAPACK's count).
template <Scalar T> double triangular_flops(Side side, int64_t m, int64_t n)
{
    const double w = side == Side::left ? double(m) : double(n);
    return 0.5 * fma_flops<T> * double(m) * double(n) * w;
}
template <Scalar T>
inline const rt::Codelet<Side, Uplo, Op, Diag, T, ConstTile<T>, Tile<T>> trsm{
    .name = by_precision<T>("strsm", "dtrsm", "ctrsm", "ztrsm"),
    .cpu = &trsm_tile<T>,
    .cuda = TESSERA_IF_CUDA(&trsm_tile_cuda<T>),
    .model = &trsm_model<T>,
    .flops = [](Side const& side, Uplo const&, Op const&, Diag const&, T const&,
                ConstTile<T> const&,
                Tile<T> const& b) { return triangular_flops<T>(side, b.m, b.n); },
};

// ---- trmm: B = alpha op(A) B or alpha B op(A) ------------------------------------------------
template <Scalar T>
void trmm_tile(Side side, Uplo uplo, Op trans, Diag diag, T alpha, ConstTile<T> a, Tile<T> b)
{
    kernels::cpu::trmm(side, uplo, trans, diag, b.m, b.n, alpha, a.ptr, a.ld, b.ptr, b.ld);
}
template <Scalar T>
void trmm_tile_cuda(rt::CudaContext const& cuda, Side side, Uplo uplo, Op trans, Diag diag, T alpha,
                    ConstTile<T> a, Tile<T> b)
{
    kernels::cuda::trmm(cuda, side, uplo, trans, diag, b.m, b.n, alpha, a.ptr, a.ld, b.ptr, b.ld);
}
template <Scalar T>
inline constexpr rt::PerfModel trmm_model{
    by_precision<T>("tile_strmm", "tile_dtrmm", "tile_ctrmm", "tile_ztrmm")};
template <Scalar T>
inline const rt::Codelet<Side, Uplo, Op, Diag, T, ConstTile<T>, Tile<T>> trmm{
    .name = by_precision<T>("strmm", "dtrmm", "ctrmm", "ztrmm"),
    .cpu = &trmm_tile<T>,
    .cuda = TESSERA_IF_CUDA(&trmm_tile_cuda<T>),
    .model = &trmm_model<T>,
    .flops = [](Side const& side, Uplo const&, Op const&, Diag const&, T const&,
                ConstTile<T> const&,
                Tile<T> const& b) { return triangular_flops<T>(side, b.m, b.n); },
};

}  // namespace tessera::la::cl
