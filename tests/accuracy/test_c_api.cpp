// Checks the C API (tessera.h) in the four precisions: every routine's result against the
// same CBLAS call or a residual on the host, LAPACK's info for a matrix that is not positive
// definite or is exactly singular, LAPACKE's pivots, -i for a bad argument i (letters, dimensions, leading dimensions), and a message
// in tessera_last_error(). The library's runtime starts on the first call (no tessera_init).
// After a call, OpenBLAS has its thread count back.
#include "accuracy/accuracy.hpp"

#include <tessera/tessera.h>

#include <atomic>
#include <thread>

namespace tessera::test {
namespace {

/// The C functions of precision T.
template <class T> struct CApi;
#define TESSERA_C_API(T, p, herk_, hemm_, un)                                                      \
    template <> struct CApi<T> {                                                                   \
        static constexpr auto gemm = &tessera_##p##gemm;                                           \
        static constexpr auto symm = &tessera_##p##symm;                                           \
        static constexpr auto hemm = hemm_;                                                        \
        static constexpr auto syrk = &tessera_##p##syrk;                                           \
        static constexpr auto herk = herk_;                                                        \
        static constexpr auto trsm = &tessera_##p##trsm;                                           \
        static constexpr auto trmm = &tessera_##p##trmm;                                           \
        static constexpr auto potrf = &tessera_##p##potrf;                                         \
        static constexpr auto potrs = &tessera_##p##potrs;                                         \
        static constexpr auto posv = &tessera_##p##posv;                                           \
        static constexpr auto potri = &tessera_##p##potri;                                         \
        static constexpr auto getrf = &tessera_##p##getrf;                                         \
        static constexpr auto getrf_nopiv = &tessera_##p##getrf_nopiv;                             \
        static constexpr auto getrs = &tessera_##p##getrs;                                         \
        static constexpr auto gesv = &tessera_##p##gesv;                                           \
        static constexpr auto getri = &tessera_##p##getri;                                         \
        static constexpr auto geqrf = &tessera_##p##geqrf;                                         \
        static constexpr auto unmqr = &tessera_##p##un##mqr;                                       \
        static constexpr auto ungqr = &tessera_##p##un##gqr;                                       \
        static constexpr auto gelqf = &tessera_##p##gelqf;                                         \
        static constexpr auto unmlq = &tessera_##p##un##mlq;                                       \
        static constexpr auto unglq = &tessera_##p##un##glq;                                       \
        static constexpr auto gels = &tessera_##p##gels;                                           \
    };
TESSERA_C_API(float, s, nullptr, nullptr, or)
TESSERA_C_API(double, d, nullptr, nullptr, or)
TESSERA_C_API(std::complex<float>, c, &tessera_cherk, &tessera_chemm, un)
TESSERA_C_API(std::complex<double>, z, &tessera_zherk, &tessera_zhemm, un)
#undef TESSERA_C_API

/// The mixed-precision solver of double precision T.
template <class T> struct CMixed;
template <> struct CMixed<double> {
    static constexpr auto gesv = &tessera_dsgesv;
};
template <> struct CMixed<std::complex<double>> {
    static constexpr auto gesv = &tessera_zcgesv;
};

class CApiSweep : public PrecisionSweep {
protected:
    void TearDown() override
    {
        tessera_set_tile_size(0);
        tessera_finalize();
    }
};

template <Scalar T> double relative_error(Dense<T> const& X, Dense<T> const& Ref, double scale)
{
    return norm1_diff(X, Ref) / (scale * eps<T>());
}

TEST_P(CApiSweep, BlasRoutinesMatchCblas)
{
    with_precision([&]<class T>() {
        using C = CApi<T>;
        tessera_set_tile_size(16);
        const int m = 50, n = 37, k = 29;
        const T alpha = T(real_t<T>(0.75)), beta = T(real_t<T>(-0.5));
        auto A = random_dense<T>(m, k, 1), B = random_dense<T>(k, n, 2),
             C0 = random_dense<T>(m, n, 3);
        Dense<T> X = C0, R = C0;
        ASSERT_EQ(C::gemm('N', 'N', m, n, k, alpha, A.data(), int(A.ld), B.data(), int(B.ld), beta,
                          X.data(), int(X.ld)),
                  0);
        blas::gemm<T>(Op::notrans, Op::notrans, m, n, k, alpha, A.data(), A.ld, B.data(), B.ld,
                      beta, R.data(), R.ld);
        EXPECT_LT(relative_error(X, R, (norm1(A) * norm1(B) + norm1(C0)) * k), tol) << "gemm";

        auto S = random_dense<T>(m, m, 4);  // symmetric / Hermitian through its lower triangle
        X = C0, R = C0;
        ASSERT_EQ(C::symm('L', 'l', m, n, alpha, S.data(), int(S.ld), C0.data(), int(C0.ld), beta,
                          X.data(), int(X.ld)),
                  0);
        blas::symm<T>(Side::left, Uplo::lower, false, m, n, alpha, S.data(), S.ld, C0.data(), C0.ld,
                      beta, R.data(), R.ld);
        EXPECT_LT(relative_error(X, R, (norm1(S) * norm1(C0) + norm1(C0)) * m), tol) << "symm";
        if constexpr (tessera::la::is_complex_v<T>) {
            X = C0, R = C0;
            auto Sh = random_dense<T>(n, n, 11);
            ASSERT_EQ(C::hemm('R', 'U', m, n, alpha, Sh.data(), int(Sh.ld), C0.data(), int(C0.ld),
                              beta, X.data(), int(X.ld)),
                      0);
            blas::symm<T>(Side::right, Uplo::upper, true, m, n, alpha, Sh.data(), Sh.ld, C0.data(),
                          C0.ld, beta, R.data(), R.ld);
            EXPECT_LT(relative_error(X, R, (norm1(Sh) * norm1(C0) + norm1(C0)) * n), tol) << "hemm";
        }

        auto W = random_dense<T>(n, k, 5);
        Dense<T> Y = random_dense<T>(n, n, 6), Yr = Y;
        ASSERT_EQ(C::syrk('U', 'N', n, k, alpha, W.data(), int(W.ld), beta, Y.data(), int(Y.ld)),
                  0);
        blas::syrk<T>(Uplo::upper, Op::notrans, false, n, k, alpha, W.data(), W.ld, beta, Yr.data(),
                      Yr.ld);
        EXPECT_LT(relative_error(triangle(Y, Uplo::upper), triangle(Yr, Uplo::upper),
                                 (norm1(W) * norm1(W) + norm1(Y)) * k),
                  tol)
            << "syrk";

        if constexpr (tessera::la::is_complex_v<T>) {
            Dense<T> Z = random_dense<T>(n, n, 12), Zr = Z;
            ASSERT_EQ(C::herk('L', 'N', n, k, real_t<T>(0.5), W.data(), int(W.ld), real_t<T>(-0.5),
                              Z.data(), int(Z.ld)),
                      0);
            blas::syrk<T>(Uplo::lower, Op::notrans, true, n, k, T(real_t<T>(0.5)), W.data(), W.ld,
                          T(real_t<T>(-0.5)), Zr.data(), Zr.ld);
            EXPECT_LT(relative_error(triangle(Z, Uplo::lower), triangle(Zr, Uplo::lower),
                                     (norm1(W) * norm1(W) + norm1(Zr)) * k),
                      tol)
                << "herk";
        }

        auto L = random_dense<T>(m, m, 7);
        for (int i = 0; i < m; ++i) L(i, i) = T(real_t<T>(m));
        X = C0, R = C0;
        ASSERT_EQ(
            C::trsm('L', 'L', 'N', 'N', m, n, alpha, L.data(), int(L.ld), X.data(), int(X.ld)), 0);
        blas::trsm<T>(Side::left, Uplo::lower, Op::notrans, Diag::nonunit, m, n, alpha, L.data(),
                      L.ld, R.data(), R.ld);
        EXPECT_LT(relative_error(X, R, norm1(R) * m), tol) << "trsm";
        X = C0, R = C0;
        ASSERT_EQ(
            C::trmm('L', 'U', 'T', 'U', m, n, alpha, L.data(), int(L.ld), X.data(), int(X.ld)), 0);
        blas::trmm<T>(Side::left, Uplo::upper, Op::trans, Diag::unit, m, n, alpha, L.data(), L.ld,
                      R.data(), R.ld);
        EXPECT_LT(relative_error(X, R, norm1(L) * norm1(C0) * m), tol) << "trmm";
    });
}

TEST_P(CApiSweep, CholeskyFamilySolvesAndInverts)
{
    with_precision([&]<class T>() {
        using C = CApi<T>;
        tessera_set_tile_size(16);
        const int n = 45, nrhs = 3;
        auto H = hpd_dense<T>(n, 9);
        auto B0 = random_dense<T>(n, nrhs, 10);
        // posv: ||H X - B||_1 / (||H||_1 ||X||_1 n eps)
        Dense<T> F = H, X = B0;
        ASSERT_EQ(C::posv('L', n, nrhs, F.data(), int(F.ld), X.data(), int(X.ld)), 0);
        Dense<T> R = B0;
        blas::gemm<T>(Op::notrans, Op::notrans, n, nrhs, n, T(1), H.data(), H.ld, X.data(), X.ld,
                      T(-1), R.data(), R.ld);
        EXPECT_LT(norm1(R) / (norm1(H) * norm1(X) * n * eps<T>()), tol) << "posv";
        // potrf + potrs give the same solution
        Dense<T> G = H, Y = B0;
        ASSERT_EQ(C::potrf('U', n, G.data(), int(G.ld)), 0);
        ASSERT_EQ(C::potrs('U', n, nrhs, G.data(), int(G.ld), Y.data(), int(Y.ld)), 0);
        EXPECT_LT(norm1_diff(X, Y) / (norm1(X) * n * eps<T>()), 1e3) << "potrs";
        // potri: ||I - H H^{-1}||_1 / (||H||_1 ||H^{-1}||_1 n eps)
        ASSERT_EQ(C::potri('U', n, G.data(), int(G.ld)), 0);
        Dense<T> Inv = hermitian_from(G, Uplo::upper), I(n, n);
        for (int i = 0; i < n; ++i) I(i, i) = T(1);
        blas::gemm<T>(Op::notrans, Op::notrans, n, n, n, T(1), H.data(), H.ld, Inv.data(), Inv.ld,
                      T(-1), I.data(), I.ld);
        EXPECT_LT(norm1(I) / (norm1(H) * norm1(Inv) * n * eps<T>()), tol) << "potri";
        // not positive definite: LAPACK's info, and posv leaves B untouched
        Dense<T> Bad = H, Xb = B0;
        Bad(20, 20) = T(-1);
        EXPECT_EQ(C::posv('L', n, nrhs, Bad.data(), int(Bad.ld), Xb.data(), int(Xb.ld)), 21);
        EXPECT_EQ(norm1_diff(Xb, B0), 0.0);
    });
}

TEST_P(CApiSweep, LuFamilySolvesAsLapacke)
{
    with_precision([&]<class T>() {
        using C = CApi<T>;
        tessera_set_tile_size(16);
        const int n = 45, nrhs = 3;
        const auto A0 = random_dense<T>(n, n, 21), B0 = random_dense<T>(n, nrhs, 22);
        // gesv: ||A X - B||_1 / (||A||_1 ||X||_1 n eps), pivots as LAPACKE's
        Dense<T> F = A0, X = B0, Fref = A0;
        std::vector<int> ipiv(n), ref(n);
        ASSERT_EQ(C::gesv(n, nrhs, F.data(), int(F.ld), ipiv.data(), X.data(), int(X.ld)), 0);
        EXPECT_LT(solve_residual(A0, X, B0), tol) << "gesv";
        ASSERT_EQ(blas::getrf<T>(n, n, Fref.data(), Fref.ld, ref.data()), 0);
        // getrf then getrs ('N' and 'T') give the same solutions
        Dense<T> G = A0, Y = B0, Z = B0;
        std::vector<int> jpiv(n);
        ASSERT_EQ(C::getrf(n, n, G.data(), int(G.ld), jpiv.data()), 0);
        EXPECT_EQ(jpiv, ipiv);
        ASSERT_EQ(C::getrs('N', n, nrhs, G.data(), int(G.ld), jpiv.data(), Y.data(), int(Y.ld)), 0);
        EXPECT_LT(norm1_diff(X, Y) / (norm1(X) * n * eps<T>()), 1e3) << "getrs";
        ASSERT_EQ(C::getrs('T', n, nrhs, G.data(), int(G.ld), jpiv.data(), Z.data(), int(Z.ld)), 0);
        Dense<T> At(n, n);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) At(i, j) = A0(j, i);
        EXPECT_LT(solve_residual(At, Z, B0), tol) << "getrs 'T'";
        // getri: ||I - A inv(A)||_1 / (||A||_1 ||inv(A)||_1 n eps)
        ASSERT_EQ(C::getri(n, G.data(), int(G.ld), jpiv.data()), 0);
        Dense<T> I(n, n);
        for (int i = 0; i < n; ++i) I(i, i) = T(1);
        blas::gemm<T>(Op::notrans, Op::notrans, n, n, n, T(-1), A0.data(), A0.ld, G.data(), G.ld,
                      T(1), I.data(), I.ld);
        EXPECT_LT(norm1(I) / (norm1(A0) * norm1(G) * n * eps<T>()), tol) << "getri";
        EXPECT_EQ(C::getri(n, G.data(), 2, jpiv.data()), -3);
        // getrf_nopiv of a diagonally dominant matrix: ||L U - A||_1 / (||A||_1 n eps); a zero
        // pivot gives its index
        Dense<T> D = A0;
        for (int i = 0; i < n; ++i) D(i, i) += T(2 * n);
        Dense<T> N = D;
        ASSERT_EQ(C::getrf_nopiv(n, n, N.data(), int(N.ld)), 0);
        Dense<T> L(n, n), U(n, n), LU(n, n);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) (i > j ? L : U)(i, j) = N(i, j);
        for (int i = 0; i < n; ++i) L(i, i) = T(1);
        blas::gemm<T>(Op::notrans, Op::notrans, n, n, n, T(1), L.data(), L.ld, U.data(), U.ld, T(0),
                      LU.data(), LU.ld);
        EXPECT_LT(norm1_diff(LU, D) / (norm1(D) * n * eps<T>()), tol) << "getrf_nopiv";
        Dense<T> Z0(3, 3);  // a11 = 0: U(1,1) is zero
        Z0(1, 0) = Z0(0, 1) = Z0(2, 2) = T(1);
        EXPECT_EQ(C::getrf_nopiv(3, 3, Z0.data(), 3), 1);
        EXPECT_EQ(C::getrf_nopiv(3, -1, Z0.data(), 3), -2);
        EXPECT_EQ(C::getrf_nopiv(3, 3, nullptr, 3), -3);
        EXPECT_EQ(C::getrf_nopiv(3, 3, Z0.data(), 2), -4);
        // mixed precision (d and z): refined to double's residual in a few steps
        if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::complex<double>>) {
            Dense<T> M = A0, W(n, nrhs);
            int iter = -100;
            constexpr auto mixed = CMixed<T>::gesv;
            ASSERT_EQ(mixed(n, nrhs, M.data(), int(M.ld), ipiv.data(), B0.data(), int(B0.ld),
                            W.data(), int(W.ld), &iter),
                      0);
            EXPECT_GE(iter, 0);
            EXPECT_LT(solve_residual(A0, W, B0), tol) << "mixed precision";
            EXPECT_EQ(mixed(n, nrhs, M.data(), int(M.ld), ipiv.data(), B0.data(), int(B0.ld),
                            W.data(), 3, &iter),
                      -9);
        }
        // exactly singular: LAPACK's info, and gesv leaves B untouched
        Dense<T> S = A0, Xs = B0;
        for (int i = 0; i < n; ++i) S(i, 30) = T(0);
        EXPECT_EQ(C::gesv(n, nrhs, S.data(), int(S.ld), ipiv.data(), Xs.data(), int(Xs.ld)), 31);
        EXPECT_EQ(norm1_diff(Xs, B0), 0.0);
    });
}

