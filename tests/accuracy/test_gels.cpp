// Checks the LQ calls (gelqf, unmlq, unglq) and gels in their LAPACK-style form and the four
// precisions against LAPACKE as the oracle:
//  - gelqf returns LAPACK's compact form: LAPACKE's orglq forms from it a Q with
//    ||A - L Q||_1 / (n ||A||_1 eps) < tol and orthonormal rows; unmlq and unglq match
//    LAPACKE's on LAPACKE's own compact form, from either side and with each op;
//  - gels solves the four problems (m >= n and m < n, A and A^H) as LAPACKE's gels: the same
//    solution to ||X - X_lapack||_1 / (||X_lapack||_1 max(m, n) eps) < tol on well-conditioned
//    matrices, and for the least-squares problems the residual's components below it (the
//    sum of their squares is ||B - op(A) X||^2); a matrix with an exactly zero column gives
//    LAPACKE's info; empty problems zero B as LAPACK's;
//  - the tile LQ (gelqf, unglq, unmlq through the tile QR of A^H, flat and binary trees):
//    ||A - L Q||_1 / (n ||A||_1 eps) < tol, orthogonal Q, and the four products of unmlq;
//  - the tile gels (through the tile QR or LQ, flat and binary trees) gives LAPACKE's
//    solutions and info;
//  - bad arguments throw naming them.
#include "accuracy/accuracy.hpp"
#include "accuracy/qr_checks.hpp"

#include <tessera/la/context.hpp>
#include <tessera/la/qr.hpp>

#include <tuple>

namespace tessera::test {
namespace {

class GelsAccuracy : public AccuracySweep {};

TEST_P(GelsAccuracy, GelqfReturnsLapacksCompactForm)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        set_tile_size(32);
        for (auto [m, n] :
             {std::pair<int64_t, int64_t>{100, 257}, {130, 130}, {150, 60}, {40, 3000}}) {
            const Dense<T> A0 = random_dense<T>(m, n, 1600 + uint64_t(m + n), m + 2);
            Dense<T> F = A0;
            const int64_t k = std::min(m, n);
            std::vector<T> tau(static_cast<std::size_t>(k));
            ASSERT_EQ(tessera::gelqf<T>(m, n, F.data(), F.ld, tau.data()), 0);
            EXPECT_TRUE(padding_unchanged(F, A0));
            Dense<T> Q(k, n);  // the first k rows of Q, by LAPACKE from our compact form
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < k; ++i) Q(i, j) = F(i, j);
            ASSERT_EQ(blas::unglq<T>(k, n, k, Q.data(), Q.ld, tau.data()), 0);
            Dense<T> L(m, k), D = A0;
            for (int64_t j = 0; j < k; ++j)
                for (int64_t i = j; i < m; ++i) L(i, j) = F(i, j);
            blas::gemm<T>(Op::notrans, Op::notrans, m, n, k, T(-1), L.data(), L.ld, Q.data(), Q.ld,
                          T(1), D.data(), D.ld);
            EXPECT_LT(norm1(D) / (double(n) * norm1(A0) * eps<T>()), tol) << m << " x " << n;
            Dense<T> Qh(n, k);  // orthonormal rows: Q^H has orthonormal columns
            for (int64_t j = 0; j < k; ++j)
                for (int64_t i = 0; i < n; ++i) Qh(i, j) = tessera::la::conj(Q(j, i));
            EXPECT_LT(orthogonality(Qh), tol) << m << " x " << n;
        }
    });
}

