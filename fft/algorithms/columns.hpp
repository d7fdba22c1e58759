// Stage 1 alone: the column DFTs of a matrix, one task per tile column; the batched 1D
// transforms of the plans (each column one transform). Internal.
#pragma once

#include <tessera/fft/fft2d.hpp>

namespace tessera::fft::detail {

/// out's columns = the DFTs of in's (in may be out itself, then in place); in and out of one
/// size and tile size.
template <Real R>
void columns_async(Sign sign, TileMatrix<std::complex<R>> const& in,
                   TileMatrix<std::complex<R>>& out, Sequence& s);

}  // namespace tessera::fft::detail