TEST_P(CApiSweep, QrFamilyMatchesLapacke)
{
    with_precision([&]<class T>() {
        using C = CApi<T>;
        tessera_set_tile_size(16);
        const int m = 60, n = 40, nrhs = 3;
        const char qh = is_complex_v<T> ? 'C' : 'T';
        const auto A0 = random_dense<T>(m, n, 31), B0 = random_dense<T>(m, nrhs, 32);
        // geqrf: LAPACKE's orgqr on its compact form gives Q with A = Q R
        Dense<T> F = A0, Q = A0;
        std::vector<T> tau(n);
        ASSERT_EQ(C::geqrf(m, n, F.data(), int(F.ld), tau.data()), 0);
        Q = F;
        ASSERT_EQ(blas::ungqr<T>(m, n, n, Q.data(), Q.ld, tau.data()), 0);
        Dense<T> R(n, n), D = A0;
        for (int j = 0; j < n; ++j)
            for (int i = 0; i <= j; ++i) R(i, j) = F(i, j);
        blas::gemm<T>(Op::notrans, Op::notrans, m, n, n, T(-1), Q.data(), Q.ld, R.data(), R.ld,
                      T(1), D.data(), D.ld);
        EXPECT_LT(norm1(D) / (m * norm1(A0) * eps<T>()), tol) << "geqrf";
        // ormqr/unmqr and orgqr/ungqr against LAPACKE on the same compact form
        Dense<T> X = B0, Xref = B0, G = F;
        ASSERT_EQ(
            C::unmqr('L', qh, m, nrhs, n, F.data(), int(F.ld), tau.data(), X.data(), int(X.ld)), 0);
        ASSERT_EQ(blas::unmqr<T>(Side::left, Op::conjtrans, m, nrhs, n, F.data(), F.ld, tau.data(),
                                 Xref.data(), Xref.ld),
                  0);
        EXPECT_LT(relative_error(X, Xref, norm1(B0) * m), tol) << "unmqr";
        ASSERT_EQ(C::ungqr(m, n, n, G.data(), int(G.ld), tau.data()), 0);
        EXPECT_LT(relative_error(G, Q, m), tol) << "ungqr";
        // gelqf, ormlq/unmlq and orglq/unglq through gels on the transposed problem: A^H is n x m
        Dense<T> W(n, m), Wref(n, m), Y(m, nrhs), Yref(m, nrhs);
        for (int j = 0; j < m; ++j)
            for (int i = 0; i < n; ++i) W(i, j) = Wref(i, j) = tessera::la::conj(A0(j, i));
        for (int j = 0; j < nrhs; ++j)
            for (int i = 0; i < n; ++i) Y(i, j) = Yref(i, j) = B0(i, j);
        ASSERT_EQ(C::gels('N', n, m, nrhs, W.data(), int(W.ld), Y.data(), int(Y.ld)),
                  0);  // minimum norm, via LQ
        ASSERT_EQ(
            blas::gels<T>(Op::notrans, n, m, nrhs, Wref.data(), Wref.ld, Yref.data(), Yref.ld), 0);
        EXPECT_LT(relative_error(Y, Yref, norm1(Yref) * m), tol) << "gels through gelqf";
        std::vector<T> ltau(n);
        Dense<T> L = Wref, Lref = Wref;  // LAPACKE's LQ of A^H, then the C calls on it
        ASSERT_EQ(blas::gelqf<T>(n, m, L.data(), L.ld, ltau.data()), 0);
        Lref = L;
        ASSERT_EQ(C::unglq(n, m, n, L.data(), int(L.ld), ltau.data()), 0);
        ASSERT_EQ(blas::unglq<T>(n, m, n, Lref.data(), Lref.ld, ltau.data()), 0);
        EXPECT_LT(relative_error(L, Lref, m), tol) << "unglq";
        Dense<T> V = random_dense<T>(nrhs, m, 33), Vref = V;
        ASSERT_EQ(blas::gelqf<T>(n, m, Wref.data(), Wref.ld, ltau.data()), 0);
        ASSERT_EQ(C::unmlq('R', 'N', nrhs, m, n, Wref.data(), int(Wref.ld), ltau.data(), V.data(),
                           int(V.ld)),
                  0);
        ASSERT_EQ(blas::unmlq<T>(Side::right, Op::notrans, nrhs, m, n, Wref.data(), Wref.ld,
                                 ltau.data(), Vref.data(), Vref.ld),
                  0);
        EXPECT_LT(relative_error(V, Vref, norm1(Vref) * m), tol) << "unmlq";
        EXPECT_EQ(C::gelqf(n, m, W.data(), n - 1, ltau.data()), -4);
        // bad arguments
        EXPECT_EQ(C::geqrf(-1, n, F.data(), int(F.ld), tau.data()), -1);
        EXPECT_EQ(
            C::unmqr('X', 'N', m, nrhs, n, F.data(), int(F.ld), tau.data(), X.data(), int(X.ld)),
            -1);
        EXPECT_EQ(
            C::unmqr('L', 'X', m, nrhs, n, F.data(), int(F.ld), tau.data(), X.data(), int(X.ld)),
            -2);
        EXPECT_EQ(C::ungqr(m, n, n + 1, G.data(), int(G.ld), tau.data()), -3);
        EXPECT_EQ(C::gels('X', m, n, nrhs, F.data(), int(F.ld), X.data(), int(X.ld)), -1);
        EXPECT_NE(std::string(tessera_last_error()), "");
    });
}

