// LU of a tile column and its row interchanges: the kernels of the tile LU's panel (LAPACK's
// recursive getrf2, Toledo's recursive LU) over tiles that need not be contiguous in memory,
// run by the ranks of one parallel task (PLASMA's and SLATE's panel). Pure kernels: the ranks
// meet through a function they are given. Internal.
#pragma once

#include <tessera/la/scalar.hpp>

#include <cstdint>
#include <span>

namespace tessera::la::kernels::cpu {

/// One tile of a tile column: `rows` rows of the column's width, column-major with leading
/// dimension ld. Every tile of a column has the same number of rows (nb) but the last.
template <Scalar T> struct ColumnTile {
    T* ptr = nullptr;
    int64_t rows = 0;
    int64_t ld = 1;
};

/// A rank's best pivot candidate of one column: its largest |Re| + |Im| and its row (-1: none).
struct PivotCandidate {
    double magnitude = -1;
    int64_t row = -1;
};

/// Where the ranks of one panel task exchange their candidates: one slot per rank, each on its
/// own cache line.
struct PivotSearch {
    static constexpr unsigned max_ranks = 64;
    struct alignas(64) Slot {
        PivotCandidate candidate;
    };
    Slot slots[max_ranks];
};

/// The group of ranks factoring one panel together. Tile i belongs to rank i % size. `meet`
/// is the group's barrier: it returns false when another rank failed, and the kernel then
/// returns at once.
struct PanelRanks {
    unsigned rank = 0, size = 1;
    bool (*meet)() = nullptr;       ///< nullptr when size == 1
    PivotSearch* search = nullptr;  ///< needed when size > 1
};

enum class Pivoting : uint8_t { partial, none };

/// Factors the panel P = [tiles[0]; tiles[1]; ...] (M rows of nb-row tiles, n columns) in place:
/// P = Perm L U with L unit lower trapezoidal (M x min(M, n)) and U upper (min(M, n) x n), as
/// LAPACK's getrf2: recursively on halves of the columns, pivots chosen per column by the
/// largest |Re| + |Im| (the first such row on ties), rows swapped across the panel's whole
/// width. ipiv[i] (i < min(M, n)) = the panel row (from 0) swapped with row i. With
/// Pivoting::none no row is swapped (ipiv may be null). Returns the first column (from 1)
/// whose pivot is exactly zero, or 0; the factorization goes on past it, as LAPACK's does
/// (with Pivoting::none the columns below it are then not scaled). Every rank calls it with
/// the same arguments and returns the same value; rank 0 writes ipiv. Returns -1 when
/// another rank failed (the group's meeting said so).
template <Scalar T>
int64_t getrf_panel(std::span<ColumnTile<T> const> tiles, int64_t nb, int64_t n, int64_t* ipiv,
                    Pivoting pivoting, PanelRanks const& ranks);

/// The order in which interchanges are applied: LAPACK's laswp with incx = 1 (P^T B, before
/// the solves with L and U) or incx = -1 (P B, after the transposed solves).
enum class SwapOrder : uint8_t { forward, backward };

/// Applies `count` interchanges of ipiv to a tile column of width n (M rows of nb-row tiles,
/// the column's first row being row `column_first` of the matrix): entry i swaps matrix rows
/// `pivots_first` + i and ipiv[i] - 1 (ipiv holds rows of the whole matrix from 1, as
/// LAPACK's), for i = 0, 1, ... (forward) or count - 1, ..., 0 (backward).
template <Scalar T>
void apply_row_swaps(std::span<ColumnTile<T> const> tiles, int64_t nb, int64_t n,
                     int64_t const* ipiv, int64_t count, int64_t pivots_first, int64_t column_first,
                     SwapOrder order);

/// One tile of a tile row: `cols` columns of the row's height, leading dimension ld. Every tile
/// of a row has the same number of columns (nb) but the last.
template <Scalar T> struct RowTile {
    T* ptr = nullptr;
    int64_t cols = 0;
    int64_t ld = 1;
};

/// Applies interchanges to the columns of a tile row of height m (getri's inv(A) = inv(U)
/// inv(L) P^T): entry i swaps columns `pivots_first` + i and ipiv[i] - 1 (from the row's
/// first column), in the given order. A column is contiguous: each swap is one BLAS swap.
template <Scalar T>
void apply_column_swaps(std::span<RowTile<T> const> tiles, int64_t nb, int64_t m,
                        int64_t const* ipiv, int64_t count, int64_t pivots_first, SwapOrder order);

}  // namespace tessera::la::kernels::cpu
