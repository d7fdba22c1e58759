// Tile SYMM and HEMM (PLASMA's pzsymm, pzhemm): C = alpha A B + beta C (left) or
// alpha B A + beta C (right), A symmetric (Hermitian) with only its `uplo` triangle stored.
// Tile (i, j) of the full A is read from the stored triangle:
//     A(k, k)                   the diagonal tile: symm/hemm kernel on its `uplo` triangle
//     A(i, j)                   (i, j) in the stored triangle: gemm with A(i, j)
//     A(j, i)^T  (hemm: ^H)     (i, j) in the other one: gemm with the transpose of A(j, i)
// so that, left,  C(m, n) = beta C(m, n) + alpha sum_k A(m, k) B(k, n),
//          right, C(m, n) = beta C(m, n) + alpha sum_k B(m, k) A(k, n),
// one task per (m, n, k) with k the outer loop as in gemm.cpp (beta at k = 0, 1 after).
#include <tessera/la/blas.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/codelets/blas3.hpp"
#include "linalg/instantiate.hpp"

#include <string>

namespace tessera::inline la {

namespace {

template <Scalar T>
void check_symm_or_hemm(std::string const& name, Side side, Uplo uplo, TileMatrix<T> const& A,
                        TileMatrix<T> const& B, TileMatrix<T> const& C)
{
    detail::require_side(name, side);
    detail::require_triangle(name, uplo);
    const int64_t na = side == Side::left ? C.m() : C.n();
    require(A.m() == A.n() && A.m() == na && B.m() == C.m() && B.n() == C.n(),
            name + ": A is " + std::to_string(A.m()) + " x " + std::to_string(A.n()) + ", B " +
                std::to_string(B.m()) + " x " + std::to_string(B.n()) + ", C " +
                std::to_string(C.m()) + " x " + std::to_string(C.n()) +
                ": A must be square of order " + std::to_string(na) + " (the " +
                (side == Side::left ? "rows" : "columns") + " of C) and B the size of C");
    require(C.m() == 0 || C.n() == 0 || (A.nb() == C.nb() && B.nb() == C.nb()),
            name + ": A, B and C must have the same tile size");
}

template <Scalar T>
void symm_or_hemm_async(char const* fn, bool hermitian, Side side, Uplo uplo, T alpha,
                        TileMatrix<T> const& A, TileMatrix<T> const& B, T beta, TileMatrix<T>& C,
                        Sequence& s)
{
    check_symm_or_hemm(fn, side, uplo, A, B, C);
    const auto call = detail::begin_call<T>(s, fn, {{"A", A}, {"B", B}, {"C", C, true}});
    if (C.m() == 0 || C.n() == 0) return;
    if (alpha == T(0)) {  // C = beta C; A and B are not referenced (BLAS)
        if (beta != T(1)) scale_async(beta, C, s);
        return;
    }
    const Op t = hermitian && is_complex_v<T> ? Op::conjtrans : Op::trans;
    const bool lower = uplo == Uplo::lower;
    auto v = [](auto x) { return rt::value(x); };
    // Tile (i, j) of the full A: stored as A(i, j), or as A(j, i) to be transposed.
    auto stored = [&](int64_t i, int64_t j) { return lower ? i > j : i < j; };
    auto tileA = [&](int64_t i, int64_t j) -> auto const&
    {
        return stored(i, j) ? A(i, j) : A(j, i);
    };
    auto opA = [&](int64_t i, int64_t j) { return stored(i, j) ? Op::notrans : t; };
    const int64_t kt = A.nt();
    for (int64_t k = 0; k < kt; ++k) {
        const T zbeta = k == 0 ? beta : T(1);
        for (int64_t n = 0; n < C.nt(); ++n)
            for (int64_t m = 0; m < C.mt(); ++m) {
                if (side == Side::left) {
                    if (k == m)  // C(m,n) = alpha A(m,m) B(m,n) + zbeta C(m,n), A(m,m) symmetric
                        s.submit(cl::symm<T>, v(side), v(uplo), v(hermitian), v(alpha),
                                 read(A(m, m)), read(B(m, n)), v(zbeta), readwrite(C(m, n)));
                    else  // C(m,n) = alpha A(m,k) B(k,n) + zbeta C(m,n)
                        s.submit(cl::gemm<T>, v(opA(m, k)), v(Op::notrans), v(alpha),
                                 read(tileA(m, k)), read(B(k, n)), v(zbeta), readwrite(C(m, n)));
                } else {
                    if (k == n)  // C(m,n) = alpha B(m,n) A(n,n) + zbeta C(m,n)
                        s.submit(cl::symm<T>, v(side), v(uplo), v(hermitian), v(alpha),
                                 read(A(n, n)), read(B(m, n)), v(zbeta), readwrite(C(m, n)));
                    else  // C(m,n) = alpha B(m,k) A(k,n) + zbeta C(m,n)
                        s.submit(cl::gemm<T>, v(Op::notrans), v(opA(k, n)), v(alpha), read(B(m, k)),
                                 read(tileA(k, n)), v(zbeta), readwrite(C(m, n)));
                }
            }
    }
}

}  // namespace

template <Scalar T>
void symm_async(Side side, Uplo uplo, scalar_arg<T> alpha, TileMatrix<T> const& A,
                TileMatrix<T> const& B, scalar_arg<T> beta, TileMatrix<T>& C, Sequence& s)
{
    symm_or_hemm_async<T>("symm", false, side, uplo, alpha, A, B, beta, C, s);
}

template <Scalar T>
void symm(Side side, Uplo uplo, scalar_arg<T> alpha, TileMatrix<T> const& A, TileMatrix<T> const& B,
          scalar_arg<T> beta, TileMatrix<T>& C)
{
    check_symm_or_hemm("symm", side, uplo, A, B, C);  // also when C is empty
    if (!C) return;
    synchronously(C.runtime(),
                  [&](Sequence& s) { symm_async(side, uplo, alpha, A, B, beta, C, s); });
}

template <Scalar T>
void hemm_async(Side side, Uplo uplo, scalar_arg<T> alpha, TileMatrix<T> const& A,
                TileMatrix<T> const& B, scalar_arg<T> beta, TileMatrix<T>& C, Sequence& s)
{
    symm_or_hemm_async<T>("hemm", true, side, uplo, alpha, A, B, beta, C, s);
}

template <Scalar T>
void hemm(Side side, Uplo uplo, scalar_arg<T> alpha, TileMatrix<T> const& A, TileMatrix<T> const& B,
          scalar_arg<T> beta, TileMatrix<T>& C)
{
    check_symm_or_hemm("hemm", side, uplo, A, B, C);  // also when C is empty
    if (!C) return;
    synchronously(C.runtime(),
                  [&](Sequence& s) { hemm_async(side, uplo, alpha, A, B, beta, C, s); });
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void symm_async<T>(Side, Uplo, T, TileMatrix<T> const&, TileMatrix<T> const&, T,      \
                                TileMatrix<T>&, Sequence&);                                        \
    template void symm<T>(Side, Uplo, T, TileMatrix<T> const&, TileMatrix<T> const&, T,            \
                          TileMatrix<T>&);                                                         \
    template void hemm_async<T>(Side, Uplo, T, TileMatrix<T> const&, TileMatrix<T> const&, T,      \
                                TileMatrix<T>&, Sequence&);                                        \
    template void hemm<T>(Side, Uplo, T, TileMatrix<T> const&, TileMatrix<T> const&, T,            \
                          TileMatrix<T>&);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
