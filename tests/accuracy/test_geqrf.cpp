// Checks the QR family (geqrf, unmqr, ungqr) in its forms and the four precisions against
// LAPACKE as the oracle:
//  - the tile QR, every tree: A = Q R to ||A - Q R||_1 / (m ||A||_1 eps) < tol with Q formed
//    by the tile ungqr and orthogonal to ||I - Q^H Q||_1 / (m eps) < tol; R upper
//    triangular; the tile unmqr's four products equal op(Q) C and C op(Q) computed with that
//    Q by CBLAS; square, tall, wide, empty and tall-and-narrow shapes, tiles that divide
//    neither side;
//  - the LAPACK-style geqrf returns LAPACK's compact form: LAPACKE's orgqr forms from it a Q
//    with the residual and orthogonality above, and LAPACKE's ormqr applies Q^H to A to give
//    R; the LAPACK-style unmqr and ungqr match LAPACKE's on LAPACKE's own compact form;
//  - rank-deficient matrices (zero and repeated columns) factor without a fault, as LAPACK's;
//  - bad arguments throw naming them.
#include "accuracy/accuracy.hpp"
#include "accuracy/qr_checks.hpp"

#include <tessera/la/context.hpp>
#include <tessera/la/qr.hpp>

#include <tuple>

namespace tessera::test {
namespace {

/// ||A0 - Q R||_1 / (m ||A0||_1 eps), R the upper k x n part of F, Q m x k (k = min(m, n)).
template <Scalar T> double qr_residual(Dense<T> const& A0, Dense<T> const& Q, Dense<T> const& F)
{
    const int64_t m = A0.m, n = A0.n, k = std::min(m, n);
    if (k == 0) return 0;
    Dense<T> R(k, n), D = A0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < k; ++i) R(i, j) = i <= j ? F(i, j) : T(0);
    blas::gemm<T>(Op::notrans, Op::notrans, m, n, k, T(-1), Q.data(), Q.ld, R.data(), R.ld, T(1),
                  D.data(), D.ld);
    const double a = norm1(A0);
    return norm1(D) / (double(m) * (a > 0 ? a : 1) * eps<T>());
}

/// The tile QR of A0 (tile size nb, `tree`, inner blocking ib): the factored A and the first
/// q columns of Q (tile ungqr).
template <Scalar T>
std::pair<Dense<T>, Dense<T>> tile_qr(rt::Runtime& rt, Dense<T> const& A0, int64_t nb, QrTree tree,
                                      int64_t ib, int64_t q)
{
    auto A = tiles_of(rt, A0, nb);
    QrFactors<T> F{A, tree, ib};
    geqrf(A, F);
    TileMatrix<T> Q{rt, A0.m, q, nb};
    ungqr(A, F, Q);
    return {to_dense(A), to_dense(Q)};
}

/// op(M) explicitly.
template <Scalar T> Dense<T> op_of(Dense<T> const& M, Op op)
{
    if (op == Op::notrans) return M;
    Dense<T> R(M.n, M.m);
    for (int64_t j = 0; j < R.n; ++j)
        for (int64_t i = 0; i < R.m; ++i)
            R(i, j) = op == Op::conjtrans ? tessera::la::conj(M(j, i)) : M(j, i);
    return R;
}

/// op(Q) C (left) or C op(Q) (right) by CBLAS, with Q explicit.
template <Scalar T> Dense<T> product(Side side, Op op, Dense<T> const& Q, Dense<T> const& C)
{
    const Dense<T> opQ =
        op_of(Q, op == Op::notrans ? Op::notrans : Op::conjtrans);  // Q^T = Q^H when real
    Dense<T> P(C.m, C.n);
    if (C.m == 0 || C.n == 0) return P;
    if (side == Side::left)
        blas::gemm<T>(Op::notrans, Op::notrans, C.m, C.n, C.m, T(1), opQ.data(), opQ.ld, C.data(),
                      C.ld, T(0), P.data(), P.ld);
    else
        blas::gemm<T>(Op::notrans, Op::notrans, C.m, C.n, C.n, T(1), C.data(), C.ld, opQ.data(),
                      opQ.ld, T(0), P.data(), P.ld);
    return P;
}

class GeqrfAccuracy : public AccuracySweep {};

TEST_P(GeqrfAccuracy, TileQrFactorsWithinTheBoundOnEveryTree)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const std::tuple<int64_t, int64_t, int64_t> shapes[] = {
            {100, 100, 32}, {257, 257, 32}, {300, 100, 32}, {100, 300, 32}, {96, 33, 32},
            {7, 7, 3},      {1, 7, 3},      {7, 1, 3},      {0, 5, 3},      {5, 0, 3}};
        for (QrTree tree : {QrTree::flat, QrTree::binary, QrTree::automatic})
            for (auto [m, n, nb] : shapes) {
                const Dense<T> A0 = random_dense<T>(m, n, 900 + uint64_t(m * 7 + n));
                const int64_t k = std::min(m, n);
                const auto [F, Q] = tile_qr(*rt, A0, nb, tree, nb / 2 + 1, k);
                EXPECT_LT(qr_residual(A0, Q, F), tol) << m << " x " << n << " tree " << int(tree);
                EXPECT_LT(orthogonality(Q), tol) << m << " x " << n << " tree " << int(tree);
            }
    });
}

