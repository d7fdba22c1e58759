// Tile GEMM: C(m, n) = alpha sum_k op(A)(m, k) op(B)(k, n) + beta C(m, n), one task per
// (m, n, k); the k-chain of each C tile runs in order (its RW accesses), the chains in
// parallel. k is the outer loop so that every chain can start at once.
#include <tessera/la/blas.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/codelets/blas3.hpp"
#include "linalg/codelets/matrix.hpp"
#include "linalg/instantiate.hpp"

#include <string>

namespace tessera::inline la {

namespace {
template <Scalar T>
void check_gemm(Op transa, Op transb, TileMatrix<T> const& A, TileMatrix<T> const& B,
                TileMatrix<T> const& C)
{
    detail::require_op("gemm", "transa", transa);
    detail::require_op("gemm", "transb", transb);
    const bool ta = transa != Op::notrans, tb = transb != Op::notrans;
    const int64_t am = ta ? A.n() : A.m(), ak = ta ? A.m() : A.n();
    const int64_t bk = tb ? B.n() : B.m(), bn = tb ? B.m() : B.n();
    require(am == C.m() && bn == C.n() && ak == bk,
            "gemm: op(A) is " + std::to_string(am) + " x " + std::to_string(ak) + ", op(B) " +
                std::to_string(bk) + " x " + std::to_string(bn) + ", C " + std::to_string(C.m()) +
                " x " + std::to_string(C.n()) + ": the sizes do not match");
    require((A.nb() == C.nb() || ak == 0 || C.m() == 0) &&
                (B.nb() == C.nb() || ak == 0 || C.n() == 0),
            "gemm: A, B and C must have the same tile size");
}
}  // namespace

template <Scalar T>
void gemm_async(Op transa, Op transb, scalar_arg<T> alpha, TileMatrix<T> const& A,
                TileMatrix<T> const& B, scalar_arg<T> beta, TileMatrix<T>& C, Sequence& s)
{
    check_gemm(transa, transb, A, B, C);
    const auto call = detail::begin_call<T>(s, "gemm", {{"A", A}, {"B", B}, {"C", C, true}});
    const bool ta = transa != Op::notrans, tb = transb != Op::notrans;
    const int64_t kt = ta ? A.mt() : A.nt();
    if (C.m() == 0 || C.n() == 0) return;
    if (kt == 0 || alpha == T(0)) {  // C = beta C; A and B are not referenced (BLAS)
        if (beta != T(1)) scale_async(beta, C, s);
        return;
    }
    for (int64_t k = 0; k < kt; ++k) {
        const T zbeta = k == 0 ? T(beta) : T(1);
        for (int64_t n = 0; n < C.nt(); ++n)
            for (int64_t m = 0; m < C.mt(); ++m)
                s.submit(cl::gemm<T>, rt::value(transa), rt::value(transb), rt::value(T(alpha)),
                         read(ta ? A(k, m) : A(m, k)), read(tb ? B(n, k) : B(k, n)),
                         rt::value(zbeta), readwrite(C(m, n)));
    }
}

template <Scalar T>
void gemm(Op transa, Op transb, scalar_arg<T> alpha, TileMatrix<T> const& A, TileMatrix<T> const& B,
          scalar_arg<T> beta, TileMatrix<T>& C)
{
    check_gemm(transa, transb, A, B, C);  // also when C is empty
    if (!C) return;
    synchronously(C.runtime(),
                  [&](Sequence& s) { gemm_async(transa, transb, alpha, A, B, beta, C, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void gemm_async<T>(Op, Op, T, TileMatrix<T> const&, TileMatrix<T> const&, T,          \
                                TileMatrix<T>&, Sequence&);                                        \
    template void gemm<T>(Op, Op, T, TileMatrix<T> const&, TileMatrix<T> const&, T, TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
