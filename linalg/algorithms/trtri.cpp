// Tile triangular inverse (PLASMA's pztrtri), right-looking. Lower: with
//     L = [L11 0; L21 L22],   L^{-1} = [L11^{-1} 0; -L22^{-1} L21 L11^{-1}  L22^{-1}],
// step k turns the tile column k into its part of the inverse and carries it to the rows
// below, on tiles whose earlier columns already hold -(L21 L11^{-1}) in progress:
//     A(m,k) = -A(m,k) A(k,k)^{-1}          m > k         trsm (right)
//     A(m,n) = A(m,n) + A(m,k) A(k,n)       m > k > n     gemm
//     A(k,n) = A(k,k)^{-1} A(k,n)           k > n         trsm (left)
//     A(k,k) = A(k,k)^{-1}                                trtri
// (the gemm reads A(k,n) before the left trsm of the same step rewrites it). Upper is the
// transpose of it:
//     A(k,n) = -A(k,k)^{-1} A(k,n)          n > k         trsm (left)
//     A(m,n) = A(m,n) + A(m,k) A(k,n)       m < k < n     gemm
//     A(m,k) = A(m,k) A(k,k)^{-1}           m < k         trsm (right)
//     A(k,k) = A(k,k)^{-1}                                trtri
// A zero diagonal entry a_ii makes the diagonal tile's trtri record info = i + 1 (the
// smallest one wins, as LAPACK checks the diagonal in order); the inverse is then unspecified.
#include <tessera/la/cholesky.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/codelets/cholesky.hpp"
#include "linalg/instantiate.hpp"

#include <string>

namespace tessera::inline la {

template <Scalar T> void trtri_async(Uplo uplo, Diag diag, TileMatrix<T>& A, Sequence& s)
{
    detail::require_triangle("trtri", uplo);
    require(diag == Diag::nonunit || diag == Diag::unit,
            "trtri: diag must be Diag::nonunit or Diag::unit");
    require(A.m() == A.n(), "trtri: A is " + std::to_string(A.m()) + " x " + std::to_string(A.n()) +
                                ", not square");
    const auto call = detail::begin_call<T>(s, "trtri", {{"A", A}});
    using R = real_t<T>;
    auto v = [](auto x) { return rt::value(x); };
    const int64_t nt = A.nt();
    const T one = T(R(1)), minus_one = T(R(-1));
    const uint64_t finding = s.finding_call();
    for (int64_t k = 0; k < nt; ++k) {
        if (uplo == Uplo::lower) {
            for (int64_t m = k + 1; m < nt; ++m)  // A(m,k) = -A(m,k) A(k,k)^{-1}
                s.submit(cl::trsm<T>, v(Side::right), v(uplo), v(Op::notrans), v(diag),
                         v(minus_one), read(A(k, k)), readwrite(A(m, k)));
            for (int64_t m = k + 1; m < nt; ++m)
                for (int64_t n = 0; n < k; ++n)  // A(m,n) += A(m,k) A(k,n)
                    s.submit(cl::gemm<T>, v(Op::notrans), v(Op::notrans), v(one), read(A(m, k)),
                             read(A(k, n)), v(one), readwrite(A(m, n)));
            for (int64_t n = 0; n < k; ++n)  // A(k,n) = A(k,k)^{-1} A(k,n)
                s.submit(cl::trsm<T>, v(Side::left), v(uplo), v(Op::notrans), v(diag), v(one),
                         read(A(k, k)), readwrite(A(k, n)));
        } else {
            for (int64_t n = k + 1; n < nt; ++n)  // A(k,n) = -A(k,k)^{-1} A(k,n)
                s.submit(cl::trsm<T>, v(Side::left), v(uplo), v(Op::notrans), v(diag), v(minus_one),
                         read(A(k, k)), readwrite(A(k, n)));
            for (int64_t m = 0; m < k; ++m)
                for (int64_t n = k + 1; n < nt; ++n)  // A(m,n) += A(m,k) A(k,n)
                    s.submit(cl::gemm<T>, v(Op::notrans), v(Op::notrans), v(one), read(A(m, k)),
                             read(A(k, n)), v(one), readwrite(A(m, n)));
            for (int64_t m = 0; m < k; ++m)  // A(m,k) = A(m,k) A(k,k)^{-1}
                s.submit(cl::trsm<T>, v(Side::right), v(uplo), v(Op::notrans), v(diag), v(one),
                         read(A(k, k)), readwrite(A(m, k)));
        }
        // A(k,k) = A(k,k)^{-1}, last: the solves above read the triangle itself. The diagonal
        // tiles do not wait for each other: each runs even after another's failure, so that
        // the first zero on the diagonal is the one reported (but not after an earlier call's).
        s.submit_finding_info(finding, cl::trtri<T>, v(uplo), v(diag), readwrite(A(k, k)),
                              v(k * A.nb()), v(s.info_target(OnInfo::stops, finding)));
    }
}

#define TESSERA_INSTANTIATE(T) template void trtri_async<T>(Uplo, Diag, TileMatrix<T>&, Sequence&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
