// The recursive QR of a tile column (see tile_column_qr.hpp). For columns [j, j + w) of the
// panel, rows [j, M) (LAPACK's geqrt3):
//
//     w = 1:  the reflector of column j (larfg): beta = -sign(Re alpha) ||(alpha, x)||,
//             tau = (beta - alpha) / beta, x /= (alpha - beta), P(j, j) = beta, T(j, j) = tau
//     w > 1:  w1 = w / 2, w2 = w - w1, V1 the reflectors of the left half
//             QR of columns [j, j + w1)                                    (recursion)
//             W = T1^H V1^H P2,  P2 = P2 - V1 W      P2: columns [j + w1, j + w), rows [j, M)
//             QR of columns [j + w1, j + w)                                (recursion)
//             T12 = -T1 (V1^H V2) T2                 the factor of both halves together
//
// Several ranks: each works on the rows of its own tiles (a block of consecutive tiles per
// rank, one BLAS call per piece of contiguous memory among them), and the two products over all rows
// (V1^H P2 and V1^H V2, each w1 x w2) are sums of the ranks' parts, added up after one
// meeting. Rank 0 owns tile 0, where the triangles of V1 and V2 (rows [j, j + w)) lie, and
// alone writes T and the diagonal. The norm of a column is met the same way: the ranks'
// partial norms, combined without squaring. Unlike LAPACK's larfg, a reflector whose beta is
// below the smallest normal number is not rescaled first (its vector loses digits to
// subnormal arithmetic; 1 / (alpha - beta) still cannot overflow: |alpha - beta| >= |beta|).
#include "linalg/kernels/cpu/tile_column_qr.hpp"

#include "linalg/instantiate.hpp"
#include "linalg/kernels/cpu/blas_lapack.hpp"

#include <algorithm>
#include <cmath>

