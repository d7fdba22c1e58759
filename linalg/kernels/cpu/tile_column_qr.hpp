// Householder QR of a tile column in LAPACK's compact form: the kernel of the compact QR's
// panel (LAPACK's recursive geqrt3, Elmroth and Gustavson's recursive QR) over tiles that need
// not be contiguous in memory, run by the ranks of one parallel task, each on the rows of its
// own tiles. Pure kernels: the ranks meet through the function they are given (PanelRanks).
// Internal.
#pragma once

#include "linalg/kernels/cpu/tile_column_lu.hpp"

#include <tessera/la/scalar.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace tessera::la::kernels::cpu {

/// Where the ranks of one QR panel exchange their partial products (n1 x n2 blocks of V^H A)
/// and norms: a slot per rank, two sets used in turn, so that one meeting per exchange
/// suffices (a rank reads set p while the fastest already writes set p + 1, never p + 2).
template <Scalar T> struct PanelSums {
    static constexpr unsigned max_ranks = PivotSearch::max_ranks;
    struct alignas(64) Slot {
        std::vector<T> part[2];
    };
    Slot slots[max_ranks];
};

/// Factors the panel P = [tiles[0]; tiles[1]; ...] (M rows of nb-row tiles, n columns, M >= n,
/// tiles[0] holding at least n rows) in place: P = (I - V T V^H) [R; 0], R upper triangular in
/// the top n rows, V unit lower trapezoidal below the diagonal (its unit diagonal not stored),
/// each reflector as LAPACK's larfg makes it (beta = -sign(Re alpha) ||(alpha, x)||), and the
/// n x n upper triangular T in t (leading dimension ldt), whose diagonal holds the taus.
/// Every rank calls it with the same arguments; rank r works on the tiles
/// [ceil(r count / size), ceil((r + 1) count / size)) (rank 0 on tile 0), and rank 0 alone
/// writes t. `sums` is needed when size > 1. Returns false when another rank failed
/// (the group's meeting said so).
template <Scalar T>
bool geqrf_panel(std::span<ColumnTile<T> const> tiles, int64_t n, T* t, int64_t ldt,
                 PanelRanks const& ranks, PanelSums<T>* sums);

}  // namespace tessera::la::kernels::cpu
