// Checks gemm, C = alpha op(A) op(B) + beta C, in its three forms (tile, asynchronous in a
// sequence, LAPACK-style with lda > rows) in the four precisions, against the same CBLAS call
// on the host, for every (transa, transb) in {N, T, C}^2 and every size s of the sweep with
// C s x (s/2 + 1) and k = 2s/3 + 1 (three different extents, so that a transposition bug
// shows), tiles that do not divide them: the scaled error
//     ||C - Cref||_1 / ((|alpha| ||op(A)||_1 ||op(B)||_1 + |beta| ||C0||_1) max(k, 1) eps)
// stays under tol (BLAS++'s check_gemm). To keep the binary near 20 s on 2 cores, size 1000
// runs one combination only (transa = C, transb = N). Also: alpha = 0 and k = 0 give
// C = beta C without referencing A and B; beta = 0 ignores a C full of NaN (BLAS); bad
// arguments throw InvalidLapackArgument with BLAS's position; mismatched tile matrices throw
// InvalidArgument.
#include "accuracy/accuracy.hpp"

namespace tessera::test {
namespace {

constexpr Op all_ops[] = {Op::notrans, Op::trans, Op::conjtrans};

/// C's extents and k for sweep size s.
struct Dims {
    int64_t m, n, k;
};
Dims dims_for(int64_t s)
{
    return {s, s / 2 + 1, 2 * s / 3 + 1};
}

/// The inputs of one gemm: op(A) m x k, op(B) k x n, C m x n, with leading dimensions ld + pad.
template <Scalar T> struct GemmCase {
    Op ta, tb;
    int64_t m, n, k;
    T alpha = scalar<T>(0.7, -0.3), beta = scalar<T>(-0.4, 0.2);
    Dense<T> A, B, C0;
    GemmCase(Op ta_, Op tb_, Dims d, uint64_t seed, int64_t pad = 0)
        : ta(ta_), tb(tb_), m(d.m), n(d.n), k(d.k)
    {
        const int64_t ar = ta == Op::notrans ? m : k, ac = ta == Op::notrans ? k : m;
        const int64_t br = tb == Op::notrans ? k : n, bc = tb == Op::notrans ? n : k;
        A = random_dense<T>(ar, ac, seed, ar + pad);
        B = random_dense<T>(br, bc, seed + 1, br + pad);
        C0 = random_dense<T>(m, n, seed + 2, m + pad);
    }
    /// The host CBLAS result.
    Dense<T> reference() const
    {
        Dense<T> C = C0;
        if (m > 0 && n > 0)
            blas::gemm<T>(ta, tb, m, n, k, alpha, A.data(), A.ld, B.data(), B.ld, beta, C.data(),
                          C.ld);
        return C;
    }
    /// The scaled error of C against the reference.
    double error(Dense<T> const& C) const
    {
        const double diff = norm1_diff(C, reference());
        const double scale =
            (std::abs(alpha) * norm1_op(A, ta) * norm1_op(B, tb) + std::abs(beta) * norm1(C0)) *
            double(std::max<int64_t>(k, 1)) * eps<T>();
        return scale == 0 ? diff : diff / scale;
    }
    std::string what() const
    {
        return "m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
               " transa=" + char(ta) + " transb=" + char(tb);
    }
};

/// Calls f(transa, transb) for every combination, or only (C, N) at the largest size.
template <class F> void for_each_combination(int64_t s, F&& f)
{
    if (s >= 1000) return f(Op::conjtrans, Op::notrans);
    for (Op ta : all_ops)
        for (Op tb : all_ops) f(ta, tb);
}

/// The tile form on copies of the case's matrices; returns C.
template <Scalar T> Dense<T> tile_gemm(rt::Runtime& rt, GemmCase<T> const& c, int64_t nb)
{
    auto A = tiles_of(rt, c.A, nb);
    auto B = tiles_of(rt, c.B, nb);
    auto C = tiles_of(rt, c.C0, nb);
    tessera::gemm(c.ta, c.tb, c.alpha, A, B, c.beta, C);
    return to_dense(C);
}

class GemmAccuracy : public AccuracySweep {};

TEST_P(GemmAccuracy, TileFormResidual)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        for (int64_t s : accuracy_sizes())
            for_each_combination(s, [&](Op ta, Op tb) {
                GemmCase<T> c(ta, tb, dims_for(s), 10 + uint64_t(s));
                EXPECT_LT(c.error(tile_gemm(*rt, c, tile_for(s))), tol) << c.what();
            });
    });
}

TEST_P(GemmAccuracy, AsyncChainedWithConversions)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        GemmCase<T> c(Op::notrans, Op::trans, dims_for(100), 3, 2);
        const int64_t nb = tile_for(100);
        tessera::TileMatrix<T> A{*rt, c.A.m, c.A.n, nb}, B{*rt, c.B.m, c.B.n, nb},
            C{*rt, c.m, c.n, nb};
        Dense<T> out = c.C0;
        tessera::Sequence s{*rt};
        tessera::lapack_to_tiles_async(c.A.data(), c.A.ld, A, s);
        tessera::lapack_to_tiles_async(c.B.data(), c.B.ld, B, s);
        tessera::lapack_to_tiles_async(out.data(), out.ld, C, s);
        tessera::gemm_async(c.ta, c.tb, c.alpha, A, B, c.beta, C, s);
        tessera::tiles_to_lapack_async(C, out.data(), out.ld, s);
        ASSERT_EQ(s.wait(), 0);
        EXPECT_LT(c.error(out), tol);
    });
}