TEST_P(GelsAccuracy, TileLqFactorsAndAppliesQ)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t nb = 32;
        for (QrTree tree : {QrTree::flat, QrTree::binary})
            for (auto [m, n] : {std::pair<int64_t, int64_t>{70, 130}, {100, 100}, {130, 70}}) {
                const Dense<T> A0 = random_dense<T>(m, n, 2200 + uint64_t(m));
                const int64_t k = std::min(m, n);
                auto A = tiles_of(*rt, A0, nb);
                auto F = QrFactors<T>::for_lq(A, tree, 8);
                gelqf(A, F);
                TileMatrix<T> Qt{*rt, n, n, nb};  // all of Q
                unglq(A, F, Qt);
                const Dense<T> Lf = to_dense(A), Q = to_dense(Qt);
                Dense<T> L(m, k), D = A0;
                for (int64_t j = 0; j < k; ++j)
                    for (int64_t i = j; i < m; ++i) L(i, j) = Lf(i, j);
                blas::gemm<T>(Op::notrans, Op::notrans, m, n, k, T(-1), L.data(), L.ld, Q.data(),
                              Q.ld, T(1), D.data(), D.ld);
                EXPECT_LT(norm1(D) / (double(n) * norm1(A0) * eps<T>()), tol)
                    << m << " x " << n << " tree " << int(tree);
                Dense<T> Qh(n, n);
                for (int64_t j = 0; j < n; ++j)
                    for (int64_t i = 0; i < n; ++i) Qh(i, j) = tessera::la::conj(Q(j, i));
                EXPECT_LT(orthogonality(Qh), tol) << m << " x " << n << " tree " << int(tree);
                for (Side side : {Side::left, Side::right})
                    for (Op op : reflector_ops<T>()) {
                        const Dense<T> C0 = side == Side::left ? random_dense<T>(n, 30, 2201)
                                                               : random_dense<T>(30, n, 2202);
                        auto C = tiles_of(*rt, C0, nb);
                        unmlq(side, op, A, F, C);
                        const Dense<T> opQ = op == Op::notrans ? Q : Qh;
                        Dense<T> P(C0.m, C0.n);
                        if (side == Side::left)
                            blas::gemm<T>(Op::notrans, Op::notrans, n, 30, n, T(1), opQ.data(),
                                          opQ.ld, C0.data(), C0.ld, T(0), P.data(), P.ld);
                        else
                            blas::gemm<T>(Op::notrans, Op::notrans, 30, n, n, T(1), C0.data(),
                                          C0.ld, opQ.data(), opQ.ld, T(0), P.data(), P.ld);
                        EXPECT_LT(product_error(to_dense(C), P, C0, n), tol)
                            << m << " x " << n << " side " << char(side) << " op " << char(op);
                    }
            }
        TileMatrix<T> A{*rt, 40, 60, nb};
        QrFactors<T> notLq{A};
        EXPECT_THROW(gelqf(A, notLq), InvalidArgument);
    });
}

TEST_P(GelsAccuracy, UnmlqAndUnglqMatchLapacke)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        set_tile_size(32);
        for (auto [k, nq] : {std::pair<int64_t, int64_t>{70, 150}, {150, 150}}) {
            Dense<T> V = random_dense<T>(k, nq, 1700 + uint64_t(k));
            std::vector<T> tau(static_cast<std::size_t>(k));
            ASSERT_EQ(blas::gelqf<T>(k, nq, V.data(), V.ld, tau.data()), 0);
            for (Side side : {Side::left, Side::right})
                for (Op op : reflector_ops<T>()) {
                    const int64_t m = side == Side::left ? nq : 45,
                                  n = side == Side::left ? 45 : nq;
                    const Dense<T> C0 = random_dense<T>(m, n, 1800);
                    Dense<T> ours = C0, ref = C0;
                    ASSERT_EQ(tessera::unmlq<T>(side, op, m, n, k, V.data(), V.ld, tau.data(),
                                                ours.data(), ours.ld),
                              0);
                    ASSERT_EQ(blas::unmlq<T>(side, op, m, n, k, V.data(), V.ld, tau.data(),
                                             ref.data(), ref.ld),
                              0);
                    EXPECT_LT(product_error(ours, ref, C0, nq), tol)
                        << k << " x " << nq << " side " << char(side) << " op " << char(op);
                }
            Dense<T> ours = V, ref = V;
            ASSERT_EQ(tessera::unglq<T>(k, nq, k, ours.data(), ours.ld, tau.data()), 0);
            ASSERT_EQ(blas::unglq<T>(k, nq, k, ref.data(), ref.ld, tau.data()), 0);
            EXPECT_LT(norm1_diff(ours, ref) / (double(nq) * eps<T>()), tol) << k << " x " << nq;
        }
    });
}

