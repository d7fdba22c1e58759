// Checks syrk and herk, C = alpha op(A) op(A)^T + beta C (herk: ^H, real alpha and beta) on
// the `uplo` triangle of C, in their tile, asynchronous and LAPACK-style forms (lda,
// ldc > rows) in the four precisions, against the same CBLAS call on the host, for every uplo,
// every trans BLAS allows (real: N, T, C for both; complex: syrk N, T and herk N, C) and every
// size s of the sweep with C s x s and k = s/2 + 1, tiles that do not divide them: on the
// triangle, the scaled error
//     ||C - Cref||_1 / ((|alpha| ||op(A)||_1 ||op(A)^T||_1 + |beta| ||C0||_1) max(k, 1) eps)
// stays under tol; C's other triangle (diagonal excluded) holds a sentinel value that must come
// out unchanged to the bit. For herk, C0's diagonal has imaginary parts, which BLAS sets to
// zero. To keep the binary near 20 s on 2 cores, size 1000 runs one combination only (herk,
// lower, conjtrans for complex / trans for real). Also: alpha = 0 and k = 0 give C = beta C on
// the triangle without referencing A; beta = 0 ignores a triangle full of NaN (BLAS); herk
// with alpha = 0 and beta = 1 leaves C untouched; the trans that BLAS rejects (csyrk 'C',
// cherk 'T') throws; bad arguments throw InvalidLapackArgument with BLAS's position;
// mismatched tile matrices throw InvalidArgument.
#include "accuracy/accuracy.hpp"

