// Checks posv (Cholesky factorization and solve) in its three forms (tile, asynchronous
// chained in one sequence with the generator and the layout conversions, LAPACK-style) in the
// four precisions, lower and upper, for every size of the sweep with tiles that do not divide
// n, and 1, 5 or 2n + 1 right-hand sides: the scaled residual
// ||A X - B||_1 / (||A||_1 ||X||_1 n eps) stays under tol, with NaNs in the triangle of A that
// is not referenced. A matrix whose leading minor of order k is not positive definite gives
// LAPACK's info = k (LAPACKE's own posv on the same matrix is the oracle), and the
// LAPACK-style form then leaves B untouched, as LAPACK does. Bad arguments throw naming them.
#include "accuracy/accuracy.hpp"

namespace tessera::test {
namespace {

/// Right-hand side counts: one, a few, and more than the matrix has columns (at the largest
/// size, one count: each posv factors A again).
std::vector<int64_t> nrhs_for(int64_t n)
{
    if (n <= 257) return {1, 5, 2 * n + 1};
    return {37};
}

class PosvAccuracy : public AccuracySweep {};

TEST_P(PosvAccuracy, TileFormResidual)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        for (int64_t n : accuracy_sizes()) {
            const Dense<T> A0 = hpd_dense<T>(n, 100 + uint64_t(n));
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                Dense<T> P = with_other_triangle_nan(A0, uplo);
                for (int64_t nrhs : nrhs_for(n)) {
                    const Dense<T> B0 = random_dense<T>(n, nrhs, 200 + uint64_t(nrhs));
                    auto A = tiles_of(*rt, P, tile_for(n));
                    auto B = tiles_of(*rt, B0, tile_for(n));
                    ASSERT_EQ(tessera::posv(uplo, A, B), 0) << "n=" << n;
                    const Dense<T> X = to_dense(B);
                    EXPECT_LT(solve_residual(A0, X, B0), tol)
                        << "n=" << n << " nrhs=" << nrhs << " uplo=" << char(uplo);
                }
            }
        }
    });
}

TEST_P(PosvAccuracy, AsyncChainedWithGeneratorAndConversions)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        for (int64_t n : {int64_t(0), int64_t(7), int64_t(257)})
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                const int64_t nrhs = n / 3 + 2, nb = tile_for(n);
                const Dense<T> B0 = random_dense<T>(n, nrhs, 8, n + 1);  // ldb > n
                Dense<T> X(n, nrhs, n + 2), A0(n, n);
                tessera::TileMatrix<T> A{*rt, n, n, nb}, B{*rt, n, nrhs, nb};
                tessera::Sequence s{*rt};  // one wait for the whole chain
                tessera::generate_hpd_async(A, 1e3, 9 + uint64_t(n), s);
                tessera::tiles_to_lapack_async(A, A0.data(), A0.ld, s);  // before posv overwrites A
                tessera::lapack_to_tiles_async(B0.data(), B0.ld, B, s);
                tessera::posv_async(uplo, A, B, s);
                tessera::tiles_to_lapack_async(B, X.data(), X.ld, s);
                ASSERT_EQ(s.wait(), 0);
                EXPECT_LT(solve_residual(A0, X, B0), tol) << "n=" << n << " uplo=" << char(uplo);
            }
    });
}

TEST_P(PosvAccuracy, LapackFormResidual)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        for (int64_t n : accuracy_sizes())
            // A given tile size solves by tiles; the automatic one, on cores alone with many
            // right-hand sides, by one strip of B per worker.
            for (int64_t nb : {tile_for(n), int64_t(0)}) {
                tessera::set_tile_size(nb);
                const Dense<T> A0 = hpd_dense<T>(n, 300 + uint64_t(n), n + 3);  // lda > n
                for (Uplo uplo : {Uplo::lower, Uplo::upper})
                    for (int64_t nrhs : nrhs_for(n)) {
                        Dense<T> F = with_other_triangle_nan(A0, uplo);
                        const Dense<T> B0 =
                            random_dense<T>(n, nrhs, 400 + uint64_t(nrhs), n + 2);  // ldb > n
                        Dense<T> X = B0;
                        ASSERT_EQ(tessera::posv(uplo, n, nrhs, F.data(), F.ld, X.data(), X.ld), 0)
                            << "n=" << n;
                        EXPECT_LT(solve_residual(A0, X, B0), tol)
                            << "n=" << n << " nrhs=" << nrhs << " uplo=" << char(uplo)
                            << " nb=" << nb;
                        EXPECT_TRUE(padding_unchanged(X, B0))
                            << "posv wrote below row n of B, n=" << n;
                    }
            }
    });
}