TEST_P(GeqrfAccuracy, TallAndNarrowMatricesUseDomainsAndStayAccurate)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t m = 3000, n = 40, nb = 40;
        const Dense<T> A0 = random_dense<T>(m, n, 950);
        auto A = tiles_of(*rt, A0, nb);
        QrFactors<T> F{A};
        EXPECT_LT(F.domain(), A.mt()) << "a tall matrix gets several domains";
        geqrf(A, F);
        TileMatrix<T> Q{*rt, m, n, nb};
        ungqr(A, F, Q);
        const Dense<T> R = to_dense(A), Qd = to_dense(Q);
        EXPECT_LT(qr_residual(A0, Qd, R), tol);
        EXPECT_LT(orthogonality(Qd), tol);
    });
}

TEST_P(GeqrfAccuracy, TileUnmqrAppliesQFromEitherSide)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        for (QrTree tree : {QrTree::flat, QrTree::binary})
            for (auto [m, n] : {std::pair<int64_t, int64_t>{130, 70}, {70, 130}}) {
                const int64_t nb = 32, p = 45;
                const Dense<T> A0 = random_dense<T>(m, n, 1000 + uint64_t(m));
                auto A = tiles_of(*rt, A0, nb);
                QrFactors<T> F{A, tree, 8};
                geqrf(A, F);
                TileMatrix<T> Qt{*rt, m, m, nb};
                ungqr(A, F, Qt);
                const Dense<T> Q = to_dense(Qt);
                ASSERT_LT(orthogonality(Q), tol);
                for (Side side : {Side::left, Side::right})
                    for (Op op : reflector_ops<T>()) {
                        const Dense<T> C0 = side == Side::left ? random_dense<T>(m, p, 1100)
                                                               : random_dense<T>(p, m, 1101);
                        auto C = tiles_of(*rt, C0, nb);
                        unmqr(side, op, A, F, C);
                        EXPECT_LT(product_error(to_dense(C), product(side, op, Q, C0), C0, m), tol)
                            << m << " x " << n << " side " << char(side) << " op " << char(op);
                    }
            }
    });
}

