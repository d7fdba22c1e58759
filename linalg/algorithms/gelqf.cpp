// The tile LQ as the tile QR of A^H: A^H = Q' R gives A = L Q with L = R^H and Q = Q'^H.
// Each call conjugate-transposes the tiles it needs into a tile matrix of its own (tile (i, j)
// of A^H is tile (j, i) of A, transposed: the same tile size fits), runs the tile QR's call on
// it, and transposes back what it wrote:
//     gelqf:  At = A^H;  geqrf(At);  A = At^H
//     unmlq:  op(Q) = op(Q'^H): unmqr on At = A^H with the other op (Q^H for Q, Q for Q^H)
//     unglq:  Q's first rows = (Q' [I; 0])^H: ungqr into Qt, then Q = Qt^H
// The copies move O(m n) entries against the O(m n min(m, n)) flops of the factorization.
#include <tessera/la/qr.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/algorithms/qr_steps.hpp"
#include "linalg/instantiate.hpp"

#include <memory>

namespace tessera::inline la {

namespace {
/// Submits to = from^H, tile by tile (to: from.n() x from.m(), the same tile size).
template <Scalar T> void transpose_into(TileMatrix<T> const& from, TileMatrix<T>& to, Sequence& s)
{
    for (int64_t j = 0; j < from.nt(); ++j)
        for (int64_t i = 0; i < from.mt(); ++i)
            s.submit(cl::conj_transpose<T>, read(from(i, j)), write(to(j, i)));
}
/// A^H in a tile matrix of its own, kept until the sequence's tasks are done.
template <Scalar T> TileMatrix<T>& transposed(TileMatrix<T> const& A, Sequence& s)
{
    auto At = std::make_shared<TileMatrix<T>>(s.runtime(), A.n(), A.m(), A.nb());
    transpose_into(A, *At, s);
    s.keep_alive(At);
    return *At;
}
/// Throws InvalidArgument unless F holds the factors of an LQ of A (QrFactors::for_lq(A)).
template <Scalar T>
void require_lq_factors_of(std::string const& routine, QrFactors<T> const& F,
                           TileMatrix<T> const& A)
{
    require(F.fits(A.n(), A.m(), A.nb()), [&] {
        return routine + ": F does not hold the factors of an LQ of A (" + std::to_string(A.m()) +
               " x " + std::to_string(A.n()) + ", nb " + std::to_string(A.nb()) +
               "): make it QrFactors<T>::for_lq(A)";
    });
}
}  // namespace

template <Scalar T> void gelqf_async(TileMatrix<T>& A, QrFactors<T>& F, Sequence& s)
{
    require_lq_factors_of("gelqf", F, A);
    const auto call = detail::begin_call<T>(s, "gelqf", {{"A", A, true}});
    TileMatrix<T>& At = transposed(A, s);
    geqrf_async(At, F, s);
    transpose_into(At, A, s);
}

template <Scalar T> void gelqf(TileMatrix<T>& A, QrFactors<T>& F)
{
    if (!A || std::min(A.m(), A.n()) == 0) return;
    (void)synchronously(A.runtime(), [&](Sequence& s) { gelqf_async(A, F, s); });
}

template <Scalar T>
void unmlq_async(Side side, Op op, TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& C,
                 Sequence& s)
{
    constexpr char const* fn = "unmlq";
    detail::require_side(fn, side);
    detail::require_reflector_op<T>(fn, op);
    require_lq_factors_of(fn, F, A);
    const auto call = detail::begin_call<T>(s, fn, {{"A", A}, {"C", C, true}});
    unmqr_async(side, op == Op::notrans ? Op::conjtrans : Op::notrans, transposed(A, s), F, C, s);
}

template <Scalar T>
void unmlq(Side side, Op op, TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& C)
{
    if (!C || C.m() == 0 || C.n() == 0) return;
    (void)synchronously(C.runtime(), [&](Sequence& s) { unmlq_async(side, op, A, F, C, s); });
}

template <Scalar T>
void unglq_async(TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& Q, Sequence& s)
{
    constexpr char const* fn = "unglq";
    require_lq_factors_of(fn, F, A);
    require(
        Q.n() == A.n() && Q.m() <= A.n() && (Q.m() == 0 || Q.n() == 0 || Q.nb() == A.nb()), [&] {
            return std::string(fn) + ": Q (" + std::to_string(Q.m()) + " x " +
                   std::to_string(Q.n()) + ", nb " + std::to_string(Q.nb()) + ") must have A's " +
                   std::to_string(A.n()) + " columns, at most as many rows, and A's tile size " +
                   std::to_string(A.nb());
        });
    const auto call = detail::begin_call<T>(s, fn, {{"A", A}, {"Q", Q, true}});
    auto Qt = std::make_shared<TileMatrix<T>>(s.runtime(), Q.n(), Q.m(), Q.nb());
    ungqr_async(transposed(A, s), F, *Qt, s);
    transpose_into(*Qt, Q, s);
    s.keep_alive(Qt);
}

template <Scalar T> void unglq(TileMatrix<T> const& A, QrFactors<T> const& F, TileMatrix<T>& Q)
{
    if (!Q || Q.m() == 0 || Q.n() == 0) return;
    (void)synchronously(Q.runtime(), [&](Sequence& s) { unglq_async(A, F, Q, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void gelqf_async<T>(TileMatrix<T>&, QrFactors<T>&, Sequence&);                        \
    template void gelqf<T>(TileMatrix<T>&, QrFactors<T>&);                                         \
    template void unmlq_async<T>(Side, Op, TileMatrix<T> const&, QrFactors<T> const&,              \
                                 TileMatrix<T>&, Sequence&);                                       \
    template void unmlq<T>(Side, Op, TileMatrix<T> const&, QrFactors<T> const&, TileMatrix<T>&);   \
    template void unglq_async<T>(TileMatrix<T> const&, QrFactors<T> const&, TileMatrix<T>&,        \
                                 Sequence&);                                                       \
    template void unglq<T>(TileMatrix<T> const&, QrFactors<T> const&, TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
