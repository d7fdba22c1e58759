// Tile TRMM (PLASMA's pztrmm), one algorithm for the eight (side, uplo, trans) cases, in place.
// With op(A)(i, j) the tile (i, j) of op(A) (A(j, i) transposed when trans), left, op(A) lower:
//     B(m,:) = alpha op(A)(m,m) B(m,:)                                   trmm
//     B(m,:) = B(m,:) + alpha op(A)(m,k) B(k,:)          k < m           gemm
// The new row m needs the old rows k <= m only, so the rows are computed from the bottom up:
// every row is read (by the rows below it) before it is overwritten, and the runtime's
// write-after-read order keeps it so while the tasks overlap. op(A) upper needs the rows
// k >= m and runs top down. Right, B = alpha B op(A), is the same on columns: op(A) upper
// (B(:,n) needs the columns k <= n) from the right, op(A) lower from the left. In each tile
// the trmm comes first, since it needs the tile's old value; then the gemms run from the
// nearest k out, so that the gemm reading the next row (column) to be overwritten comes early
// in its chain and the sweep proceeds as a wavefront rather than one row after the other.
#include <tessera/la/blas.hpp>

#include "linalg/algorithms/triangular.hpp"
#include "linalg/codelets/blas3.hpp"
#include "linalg/instantiate.hpp"

namespace tessera::inline la {

template <Scalar T>
void trmm_async(Side side, Uplo uplo, Op trans, Diag diag, scalar_arg<T> alpha,
                TileMatrix<T> const& A, TileMatrix<T>& B, Sequence& s)
{
    detail::check_triangular("trmm", side, uplo, trans, diag, A, B);
    const auto call = detail::begin_call<T>(s, "trmm", {{"A", A}, {"B", B, true}});
    if (detail::triangular_done_early<T>(alpha, B, s)) return;
    const bool t = trans != Op::notrans;
    auto opA = [&](int64_t i, int64_t j) -> auto const&
    {
        return t ? A(j, i) : A(i, j);
    };
    auto v = [](auto x) { return rt::value(x); };
    const int64_t kt = A.nt();
    if (side == Side::left) {
        const bool forward = (uplo == Uplo::upper) == !t;  // op(A) upper: top to bottom
        for (int64_t step = 0; step < kt; ++step) {
            const int64_t m = forward ? step : kt - 1 - step;
            for (int64_t n = 0; n < B.nt(); ++n) {
                // B(m,n) = alpha op(A)(m,m) B(m,n)
                s.submit(cl::trmm<T>, v(side), v(uplo), v(trans), v(diag), v(T(alpha)),
                         read(A(m, m)), readwrite(B(m, n)));
                // B(m,n) += alpha op(A)(m,k) B(k,n), k on the triangle's side of m, nearest first
                for (int64_t i = 1; i <= (forward ? kt - 1 - m : m); ++i) {
                    const int64_t k = forward ? m + i : m - i;
                    s.submit(cl::gemm<T>, v(trans), v(Op::notrans), v(T(alpha)), read(opA(m, k)),
                             read(B(k, n)), v(T(1)), readwrite(B(m, n)));
                }
            }
        }
    } else {
        const bool forward = (uplo == Uplo::lower) == !t;  // op(A) lower: left to right
        for (int64_t step = 0; step < kt; ++step) {
            const int64_t n = forward ? step : kt - 1 - step;
            for (int64_t m = 0; m < B.mt(); ++m) {
                // B(m,n) = alpha B(m,n) op(A)(n,n)
                s.submit(cl::trmm<T>, v(side), v(uplo), v(trans), v(diag), v(T(alpha)),
                         read(A(n, n)), readwrite(B(m, n)));
                // B(m,n) += alpha B(m,k) op(A)(k,n), k on the triangle's side of n, nearest first
                for (int64_t i = 1; i <= (forward ? kt - 1 - n : n); ++i) {
                    const int64_t k = forward ? n + i : n - i;
                    s.submit(cl::gemm<T>, v(Op::notrans), v(trans), v(T(alpha)), read(B(m, k)),
                             read(opA(k, n)), v(T(1)), readwrite(B(m, n)));
                }
            }
        }
    }
}

template <Scalar T>
void trmm(Side side, Uplo uplo, Op trans, Diag diag, scalar_arg<T> alpha, TileMatrix<T> const& A,
          TileMatrix<T>& B)
{
    detail::check_triangular("trmm", side, uplo, trans, diag, A, B);  // also when B is empty
    if (!B) return;
    synchronously(B.runtime(),
                  [&](Sequence& s) { trmm_async(side, uplo, trans, diag, alpha, A, B, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void trmm_async<T>(Side, Uplo, Op, Diag, T, TileMatrix<T> const&, TileMatrix<T>&,     \
                                Sequence&);                                                        \
    template void trmm<T>(Side, Uplo, Op, Diag, T, TileMatrix<T> const&, TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
