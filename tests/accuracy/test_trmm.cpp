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
#include "accuracy/accuracy.hpp"

#include <limits>

namespace tessera::test {
namespace {

using tessera::Diag;
using tessera::Op;
using tessera::Side;
using tessera::Uplo;
using tessera::la::is_complex_v;

template <Scalar T>
T scalar(double re, double im)
{
    if constexpr (is_complex_v<T>) return T(real_t<T>(re), real_t<T>(im));
    else return T(re);
}
template <Scalar T>
T nan()
{
    return T(std::numeric_limits<real_t<T>>::quiet_NaN());
}
/// ||op(A)||_1: the max column sum of A, or its max row sum when A is transposed.
template <Scalar T>
double norm1_op(Dense<T> const& A, Op op)
{
    if (op == Op::notrans) return norm1(A);
    std::vector<double> rows(std::size_t(A.m), 0.0);
    for (int64_t j = 0; j < A.n; ++j)
        for (int64_t i = 0; i < A.m; ++i) rows[std::size_t(i)] += std::abs(std::complex<double>(A(i, j)));
    double best = 0;
    for (double r : rows) best = std::max(best, r);
    return best;
}
template <Scalar T>
bool has_nan(Dense<T> const& X)
{
    for (int64_t j = 0; j < X.n; ++j)
        for (int64_t i = 0; i < X.m; ++i)
            if (std::isnan(std::abs(X(i, j)))) return true;
    return false;
}

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
            if (i == j) A(i, j) = diag == Diag::unit ? nan<T>() : T(R(1.5)) + A(i, j) * R(0.5);
            else if (uplo == Uplo::lower ? i > j : i < j) A(i, j) *= R(1.0 / double(ka));
            else A(i, j) = nan<T>();
        }
    return A;
}

struct Combination {
    Side side;
    Uplo uplo;
    Op trans;
    Diag diag;
    std::string what(int64_t m, int64_t n) const
    {
        return "m=" + std::to_string(m) + " n=" + std::to_string(n) + " side=" + char(side) + " uplo=" + char(uplo) +
               " trans=" + char(trans) + " diag=" + char(diag);
    }
};
/// Every (side, uplo, trans, diag), or one of them at the largest size.
std::vector<Combination> combinations(int64_t s)
{
    if (s >= 1000) return {{Side::left, Uplo::upper, Op::trans, Diag::unit}};
    std::vector<Combination> v;
    for (Side side : {Side::left, Side::right})
        for (Uplo uplo : {Uplo::lower, Uplo::upper})
            for (Op trans : {Op::notrans, Op::trans, Op::conjtrans})
                for (Diag diag : {Diag::nonunit, Diag::unit}) v.push_back({side, uplo, trans, diag});
    return v;
}

/// The inputs of one trmm: B m x n, A of order ka (m left, n right).
template <Scalar T>
struct TrmmCase {
    Combination c;
    int64_t m, n, ka;
    T alpha = scalar<T>(0.7, -0.3);
    Dense<T> A, B0;
    TrmmCase(Combination c_, int64_t m_, int64_t n_, uint64_t seed, int64_t pad = 0)
        : c(c_), m(m_), n(n_), ka(c.side == Side::left ? m : n)
    {
        A = triangular_dense<T>(ka, c.uplo, c.diag, seed, pad);
        B0 = random_dense<T>(m, n, seed + 1, m + pad);
    }
    /// ||B - Bref||_1 / (|alpha| ||op(A)||_1 ||B0||_1 max(ka, 1) eps), Bref from host CBLAS.
    double error(Dense<T> const& B) const
    {
        if (m == 0 || n == 0) return 0;
        Dense<T> ref = B0;
        blas::trmm<T>(c.side, c.uplo, c.trans, c.diag, m, n, alpha, A.data(), A.ld, ref.data(), ref.ld);
        Dense<T> L = triangle(A, c.uplo, c.diag);
        return norm1_diff(B, ref) /
               (std::abs(alpha) * norm1_op(L, c.trans) * norm1(B0) * double(std::max<int64_t>(ka, 1)) * eps<T>());
    }
    std::string what() const { return c.what(m, n); }
};

/// The tile form on copies of the case's matrices; returns B.
template <Scalar T>
Dense<T> tile_trmm(rt::Runtime& rt, TrmmCase<T> const& t, int64_t nb)
{
    auto A = tessera::tile_copy_of(rt, t.A.data(), t.ka, t.ka, t.A.ld, nb);
    auto B = tessera::tile_copy_of(rt, t.B0.data(), t.m, t.n, t.B0.ld, nb);
    tessera::trmm(t.c.side, t.c.uplo, t.c.trans, t.c.diag, t.alpha, A, B);
    Dense<T> out(t.m, t.n);
    tessera::tiles_to_lapack(B, out.data(), out.ld);
    return out;
}

class TrmmAccuracy : public AccuracySweep {};

TEST_P(TrmmAccuracy, TileFormResidual)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        for (int64_t s : accuracy_sizes())
            for (Combination c : combinations(s)) {
                TrmmCase<T> t(c, s, s / 2 + 1, 50 + uint64_t(s));
                EXPECT_LT(t.error(tile_trmm(*rt, t, tile_for(s))), tol) << t.what();
            }
    });
}

