// Checks potrf in its three forms (tile, asynchronous in a sequence, LAPACK-style) in the four
// precisions, lower and upper, for every size of the sweep with tiles that do not divide n:
// the scaled residual ||A - L L^H||_1 / (n ||A||_1 eps) (upper: U^H U) stays under tol; a
// matrix whose leading minor of order k is not positive definite gives LAPACK's info = k
// (LAPACKE's own potrf on the same matrix is the oracle), and so does a NaN pivot (derived:
// OpenBLAS does not stop at one); bad arguments throw naming them.
#include "accuracy/accuracy.hpp"

#include <limits>

namespace tessera::test {
namespace {

/// ||A0 - L L^H||_1 / (n ||A0||_1 eps), L the `uplo` triangle of F (upper: U^H U).
template <Scalar T> double potrf_residual(Dense<T> const& A0, Dense<T> const& F, Uplo uplo)
{
    const int64_t n = A0.n;
    if (n == 0) return 0;
    Dense<T> L = triangle(F, uplo);
    Dense<T> LLh(n, n);
    if (uplo == Uplo::lower)
        blas::gemm<T>(Op::notrans, Op::conjtrans, n, n, n, T(1), L.data(), L.ld, L.data(), L.ld,
                      T(0), LLh.data(), LLh.ld);
    else
        blas::gemm<T>(Op::conjtrans, Op::notrans, n, n, n, T(1), L.data(), L.ld, L.data(), L.ld,
                      T(0), LLh.data(), LLh.ld);
    return norm1_diff(A0, LLh) / (double(n) * norm1(A0) * eps<T>());
}

class PotrfAccuracy : public AccuracySweep {};

TEST_P(PotrfAccuracy, TileFormResidual)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        for (int64_t n : accuracy_sizes())
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                Dense<T> A0 = hpd_dense<T>(n, 100 + uint64_t(n));
                auto A = tiles_of(*rt, A0, tile_for(n));
                ASSERT_EQ(tessera::potrf(uplo, A), 0) << "n=" << n;
                const Dense<T> F = to_dense(A);
                EXPECT_LT(potrf_residual(A0, F, uplo), tol) << "n=" << n << " uplo=" << char(uplo);
            }
    });
}

TEST_P(PotrfAccuracy, AsyncChainedWithConversions)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t n = 257;
        Dense<T> A0 = hpd_dense<T>(n, 7, n + 5);  // lda > n
        Dense<T> F = A0;
        tessera::TileMatrix<T> A{*rt, n, n, tile_for(n)};
        tessera::Sequence s{*rt};
        tessera::lapack_to_tiles_async(F.data(), F.ld, A, s);
        tessera::potrf_async(Uplo::lower, A, s);
        tessera::tiles_to_lapack_async(A, F.data(), F.ld, s);
        ASSERT_EQ(s.wait(), 0);
        EXPECT_LT(potrf_residual(A0, F, Uplo::lower), tol);
    });
}

TEST_P(PotrfAccuracy, LapackFormResidual)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        for (int64_t n : accuracy_sizes())
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                tessera::set_tile_size(tile_for(n));
                Dense<T> A0 = hpd_dense<T>(n, 300 + uint64_t(n), n + 3);
                Dense<T> F = A0;
                ASSERT_EQ(tessera::potrf(uplo, n, F.data(), F.ld), 0) << "n=" << n;
                EXPECT_LT(potrf_residual(A0, F, uplo), tol) << "n=" << n << " uplo=" << char(uplo);
            }
    });
}

TEST_P(PotrfAccuracy, NotPositiveDefiniteGivesLapackInfo)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        auto rt = make_runtime();
        const int64_t n = 100;
        tessera::set_tile_size(tile_for(n));
        // Minors of order k <= 70 are positive definite, a_70,70 = -1 makes the 71st fail
        // (a diagonal entry in the third of four tiles, not its first one).
        for (int64_t bad : {0, 31, 70, 99})
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                Dense<T> A0 = hpd_dense<T>(n, 11);
                A0(bad, bad) = T(-1);
                Dense<T> ref = A0;
                const int64_t expected = blas::potrf<T>(uplo, n, ref.data(), ref.ld);
                ASSERT_EQ(expected, bad + 1);
                Dense<T> F = A0;
                EXPECT_EQ(tessera::potrf(uplo, n, F.data(), F.ld), expected)
                    << "LAPACK-style, bad=" << bad;
                auto A = tiles_of(*rt, A0, tile_for(n));
                EXPECT_EQ(tessera::potrf(uplo, A), expected) << "tile form, bad=" << bad;
            }
    });
}