namespace tessera::la::kernels::cpu {
namespace {

/// Thrown when the group's meeting reports that another rank failed; caught at the top.
struct GroupBroken {};

template <Scalar T> class PanelQR {
public:
    using Real = real_t<T>;

    PanelQR(std::span<ColumnTile<T> const> tiles, int64_t n, T* t, int64_t ldt,
            PanelRanks const& ranks, PanelSums<T>* sums)
        : tiles_(tiles), n_(n), t_(t), ldt_(ldt), ranks_(ranks), sums_(sums)
    {
        // rank r: the tiles [ceil(r count / size), ceil((r + 1) count / size)) (rank 0 has tile
        // 0), as runs of rows that lie one below the other in memory (one BLAS call each)
        const std::size_t count = tiles_.size(), size = std::max(1u, ranks_.size);
        const std::size_t begin = (ranks_.rank * count + size - 1) / size;
        const std::size_t end = ((ranks_.rank + 1) * count + size - 1) / size;
        int64_t first = 0;
        for (std::size_t i = 0; i < end; ++i) {
            ColumnTile<T> const& tile = tiles_[i];
            if (i >= begin) {
                Run* last = mine_.empty() ? nullptr : &mine_.back();
                if (last && last->ld == tile.ld && last->ptr + last->rows == tile.ptr)
                    last->rows += tile.rows;
                else
                    mine_.push_back({tile.ptr, first, tile.rows, tile.ld});
            }
            first += tile.rows;
        }
        work_.resize(std::size_t(2 * n * n));
    }

    bool run()
    {
        try {
            if (n_ > 0) factor(0, n_);
        } catch (GroupBroken const&) {
            return false;
        }
        return true;
    }

private:
    /// Rows of one of this rank's tiles from a given row on: pointer to (first, column 0).
    struct Chunk {
        T* p;
        int64_t rows, ld;
        T* column(int64_t c) const { return p + c * ld; }
    };
    /// Calls f(chunk) for the rows >= r0 of each of this rank's runs.
    template <class F> void for_my_rows(int64_t r0, F&& f) const
    {
        for (Run const& run : mine_) {
            const int64_t start = std::max(r0, run.first);
            if (start < run.first + run.rows)
                f(Chunk{run.ptr + (start - run.first), run.first + run.rows - start, run.ld});
        }
    }
    bool leader() const { return ranks_.rank == 0; }
    bool alone() const { return ranks_.size <= 1; }
    /// Entry (r, c) of tile 0 (rank 0's rows [0, n) of the panel).
    T& top(int64_t r, int64_t c) const { return tiles_[0].ptr[r + c * tiles_[0].ld]; }
    T& t(int64_t r, int64_t c) const { return t_[r + c * ldt_]; }
    int64_t ld0() const { return tiles_[0].ld; }

    /// Publishes `mine` (count values) and meets the other ranks: then slot(r) is rank r's.
    void exchange(T const* mine, int64_t count)
    {
        parity_ ^= 1;
        sums_->slots[ranks_.rank].part[parity_].assign(mine, mine + count);
        if (!ranks_.meet()) throw GroupBroken{};
    }
    T const* slot(unsigned r) const { return sums_->slots[r].part[parity_].data(); }
    /// part (count values) becomes the sum of every rank's, added in rank order.
    void sum_over_ranks(T* part, int64_t count)
    {
        if (alone()) return;
        exchange(part, count);
        std::fill(part, part + count, T(0));
        for (unsigned r = 0; r < ranks_.size; ++r) {
            T const* s = slot(r);
            for (int64_t i = 0; i < count; ++i) part[i] += s[i];
        }
    }

    void factor(int64_t j, int64_t w)
    {
        if (w == 1) {
            reflect(j);
            return;
        }
        const int64_t w1 = w / 2, w2 = w - w1;
        factor(j, w1);
        apply_left_half(j, w1, w2);
        factor(j + w1, w2);
        join_factors(j, w1, w2);
    }

    /// The reflector of column j (LAPACK's larfg on (alpha, x) = rows j and below).
    void reflect(int64_t j)
    {
        Real norm = 0;
        for_my_rows(j + 1,
                    [&](Chunk c) { norm = std::hypot(norm, nrm2<T>(c.rows, c.column(j), 1)); });
        T alpha = leader() ? top(j, j) : T(0);
        if (!alone()) {  // alpha from rank 0, the norms combined in rank order
            const T mine[2] = {alpha, T(norm)};
            exchange(mine, 2);
            alpha = slot(0)[0];
            norm = 0;
            for (unsigned r = 0; r < ranks_.size; ++r)
                norm = std::hypot(norm, std::real(slot(r)[1]));
        }
        const Real re = std::real(alpha), im = std::imag(alpha);
        if (norm == 0 && im == 0) {  // H = I
            if (leader()) t(j, j) = T(0);
            return;
        }
        const Real beta = -std::copysign(std::hypot(std::hypot(re, im), norm), re);
        T tau;
        if constexpr (is_complex_v<T>)
            tau = T((beta - re) / beta, -im / beta);
        else
            tau = (beta - re) / beta;
        const T scale = T(1) / (alpha - T(beta));
        for_my_rows(j + 1, [&](Chunk c) { scal<T>(c.rows, scale, c.column(j), 1); });
        if (leader()) {
            top(j, j) = T(beta);
            t(j, j) = tau;
        }
    }

    /// P2 = (I - V1 T1 V1^H)^H P2 = P2 - V1 (T1^H (V1^H P2)), V1 columns [j, j + w1) and P2
    /// columns [j + w1, j + w1 + w2), rows from j.
    void apply_left_half(int64_t j, int64_t w1, int64_t w2)
    {
        const int64_t j2 = j + w1;
        T* W = work_.data();
        if (leader()) {  // the triangle of V1: rows [j, j2)
            for (int64_t c = 0; c < w2; ++c)
                for (int64_t r = 0; r < w1; ++r) W[r + c * w1] = top(j + r, j2 + c);
            trmm<T>(Side::left, Uplo::lower, Op::conjtrans, Diag::unit, w1, w2, T(1), &top(j, j),
                    ld0(), W, w1);
        } else {
            std::fill(W, W + w1 * w2, T(0));
        }
        for_my_rows(j2, [&](Chunk c) {
            gemm<T>(Op::conjtrans, Op::notrans, w1, w2, c.rows, T(1), c.column(j), c.ld,
                    c.column(j2), c.ld, T(1), W, w1);
        });
        sum_over_ranks(W, w1 * w2);
        trmm<T>(Side::left, Uplo::upper, Op::conjtrans, Diag::nonunit, w1, w2, T(1), &t(j, j), ldt_,
                W, w1);
        if (leader()) {
            T* V1W = W + w1 * w2;
            std::copy(W, W + w1 * w2, V1W);
            trmm<T>(Side::left, Uplo::lower, Op::notrans, Diag::unit, w1, w2, T(1), &top(j, j),
                    ld0(), V1W, w1);
            for (int64_t c = 0; c < w2; ++c)
                for (int64_t r = 0; r < w1; ++r) top(j + r, j2 + c) -= V1W[r + c * w1];
        }
        for_my_rows(j2, [&](Chunk c) {
            gemm<T>(Op::notrans, Op::notrans, c.rows, w2, w1, T(-1), c.column(j), c.ld, W, w1, T(1),
                    c.column(j2), c.ld);
        });
    }

    /// T12 = -T1 (V1^H V2) T2, V2 the reflectors of columns [j + w1, j + w1 + w2).
    void join_factors(int64_t j, int64_t w1, int64_t w2)
    {
        const int64_t j2 = j + w1, end = j2 + w2;
        T* S = work_.data();
        if (leader()) {  // rows [j2, end): V1's rows there times V2's triangle
            for (int64_t c = 0; c < w2; ++c)
                for (int64_t r = 0; r < w1; ++r) S[r + c * w1] = conj(top(j2 + c, j + r));
            trmm<T>(Side::right, Uplo::lower, Op::notrans, Diag::unit, w1, w2, T(1), &top(j2, j2),
                    ld0(), S, w1);
        } else {
            std::fill(S, S + w1 * w2, T(0));
        }
        for_my_rows(end, [&](Chunk c) {
            gemm<T>(Op::conjtrans, Op::notrans, w1, w2, c.rows, T(1), c.column(j), c.ld,
                    c.column(j2), c.ld, T(1), S, w1);
        });
        sum_over_ranks(S, w1 * w2);
        if (!leader()) return;
        trmm<T>(Side::left, Uplo::upper, Op::notrans, Diag::nonunit, w1, w2, T(1), &t(j, j), ldt_,
                S, w1);
        trmm<T>(Side::right, Uplo::upper, Op::notrans, Diag::nonunit, w1, w2, T(-1), &t(j2, j2),
                ldt_, S, w1);
        for (int64_t c = 0; c < w2; ++c)
            for (int64_t r = 0; r < w1; ++r) t(j + r, j2 + c) = S[r + c * w1];
    }

    std::span<ColumnTile<T> const> tiles_;
    int64_t n_;
    T* t_;
    int64_t ldt_;
    PanelRanks ranks_;
    PanelSums<T>* sums_;
    struct Run {  ///< rows of the panel in one column-major piece of memory
        T* ptr;
        int64_t first;  ///< its first row in the panel
        int64_t rows, ld;
    };
    std::vector<Run> mine_;
    std::vector<T> work_;  ///< W and V1 W, or S
    int parity_ = 0;
};

}  // namespace

template <Scalar T>
bool geqrf_panel(std::span<ColumnTile<T> const> tiles, int64_t n, T* t, int64_t ldt,
                 PanelRanks const& ranks, PanelSums<T>* sums)
{
    if (tiles.empty()) return true;
    return PanelQR<T>(tiles, n, t, ldt, ranks, sums).run();
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template bool geqrf_panel<T>(std::span<ColumnTile<T> const>, int64_t, T*, int64_t,             \
                                 PanelRanks const&, PanelSums<T>*);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::la::kernels::cpu