namespace tessera::test {
namespace {

bool in_triangle(Uplo uplo, int64_t i, int64_t j)
{
    return !in_other_triangle(i, j, uplo);
}
/// The value the strictly other triangle of C holds; it must come out unchanged.
template <Scalar T> T sentinel()
{
    return scalar<T>(-777.25, 3.5);
}
/// True when every entry strictly outside the `uplo` triangle is the sentinel.
template <Scalar T> bool other_triangle_untouched(Dense<T> const& C, Uplo uplo)
{
    for (int64_t j = 0; j < C.n; ++j)
        for (int64_t i = 0; i < C.m; ++i)
            if (!in_triangle(uplo, i, j) && C(i, j) != sentinel<T>()) return false;
    return true;
}
template <Scalar T> bool triangle_has_nan(Dense<T> const& C, Uplo uplo)
{
    for (int64_t j = 0; j < C.n; ++j)
        for (int64_t i = 0; i < C.m; ++i)
            if (in_triangle(uplo, i, j) && std::isnan(std::abs(C(i, j)))) return true;
    return false;
}

struct Combination {
    bool hermitian;
    Uplo uplo;
    Op trans;
    std::string what(int64_t n, int64_t k) const
    {
        return std::string(hermitian ? "herk" : "syrk") + " n=" + std::to_string(n) +
               " k=" + std::to_string(k) + " uplo=" + char(uplo) + " trans=" + char(trans);
    }
};
/// Every (routine, uplo, trans) BLAS allows for T, or one of them at the largest size.
template <Scalar T> std::vector<Combination> combinations(int64_t s)
{
    const Op herk_trans = is_complex_v<T> ? Op::conjtrans : Op::trans;
    if (s >= 1000) return {{true, Uplo::lower, herk_trans}};
    std::vector<Combination> v;
    for (bool hermitian : {false, true})
        for (Uplo uplo : {Uplo::lower, Uplo::upper})
            for (Op trans : {Op::notrans, Op::trans, Op::conjtrans})
                if (!is_complex_v<T> || trans == Op::notrans ||
                    trans == (hermitian ? Op::conjtrans : Op::trans))
                    v.push_back({hermitian, uplo, trans});
    return v;
}

/// The inputs of one syrk/herk: op(A) n x k, C n x n with the sentinel strictly outside the
/// triangle.
template <Scalar T> struct SyrkCase {
    Combination c;
    int64_t n, k;
    T alpha, beta;
    Dense<T> A, C0;
    SyrkCase(Combination c_, int64_t n_, int64_t k_, uint64_t seed, int64_t pad = 0)
        : c(c_), n(n_), k(k_), alpha(c.hermitian ? T(0.7) : scalar<T>(0.7, -0.3)),
          beta(c.hermitian ? T(-0.4) : scalar<T>(-0.4, 0.2))
    {
        const int64_t ar = c.trans == Op::notrans ? n : k, ac = c.trans == Op::notrans ? k : n;
        A = random_dense<T>(ar, ac, seed, ar + pad);
        C0 = random_dense<T>(n, n, seed + 1, n + pad);
        set_other_triangle(C0);
    }
    void set_other_triangle(Dense<T>& C) const
    {
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i)
                if (!in_triangle(c.uplo, i, j)) C(i, j) = sentinel<T>();
    }
    Dense<T> reference() const
    {
        Dense<T> C = C0;
        // A real conjtrans is trans (BLAS accepts both; the reference is given the plain one).
        const Op op = !is_complex_v<T> && c.trans == Op::conjtrans ? Op::trans : c.trans;
        if (n > 0)
            blas::syrk<T>(c.uplo, op, c.hermitian, n, k, alpha, A.data(), A.ld, beta, C.data(),
                          C.ld);
        return C;
    }
    /// The scaled error on the triangle (the other one is checked apart).
    double error(Dense<T> const& C) const
    {
        const double diff = norm1_diff(triangle(C, c.uplo), triangle(reference(), c.uplo));
        const Op back = c.trans == Op::notrans ? Op::trans : Op::notrans;  // op(A)^T's op
        const double scale = (std::abs(alpha) * norm1_op(A, c.trans) * norm1_op(A, back) +
                              std::abs(beta) * norm1(triangle(C0, c.uplo))) *
                             double(std::max<int64_t>(k, 1)) * eps<T>();
        return scale == 0 ? diff : diff / scale;
    }
    std::string what() const { return c.what(n, k); }
};

/// The tile form (syrk or herk) on copies of the case's matrices; returns C.
template <Scalar T> Dense<T> tile_syrk(rt::Runtime& rt, SyrkCase<T> const& t, int64_t nb)
{
    auto A = tiles_of(rt, t.A, nb);
    auto C = tiles_of(rt, t.C0, nb);
    if (t.c.hermitian)
        tessera::herk(t.c.uplo, t.c.trans, std::real(t.alpha), A, std::real(t.beta), C);
    else
        tessera::syrk(t.c.uplo, t.c.trans, t.alpha, A, t.beta, C);
    return to_dense(C);
}

/// The LAPACK-style form (syrk or herk) on a copy of C0; returns C.
template <Scalar T> Dense<T> lapack_syrk(SyrkCase<T> const& t, T const* a)
{
    Dense<T> C = t.C0;
    if (t.c.hermitian)
        tessera::herk<T>(t.c.uplo, t.c.trans, t.n, t.k, std::real(t.alpha), a, t.A.ld,
                         std::real(t.beta), C.data(), C.ld);
    else
        tessera::syrk<T>(t.c.uplo, t.c.trans, t.n, t.k, t.alpha, a, t.A.ld, t.beta, C.data(), C.ld);
    return C;
}

class SyrkAccuracy : public AccuracySweep {};

TEST_P(SyrkAccuracy, TileFormResidual)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        for (int64_t s : accuracy_sizes())
            for (Combination c : combinations<T>(s)) {
                SyrkCase<T> t(c, s, s / 2 + 1, 90 + uint64_t(s));
                Dense<T> C = tile_syrk(*rt, t, tile_for(s));
                EXPECT_LT(t.error(C), tol) << t.what();
                EXPECT_TRUE(other_triangle_untouched(C, c.uplo)) << t.what();
            }
    });
}

TEST_P(SyrkAccuracy, LapackFormResidual)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        for (int64_t s : accuracy_sizes()) {
            tessera::set_tile_size(tile_for(s));
            for (Combination c : combinations<T>(s)) {
                SyrkCase<T> t(c, s, s / 2 + 1, 100 + uint64_t(s), 3);  // lda, ldc = rows + 3
                Dense<T> C = lapack_syrk(t, t.A.data());
                EXPECT_LT(t.error(C), tol) << t.what();
                EXPECT_TRUE(other_triangle_untouched(C, c.uplo)) << t.what();
            }
        }
    });
}

TEST_P(SyrkAccuracy, AsyncHerkThenSyrkOnOneC)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t n = 100, k = 40, nb = tile_for(n);
        // C1 = alpha A A^H + beta C0 (herk, notrans), then C2 = alpha2 A2^T A2 + beta2 C1 (syrk,
        // trans), both lower, in one sequence.
        SyrkCase<T> first({true, Uplo::lower, Op::notrans}, n, k, 15);
        SyrkCase<T> second({false, Uplo::lower, Op::trans}, n, k, 16);
        second.C0 = first.reference();
        auto A1 = tiles_of(*rt, first.A, nb);
        auto A2 = tiles_of(*rt, second.A, nb);
        tessera::TileMatrix<T> C{*rt, n, n, nb};
        Dense<T> out(n, n);
        tessera::Sequence s{*rt};
        tessera::lapack_to_tiles_async(first.C0.data(), first.C0.ld, C, s);
        tessera::herk_async(Uplo::lower, Op::notrans, std::real(first.alpha), A1,
                            std::real(first.beta), C, s);
        tessera::syrk_async(Uplo::lower, Op::trans, second.alpha, A2, second.beta, C, s);
        tessera::tiles_to_lapack_async(C, out.data(), out.ld, s);
        ASSERT_EQ(s.wait(), 0);
        EXPECT_LT(second.error(out), tol);
        EXPECT_TRUE(other_triangle_untouched(out, Uplo::lower));
    });
}

