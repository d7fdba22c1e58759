// tile_lu.hpp over the kernels of interchanges.cu and cuSOLVER's getrf (the panel, gathered
// into one column-major array of the workspace: cuSOLVER takes no tile list). The kernels take
// the tile list in GPU memory: it is written into the task's page-locked host scratch (256
// tiles fit) and copied into the workspace on the stream, once per task however many pieces
// follow. A longer list goes through the heap, pageable, whose copy makes the call wait for
// the stream.
#include "linalg/kernels/cuda/tile_lu.hpp"

#include "linalg/instantiate.hpp"
#include "linalg/kernels/cuda/blas_lapack.hpp"
#include "linalg/kernels/cuda/interchanges.hpp"

#include <tessera/rt/cuda.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace tessera::la::kernels::cuda {
namespace {

/// The list of `count` tiles that `tile(i)` gives, in the task's workspace on the GPU.
template <class TileAt>
DeviceTile const* tiles_on_gpu(rt::CudaContext const& ctx, std::size_t count, TileAt tile)
{
    const std::size_t bytes = count * sizeof(DeviceTile);
    auto* device = static_cast<DeviceTile*>(ctx.workspace(bytes));
    DeviceTile* host;
    std::shared_ptr<std::vector<DeviceTile>> heap;
    if (bytes <= rt::CudaContext::host_scratch_bytes) {
        host = static_cast<DeviceTile*>(ctx.host_scratch(bytes));
    } else {
        heap = std::make_shared<std::vector<DeviceTile>>(count);
        host = heap->data();
        ctx.at_completion([heap] {});  // alive until the stream has passed the copy
    }
    for (std::size_t i = 0; i < count; ++i) host[i] = tile(i);
    rt::cuda_check(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, ctx.stream),
                   "cudaMemcpyAsync (the tile list)");
    return device;
}

/// The pieces in the order they apply: as given (forward) or the last first (backward).
std::vector<SwapPiece> in_order(std::span<SwapPiece const> pieces, cpu::SwapOrder order)
{
    std::vector<SwapPiece> ordered(pieces.begin(), pieces.end());
    if (order == cpu::SwapOrder::backward) std::reverse(ordered.begin(), ordered.end());
    return ordered;
}

}  // namespace

template <Scalar T>
void apply_row_swaps(rt::CudaContext const& ctx, std::span<cpu::ColumnTile<T> const> tiles,
                     std::span<int64_t const> widths, int64_t nb, std::span<SwapPiece const> pieces,
                     int64_t column_first, cpu::SwapOrder order)
{
    if (tiles.empty() || widths.empty() || pieces.empty()) return;
    DeviceTile const* list = tiles_on_gpu(ctx, tiles.size(), [&](std::size_t i) {
        return DeviceTile{tiles[i].ptr, tiles[i].ld};
    });
    const std::size_t rows = tiles.size() / widths.size();
    for (SwapPiece const& p : in_order(pieces, order))
        for (std::size_t c = 0; c < widths.size(); ++c)
            if (widths[c] > 0)
                rt::cuda_check(swap_rows(ctx.stream, sizeof(T), list + c * rows, int64_t(rows), nb,
                                         widths[c], p.ipiv, p.count, p.first, column_first,
                                         order == cpu::SwapOrder::forward),
                               "swap_rows_kernel");
}

template <Scalar T>
void apply_column_swaps(rt::CudaContext const& ctx, std::span<cpu::RowTile<T> const> tiles,
                        int64_t nb, int64_t m, std::span<SwapPiece const> pieces,
                        cpu::SwapOrder order)
{
    if (tiles.empty() || m == 0 || pieces.empty()) return;
    DeviceTile const* list = tiles_on_gpu(ctx, tiles.size(), [&](std::size_t i) {
        return DeviceTile{tiles[i].ptr, tiles[i].ld};
    });
    for (SwapPiece const& p : in_order(pieces, order))
        rt::cuda_check(swap_columns(ctx.stream, sizeof(T), list, int64_t(tiles.size()), nb, m,
                                    p.ipiv, p.count, p.first, order == cpu::SwapOrder::forward),
                       "swap_columns_kernel");
}

