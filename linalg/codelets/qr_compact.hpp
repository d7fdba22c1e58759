// Codelets of the QR in LAPACK's compact form (geqrf's A and tau): each reflector's vector
// runs from its diagonal entry to the last row, so a panel of kb columns is factored whole
// (rows k nb to m, one task) and applied as one block reflector Q = I - V T V^H with its full
// kb x kb factor T (the inner dimension of the update's gemms is kb). The tasks take grids of
// tiles; where a grid lies in one column-major array (a LAPACK array tiled in place) the
// kernel works on it directly, else on a copy in the worker's buffer (tiles of an emulated
// device's memory). The panels and the block updates, the bulk of the flops, also run on GPUs
// (gathered into the workspace there: cuSOLVER's geqrf and larft, our gemqrt); the scheduler
// places each by its model; so does T from V and tau alone (qr_factor: cuSOLVER's larft);
// orgqr's panel (qr_form_panel) stays on the cores. Internal.
#pragma once

#include "linalg/codelets/lu.hpp"  // column_tiles
#include "linalg/codelets/qr.hpp"
#include "linalg/kernels/cpu/tile_column_qr.hpp"

#include <tessera/rt/span.hpp>

#include <memory>
#include <span>
#include <type_traits>
#include <vector>

namespace tessera::la::cl {

/// A grid of tiles (tile (a, b) at tiles[a + b grid_m]) as one m x n column-major array: the
/// tiles' own array when they lie in one, else a copy in `buffer`; store() copies it back.
template <class Elem> class GridArray {
public:
    using Mutable = std::remove_const_t<Elem>;

    template <class Tiles>
    GridArray(Tiles const& tiles, std::size_t grid_m, std::vector<Mutable>& buffer)
    {
        const std::size_t grid_n = grid_m ? tiles.size() / grid_m : 0;
        for (std::size_t a = 0; a < grid_m; ++a) m += tiles[a].m;
        for (std::size_t b = 0; b < grid_n; ++b) n += tiles[b * grid_m].n;
        if (m == 0 || n == 0) return;
        auto const first = tiles[0];
        bool one_array = true;
        int64_t column = 0;
        for (std::size_t b = 0; b < grid_n && one_array; ++b) {
            int64_t row = 0;
            for (std::size_t a = 0; a < grid_m && one_array; ++a) {
                auto const t = tiles[a + b * grid_m];
                one_array = t.ld == first.ld && t.ptr == first.ptr + row + column * first.ld;
                row += t.m;
            }
            column += tiles[b * grid_m].n;
        }
        if (one_array) {
            ptr = first.ptr;
            ld = first.ld;
            return;
        }
        buffer.resize(std::size_t(m * n));
        ptr = buffer.data();
        ld = m;
        places_.reserve(tiles.size());
        column = 0;
        for (std::size_t b = 0; b < grid_n; ++b) {
            int64_t row = 0;
            for (std::size_t a = 0; a < grid_m; ++a) {
                auto const t = tiles[a + b * grid_m];
                places_.push_back({t.ptr, t.m, t.n, t.ld, ptr + row + column * ld});
                kernels::cpu::lacpy(t.m, t.n, t.ptr, t.ld,
                                    const_cast<Mutable*>(places_.back().copy), ld);
                row += t.m;
            }
            column += tiles[b * grid_m].n;
        }
    }
    /// Copies the array back into the tiles (nothing to do when it is theirs).
    void store() const requires(!std::is_const_v<Elem>)
    {
        for (Place const& p : places_) kernels::cpu::lacpy(p.m, p.n, p.copy, ld, p.tile, p.ld);
    }

    Elem* ptr = nullptr;
    int64_t m = 0, n = 0, ld = 1;

private:
    struct Place {
        Elem* tile;
        int64_t m, n, ld;
        Elem* copy;
    };
    std::vector<Place> places_;
};

/// A worker's buffer for the grid of role `Role` of a task (a task gathers up to two grids).
template <Scalar T, int Role> std::vector<T>& grid_buffer()
{
    thread_local std::vector<T> buffer;
    return buffer;
}

// ---- the panel: [A(k,k); ...; A(mt-1,k)] = Q R, Q = I - V T V^H ---------------------------------
/// Where the ranks of one panel task add up their partial products: allocated per panel at
/// submission, shared by the ranks through the task's copy.
template <Scalar T> using PanelSumsRef = std::shared_ptr<kernels::cpu::PanelSums<T>>;

/// Factors the tile column (rows from the diagonal down) and writes its kb x kb factor T and
/// its taus (T's diagonal: LAPACK's compact form). One SPMD task: the ranks share the rows
/// (tile_column_qr.hpp). A panel shorter than wide (a wide matrix's last) is one tile:
/// LAPACK's geqrt on it, by rank 0.
template <Scalar T>
void qr_panel_tiles(rt::Span<Tile<T>> column, Tile<T> t, rt::Vector<T> tau, PanelSumsRef<T> sums)
{
    if (column.size() == 0) return;
    const int64_t kb = column[0].n;
    const kernels::cpu::PanelRanks ranks{rt::parallel_rank(), rt::parallel_size(),
                                         &rt::parallel_barrier, nullptr};
    if (column[0].m < kb) {
        if (ranks.rank != 0) return;
        Tile<T> a = column[0];
        kernels::cpu::geqrt<T>(a.m, kb, a.m, a.ptr, a.ld, t.ptr,
                               t.ld);  // ib = k: one block, T whole
        for (int64_t i = 0; i < a.m; ++i) tau[i] = t(i, i);
        return;
    }
    if (!kernels::cpu::geqrf_panel<T>(column_tiles<T>(column), kb, t.ptr, t.ld, ranks, sums.get()))
        return;
    if (ranks.rank == 0)
        for (int64_t i = 0; i < kb; ++i) tau[i] = t(i, i);
}
/// On a GPU: the column gathered into the workspace, cuSOLVER's geqrf and larft there, the
/// column written back (kernels/cuda/tile_qr). One worker: the SPMD ranks are the cores'.
template <Scalar T>
void qr_panel_tiles_cuda(rt::CudaContext const& cuda, rt::Span<Tile<T>> column, Tile<T> t,
                         rt::Vector<T> tau, PanelSumsRef<T>)
{
    if (column.size() == 0) return;
    thread_local std::vector<kernels::cuda::GridTile<T>> tiles;
    tiles.clear();
    for (Tile<T> tile : column) tiles.push_back({tile.ptr, tile.m, tile.n, tile.ld});
    kernels::cuda::geqrf_panel<T>(cuda, tiles, column[0].n, t.ptr, t.ld, tau.ptr);
}
template <Scalar T>
inline constexpr rt::PerfModel qr_panel_model{by_precision<T>(
    "tile_sgeqrf_panel", "tile_dgeqrf_panel", "tile_cgeqrf_panel", "tile_zgeqrf_panel")};
template <Scalar T>
inline const rt::Codelet<rt::Span<Tile<T>>, Tile<T>, rt::Vector<T>, PanelSumsRef<T>> qr_panel{
    .name = by_precision<T>("sgeqrf_panel", "dgeqrf_panel", "cgeqrf_panel", "zgeqrf_panel"),
    .cpu = &qr_panel_tiles<T>,
    .cuda = TESSERA_IF_CUDA(&qr_panel_tiles_cuda<T>),
    .model = &qr_panel_model<T>,
    .flops =
        [](rt::Span<Tile<T>> const& column, Tile<T> const&, rt::Vector<T> const&,
           PanelSumsRef<T> const&) {
            double m = 0;
            for (Tile<T> a : column) m += double(a.m);
            return fma_flops<T> * qr_multiply_adds(m, column.size() ? double(column[0].n) : 0.0);
        },
    .type = rt::ParallelKind::spmd,
    .max_parallelism = kernels::cpu::PanelSums<T>::max_ranks,
};

// ---- T from V and tau (ormqr, orgqr: the compact form has no T) --------------------------------
template <Scalar T>
void qr_factor_tiles(rt::Span<ConstTile<T>> panel, rt::Vector<const T> tau, Tile<T> t,
                     int64_t reflectors)
{
    GridArray<const T> v(panel, panel.size(), grid_buffer<T, 0>());
    kernels::cpu::larft<T>(v.m, reflectors, v.ptr, v.ld, tau.ptr, t.ptr, t.ld);
}
/// On a GPU: the reflectors gathered into the workspace, cuSOLVER's larft there.
template <Scalar T>
void qr_factor_tiles_cuda(rt::CudaContext const& cuda, rt::Span<ConstTile<T>> panel,
                          rt::Vector<const T> tau, Tile<T> t, int64_t reflectors)
{
    thread_local std::vector<kernels::cuda::GridTile<T const>> tiles;
    tiles.clear();
    for (ConstTile<T> tile : panel) tiles.push_back({tile.ptr, tile.m, tile.n, tile.ld});
    kernels::cuda::larft_tiles<T>(cuda, tiles, reflectors, tau.ptr, t.ptr, t.ld);
}
template <Scalar T>
inline const rt::Codelet<rt::Span<ConstTile<T>>, rt::Vector<const T>, Tile<T>, int64_t> qr_factor{
    .name = by_precision<T>("slarft", "dlarft", "clarft", "zlarft"),
    .cpu = &qr_factor_tiles<T>,
    .cuda = TESSERA_IF_CUDA(&qr_factor_tiles_cuda<T>),
};

// ---- a block of C = op(Q) C (left) or C op(Q) (right), Q = I - V T V^H -------------------------
/// `panel` holds V (its first `reflectors` columns), rows from its diagonal down; `block` is a
/// grid of C's tiles of grid_m tile rows: for the left side, the rows V reaches; for the right,
/// the columns.
template <Scalar T>
void qr_update_tiles(Side side, Op op, rt::Span<ConstTile<T>> panel, ConstTile<T> t,
                     int64_t reflectors, rt::Span<Tile<T>> block, int64_t grid_m)
{
    GridArray<const T> v(panel, panel.size(), grid_buffer<T, 0>());
    GridArray<T> c(block, std::size_t(grid_m), grid_buffer<T, 1>());
    if (c.m == 0 || c.n == 0 || reflectors == 0) return;
    kernels::cpu::gemqrt<T>(side, op, c.m, c.n, reflectors, reflectors, v.ptr, v.ld, t.ptr, t.ld,
                            c.ptr, c.ld);
    c.store();
}
/// On a GPU: V and the block gathered into the workspace, one gemqrt there, the block written
/// back (kernels/cuda/tile_qr).
template <Scalar T>
void qr_update_tiles_cuda(rt::CudaContext const& cuda, Side side, Op op,
                          rt::Span<ConstTile<T>> panel, ConstTile<T> t, int64_t reflectors,
                          rt::Span<Tile<T>> block, int64_t grid_m)
{
    thread_local std::vector<kernels::cuda::GridTile<T const>> v;
    thread_local std::vector<kernels::cuda::GridTile<T>> c;
    v.clear();
    c.clear();
    for (ConstTile<T> tile : panel) v.push_back({tile.ptr, tile.m, reflectors, tile.ld});
    for (Tile<T> tile : block) c.push_back({tile.ptr, tile.m, tile.n, tile.ld});
    if (grid_m <= 0) return;
    kernels::cuda::gemqrt_tiles<T>(cuda, side, op, v, reflectors, t.ptr, t.ld, c,
                                   std::size_t(grid_m));
}
template <Scalar T>
inline constexpr rt::PerfModel qr_update_model{by_precision<T>(
    "tile_sgeqrf_update", "tile_dgeqrf_update", "tile_cgeqrf_update", "tile_zgeqrf_update")};
template <Scalar T>
inline const rt::Codelet<Side, Op, rt::Span<ConstTile<T>>, ConstTile<T>, int64_t, rt::Span<Tile<T>>,
                         int64_t>
    qr_update{
        .name = by_precision<T>("sgeqrf_update", "dgeqrf_update", "cgeqrf_update", "zgeqrf_update"),
        .cpu = &qr_update_tiles<T>,
        .cuda = TESSERA_IF_CUDA(&qr_update_tiles_cuda<T>),
        .model = &qr_update_model<T>,
        .flops =
            [](Side const& side, Op const&, rt::Span<ConstTile<T>> const& panel,
               ConstTile<T> const&, int64_t const& reflectors, rt::Span<Tile<T>> const& block,
               int64_t const& grid_m) {
                double length = 0, width = 0;
                for (ConstTile<T> v : panel) length += double(v.m);
                const auto gm = std::size_t(std::max<int64_t>(grid_m, 1));
                if (side == Side::left)
                    for (std::size_t b = 0; b < block.size(); b += gm) width += double(block[b].n);
                else
                    for (std::size_t a = 0; a < gm && a < block.size(); ++a)
                        width += double(block[a].m);
                return fma_flops<T> * reflector_multiply_adds(length, width, double(reflectors));
            },
    };

// ---- orgqr's panel: the tile column of Q from its own reflectors -------------------------------
/// `column` is the whole tile column (every tile row); its reflectors start at tile row
/// `first`: the tiles above become zero, the others H_1 ... H_k [I; 0] (LAPACK's org2r on the
/// panel, once the panels to its right have been applied to the columns right of it).
template <Scalar T>
void qr_form_panel_tiles(rt::Span<Tile<T>> column, rt::Vector<const T> tau, int64_t first,
                         int64_t reflectors)
{
    for (std::size_t i = 0; i < std::size_t(first) && i < column.size(); ++i) {
        Tile<T> a = column[i];
        for (int64_t j = 0; j < a.n; ++j)
            for (int64_t r = 0; r < a.m; ++r) a(r, j) = T(0);
    }
    const auto below = column.size() > std::size_t(first) ? column.size() - std::size_t(first) : 0;
    std::vector<Tile<T>> tiles;
    tiles.reserve(below);
    for (std::size_t i = std::size_t(first); i < column.size(); ++i) tiles.push_back(column[i]);
    GridArray<T> a(std::span<Tile<T> const>(tiles), tiles.size(), grid_buffer<T, 0>());
    if (a.m == 0 || a.n == 0) return;
    kernels::cpu::ungqr<T>(a.m, a.n, reflectors, a.ptr, a.ld, tau.ptr);
    a.store();
}
template <Scalar T>
inline const rt::Codelet<rt::Span<Tile<T>>, rt::Vector<const T>, int64_t, int64_t> qr_form_panel{
    .name = by_precision<T>("sorgqr_panel", "dorgqr_panel", "cungqr_panel", "zungqr_panel"),
    .cpu = &qr_form_panel_tiles<T>,
};

}  // namespace tessera::la::cl
