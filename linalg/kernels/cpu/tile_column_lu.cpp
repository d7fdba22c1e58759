// The recursive LU of a tile column (see tile_column_lu.hpp). For columns [c, c + w) of the
// panel, rows [c, M) (LAPACK's getrf2):
//
//     w = 1:  p = argmax_{r >= c} |P(r, c)|; swap rows c and p (whole width);
//             P(c+1:M, c) /= P(c, c)
//     w > 1:  w1 = w / 2, w2 = w - w1
//             [P11; P21] = LU of columns [c, c + w1)                  (recursion)
//             P12 = L11^{-1} P12          rows [c, c + w1), columns [c + w1, c + w)   trsm
//             P22 = P22 - P21 P12         rows [c + w1, M)                            gemm
//             [P22] = LU of columns [c + w1, c + w)                   (recursion)
//
// The swaps of a column are applied to the whole width at once: those of the left half's
// columns are then already in the right half, and those of the right half reach back into
// the left one (LAPACK's getrf2 applies them afterwards with laswp; same result).
//
// Several ranks: each works on the rows of its own tiles (the search of its candidate, the
// scaling, the gemm); rank 0 owns tile 0, where rows [c, c + w1) of the trsm lie (the panel
// is at most one tile wide, and only the last tile can be shorter than nb). They meet after
// each search (to choose the pivot), after each swap (rank 0 swaps: its rows may lie in any
// tile) and after each trsm (whose result every gemm reads).
#include "linalg/kernels/cpu/tile_column_lu.hpp"

#include "linalg/kernels/cpu/blas_lapack.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

