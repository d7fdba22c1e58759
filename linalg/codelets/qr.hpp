// Codelets of the tile QR with inner blocking (PLASMA's): a tile column is reduced to one
// triangle by eliminations on its tiles, each a small Householder QR whose reflectors stay
// where the eliminated entries were and whose triangular factors T (ib x kb, one ib x ib block
// per ib columns) go into their own tiles:
//     geqrt   A(i,k) = Q R                       R on top, V below the diagonal
//     tsqrt   [R(p,k); A(i,k)] = Q [R; 0]        a full tile against a triangle (V: all of A(i,k))
//     ttqrt   [R(p,k); R(i,k)] = Q [R; 0]        two triangles (V: the upper triangle of A(i,k))
// and each one's Q^H (or Q) applied to the tiles of the other columns (unmqr, tsmqr, ttmqr),
// over LAPACK's geqrt, gemqrt, tpqrt and tpmqrt. The pivot tile's triangle is its first kb
// rows (kb: the tile column's width). Every one has a CUDA implementation
// (kernels/cuda/tile_qr: the updates from cuBLAS, the eliminations from cuSOLVER's geqrf and
// larft); the scheduler places each by its model. Internal.
#pragma once

#include "linalg/codelets/blas3.hpp"
#include "linalg/kernels/cuda/tile_qr.hpp"  // declarations only, no CUDA header

#include <tessera/la/sequence.hpp>
#include <tessera/rt/span.hpp>

#include <algorithm>