TEST_P(GelsAccuracy, SolvesTheFourProblemsAsLapacke)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        set_tile_size(32);
        const int64_t nrhs = 5;
        for (auto [m, n] : {std::pair<int64_t, int64_t>{200, 90}, {90, 200}, {120, 120}})
            for (Op op : reflector_ops<T>()) {
                if (op == Op::trans) continue;  // the same problem as Op::conjtrans for real types
                const int64_t rows = std::max(m, n), in = op == Op::notrans ? m : n,
                              out = op == Op::notrans ? n : m;
                const Dense<T> A0 = random_dense<T>(m, n, 1900 + uint64_t(m));
                Dense<T> B0(rows, nrhs);
                const Dense<T> R = random_dense<T>(in, nrhs, 1901);
                for (int64_t j = 0; j < nrhs; ++j)
                    for (int64_t i = 0; i < in; ++i) B0(i, j) = R(i, j);
                Dense<T> A = A0, B = B0, Aref = A0, Bref = B0;
                ASSERT_EQ(tessera::gels<T>(op, m, n, nrhs, A.data(), A.ld, B.data(), B.ld), 0);
                ASSERT_EQ(blas::gels<T>(op, m, n, nrhs, Aref.data(), Aref.ld, Bref.data(), Bref.ld),
                          0);
                Dense<T> X(out, nrhs), Xref(out, nrhs);
                for (int64_t j = 0; j < nrhs; ++j)
                    for (int64_t i = 0; i < out; ++i) X(i, j) = B(i, j), Xref(i, j) = Bref(i, j);
                EXPECT_LT(norm1_diff(X, Xref) / (norm1(Xref) * double(rows) * eps<T>()), tol)
                    << m << " x " << n << " op " << char(op);
                if (in > out) {  // least squares: rows out.. of B hold the residual's components
                    Dense<T> E = R;  // R - op(A) X
                    blas::gemm<T>(op, Op::notrans, in, nrhs, out, T(-1), A0.data(), A0.ld, X.data(),
                                  X.ld, T(1), E.data(), E.ld);
                    for (int64_t j = 0; j < nrhs; ++j) {
                        double tail = 0, full = 0;
                        for (int64_t i = out; i < in; ++i)
                            tail += std::norm(std::complex<double>(B(i, j)));
                        for (int64_t i = 0; i < in; ++i)
                            full += std::norm(std::complex<double>(E(i, j)));
                        EXPECT_LT(std::abs(tail - full) / (full * double(in) * eps<T>()), tol)
                            << m << " x " << n << " op " << char(op) << " column " << j;
                    }
                }
            }
    });
}

TEST_P(GelsAccuracy, TileGelsSolvesAsLapacke)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t nrhs = 5, nb = 32;
        for (QrTree tree : {QrTree::flat, QrTree::binary})
            for (auto [m, n] : {std::pair<int64_t, int64_t>{200, 90},
                                {120, 120},
                                {130, 64},
                                {90, 200},
                                {64, 130}})
                for (Op op : {Op::notrans, Op::conjtrans}) {
                    const int64_t in = op == Op::notrans ? m : n, out = op == Op::notrans ? n : m;
                    const Dense<T> A0 = random_dense<T>(m, n, 2100 + uint64_t(m));
                    Dense<T> B0(std::max(m, n), nrhs);
                    const Dense<T> R = random_dense<T>(in, nrhs, 2101);
                    for (int64_t j = 0; j < nrhs; ++j)
                        for (int64_t i = 0; i < in; ++i) B0(i, j) = R(i, j);
                    Dense<T> Aref = A0, Bref = B0;
                    ASSERT_EQ(
                        blas::gels<T>(op, m, n, nrhs, Aref.data(), Aref.ld, Bref.data(), Bref.ld),
                        0);
                    auto A = tiles_of(*rt, A0, nb);
                    auto B = tiles_of(*rt, B0, nb);
                    QrFactors<T> F = m >= n ? QrFactors<T>{A, tree} : QrFactors<T>::for_lq(A, tree);
                    ASSERT_EQ(tessera::gels(op, A, F, B), 0);
                    const Dense<T> Bd = to_dense(B);
                    Dense<T> X(out, nrhs), Xref(out, nrhs);
                    for (int64_t j = 0; j < nrhs; ++j)
                        for (int64_t i = 0; i < out; ++i)
                            X(i, j) = Bd(i, j), Xref(i, j) = Bref(i, j);
                    EXPECT_LT(norm1_diff(X, Xref) /
                                  (norm1(Xref) * double(std::max(m, n)) * eps<T>()),
                              tol)
                        << m << " x " << n << " op " << char(op) << " tree " << int(tree);
                }
        // a zero column: LAPACKE's info; factors of the wrong kind are refused with a message
        Dense<T> Z = random_dense<T>(100, 60, 2102);
        for (int64_t i = 0; i < 100; ++i) Z(i, 37) = T(0);
        Dense<T> Zref = Z, Bz = random_dense<T>(100, 2, 2103);
        Dense<T> Bzref = Bz;
        const int64_t ref =
            blas::gels<T>(Op::notrans, 100, 60, 2, Zref.data(), Zref.ld, Bzref.data(), Bzref.ld);
        ASSERT_EQ(ref, 38);
        auto A = tiles_of(*rt, Z, nb);
        auto B = tiles_of(*rt, Bz, nb);
        QrFactors<T> F{A};
        EXPECT_EQ(tessera::gels(Op::notrans, A, F, B), ref);
        TileMatrix<T> W{*rt, 40, 60, nb}, C{*rt, 60, 2, nb};
        QrFactors<T> FW{W};  // a QR's factors for m < n
        EXPECT_THROW((void)tessera::gels(Op::notrans, W, FW, C), InvalidArgument);
    });
}

