// Checks potri (the inverse from the Cholesky factor) in its three forms (tile, asynchronous
// chained in one sequence with the layout conversions and potrf, LAPACK-style) in the four
// precisions, lower and upper (at the largest size, one per form, for time), for every size
// of the sweep with tiles that do not divide n: ||I - A A^{-1}||_1 / (||A||_1 ||A^{-1}||_1 n
// eps) stays under tol (LAPACK's pot03), with NaNs in the triangle that is not referenced,
// which must stay as they are. Its two steps are
// checked alone: trtri (lower, upper, unit, nonunit) by ||I - T T^{-1}||_1 / (||T||_1
// ||T^{-1}||_1 n eps), with the diagonal of a unit triangle never read nor written, and lauum
// by ||L^H L - lauum(L)||_1 / (||L||_1^2 n eps) (upper: U U^H; L with a real diagonal, as a
// factor has). A zero on the factor's diagonal gives LAPACK's info (LAPACKE's own potri is
// the oracle) and the LAPACK-style form then leaves A untouched, as LAPACK does. Bad
// arguments throw naming them.
#include "accuracy/accuracy.hpp"

#include <chrono>
#include <thread>

namespace tessera::test {
namespace {

/// ||I - A X||_1 / (||A||_1 ||X||_1 n eps), A and X full n x n.
template <Scalar T> double inverse_residual(Dense<T> const& A, Dense<T> const& X)
{
    const int64_t n = A.n;
    if (n == 0) return 0;
    Dense<T> R(n, n);
    for (int64_t i = 0; i < n; ++i) R(i, i) = T(1);
    blas::gemm<T>(Op::notrans, Op::notrans, n, n, n, T(-1), A.data(), A.ld, X.data(), X.ld, T(1),
                  R.data(), R.ld);
    return norm1(R) / (norm1(A) * norm1(X) * double(n) * eps<T>());
}

/// True when the strict triangle opposite to `uplo` still holds NaNs only.
template <Scalar T> bool other_triangle_is_nan(Dense<T> const& A, Uplo uplo)
{
    for (int64_t j = 0; j < A.n; ++j)
        for (int64_t i = 0; i < A.m; ++i)
            if (in_other_triangle(i, j, uplo) && !std::isnan(std::real(A(i, j)))) return false;
    return true;
}

/// The Cholesky factor of a well-conditioned Hermitian positive definite matrix (host
/// LAPACK), in its `uplo` triangle, the other triangle zero.
template <Scalar T> Dense<T> cholesky_factor(int64_t n, Uplo uplo, uint64_t seed)
{
    Dense<T> C = hpd_dense<T>(n, seed);
    EXPECT_EQ(blas::potrf<T>(uplo, n, C.data(), C.ld), 0);
    return triangle(C, uplo);
}

class PotriAccuracy : public AccuracySweep {};

TEST_P(PotriAccuracy, TileFormResidual)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        for (int64_t n : accuracy_sizes()) {
            const Dense<T> A0 = hpd_dense<T>(n, 100 + uint64_t(n));
            // At the largest size lower and upper take turns with the LAPACK-style test (each
            // check there is an O(n^3) product on one core).
            for (Uplo uplo : uplos_for(n, Uplo::lower)) {
                auto A = tiles_of(*rt, with_other_triangle_nan(A0, uplo), tile_for(n));
                ASSERT_EQ(tessera::potrf(uplo, A), 0) << "n=" << n;
                ASSERT_EQ(tessera::potri(uplo, A), 0) << "n=" << n;
                const Dense<T> F = to_dense(A);
                EXPECT_LT(inverse_residual(A0, hermitian_from(F, uplo)), tol)
                    << "n=" << n << " uplo=" << char(uplo);
                EXPECT_TRUE(other_triangle_is_nan(F, uplo)) << "n=" << n << " uplo=" << char(uplo);
            }
        }
    });
}

TEST_P(PotriAccuracy, AsyncChainedWithPotrfAndConversions)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        for (int64_t n : {int64_t(0), int64_t(7), int64_t(257)})
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                const int64_t nb = tile_for(n);
                const Dense<T> A0 = hpd_dense<T>(n, 7 + uint64_t(n), n + 5);  // lda > n
                Dense<T> F = with_other_triangle_nan(A0, uplo);
                tessera::TileMatrix<T> A{*rt, n, n, nb};
                tessera::Sequence s{*rt};  // one wait for the whole chain
                tessera::lapack_to_tiles_async(F.data(), F.ld, A, s);
                tessera::potrf_async(uplo, A, s);
                tessera::potri_async(uplo, A, s);
                tessera::tiles_to_lapack_async(A, F.data(), F.ld, s);
                ASSERT_EQ(s.wait(), 0);
                EXPECT_LT(inverse_residual(A0, hermitian_from(F, uplo)), tol)
                    << "n=" << n << " uplo=" << char(uplo);
            }
    });
}

