// Checks trsm, X = alpha op(A)^{-1} B (left) or alpha B op(A)^{-1} (right), in its tile and
// LAPACK-style forms (lda, ldb > rows) in the four precisions, for every (side, uplo, trans,
// diag) and every size s of the sweep with B s x (s/2 + 1) (so left and right solve different
// orders) and tiles that do not divide them: the scaled residual
//     ||op(A) X - alpha B||_1 / (||op(A)||_1 ||X||_1 max(ka, 1) eps)   (right: X op(A))
// stays under tol, ka the order of A. A is well conditioned (off-diagonal entries in
// [-1, 1] / ka, diagonal 1 to 2 in modulus), its other triangle is NaN and so is its diagonal
// when unit: none of them may be read. To keep the binary near 20 s on 2 cores, size 1000
// runs one combination only (right, lower, conjtrans, nonunit). Also: alpha = 0 gives B = 0
// even on a B full of NaN (BLAS), bad arguments throw InvalidLapackArgument with BLAS's
// position, mismatched tile matrices throw InvalidArgument.
#include "accuracy/triangular.hpp"

#include <utility>

namespace tessera::test {
namespace {

/// trsm for the shared checks of triangular.hpp.
struct Trsm {
    static constexpr TriangularCombination largest{Side::right, Uplo::lower, Op::conjtrans,
                                                   Diag::nonunit};
    static constexpr auto call = [](auto&&... args) {
        tessera::trsm(std::forward<decltype(args)>(args)...);
    };
    /// ||op(A) X - alpha B||_1 / (||op(A)||_1 ||X||_1 max(ka, 1) eps), op(A) X computed on the
    /// host with the NaN-free triangle.
    template <Scalar T> static double error(TriangularCase<T> const& t, Dense<T> const& X)
    {
        Dense<T> L = triangle(t.A, t.c.uplo, t.c.diag);
        Dense<T> R = X;
        blas::trmm<T>(t.c.side, t.c.uplo, t.c.trans, Diag::nonunit, t.m, t.n, T(1), L.data(), L.ld,
                      R.data(), R.ld);
        Dense<T> aB(t.m, t.n);
        for (int64_t j = 0; j < t.n; ++j)
            for (int64_t i = 0; i < t.m; ++i) aB(i, j) = t.alpha * t.B0(i, j);
        return norm1_diff(R, aB) /
               (norm1_op(L, t.c.trans) * norm1(X) * double(std::max<int64_t>(t.ka, 1)) * eps<T>());
    }
};

class TrsmAccuracy : public AccuracySweep {};

TEST_P(TrsmAccuracy, TileFormResidual)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        expect_tile_form_under_tol<Trsm, T>(*rt, 30);
    });
}

TEST_P(TrsmAccuracy, LapackFormResidual)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        expect_lapack_form_under_tol<Trsm, T>(40);
    });
}

TEST_P(TrsmAccuracy, AlphaZeroGivesZero)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        LibraryRuntime lib{GetParam()};
        expect_alpha_zero_gives_zero<Trsm, T>(*rt, 7);
    });
}

TEST_P(TrsmAccuracy, AlphaZeroDoesNotReadA)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t n = 40;
        Dense<T> A(n, n), B = random_dense<T>(n, n, 8);
        for (T& x : A.a) x = T(std::numeric_limits<real_t<T>>::infinity());  // BLAS: not referenced
        auto At = tessera::tile_copy_of(*rt, A.data(), n, n, A.ld, 16);
        auto Bt = tessera::tile_copy_of(*rt, B.data(), n, n, B.ld, 16);
        for (Side side : {Side::left, Side::right})
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                tessera::trsm(side, uplo, Op::notrans, Diag::nonunit, T(0), At, Bt);
                Dense<T> X(n, n);
                tessera::tiles_to_lapack(Bt, X.data(), X.ld);
                EXPECT_EQ(norm1(X), 0.0) << "side=" << char(side) << " uplo=" << char(uplo);
            }
    });
}

TEST_P(TrsmAccuracy, BadArgumentsThrowNamingThem)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        expect_bad_arguments_throw<Trsm, T>([&] { return make_runtime(); });
    });
}

TESSERA_INSTANTIATE_ACCURACY(TrsmAccuracy);

}  // namespace
}  // namespace tessera::test