TEST_P(CApiSweep, BadArgumentsReturnMinusTheirPosition)
{
    with_precision([&]<class T>() {
        using C = CApi<T>;
        std::vector<T> a(64), b(64), c(64);
        const T one = T(1);
        EXPECT_EQ(C::gemm('X', 'N', 2, 2, 2, one, a.data(), 2, b.data(), 2, one, c.data(), 2), -1);
        EXPECT_STRNE(tessera_last_error(), "");
        EXPECT_EQ(C::gemm('N', 'q', 2, 2, 2, one, a.data(), 2, b.data(), 2, one, c.data(), 2), -2);
        EXPECT_EQ(C::gemm('X', 'Y', 2, 2, 2, one, a.data(), 2, b.data(), 2, one, c.data(), 2),
                  -1);  // the first
        EXPECT_EQ(C::gemm('N', 'N', -1, 2, 2, one, a.data(), 2, b.data(), 2, one, c.data(), 2), -3);
        EXPECT_EQ(C::gemm('N', 'N', 4, 2, 2, one, a.data(), 3, b.data(), 2, one, c.data(), 4), -8);
        EXPECT_EQ(C::gemm('N', 'N', 4, 2, 2, one, a.data(), 4, b.data(), 4, one, c.data(), 3), -13);
        // BLAS's quick return (alpha = 0, beta = 1) references none of A, B and C
        EXPECT_EQ(C::gemm('N', 'N', 2, 2, 2, T(0), nullptr, 2, nullptr, 2, one, nullptr, 2), 0);
        EXPECT_EQ(C::gemm('N', 'N', 2, 2, 2, T(0), nullptr, 2, nullptr, 2, T(2), nullptr, 2), -12);
        EXPECT_EQ(C::symm('M', 'L', 2, 2, one, a.data(), 2, b.data(), 2, one, c.data(), 2), -1);
        EXPECT_EQ(C::syrk('L', 'N', 2, -2, one, a.data(), 2, one, c.data(), 2), -4);
        EXPECT_EQ(C::trsm('L', 'L', 'N', 'Z', 2, 2, one, a.data(), 2, b.data(), 2), -4);
        EXPECT_EQ(C::trmm('L', 'L', 'N', 'N', 4, 2, one, a.data(), 2, b.data(), 4), -9);
        EXPECT_EQ(C::potrf('U', 4, a.data(), 2), -4);
        EXPECT_EQ(C::potrs('L', 4, -1, a.data(), 4, b.data(), 4), -3);
        EXPECT_EQ(C::posv('L', 4, 1, a.data(), 4, b.data(), 2), -7);
        EXPECT_EQ(C::potri('?', 4, a.data(), 4), -1);
        // the message names the routine, the argument and its position, as the C++ forms do
        EXPECT_STREQ(tessera_last_error(), "potri: argument 1 (uplo): '?' is not one of 'L', 'U'");
        EXPECT_EQ(C::trsm('L', 'L', 'N', 'Z', 2, 2, one, a.data(), 2, b.data(), 2), -4);
        EXPECT_STREQ(tessera_last_error(), "trsm: argument 4 (diag): 'Z' is not one of 'N', 'U'");
        EXPECT_EQ(C::gemm('N', 'q', 2, 2, 2, one, a.data(), 2, b.data(), 2, one, c.data(), 2), -2);
        EXPECT_STREQ(tessera_last_error(),
                     "gemm: argument 2 (transb): 'q' is not one of 'N', 'T', 'C'");
        EXPECT_EQ(C::potrs('L', 4, -1, a.data(), 4, b.data(), 4), -3);
        EXPECT_EQ(std::string(tessera_last_error()).rfind("potrs: argument 3 (nrhs = -1)", 0), 0u)
            << tessera_last_error();
        std::vector<int> ipiv(4);
        EXPECT_EQ(C::getrf(-1, 4, a.data(), 4, ipiv.data()), -1);
        EXPECT_EQ(C::getrf(4, 4, a.data(), 4, nullptr), -5);
        EXPECT_EQ(C::getrs('X', 4, 1, a.data(), 4, ipiv.data(), b.data(), 4), -1);
        EXPECT_EQ(C::getrs('N', 4, 1, a.data(), 4, nullptr, b.data(), 4), -6);
        EXPECT_EQ(C::gesv(4, 1, a.data(), 4, ipiv.data(), b.data(), 2), -7);
    });
}

