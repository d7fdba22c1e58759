// Tile SYRK and HERK (PLASMA's pzsyrk, pzherk): C = alpha op(A) op(A)^T + beta C (herk: ^H,
// alpha and beta real) on the `uplo` triangle of the n x n C, op(A) n x k. With op(A)(i, l)
// the tile (i, l) of op(A) (A(l, i) when trans), for each l:
//     C(m, m) = alpha op(A)(m, l) op(A)(m, l)^T + lbeta C(m, m)              syrk/herk
//     C(m, n) = alpha op(A)(m, l) op(A)(n, l)^T + lbeta C(m, n)   m > n      gemm (lower)
//                                                                 m < n      gemm (upper)
// with lbeta = beta at l = 0 and 1 after; l is the outer loop as in gemm.cpp. Tiles strictly
// in the other triangle are never touched, and in a diagonal tile only its `uplo` triangle is
// (the syrk/herk kernel's rule). When alpha = 0 or k = 0 (BLAS: A not referenced), C = beta C
// on the triangle: scale for the off-diagonal tiles, and for a diagonal tile the syrk/herk
// kernel with alpha = 0 (which does not reference its A, so C(m, m) itself is passed).
#include <tessera/la/blas.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/codelets/blas3.hpp"
#include "linalg/codelets/matrix.hpp"
#include "linalg/instantiate.hpp"

#include <string>

namespace tessera::inline la {

namespace {

template <Scalar T>
void check_syrk_or_herk(std::string const& name, bool hermitian, Uplo uplo, Op trans,
                        TileMatrix<T> const& A, TileMatrix<T> const& C)
{
    detail::require_triangle(name, uplo);
    // BLAS's meanings: syrk is op(A) op(A)^T, herk op(A) op(A)^H; for real T both are the same
    // and every trans is accepted (Op::conjtrans = Op::trans).
    const Op t = hermitian && is_complex_v<T> ? Op::conjtrans : Op::trans;
    if constexpr (is_complex_v<T>)
        require(trans == Op::notrans || trans == t,
                name + ": trans must be Op::notrans or " +
                    (hermitian ? "Op::conjtrans" : "Op::trans") + " for a complex matrix");
    else
        detail::require_op(name, "trans", trans);
    const bool notrans = trans == Op::notrans;
    const int64_t an = notrans ? A.m() : A.n(), ak = notrans ? A.n() : A.m();
    require(C.m() == C.n() && an == C.n(), name + ": op(A) is " + std::to_string(an) + " x " +
                                               std::to_string(ak) + ", C " + std::to_string(C.m()) +
                                               " x " + std::to_string(C.n()) +
                                               ": C must be square of order the rows of op(A)");
    require(C.n() == 0 || ak == 0 || A.nb() == C.nb(),
            name + ": A and C must have the same tile size");
}

template <Scalar T>
void syrk_or_herk_async(char const* fn, bool hermitian, Uplo uplo, Op trans, T alpha,
                        TileMatrix<T> const& A, T beta, TileMatrix<T>& C, Sequence& s)
{
    check_syrk_or_herk(fn, hermitian, uplo, trans, A, C);
    const auto call = detail::begin_call<T>(s, fn, {{"A", A}, {"C", C, true}});
    if (C.n() == 0) return;
    const Op t = hermitian && is_complex_v<T> ? Op::conjtrans : Op::trans;
    const bool notrans = trans == Op::notrans;
    const Op op = notrans ? Op::notrans : t;  // the kernels' trans
    const bool lower = uplo == Uplo::lower;
    auto v = [](auto x) { return rt::value(x); };
    const int64_t nt = C.nt(), kt = notrans ? A.nt() : A.mt();
    if (kt == 0 || alpha == T(0)) {  // C = beta C on the triangle; A is not referenced (BLAS)
        if (beta == T(1)) return;
        for (int64_t n = 0; n < nt; ++n) {
            s.submit(cl::syrk<T>, v(uplo), v(Op::notrans), v(hermitian), v(T(0)), read(C(n, n)),
                     v(beta), readwrite(C(n, n)));
            for (int64_t m = lower ? n + 1 : 0; m < (lower ? nt : n); ++m)
                s.submit(cl::scale<T>, v(beta), readwrite(C(m, n)));
        }
        return;
    }
    // op(A)(i, l), and gemm's op of its second operand, so that it computes
    // op(A)(m, l) op(A)(n, l)^T (^H) from the stored tiles.
    auto opA = [&](int64_t i, int64_t l) -> auto const&
    {
        return notrans ? A(i, l) : A(l, i);
    };
    const Op second = notrans ? t : Op::notrans;
    for (int64_t l = 0; l < kt; ++l) {
        const T lbeta = l == 0 ? beta : T(1);
        for (int64_t n = 0; n < nt; ++n) {
            // C(n,n) = alpha op(A)(n,l) op(A)(n,l)^T + lbeta C(n,n)
            s.submit(cl::syrk<T>, v(uplo), v(op), v(hermitian), v(alpha), read(opA(n, l)), v(lbeta),
                     readwrite(C(n, n)));
            // C(m,n) = alpha op(A)(m,l) op(A)(n,l)^T + lbeta C(m,n), (m, n) in the triangle
            for (int64_t m = lower ? n + 1 : 0; m < (lower ? nt : n); ++m)
                s.submit(cl::gemm<T>, v(op), v(second), v(alpha), read(opA(m, l)), read(opA(n, l)),
                         v(lbeta), readwrite(C(m, n)));
        }
    }
}

}  // namespace

template <Scalar T>
void syrk_async(Uplo uplo, Op trans, scalar_arg<T> alpha, TileMatrix<T> const& A,
                scalar_arg<T> beta, TileMatrix<T>& C, Sequence& s)
{
    syrk_or_herk_async<T>("syrk", false, uplo, trans, alpha, A, beta, C, s);
}

template <Scalar T>
void syrk(Uplo uplo, Op trans, scalar_arg<T> alpha, TileMatrix<T> const& A, scalar_arg<T> beta,
          TileMatrix<T>& C)
{
    check_syrk_or_herk("syrk", false, uplo, trans, A, C);  // also when C is empty
    if (!C) return;
    synchronously(C.runtime(), [&](Sequence& s) { syrk_async(uplo, trans, alpha, A, beta, C, s); });
}

template <Scalar T>
void herk_async(Uplo uplo, Op trans, real_t<T> alpha, TileMatrix<T> const& A, real_t<T> beta,
                TileMatrix<T>& C, Sequence& s)
{
    syrk_or_herk_async<T>("herk", true, uplo, trans, T(alpha), A, T(beta), C, s);
}

template <Scalar T>
void herk(Uplo uplo, Op trans, real_t<T> alpha, TileMatrix<T> const& A, real_t<T> beta,
          TileMatrix<T>& C)
{
    check_syrk_or_herk("herk", true, uplo, trans, A, C);  // also when C is empty
    if (!C) return;
    synchronously(C.runtime(), [&](Sequence& s) { herk_async(uplo, trans, alpha, A, beta, C, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void syrk_async<T>(Uplo, Op, T, TileMatrix<T> const&, T, TileMatrix<T>&, Sequence&);  \
    template void syrk<T>(Uplo, Op, T, TileMatrix<T> const&, T, TileMatrix<T>&);                   \
    template void herk_async<T>(Uplo, Op, real_t<T>, TileMatrix<T> const&, real_t<T>,              \
                                TileMatrix<T>&, Sequence&);                                        \
    template void herk<T>(Uplo, Op, real_t<T>, TileMatrix<T> const&, real_t<T>, TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
