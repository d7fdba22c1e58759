// What a tile algorithm tells a distributed run once it has submitted the last task that
// reads a tile before the tile is written again (a panel after its trailing update): the
// ranks forget their copies of the tile, and give back the memory of those they keep for
// other ranks' tiles (mpi::Context::release). Without MPI, nothing. Every rank submits the
// same flow, so every rank makes the same calls. Internal.
#pragma once

#include <tessera/la/tile_matrix.hpp>

#include <cstdint>

namespace tessera::inline la::detail {

/// The tiles [i0, i1) x [j0, j1) of A will not be read again before they are written.
template <Scalar T>
void release_copies(TileMatrix<T> const& A, int64_t i0, int64_t i1, int64_t j0, int64_t j1);

}  // namespace tessera::inline la::detail