TEST_P(PotriAccuracy, LapackFormResidual)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        for (int64_t n : accuracy_sizes()) {
            tessera::set_tile_size(tile_for(n));
            const Dense<T> A0 = hpd_dense<T>(n, 300 + uint64_t(n), n + 3);  // lda > n
            for (Uplo uplo : uplos_for(n, Uplo::upper)) {  // the tile form takes lower
                Dense<T> F = with_other_triangle_nan(A0, uplo);
                ASSERT_EQ(tessera::potrf(uplo, n, F.data(), F.ld), 0) << "n=" << n;
                ASSERT_EQ(tessera::potri(uplo, n, F.data(), F.ld), 0) << "n=" << n;
                EXPECT_LT(inverse_residual(A0, hermitian_from(F, uplo)), tol)
                    << "n=" << n << " uplo=" << char(uplo);
                EXPECT_TRUE(other_triangle_is_nan(F, uplo)) << "n=" << n << " uplo=" << char(uplo);
                EXPECT_TRUE(padding_unchanged(F, A0)) << "potri wrote below row n, n=" << n;
            }
        }
    });
}

TEST_P(PotriAccuracy, TrtriResidual)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        for (int64_t n : {0, 1, 7, 100, 257})
            for (Uplo uplo : {Uplo::lower, Uplo::upper})
                for (Diag diag : {Diag::nonunit, Diag::unit}) {
                    Dense<T> T0 = cholesky_factor<T>(n, uplo, 500 + uint64_t(n));
                    if (diag == Diag::unit) {  // L D^{-1} (upper: D^{-1} U) is well-conditioned too
                        for (int64_t j = 0; j < n; ++j)
                            for (int64_t i = 0; i < n; ++i)
                                if (i != j)
                                    T0(i, j) /= T0(uplo == Uplo::lower ? j : i,
                                                   uplo == Uplo::lower ? j : i);
                        for (int64_t i = 0; i < n; ++i)
                            T0(i, i) = T(7);  // must be neither read nor written
                    }
                    auto A = tiles_of(*rt, with_other_triangle_nan(T0, uplo), tile_for(n));
                    tessera::Sequence s{*rt};
                    tessera::trtri_async(uplo, diag, A, s);
                    ASSERT_EQ(s.wait(), 0);
                    const Dense<T> X = to_dense(A);
                    const auto where = ::testing::Message() << "n=" << n << " uplo=" << char(uplo)
                                                            << " diag=" << char(diag);
                    EXPECT_LT(inverse_residual(triangle(T0, uplo, diag), triangle(X, uplo, diag)),
                              tol)
                        << where;
                    EXPECT_TRUE(other_triangle_is_nan(X, uplo)) << where;
                    if (diag == Diag::unit) {
                        bool kept = true;
                        for (int64_t i = 0; i < n; ++i) kept = kept && X(i, i) == T(7);
                        EXPECT_TRUE(kept) << "a unit diagonal was written, " << where;
                    }
                }
    });
}

TEST_P(PotriAccuracy, LauumResidual)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        for (int64_t n : {0, 1, 7, 100, 257})
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                // A real diagonal, as a Cholesky factor has: LAPACK's lauum reads only its real part.
                Dense<T> L = triangle(random_dense<T>(n, n, 600 + uint64_t(n)), uplo);
                for (int64_t i = 0; i < n; ++i) L(i, i) = T(std::real(L(i, i)));
                auto A = tiles_of(*rt, with_other_triangle_nan(L, uplo), tile_for(n));
                tessera::Sequence s{*rt};
                tessera::lauum_async(uplo, A, s);
                ASSERT_EQ(s.wait(), 0);
                const Dense<T> X = to_dense(A);
                Dense<T> ref(n, n);
                if (n == 0) continue;
                if (uplo == Uplo::lower)  // L^H L
                    blas::gemm<T>(Op::conjtrans, Op::notrans, n, n, n, T(1), L.data(), L.ld,
                                  L.data(), L.ld, T(0), ref.data(), ref.ld);
                else  // U U^H
                    blas::gemm<T>(Op::notrans, Op::conjtrans, n, n, n, T(1), L.data(), L.ld,
                                  L.data(), L.ld, T(0), ref.data(), ref.ld);
                const double err = norm1_diff(hermitian_from(X, uplo), ref) /
                                   (norm1(L) * norm1(L) * double(n) * eps<T>());
                EXPECT_LT(err, tol) << "n=" << n << " uplo=" << char(uplo);
                EXPECT_TRUE(other_triangle_is_nan(X, uplo)) << "n=" << n << " uplo=" << char(uplo);
            }
    });
}