TEST_P(GemmAccuracy, LapackFormResidual)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        for (int64_t s : accuracy_sizes())
            // A given tile size cuts C into square tiles; the automatic one, on cores alone, into
            // one strip per worker (of columns, or of rows when C is too narrow).
            for (int64_t nb : {tile_for(s), int64_t(0)}) {
                tessera::set_tile_size(nb);
                for_each_combination(s, [&](Op ta, Op tb) {
                    GemmCase<T> c(ta, tb, dims_for(s), 20 + uint64_t(s), 3);  // lda = rows + 3
                    Dense<T> C = c.C0;
                    tessera::gemm(c.ta, c.tb, c.m, c.n, c.k, c.alpha, c.A.data(), c.A.ld,
                                  c.B.data(), c.B.ld, c.beta, C.data(), C.ld);
                    EXPECT_LT(c.error(C), tol) << c.what() << " nb=" << nb;
                });
            }
    });
}

// A device with little memory (64 KB here) still computes its share of the LAPACK-style
// gemm: C's blocks, not only the panels of A and B, are cut to fit it (a 300 x 300 block of
// complex double, 1.4 MB, can never fit, and its tasks used to fail).
TEST_P(GemmAccuracy, LapackFormOnADeviceOfLittleMemory)
{
    with_precision([&]<class T>() {
        tessera::finalize();
        tessera::init(rt::RuntimeConfig{
            .ncpus = 1, .scheduler = GetParam().scheduler, .nemu = 1, .emu_memory = "64KB"});
        GemmCase<T> c(Op::notrans, Op::notrans, {300, 300, 300}, 31, 0);
        Dense<T> C = c.C0;
        EXPECT_NO_THROW(tessera::gemm(c.ta, c.tb, c.m, c.n, c.k, c.alpha, c.A.data(), c.A.ld,
                                      c.B.data(), c.B.ld, c.beta, C.data(), C.ld));
        EXPECT_LT(c.error(C), tol) << c.what();
        tessera::finalize();
    });
}

TEST_P(GemmAccuracy, AlphaZeroKZeroAndBetaZero)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        LibraryRuntime lib{GetParam()};
        const int64_t s = 100, nb = tile_for(s);
        tessera::set_tile_size(nb);
        const Dims d = dims_for(s);
        GemmCase<T> c(Op::notrans, Op::conjtrans, d, 5);
        Dense<T> nans(d.m, d.n);
        for (T& x : nans.a) x = nan<T>();
        // alpha = 0: C = beta C, A and B not referenced (null in the LAPACK form).
        {
            GemmCase<T> z = c;
            z.alpha = T(0);
            EXPECT_LT(z.error(tile_gemm(*rt, z, nb)), tol) << "tile form, alpha = 0";
            Dense<T> C = c.C0;
            tessera::gemm<T>(z.ta, z.tb, z.m, z.n, z.k, T(0), nullptr, z.A.ld, nullptr, z.B.ld,
                             z.beta, C.data(), C.ld);
            EXPECT_LT(z.error(C), tol) << "LAPACK form, alpha = 0";
        }
        // alpha = 0 and beta = 0 on a C full of NaN: C = 0.
        {
            GemmCase<T> z = c;
            z.alpha = T(0);
            z.beta = T(0);
            z.C0 = nans;
            Dense<T> C = tile_gemm(*rt, z, nb);
            EXPECT_FALSE(has_nan(C)) << "tile form";
            EXPECT_EQ(norm1(C), 0.0);
            C = nans;
            tessera::gemm<T>(z.ta, z.tb, z.m, z.n, z.k, T(0), z.A.data(), z.A.ld, z.B.data(),
                             z.B.ld, T(0), C.data(), C.ld);
            EXPECT_FALSE(has_nan(C)) << "LAPACK form";
            EXPECT_EQ(norm1(C), 0.0);
        }
        // beta = 0 on a C full of NaN: C = alpha op(A) op(B), no NaN.
        {
            GemmCase<T> z = c;
            z.beta = T(0);
            z.C0 = nans;
            Dense<T> C = tile_gemm(*rt, z, nb);
            EXPECT_FALSE(has_nan(C)) << "tile form";
            z.C0 = Dense<T>(d.m, d.n);  // the reference: zeros
            EXPECT_LT(z.error(C), tol) << "tile form";
            C = nans;
            tessera::gemm<T>(z.ta, z.tb, z.m, z.n, z.k, z.alpha, z.A.data(), z.A.ld, z.B.data(),
                             z.B.ld, T(0), C.data(), C.ld);
            EXPECT_FALSE(has_nan(C)) << "LAPACK form";
            EXPECT_LT(z.error(C), tol) << "LAPACK form";
        }
        // k = 0: C = beta C.
        {
            GemmCase<T> z(Op::trans, Op::notrans, {d.m, d.n, 0}, 6);
            EXPECT_LT(z.error(tile_gemm(*rt, z, nb)), tol) << "tile form, k = 0";
            Dense<T> C = z.C0;
            tessera::gemm<T>(z.ta, z.tb, z.m, z.n, 0, z.alpha, nullptr, 1, nullptr, 1, z.beta,
                             C.data(), C.ld);
            EXPECT_LT(z.error(C), tol) << "LAPACK form, k = 0";
        }
    });
}

