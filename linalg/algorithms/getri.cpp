// Tile inverse from the LU factors (LAPACK's getri, PLASMA's pzgetri): A = P L U, so
//     inv(A) = inv(U) inv(L) P^T
//     1. A's upper triangle = inv(U)                  trtri (upper, non-unit), in place
//     2. L moves to a tile copy; A keeps inv(U) alone  (zeros below the diagonal)
//     3. A = A inv(L)                                   trsm (right, lower, unit)
//     4. A's columns swapped by ipiv, last first        P^T on the right
// An exactly zero U(k,k) gives info = k and stops (trtri's OpenInfo::stops): A is then
// unspecified in the tile forms; the LAPACK-style form checks U's diagonal first and leaves A
// untouched, as LAPACK's getri.
#include <tessera/la/blas.hpp>
#include <tessera/la/cholesky.hpp>
#include <tessera/la/lu.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/codelets/lu.hpp"
#include "linalg/instantiate.hpp"

#include <string>
#include <vector>

namespace tessera::inline la {

template <Scalar T> void getri_async(TileMatrix<T>& A, Pivots const& ipiv, Sequence& s)
{
    require(A.m() == A.n(), [&] {
        return "getri: A is " + std::to_string(A.m()) + " x " + std::to_string(A.n()) +
               ", not square";
    });
    detail::require_pivots_of("getri", ipiv, A);
    require(A.n() == 0 || &ipiv.runtime() == &s.runtime(),
            "getri: ipiv lives on another runtime than the sequence");
    const auto call = detail::begin_call<T>(s, "getri", {{"A", A, true}});
    const int64_t nt = A.nt();
    if (nt == 0) return;
    trtri_async(Uplo::upper, Diag::nonunit, A, s);
    TileMatrix<T> L{s.runtime(), A.m(), A.n(), A.nb()};
    for (int64_t j = 0; j < nt; ++j)
        for (int64_t i = j; i < nt; ++i)
            s.submit(cl::take_lower<T>, readwrite(A(i, j)), rt::write(L(i, j)), rt::value(i == j));
    trsm_async<T>(Side::right, Uplo::lower, Op::notrans, Diag::unit, T(1), L, A, s);
    std::vector<Pivots::Piece const*> pieces;
    for (int64_t k = 0; k < ipiv.pieces(); ++k) pieces.push_back(&ipiv.piece(k));
    for (int64_t i = 0; i < nt; ++i) {
        std::vector<typename TileMatrix<T>::Tile*> row;
        for (int64_t j = 0; j < nt; ++j) row.push_back(&A(i, j));
        s.submit(cl::swap_columns<T>, rt::readwrite_all(row), rt::read_all(pieces));
    }
    s.keep_alive(
        std::make_shared<TileMatrix<T>>(std::move(L)));  // its tiles until the tasks are done
}

template <Scalar T> int64_t getri(TileMatrix<T>& A, Pivots const& ipiv)
{
    if (!A || A.n() == 0) return 0;
    return synchronously(A.runtime(), [&](Sequence& s) { getri_async(A, ipiv, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void getri_async<T>(TileMatrix<T>&, Pivots const&, Sequence&);                        \
    template int64_t getri<T>(TileMatrix<T>&, Pivots const&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