TEST_P(SyrkAccuracy, AlphaZeroKZeroAndBetaZero)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        LibraryRuntime lib{GetParam()};
        const int64_t n = 100, k = 51, nb = tile_for(n);
        tessera::set_tile_size(nb);
        for (bool hermitian : {false, true})
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                const Combination c{hermitian, uplo, Op::notrans};
                // alpha = 0: C = beta C on the triangle, A not referenced (null in the LAPACK form).
                SyrkCase<T> t(c, n, k, 17);
                t.alpha = T(0);
                for (Dense<T> const& C : {tile_syrk(*rt, t, nb), lapack_syrk<T>(t, nullptr)}) {
                    EXPECT_LT(t.error(C), tol) << "alpha = 0, " << t.what();
                    EXPECT_TRUE(other_triangle_untouched(C, uplo)) << "alpha = 0, " << t.what();
                }
                // alpha = 0, beta = 1: C untouched (herk keeps the imaginary parts of the diagonal).
                t.beta = T(1);
                for (Dense<T> const& C : {tile_syrk(*rt, t, nb), lapack_syrk<T>(t, nullptr)})
                    EXPECT_EQ(norm1_diff(C, t.C0), 0.0) << "alpha = 0, beta = 1, " << t.what();
                // alpha = beta = 0 on a triangle full of NaN: 0 on the triangle.
                t.beta = T(0);
                for (T& x : t.C0.a) x = nan<T>();
                t.set_other_triangle(t.C0);
                for (Dense<T> const& C : {tile_syrk(*rt, t, nb), lapack_syrk(t, t.A.data())}) {
                    EXPECT_FALSE(triangle_has_nan(C, uplo)) << "alpha = beta = 0, " << t.what();
                    EXPECT_EQ(norm1(triangle(C, uplo)), 0.0) << "alpha = beta = 0, " << t.what();
                    EXPECT_TRUE(other_triangle_untouched(C, uplo))
                        << "alpha = beta = 0, " << t.what();
                }
                // beta = 0 on a triangle full of NaN: C = alpha A A^T on the triangle.
                SyrkCase<T> z(c, n, k, 18);
                z.beta = T(0);
                for (T& x : z.C0.a) x = nan<T>();
                z.set_other_triangle(z.C0);
                Dense<T> results[] = {tile_syrk(*rt, z, nb), lapack_syrk(z, z.A.data())};
                z.C0 = Dense<T>(n, n);  // the reference: zeros
                for (Dense<T> const& C : results) {
                    EXPECT_FALSE(triangle_has_nan(C, uplo)) << "beta = 0, " << z.what();
                    EXPECT_LT(z.error(C), tol) << "beta = 0, " << z.what();
                    EXPECT_TRUE(other_triangle_untouched(C, uplo)) << "beta = 0, " << z.what();
                }
                // k = 0: C = beta C on the triangle.
                SyrkCase<T> e(Combination{hermitian, uplo, Op::notrans}, n, 0, 19);
                for (Dense<T> const& C : {tile_syrk(*rt, e, nb), lapack_syrk<T>(e, nullptr)}) {
                    EXPECT_LT(e.error(C), tol) << "k = 0, " << e.what();
                    EXPECT_TRUE(other_triangle_untouched(C, uplo)) << "k = 0, " << e.what();
                }
            }
    });
}