// tessera_set_tile_size refuses a negative size with its own message, and a call that
// succeeds leaves no message from an earlier one.
TEST(CApi, SetTileSizeKeepsTheLastErrorTrue)
{
    EXPECT_EQ(tessera_dpotrf('Q', 1, nullptr, 1), -1);
    EXPECT_EQ(tessera_set_tile_size(-1), -1);
    EXPECT_STREQ(tessera_last_error(), "tessera_set_tile_size: nb = -1 must be >= 0");
    EXPECT_EQ(tessera_set_tile_size(0), 0);
    EXPECT_STREQ(tessera_last_error(), "");
}

TESSERA_INSTANTIATE_PRECISIONS(CApiSweep);

// Calls from several threads share the library's runtime, and tessera_finalize() on another
// thread waits for them: no call sees its runtime destroyed under it (AddressSanitizer
// reported a use after free before), and a call after it starts the runtime again.
TEST(CApi, FinalizeWaitsForCallsOnOtherThreads)
{
    one_blas_thread_for_oracles();
    const int n = 96, calls_per_thread = 20;
    const auto A = random_dense<double>(n, n, 1), B = random_dense<double>(n, n, 2);
    auto R = random_dense<double>(n, n, 3);
    blas::gemm<double>(Op::notrans, Op::notrans, n, n, n, 1.0, A.data(), A.ld, B.data(), B.ld, 0.0,
                       R.data(), R.ld);
    const double scale = norm1(A) * norm1(B) * n;
    ASSERT_EQ(tessera_set_tile_size(32), 0);  // several tasks per call
    std::atomic<int> calls_done{0}, wrong{0};
    auto caller = [&](uint64_t seed) {
        auto C = random_dense<double>(n, n, seed);
        for (int i = 0; i < calls_per_thread; ++i) {
            const int info = tessera_dgemm('N', 'N', n, n, n, 1.0, A.data(), int(A.ld), B.data(),
                                           int(B.ld), 0.0, C.data(), int(C.ld));
            if (info != 0 || !(relative_error(C, R, scale) < 10)) ++wrong;
            ++calls_done;
        }
    };
    std::thread first(caller, 4), second(caller, 5);
    while (calls_done.load() < 2 * calls_per_thread) {
        tessera_finalize();
        std::this_thread::yield();
    }
    first.join();
    second.join();
    EXPECT_EQ(wrong.load(), 0);
    tessera_set_tile_size(0);
    tessera_finalize();
}

// A caller's own BLAS calls keep their threads: OpenBLAS runs single-threaded only while a
// Tessera call runs, then has its thread count back.
TEST(CApi, OpenBlasHasItsThreadCountBackAfterACall)
{
    one_blas_thread_for_oracles();  // OpenBLAS's own threads are not instrumented: TSan would see races
    Dense<double> A = hpd_dense<double>(100, 3);
    openblas_set_num_threads(2);
    const int before = openblas_get_num_threads();
    EXPECT_EQ(tessera_dpotrf('L', 100, A.data(), int(A.ld)), 0);
    EXPECT_EQ(openblas_get_num_threads(), before);
    tessera_finalize();
    one_blas_thread_for_oracles();
}

}  // namespace
}  // namespace tessera::test
