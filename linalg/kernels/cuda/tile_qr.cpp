// The tile QR's update kernels on a GPU (see tile_qr.hpp), and the compact QR's block update
// on tiles gathered into the workspace (gemqrt_tiles). With Q = Q_1 Q_2 ... Q_b, one
// block Q_j = I - V_j T_j V_j^H per ib reflectors (T_j the ib x ib diagonal block of t), the
// blocks are applied in the order op(Q) asks: Q^H C and C Q first block first, Q C and C Q^H
// last block first. For one block, with W in the workspace:
//
//   gemqrt, V_j = [V1; V2] (V1 its unit lower triangle, on the rows of C1; V2 below, on C2):
//     left:  W = V1^H C1 + V2^H C2;  W = T^H W (Q^H) or T W (Q);
//            C2 -= V2 W;  C1 -= V1 W                         (trmm, gemm, trmm, gemm, trmm, geam)
//     right: W = C1 V1 + C2 V2;  W = W T (Q) or W T^H (Q^H);  C2 -= W V2^H;  C1 -= W V1^H
//   tpmqrt, the reflectors [E_j; V_j] (E_j: rows of A's block j of the identity):
//     left:  W = A_j + V_j^H B;  W = T^H W or T W;  A_j -= W;  B -= V_j W
//     right: W = A_j + B V_j;    W = W T or W T^H;  A_j -= W;  B -= W V_j^H
//
// tpmqrt with l > 0 (ttmqr: V's last l rows upper trapezoidal, another V below them) first
// copies V with explicit zeros (copy_triangle and strided copies): the same products then
// cost the zero triangle's flops too, on the few eliminations of a tree's merges.
#include "linalg/kernels/cuda/tile_qr.hpp"

#include "linalg/instantiate.hpp"
#include "linalg/kernels/cuda/blas_lapack.hpp"
#include "linalg/kernels/cuda/triangle.hpp"

#include <tessera/error.hpp>
#include <tessera/rt/cuda.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>

