// Checks posv (Cholesky factorization and solve) in its three forms (tile, asynchronous
// chained in one sequence with the generator and the layout conversions, LAPACK-style) in the
// four precisions, lower and upper, for every size of the sweep with tiles that do not divide
// n, and 1, 5 or 2n + 1 right-hand sides: the scaled residual
// ||A X - B||_1 / (||A||_1 ||X||_1 n eps) stays under tol, with NaNs in the triangle of A that
// is not referenced. A matrix whose leading minor of order k is not positive definite gives
// LAPACK's info = k (LAPACKE's own posv on the same matrix is the oracle), and the
// LAPACK-style form then leaves B untouched, as LAPACK does. Bad arguments throw naming them.
#include "accuracy/accuracy.hpp"

#include <lapacke.h>

#include <cstring>
#include <limits>

namespace tessera::test {
namespace {

using tessera::Op;
using tessera::Uplo;

/// ||A X - B||_1 / (||A||_1 ||X||_1 n eps), A the full n x n matrix, X and B n x nrhs.
template <Scalar T>
double solve_residual(Dense<T> const& A, Dense<T> const& X, Dense<T> const& B)
{
    const int64_t n = A.n, nrhs = B.n;
    if (n == 0 || nrhs == 0) return 0;
    Dense<T> R = B;
    blas::gemm<T>(Op::notrans, Op::notrans, n, nrhs, n, T(-1), A.data(), A.ld, X.data(), X.ld, T(1), R.data(), R.ld);
    return norm1(R) / (norm1(A) * norm1(X) * double(n) * eps<T>());
}

/// Sets the strict triangle of A opposite to `uplo` (the one posv does not reference) to NaN.
template <Scalar T>
void poison_other_triangle(Dense<T>& A, Uplo uplo)
{
    const T nan = T(std::numeric_limits<real_t<T>>::quiet_NaN());
    for (int64_t j = 0; j < A.n; ++j)
        for (int64_t i = 0; i < A.m; ++i)
            if (uplo == Uplo::lower ? i < j : i > j) A(i, j) = nan;
}

/// Right-hand side counts: one, a few, and more than the matrix has columns (at the largest
/// size, one count: each posv factors A again).
std::vector<int64_t> nrhs_for(int64_t n)
{
    if (n <= 257) return {1, 5, 2 * n + 1};
    return {37};
}

/// Bitwise equality (NaNs included).
template <Scalar T>
bool same_bits(std::vector<T> const& a, std::vector<T> const& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <Scalar T>
int64_t lapacke_posv(Uplo uplo, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb)
{
    const char u = char(uplo);
    const int m = int(n), k = int(nrhs), la = int(lda), lb = int(ldb);
    if constexpr (std::is_same_v<T, float>) return LAPACKE_sposv(LAPACK_COL_MAJOR, u, m, k, a, la, b, lb);
    else if constexpr (std::is_same_v<T, double>) return LAPACKE_dposv(LAPACK_COL_MAJOR, u, m, k, a, la, b, lb);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return LAPACKE_cposv(LAPACK_COL_MAJOR, u, m, k, reinterpret_cast<lapack_complex_float*>(a), la,
                             reinterpret_cast<lapack_complex_float*>(b), lb);
    else
        return LAPACKE_zposv(LAPACK_COL_MAJOR, u, m, k, reinterpret_cast<lapack_complex_double*>(a), la,
                             reinterpret_cast<lapack_complex_double*>(b), lb);
}

class PosvAccuracy : public AccuracySweep {};

TEST_P(PosvAccuracy, TileFormResidual)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        for (int64_t n : accuracy_sizes()) {
            const Dense<T> A0 = hpd_dense<T>(n, 100 + uint64_t(n));
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                Dense<T> P = A0;
                poison_other_triangle(P, uplo);
                for (int64_t nrhs : nrhs_for(n)) {
                    const Dense<T> B0 = random_dense<T>(n, nrhs, 200 + uint64_t(nrhs));
                    auto A = tessera::tile_copy_of(*rt, P.data(), n, n, P.ld, tile_for(n));
                    auto B = tessera::tile_copy_of(*rt, B0.data(), n, nrhs, B0.ld, tile_for(n));
                    ASSERT_EQ(tessera::posv(uplo, A, B), 0) << "n=" << n;
                    Dense<T> X(n, nrhs);
                    tessera::tiles_to_lapack(B, X.data(), X.ld);
                    EXPECT_LT(solve_residual(A0, X, B0), tol) << "n=" << n << " nrhs=" << nrhs << " uplo=" << char(uplo);
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
        for (int64_t n : accuracy_sizes()) {
            tessera::set_tile_size(tile_for(n));
            const Dense<T> A0 = hpd_dense<T>(n, 300 + uint64_t(n), n + 3);  // lda > n
            for (Uplo uplo : {Uplo::lower, Uplo::upper})
                for (int64_t nrhs : nrhs_for(n)) {
                    Dense<T> F = A0;
                    poison_other_triangle(F, uplo);
                    const Dense<T> B0 = random_dense<T>(n, nrhs, 400 + uint64_t(nrhs), n + 2);  // ldb > n
                    Dense<T> X = B0;
                    ASSERT_EQ(tessera::posv(uplo, n, nrhs, F.data(), F.ld, X.data(), X.ld), 0) << "n=" << n;
                    EXPECT_LT(solve_residual(A0, X, B0), tol) << "n=" << n << " nrhs=" << nrhs << " uplo=" << char(uplo);
                    bool padding_kept = true;
                    for (int64_t j = 0; j < nrhs; ++j)
                        for (int64_t i = n; i < X.ld; ++i) padding_kept = padding_kept && X(i, j) == B0(i, j);
                    EXPECT_TRUE(padding_kept) << "posv wrote below row n of B, n=" << n;
                }
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
                const int64_t expected = lapacke_posv(uplo, n, nrhs, refA.data(), refA.ld, refB.data(), refB.ld);
                ASSERT_EQ(expected, bad + 1);

                Dense<T> F = A0, X = B0;
                EXPECT_EQ(tessera::posv(uplo, n, nrhs, F.data(), F.ld, X.data(), X.ld), expected)
                    << "LAPACK-style, bad=" << bad;
                EXPECT_TRUE(same_bits(X.a, B0.a)) << "LAPACK-style posv wrote into B, bad=" << bad;
                F = A0;  // no right-hand side: A is still factored, info still reported
                EXPECT_EQ(tessera::posv(uplo, n, 0, F.data(), F.ld, X.data(), X.ld), expected) << "nrhs=0, bad=" << bad;

                auto A = tessera::tile_copy_of(*rt, A0.data(), n, n, A0.ld, tile_for(n));
                auto B = tessera::tile_copy_of(*rt, B0.data(), n, nrhs, B0.ld, tile_for(n));
                EXPECT_EQ(tessera::posv(uplo, A, B), expected) << "tile form, bad=" << bad;
            }
    });
}

TEST_P(PosvAccuracy, BadArgumentsThrowNamingThem)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        std::vector<T> a(16), b(16);
        auto position = [&](auto&& call) {
            try {
                call();
            } catch (tessera::InvalidLapackArgument const& e) {
                return e.position();
            }
            return 0;
        };
        T* const null = nullptr;
        EXPECT_EQ(position([&] { (void)tessera::posv(Uplo('X'), 4, 1, a.data(), 4, b.data(), 4); }), 1);
        EXPECT_EQ(position([&] { (void)tessera::posv(Uplo::lower, -1, 1, a.data(), 4, b.data(), 4); }), 2);
        EXPECT_EQ(position([&] { (void)tessera::posv(Uplo::lower, 4, -1, a.data(), 4, b.data(), 4); }), 3);
        EXPECT_EQ(position([&] { (void)tessera::posv(Uplo::lower, 4, 1, null, 4, b.data(), 4); }), 4);
        EXPECT_EQ(position([&] { (void)tessera::posv(Uplo::lower, 4, 1, a.data(), 3, b.data(), 4); }), 5);
        EXPECT_EQ(position([&] { (void)tessera::posv(Uplo::lower, 4, 1, a.data(), 4, null, 4); }), 6);
        EXPECT_EQ(position([&] { (void)tessera::posv(Uplo::lower, 4, 1, a.data(), 4, b.data(), 3); }), 7);
        EXPECT_EQ(position([&] { (void)tessera::posv(Uplo::upper, 0, 0, null, 1, null, 1); }), 0);

