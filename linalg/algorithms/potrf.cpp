// Tile Cholesky (thesis §3 and §7, PLASMA's pzpotrf): for each step k, factor the diagonal
// tile, solve the panel below (lower) or to its right (upper), and update the trailing
// matrix. Lower, A = L L^H:
//     A(k,k) = L(k,k) L(k,k)^H                       potrf
//     A(m,k) = A(m,k) L(k,k)^{-H}           m > k    trsm (right, lower, conjtrans)
//     A(m,m) = A(m,m) - A(m,k) A(m,k)^H     m > k    herk
//     A(m,n) = A(m,n) - A(m,k) A(n,k)^H     m > n > k gemm
// Upper, A = U^H U, is the conjugate transpose of it. Priorities give the critical path (the
// panel of the next step) precedence, as StarPU's Cholesky does: potrf 2(nt-k), trsm and the
// updates 2(nt-k) - m - n, so lookahead keeps every worker busy. On a distributed matrix the
// ranks give back their copies of panel k once its updates are submitted (release_copies).
//
// When A is a column-major array tiled in place (TileMatrix::wrap), the tiles of a column lie
// one below the other in memory, and the lower update gives rows m and m+1 of a column to one
// task (cl::gemm_stacked): one gemm call on 2nb rows, which OpenBLAS runs about 9% faster than
// two (dpotrf at n = 8000: 131-134 GFlop/s with single tiles, 139-141 with pairs, on 2 cores).
#include <tessera/la/cholesky.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/algorithms/release_copies.hpp"
#include "linalg/codelets/cholesky.hpp"
#include "linalg/instantiate.hpp"

#include <string>

namespace tessera::inline la {

template <Scalar T> void potrf_async(Uplo uplo, TileMatrix<T>& A, Sequence& s)
{
    detail::require_triangle("potrf", uplo);
    require(A.m() == A.n(), "potrf: A is " + std::to_string(A.m()) + " x " + std::to_string(A.n()) +
                                ", not square");
    const auto call = detail::begin_call<T>(s, "potrf", {{"A", A}});
    using R = real_t<T>;
    const int64_t nt = A.nt();
    const bool lower = uplo == Uplo::lower;
    const Op conjtrans = is_complex_v<T> ? Op::conjtrans : Op::trans;
    auto prio = [nt](int64_t k, int64_t m, int64_t n) {
        return rt::priority(int(2 * (nt - k) - m - n));
    };
    // In column n below the diagonal, rows n+1 and n+2, n+3 and n+4 ... pair up: row m is the
    // top of its pair when m - n is odd, and its partner m + 1 exists.
    const bool stack_pairs = lower && !A.owns_storage();
    for (int64_t k = 0; k < nt; ++k) {
        s.submit(cl::potrf<T>, rt::value(uplo), readwrite(A(k, k)), rt::value(k * A.nb()),
                 rt::value(s.info_target(OnInfo::stops)), rt::priority(int(2 * (nt - k))));
        for (int64_t m = k + 1; m < nt; ++m) {
            if (lower)  // A(m,k) = A(m,k) L(k,k)^{-H}
                s.submit(cl::trsm<T>, rt::value(Side::right), rt::value(uplo), rt::value(conjtrans),
                         rt::value(Diag::nonunit), rt::value(T(1)), read(A(k, k)),
                         readwrite(A(m, k)), prio(k, m, k));
            else  // A(k,m) = U(k,k)^{-H} A(k,m)
                s.submit(cl::trsm<T>, rt::value(Side::left), rt::value(uplo), rt::value(conjtrans),
                         rt::value(Diag::nonunit), rt::value(T(1)), read(A(k, k)),
                         readwrite(A(k, m)), prio(k, m, k));
        }
        for (int64_t m = k + 1; m < nt; ++m) {
            auto& panel_m = lower ? A(m, k) : A(k, m);
            // A(m,m) -= A(m,k) A(m,k)^H  (upper: A(k,m)^H A(k,m))
            s.submit(cl::syrk<T>, rt::value(uplo), rt::value(lower ? Op::notrans : conjtrans),
                     rt::value(true), rt::value(T(R(-1))), read(panel_m), rt::value(T(R(1))),
                     readwrite(A(m, m)), prio(k, m, m));
            for (int64_t n = k + 1; n < m; ++n) {
                if (stack_pairs && (m - n) % 2 == 0)
                    continue;                   // the bottom of the pair of row m - 1
                if (stack_pairs && m + 1 < nt)  // [A(m,n); A(m+1,n)] -= [A(m,k); A(m+1,k)] A(n,k)^H
                    s.submit(cl::gemm_stacked<T>, rt::value(Op::notrans), rt::value(conjtrans),
                             rt::value(T(-1)), read(A(m, k)), read(A(m + 1, k)), read(A(n, k)),
                             rt::value(T(1)), readwrite(A(m, n)), readwrite(A(m + 1, n)),
                             prio(k, m, n));
                else if (lower)  // A(m,n) -= A(m,k) A(n,k)^H
                    s.submit(cl::gemm<T>, rt::value(Op::notrans), rt::value(conjtrans),
                             rt::value(T(-1)), read(A(m, k)), read(A(n, k)), rt::value(T(1)),
                             readwrite(A(m, n)), prio(k, m, n));
                else  // A(n,m) -= A(k,n)^H A(k,m)
                    s.submit(cl::gemm<T>, rt::value(conjtrans), rt::value(Op::notrans),
                             rt::value(T(-1)), read(A(k, n)), read(A(k, m)), rt::value(T(1)),
                             readwrite(A(n, m)), prio(k, m, n));
            }
        }
        // the panel's last readers are submitted: on a distributed matrix the ranks give
        // back their copies of it
        if (lower)
            detail::release_copies(A, k, nt, k, k + 1);
        else
            detail::release_copies(A, k, k + 1, k, nt);
    }
}

template <Scalar T> int64_t potrf(Uplo uplo, TileMatrix<T>& A)
{
    detail::require_triangle("potrf", uplo);
    if (!A) return 0;
    return synchronously(A.runtime(), [&](Sequence& s) { potrf_async(uplo, A, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void potrf_async<T>(Uplo, TileMatrix<T>&, Sequence&);                                 \
    template int64_t potrf<T>(Uplo, TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
