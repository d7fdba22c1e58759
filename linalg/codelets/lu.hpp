// Codelets of the tile LU: the panel (one SPMD task over a tile column, its ranks sharing the
// tiles), the panel's row interchanges applied to another tile column, and the LU without
// pivoting of one diagonal tile. A zero pivot records LAPACK's info, shifted by the panel's
// offset, into the sequence's info reduction. Every codelet has a CUDA implementation (the
// panel's is cuSOLVER's getrf on the gathered column, one rank); a task over a whole tile
// column goes to a GPU only when its memory holds the column. Internal.
#pragma once

#include "linalg/codelets/blas3.hpp"
#include "linalg/kernels/cpu/tile_column_lu.hpp"
#include "linalg/kernels/cuda/tile_lu.hpp"  // declarations only, no CUDA header

#include <tessera/la/sequence.hpp>
#include <tessera/rt/runtime.hpp>
#include <tessera/rt/span.hpp>

#include <memory>
#include <vector>

namespace tessera::la::cl {

/// LAPACK's count of multiply-adds of the LU of an m x n matrix, k = min(m, n):
/// m n k - (m + n) k^2 / 2 + k^3 / 3 (n^3 / 3 when square).
inline double lu_multiply_adds(double m, double n)
{
    const double k = std::min(m, n);
    return m * n * k - (m + n) * k * k / 2 + k * k * k / 3;
}

/// The tiles of a span as the kernels see them (a thread's buffer, no allocation per task).
template <Scalar T>
std::span<kernels::cpu::ColumnTile<T> const> column_tiles(rt::Span<Tile<T>> column)
{
    thread_local std::vector<kernels::cpu::ColumnTile<T>> tiles;
    tiles.clear();
    for (Tile<T> t : column) tiles.push_back({t.ptr, t.m, t.ld});
    return tiles;
}

/// Where the ranks of one panel task compare their pivot candidates: allocated per panel at
/// submission, shared by the ranks through the task's copy.
using PivotSearchRef = std::shared_ptr<kernels::cpu::PivotSearch>;

/// The panel of step k: the tiles (k..mt-1, k), M rows from row `offset` of the matrix. Writes
/// ipiv (min(M, n) entries) as LAPACK's, rows of the whole matrix from 1.
template <Scalar T>
void getrf_panel_tiles(rt::Span<Tile<T>> column, rt::Vector<int64_t> ipiv, int64_t offset,
                       InfoTarget info, PivotSearchRef search)
{
    if (column.size() == 0) return;
    const kernels::cpu::PanelRanks ranks{rt::parallel_rank(), rt::parallel_size(),
                                         &rt::parallel_barrier, search.get()};
    const int64_t nb = column[0].m;
    const int64_t first_zero = kernels::cpu::getrf_panel<T>(
        column_tiles<T>(column), nb, column[0].n, ipiv.ptr, kernels::cpu::Pivoting::partial, ranks);
    if (ranks.rank != 0 || first_zero < 0) return;
    for (int64_t i = 0; i < ipiv.n; ++i) ipiv[i] += offset + 1;
    if (first_zero > 0) info.record(offset + first_zero);
}
/// On a GPU: one rank, cuSOLVER's getrf on the gathered panel (the info comes back
/// asynchronously, recorded by the worker once the stream work is done).
template <Scalar T>
void getrf_panel_tiles_cuda(rt::CudaContext const& cuda, rt::Span<Tile<T>> column,
                            rt::Vector<int64_t> ipiv, int64_t offset, InfoTarget info,
                            PivotSearchRef)
{
    if (column.size() == 0) return;
    kernels::cuda::getrf_panel<T>(cuda, column_tiles<T>(column), column[0].n, ipiv.ptr, offset,
                                  [info, offset](int64_t i) { info.record(offset + i); });
}
template <Scalar T>
inline constexpr rt::PerfModel getrf_panel_model{by_precision<T>(
    "tile_sgetrf_panel", "tile_dgetrf_panel", "tile_cgetrf_panel", "tile_zgetrf_panel")};
template <Scalar T>
inline const rt::Codelet<rt::Span<Tile<T>>, rt::Vector<int64_t>, int64_t, InfoTarget,
                         PivotSearchRef>
    getrf_panel{
        .name = by_precision<T>("sgetrf_panel", "dgetrf_panel", "cgetrf_panel", "zgetrf_panel"),
        .cpu = &getrf_panel_tiles<T>,
        .cuda = TESSERA_IF_CUDA(&getrf_panel_tiles_cuda<T>),
        .model = &getrf_panel_model<T>,
        .flops =
            [](rt::Span<Tile<T>> const& column, rt::Vector<int64_t> const&, int64_t const&,
               InfoTarget const&, PivotSearchRef const&) {
                double m = 0;
                for (Tile<T> t : column) m += double(t.m);
                return fma_flops<T> *
                       lu_multiply_adds(m, column.size() ? double(column[0].n) : 0.0);
            },
        .type = rt::ParallelKind::spmd,
        .max_parallelism = kernels::cpu::PivotSearch::max_ranks,
    };

/// The interchanges of the panel whose first row is row `offset` of the matrix, applied to the
/// tiles (k..mt-1, j) of another tile column (LAPACK's laswp on those rows).
template <Scalar T>
void swap_rows_tiles(rt::Span<Tile<T>> column, rt::Vector<const int64_t> ipiv, int64_t offset)
{
    if (column.size() == 0) return;
    kernels::cpu::apply_row_swaps<T>(column_tiles<T>(column), column[0].m, column[0].n, ipiv.ptr,
                                     ipiv.n, offset, offset, kernels::cpu::SwapOrder::forward);
}
template <Scalar T>
void swap_rows_tiles_cuda(rt::CudaContext const& cuda, rt::Span<Tile<T>> column,
                          rt::Vector<const int64_t> ipiv, int64_t offset)
{
    if (column.size() == 0) return;
    const kernels::cuda::SwapPiece piece{ipiv.ptr, ipiv.n, offset};
    const int64_t width = column[0].n;
    kernels::cuda::apply_row_swaps<T>(cuda, column_tiles<T>(column), std::span(&width, 1),
                                      column[0].m, std::span(&piece, 1), offset,
                                      kernels::cpu::SwapOrder::forward);
}
template <Scalar T>
inline constexpr rt::PerfModel swap_rows_model{
    by_precision<T>("tile_slaswp", "tile_dlaswp", "tile_claswp", "tile_zlaswp")};
template <Scalar T>
inline const rt::Codelet<rt::Span<Tile<T>>, rt::Vector<const int64_t>, int64_t> swap_rows{
    .name = by_precision<T>("slaswp", "dlaswp", "claswp", "zlaswp"),
    .cpu = &swap_rows_tiles<T>,
    .cuda = TESSERA_IF_CUDA(&swap_rows_tiles_cuda<T>),
    .model = &swap_rows_model<T>,
};

/// Every piece of a factorization's interchanges applied to a whole tile column of B (getrs):
/// piece k holds the entries from k times the first piece's size; forward (P^T B) or
/// backward (P B).
template <Scalar T>
void swap_rows_all_pieces_tiles(rt::Span<Tile<T>> column,
                                rt::Span<rt::Vector<const int64_t>> pieces,
                                kernels::cpu::SwapOrder order)
{
    if (column.size() == 0 || pieces.size() == 0) return;
    const auto tiles = column_tiles<T>(column);
    const int64_t piece_size = pieces[0].n;
    const auto count = int64_t(pieces.size());
    for (int64_t step = 0; step < count; ++step) {
        const int64_t k = order == kernels::cpu::SwapOrder::forward ? step : count - 1 - step;
        rt::Vector<const int64_t> piece = pieces[std::size_t(k)];
        kernels::cpu::apply_row_swaps<T>(tiles, column[0].m, column[0].n, piece.ptr, piece.n,
                                         k * piece_size, 0, order);
    }
}
/// The pieces as the CUDA kernels take them: piece k's entries swap rows (or columns) from k
/// times the first piece's size.
inline std::span<kernels::cuda::SwapPiece const>
swap_pieces(rt::Span<rt::Vector<const int64_t>> pieces)
{
    thread_local std::vector<kernels::cuda::SwapPiece> list;
    list.clear();
    const int64_t piece_size = pieces.size() ? pieces[0].n : 0;
    for (std::size_t k = 0; k < pieces.size(); ++k)
        list.push_back({pieces[k].ptr, pieces[k].n, int64_t(k) * piece_size});
    return list;
}
template <Scalar T>
void swap_rows_all_pieces_tiles_cuda(rt::CudaContext const& cuda, rt::Span<Tile<T>> column,
                                     rt::Span<rt::Vector<const int64_t>> pieces,
                                     kernels::cpu::SwapOrder order)
{
    if (column.size() == 0 || pieces.size() == 0) return;
    const int64_t width = column[0].n;
    kernels::cuda::apply_row_swaps<T>(cuda, column_tiles<T>(column), std::span(&width, 1),
                                      column[0].m, swap_pieces(pieces), 0, order);
}
template <Scalar T>
inline constexpr rt::PerfModel swap_rows_all_model{
    by_precision<T>("tile_slaswp_all", "tile_dlaswp_all", "tile_claswp_all", "tile_zlaswp_all")};
template <Scalar T>
inline const rt::Codelet<rt::Span<Tile<T>>, rt::Span<rt::Vector<const int64_t>>,
                         kernels::cpu::SwapOrder>
    swap_rows_all_pieces{
        .name = by_precision<T>("slaswp_all", "dlaswp_all", "claswp_all", "zlaswp_all"),
        .cpu = &swap_rows_all_pieces_tiles<T>,
        .cuda = TESSERA_IF_CUDA(&swap_rows_all_pieces_tiles_cuda<T>),
        .model = &swap_rows_all_model<T>,
    };

/// C_i = C_i - A_i B for each i >= first (A_i the tiles of the panel's column on the rows of
/// C_i, B the row of U above them). When the tiles lie one below the other in memory (a LAPACK
/// array tiled in place), one gemm call on the whole stack: OpenBLAS runs a 7232 x 768 x 768
/// dgemm 10% faster than 768-row slices of it (55 against 50 GFlop/s on one core).
template <Scalar T, class PanelTiles, class Tiles>
void subtract_products(PanelTiles const& a, ConstTile<T> b, Tiles const& c, std::size_t first = 0)
{
    if (c.size() <= first) return;
    bool contiguous = true;
    for (std::size_t i = first + 1; i < c.size() && contiguous; ++i)
        contiguous = a[i].ptr == a[i - 1].ptr + a[i - 1].m && a[i].ld == a[first].ld &&
                     c[i].ptr == c[i - 1].ptr + c[i - 1].m && c[i].ld == c[first].ld;
    if (contiguous) {
        int64_t rows = 0;
        for (std::size_t i = first; i < c.size(); ++i) rows += c[i].m;
        kernels::cpu::gemm<T>(Op::notrans, Op::notrans, rows, c[first].n, b.m, T(-1), a[first].ptr,
                              a[first].ld, b.ptr, b.ld, T(1), c[first].ptr, c[first].ld);
        return;
    }
    for (std::size_t i = first; i < c.size(); ++i)
        kernels::cpu::gemm<T>(Op::notrans, Op::notrans, c[i].m, c[i].n, b.m, T(-1), a[i].ptr,
                              a[i].ld, b.ptr, b.ld, T(1), c[i].ptr, c[i].ld);
}

/// Step k's whole update of a block of tile columns, rows k..mt-1, in one task:
///     A(k.., j) = P_k^T A(k.., j)          the panel's interchanges
///     A(k, j)   = L(k,k)^{-1} A(k, j)      trsm, unit lower
///     A(i, j)   = A(i, j) - A(i, k) A(k, j)   for the tile rows i > k
/// `panel` is the factored tile column k (rows k..mt-1); `block` holds the tile columns one
/// after the other, as many tiles each. When the block lies in one column-major array (a
/// LAPACK array tiled in place), each step is one call over the whole block: the gemm packs
/// the panel's L once instead of once per tile column (OpenBLAS on one core: 55.9 against 54.9
/// GFlop/s for nine columns of 768 at m = 7232).
template <Scalar T>
void update_columns_tiles(rt::Span<ConstTile<T>> panel, rt::Vector<const int64_t> ipiv,
                          int64_t offset, rt::Span<Tile<T>> block)
{
    const std::size_t rows = panel.size();
    if (rows == 0 || block.size() == 0) return;
    const std::size_t columns = block.size() / rows;
    thread_local std::vector<Tile<T>> column;
    auto update = [&] {  // the tiles of `column`
        const int64_t width = column[0].n;
        thread_local std::vector<kernels::cpu::ColumnTile<T>> swapped;
        swapped.clear();
        for (Tile<T> t : column) swapped.push_back({t.ptr, t.m, t.ld});
        kernels::cpu::apply_row_swaps<T>(swapped, column[0].m, width, ipiv.ptr, ipiv.n, offset,
                                         offset, kernels::cpu::SwapOrder::forward);
        Tile<T> top = column[0];
        kernels::cpu::trsm<T>(Side::left, Uplo::lower, Op::notrans, Diag::unit, top.m, width, T(1),
                              panel[0].ptr, panel[0].ld, top.ptr, top.ld);
        subtract_products<T>(panel, ConstTile<T>{top.ptr, top.m, width, top.ld}, column, 1);
    };
    // one array: tile (i, c) at the first tile plus its row offset plus its column offset times ld
    Tile<T> const first = block[0];
    bool one_array = true;
    int64_t width = 0;
    for (std::size_t c = 0; c < columns && one_array; ++c) {
        int64_t row = 0;
        for (std::size_t i = 0; i < rows && one_array; ++i) {
            Tile<T> t = block[c * rows + i];
            one_array = t.ld == first.ld && t.ptr == first.ptr + row + width * first.ld &&
                        t.n == block[c * rows].n;
            row += t.m;
        }
        width += block[c * rows].n;
    }
    if (one_array) {
        column.assign(block.begin(), block.begin() + std::ptrdiff_t(rows));
        for (Tile<T>& t : column) t.n = width;  // the block as one wide tile column
        update();
        return;
    }
    for (std::size_t c = 0; c < columns; ++c) {
        column.assign(block.begin() + std::ptrdiff_t(c * rows),
                      block.begin() + std::ptrdiff_t((c + 1) * rows));
        update();
    }
}
template <Scalar T>
void update_columns_tiles_cuda(rt::CudaContext const& cuda, rt::Span<ConstTile<T>> panel,
                               rt::Vector<const int64_t> ipiv, int64_t offset,
                               rt::Span<Tile<T>> block)
{
    const std::size_t rows = panel.size();
    if (rows == 0 || block.size() == 0) return;
    thread_local std::vector<kernels::cpu::ColumnTile<T>> tiles;
    thread_local std::vector<int64_t> widths;
    tiles.clear();
    widths.clear();
    for (std::size_t i = 0; i < block.size(); ++i) {
        Tile<T> t = block[i];
        tiles.push_back({t.ptr, t.m, t.ld});
        if (i % rows == 0) widths.push_back(t.n);
    }
    const kernels::cuda::SwapPiece piece{ipiv.ptr, ipiv.n, offset};
    kernels::cuda::apply_row_swaps<T>(cuda, tiles, widths, block[0].m, std::span(&piece, 1), offset,
                                      kernels::cpu::SwapOrder::forward);
    for (std::size_t c = 0; c < widths.size(); ++c) {
        Tile<T> top = block[c * rows];
        kernels::cuda::trsm<T>(cuda, Side::left, Uplo::lower, Op::notrans, Diag::unit, top.m, top.n,
                               T(1), panel[0].ptr, panel[0].ld, top.ptr, top.ld);
        for (std::size_t i = 1; i < rows; ++i) {
            Tile<T> t = block[c * rows + i];
            kernels::cuda::gemm<T>(cuda, Op::notrans, Op::notrans, t.m, t.n, top.m, T(-1),
                                   panel[i].ptr, panel[i].ld, top.ptr, top.ld, T(1), t.ptr, t.ld);
        }
    }
}
template <Scalar T>
inline constexpr rt::PerfModel update_columns_model{
    by_precision<T>("tile_slu_update", "tile_dlu_update", "tile_clu_update", "tile_zlu_update")};
template <Scalar T>
inline const rt::Codelet<rt::Span<ConstTile<T>>, rt::Vector<const int64_t>, int64_t,
                         rt::Span<Tile<T>>>
    update_columns{
        .name = by_precision<T>("slu_update", "dlu_update", "clu_update", "zlu_update"),
        .cpu = &update_columns_tiles<T>,
        .cuda = TESSERA_IF_CUDA(&update_columns_tiles_cuda<T>),
        .model = &update_columns_model<T>,
        .flops =
            [](rt::Span<ConstTile<T>> const& panel, rt::Vector<const int64_t> const&,
               int64_t const&, rt::Span<Tile<T>> const& block) {
                // trsm: kb^2 n / 2, gemm: (M - kb) kb n, for the block's n columns and M rows
                if (panel.size() == 0) return 0.0;
                double m = 0, n = 0;
                for (ConstTile<T> t : panel) m += double(t.m);
                for (std::size_t c = 0; c < block.size(); c += panel.size())
                    n += double(block[c].n);
                const double kb = double(panel[0].n);
                return fma_flops<T> * (kb * kb * n / 2 + (m - kb) * kb * n);
            },
    };

/// getri's last step on one tile row of inv(A): its columns swapped by every piece of the
/// interchanges, backward (inv(A) = inv(U) inv(L) P^T).
template <Scalar T>
void swap_columns_tiles(rt::Span<Tile<T>> row, rt::Span<rt::Vector<const int64_t>> pieces)
{
    if (row.size() == 0 || pieces.size() == 0) return;
    thread_local std::vector<kernels::cpu::RowTile<T>> tiles;
    tiles.clear();
    for (Tile<T> t : row) tiles.push_back({t.ptr, t.n, t.ld});
    const int64_t piece_size = pieces[0].n;
    for (auto k = int64_t(pieces.size()) - 1; k >= 0; --k) {
        rt::Vector<const int64_t> piece = pieces[std::size_t(k)];
        kernels::cpu::apply_column_swaps<T>(tiles, row[0].n, row[0].m, piece.ptr, piece.n,
                                            k * piece_size, kernels::cpu::SwapOrder::backward);
    }
}
template <Scalar T>
void swap_columns_tiles_cuda(rt::CudaContext const& cuda, rt::Span<Tile<T>> row,
                             rt::Span<rt::Vector<const int64_t>> pieces)
{
    if (row.size() == 0 || pieces.size() == 0) return;
    thread_local std::vector<kernels::cpu::RowTile<T>> tiles;
    tiles.clear();
    for (Tile<T> t : row) tiles.push_back({t.ptr, t.n, t.ld});
    kernels::cuda::apply_column_swaps<T>(cuda, tiles, row[0].n, row[0].m, swap_pieces(pieces),
                                         kernels::cpu::SwapOrder::backward);
}
template <Scalar T>
inline constexpr rt::PerfModel swap_columns_model{by_precision<T>(
    "tile_sgetri_swap", "tile_dgetri_swap", "tile_cgetri_swap", "tile_zgetri_swap")};
template <Scalar T>
inline const rt::Codelet<rt::Span<Tile<T>>, rt::Span<rt::Vector<const int64_t>>> swap_columns{
    .name = by_precision<T>("sgetri_swap", "dgetri_swap", "cgetri_swap", "zgetri_swap"),
    .cpu = &swap_columns_tiles<T>,
    .cuda = TESSERA_IF_CUDA(&swap_columns_tiles_cuda<T>),
    .model = &swap_columns_model<T>,
};

/// getri's split of a tile on or below the diagonal: l takes its part of the unit lower L
/// (strictly below the diagonal of the matrix: the whole tile off the diagonal), and that
/// part of a becomes zero, so that a holds the upper triangle inv(U) alone.
template <Scalar T> void take_lower_tile(Tile<T> a, Tile<T> l, bool diagonal)
{
    for (int64_t j = 0; j < a.n; ++j)
        for (int64_t i = 0; i < a.m; ++i) {
            if (diagonal && i <= j) {
                l(i, j) = T(i == j ? 1 : 0);
                continue;
            }
            l(i, j) = a(i, j);
            a(i, j) = T(0);
        }
}
template <Scalar T>
void take_lower_tile_cuda(rt::CudaContext const& cuda, Tile<T> a, Tile<T> l, bool diagonal)
{
    kernels::cuda::take_lower<T>(cuda, a.m, a.n, a.ptr, a.ld, l.ptr, l.ld, diagonal);
}
template <Scalar T>
inline const rt::Codelet<Tile<T>, Tile<T>, bool> take_lower{
    .name = by_precision<T>("sgetri_split", "dgetri_split", "cgetri_split", "zgetri_split"),
    .cpu = &take_lower_tile<T>,
    .cuda = TESSERA_IF_CUDA(&take_lower_tile_cuda<T>),
};

/// LU without pivoting of one diagonal tile (the tile LU of the seeds' examples); its tile sits
/// at row and column `offset` of the matrix.
template <Scalar T> void getrf_nopiv_tile(Tile<T> a, int64_t offset, InfoTarget info)
{
    const kernels::cpu::ColumnTile<T> tile{a.ptr, a.m, a.ld};
    const int64_t first_zero =
        kernels::cpu::getrf_panel<T>(std::span(&tile, 1), std::max<int64_t>(a.m, 1), a.n, nullptr,
                                     kernels::cpu::Pivoting::none, {});
    if (first_zero > 0) info.record(offset + first_zero);
}
/// The info comes back asynchronously: recorded by the worker once the stream work is done.
template <Scalar T>
void getrf_nopiv_tile_cuda(rt::CudaContext const& cuda, Tile<T> a, int64_t offset, InfoTarget info)
{
    kernels::cuda::getrf<T>(cuda, a.m, a.n, a.ptr, a.ld, nullptr,
                            [info, offset](int64_t i) { info.record(offset + i); });
}
template <Scalar T>
inline constexpr rt::PerfModel getrf_nopiv_model{by_precision<T>(
    "tile_sgetrf_nopiv", "tile_dgetrf_nopiv", "tile_cgetrf_nopiv", "tile_zgetrf_nopiv")};
template <Scalar T>
inline const rt::Codelet<Tile<T>, int64_t, InfoTarget> getrf_nopiv{
    .name = by_precision<T>("sgetrf_nopiv", "dgetrf_nopiv", "cgetrf_nopiv", "zgetrf_nopiv"),
    .cpu = &getrf_nopiv_tile<T>,
    .cuda = TESSERA_IF_CUDA(&getrf_nopiv_tile_cuda<T>),
    .model = &getrf_nopiv_model<T>,
    .flops =
        [](Tile<T> const& a, int64_t const&, InfoTarget const&) {
            return fma_flops<T> * lu_multiply_adds(double(a.m), double(a.n));
        },
};

}  // namespace tessera::la::cl