TEST_P(SyrkAccuracy, BadArgumentsThrowNamingThem)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        std::vector<T> a(64), c(64);
        const Uplo Lo = Uplo::lower;
        const Op N = Op::notrans, Tr = Op::trans, C = Op::conjtrans;
        for (bool hermitian : {false, true}) {
            auto call = [&](Uplo uplo, Op trans, int64_t n, int64_t k, T const* pa, int64_t lda,
                            T* pc, int64_t ldc) {
                return argument_position([&] {
                    if (hermitian)
                        tessera::herk<T>(uplo, trans, n, k, 1, pa, lda, 1, pc, ldc);
                    else
                        tessera::syrk<T>(uplo, trans, n, k, T(1), pa, lda, T(1), pc, ldc);
                });
            };
            SCOPED_TRACE(hermitian ? "herk" : "syrk");
            // The trans BLAS rejects: csyrk/zsyrk 'C', cherk/zherk 'T'; real: none.
            const Op other = hermitian ? Tr : C;
            EXPECT_EQ(call(Lo, other, 4, 4, a.data(), 4, c.data(), 4), is_complex_v<T> ? 2 : 0);
            EXPECT_EQ(call(Lo, N, 4, 4, a.data(), 4, c.data(), 4), 0);
            EXPECT_EQ(call(Uplo('X'), N, 4, 4, a.data(), 4, c.data(), 4), 1);
            EXPECT_EQ(call(Uplo::general, N, 4, 4, a.data(), 4, c.data(), 4), 1);
            EXPECT_EQ(call(Lo, Op('X'), 4, 4, a.data(), 4, c.data(), 4), 2);
            EXPECT_EQ(call(Lo, N, -1, 4, a.data(), 4, c.data(), 4), 3);
            EXPECT_EQ(call(Lo, N, 4, -1, a.data(), 4, c.data(), 4), 4);
            EXPECT_EQ(call(Lo, N, 4, 4, nullptr, 4, c.data(), 4), 6);
            EXPECT_EQ(call(Lo, N, 4, 2, a.data(), 3, c.data(), 4), 7);  // notrans: lda >= n
            EXPECT_EQ(call(Lo, hermitian ? C : Tr, 2, 4, a.data(), 3, c.data(), 2),
                      7);  // trans: lda >= k
            EXPECT_EQ(call(Lo, hermitian ? C : Tr, 4, 2, a.data(), 2, c.data(), 4), 0);
            EXPECT_EQ(call(Lo, N, 4, 4, a.data(), 4, nullptr, 4), 9);
            EXPECT_EQ(call(Lo, N, 4, 4, a.data(), 4, c.data(), 3), 10);
            // BLAS's quick return (alpha = 0 or k = 0, with beta = 1) references no C; beta != 1 does
            auto quick = [&](int64_t k, real_t<T> alpha, real_t<T> beta) {
                return argument_position([&] {
                    if (hermitian)
                        tessera::herk<T>(Lo, N, 4, k, alpha, nullptr, 4, beta, nullptr, 4);
                    else
                        tessera::syrk<T>(Lo, N, 4, k, T(alpha), nullptr, 4, T(beta), nullptr, 4);
                });
            };
            EXPECT_EQ(quick(4, 0, 1), 0);
            EXPECT_EQ(quick(0, 1, 1), 0);
            EXPECT_EQ(quick(4, 0, 2), 9);
        }

        auto rt = make_runtime();
        tessera::TileMatrix<T> A{*rt, 4, 3, 2}, C4{*rt, 4, 4, 2}, C43{*rt, 4, 3, 2},
            C3{*rt, 3, 3, 2}, C4nb3{*rt, 4, 4, 3};
        const T one(1);
        EXPECT_THROW(tessera::syrk(Lo, N, one, A, one, C43),
                     tessera::InvalidArgument);  // C not square
        EXPECT_THROW(tessera::syrk(Lo, N, one, A, one, C3),
                     tessera::InvalidArgument);                                      // order 3 vs 4
        EXPECT_THROW(tessera::herk(Lo, N, 1, A, 1, C3), tessera::InvalidArgument);   // order 3 vs 4
        EXPECT_THROW(tessera::herk(Lo, Tr, 1, A, 1, C4), tessera::InvalidArgument);  // op(A) 3 x 4
        EXPECT_THROW(tessera::syrk(Lo, N, one, A, one, C4nb3),
                     tessera::InvalidArgument);  // tile sizes
        EXPECT_THROW(tessera::syrk(Uplo::general, N, one, A, one, C4), tessera::InvalidArgument);
        if constexpr (is_complex_v<T>) {
            EXPECT_THROW(tessera::syrk(Lo, C, one, A, one, C3),
                         tessera::InvalidArgument);  // csyrk: no 'C'
            EXPECT_THROW(tessera::herk(Lo, Tr, 1, A, 1, C3),
                         tessera::InvalidArgument);  // cherk: no 'T'
        } else {
            EXPECT_NO_THROW(tessera::syrk(Lo, C, T(0), A, one, C3));
            EXPECT_NO_THROW(tessera::herk(Lo, Tr, 0, A, 1, C3));
        }
    });
}

TESSERA_INSTANTIATE_ACCURACY(SyrkAccuracy);

}  // namespace
}  // namespace tessera::test