namespace tessera::la::cl {

/// LAPACK's count of multiply-adds of the QR of an m x n matrix, k = min(m, n):
/// 2 m n k - (m + n) k^2 + 2 k^3 / 3 (2 n^3 / 3 when square; m n^2 - n^3 / 3 when tall).
inline double qr_multiply_adds(double m, double n)
{
    const double k = std::min(m, n);
    return 2 * m * n * k - (m + n) * k * k + 2 * k * k * k / 3;
}

/// Multiply-adds of applying k reflectors of length m to the n vectors of C (LAPACK's ormqr
/// count: 2 m n k - n k^2).
inline double reflector_multiply_adds(double m, double n, double k)
{
    return 2 * m * n * k - n * k * k;
}

/// How an elimination's reflectors are shaped: a tile against the pivot's triangle (V a full
/// rectangle) or a triangle against it (V upper triangular, above the tile's own geqrt V).
enum class Eliminated : uint8_t { square, triangle };

/// The inner blocking a kernel uses for k reflectors: ib, at most k (LAPACK asks 1 <= ib <= k).
inline int64_t inner_block(int64_t ib, int64_t k)
{
    return std::max<int64_t>(1, std::min(ib, k));
}

// ---- geqrt: A(i,k) = Q R ---------------------------------------------------------------------
template <Scalar T> void geqrt_tile(Tile<T> a, Tile<T> t, int64_t ib)
{
    kernels::cpu::geqrt<T>(a.m, a.n, inner_block(ib, std::min(a.m, a.n)), a.ptr, a.ld, t.ptr, t.ld);
}
template <Scalar T>
void geqrt_tile_cuda(rt::CudaContext const& cuda, Tile<T> a, Tile<T> t, int64_t ib)
{
    kernels::cuda::geqrt<T>(cuda, a.m, a.n, inner_block(ib, std::min(a.m, a.n)), a.ptr, a.ld, t.ptr,
                            t.ld);
}
template <Scalar T>
inline constexpr rt::PerfModel geqrt_model{
    by_precision<T>("tile_sgeqrt", "tile_dgeqrt", "tile_cgeqrt", "tile_zgeqrt")};
template <Scalar T>
inline const rt::Codelet<Tile<T>, Tile<T>, int64_t> geqrt{
    .name = by_precision<T>("sgeqrt", "dgeqrt", "cgeqrt", "zgeqrt"),
    .cpu = &geqrt_tile<T>,
    .cuda = TESSERA_IF_CUDA(&geqrt_tile_cuda<T>),
    .model = &geqrt_model<T>,
    .flops =
        [](Tile<T> const& a, Tile<T> const&, int64_t const&) {
            return fma_flops<T> * qr_multiply_adds(double(a.m), double(a.n));
        },
};

// ---- unmqr: C = op(Q) C or C op(Q), Q from geqrt's V and T -----------------------------------
template <Scalar T>
void unmqr_tile(Side side, Op op, ConstTile<T> v, ConstTile<T> t, Tile<T> c, int64_t ib)
{
    const int64_t k = std::min(v.m, v.n);
    kernels::cpu::gemqrt<T>(side, op, c.m, c.n, k, inner_block(ib, k), v.ptr, v.ld, t.ptr, t.ld,
                            c.ptr, c.ld);
}
template <Scalar T>
void unmqr_tile_cuda(rt::CudaContext const& cuda, Side side, Op op, ConstTile<T> v, ConstTile<T> t,
                     Tile<T> c, int64_t ib)
{
    const int64_t k = std::min(v.m, v.n);
    kernels::cuda::gemqrt<T>(cuda, side, op, c.m, c.n, k, inner_block(ib, k), v.ptr, v.ld, t.ptr,
                             t.ld, c.ptr, c.ld);
}
template <Scalar T>
inline constexpr rt::PerfModel unmqr_model{
    by_precision<T>("tile_sormqr", "tile_dormqr", "tile_cunmqr", "tile_zunmqr")};
template <Scalar T>
inline const rt::Codelet<Side, Op, ConstTile<T>, ConstTile<T>, Tile<T>, int64_t> unmqr{
    .name = by_precision<T>("sormqr", "dormqr", "cunmqr", "zunmqr"),
    .cpu = &unmqr_tile<T>,
    .cuda = TESSERA_IF_CUDA(&unmqr_tile_cuda<T>),
    .model = &unmqr_model<T>,
    .flops =
        [](Side const& side, Op const&, ConstTile<T> const& v, ConstTile<T> const&,
           Tile<T> const& c, int64_t const&) {
            const double k = double(std::min(v.m, v.n));
            return side == Side::left
                       ? fma_flops<T> * reflector_multiply_adds(double(c.m), double(c.n), k)
                       : fma_flops<T> * reflector_multiply_adds(double(c.n), double(c.m), k);
        },
};

// ---- tsqrt / ttqrt: [R(p,k); A(i,k)] = Q [R; 0] -----------------------------------------------
/// The eliminated tile's rows the reflectors reach: all of them (square), or its triangle's
/// first min(m, kb) (triangle: the rows below hold the tile's own geqrt V).
inline int64_t eliminated_rows(Eliminated shape, int64_t m, int64_t kb)
{
    return shape == Eliminated::square ? m : std::min(m, kb);
}
template <Scalar T>
void tpqrt_tile(Tile<T> pivot, Tile<T> a, Tile<T> t, Eliminated shape, int64_t ib)
{
    const int64_t kb = a.n, m = eliminated_rows(shape, a.m, kb);
    kernels::cpu::tpqrt<T>(m, kb, shape == Eliminated::square ? 0 : m, inner_block(ib, kb),
                           pivot.ptr, pivot.ld, a.ptr, a.ld, t.ptr, t.ld);
}
template <Scalar T>
void tpqrt_tile_cuda(rt::CudaContext const& cuda, Tile<T> pivot, Tile<T> a, Tile<T> t,
                     Eliminated shape, int64_t ib)
{
    const int64_t kb = a.n, m = eliminated_rows(shape, a.m, kb);
    kernels::cuda::tpqrt<T>(cuda, m, kb, shape == Eliminated::square ? 0 : m, inner_block(ib, kb),
                            pivot.ptr, pivot.ld, a.ptr, a.ld, t.ptr, t.ld);
}
template <Scalar T>
inline constexpr rt::PerfModel tpqrt_model{
    by_precision<T>("tile_stpqrt", "tile_dtpqrt", "tile_ctpqrt", "tile_ztpqrt")};
template <Scalar T>
inline const rt::Codelet<Tile<T>, Tile<T>, Tile<T>, Eliminated, int64_t> tpqrt{
    .name = by_precision<T>("stpqrt", "dtpqrt", "ctpqrt", "ztpqrt"),
    .cpu = &tpqrt_tile<T>,
    .cuda = TESSERA_IF_CUDA(&tpqrt_tile_cuda<T>),
    .model = &tpqrt_model<T>,
    .flops =
        [](Tile<T> const&, Tile<T> const& a, Tile<T> const&, Eliminated const& shape,
           int64_t const&) {
            // a square tile: m kb^2 multiply-adds; a triangle: kb^3 / 3
            const double kb = double(a.n);
            return fma_flops<T> *
                   (shape == Eliminated::square ? double(a.m) * kb * kb : kb * kb * kb / 3);
        },
};

// ---- tsmqr / ttmqr: [C(p,j); C(i,j)] = op(Q) [...] (left) or [C(r,p) C(r,i)] op(Q) (right) -----
/// `v` is the eliminated tile (its reflectors), `t` their factors; `top` the pivot's tile of
/// C, of which the first kb rows (left) or columns (right) are reached, and `c` the
/// eliminated tile's.
template <Scalar T>
void tpmqrt_tile(Side side, Op op, ConstTile<T> v, ConstTile<T> t, Tile<T> top, Tile<T> c,
                 Eliminated shape, int64_t ib)
{
    const int64_t kb = v.n, reached = eliminated_rows(shape, v.m, kb);
    const int64_t l = shape == Eliminated::square ? 0 : reached;
    if (side == Side::left)
        kernels::cpu::tpmqrt<T>(side, op, reached, c.n, kb, l, inner_block(ib, kb), v.ptr, v.ld,
                                t.ptr, t.ld, top.ptr, top.ld, c.ptr, c.ld);
    else
        kernels::cpu::tpmqrt<T>(side, op, c.m, reached, kb, l, inner_block(ib, kb), v.ptr, v.ld,
                                t.ptr, t.ld, top.ptr, top.ld, c.ptr, c.ld);
}
template <Scalar T>
void tpmqrt_tile_cuda(rt::CudaContext const& cuda, Side side, Op op, ConstTile<T> v, ConstTile<T> t,
                      Tile<T> top, Tile<T> c, Eliminated shape, int64_t ib)
{
    const int64_t kb = v.n, reached = eliminated_rows(shape, v.m, kb);
    const int64_t l = shape == Eliminated::square ? 0 : reached;
    if (side == Side::left)
        kernels::cuda::tpmqrt<T>(cuda, side, op, reached, c.n, kb, l, inner_block(ib, kb), v.ptr,
                                 v.ld, t.ptr, t.ld, top.ptr, top.ld, c.ptr, c.ld);
    else
        kernels::cuda::tpmqrt<T>(cuda, side, op, c.m, reached, kb, l, inner_block(ib, kb), v.ptr,
                                 v.ld, t.ptr, t.ld, top.ptr, top.ld, c.ptr, c.ld);
}
template <Scalar T>
inline constexpr rt::PerfModel tpmqrt_model{
    by_precision<T>("tile_stpmqrt", "tile_dtpmqrt", "tile_ctpmqrt", "tile_ztpmqrt")};
template <Scalar T>
inline const rt::Codelet<Side, Op, ConstTile<T>, ConstTile<T>, Tile<T>, Tile<T>, Eliminated,
                         int64_t>
    tpmqrt{
        .name = by_precision<T>("stpmqrt", "dtpmqrt", "ctpmqrt", "ztpmqrt"),
        .cpu = &tpmqrt_tile<T>,
        .cuda = TESSERA_IF_CUDA(&tpmqrt_tile_cuda<T>),
        .model = &tpmqrt_model<T>,
        .flops =
            [](Side const& side, Op const&, ConstTile<T> const& v, ConstTile<T> const&,
               Tile<T> const&, Tile<T> const& c, Eliminated const& shape, int64_t const&) {
                // each of the kb reflectors: 2 multiply-adds per entry it reaches, on the pivot's row
                // and the eliminated tile's rows (half of them for a triangle)
                const double kb = double(v.n), width = double(side == Side::left ? c.n : c.m);
                const double rows = shape == Eliminated::square ? double(v.m) : kb / 2;
                return fma_flops<T> * 2 * kb * width * (rows + 1);
            },
    };

// ---- the identity: Q's starting point in ungqr ------------------------------------------------
/// Tile (i, j) of the identity: ones where its row and column in the whole matrix meet.
template <Scalar T> void identity_tile(Tile<T> a, int64_t first_row, int64_t first_column)
{
    for (int64_t j = 0; j < a.n; ++j)
        for (int64_t i = 0; i < a.m; ++i) a(i, j) = T(first_row + i == first_column + j ? 1 : 0);
}
template <Scalar T>
inline const rt::Codelet<Tile<T>, int64_t, int64_t> identity{
    .name = by_precision<T>("slaset", "dlaset", "claset", "zlaset"),
    .cpu = &identity_tile<T>,
};

// ---- the tile LQ's transposes: b = a^H ------------------------------------------------------
template <Scalar T> void conj_transpose_tile(ConstTile<T> a, Tile<T> b)
{
    kernels::cpu::conj_transpose<T>(a.m, a.n, a.ptr, a.ld, b.ptr, b.ld);
}
template <Scalar T>
inline const rt::Codelet<ConstTile<T>, Tile<T>> conj_transpose{
    .name = by_precision<T>("stranspose", "dtranspose", "ctranspose", "ztranspose"),
    .cpu = &conj_transpose_tile<T>,
};

// ---- gels's pieces: R and the solution out of their tiles ------------------------------------
/// b's top-left part = a's: the rows and columns both tiles have (R's tiles out of A's, whose
/// last tile row may hold rows below R; the solution in and out of B's).
template <Scalar T> void copy_part_tile(ConstTile<T> a, Tile<T> b)
{
    kernels::cpu::lacpy(std::min(a.m, b.m), std::min(a.n, b.n), a.ptr, a.ld, b.ptr, b.ld);
}
template <Scalar T>
inline const rt::Codelet<ConstTile<T>, Tile<T>> copy_part{
    .name = by_precision<T>("slacpy_part", "dlacpy_part", "clacpy_part", "zlacpy_part"),
    .cpu = &copy_part_tile<T>,
};

/// The rows of a tile from row `first` on set to zero.
template <Scalar T> void zero_rows_tile(Tile<T> a, int64_t first)
{
    for (int64_t j = 0; j < a.n; ++j)
        for (int64_t i = std::max<int64_t>(first, 0); i < a.m; ++i) a(i, j) = T(0);
}
template <Scalar T>
inline const rt::Codelet<Tile<T>, int64_t> zero_rows{
    .name = by_precision<T>("slaset_rows", "dlaset_rows", "claset_rows", "zlaset_rows"),
    .cpu = &zero_rows_tile<T>,
};

/// LAPACK's trtrs check before a triangular solve: the first exactly zero entry on the
/// diagonal of R, whose diagonal tiles (of nb rows each) are given in order, records info =
/// its index from 1 (the sequence then stops: gels computes no solution). One task takes every
/// diagonal tile for writing, so that all of the solve's tasks wait for the check.
template <Scalar T> void zero_diagonal_tiles(rt::Span<Tile<T>> diagonal, InfoTarget info)
{
    int64_t offset = 0;
    for (Tile<T> r : diagonal) {
        for (int64_t i = 0; i < std::min(r.m, r.n); ++i)
            if (r(i, i) == T(0)) {
                info.record(offset + i + 1);
                return;
            }
        offset += r.m;
    }
}
template <Scalar T>
inline const rt::Codelet<rt::Span<Tile<T>>, InfoTarget> zero_diagonal{
    .name = by_precision<T>("strtrs_check", "dtrtrs_check", "ctrtrs_check", "ztrtrs_check"),
    .cpu = &zero_diagonal_tiles<T>,
};

}  // namespace tessera::la::cl