        // A bad B is reported before A is touched.
        auto rt = make_runtime();
        const Dense<T> A0 = hpd_dense<T>(4, 3);
        auto A = tessera::tile_copy_of(*rt, A0.data(), 4, 4, A0.ld, 2);
        tessera::TileMatrix<T> R{*rt, 4, 3, 2}, B{*rt, 4, 2, 2}, B3{*rt, 3, 2, 2}, Bnb{*rt, 4, 2, 3};
        tessera::Sequence s{*rt};
        EXPECT_THROW(tessera::posv_async(Uplo::lower, R, B, s), tessera::InvalidArgument);    // A not square
        EXPECT_THROW(tessera::posv_async(Uplo::lower, A, B3, s), tessera::InvalidArgument);   // rows of B
        EXPECT_THROW(tessera::posv_async(Uplo::lower, A, Bnb, s), tessera::InvalidArgument);  // tile sizes
        EXPECT_THROW(tessera::posv_async(Uplo::general, A, B, s), tessera::InvalidArgument);
        EXPECT_THROW((void)tessera::posv(Uplo::lower, A, B3), tessera::InvalidArgument);
        EXPECT_EQ(s.wait(), 0);
        Dense<T> after(4, 4);
        tessera::tiles_to_lapack(A, after.data(), after.ld);
        EXPECT_EQ(norm1_diff(after, A0), 0.0) << "a rejected posv factored A";
    });
}

TESSERA_INSTANTIATE_ACCURACY(PosvAccuracy);

}  // namespace
}  // namespace tessera::test
