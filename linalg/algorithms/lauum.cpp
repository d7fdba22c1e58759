// Tile product of a triangle with its conjugate transpose (PLASMA's pzlauum), in place.
// Lower, A = L^H L: its tile (m,n), m >= n, is sum_{k >= m} L(k,m)^H L(k,n), and step k adds
// the terms of the tile row k of L (still unchanged) to the tiles above it, then replaces
// that row by its own term:
//     A(n,n) = A(n,n) + A(k,n)^H A(k,n)      n < k          herk
//     A(m,n) = A(m,n) + A(k,m)^H A(k,n)      n < m < k      gemm
//     A(k,n) = A(k,k)^H A(k,n)               n < k          trmm (left)
//     A(k,k) = A(k,k)^H A(k,k)                              lauum
// (each update reads the row k before the trmm of the same step rewrites it). Upper,
// A = U U^H, is the conjugate transpose of it, on the tile column k:
//     A(m,m) = A(m,m) + A(m,k) A(m,k)^H      m < k          herk
//     A(m,n) = A(m,n) + A(m,k) A(n,k)^H      m < n < k      gemm
//     A(m,k) = A(m,k) A(k,k)^H               m < k          trmm (right)
//     A(k,k) = A(k,k) A(k,k)^H                              lauum
#include <tessera/la/cholesky.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/codelets/cholesky.hpp"
#include "linalg/instantiate.hpp"

#include <string>

namespace tessera::inline la {

template <Scalar T> void lauum_async(Uplo uplo, TileMatrix<T>& A, Sequence& s)
{
    detail::require_triangle("lauum", uplo);
    require(A.m() == A.n(), "lauum: A is " + std::to_string(A.m()) + " x " + std::to_string(A.n()) +
                                ", not square");
    const auto call = detail::begin_call<T>(s, "lauum", {{"A", A}});
    using R = real_t<T>;
    auto v = [](auto x) { return rt::value(x); };
    const int64_t nt = A.nt();
    const Op conjtrans = is_complex_v<T> ? Op::conjtrans : Op::trans;
    const T one = T(R(1));
    for (int64_t k = 0; k < nt; ++k) {
        if (uplo == Uplo::lower) {
            for (int64_t n = 0; n < k; ++n) {
                // A(n,n) += A(k,n)^H A(k,n)
                s.submit(cl::syrk<T>, v(uplo), v(conjtrans), v(true), v(one), read(A(k, n)), v(one),
                         readwrite(A(n, n)));
                for (int64_t m = n + 1; m < k; ++m)  // A(m,n) += A(k,m)^H A(k,n)
                    s.submit(cl::gemm<T>, v(conjtrans), v(Op::notrans), v(one), read(A(k, m)),
                             read(A(k, n)), v(one), readwrite(A(m, n)));
            }
            for (int64_t n = 0; n < k; ++n)  // A(k,n) = A(k,k)^H A(k,n)
                s.submit(cl::trmm<T>, v(Side::left), v(uplo), v(conjtrans), v(Diag::nonunit),
                         v(one), read(A(k, k)), readwrite(A(k, n)));
        } else {
            for (int64_t m = 0; m < k; ++m) {
                // A(m,m) += A(m,k) A(m,k)^H
                s.submit(cl::syrk<T>, v(uplo), v(Op::notrans), v(true), v(one), read(A(m, k)),
                         v(one), readwrite(A(m, m)));
                for (int64_t n = m + 1; n < k; ++n)  // A(m,n) += A(m,k) A(n,k)^H
                    s.submit(cl::gemm<T>, v(Op::notrans), v(conjtrans), v(one), read(A(m, k)),
                             read(A(n, k)), v(one), readwrite(A(m, n)));
            }
            for (int64_t m = 0; m < k; ++m)  // A(m,k) = A(m,k) A(k,k)^H
                s.submit(cl::trmm<T>, v(Side::right), v(uplo), v(conjtrans), v(Diag::nonunit),
                         v(one), read(A(k, k)), readwrite(A(m, k)));
        }
        s.submit(cl::lauum<T>, v(uplo),
                 readwrite(A(k, k)));  // last: the trmm reads the triangle itself
    }
}

#define TESSERA_INSTANTIATE(T) template void lauum_async<T>(Uplo, TileMatrix<T>&, Sequence&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
