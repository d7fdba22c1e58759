// C = op(Q) C or C op(Q) with the Q of a tile QR: its eliminations replayed on C's tiles, in
// the order op(Q) = the product of their op(Q_e) asks for. With Q = Q_0 Q_1 ... and each
// Q_k the product of its eliminations in the order qr_eliminations lists them:
//     Q^H C and C Q   apply the eliminations as listed, step 0 first
//     Q C and C Q^H   apply them in reverse, the last step first
#include <tessera/la/qr.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/algorithms/qr_steps.hpp"
#include "linalg/instantiate.hpp"

#include <ranges>

namespace tessera::inline la {

namespace detail {
/// Applies the eliminations of steps [0, kt) of the tile QR of A to C; with skip_identity
/// (ungqr, C starting as the identity), step k only to C's tile columns from k on: the
/// others still hold columns of the identity, which step k's reflectors leave as they are.
template <Scalar T>
void apply_q(Side side, Op op, TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& C,
             bool skip_identity, Sequence& s)
{
    const int64_t kt = std::min(A.mt(), A.nt()), lines = side == Side::left ? C.nt() : C.mt();
    const bool as_listed = (side == Side::left) == (op != Op::notrans);
    for (int64_t step = 0; step < kt; ++step) {
        const int64_t k = as_listed ? step : kt - 1 - step;
        auto eliminations = qr_eliminations(A.mt(), k, F.domain());
        if (!as_listed) std::ranges::reverse(eliminations);
        for (Elimination const& e : eliminations)
            for (int64_t line = skip_identity ? k : 0; line < lines; ++line)
                apply_elimination(side, op, A, F, k, e, C, line,
                                  int(2 * (kt - step) - (line - (skip_identity ? k : 0))), s);
    }
}
}  // namespace detail

template <Scalar T>
void unmqr_async(Side side, Op op, TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& C,
                 Sequence& s)
{
    constexpr char const* fn = "unmqr";
    detail::require_side(fn, side);
    detail::require_reflector_op<T>(fn, op);
    detail::require_factors_of(fn, F, A);
    const int64_t reached = side == Side::left ? C.m() : C.n();
    require(reached == A.m() && (C.m() == 0 || C.n() == 0 || C.nb() == A.nb()), [&] {
        return std::string(fn) + ": C (" + std::to_string(C.m()) + " x " + std::to_string(C.n()) +
               ", nb " + std::to_string(C.nb()) + ") must have A's " + std::to_string(A.m()) +
               (side == Side::left ? " rows" : " columns") + " and A's tile size " +
               std::to_string(A.nb());
    });
    const auto call = detail::begin_call<T>(s, fn, {{"A", A}, {"C", C, true}});
    detail::apply_q(side, op, A, F, C, false, s);
}

template <Scalar T>
void unmqr(Side side, Op op, TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& C)
{
    if (!C || C.m() == 0 || C.n() == 0) return;
    (void)synchronously(C.runtime(), [&](Sequence& s) { unmqr_async(side, op, A, F, C, s); });
}

template <Scalar T>
void ungqr_async(TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& Q, Sequence& s)
{
    constexpr char const* fn = "ungqr";
    detail::require_factors_of(fn, F, A);
    require(
        Q.m() == A.m() && Q.n() <= A.m() && (Q.m() == 0 || Q.n() == 0 || Q.nb() == A.nb()), [&] {
            return std::string(fn) + ": Q (" + std::to_string(Q.m()) + " x " +
                   std::to_string(Q.n()) + ", nb " + std::to_string(Q.nb()) + ") must have A's " +
                   std::to_string(A.m()) + " rows, at most as many columns, and A's tile size " +
                   std::to_string(A.nb());
        });
    const auto call = detail::begin_call<T>(s, fn, {{"A", A}, {"Q", Q, true}});
    for (int64_t j = 0; j < Q.nt(); ++j)
        for (int64_t i = 0; i < Q.mt(); ++i)
            s.submit(cl::identity<T>, write(Q(i, j)), rt::value(i * Q.nb()), rt::value(j * Q.nb()));
    detail::apply_q(Side::left, Op::notrans, A, F, Q, true, s);
}

template <Scalar T> void ungqr(TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& Q)
{
    if (!Q || Q.m() == 0 || Q.n() == 0) return;
    (void)synchronously(Q.runtime(), [&](Sequence& s) { ungqr_async(A, F, Q, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void unmqr_async<T>(Side, Op, TileMatrix<T> const&, QrFactors<T> const&,              \
                                 TileMatrix<T>&, Sequence&);                                       \
    template void unmqr<T>(Side, Op, TileMatrix<T> const&, QrFactors<T> const&, TileMatrix<T>&);   \
    template void ungqr_async<T>(TileMatrix<T> const&, QrFactors<T> const&, TileMatrix<T>&,        \
                                 Sequence&);                                                       \
    template void ungqr<T>(TileMatrix<T> const&, QrFactors<T> const&, TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
