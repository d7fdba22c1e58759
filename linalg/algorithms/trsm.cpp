// Tile TRSM (PLASMA's pztrsm), one algorithm for the eight (side, uplo, trans) cases. With
// op(A)(i, j) the tile (i, j) of op(A) (A(j, i) transposed when trans), the solve runs in the
// direction in which op(A) is triangular. Left, op(A) X = alpha B, op(A) lower: for k up,
//     B(k,:) = lalpha op(A)(k,k)^{-1} B(k,:)                         (now X(k,:))
//     B(m,:) = lalpha B(m,:) - op(A)(m,k) X(k,:)      m > k
// with lalpha = alpha at the first step and 1 after (each B tile is scaled exactly once); op(A)
// upper runs k down, m < k. Right, X op(A) = alpha B, is the same on columns.
#include <tessera/la/blas.hpp>

#include "linalg/algorithms/triangular.hpp"
#include "linalg/codelets/blas3.hpp"
#include "linalg/instantiate.hpp"

namespace tessera::inline la {

template <Scalar T>
void trsm_async(Side side, Uplo uplo, Op trans, Diag diag, scalar_arg<T> alpha,
                TileMatrix<T> const& A, TileMatrix<T>& B, Sequence& s)
{
    detail::check_triangular("trsm", side, uplo, trans, diag, A, B);
    const auto call = detail::begin_call<T>(s, "trsm", {{"A", A}, {"B", B, true}});
    if (detail::triangular_done_early<T>(alpha, B, s)) return;
    const bool t = trans != Op::notrans;
    auto opA = [&](int64_t i, int64_t j) -> auto const&
    {
        return t ? A(j, i) : A(i, j);
    };
    auto v = [](auto x) { return rt::value(x); };
    const int64_t kt = A.nt();
    // Lookahead, as in potrf: the solve of step k first, then the updates of the tiles the
    // next steps solve, nearest first, so that the critical path never waits.
    auto prio = [kt](int64_t step, int64_t distance) {
        return rt::priority(int(2 * (kt - step) - distance));
    };
    if (side == Side::left) {
        const bool forward = (uplo == Uplo::lower) == !t;  // op(A) lower: top to bottom
        for (int64_t step = 0; step < kt; ++step) {
            const int64_t k = forward ? step : kt - 1 - step;
            const T lalpha = step == 0 ? T(alpha) : T(1);
            for (int64_t n = 0; n < B.nt(); ++n)
                s.submit(cl::trsm<T>, v(side), v(uplo), v(trans), v(diag), v(lalpha), read(A(k, k)),
                         readwrite(B(k, n)), prio(step, 0));
            for (int64_t m = forward ? k + 1 : 0; m < (forward ? kt : k); ++m)
                for (int64_t n = 0; n < B.nt(); ++n)
                    s.submit(cl::gemm<T>, v(trans), v(Op::notrans), v(T(-1)), read(opA(m, k)),
                             read(B(k, n)), v(lalpha), readwrite(B(m, n)),
                             prio(step, m > k ? m - k : k - m));
        }
    } else {
        const bool forward = (uplo == Uplo::upper) == !t;  // op(A) upper: left to right
        for (int64_t step = 0; step < kt; ++step) {
            const int64_t k = forward ? step : kt - 1 - step;
            const T lalpha = step == 0 ? T(alpha) : T(1);
            for (int64_t m = 0; m < B.mt(); ++m)
                s.submit(cl::trsm<T>, v(side), v(uplo), v(trans), v(diag), v(lalpha), read(A(k, k)),
                         readwrite(B(m, k)), prio(step, 0));
            for (int64_t j = forward ? k + 1 : 0; j < (forward ? kt : k); ++j)
                for (int64_t m = 0; m < B.mt(); ++m)
                    s.submit(cl::gemm<T>, v(Op::notrans), v(trans), v(T(-1)), read(B(m, k)),
                             read(opA(k, j)), v(lalpha), readwrite(B(m, j)),
                             prio(step, j > k ? j - k : k - j));
        }
    }
}

template <Scalar T>
void trsm(Side side, Uplo uplo, Op trans, Diag diag, scalar_arg<T> alpha, TileMatrix<T> const& A,
          TileMatrix<T>& B)
{
    detail::check_triangular("trsm", side, uplo, trans, diag, A, B);  // also when B is empty
    if (!B) return;
    synchronously(B.runtime(),
                  [&](Sequence& s) { trsm_async(side, uplo, trans, diag, alpha, A, B, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void trsm_async<T>(Side, Uplo, Op, Diag, T, TileMatrix<T> const&, TileMatrix<T>&,     \
                                Sequence&);                                                        \
    template void trsm<T>(Side, Uplo, Op, Diag, T, TileMatrix<T> const&, TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