TEST_P(GeqrfAccuracy, LapackStyleGeqrfReturnsLapacksCompactForm)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        set_tile_size(32);
        for (auto [m, n] :
             {std::pair<int64_t, int64_t>{100, 100}, {257, 130}, {130, 257}, {3000, 40}, {1, 1}}) {
            const Dense<T> A0 = random_dense<T>(m, n, 1200 + uint64_t(m + n), m + 3);
            Dense<T> F = A0;
            const int64_t k = std::min(m, n);
            std::vector<T> tau(static_cast<std::size_t>(k));
            ASSERT_EQ(tessera::geqrf<T>(m, n, F.data(), F.ld, tau.data()), 0);
            // Q by LAPACKE's orgqr from our compact form
            Dense<T> Q(m, k);
            for (int64_t j = 0; j < k; ++j)
                for (int64_t i = 0; i < m; ++i) Q(i, j) = F(i, j);
            ASSERT_EQ(blas::ungqr<T>(m, k, k, Q.data(), Q.ld, tau.data()), 0);
            EXPECT_LT(qr_residual(A0, Q, F), tol) << m << " x " << n;
            EXPECT_LT(orthogonality(Q), tol) << m << " x " << n;
            // Q^H A by LAPACKE's ormqr from our compact form: R above, zero below
            Dense<T> QhA = A0;
            ASSERT_EQ(blas::unmqr<T>(Side::left, Op::conjtrans, m, n, k, F.data(), F.ld, tau.data(),
                                     QhA.data(), QhA.ld),
                      0);
            Dense<T> R(m, n);
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < std::min(j + 1, m); ++i) R(i, j) = F(i, j);
            EXPECT_LT(product_error(QhA, R, A0, m), tol) << m << " x " << n;
            EXPECT_TRUE(padding_unchanged(F, A0)) << m << " x " << n;
        }
    });
}

TEST_P(GeqrfAccuracy, LapackStyleUnmqrAndUngqrMatchLapacke)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        set_tile_size(32);
        for (auto [nq, k] : {std::pair<int64_t, int64_t>{150, 150}, {150, 70}, {70, 70}}) {
            Dense<T> V = random_dense<T>(nq, k, 1300 + uint64_t(nq + k));
            std::vector<T> tau(static_cast<std::size_t>(k));
            ASSERT_EQ(blas::geqrf<T>(nq, k, V.data(), V.ld, tau.data()), 0);
            for (Side side : {Side::left, Side::right})
                for (Op op : reflector_ops<T>()) {
                    const int64_t m = side == Side::left ? nq : 45,
                                  n = side == Side::left ? 45 : nq;
                    const Dense<T> C0 = random_dense<T>(m, n, 1400);
                    Dense<T> ours = C0, ref = C0;
                    ASSERT_EQ(tessera::unmqr<T>(side, op, m, n, k, V.data(), V.ld, tau.data(),
                                                ours.data(), ours.ld),
                              0);
                    ASSERT_EQ(blas::unmqr<T>(side, op, m, n, k, V.data(), V.ld, tau.data(),
                                             ref.data(), ref.ld),
                              0);
                    EXPECT_LT(product_error(ours, ref, C0, nq), tol)
                        << nq << " k " << k << " side " << char(side) << " op " << char(op);
                }
            for (int64_t n : {k, std::min<int64_t>(nq, k + 37)}) {  // k reflectors, n >= k columns
                Dense<T> ours(nq, n), ref(nq, n);
                for (int64_t j = 0; j < n; ++j)
                    for (int64_t i = 0; i < nq; ++i)
                        ours(i, j) = ref(i, j) = j < k ? V(i, j) : T(real_t<T>(i + j));
                ASSERT_EQ(tessera::ungqr<T>(nq, n, k, ours.data(), ours.ld, tau.data()), 0);
                ASSERT_EQ(blas::ungqr<T>(nq, n, k, ref.data(), ref.ld, tau.data()), 0);
                EXPECT_LT(norm1_diff(ours, ref) / (double(nq) * eps<T>()), tol)
                    << nq << " x " << n << " k " << k;
            }
        }
    });
}

TEST_P(GeqrfAccuracy, RankDeficientMatricesFactorAsLapacks)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t m = 120, n = 80;
        Dense<T> A0 = random_dense<T>(m, n, 1500);
        for (int64_t i = 0; i < m; ++i) {
            A0(i, 0) = T(0);        // a zero column first
            A0(i, 50) = A0(i, 10);  // a repeated column
            A0(i, n - 1) = T(0);    // and a zero column last
        }
        for (QrTree tree : {QrTree::flat, QrTree::binary}) {
            const auto [F, Q] = tile_qr(*rt, A0, 32, tree, 16, n);
            EXPECT_LT(qr_residual(A0, Q, F), tol);
            EXPECT_LT(orthogonality(Q), tol);
            EXPECT_FALSE(has_nan(F));
        }
    });
}

