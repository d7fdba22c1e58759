// Checks trmm, B = alpha op(A) B (left) or alpha B op(A) (right), in place, in its tile and
// LAPACK-style forms (lda, ldb > rows) in the four precisions, against the same CBLAS call on
// the host, for every (side, uplo, trans, diag) and every size s of the sweep with B
// s x (s/2 + 1) (so left and right multiply by different orders) and tiles that do not divide
// them: the scaled error
//     ||B - Bref||_1 / (|alpha| ||op(A)||_1 ||B0||_1 max(ka, 1) eps)
// stays under tol, ka the order of A. A's other triangle is NaN and so is its diagonal when
// unit: none of them may be read; and since trmm overwrites B in place, a tile read after it
// was overwritten shows as a large error. To keep the binary near 20 s on 2 cores, size 1000
// runs one combination only (left, upper, trans, unit). Also: trmm_async then trsm_async
// with the same A in one sequence give B back; alpha = 0 gives B = 0 even on a B full of NaN
// (BLAS); bad arguments throw InvalidLapackArgument with BLAS's position; mismatched tile
// matrices throw InvalidArgument.
#include "accuracy/triangular.hpp"

#include <utility>

namespace tessera::test {
namespace {

/// trmm for the shared checks of triangular.hpp.
struct Trmm {
    static constexpr TriangularCombination largest{Side::left, Uplo::upper, Op::trans, Diag::unit};
    static constexpr auto call = [](auto&&... args) {
        tessera::trmm(std::forward<decltype(args)>(args)...);
    };
    /// ||B - Bref||_1 / (|alpha| ||op(A)||_1 ||B0||_1 max(ka, 1) eps), Bref from host CBLAS.
    template <Scalar T> static double error(TriangularCase<T> const& t, Dense<T> const& B)
    {
        Dense<T> ref = t.B0;
        blas::trmm<T>(t.c.side, t.c.uplo, t.c.trans, t.c.diag, t.m, t.n, t.alpha, t.A.data(),
                      t.A.ld, ref.data(), ref.ld);
        Dense<T> L = triangle(t.A, t.c.uplo, t.c.diag);
        return norm1_diff(B, ref) / (std::abs(t.alpha) * norm1_op(L, t.c.trans) * norm1(t.B0) *
                                     double(std::max<int64_t>(t.ka, 1)) * eps<T>());
    }
};

class TrmmAccuracy : public AccuracySweep {};

TEST_P(TrmmAccuracy, TileFormResidual)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        expect_tile_form_under_tol<Trmm, T>(*rt, 50);
    });
}

TEST_P(TrmmAccuracy, LapackFormResidual)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        expect_lapack_form_under_tol<Trmm, T>(60);
    });
}

TEST_P(TrmmAccuracy, AsyncTrmmThenTrsmRoundTrip)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t m = 100, n = 51, nb = tile_for(m);
        for (TriangularCombination c :
             {TriangularCombination{Side::left, Uplo::lower, Op::notrans, Diag::nonunit},
              TriangularCombination{Side::right, Uplo::upper, Op::conjtrans, Diag::unit}}) {
            TriangularCase<T> t(c, m, n, 8);
            auto A = tiles_of(*rt, t.A, nb);
            tessera::TileMatrix<T> B{*rt, m, n, nb};
            Dense<T> out(m, n);
            tessera::Sequence s{*rt};
            tessera::lapack_to_tiles_async(t.B0.data(), t.B0.ld, B, s);
            tessera::trmm_async(c.side, c.uplo, c.trans, c.diag, t.alpha, A, B,
                                s);  // alpha op(A) B
            tessera::trsm_async(c.side, c.uplo, c.trans, c.diag, T(1) / t.alpha, A, B,
                                s);  // back to B
            tessera::tiles_to_lapack_async(B, out.data(), out.ld, s);
            ASSERT_EQ(s.wait(), 0);
            // A is well conditioned: ||B - B0||_1 / (||B0||_1 ka eps) stays small.
            EXPECT_LT(norm1_diff(out, t.B0) / (norm1(t.B0) * double(t.ka) * eps<T>()), tol)
                << t.what();
        }
    });
}

TEST_P(TrmmAccuracy, AlphaZeroGivesZero)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        LibraryRuntime lib{GetParam()};
        expect_alpha_zero_gives_zero<Trmm, T>(*rt, 9);
    });
}

TEST_P(TrmmAccuracy, BadArgumentsThrowNamingThem)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        expect_bad_arguments_throw<Trmm, T>([&] { return make_runtime(); });
    });
}

TESSERA_INSTANTIATE_ACCURACY(TrmmAccuracy);

}  // namespace
}  // namespace tessera::test
