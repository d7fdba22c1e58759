// The tile QR's kernels on a GPU: LAPACK's gemqrt and tpmqrt, which neither cuBLAS nor
// cuSOLVER has (cuSOLVER's ormqr takes LAPACK's taus, not the T factors), built from cuBLAS
// gemm, trmm and geam, one block of ib reflectors at a time; geqrt, tpqrt and the compact
// QR's panel from cuSOLVER's geqrf and larft. Declarations only (no CUDA
// header): defined in tile_qr.cpp, compiled in CUDA builds. Internal.
#pragma once

#include <tessera/la/enums.hpp>
#include <tessera/la/scalar.hpp>
#include <tessera/rt/codelet.hpp>  // rt::CudaContext (declared)

#include <cstddef>
#include <cstdint>
#include <span>

namespace tessera::la::kernels::cuda {

/// C = op(Q) C (left, C m x n, V m x k) or C op(Q) (right, V n x k), Q = H_1 ... H_k from
/// geqrt's reflectors in v (unit lower trapezoidal: the diagonal and what lies above it are
/// not read) and their ib x k factors in t: LAPACK's gemqrt. op is Op::notrans or Q^H.
/// `workspace`: gemqrt_workspace_bytes of GPU memory from the caller's own request of
/// ctx.workspace, or null to ask ctx for it.
template <Scalar T>
void gemqrt(rt::CudaContext const& ctx, Side side, Op op, int64_t m, int64_t n, int64_t k,
            int64_t ib, T const* v, int64_t ldv, T const* t, int64_t ldt, T* c, int64_t ldc,
            void* workspace = nullptr);
template <Scalar T> std::size_t gemqrt_workspace_bytes(Side side, int64_t m, int64_t n, int64_t ib);

/// One tile of a grid on the GPU: rows x cols, column-major with leading dimension ld (T may
/// be const).
template <class T> struct GridTile {
    T* ptr;
    int64_t rows, cols, ld;
};
/// gemqrt with one block of k reflectors (ib = k, t its whole k x k factor) on tiles that lie
/// apart in GPU memory: the reflectors' tile column v (from their diagonal down) and the grid
/// c of C's tiles (tile (a, b) at c[a + b grid_m]) are gathered into the workspace, updated
/// there, and C's tiles written back (the compact QR's block updates).
template <Scalar T>
void gemqrt_tiles(rt::CudaContext const& ctx, Side side, Op op,
                  std::span<GridTile<T const> const> v, int64_t k, T const* t, int64_t ldt,
                  std::span<GridTile<T> const> c, std::size_t grid_m);

/// LAPACK's geqrt on the GPU: the m x n A = Q R in place (cuSOLVER's geqrf), T (ib x min(m, n))
/// its block factors, one ib x ib upper triangle per ib columns (cuSOLVER's larft per block).
template <Scalar T>
void geqrt(rt::CudaContext const& ctx, int64_t m, int64_t n, int64_t ib, T* a, int64_t lda, T* t,
           int64_t ldt);
/// LAPACK's tpqrt on the GPU for l = 0 (B m x n) or l = m (B upper trapezoidal): [A; B] =
/// Q [R; 0] with A's upper triangle (n x n) replaced by R (its other triangle kept), B by the
/// reflectors' lower parts (B's lower part kept when l = m), T as geqrt's. Through a copy of
/// [triu(A); B] in the workspace that cuSOLVER's geqrf factors (its reflectors are then
/// [e_i; v_i], tpqrt's), then larft per block.
template <Scalar T>
void tpqrt(rt::CudaContext const& ctx, int64_t m, int64_t n, int64_t l, int64_t ib, T* a,
           int64_t lda, T* b, int64_t ldb, T* t, int64_t ldt);

/// The compact QR's panel on the GPU: the tile column `column` (kb columns, m rows in all,
/// from its diagonal tile down) gathered into the workspace, factored there (cuSOLVER's
/// geqrf: R and the reflectors, LAPACK's compact form, their min(m, kb) scalars into tau),
/// its min(m, kb) x min(m, kb) factor T formed into t (cuSOLVER's larft), and written back.
template <Scalar T>
void geqrf_panel(rt::CudaContext const& ctx, std::span<GridTile<T> const> column, int64_t kb, T* t,
                 int64_t ldt, T* tau);

/// The k x k factor T of the k reflectors in the first k columns of the tile column `column`
/// (from their diagonal down; m rows in all, m >= k) and their scalars tau: the column
/// gathered into the workspace, then cuSOLVER's larft (ormqr's and orgqr's T in the compact
/// form).
template <Scalar T>
void larft_tiles(rt::CudaContext const& ctx, std::span<GridTile<T const> const> column, int64_t k,
                 T const* tau, T* t, int64_t ldt);

/// [A; B] = op(Q) [A; B] (left: A k x n, B m x n, V m x k) or [A B] = [A B] op(Q) (right: A
/// m x k, B m x n, V n x k), Q from tpqrt's reflectors in v, whose last l rows are upper
/// trapezoidal (what lies below is not read), and their ib x k factors in t: LAPACK's tpmqrt.
template <Scalar T>
void tpmqrt(rt::CudaContext const& ctx, Side side, Op op, int64_t m, int64_t n, int64_t k,
            int64_t l, int64_t ib, T const* v, int64_t ldv, T const* t, int64_t ldt, T* a,
            int64_t lda, T* b, int64_t ldb);

}  // namespace tessera::la::kernels::cuda