// With many right-hand sides and the automatic tile size (strips of B on cores alone), a
// failed factorization still leaves B untouched.
TEST_P(PosvAccuracy, NotPositiveDefiniteKeepsBWithManyRightHandSides)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        const int64_t n = 100, nrhs = 64;
        const Dense<T> B0 = random_dense<T>(n, nrhs, 13, n + 1);
        for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
            Dense<T> A0 = hpd_dense<T>(n, 14);
            A0(70, 70) = T(-1);
            Dense<T> F = A0, X = B0;
            EXPECT_EQ(tessera::posv(uplo, n, nrhs, F.data(), F.ld, X.data(), X.ld), 71);
            EXPECT_TRUE(same_bits(X.a, B0.a)) << "posv wrote into B";
        }
    });
}

TEST_P(PosvAccuracy, NotPositiveDefiniteGivesLapackInfoAndKeepsB)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        auto rt = make_runtime();
        const int64_t n = 100, nrhs = 3;
        tessera::set_tile_size(tile_for(n));
        const Dense<T> B0 = random_dense<T>(n, nrhs, 12, n + 1);
        // a_kk = -1 makes the minor of order k + 1 fail: in the first, a middle and the last tile.
        for (int64_t bad : {0, 31, 70, 99})
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                Dense<T> A0 = hpd_dense<T>(n, 11);
                A0(bad, bad) = T(-1);
                Dense<T> refA = A0, refB = B0;
                const int64_t expected =
                    blas::posv<T>(uplo, n, nrhs, refA.data(), refA.ld, refB.data(), refB.ld);
                ASSERT_EQ(expected, bad + 1);

                Dense<T> F = A0, X = B0;
                EXPECT_EQ(tessera::posv(uplo, n, nrhs, F.data(), F.ld, X.data(), X.ld), expected)
                    << "LAPACK-style, bad=" << bad;
                EXPECT_TRUE(same_bits(X.a, B0.a)) << "LAPACK-style posv wrote into B, bad=" << bad;
                F = A0;  // no right-hand side: A is still factored, info still reported
                EXPECT_EQ(tessera::posv(uplo, n, 0, F.data(), F.ld, X.data(), X.ld), expected)
                    << "nrhs=0, bad=" << bad;

                auto A = tiles_of(*rt, A0, tile_for(n));
                auto B = tiles_of(*rt, B0, tile_for(n));
                EXPECT_EQ(tessera::posv(uplo, A, B), expected) << "tile form, bad=" << bad;
                if (bad == 0) {  // every task of the solve waits for the one that failed: none runs
                    EXPECT_EQ(norm1_diff(to_dense(B), B0), 0.0)
                        << "tile posv wrote into B after a failure";
                }
            }
    });
}

TEST_P(PosvAccuracy, BadArgumentsThrowNamingThem)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        expect_solve_arguments_named<T>([](auto... args) { (void)tessera::posv(args...); });

        // A bad B is reported before A is touched.
        auto rt = make_runtime();
        const Dense<T> A0 = hpd_dense<T>(4, 3);
        auto A = tiles_of(*rt, A0, 2);
        tessera::TileMatrix<T> R{*rt, 4, 3, 2}, B{*rt, 4, 2, 2}, B3{*rt, 3, 2, 2},
            Bnb{*rt, 4, 2, 3};
        tessera::Sequence s{*rt};
        EXPECT_THROW(tessera::posv_async(Uplo::lower, R, B, s),
                     tessera::InvalidArgument);  // A not square
        EXPECT_THROW(tessera::posv_async(Uplo::lower, A, B3, s),
                     tessera::InvalidArgument);  // rows of B
        EXPECT_THROW(tessera::posv_async(Uplo::lower, A, Bnb, s),
                     tessera::InvalidArgument);  // tile sizes
        EXPECT_THROW(tessera::posv_async(Uplo::general, A, B, s), tessera::InvalidArgument);
        EXPECT_THROW((void)tessera::posv(Uplo::lower, A, B3), tessera::InvalidArgument);
        EXPECT_EQ(s.wait(), 0);
        const Dense<T> after = to_dense(A);
        EXPECT_EQ(norm1_diff(after, A0), 0.0) << "a rejected posv factored A";
    });
}

TESSERA_INSTANTIATE_ACCURACY(PosvAccuracy);

}  // namespace
}  // namespace tessera::test