TEST_P(PotrfAccuracy, NanPivotGivesLapackInfo)
{
    // Reference LAPACK stops at a NaN pivot as at a negative one (OpenBLAS's LAPACKE does not,
    // so the expected info is derived, not asked of it): a NaN a_kk is the pivot of order k + 1;
    // a NaN a_ij (i > j) makes l_ij NaN, hence the pivot of order i + 1 and none before it.
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        auto rt = make_runtime();
        const int64_t n = 100;
        tessera::set_tile_size(tile_for(n));
        const T nan = T(std::numeric_limits<real_t<T>>::quiet_NaN());
        struct Case {
            int64_t i, j;
        };
        for (Case c :
             {Case{0, 0}, Case{31, 31}, Case{70, 70}, Case{99, 99}, Case{70, 5}, Case{40, 33}})
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                Dense<T> A0 = hpd_dense<T>(n, 13);
                A0(c.i, c.j) = A0(c.j, c.i) = nan;
                const int64_t expected = c.i + 1;
                Dense<T> F = A0;
                EXPECT_EQ(tessera::potrf(uplo, n, F.data(), F.ld), expected)
                    << "LAPACK-style, NaN at " << c.i << "," << c.j << " uplo=" << char(uplo);
                auto A = tiles_of(*rt, A0, tile_for(n));
                EXPECT_EQ(tessera::potrf(uplo, A), expected)
                    << "tile form, NaN at " << c.i << "," << c.j << " uplo=" << char(uplo);
            }
    });
}

TEST_P(PotrfAccuracy, FailurePoisonsTheSequence)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t n = 64;
        Dense<T> A0 = hpd_dense<T>(n, 5);
        A0(40, 40) = T(-1);
        auto A = tiles_of(*rt, A0, 16);
        auto B = tiles_of(*rt, A0, 16);
        tessera::Sequence s{*rt};
        tessera::potrf_async(Uplo::lower, A, s);
        EXPECT_EQ(s.wait(), 41);
        EXPECT_TRUE(s.failed());
        tessera::potrf_async(Uplo::lower, B, s);  // poisoned: submits nothing
        EXPECT_EQ(s.wait(), 41);
        const Dense<T> Bcopy = to_dense(B);
        EXPECT_EQ(norm1_diff(Bcopy, A0), 0.0) << "B was factored by a poisoned sequence";
    });
}

TEST_P(PotrfAccuracy, BadArgumentsThrowNamingThem)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        std::vector<T> a(16);
        EXPECT_EQ(argument_position([&] { (void)tessera::potrf(Uplo::lower, -1, a.data(), 4); }),
                  2);
        EXPECT_EQ(argument_position(
                      [&] { (void)tessera::potrf(Uplo::lower, 4, static_cast<T*>(nullptr), 4); }),
                  3);
        EXPECT_EQ(argument_position([&] { (void)tessera::potrf(Uplo::lower, 4, a.data(), 3); }), 4);
        // LP64: the kernels take int, so sizes beyond 2^31 - 1 are bad arguments, not truncated
        EXPECT_EQ(argument_position(
                      [&] { (void)tessera::potrf(Uplo::lower, int64_t(1) << 32, a.data(), 4); }),
                  2);
        EXPECT_EQ(argument_position(
                      [&] { (void)tessera::potrf(Uplo::lower, 4, a.data(), int64_t(1) << 32); }),
                  4);
        EXPECT_EQ(argument_position([&] { (void)tessera::potrf(Uplo('X'), 4, a.data(), 4); }), 1);
        auto rt = make_runtime();
        tessera::TileMatrix<T> R{*rt, 4, 3, 2};
        EXPECT_THROW(
            tessera::potrf_async(Uplo::lower, R, *std::make_unique<tessera::Sequence>(*rt)),
            tessera::InvalidArgument);
    });
}

TESSERA_INSTANTIATE_ACCURACY(PotrfAccuracy);

}  // namespace
}  // namespace tessera::test
