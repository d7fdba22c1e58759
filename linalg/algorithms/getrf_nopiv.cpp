// Tile LU without pivoting (the tile LU of StarPU's examples and of the thesis, chapter 7).
// For each step k:
//     A(k,k) = L(k,k) U(k,k)                             LU of the tile, no pivoting
//     A(i,k) = A(i,k) U(k,k)^{-1}        i > k           trsm (right, upper)
//     A(k,j) = L(k,k)^{-1} A(k,j)        j > k           trsm (left, lower, unit)
//     A(i,j) = A(i,j) - A(i,k) A(k,j)    i, j > k        gemm
// A zero pivot stops the factorization (OnInfo::stops): the trsm below it would divide by
// zero. Priorities follow the critical path, as in getrf.cpp.
#include <tessera/la/lu.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/codelets/lu.hpp"
#include "linalg/instantiate.hpp"

namespace tessera::inline la {

template <Scalar T> void getrf_nopiv_async(TileMatrix<T>& A, Sequence& s)
{
    const auto call = detail::begin_call<T>(s, "getrf_nopiv", {{"A", A, true}});
    const int64_t mt = A.mt(), nt = A.nt(), kt = std::min(mt, nt), nb = A.nb();
    auto prio = [nt](int64_t k, int64_t i, int64_t j) {
        return rt::priority(int(2 * (nt - k) - (i - k) - (j - k)));
    };
    for (int64_t k = 0; k < kt; ++k) {
        s.submit(cl::getrf_nopiv<T>, readwrite(A(k, k)), rt::value(k * nb),
                 rt::value(s.info_target(OnInfo::stops)), rt::priority(int(2 * (nt - k) + 1)));
        for (int64_t i = k + 1; i < mt; ++i)
            s.submit(cl::trsm<T>, rt::value(Side::right), rt::value(Uplo::upper),
                     rt::value(Op::notrans), rt::value(Diag::nonunit), rt::value(T(1)),
                     read(A(k, k)), readwrite(A(i, k)), prio(k, i, k));
        for (int64_t j = k + 1; j < nt; ++j) {
            s.submit(cl::trsm<T>, rt::value(Side::left), rt::value(Uplo::lower),
                     rt::value(Op::notrans), rt::value(Diag::unit), rt::value(T(1)), read(A(k, k)),
                     readwrite(A(k, j)), prio(k, k, j));
            for (int64_t i = k + 1; i < mt; ++i)
                s.submit(cl::gemm<T>, rt::value(Op::notrans), rt::value(Op::notrans),
                         rt::value(T(-1)), read(A(i, k)), read(A(k, j)), rt::value(T(1)),
                         readwrite(A(i, j)), prio(k, i, j));
        }
    }
}

template <Scalar T> int64_t getrf_nopiv(TileMatrix<T>& A)
{
    if (!A || std::min(A.m(), A.n()) == 0) return 0;
    return synchronously(A.runtime(), [&](Sequence& s) { getrf_nopiv_async(A, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void getrf_nopiv_async<T>(TileMatrix<T>&, Sequence&);                                 \
    template int64_t getrf_nopiv<T>(TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
