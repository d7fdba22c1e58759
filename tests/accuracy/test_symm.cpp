// Checks symm and hemm, C = alpha A B + beta C (left) or alpha B A + beta C (right) with A
// symmetric or Hermitian, in their tile, asynchronous and LAPACK-style forms (lda, ldb,
// ldc > rows) in the four precisions, against the same CBLAS call on the host, for every
// (side, uplo) and every size s of the sweep with C s x (s/2 + 1) (so left and right use A of
// different orders) and tiles that do not divide them: the scaled error
//     ||C - Cref||_1 / ((|alpha| ||A||_1 ||B||_1 + |beta| ||C0||_1) max(ka, 1) eps)
// stays under tol, ka the order of A and ||A||_1 that of the full symmetric (Hermitian) A.
// A's other triangle is NaN (it must never be read), and for hemm its diagonal has imaginary
// parts, which BLAS takes as zero. To keep the binary near 20 s on 2 cores, size 1000 runs
// one combination only (hemm, left, upper). Also: alpha = 0 gives C = beta C without
// referencing A and B, beta = 0 ignores a C full of NaN (BLAS); bad arguments throw
// InvalidLapackArgument with BLAS's position; mismatched tile matrices throw InvalidArgument.
#include "accuracy/accuracy.hpp"

namespace tessera::test {
namespace {

/// The full matrix whose `uplo` triangle A holds: Hermitian (hermitian_from) or symmetric.
template <Scalar T> Dense<T> full_from(Dense<T> const& A, Uplo uplo, bool hermitian)
{
    if (hermitian) return hermitian_from(A, uplo);
    Dense<T> S(A.n, A.n);
    for (int64_t j = 0; j < A.n; ++j)
        for (int64_t i = 0; i < A.n; ++i)
            S(i, j) = (uplo == Uplo::lower ? i >= j : i <= j) ? A(i, j) : A(j, i);
    return S;
}

struct Combination {
    bool hermitian;
    Side side;
    Uplo uplo;
    std::string what(int64_t m, int64_t n) const
    {
        return std::string(hermitian ? "hemm" : "symm") + " m=" + std::to_string(m) +
               " n=" + std::to_string(n) + " side=" + char(side) + " uplo=" + char(uplo);
    }
};
/// Every (routine, side, uplo), or one of them at the largest size.
std::vector<Combination> combinations(int64_t s)
{
    if (s >= 1000) return {{true, Side::left, Uplo::upper}};
    std::vector<Combination> v;
    for (bool hermitian : {false, true})
        for (Side side : {Side::left, Side::right})
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) v.push_back({hermitian, side, uplo});
    return v;
}

/// The inputs of one symm/hemm: B and C m x n, A of order ka (m left, n right) with NaN in
/// its other triangle.
template <Scalar T> struct SymmCase {
    Combination c;
    int64_t m, n, ka;
    T alpha = scalar<T>(0.7, -0.3), beta = scalar<T>(-0.4, 0.2);
    Dense<T> A, B, C0;
    SymmCase(Combination c_, int64_t m_, int64_t n_, uint64_t seed, int64_t pad = 0)
        : c(c_), m(m_), n(n_), ka(c.side == Side::left ? m : n)
    {
        A = with_other_triangle_nan(random_dense<T>(ka, ka, seed, ka + pad), c.uplo);
        B = random_dense<T>(m, n, seed + 1, m + pad);
        C0 = random_dense<T>(m, n, seed + 2, m + pad);
    }
    Dense<T> reference() const
    {
        Dense<T> C = C0;
        if (m > 0 && n > 0)
            blas::symm<T>(c.side, c.uplo, c.hermitian, m, n, alpha, A.data(), A.ld, B.data(), B.ld,
                          beta, C.data(), C.ld);
        return C;
    }
    double error(Dense<T> const& C) const
    {
        const double diff = norm1_diff(C, reference());
        const double scale =
            (std::abs(alpha) * norm1(full_from(A, c.uplo, c.hermitian)) * norm1(B) +
             std::abs(beta) * norm1(C0)) *
            double(std::max<int64_t>(ka, 1)) * eps<T>();
        return scale == 0 ? diff : diff / scale;
    }
    std::string what() const { return c.what(m, n); }
};

/// The tile form (symm or hemm) on copies of the case's matrices; returns C.
template <Scalar T> Dense<T> tile_symm(rt::Runtime& rt, SymmCase<T> const& t, int64_t nb)
{
    auto A = tiles_of(rt, t.A, nb);
    auto B = tiles_of(rt, t.B, nb);
    auto C = tiles_of(rt, t.C0, nb);
    if (t.c.hermitian)
        tessera::hemm(t.c.side, t.c.uplo, t.alpha, A, B, t.beta, C);
    else
        tessera::symm(t.c.side, t.c.uplo, t.alpha, A, B, t.beta, C);
    return to_dense(C);
}

/// The LAPACK-style form (symm or hemm) on a copy of C0; returns C.
template <Scalar T> Dense<T> lapack_symm(SymmCase<T> const& t, T const* a, T const* b)
{
    Dense<T> C = t.C0;
    if (t.c.hermitian)
        tessera::hemm<T>(t.c.side, t.c.uplo, t.m, t.n, t.alpha, a, t.A.ld, b, t.B.ld, t.beta,
                         C.data(), C.ld);
    else
        tessera::symm<T>(t.c.side, t.c.uplo, t.m, t.n, t.alpha, a, t.A.ld, b, t.B.ld, t.beta,
                         C.data(), C.ld);
    return C;
}

class SymmAccuracy : public AccuracySweep {};

TEST_P(SymmAccuracy, TileFormResidual)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        for (int64_t s : accuracy_sizes())
            for (Combination c : combinations(s)) {
                SymmCase<T> t(c, s, s / 2 + 1, 70 + uint64_t(s));
                EXPECT_LT(t.error(tile_symm(*rt, t, tile_for(s))), tol) << t.what();
            }
    });
}

