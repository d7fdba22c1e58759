// On cores alone, the LAPACK-style calls whose columns are independent problems (gemm's C,
// potrs's and posv's B) give each worker one strip of them: one tall BLAS call per core, as a
// multithreaded BLAS splits its operand among its threads, where tiles would cost OpenBLAS its
// packing amortization and the cores their waits on each other (docs/tile-size.md). Tiles
// stay for accelerators, whose units differ and need more tasks to balance, and when the
// caller set a tile size. Internal.
#pragma once

#include <tessera/la/context.hpp>
#include <tessera/rt/runtime.hpp>

#include <algorithm>
#include <cstdint>

namespace tessera::la::detail {

/// The width of one strip per worker of `count` independent columns (or rows), when the
/// runtime has cores alone, the tile size is automatic and each strip gets at least 16 of
/// them; 0 when tiles should be used instead.
inline int64_t strip_width(rt::Runtime& rt, int64_t count)
{
    const int64_t workers = std::max<int64_t>(1, rt.worker_count());
    if (rt.memory_nodes().size() != 1 || tile_size_is_set() || count < 16 * workers) return 0;
    return (count + workers - 1) / workers;
}

}  // namespace tessera::la::detail