TEST_P(PotriAccuracy, ZeroOnTheDiagonalGivesLapackInfo)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        auto rt = make_runtime();
        const int64_t n = 100;
        tessera::set_tile_size(tile_for(n));
        for (int64_t bad : {0, 31, 70, 99})
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                Dense<T> C = cholesky_factor<T>(n, uplo, 13);
                C(bad, bad) = T(0);
                if (bad < 90)
                    C(90, 90) = T(0);  // a later zero, possibly found first: the smallest wins
                Dense<T> ref = C;
                const int64_t expected = blas::potri<T>(uplo, n, ref.data(), ref.ld);
                ASSERT_EQ(expected, bad + 1);

                Dense<T> F = C;
                EXPECT_EQ(tessera::potri(uplo, n, F.data(), F.ld), expected)
                    << "LAPACK-style, bad=" << bad;
                EXPECT_TRUE(same_bits(F.a, C.a)) << "LAPACK-style potri wrote into A, bad=" << bad;

                auto A = tiles_of(*rt, C, tile_for(n));
                EXPECT_EQ(tessera::potri(uplo, A), expected) << "tile form, bad=" << bad;
                // With a unit diagonal the zeros are not read: no failure.
                auto U = tiles_of(*rt, C, tile_for(n));
                tessera::Sequence s{*rt};
                tessera::trtri_async(uplo, Diag::unit, U, s);
                EXPECT_EQ(s.wait(), 0) << "unit trtri, bad=" << bad;
            }
    });
}

// trtri's diagonal tiles run after another diagonal tile of the same call failed (so that the
// smallest info is found), but not after an earlier call of the sequence failed: C's tile
// (2,2), with a zero on its diagonal, is held by the application until potrf of A has failed,
// and then stays as it was, and the sequence reports potrf's info, not the smaller one trtri
// would have found.
TEST_P(PotriAccuracy, TrtriChainedAfterAFailedCallLeavesItsMatrixAlone)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t n = 48, nb = 8;
        Dense<T> A0 = hpd_dense<T>(n, 5), C0 = cholesky_factor<T>(n, Uplo::lower, 9);
        A0(40, 40) = T(-1);  // potrf fails: info 41
        C0(17, 17) = T(0);   // trtri would fail in tile (2,2): info 18
        auto A = tiles_of(*rt, A0, nb);
        auto C = tiles_of(*rt, C0, nb);
        tessera::Sequence s{*rt};
        {
            auto held = C(2, 2).template acquire<rt::Mode::RW>();
            tessera::potrf_async(Uplo::lower, A, s);
            tessera::trtri_async(Uplo::lower, Diag::nonunit, C, s);
            const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
            while (!s.failed() && std::chrono::steady_clock::now() < give_up)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            ASSERT_TRUE(s.failed());
        }
        EXPECT_EQ(s.wait(), 41) << "a task of trtri ran after potrf had failed";
        const Dense<T> C1 = to_dense(C);
        for (int64_t j = 2 * nb; j < 3 * nb; ++j)
            for (int64_t i = 2 * nb; i < 3 * nb; ++i)
                ASSERT_EQ(C1(i, j), C0(i, j)) << "C(" << i << ", " << j << ") changed";
    });
}

TEST_P(PotriAccuracy, BadArgumentsThrowNamingThem)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        std::vector<T> a(16);
        EXPECT_EQ(argument_position([&] { (void)tessera::potri(Uplo('X'), 4, a.data(), 4); }), 1);
        EXPECT_EQ(argument_position([&] { (void)tessera::potri(Uplo::lower, -1, a.data(), 4); }),
                  2);
        EXPECT_EQ(argument_position(
                      [&] { (void)tessera::potri(Uplo::lower, 4, static_cast<T*>(nullptr), 4); }),
                  3);
        EXPECT_EQ(argument_position([&] { (void)tessera::potri(Uplo::lower, 4, a.data(), 3); }), 4);
        EXPECT_EQ(argument_position(
                      [&] { (void)tessera::potri(Uplo::upper, 0, static_cast<T*>(nullptr), 1); }),
                  0);

        auto rt = make_runtime();
        tessera::TileMatrix<T> A{*rt, 4, 4, 2}, R{*rt, 4, 3, 2};
        tessera::Sequence s{*rt};
        EXPECT_THROW(tessera::potri_async(Uplo::lower, R, s), tessera::InvalidArgument);
        EXPECT_THROW(tessera::trtri_async(Uplo::lower, Diag::nonunit, R, s),
                     tessera::InvalidArgument);
        EXPECT_THROW(tessera::lauum_async(Uplo::upper, R, s), tessera::InvalidArgument);
        EXPECT_THROW(tessera::potri_async(Uplo::general, A, s), tessera::InvalidArgument);
        EXPECT_THROW(tessera::trtri_async(Uplo::lower, Diag('X'), A, s), tessera::InvalidArgument);
        EXPECT_THROW(tessera::lauum_async(Uplo::general, A, s), tessera::InvalidArgument);
        EXPECT_THROW((void)tessera::potri(Uplo::upper, R), tessera::InvalidArgument);
    });
}

TESSERA_INSTANTIATE_ACCURACY(PotriAccuracy);

}  // namespace
}  // namespace tessera::test