TEST_P(GelsAccuracy, RankDeficientAndEmptyProblemsGiveLapacksAnswers)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        set_tile_size(32);
        for (auto [m, n] : {std::pair<int64_t, int64_t>{100, 60}, {60, 100}}) {
            Dense<T> A0 = random_dense<T>(m, n, 2000);
            if (m >= n)
                for (int64_t i = 0; i < m; ++i) A0(i, 37) = T(0);  // a zero column: R(37, 37) = 0
            else
                for (int64_t j = 0; j < n; ++j) A0(37, j) = T(0);  // a zero row: L(37, 37) = 0
            const Dense<T> B0 = random_dense<T>(std::max(m, n), 3, 2001);
            Dense<T> A = A0, B = B0, Aref = A0, Bref = B0;
            const int64_t ref =
                blas::gels<T>(Op::notrans, m, n, 3, Aref.data(), Aref.ld, Bref.data(), Bref.ld);
            ASSERT_EQ(ref, 38);
            EXPECT_EQ(tessera::gels<T>(Op::notrans, m, n, 3, A.data(), A.ld, B.data(), B.ld), ref)
                << m << " x " << n;
        }
        Dense<T> B = random_dense<T>(7, 2, 2002);  // m = 0: B(0:max(m, n), :) = 0
        EXPECT_EQ(tessera::gels<T>(Op::notrans, 0, 7, 2, nullptr, 1, B.data(), B.ld), 0);
        EXPECT_EQ(norm1(B), 0.0);
    });
}

TEST_P(GelsAccuracy, BadArgumentsAreNamed)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        std::vector<T> a(64), b(64), tau(8);
        T* const null = nullptr;
        auto gels_at = [&](Op op, int64_t m, int64_t n, int64_t nrhs, T* pa, int64_t lda, T* pb,
                           int64_t ldb) {
            return argument_position(
                [&] { (void)tessera::gels<T>(op, m, n, nrhs, pa, lda, pb, ldb); });
        };
        EXPECT_EQ(gels_at(Op('X'), 4, 4, 1, a.data(), 4, b.data(), 4), 1);
        if constexpr (is_complex_v<T>) {
            EXPECT_EQ(gels_at(Op::trans, 4, 4, 1, a.data(), 4, b.data(), 4), 1);
        }
        EXPECT_EQ(gels_at(Op::notrans, -1, 4, 1, a.data(), 4, b.data(), 4), 2);
        EXPECT_EQ(gels_at(Op::notrans, 4, -1, 1, a.data(), 4, b.data(), 4), 3);
        EXPECT_EQ(gels_at(Op::notrans, 4, 4, -1, a.data(), 4, b.data(), 4), 4);
        EXPECT_EQ(gels_at(Op::notrans, 4, 4, 1, null, 4, b.data(), 4), 5);
        EXPECT_EQ(gels_at(Op::notrans, 4, 4, 1, a.data(), 3, b.data(), 4), 6);
        EXPECT_EQ(gels_at(Op::notrans, 4, 4, 1, a.data(), 4, null, 4), 7);
        EXPECT_EQ(gels_at(Op::notrans, 4, 6, 1, a.data(), 4, b.data(), 5), 8);  // ldb >= max(m, n)
        EXPECT_EQ(
            argument_position([&] { (void)tessera::gelqf<T>(4, 4, a.data(), 3, tau.data()); }), 4);
        EXPECT_EQ(
            argument_position([&] { (void)tessera::unglq<T>(5, 4, 2, a.data(), 5, tau.data()); }),
            2);
        EXPECT_EQ(argument_position([&] {
                      (void)tessera::unmlq<T>(Side::left, Op::notrans, 4, 4, 3, a.data(), 2,
                                              tau.data(), b.data(), 4);
                  }),
                  7);
    });
}

TESSERA_INSTANTIATE_ACCURACY(GelsAccuracy);

}  // namespace
}  // namespace tessera::test