TEST_P(GeqrfAccuracy, BadArgumentsAreNamed)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        std::vector<T> a(64), tau(8), c(64);
        T* const null = nullptr;
        EXPECT_EQ(
            argument_position([&] { (void)tessera::geqrf<T>(-1, 4, a.data(), 4, tau.data()); }), 1);
        EXPECT_EQ(
            argument_position([&] { (void)tessera::geqrf<T>(4, -1, a.data(), 4, tau.data()); }), 2);
        EXPECT_EQ(argument_position([&] { (void)tessera::geqrf<T>(4, 4, null, 4, tau.data()); }),
                  3);
        EXPECT_EQ(
            argument_position([&] { (void)tessera::geqrf<T>(4, 4, a.data(), 3, tau.data()); }), 4);
        EXPECT_EQ(argument_position([&] { (void)tessera::geqrf<T>(4, 4, a.data(), 4, null); }), 5);
        EXPECT_EQ(argument_position([&] { (void)tessera::geqrf<T>(0, 4, null, 1, null); }), 0);
        auto unmqr_at = [&](Side side, Op op, int64_t m, int64_t n, int64_t k, int64_t lda,
                            int64_t ldc) {
            return argument_position([&] {
                (void)tessera::unmqr<T>(side, op, m, n, k, a.data(), lda, tau.data(), c.data(),
                                        ldc);
            });
        };
        EXPECT_EQ(unmqr_at(Side('X'), Op::notrans, 4, 4, 2, 4, 4), 1);
        EXPECT_EQ(unmqr_at(Side::left, Op('X'), 4, 4, 2, 4, 4), 2);
        if constexpr (is_complex_v<T>) {
            EXPECT_EQ(unmqr_at(Side::left, Op::trans, 4, 4, 2, 4, 4), 2);
        }
        EXPECT_EQ(unmqr_at(Side::left, Op::notrans, -1, 4, 2, 4, 4), 3);
        EXPECT_EQ(unmqr_at(Side::left, Op::notrans, 4, -1, 2, 4, 4), 4);
        EXPECT_EQ(unmqr_at(Side::left, Op::notrans, 4, 4, 5, 4, 4), 5);
        EXPECT_EQ(unmqr_at(Side::right, Op::notrans, 8, 4, 5, 8, 8), 5);
        EXPECT_EQ(unmqr_at(Side::right, Op::notrans, 8, 4, 2, 3, 8), 7);
        EXPECT_EQ(unmqr_at(Side::left, Op::notrans, 8, 4, 2, 8, 7), 10);
        EXPECT_EQ(
            argument_position([&] { (void)tessera::ungqr<T>(4, 5, 2, a.data(), 4, tau.data()); }),
            2);
        EXPECT_EQ(
            argument_position([&] { (void)tessera::ungqr<T>(4, 3, 4, a.data(), 4, tau.data()); }),
            3);
        EXPECT_EQ(
            argument_position([&] { (void)tessera::ungqr<T>(4, 3, 2, a.data(), 3, tau.data()); }),
            5);
        // the tile forms: factors of another shape, C of another size, Q^T of a complex Q
        auto rt = make_runtime();
        TileMatrix<T> A{*rt, 64, 64, 16}, B{*rt, 64, 32, 16}, C{*rt, 50, 64, 16};
        QrFactors<T> FB{B};
        EXPECT_THROW(geqrf(A, FB), InvalidArgument);
        QrFactors<T> FA{A};
        EXPECT_THROW(unmqr(Side::left, Op::notrans, A, FA, C), InvalidArgument);
        if constexpr (is_complex_v<T>) {
            EXPECT_THROW(unmqr(Side::right, Op::trans, A, FA, C), InvalidArgument);
        }
        EXPECT_THROW(QrFactors<T>(A, QrTree::flat, -1), InvalidArgument);
    });
}

TESSERA_INSTANTIATE_ACCURACY(GeqrfAccuracy);

}  // namespace
}  // namespace tessera::test
