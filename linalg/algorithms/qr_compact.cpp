// The QR in LAPACK's compact form (codelets/qr_compact.hpp), as LAPACK's blocked geqrf,
// ormqr and orgqr run it, with tasks: at step k,
//     panel k (rows k nb to m) = (I - V_k T_k V_k^H) R_k          one task
//     A(k.., j) = (I - V_k T_k V_k^H)^H A(k.., j)    j > k         blocks of tile columns
// The next two panels' columns have a task each (lookahead by priority: dgeqrf at n = 4000 on
// 2 cores, 0.91 to 0.95 s against 0.97 to 0.98 with one); the others go in as many blocks
// as keep every worker busy twice over, each one larfb over the whole block.
#include "linalg/algorithms/qr_compact.hpp"

#include "linalg/algorithms/operands.hpp"
#include "linalg/codelets/qr_compact.hpp"
#include "linalg/instantiate.hpp"

#include <algorithm>

namespace tessera::inline la::detail {

template <Scalar T> TauPieces<T>::TauPieces(rt::Runtime& rt, T* tau, int64_t count, int64_t nb)
{
    for (int64_t first = 0; first < count; first += nb)
        pieces_.emplace_back(rt, rt::Vector<T>{tau + first, std::min(nb, count - first)});
}

namespace {
template <Scalar T> using TilePointers = std::vector<typename TileMatrix<T>::Tile*>;

/// The tiles of tile column j from tile row `first` down.
template <Scalar T> TilePointers<T> column_from(TileMatrix<T> const& A, int64_t first, int64_t j)
{
    TilePointers<T> column;
    for (int64_t i = first; i < A.mt(); ++i)
        column.push_back(const_cast<typename TileMatrix<T>::Tile*>(&A(i, j)));
    return column;
}

/// The grid of C's tiles that a panel starting at tile `first` reaches in one block: from the
/// left, tile rows first.. of tile columns [b0, b1); from the right, tile columns first.. of
/// tile rows [b0, b1). Column-major, with its number of tile rows.
template <Scalar T>
std::pair<TilePointers<T>, int64_t> block_of(Side side, TileMatrix<T>& C, int64_t first, int64_t b0,
                                             int64_t b1)
{
    TilePointers<T> tiles;
    if (side == Side::left) {
        for (int64_t j = b0; j < b1; ++j)
            for (int64_t i = first; i < C.mt(); ++i) tiles.push_back(&C(i, j));
        return {tiles, C.mt() - first};
    }
    for (int64_t j = first; j < C.nt(); ++j)
        for (int64_t i = b0; i < b1; ++i) tiles.push_back(&C(i, j));
    return {tiles, b1 - b0};
}

/// op(Q_k) applied to the lines [l0, l1) of C (tile columns from the left, tile rows from the
/// right), in blocks: the first `alone` lines one task each (the next panels' columns, by
/// decreasing priority), the rest in about 2 x workers blocks.
template <Scalar T>
void update_lines(Side side, Op op, TileMatrix<T> const& V, int64_t k,
                  typename TileMatrix<T>::Tile const& t, int64_t reflectors, TileMatrix<T>& C,
                  int64_t l0, int64_t l1, int64_t alone, int priority, Sequence& s)
{
    const auto wanted = int64_t(2 * s.runtime().worker_count());
    auto submit = [&](int64_t b0, int64_t b1, int p) {
        auto [tiles, grid_m] = block_of(side, C, k, b0, b1);
        s.submit(cl::qr_update<T>, rt::value(side), rt::value(op),
                 rt::read_all(column_from(V, k, k)), read(t), rt::value(reflectors),
                 rt::readwrite_all(tiles), rt::value(grid_m), rt::priority(p));
    };
    for (int64_t a = alone; a > 0 && l0 < l1; --a, ++l0) submit(l0, l0 + 1, priority + int(a));
    const int64_t width = std::max<int64_t>(1, (l1 - l0 + wanted - 1) / wanted);
    for (int64_t b = l0; b < l1; b += width) submit(b, std::min(l1, b + width), priority);
}

/// The reflectors of panel k: the columns of tile column k, at most min(rows below, k's width).
template <Scalar T> int64_t reflectors_of(TileMatrix<T> const& V, int64_t k, int64_t count)
{
    return std::min(V.nb(), count - k * V.nb());
}
}  // namespace

template <Scalar T> TileMatrix<T> panel_factors(rt::Runtime& rt, int64_t panels, int64_t nb)
{
    return TileMatrix<T>{rt, nb, panels * nb, nb};
}

/// The columns of the next panels updated one task each at every step (lookahead).
constexpr int64_t lookahead_columns = 2;

template <Scalar T>
void geqrf_compact_async(TileMatrix<T>& A, TauPieces<T>& tau, TileMatrix<T>& factors, Sequence& s,
                         TileMatrix<T>* B)
{
    const auto call = B ? begin_call<T>(s, "geqrf", {{"A", A, true}, {"B", *B, true}})
                        : begin_call<T>(s, "geqrf", {{"A", A, true}});
    const int64_t mt = A.mt(), nt = A.nt(), kt = std::min(mt, nt);
    for (int64_t k = 0; k < kt; ++k) {
        const int priority = int(2 * (nt - k));
        const int64_t reflectors = reflectors_of(A, k, std::min(A.m(), A.n()));
        s.submit(cl::qr_panel<T>, rt::readwrite_all(column_from(A, k, k)), write(factors(0, k)),
                 write(tau[k]), rt::value(std::make_shared<kernels::cpu::PanelSums<T>>()),
                 rt::priority(priority + 2));
        update_lines(Side::left, Op::conjtrans, A, k, factors(0, k), reflectors, A, k + 1, nt,
                     lookahead_columns, priority, s);
        // B beside A, after the lookahead: its steps form a chain of their own
        if (B && B->m() > 0)
            update_lines(Side::left, Op::conjtrans, A, k, factors(0, k), reflectors, *B, 0, B->nt(),
                         0, priority - 3, s);
    }
}

template <Scalar T>
void unmqr_compact_async(Side side, Op op, TileMatrix<T> const& V, TauPieces<T>& tau,
                         TileMatrix<T>& factors, TileMatrix<T>& C, Sequence& s)
{
    const auto call = begin_call<T>(s, "unmqr", {{"A", V}, {"C", C, true}});
    const int64_t kt = V.nt(), lines = side == Side::left ? C.nt() : C.mt();
    const bool forward = (side == Side::left) == (op != Op::notrans);
    for (int64_t step = 0; step < kt; ++step) {
        const int64_t k = forward ? step : kt - 1 - step, reflectors = reflectors_of(V, k, V.n());
        s.submit(cl::qr_factor<T>, rt::read_all(column_from(V, k, k)), read(tau[k]),
                 write(factors(0, k)), rt::value(reflectors),
                 rt::priority(int(2 * (kt - step) + 1)));
        update_lines(side, op, V, k, factors(0, k), reflectors, C, 0, lines, 0,
                     int(2 * (kt - step)), s);
    }
}

template <Scalar T>
void ungqr_compact_async(TileMatrix<T>& A, int64_t k, TauPieces<T>& tau, TileMatrix<T>& factors,
                         Sequence& s)
{
    const auto call = begin_call<T>(s, "ungqr", {{"A", A, true}});
    const int64_t nb = A.nb(), kt = (k + nb - 1) / nb, nt = A.nt();
    // the T of every panel first: its V is overwritten once its own columns are formed
    for (int64_t p = 0; p < kt; ++p)
        s.submit(cl::qr_factor<T>, rt::read_all(column_from(A, p, p)), read(tau[p]),
                 write(factors(0, p)), rt::value(reflectors_of(A, p, k)),
                 rt::priority(int(2 * kt + 2)));
    for (int64_t j = kt; j < nt; ++j)  // the columns no reflector starts in: [0; I]
        for (int64_t i = 0; i < A.mt(); ++i)
            s.submit(cl::identity<T>, write(A(i, j)), rt::value(i * nb), rt::value(j * nb));
    for (int64_t p = kt - 1; p >= 0; --p) {
        const int priority = int(2 * (p + 1));
        update_lines(Side::left, Op::notrans, A, p, factors(0, p), reflectors_of(A, p, k), A, p + 1,
                     nt, 0, priority, s);
        s.submit(cl::qr_form_panel<T>, rt::readwrite_all(column_from(A, 0, p)), read(tau[p]),
                 rt::value(p), rt::value(reflectors_of(A, p, k)), rt::priority(priority + 1));
    }
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template class TauPieces<T>;                                                                   \
    template TileMatrix<T> panel_factors<T>(rt::Runtime&, int64_t, int64_t);                       \
    template void geqrf_compact_async<T>(TileMatrix<T>&, TauPieces<T>&, TileMatrix<T>&, Sequence&, \
                                         TileMatrix<T>*);                                          \
    template void unmqr_compact_async<T>(Side, Op, TileMatrix<T> const&, TauPieces<T>&,            \
                                         TileMatrix<T>&, TileMatrix<T>&, Sequence&);               \
    template void ungqr_compact_async<T>(TileMatrix<T>&, int64_t, TauPieces<T>&, TileMatrix<T>&,   \
                                         Sequence&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la::detail
