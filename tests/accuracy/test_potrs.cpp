// Checks potrs (the Cholesky solve with the factor potrf leaves) in its three forms (tile,
// asynchronous chained in one sequence with the layout conversions and potrf, LAPACK-style)
// in the four precisions, lower and upper (at the largest size, one per form, for time), for
// every size of the sweep with tiles that do not divide n, and 1, 5 or 2n + 1 right-hand
// sides: the scaled residual ||A X - B||_1 / (||A||_1 ||X||_1 n eps) stays under tol. The
// triangle of the factor that is not referenced holds NaNs, so that reading it would show;
// the LAPACK-style form leaves the factor and the rows of B below n (lda, ldb > n)
// untouched. Bad arguments throw naming them.
#include "accuracy/accuracy.hpp"

namespace tessera::test {
namespace {

/// Right-hand side counts: one, a few, and more than the matrix has columns (capped at the
/// largest size to keep the test short).
std::vector<int64_t> nrhs_for(int64_t n)
{
    if (n <= 257) return {1, 5, 2 * n + 1};
    return {5, 131};
}

class PotrsAccuracy : public AccuracySweep {};

TEST_P(PotrsAccuracy, TileFormResidual)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        for (int64_t n : accuracy_sizes()) {
            const Dense<T> A0 = hpd_dense<T>(n, 100 + uint64_t(n));
            // At the largest size lower and upper take turns with the LAPACK-style test.
            for (Uplo uplo : uplos_for(n, Uplo::lower)) {
                auto A = tiles_of(*rt, with_other_triangle_nan(A0, uplo), tile_for(n));
                ASSERT_EQ(tessera::potrf(uplo, A), 0) << "n=" << n;
                for (int64_t nrhs : nrhs_for(n)) {
                    const Dense<T> B0 = random_dense<T>(n, nrhs, 200 + uint64_t(nrhs));
                    auto B = tiles_of(*rt, B0, tile_for(n));
                    tessera::potrs(uplo, A, B);
                    const Dense<T> X = to_dense(B);
                    EXPECT_LT(solve_residual(A0, X, B0), tol)
                        << "n=" << n << " nrhs=" << nrhs << " uplo=" << char(uplo);
                }
            }
        }
    });
}

TEST_P(PotrsAccuracy, AsyncChainedWithPotrfAndConversions)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        for (int64_t n : {int64_t(0), int64_t(7), int64_t(257)})
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                const int64_t nrhs = n / 2 + 3, nb = tile_for(n);
                const Dense<T> A0 = hpd_dense<T>(n, 7 + uint64_t(n), n + 5);  // lda > n
                const Dense<T> B0 = random_dense<T>(n, nrhs, 8, n + 1);
                Dense<T> P = with_other_triangle_nan(A0, uplo);
                Dense<T> X(n, nrhs, n + 2);
                tessera::TileMatrix<T> A{*rt, n, n, nb}, B{*rt, n, nrhs, nb};
                tessera::Sequence s{*rt};  // one wait for the whole chain
                tessera::lapack_to_tiles_async(P.data(), P.ld, A, s);
                tessera::lapack_to_tiles_async(B0.data(), B0.ld, B, s);
                tessera::potrf_async(uplo, A, s);
                tessera::potrs_async(uplo, A, B, s);
                tessera::tiles_to_lapack_async(B, X.data(), X.ld, s);
                ASSERT_EQ(s.wait(), 0);
                EXPECT_LT(solve_residual(A0, X, B0), tol) << "n=" << n << " uplo=" << char(uplo);
            }
    });
}

TEST_P(PotrsAccuracy, LapackFormResidual)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        for (int64_t n : accuracy_sizes()) {
            tessera::set_tile_size(tile_for(n));
            const Dense<T> A0 = hpd_dense<T>(n, 300 + uint64_t(n), n + 3);
            for (Uplo uplo : uplos_for(n, Uplo::upper)) {  // the tile form takes lower
                Dense<T> F = with_other_triangle_nan(A0, uplo);
                ASSERT_EQ(tessera::potrf(uplo, n, F.data(), F.ld), 0) << "n=" << n;
                const std::vector<T> factor = F.a;
                // A given tile size solves by tiles; the automatic one, on cores alone with
                // many right-hand sides, by one strip of B per worker.
                for (int64_t nb : {tile_for(n), int64_t(0)}) {
                    tessera::set_tile_size(nb);
                    for (int64_t nrhs : nrhs_for(n)) {
                        const Dense<T> B0 =
                            random_dense<T>(n, nrhs, 400 + uint64_t(nrhs), n + 2);  // ldb > n
                        Dense<T> X = B0;
                        EXPECT_EQ(tessera::potrs(uplo, n, nrhs, F.data(), F.ld, X.data(), X.ld), 0);
                        EXPECT_LT(solve_residual(A0, X, B0), tol)
                            << "n=" << n << " nrhs=" << nrhs << " uplo=" << char(uplo)
                            << " nb=" << nb;
                        EXPECT_TRUE(same_bits(F.a, factor)) << "potrs wrote into A, n=" << n;
                        EXPECT_TRUE(padding_unchanged(X, B0))
                            << "potrs wrote below row n of B, n=" << n;
                    }
                }
                tessera::set_tile_size(tile_for(n));
            }
        }
    });
}

TEST_P(PotrsAccuracy, BadArgumentsThrowNamingThem)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        expect_solve_arguments_named<T>([](auto... args) { (void)tessera::potrs(args...); });

        auto rt = make_runtime();
        tessera::TileMatrix<T> A{*rt, 4, 4, 2}, R{*rt, 4, 3, 2}, B{*rt, 4, 2, 2}, B3{*rt, 3, 2, 2},
            Bnb{*rt, 4, 2, 3};
        tessera::Sequence s{*rt};
        EXPECT_THROW(tessera::potrs_async(Uplo::lower, R, B, s),
                     tessera::InvalidArgument);  // A not square
        EXPECT_THROW(tessera::potrs_async(Uplo::lower, A, B3, s),
                     tessera::InvalidArgument);  // rows of B
        EXPECT_THROW(tessera::potrs_async(Uplo::lower, A, Bnb, s),
                     tessera::InvalidArgument);  // tile sizes
        EXPECT_THROW(tessera::potrs_async(Uplo::general, A, B, s), tessera::InvalidArgument);
        EXPECT_THROW(tessera::potrs(Uplo::lower, A, B3), tessera::InvalidArgument);
    });
}

TESSERA_INSTANTIATE_ACCURACY(PotrsAccuracy);

}  // namespace
}  // namespace tessera::test