TEST_P(SymmAccuracy, LapackFormResidual)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        for (int64_t s : accuracy_sizes()) {
            tessera::set_tile_size(tile_for(s));
            for (Combination c : combinations(s)) {
                SymmCase<T> t(c, s, s / 2 + 1, 80 + uint64_t(s), 3);  // lda, ldb, ldc = rows + 3
                EXPECT_LT(t.error(lapack_symm(t, t.A.data(), t.B.data())), tol) << t.what();
            }
        }
    });
}

TEST_P(SymmAccuracy, AsyncSymmThenHemmOnOneC)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t m = 100, n = 51, nb = tile_for(m);
        // C1 = alpha A B + beta C0 (symm, left, lower), then C2 = alpha B A2 + beta C1 (hemm,
        // right, upper), in one sequence: the second reads C1 through the tasks' data order.
        SymmCase<T> first({false, Side::left, Uplo::lower}, m, n, 11);
        SymmCase<T> second({true, Side::right, Uplo::upper}, m, n, 12);
        second.C0 = first.reference();
        auto A1 = tiles_of(*rt, first.A, nb);
        auto A2 = tiles_of(*rt, second.A, nb);
        auto B = tiles_of(*rt, first.B, nb);
        second.B = first.B;
        tessera::TileMatrix<T> C{*rt, m, n, nb};
        Dense<T> out(m, n);
        tessera::Sequence s{*rt};
        tessera::lapack_to_tiles_async(first.C0.data(), first.C0.ld, C, s);
        tessera::symm_async(Side::left, Uplo::lower, first.alpha, A1, B, first.beta, C, s);
        tessera::hemm_async(Side::right, Uplo::upper, second.alpha, A2, B, second.beta, C, s);
        tessera::tiles_to_lapack_async(C, out.data(), out.ld, s);
        ASSERT_EQ(s.wait(), 0);
        EXPECT_LT(second.error(out), tol);
    });
}

TEST_P(SymmAccuracy, AlphaZeroAndBetaZero)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        LibraryRuntime lib{GetParam()};
        const int64_t m = 100, n = 51, nb = tile_for(m);
        tessera::set_tile_size(nb);
        Dense<T> nans(m, n);
        for (T& x : nans.a) x = nan<T>();
        for (bool hermitian : {false, true}) {
            const Combination c{hermitian, Side::left, Uplo::lower};
            // alpha = 0: C = beta C, A and B not referenced (null in the LAPACK form).
            SymmCase<T> t(c, m, n, 13);
            t.alpha = T(0);
            EXPECT_LT(t.error(tile_symm(*rt, t, nb)), tol) << "tile form, alpha = 0, " << t.what();
            EXPECT_LT(t.error(lapack_symm<T>(t, nullptr, nullptr)), tol)
                << "LAPACK form, alpha = 0, " << t.what();
            // alpha = beta = 0 on a C full of NaN: C = 0.
            t.beta = T(0);
            t.C0 = nans;
            for (Dense<T> const& C :
                 {tile_symm(*rt, t, nb), lapack_symm(t, t.A.data(), t.B.data())}) {
                EXPECT_FALSE(has_nan(C)) << "alpha = beta = 0, " << t.what();
                EXPECT_EQ(norm1(C), 0.0) << "alpha = beta = 0, " << t.what();
            }
            // beta = 0 on a C full of NaN: C = alpha A B.
            SymmCase<T> z(c, m, n, 14);
            z.beta = T(0);
            z.C0 = nans;
            Dense<T> results[] = {tile_symm(*rt, z, nb), lapack_symm(z, z.A.data(), z.B.data())};
            z.C0 = Dense<T>(m, n);  // the reference: zeros
            for (Dense<T> const& C : results) {
                EXPECT_FALSE(has_nan(C)) << "beta = 0, " << z.what();
                EXPECT_LT(z.error(C), tol) << "beta = 0, " << z.what();
            }
        }
    });
}