TEST_P(GemmAccuracy, BadArgumentsThrowNamingThem)
{
    with_precision([&]<class T>() {
        LibraryRuntime lib{GetParam()};
        std::vector<T> a(64), b(64), c(64);
        const T one(1);
        auto call = [&](Op ta, Op tb, int64_t m, int64_t n, int64_t k, T const* pa, int64_t lda,
                        T const* pb, int64_t ldb, T* pc, int64_t ldc) {
            return argument_position(
                [&] { tessera::gemm<T>(ta, tb, m, n, k, one, pa, lda, pb, ldb, one, pc, ldc); });
        };
        const Op N = Op::notrans, Tr = Op::trans;
        EXPECT_EQ(call(N, N, 4, 4, 4, a.data(), 4, b.data(), 4, c.data(), 4), 0);
        EXPECT_EQ(call(Op('X'), N, 4, 4, 4, a.data(), 4, b.data(), 4, c.data(), 4), 1);
        EXPECT_EQ(call(N, Op('X'), 4, 4, 4, a.data(), 4, b.data(), 4, c.data(), 4), 2);
        EXPECT_EQ(call(N, N, -1, 4, 4, a.data(), 4, b.data(), 4, c.data(), 4), 3);
        EXPECT_EQ(call(N, N, 4, -1, 4, a.data(), 4, b.data(), 4, c.data(), 4), 4);
        EXPECT_EQ(call(N, N, 4, 4, -1, a.data(), 4, b.data(), 4, c.data(), 4), 5);
        EXPECT_EQ(call(N, N, 4, 4, 4, nullptr, 4, b.data(), 4, c.data(), 4), 7);
        EXPECT_EQ(call(N, N, 4, 4, 4, a.data(), 3, b.data(), 4, c.data(), 4), 8);
        EXPECT_EQ(call(Tr, N, 4, 4, 2, a.data(), 1, b.data(), 2, c.data(), 4),
                  8);  // A is k x m: lda >= k
        EXPECT_EQ(call(N, N, 4, 4, 4, a.data(), 4, nullptr, 4, c.data(), 4), 9);
        EXPECT_EQ(call(N, N, 4, 4, 4, a.data(), 4, b.data(), 3, c.data(), 4), 10);
        EXPECT_EQ(call(N, Tr, 4, 5, 2, a.data(), 4, b.data(), 4, c.data(), 4),
                  10);  // B is n x k: ldb >= n
        EXPECT_EQ(call(N, N, 4, 4, 4, a.data(), 4, b.data(), 4, nullptr, 4), 12);
        EXPECT_EQ(call(N, N, 4, 4, 4, a.data(), 4, b.data(), 4, c.data(), 3), 13);
        // BLAS's quick return (alpha = 0 or k = 0, with beta = 1) references no C; beta != 1 does
        auto quick = [&](int64_t k, T alpha, T beta, T* pc) {
            return argument_position([&] {
                tessera::gemm<T>(N, N, 4, 4, k, alpha, nullptr, 4, nullptr, 4, beta, pc, 4);
            });
        };
        EXPECT_EQ(quick(4, T(0), one, nullptr), 0);
        EXPECT_EQ(quick(0, one, one, nullptr), 0);
        EXPECT_EQ(quick(4, T(0), T(2), nullptr), 12);
        EXPECT_EQ(quick(4, T(0), one, c.data()), 0);
        EXPECT_EQ(argument_position([&] {
                      tessera::gemm<T>(N, N, 4, 4, 4, T(0), nullptr, 4, nullptr, 4, one, nullptr,
                                       3);
                  }),
                  13)
            << "ldc is checked before the quick return";

        auto rt = make_runtime();
        tessera::TileMatrix<T> A{*rt, 4, 5, 2}, B{*rt, 4, 3, 2}, C{*rt, 4, 3, 2}, B3{*rt, 5, 3, 3};
        EXPECT_THROW(tessera::gemm(N, N, one, A, B, one, C),
                     tessera::InvalidArgument);  // k: 5 vs 4
        EXPECT_THROW(tessera::gemm(Tr, N, one, A, B, one, C),
                     tessera::InvalidArgument);  // m: 5 vs 4
        EXPECT_THROW(tessera::gemm(N, N, one, A, B3, one, C),
                     tessera::InvalidArgument);  // tile sizes
    });
}

TESSERA_INSTANTIATE_ACCURACY(GemmAccuracy);

}  // namespace
}  // namespace tessera::test