namespace tessera::la::kernels::cuda {
namespace {

/// dst = src, m x n, both on the device, queued on the stream.
template <Scalar T>
void copy(rt::CudaContext const& ctx, int64_t m, int64_t n, T const* src, int64_t lds, T* dst,
          int64_t ldd)
{
    if (m == 0 || n == 0) return;
    rt::cuda_check(cudaMemcpy2DAsync(dst, std::size_t(ldd) * sizeof(T), src,
                                     std::size_t(lds) * sizeof(T), std::size_t(m) * sizeof(T),
                                     std::size_t(n), cudaMemcpyDeviceToDevice, ctx.stream),
                   "cudaMemcpy2DAsync (the tile QR's workspace)");
}

/// Does block s (of `blocks`) come as step s? Q^H C and C Q take the first block first.
int64_t block_at(int64_t step, int64_t blocks, bool first_block_first)
{
    return first_block_first ? step : blocks - 1 - step;
}

}  // namespace

template <Scalar T> std::size_t gemqrt_workspace_bytes(Side side, int64_t m, int64_t n, int64_t ib)
{
    return sizeof(T) * std::size_t(side == Side::left ? ib * n : m * ib);
}

template <Scalar T>
void gemqrt(rt::CudaContext const& ctx, Side side, Op op, int64_t m, int64_t n, int64_t k,
            int64_t ib, T const* v, int64_t ldv, T const* t, int64_t ldt, T* c, int64_t ldc,
            void* workspace)
{
    if (m == 0 || n == 0 || k == 0) return;
    const bool left = side == Side::left, adjoint = op != Op::notrans;
    const Op ct = Op::conjtrans, tri = adjoint ? Op::conjtrans : Op::notrans;  // T^H or T
    T* w = static_cast<T*>(workspace ? workspace
                                     : ctx.workspace(gemqrt_workspace_bytes<T>(side, m, n, ib)));
    const int64_t blocks = (k + ib - 1) / ib, order = left ? m : n;
    for (int64_t step = 0; step < blocks; ++step) {
        const int64_t j = block_at(step, blocks, left == adjoint);
        const int64_t r0 = j * ib, kb = std::min(ib, k - r0), rest = order - r0 - kb;
        T const* v1 = v + r0 + r0 * ldv;
        T const* v2 = v1 + kb;
        T const* tj = t + r0 * ldt;
        if (left) {
            T* c1 = c + r0;
            T* c2 = c1 + kb;
            copy(ctx, kb, n, c1, ldc, w, kb);
            trmm<T>(ctx, Side::left, Uplo::lower, ct, Diag::unit, kb, n, T(1), v1, ldv, w, kb);
            gemm<T>(ctx, ct, Op::notrans, kb, n, rest, T(1), v2, ldv, c2, ldc, T(1), w, kb);
            trmm<T>(ctx, Side::left, Uplo::upper, tri, Diag::nonunit, kb, n, T(1), tj, ldt, w, kb);
            gemm<T>(ctx, Op::notrans, Op::notrans, rest, n, kb, T(-1), v2, ldv, w, kb, T(1), c2,
                    ldc);
            trmm<T>(ctx, Side::left, Uplo::lower, Op::notrans, Diag::unit, kb, n, T(1), v1, ldv, w,
                    kb);
            geam<T>(ctx, kb, n, T(1), c1, ldc, T(-1), w, kb, c1, ldc);
        } else {
            T* c1 = c + r0 * ldc;
            T* c2 = c1 + kb * ldc;
            copy(ctx, m, kb, c1, ldc, w, m);
            trmm<T>(ctx, Side::right, Uplo::lower, Op::notrans, Diag::unit, m, kb, T(1), v1, ldv, w,
                    m);
            gemm<T>(ctx, Op::notrans, Op::notrans, m, kb, rest, T(1), c2, ldc, v2, ldv, T(1), w, m);
            trmm<T>(ctx, Side::right, Uplo::upper, tri, Diag::nonunit, m, kb, T(1), tj, ldt, w, m);
            gemm<T>(ctx, Op::notrans, ct, m, rest, kb, T(-1), w, m, v2, ldv, T(1), c2, ldc);
            trmm<T>(ctx, Side::right, Uplo::lower, ct, Diag::unit, m, kb, T(1), v1, ldv, w, m);
            geam<T>(ctx, m, kb, T(1), c1, ldc, T(-1), w, m, c1, ldc);
        }
    }
}

template <Scalar T>
void tpmqrt(rt::CudaContext const& ctx, Side side, Op op, int64_t m, int64_t n, int64_t k,
            int64_t l, int64_t ib, T const* v, int64_t ldv, T const* t, int64_t ldt, T* a,
            int64_t lda, T* b, int64_t ldb)
{
    if (m == 0 || n == 0 || k == 0) return;
    const bool left = side == Side::left, adjoint = op != Op::notrans;
    const Op ct = Op::conjtrans, tri = adjoint ? Op::conjtrans : Op::notrans;
    const int64_t rows = left ? m : n;  // V's
    const std::size_t w_count = std::size_t(left ? ib * n : m * ib);
    const std::size_t v_count = l > 0 ? std::size_t(rows * k) : 0;
    T* w = static_cast<T*>(ctx.workspace(sizeof(T) * (w_count + v_count)));
    if (l > 0) {  // V with explicit zeros: rows [0, rows - l) full, then an upper trapezoid
        T* full = w + w_count;
        const int64_t top = rows - l;
        rt::cuda_check(cudaMemsetAsync(full, 0, sizeof(T) * v_count, ctx.stream),
                       "cudaMemsetAsync (V's zeros)");
        copy(ctx, top, k, v, ldv, full, rows);
        rt::cuda_check(copy_triangle(ctx.stream, false, std::min(l, k), sizeof(T), v + top, ldv,
                                     full + top, rows),
                       "copy_triangle_kernel launch");
        if (k > l) copy(ctx, l, k - l, v + top + l * ldv, ldv, full + top + l * rows, rows);
        v = full;
        ldv = rows;
    }
    const int64_t blocks = (k + ib - 1) / ib;
    for (int64_t step = 0; step < blocks; ++step) {
        const int64_t j = block_at(step, blocks, left == adjoint);
        const int64_t r0 = j * ib, kb = std::min(ib, k - r0);
        T const* vj = v + r0 * ldv;
        T const* tj = t + r0 * ldt;
        if (left) {
            T* aj = a + r0;
            copy(ctx, kb, n, aj, lda, w, kb);
            gemm<T>(ctx, ct, Op::notrans, kb, n, m, T(1), vj, ldv, b, ldb, T(1), w, kb);
            trmm<T>(ctx, Side::left, Uplo::upper, tri, Diag::nonunit, kb, n, T(1), tj, ldt, w, kb);
            geam<T>(ctx, kb, n, T(1), aj, lda, T(-1), w, kb, aj, lda);
            gemm<T>(ctx, Op::notrans, Op::notrans, m, n, kb, T(-1), vj, ldv, w, kb, T(1), b, ldb);
        } else {
            T* aj = a + r0 * lda;
            copy(ctx, m, kb, aj, lda, w, m);
            gemm<T>(ctx, Op::notrans, Op::notrans, m, kb, n, T(1), b, ldb, vj, ldv, T(1), w, m);
            trmm<T>(ctx, Side::right, Uplo::upper, tri, Diag::nonunit, m, kb, T(1), tj, ldt, w, m);
            geam<T>(ctx, m, kb, T(1), aj, lda, T(-1), w, m, aj, lda);
            gemm<T>(ctx, Op::notrans, ct, m, n, kb, T(-1), w, m, vj, ldv, T(1), b, ldb);
        }
    }
}

template <Scalar T>
void gemqrt_tiles(rt::CudaContext const& ctx, Side side, Op op,
                  std::span<GridTile<T const> const> v, int64_t k, T const* t, int64_t ldt,
                  std::span<GridTile<T> const> c, std::size_t grid_m)
{
    if (v.empty() || c.empty() || k == 0) return;
    const std::size_t grid_n = c.size() / grid_m;
    int64_t length = 0, m = 0, n = 0;  // V's rows; C's rows and columns
    for (auto const& tile : v) length += tile.rows;
    for (std::size_t a = 0; a < grid_m; ++a) m += c[a].rows;
    for (std::size_t b = 0; b < grid_n; ++b) n += c[b * grid_m].cols;
    const std::size_t v_bytes = sizeof(T) * std::size_t(length * k),
                      c_bytes = sizeof(T) * std::size_t(m * n);
    auto* base = static_cast<char*>(
        ctx.workspace(v_bytes + c_bytes + gemqrt_workspace_bytes<T>(side, m, n, k)));
    T* vw = reinterpret_cast<T*>(base);
    T* cw = reinterpret_cast<T*>(base + v_bytes);
    int64_t row = 0;
    for (auto const& tile : v) {
        copy(ctx, tile.rows, k, tile.ptr, tile.ld, vw + row, length);
        row += tile.rows;
    }
    auto place = [&](bool gather) {  // C's tiles into the workspace, or back
        int64_t column = 0;
        for (std::size_t b = 0; b < grid_n; ++b) {
            int64_t r = 0;
            for (std::size_t a = 0; a < grid_m; ++a) {
                GridTile<T> const& tile = c[a + b * grid_m];
                T* at = cw + r + column * m;
                if (gather)
                    copy(ctx, tile.rows, tile.cols, tile.ptr, tile.ld, at, m);
                else
                    copy(ctx, tile.rows, tile.cols, at, m, tile.ptr, tile.ld);
                r += tile.rows;
            }
            column += c[b * grid_m].cols;
        }
    };
    place(true);
    gemqrt<T>(ctx, side, op, m, n, k, k, vw, length, t, ldt, cw, m, base + v_bytes + c_bytes);
    place(false);
}

namespace {
/// Rounds a byte count up to the workspace's alignment (256).
std::size_t aligned(std::size_t bytes)
{
    return (bytes + 255) / 256 * 256;
}

/// T (ib x k, one ib x ib upper triangle per ib columns: LAPACK's geqrt and tpqrt layout) of
/// the k reflectors below the diagonal of the m x k V, with their scalars tau: larft per block.
template <Scalar T>
void block_factors(rt::CudaContext const& ctx, int64_t m, int64_t k, int64_t ib, T const* v,
                   int64_t ldv, T const* tau, T* t, int64_t ldt, void* workspace)
{
    for (int64_t j0 = 0; j0 < k; j0 += ib)
        larft<T>(ctx, m - j0, std::min(ib, k - j0), v + j0 + j0 * ldv, ldv, tau + j0, t + j0 * ldt,
                 ldt, workspace);
}

/// The workspace of block_factors: its first block's, the largest.
template <Scalar T>
std::size_t block_factors_bytes(rt::CudaContext const& ctx, int64_t m, int64_t k, int64_t ib, T* t,
                                int64_t ldt)
{
    return larft_workspace_bytes<T>(ctx, m, std::min(ib, k), nullptr, m, nullptr, t, ldt);
}
}  // namespace

template <Scalar T>
void geqrt(rt::CudaContext const& ctx, int64_t m, int64_t n, int64_t ib, T* a, int64_t lda, T* t,
           int64_t ldt)
{
    const int64_t k = std::min(m, n);
    if (k == 0) return;
    // workspace: [tau, k | geqrf's | larft's]
    const std::size_t tau_bytes = aligned(sizeof(T) * std::size_t(k));
    const std::size_t geqrf_bytes = geqrf_workspace_bytes<T>(ctx, m, n, a, lda);
    auto* base = static_cast<char*>(
        ctx.workspace(tau_bytes + geqrf_bytes + block_factors_bytes<T>(ctx, m, k, ib, t, ldt)));
    T* tau = reinterpret_cast<T*>(base);
    geqrf<T>(ctx, m, n, a, lda, tau, base + tau_bytes);
    block_factors<T>(ctx, m, k, ib, a, lda, tau, t, ldt, base + tau_bytes + geqrf_bytes);
}

template <Scalar T>
void tpqrt(rt::CudaContext const& ctx, int64_t m, int64_t n, int64_t l, int64_t ib, T* a,
           int64_t lda, T* b, int64_t ldb, T* t, int64_t ldt)
{
    if (m == 0 || n == 0) return;
    require(l == 0 || l == m, "tpqrt on a GPU: l must be 0 (B square) or m (B a triangle)");
    // W = [triu(A); B] ((n + m) x n, B's lower part zero when l = m), factored by geqrf: its
    // reflectors are [e_i; v_i] (a zero below an upper triangle stays zero), tpqrt's
    const int64_t ldw = n + m;
    const std::size_t w_bytes = aligned(sizeof(T) * std::size_t(ldw * n)),
                      tau_bytes = aligned(sizeof(T) * std::size_t(n));
    const std::size_t geqrf_bytes = geqrf_workspace_bytes<T>(ctx, ldw, n, nullptr, ldw);
    auto* base = static_cast<char*>(ctx.workspace(w_bytes + tau_bytes + geqrf_bytes +
                                                  block_factors_bytes<T>(ctx, ldw, n, ib, t, ldt)));
    T* w = reinterpret_cast<T*>(base);
    T* tau = reinterpret_cast<T*>(base + w_bytes);
    auto triangle = [&](int64_t order, T const* from, int64_t ldf, T* to, int64_t ldto,
                        bool zero_other) {
        rt::cuda_check(
            copy_triangle(ctx.stream, false, order, sizeof(T), from, ldf, to, ldto, zero_other),
            "copy_triangle (tpqrt on a GPU)");
    };
    // B (l = 0) or its upper trapezoid (l = m: a triangle, then full columns), into or out of W
    auto place_b = [&](bool gather) {
        if (l == 0) {
            if (gather)
                copy(ctx, m, n, b, ldb, w + n, ldw);
            else
                copy(ctx, m, n, w + n, ldw, b, ldb);
            return;
        }
        if (gather) {
            triangle(m, b, ldb, w + n, ldw, true);
            copy(ctx, m, n - m, b + m * ldb, ldb, w + n + m * ldw, ldw);
        } else {
            triangle(m, w + n, ldw, b, ldb, false);
            copy(ctx, m, n - m, w + n + m * ldw, ldw, b + m * ldb, ldb);
        }
    };
    triangle(n, a, lda, w, ldw, true);
    place_b(true);
    geqrf<T>(ctx, ldw, n, w, ldw, tau, base + w_bytes + tau_bytes);
    triangle(n, w, ldw, a, lda, false);  // R; A's other triangle (its own reflectors) kept
    place_b(false);
    block_factors<T>(ctx, ldw, n, ib, w, ldw, tau, t, ldt,
                     base + w_bytes + tau_bytes + geqrf_bytes);
}

template <Scalar T>
void geqrf_panel(rt::CudaContext const& ctx, std::span<GridTile<T> const> column, int64_t kb, T* t,
                 int64_t ldt, T* tau)
{
    int64_t m = 0;
    for (auto const& tile : column) m += tile.rows;
    if (m == 0 || kb == 0) return;
    const int64_t k = std::min(m, kb);
    // workspace: [the column, m x kb | geqrf's | larft's], each a multiple of 256 bytes
    const std::size_t a_bytes = aligned(sizeof(T) * std::size_t(m * kb));
    const std::size_t geqrf_bytes = geqrf_workspace_bytes<T>(ctx, m, kb, nullptr, m);
    const std::size_t larft_bytes = larft_workspace_bytes<T>(ctx, m, k, nullptr, m, tau, t, ldt);
    auto* base = static_cast<char*>(ctx.workspace(a_bytes + geqrf_bytes + larft_bytes));
    T* a = reinterpret_cast<T*>(base);
    auto place = [&](bool gather) {  // the column's tiles into the workspace, or back
        int64_t row = 0;
        for (auto const& tile : column) {
            if (gather)
                copy(ctx, tile.rows, kb, tile.ptr, tile.ld, a + row, m);
            else
                copy(ctx, tile.rows, kb, a + row, m, tile.ptr, tile.ld);
            row += tile.rows;
        }
    };
    place(true);
    geqrf<T>(ctx, m, kb, a, m, tau, base + a_bytes);
    larft<T>(ctx, m, k, a, m, tau, t, ldt, base + a_bytes + geqrf_bytes);
    place(false);
}

template <Scalar T>
void larft_tiles(rt::CudaContext const& ctx, std::span<GridTile<T const> const> column, int64_t k,
                 T const* tau, T* t, int64_t ldt)
{
    int64_t m = 0;
    for (auto const& tile : column) m += tile.rows;
    if (m == 0 || k == 0) return;
    // workspace: [the reflectors, m x k | larft's]
    const std::size_t v_bytes = aligned(sizeof(T) * std::size_t(m * k));
    auto* base = static_cast<char*>(
        ctx.workspace(v_bytes + larft_workspace_bytes<T>(ctx, m, k, nullptr, m, tau, t, ldt)));
    T* v = reinterpret_cast<T*>(base);
    int64_t row = 0;
    for (auto const& tile : column) {
        copy(ctx, tile.rows, k, tile.ptr, tile.ld, v + row, m);
        row += tile.rows;
    }
    larft<T>(ctx, m, k, v, m, tau, t, ldt, base + v_bytes);
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void larft_tiles<T>(rt::CudaContext const&, std::span<GridTile<T const> const>,       \
                                 int64_t, T const*, T*, int64_t);                                  \
    template void geqrt<T>(rt::CudaContext const&, int64_t, int64_t, int64_t, T*, int64_t, T*,     \
                           int64_t);                                                               \
    template void tpqrt<T>(rt::CudaContext const&, int64_t, int64_t, int64_t, int64_t, T*,         \
                           int64_t, T*, int64_t, T*, int64_t);                                     \
    template void geqrf_panel<T>(rt::CudaContext const&, std::span<GridTile<T> const>, int64_t,    \
                                 T*, int64_t, T*);                                                 \
    template std::size_t gemqrt_workspace_bytes<T>(Side, int64_t, int64_t, int64_t);               \
    template void gemqrt<T>(rt::CudaContext const&, Side, Op, int64_t, int64_t, int64_t, int64_t,  \
                            T const*, int64_t, T const*, int64_t, T*, int64_t, void*);             \
    template void gemqrt_tiles<T>(rt::CudaContext const&, Side, Op,                                \
                                  std::span<GridTile<T const> const>, int64_t, T const*, int64_t,  \
                                  std::span<GridTile<T> const>, std::size_t);                      \
    template void tpmqrt<T>(rt::CudaContext const&, Side, Op, int64_t, int64_t, int64_t, int64_t,  \
                            int64_t, T const*, int64_t, T const*, int64_t, T*, int64_t, T*,        \
                            int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::la::kernels::cuda
