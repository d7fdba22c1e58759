// Shared pieces of the accuracy tests of trmm and trsm (test_trmm.cpp, test_trsm.cpp): the
// well-conditioned triangular A with NaNs where it must not be read, the (side, uplo, trans,
// diag) combinations, the inputs of one call, and the checks both routines pass the same way.
// A routine is given as a struct R with
//     static constexpr TriangularCombination largest;   // the one combination run at size 1000
//     static constexpr auto call = ...;                 // tessera::trmm (trsm), every form
//     template <Scalar T>                               // the scaled error (B not empty)
//     static double error(TriangularCase<T> const&, Dense<T> const& B);
#pragma once

#include "accuracy/accuracy.hpp"

namespace tessera::test {

/// A well-conditioned triangular ka x ka matrix in its `uplo` triangle: off-diagonal entries
/// in [-1, 1] / ka, diagonal 1.5 +- 0.5; NaN in the other triangle, and on the diagonal when
/// unit (never to be read).
template <Scalar T>
Dense<T> triangular_dense(int64_t ka, Uplo uplo, Diag diag, uint64_t seed, int64_t pad = 0)
{
    Dense<T> A = random_dense<T>(ka, ka, seed, ka + pad);
    using R = real_t<T>;
    for (int64_t j = 0; j < ka; ++j)
        for (int64_t i = 0; i < ka; ++i) {
            if (i == j)
                A(i, j) = diag == Diag::unit ? nan<T>() : T(R(1.5)) + A(i, j) * R(0.5);
            else if (uplo == Uplo::lower ? i > j : i < j)
                A(i, j) *= R(1.0 / double(ka));
            else
                A(i, j) = nan<T>();
        }
    return A;
}

/// One (side, uplo, trans, diag).
struct TriangularCombination {
    Side side;
    Uplo uplo;
    Op trans;
    Diag diag;
    std::string what(int64_t m, int64_t n) const
    {
        return "m=" + std::to_string(m) + " n=" + std::to_string(n) + " side=" + char(side) +
               " uplo=" + char(uplo) + " trans=" + char(trans) + " diag=" + char(diag);
    }
};
/// Every (side, uplo, trans, diag), or `largest` only at the largest size (to keep a binary
/// near 20 s on 2 cores).
inline std::vector<TriangularCombination> triangular_combinations(int64_t s,
                                                                  TriangularCombination largest)
{
    if (s >= 1000) return {largest};
    std::vector<TriangularCombination> v;
    for (Side side : {Side::left, Side::right})
        for (Uplo uplo : {Uplo::lower, Uplo::upper})
            for (Op trans : {Op::notrans, Op::trans, Op::conjtrans})
                for (Diag diag : {Diag::nonunit, Diag::unit})
                    v.push_back({side, uplo, trans, diag});
    return v;
}

/// The inputs of one trmm or trsm: B m x n, A of order ka (m left, n right), leading
/// dimensions rows + pad.
template <Scalar T> struct TriangularCase {
    TriangularCombination c;
    int64_t m, n, ka;
    T alpha = scalar<T>(0.7, -0.3);
    Dense<T> A, B0;
    TriangularCase(TriangularCombination c_, int64_t m_, int64_t n_, uint64_t seed, int64_t pad = 0)
        : c(c_), m(m_), n(n_), ka(c.side == Side::left ? m : n)
    {
        A = triangular_dense<T>(ka, c.uplo, c.diag, seed, pad);
        B0 = random_dense<T>(m, n, seed + 1, m + pad);
    }
    std::string what() const { return c.what(m, n); }
};

/// R's scaled error of B; 0 for an empty B.
template <class R, Scalar T> double error_of(TriangularCase<T> const& t, Dense<T> const& B)
{
    return t.m == 0 || t.n == 0 ? 0 : R::error(t, B);
}

/// R's tile form on copies of the case's matrices; returns B.
template <class R, Scalar T>
Dense<T> tile_form(rt::Runtime& rt, TriangularCase<T> const& t, int64_t nb)
{
    auto A = tiles_of(rt, t.A, nb);
    auto B = tiles_of(rt, t.B0, nb);
    R::call(t.c.side, t.c.uplo, t.c.trans, t.c.diag, t.alpha, A, B);
    return to_dense(B);
}
/// R's LAPACK-style form on a copy of B0, with `a` for A; returns B.
template <class R, Scalar T> Dense<T> lapack_form(TriangularCase<T> const& t, T const* a)
{
    Dense<T> B = t.B0;
    R::call(t.c.side, t.c.uplo, t.c.trans, t.c.diag, t.m, t.n, t.alpha, a, t.A.ld, B.data(), B.ld);
    return B;
}

/// The tile form's error stays under tol for every size s of the sweep (B s x (s/2 + 1),
/// seeds seed + s) and every combination.
template <class R, Scalar T> void expect_tile_form_under_tol(rt::Runtime& rt, uint64_t seed)
{
    for (int64_t s : accuracy_sizes())
        for (TriangularCombination c : triangular_combinations(s, R::largest)) {
            TriangularCase<T> t(c, s, s / 2 + 1, seed + uint64_t(s));
            EXPECT_LT(error_of<R>(t, tile_form<R>(rt, t, tile_for(s))), tol) << t.what();
        }
}
/// The same for the LAPACK-style form on the library's runtime, with lda, ldb = rows + 3.
template <class R, Scalar T> void expect_lapack_form_under_tol(uint64_t seed)
{
    for (int64_t s : accuracy_sizes()) {
        tessera::set_tile_size(tile_for(s));
        for (TriangularCombination c : triangular_combinations(s, R::largest)) {
            TriangularCase<T> t(c, s, s / 2 + 1, seed + uint64_t(s), 3);  // lda, ldb = rows + 3
            EXPECT_LT(error_of<R>(t, lapack_form<R>(t, t.A.data())), tol) << t.what();
        }
    }
}

/// alpha = 0 gives B = 0 even on a B full of NaN (BLAS), in the tile form and in the
/// LAPACK-style form (on the library's runtime), where A is not referenced: null is fine.
template <class R, Scalar T> void expect_alpha_zero_gives_zero(rt::Runtime& rt, uint64_t seed)
{
    const int64_t m = 100, n = 51, nb = tile_for(m);
    tessera::set_tile_size(nb);
    for (Side side : {Side::left, Side::right}) {
        TriangularCase<T> t({side, Uplo::upper, Op::notrans, Diag::nonunit}, m, n, seed);
        t.alpha = T(0);
        for (T& x : t.B0.a) x = nan<T>();
        Dense<T> B = tile_form<R>(rt, t, nb);
        EXPECT_FALSE(has_nan(B)) << "tile form, side=" << char(side);
        EXPECT_EQ(norm1(B), 0.0) << "tile form, side=" << char(side);
        B = lapack_form<R>(t, static_cast<T const*>(nullptr));
        EXPECT_FALSE(has_nan(B)) << "LAPACK form, side=" << char(side);
        EXPECT_EQ(norm1(B), 0.0) << "LAPACK form, side=" << char(side);
    }
}

/// Bad arguments of the LAPACK-style form (on the library's runtime) throw
/// InvalidLapackArgument with BLAS's position; then, on make_runtime()'s runtime, mismatched
/// tile matrices throw InvalidArgument.
template <class R, Scalar T, class MakeRuntime>
void expect_bad_arguments_throw(MakeRuntime const& make_runtime)
{
    std::vector<T> a(64, T(1)), b(64);
    auto call = [&](Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T const* pa,
                    int64_t lda, T* pb, int64_t ldb) {
        return argument_position(
            [&] { R::call(side, uplo, trans, diag, m, n, T(1), pa, lda, pb, ldb); });
    };
    const Side L = Side::left, Ri = Side::right;
    const Uplo Lo = Uplo::lower;
    const Op N = Op::notrans;
    const Diag D = Diag::nonunit;
    EXPECT_EQ(call(L, Lo, N, D, 4, 4, a.data(), 4, b.data(), 4), 0);
    EXPECT_EQ(call(Side('X'), Lo, N, D, 4, 4, a.data(), 4, b.data(), 4), 1);
    EXPECT_EQ(call(L, Uplo('X'), N, D, 4, 4, a.data(), 4, b.data(), 4), 2);
    EXPECT_EQ(call(L, Uplo::general, N, D, 4, 4, a.data(), 4, b.data(), 4), 2);
    EXPECT_EQ(call(L, Lo, Op('X'), D, 4, 4, a.data(), 4, b.data(), 4), 3);
    EXPECT_EQ(call(L, Lo, N, Diag('X'), 4, 4, a.data(), 4, b.data(), 4), 4);
    EXPECT_EQ(call(L, Lo, N, D, -1, 4, a.data(), 4, b.data(), 4), 5);
    EXPECT_EQ(call(L, Lo, N, D, 4, -1, a.data(), 4, b.data(), 4), 6);
    EXPECT_EQ(call(L, Lo, N, D, 4, 4, nullptr, 4, b.data(), 4), 8);
    EXPECT_EQ(call(L, Lo, N, D, 4, 2, a.data(), 3, b.data(), 4), 9);   // left: lda >= m
    EXPECT_EQ(call(Ri, Lo, N, D, 2, 4, a.data(), 3, b.data(), 2), 9);  // right: lda >= n
    EXPECT_EQ(call(Ri, Lo, N, D, 2, 4, a.data(), 4, b.data(), 2), 0);
    EXPECT_EQ(call(L, Lo, N, D, 4, 4, a.data(), 4, nullptr, 4), 10);
    EXPECT_EQ(call(L, Lo, N, D, 4, 4, a.data(), 4, b.data(), 3), 11);

    auto rt = make_runtime();
    tessera::TileMatrix<T> A4{*rt, 4, 4, 2}, A43{*rt, 4, 3, 2}, B{*rt, 4, 3, 2}, A3{*rt, 4, 4, 3};
    const T one(1);
    EXPECT_THROW(R::call(L, Lo, N, D, one, A43, B), tessera::InvalidArgument);  // not square
    EXPECT_THROW(R::call(Ri, Lo, N, D, one, A4, B), tessera::InvalidArgument);  // order 4 vs 3
    EXPECT_THROW(R::call(L, Lo, N, D, one, A3, B), tessera::InvalidArgument);   // tile sizes
    EXPECT_THROW(R::call(L, Uplo::general, N, D, one, A4, B), tessera::InvalidArgument);  // uplo
}

}  // namespace tessera::test