namespace tessera::la::kernels::cpu {
namespace {

template <Scalar T> double magnitude(T x) noexcept  // |Re| + |Im|, BLAS i?amax's measure
{
    if constexpr (is_complex_v<T>)
        return double(std::abs(x.real())) + double(std::abs(x.imag()));
    else
        return double(std::abs(x));
}

/// Thrown when the group's meeting reports that another rank failed; caught at the top.
struct GroupBroken {};

template <Scalar T> class PanelLU {
public:
    PanelLU(std::span<ColumnTile<T> const> tiles, int64_t nb, int64_t n, int64_t* ipiv,
            Pivoting pivoting, PanelRanks const& ranks)
        : tiles_(tiles), nb_(nb), n_(n), ipiv_(ipiv), pivoting_(pivoting), ranks_(ranks)
    {
        for (auto const& t : tiles_) m_ += t.rows;
    }

    int64_t run()
    {
        const int64_t kmin = std::min(m_, n_);
        if (kmin == 0) return 0;
        try {
            factor(0, kmin);
            if (kmin < n_ && ranks_.rank == 0)  // wide: U's columns right of the square part
                trsm(Side::left, Uplo::lower, Op::notrans, Diag::unit, kmin, n_ - kmin, T(1),
                     &at(0, 0), ld(0), &at(0, kmin), ld(0));
        } catch (GroupBroken const&) {
            return -1;
        }
        return first_zero_;
    }

private:
    T& at(int64_t r, int64_t c) const noexcept
    {
        ColumnTile<T> const& t = tiles_[std::size_t(r / nb_)];
        return t.ptr[r % nb_ + c * t.ld];
    }
    int64_t ld(int64_t r) const noexcept { return tiles_[std::size_t(r / nb_)].ld; }
    void meet() const
    {
        if (ranks_.size > 1 && !ranks_.meet()) throw GroupBroken{};
    }
    /// Calls f(first row, row count) for each of this rank's tiles' row ranges within [lo, M).
    template <class F> void for_my_rows(int64_t lo, F&& f) const
    {
        for (std::size_t i = ranks_.rank; i < tiles_.size(); i += ranks_.size) {
            const int64_t first = std::max(lo, int64_t(i) * nb_);
            const int64_t end = int64_t(i) * nb_ + tiles_[i].rows;
            if (first < end) f(first, end - first);
        }
    }

    void factor(int64_t c, int64_t w)
    {
        if (w == 1) return factor_column(c);
        const int64_t w1 = w / 2, w2 = w - w1;
        factor(c, w1);
        if (ranks_.rank == 0)
            trsm(Side::left, Uplo::lower, Op::notrans, Diag::unit, w1, w2, T(1), &at(c, c), ld(c),
                 &at(c, c + w1), ld(c));
        meet();
        for_my_rows(c + w1, [&](int64_t r, int64_t rows) {
            gemm(Op::notrans, Op::notrans, rows, w2, w1, T(-1), &at(r, c), ld(r), &at(c, c + w1),
                 ld(c), T(1), &at(r, c + w1), ld(r));
        });
        factor(c + w1, w2);
    }

    void factor_column(int64_t c)
    {
        if (pivoting_ == Pivoting::partial) {
            const int64_t p = choose_pivot(c);
            if (ranks_.rank == 0) {
                ipiv_[c] = p;
                if (p != c)  // across tiles: strides are the tiles' leading dimensions
                    swap(n_, &at(c, 0), ld(c), &at(p, 0), ld(p));
            }
            meet();
        }
        const T pivot = at(c, c);
        if (pivot == T(0)) {
            if (first_zero_ == 0) first_zero_ = c + 1;
            return;
        }
        using R = real_t<T>;
        const bool invertible = std::abs(pivot) >= std::numeric_limits<R>::min();
        for_my_rows(c + 1, [&](int64_t r, int64_t rows) {
            if (invertible) {  // LAPACK's getf2: one reciprocal unless it would overflow
                scal(rows, T(1) / pivot, &at(r, c), 1);
            } else {
                for (int64_t i = 0; i < rows; ++i) at(r + i, c) /= pivot;
            }
        });
    }

    /// The row of largest |Re| + |Im| in column c among rows [c, M), the first on ties.
    int64_t choose_pivot(int64_t c) const
    {
        PivotCandidate mine;
        for_my_rows(c, [&](int64_t r, int64_t rows) {
            const int64_t i = iamax(rows, &at(r, c), 1);
            const double v = magnitude(at(r + i, c));
            if (mine.row < 0 || v > mine.magnitude)
                mine = {v, r + i};  // tiles in row order: first wins
        });
        if (ranks_.size == 1) return mine.row;
        ranks_.search->slots[ranks_.rank].candidate = mine;
        meet();
        PivotCandidate best;
        for (unsigned q = 0; q < ranks_.size; ++q) {
            PivotCandidate const& x = ranks_.search->slots[q].candidate;
            if (x.row < 0) continue;
            if (best.row < 0 || x.magnitude > best.magnitude ||
                (x.magnitude == best.magnitude && x.row < best.row))
                best = x;
        }
        return best.row;  // the slots are next written after the meeting that follows the swap
    }

    std::span<ColumnTile<T> const> tiles_;
    int64_t nb_, n_, m_ = 0;
    int64_t* ipiv_;
    Pivoting pivoting_;
    PanelRanks ranks_;
    int64_t first_zero_ = 0;
};

}  // namespace

template <Scalar T>
int64_t getrf_panel(std::span<ColumnTile<T> const> tiles, int64_t nb, int64_t n, int64_t* ipiv,
                    Pivoting pivoting, PanelRanks const& ranks)
{
    return PanelLU<T>(tiles, nb, n, ipiv, pivoting, ranks).run();
}

template <Scalar T>
void apply_row_swaps(std::span<ColumnTile<T> const> tiles, int64_t nb, int64_t n,
                     int64_t const* ipiv, int64_t count, int64_t pivots_first, int64_t column_first,
                     SwapOrder order)
{
    // By blocks of columns, as LAPACK's laswp: a row is n entries ld apart, one cache line each,
    // so swapping whole rows one after the other would reload every line once per swap. A block
    // of columns of the rows it touches stays in cache while all the swaps go through it: 768
    // swaps on 768 columns of 8000 rows take 2.9 ms by blocks of 8, 3.2 ms by LAPACK's 32, 6.0
    // ms column by column (one core).
    constexpr int64_t block = 8;
    auto row =
        [&](int64_t r) -> std::pair<T*, int64_t> {  // row r of the column: its first entry, stride
        ColumnTile<T> const& t = tiles[std::size_t(r / nb)];
        return {t.ptr + r % nb, t.ld};
    };
    for (int64_t j0 = 0; j0 < n; j0 += block) {
        const int64_t j1 = std::min(n, j0 + block);
        for (int64_t step = 0; step < count; ++step) {
            const int64_t i = order == SwapOrder::forward ? step : count - 1 - step;
            const int64_t r = pivots_first + i - column_first, p = ipiv[i] - 1 - column_first;
            if (p == r) continue;
            auto [x, ldx] = row(r);
            auto [y, ldy] = row(p);
            for (int64_t j = j0; j < j1; ++j) std::swap(x[j * ldx], y[j * ldy]);
        }
    }
}

template <Scalar T>
void apply_column_swaps(std::span<RowTile<T> const> tiles, int64_t nb, int64_t m,
                        int64_t const* ipiv, int64_t count, int64_t pivots_first, SwapOrder order)
{
    auto column = [&](int64_t c) {
        RowTile<T> const& t = tiles[std::size_t(c / nb)];
        return t.ptr + (c % nb) * t.ld;
    };
    for (int64_t step = 0; step < count; ++step) {
        const int64_t i = order == SwapOrder::forward ? step : count - 1 - step;
        const int64_t c = pivots_first + i, p = ipiv[i] - 1;
        if (p != c) swap(m, column(c), 1, column(p), 1);
    }
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template int64_t getrf_panel<T>(std::span<ColumnTile<T> const>, int64_t, int64_t, int64_t*,    \
                                    Pivoting, PanelRanks const&);                                  \
    template void apply_row_swaps<T>(std::span<ColumnTile<T> const>, int64_t, int64_t,             \
                                     int64_t const*, int64_t, int64_t, int64_t, SwapOrder);        \
    template void apply_column_swaps<T>(std::span<RowTile<T> const>, int64_t, int64_t,             \
                                        int64_t const*, int64_t, int64_t, SwapOrder);
TESSERA_INSTANTIATE(float)
TESSERA_INSTANTIATE(double)
TESSERA_INSTANTIATE(std::complex<float>)
TESSERA_INSTANTIATE(std::complex<double>)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::la::kernels::cpu