TEST_P(TrmmAccuracy, LapackFormResidual)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        for (int64_t s : accuracy_sizes()) {
            tessera::set_tile_size(tile_for(s));
            for (Combination c : combinations(s)) {
                TrmmCase<T> t(c, s, s / 2 + 1, 60 + uint64_t(s), 3);  // lda, ldb = rows + 3
                Dense<T> B = t.B0;
                tessera::trmm(c.side, c.uplo, c.trans, c.diag, t.m, t.n, t.alpha, t.A.data(), t.A.ld, B.data(), B.ld);
                EXPECT_LT(t.error(B), tol) << t.what();
            }
        }
    });
}

TEST_P(TrmmAccuracy, AsyncTrmmThenTrsmRoundTrip)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t m = 100, n = 51, nb = tile_for(m);
        for (Combination c : {Combination{Side::left, Uplo::lower, Op::notrans, Diag::nonunit},
                              Combination{Side::right, Uplo::upper, Op::conjtrans, Diag::unit}}) {
            TrmmCase<T> t(c, m, n, 8);
            auto A = tessera::tile_copy_of(*rt, t.A.data(), t.ka, t.ka, t.A.ld, nb);
            tessera::TileMatrix<T> B{*rt, m, n, nb};
            Dense<T> out(m, n);
            tessera::Sequence s{*rt};
            tessera::lapack_to_tiles_async(t.B0.data(), t.B0.ld, B, s);
            tessera::trmm_async(c.side, c.uplo, c.trans, c.diag, t.alpha, A, B, s);   // alpha op(A) B
            tessera::trsm_async(c.side, c.uplo, c.trans, c.diag, T(1) / t.alpha, A, B, s);  // back to B
            tessera::tiles_to_lapack_async(B, out.data(), out.ld, s);
            ASSERT_EQ(s.wait(), 0);
            // A is well conditioned: ||B - B0||_1 / (||B0||_1 ka eps) stays small.
            EXPECT_LT(norm1_diff(out, t.B0) / (norm1(t.B0) * double(t.ka) * eps<T>()), tol) << t.what();
        }
    });
}

TEST_P(TrmmAccuracy, AlphaZeroGivesZero)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        LibraryRuntime lib{GetParam()};
        const int64_t m = 100, n = 51, nb = tile_for(m);
        tessera::set_tile_size(nb);
        for (Side side : {Side::left, Side::right}) {
            TrmmCase<T> t({side, Uplo::upper, Op::notrans, Diag::nonunit}, m, n, 9);
            t.alpha = T(0);
            for (T& x : t.B0.a) x = nan<T>();
            Dense<T> B = tile_trmm(*rt, t, nb);
            EXPECT_FALSE(has_nan(B)) << "tile form, side=" << char(side);
            EXPECT_EQ(norm1(B), 0.0) << "tile form, side=" << char(side);
            B = t.B0;  // A is not referenced: null is fine
            tessera::trmm<T>(side, Uplo::upper, Op::notrans, Diag::nonunit, m, n, T(0), nullptr, t.A.ld, B.data(),
                             B.ld);
            EXPECT_FALSE(has_nan(B)) << "LAPACK form, side=" << char(side);
            EXPECT_EQ(norm1(B), 0.0) << "LAPACK form, side=" << char(side);
        }
    });
}

TEST_P(TrmmAccuracy, BadArgumentsThrowNamingThem)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        std::vector<T> a(64, T(1)), b(64);
        auto position = [&](auto&& call) {
            try {
                call();
            } catch (tessera::InvalidLapackArgument const& e) {
                return e.position();
            }
            return 0;
        };
        auto call = [&](Side side, Uplo uplo, Op trans, Diag diag, int64_t m, int64_t n, T const* pa, int64_t lda,
                        T* pb, int64_t ldb) {
            return position([&] { tessera::trmm<T>(side, uplo, trans, diag, m, n, T(1), pa, lda, pb, ldb); });
        };
        const Side L = Side::left, R = Side::right;
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
        EXPECT_EQ(call(L, Lo, N, D, 4, 2, a.data(), 3, b.data(), 4), 9);  // left: lda >= m
        EXPECT_EQ(call(R, Lo, N, D, 2, 4, a.data(), 3, b.data(), 2), 9);  // right: lda >= n
        EXPECT_EQ(call(R, Lo, N, D, 2, 4, a.data(), 4, b.data(), 2), 0);
        EXPECT_EQ(call(L, Lo, N, D, 4, 4, a.data(), 4, nullptr, 4), 10);
        EXPECT_EQ(call(L, Lo, N, D, 4, 4, a.data(), 4, b.data(), 3), 11);

        auto rt = make_runtime();
        tessera::TileMatrix<T> A4{*rt, 4, 4, 2}, A43{*rt, 4, 3, 2}, B{*rt, 4, 3, 2}, A3{*rt, 4, 4, 3};
        const T one(1);
        EXPECT_THROW(tessera::trmm(L, Lo, N, D, one, A43, B), tessera::InvalidArgument);             // not square
        EXPECT_THROW(tessera::trmm(R, Lo, N, D, one, A4, B), tessera::InvalidArgument);              // order 4 vs 3
        EXPECT_THROW(tessera::trmm(L, Lo, N, D, one, A3, B), tessera::InvalidArgument);              // tile sizes
        EXPECT_THROW(tessera::trmm(L, Uplo::general, N, D, one, A4, B), tessera::InvalidArgument);  // uplo
    });
}

TESSERA_INSTANTIATE_ACCURACY(TrmmAccuracy);

}  // namespace
}  // namespace tessera::test