template <Scalar T>
void getrf_panel(rt::CudaContext const& ctx, std::span<cpu::ColumnTile<T> const> tiles, int64_t n,
                 int64_t* ipiv, int64_t shift, std::function<void(int64_t)> report)
{
    int64_t m = 0;
    for (auto const& t : tiles) m += t.rows;
    if (m == 0 || n == 0) return;
    const int64_t k = std::min(m, n);
    // one workspace request: [cuSOLVER's | the panel, m x n, ld m | its int pivots]
    constexpr std::size_t align = 256;
    const std::size_t solver = getrf_workspace_bytes<T>(ctx, m, n, tiles[0].ptr, m);
    const std::size_t panel_bytes = (std::size_t(m * n) * sizeof(T) + align - 1) / align * align;
    auto* ws =
        static_cast<std::byte*>(ctx.workspace(solver + panel_bytes + std::size_t(k) * sizeof(int)));
    T* panel = reinterpret_cast<T*>(ws + solver);
    int* pivots = reinterpret_cast<int*>(ws + solver + panel_bytes);
    // each tile's rows to their place in the panel, and back after
    auto copy_tiles = [&](bool gather) {
        int64_t row = 0;
        for (auto const& t : tiles) {
            T* in_panel = panel + row;
            const std::size_t panel_pitch = std::size_t(m) * sizeof(T),
                              tile_pitch = std::size_t(t.ld) * sizeof(T);
            const std::size_t width = std::size_t(t.rows) * sizeof(T);
            const cudaError_t e =
                gather ? cudaMemcpy2DAsync(in_panel, panel_pitch, t.ptr, tile_pitch, width,
                                           std::size_t(n), cudaMemcpyDeviceToDevice, ctx.stream)
                       : cudaMemcpy2DAsync(t.ptr, tile_pitch, in_panel, panel_pitch, width,
                                           std::size_t(n), cudaMemcpyDeviceToDevice, ctx.stream);
            rt::cuda_check(e, "cudaMemcpy2DAsync (the panel's tiles)");
            row += t.rows;
        }
    };
    copy_tiles(true);
    getrf<T>(ctx, m, n, panel, m, pivots, std::move(report), ws);
    copy_tiles(false);
    rt::cuda_check(widen_pivots(ctx.stream, pivots, ipiv, k, shift), "widen_pivots_kernel");
}

template <Scalar T>
void take_lower(rt::CudaContext const& ctx, int64_t m, int64_t n, T* a, int64_t lda, T* l,
                int64_t ldl, bool diagonal)
{
    const T one(1);
    rt::cuda_check(cuda::take_lower(ctx.stream, sizeof(T), m, n, a, lda, l, ldl, diagonal, &one),
                   "take_lower_kernel");
}

#define TESSERA_INSTANTIATE_TILE_LU(T)                                                             \
    template void apply_row_swaps<T>(rt::CudaContext const&, std::span<cpu::ColumnTile<T> const>,  \
                                     std::span<int64_t const>, int64_t,                            \
                                     std::span<SwapPiece const>, int64_t, cpu::SwapOrder);         \
    template void apply_column_swaps<T>(rt::CudaContext const&, std::span<cpu::RowTile<T> const>,  \
                                        int64_t, int64_t, std::span<SwapPiece const>,              \
                                        cpu::SwapOrder);                                           \
    template void take_lower<T>(rt::CudaContext const&, int64_t, int64_t, T*, int64_t, T*,         \
                                int64_t, bool);                                                    \
    template void getrf_panel<T>(rt::CudaContext const&, std::span<cpu::ColumnTile<T> const>,      \
                                 int64_t, int64_t*, int64_t, std::function<void(int64_t)>);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE_TILE_LU)
#undef TESSERA_INSTANTIATE_TILE_LU

}  // namespace tessera::la::kernels::cuda