TEST_P(SymmAccuracy, BadArgumentsThrowNamingThem)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        std::vector<T> a(64), b(64), c(64);
        const Side L = Side::left, R = Side::right;
        const Uplo Lo = Uplo::lower;
        for (bool hermitian : {false, true}) {
            auto call = [&](Side side, Uplo uplo, int64_t m, int64_t n, T const* pa, int64_t lda,
                            T const* pb, int64_t ldb, T* pc, int64_t ldc) {
                return argument_position([&] {
                    if (hermitian)
                        tessera::hemm<T>(side, uplo, m, n, T(1), pa, lda, pb, ldb, T(1), pc, ldc);
                    else
                        tessera::symm<T>(side, uplo, m, n, T(1), pa, lda, pb, ldb, T(1), pc, ldc);
                });
            };
            SCOPED_TRACE(hermitian ? "hemm" : "symm");
            EXPECT_EQ(call(L, Lo, 4, 4, a.data(), 4, b.data(), 4, c.data(), 4), 0);
            EXPECT_EQ(call(Side('X'), Lo, 4, 4, a.data(), 4, b.data(), 4, c.data(), 4), 1);
            EXPECT_EQ(call(L, Uplo('X'), 4, 4, a.data(), 4, b.data(), 4, c.data(), 4), 2);
            EXPECT_EQ(call(L, Uplo::general, 4, 4, a.data(), 4, b.data(), 4, c.data(), 4), 2);
            EXPECT_EQ(call(L, Lo, -1, 4, a.data(), 4, b.data(), 4, c.data(), 4), 3);
            EXPECT_EQ(call(L, Lo, 4, -1, a.data(), 4, b.data(), 4, c.data(), 4), 4);
            EXPECT_EQ(call(L, Lo, 4, 4, nullptr, 4, b.data(), 4, c.data(), 4), 6);
            EXPECT_EQ(call(L, Lo, 4, 2, a.data(), 3, b.data(), 4, c.data(), 4),
                      7);  // left: lda >= m
            EXPECT_EQ(call(R, Lo, 2, 4, a.data(), 3, b.data(), 2, c.data(), 2),
                      7);  // right: lda >= n
            EXPECT_EQ(call(R, Lo, 2, 4, a.data(), 4, b.data(), 2, c.data(), 2), 0);
            EXPECT_EQ(call(L, Lo, 4, 4, a.data(), 4, nullptr, 4, c.data(), 4), 8);
            EXPECT_EQ(call(L, Lo, 4, 4, a.data(), 4, b.data(), 3, c.data(), 4), 9);
            EXPECT_EQ(call(L, Lo, 4, 4, a.data(), 4, b.data(), 4, nullptr, 4), 11);
            EXPECT_EQ(call(L, Lo, 4, 4, a.data(), 4, b.data(), 4, c.data(), 3), 12);
            // BLAS's quick return (alpha = 0 with beta = 1) references no C; beta != 1 does
            auto quick = [&](T beta) {
                return argument_position([&] {
                    if (hermitian)
                        tessera::hemm<T>(L, Lo, 4, 4, T(0), nullptr, 4, nullptr, 4, beta, nullptr,
                                         4);
                    else
                        tessera::symm<T>(L, Lo, 4, 4, T(0), nullptr, 4, nullptr, 4, beta, nullptr,
                                         4);
                });
            };
            EXPECT_EQ(quick(T(1)), 0);
            EXPECT_EQ(quick(T(2)), 11);
        }

        auto rt = make_runtime();
        tessera::TileMatrix<T> A4{*rt, 4, 4, 2}, A43{*rt, 4, 3, 2}, A3{*rt, 3, 3, 2},
            B{*rt, 4, 3, 2}, B5{*rt, 5, 3, 2}, C{*rt, 4, 3, 2}, A4nb3{*rt, 4, 4, 3};
        const T one(1);
        EXPECT_THROW(tessera::symm(L, Lo, one, A43, B, one, C),
                     tessera::InvalidArgument);  // not square
        EXPECT_THROW(tessera::symm(L, Lo, one, A3, B, one, C),
                     tessera::InvalidArgument);  // order 3 vs 4
        EXPECT_THROW(tessera::hemm(R, Lo, one, A4, B, one, C),
                     tessera::InvalidArgument);  // order 4 vs 3
        EXPECT_THROW(tessera::hemm(L, Lo, one, A4, B5, one, C),
                     tessera::InvalidArgument);  // B not C's size
        EXPECT_THROW(tessera::symm(L, Lo, one, A4nb3, B, one, C),
                     tessera::InvalidArgument);  // tile sizes
        EXPECT_THROW(tessera::hemm(L, Uplo::general, one, A4, B, one, C), tessera::InvalidArgument);
        EXPECT_NO_THROW(tessera::symm(R, Lo, T(0), A3, B, one, C));
    });
}

TESSERA_INSTANTIATE_ACCURACY(SymmAccuracy);

}  // namespace
}  // namespace tessera::test
