// The CUDA tile kernels (linalg/kernels/cuda: cuBLAS, cuSOLVER and our own) inside the tile
// algorithms, in the four precisions, with every task that has a CUDA implementation sent to
// the GPU by a policy of this test ("cuda-first"), on a GPU capped at 1 MB so that tiles are
// evicted and written back all along: potrf (lower, upper, and LAPACK's info on a matrix that
// is not positive definite or has a NaN pivot), potrs, potri (trtri and lauum), gemm,
// symm/hemm, syrk/herk, trsm and trmm, the tile LU (gesv, getrs, getri, getrf_nopiv, and
// dsgesv's conversions), the QR (the tile QR's geqrt, tpqrt, unmqr and tpmqrt, the compact
// form's panels and block updates) and the FFT's tasks (the 2D transform's two stages, its real columns and
// its tile transposes; the four-step 1D transform's twiddled rows and transposed columns:
// cuFFT, gathers, geam transposes and the twiddle kernel). Each test
// checks its scaled residual against tol (accuracy.hpp) and that the GPU ran the tile
// codelets it is about. On a real GPU, or on the CUDA simulator
// (-DTESSERA_ENABLE_CUDA=SIM); skipped without either.
#include "accuracy/accuracy.hpp"
#include "accuracy/lu_update_check.hpp"
#include "common/fftw_oracle.hpp"
#include "fft/algorithms/four_step.hpp"
#include "fft/algorithms/real_in_place.hpp"
#include "fft/codelets/fft.hpp"
#include "linalg/algorithms/qr_compact.hpp"
#include "linalg/codelets/precision.hpp"

#include <tessera/fft/fft2d.hpp>
#include <tessera/la/qr.hpp>
#include <tessera/rt/sched.hpp>

#include <atomic>
#include <concepts>
#include <deque>
#include <limits>
#include <mutex>
#include <set>
#include <string>

namespace tessera::test {
namespace {

/// Every task that may run on a CUDA worker goes to the first one; the others to the first
/// CPU worker. Records the codelets the GPU was given.
class CudaFirst final : public rt::Policy {
public:
    std::string_view name() const noexcept override { return "cuda-first"; }
    void init(rt::PolicyHost& host) override
    {
        Policy::init(host);
        queues_.resize(host.worker_count());
    }
    void push(rt::ReadyTask t) override
    {
        rt::WorkerId to = pick(t);
        {
            std::lock_guard lock(m_);
            queues_[to].push_back(t);
            if (host().worker(to).arch == rt::Arch::cuda)
                on_gpu().insert(std::string(t.codelet_name()));
        }
        host().wake(to);
    }
    rt::ReadyTask pop(rt::WorkerId w) override
    {
        std::lock_guard lock(m_);
        if (queues_[w].empty()) return {};
        rt::ReadyTask t = queues_[w].front();
        queues_[w].pop_front();
        return t;
    }
    /// The codelets given to a GPU since the last clear (all runtimes of the process).
    static std::set<std::string>& on_gpu()
    {
        static std::set<std::string> names;
        return names;
    }

private:
    rt::WorkerId pick(rt::ReadyTask t) const
    {
        for (auto arch : {rt::Arch::cuda, rt::Arch::cpu})
            for (rt::WorkerId w = 0; w < host().worker_count(); ++w)
                if (host().worker(w).arch == arch && t.can_run_on(w)) return w;
        return 0;
    }
    std::mutex m_;
    std::vector<std::deque<rt::ReadyTask>> queues_;
};

class CudaTileKernels : public PrecisionSweep {
protected:
    static void SetUpTestSuite()
    {
        rt::policies().add("cuda-first", "every task a GPU can run on the first GPU (tests)",
                           [] { return std::make_unique<CudaFirst>(); });
    }
    void SetUp() override
    {
        PrecisionSweep::SetUp();
        runtime_ = std::make_unique<rt::Runtime>(rt::RuntimeConfig{.ncpus = 1,
                                                                   .scheduler = "cuda-first",
                                                                   .ncuda = 1,
                                                                   .cuda_memory = "1MB",
                                                                   .perfmodel_dir = "none"});
        bool gpu = false;
        for (rt::WorkerId w = 0; w < runtime_->worker_count(); ++w)
            gpu = gpu || runtime_->worker(w).arch == rt::Arch::cuda;
        if (!gpu) GTEST_SKIP() << "no GPU: the CUDA tile kernels' tests need one";
        CudaFirst::on_gpu().clear();
    }
    /// Expects the GPU to have been given the codelet of tile routine `routine` ("gemm":
    /// "dgemm" in double), with T the precision.
    template <Scalar T> void expect_on_gpu(char const* routine)
    {
        std::string name = routine;
        name.insert(name.begin(), tessera::la::by_precision<T>("s", "d", "c", "z")[0]);
        EXPECT_TRUE(CudaFirst::on_gpu().contains(name)) << name << " never ran on the GPU";
    }
    rt::Runtime& rt() { return *runtime_; }
    std::unique_ptr<rt::Runtime> runtime_;
};

constexpr int64_t n = 150, nb = 32;  // 5 x 5 tiles, the last ones of 22

TEST_P(CudaTileKernels, PotrfPotrsAndPotri)
{
    with_precision([&]<class T>() {
        for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
            const Dense<T> A0 = hpd_dense<T>(n, 3);
            auto A = tiles_of(rt(), with_other_triangle_nan(A0, uplo), nb);
            ASSERT_EQ(tessera::potrf(uplo, A), 0);
            const Dense<T> F = to_dense(A);
            Dense<T> L = triangle(F, uplo);
            // A0 = L L^H (lower) or U^H U (upper)
            Dense<T> LLh(n, n);
            blas::gemm<T>(uplo == Uplo::lower ? Op::notrans : Op::conjtrans,
                          uplo == Uplo::lower ? Op::conjtrans : Op::notrans, n, n, n, T(1),
                          L.data(), L.ld, L.data(), L.ld, T(0), LLh.data(), LLh.ld);
            EXPECT_LT(norm1_diff(LLh, A0) / (double(n) * norm1(A0) * eps<T>()), tol) << char(uplo);

            const Dense<T> B0 = random_dense<T>(n, 40, 5);
            auto B = tiles_of(rt(), B0, nb);
            tessera::potrs(uplo, A, B);
            EXPECT_LT(solve_residual(A0, to_dense(B), B0), tol) << char(uplo);

            ASSERT_EQ(tessera::potri(uplo, A), 0);
            Dense<T> X = hermitian_from(to_dense(A), uplo);
            Dense<T> R(n, n);
            for (int64_t i = 0; i < n; ++i) R(i, i) = T(1);
            blas::gemm<T>(Op::notrans, Op::notrans, n, n, n, T(-1), A0.data(), A0.ld, X.data(),
                          X.ld, T(1), R.data(), R.ld);
            EXPECT_LT(norm1(R) / (norm1(A0) * norm1(X) * double(n) * eps<T>()), tol) << char(uplo);
        }
        for (char const* routine : {"potrf", "trsm", "syrk", "gemm", "trtri", "lauum", "trmm"})
            expect_on_gpu<T>(routine);
    });
}

// trtri with a unit diagonal neither reads nor writes the diagonal, as LAPACK's: cuSOLVER's
// Xtrtri wrote it on an H200 (the simulator's does the same), and the kernel puts it back.
TEST_P(CudaTileKernels, TrtriWithAUnitDiagonalKeepsTheDiagonal)
{
    with_precision([&]<class T>() {
        for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
            // the Cholesky factor of an HPD matrix scaled to a unit diagonal: well-conditioned
            auto F = tiles_of(rt(), with_other_triangle_nan(hpd_dense<T>(n, 7), uplo), nb);
            ASSERT_EQ(tessera::potrf(uplo, F), 0);
            Dense<T> T0 = triangle(to_dense(F), uplo);
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < n; ++i)
                    if (i != j)
                        T0(i, j) /= T0(uplo == Uplo::lower ? j : i, uplo == Uplo::lower ? j : i);
            for (int64_t i = 0; i < n; ++i) T0(i, i) = T(7);  // never read nor written
            auto A = tiles_of(rt(), with_other_triangle_nan(T0, uplo), nb);
            CudaFirst::on_gpu().clear();
            tessera::Sequence s{rt()};
            tessera::trtri_async(uplo, Diag::unit, A, s);
            ASSERT_EQ(s.wait(), 0);
            const Dense<T> X = to_dense(A);
            const Dense<T> T1 = triangle(T0, uplo, Diag::unit), X1 = triangle(X, uplo, Diag::unit);
            Dense<T> R(n, n);
            for (int64_t i = 0; i < n; ++i) R(i, i) = T(1);
            blas::gemm<T>(Op::notrans, Op::notrans, n, n, n, T(-1), T1.data(), T1.ld, X1.data(),
                          X1.ld, T(1), R.data(), R.ld);
            EXPECT_LT(norm1(R) / (norm1(T1) * norm1(X1) * double(n) * eps<T>()), tol) << char(uplo);
            int64_t written = 0;
            for (int64_t i = 0; i < n; ++i) written += X(i, i) != T(7);
            EXPECT_EQ(written, 0) << char(uplo) << ": entries of the unit diagonal written";
            expect_on_gpu<T>("trtri");
        }
    });
}

// The tile LU with every task on the GPU: gesv (getrf's panel by cuSOLVER, the interchanges,
// then getrs's, trsm and gemm), getrs with A^T, getri (its split of L, its column
// interchanges), and getrf_nopiv (cuSOLVER's getrf without pivots), each against its residual.
TEST_P(CudaTileKernels, LuSolveInverseAndLuWithoutPivoting)
{
    with_precision([&]<class T>() {
        const Dense<T> A0 = random_dense<T>(n, n, 21), B0 = random_dense<T>(n, 40, 22);
        auto A = tiles_of(rt(), A0, nb);
        auto B = tiles_of(rt(), B0, nb);
        tessera::Pivots ipiv{A};
        ASSERT_EQ(tessera::gesv(A, ipiv, B), 0);
        EXPECT_LT(solve_residual(A0, to_dense(B), B0), tol);

        Dense<T> A0t(n, n);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) A0t(i, j) = A0(j, i);
        auto Bt = tiles_of(rt(), B0, nb);
        tessera::getrs(Op::trans, A, ipiv, Bt);
        EXPECT_LT(solve_residual(A0t, to_dense(Bt), B0), tol) << "A^T X = B";

        ASSERT_EQ(tessera::getri(A, ipiv), 0);
        const Dense<T> X = to_dense(A);
        Dense<T> R(n, n);
        for (int64_t i = 0; i < n; ++i) R(i, i) = T(1);
        blas::gemm<T>(Op::notrans, Op::notrans, n, n, n, T(-1), A0.data(), A0.ld, X.data(), X.ld,
                      T(1), R.data(), R.ld);
        EXPECT_LT(norm1(R) / (norm1(A0) * norm1(X) * double(n) * eps<T>()), tol) << "getri";
        for (char const* routine :
             {"getrf_panel", "laswp", "laswp_all", "trsm", "gemm", "getri_split", "getri_swap"})
            expect_on_gpu<T>(routine);

        // LU without pivoting of an HPD matrix (stable): A0 = L U
        CudaFirst::on_gpu().clear();
        const Dense<T> H = hpd_dense<T>(n, 23);
        auto F = tiles_of(rt(), H, nb);
        ASSERT_EQ(tessera::getrf_nopiv(F), 0);
        const Dense<T> LU = to_dense(F);
        Dense<T> L(n, n), U(n, n), P(n, n);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) {
                if (i > j)
                    L(i, j) = LU(i, j);
                else
                    U(i, j) = LU(i, j);
            }
        for (int64_t i = 0; i < n; ++i) L(i, i) = T(1);
        blas::gemm<T>(Op::notrans, Op::notrans, n, n, n, T(1), L.data(), L.ld, U.data(), U.ld, T(0),
                      P.data(), P.ld);
        EXPECT_LT(norm1_diff(P, H) / (double(n) * norm1(H) * eps<T>()), tol) << "getrf_nopiv";
        expect_on_gpu<T>("getrf_nopiv");
    });
}

// The tile QR with its eliminations (geqrt, tpqrt) and updates (unmqr, tpmqrt) on the GPU: flat and binary trees (the binary
// one merges triangles: tpmqrt with l > 0), Q formed by ungqr and applied by unmqr from
// either side with either op; the residual, the orthogonality and the products against CBLAS.
TEST_P(CudaTileKernels, TileQrUpdatesFromEitherSide)
{
    with_precision([&]<class T>() {
        for (auto tree : {tessera::QrTree::flat, tessera::QrTree::binary}) {
            CudaFirst::on_gpu().clear();
            const int64_t m = n, cols = 100;
            const Dense<T> A0 = random_dense<T>(m, cols, 41);
            auto A = tiles_of(rt(), A0, nb);
            tessera::QrFactors<T> F{A, tree, 8};
            tessera::geqrf(A, F);
            TileMatrix<T> Qt{rt(), m, m, nb};
            tessera::ungqr(A, F, Qt);
            const Dense<T> R = to_dense(A), Q = to_dense(Qt);
            Dense<T> E(m, m), D = A0;
            for (int64_t i = 0; i < m; ++i) E(i, i) = T(1);
            blas::gemm<T>(Op::conjtrans, Op::notrans, m, m, m, T(-1), Q.data(), Q.ld, Q.data(),
                          Q.ld, T(1), E.data(), E.ld);
            EXPECT_LT(norm1(E) / (double(m) * eps<T>()), tol)
                << "orthogonality, tree " << int(tree);
            Dense<T> Rk(m, cols);
            for (int64_t j = 0; j < cols; ++j)
                for (int64_t i = 0; i <= std::min(j, m - 1); ++i) Rk(i, j) = R(i, j);
            blas::gemm<T>(Op::notrans, Op::notrans, m, cols, m, T(-1), Q.data(), Q.ld, Rk.data(),
                          Rk.ld, T(1), D.data(), D.ld);
            EXPECT_LT(norm1(D) / (double(m) * norm1(A0) * eps<T>()), tol)
                << "A - Q R, tree " << int(tree);
            for (Side side : {Side::left, Side::right})
                for (Op op : {Op::notrans, Op::conjtrans}) {
                    const Dense<T> C0 = side == Side::left ? random_dense<T>(m, 40, 42)
                                                           : random_dense<T>(40, m, 43);
                    auto C = tiles_of(rt(), C0, nb);
                    tessera::unmqr(side, op, A, F, C);
                    Dense<T> P(C0.m, C0.n);
                    if (side == Side::left)
                        blas::gemm<T>(op, Op::notrans, m, 40, m, T(1), Q.data(), Q.ld, C0.data(),
                                      C0.ld, T(0), P.data(), P.ld);
                    else
                        blas::gemm<T>(Op::notrans, op, 40, m, m, T(1), C0.data(), C0.ld, Q.data(),
                                      Q.ld, T(0), P.data(), P.ld);
                    EXPECT_LT(norm1_diff(to_dense(C), P) / (norm1(C0) * double(m) * eps<T>()), tol)
                        << "side " << char(side) << " op " << char(op) << ", tree " << int(tree);
                }
            expect_on_gpu<T>(is_complex_v<T> ? "unmqr" : "ormqr");
            expect_on_gpu<T>("tpmqrt");
            expect_on_gpu<T>("geqrt");
            expect_on_gpu<T>("tpqrt");
        }
    });
}

// The QR in LAPACK's compact form (the LAPACK-style calls' algorithm) with its panels
// (cuSOLVER's geqrf and larft) and block updates on the GPU: A = Q R with Q formed by
// LAPACKE's orgqr from the compact form, for a tall A and a wide one (whose last panel has
// fewer rows than columns); then, for the tall one, C Q^H and Q C applied from the compact
// form (T formed from V and tau on the GPU too), against CBLAS with that Q.
TEST_P(CudaTileKernels, CompactQrPanelsAndBlockUpdates)
{
    with_precision([&]<class T>() {
        {
            const int64_t m = 70, cols = 100, k = m;
            const Dense<T> A0 = random_dense<T>(m, cols, 50);
            Dense<T> F = A0;
            std::vector<T> tau(static_cast<std::size_t>(k));
            {
                auto A = tessera::TileMatrix<T>::wrap(rt(), F.data(), m, cols, F.ld, nb);
                la::detail::TauPieces<T> pieces{rt(), tau.data(), k, nb};
                auto factors = la::detail::panel_factors<T>(rt(), A.nt(), nb);
                tessera::Sequence s{rt()};
                la::detail::geqrf_compact_async(A, pieces, factors, s);
                ASSERT_EQ(s.wait(), 0);
            }
            Dense<T> Q(m, m);
            for (int64_t j = 0; j < m; ++j)
                for (int64_t i = 0; i < m; ++i) Q(i, j) = F(i, j);
            ASSERT_EQ(blas::ungqr<T>(m, m, k, Q.data(), Q.ld, tau.data()), 0);
            Dense<T> R(m, cols), D = A0;
            for (int64_t j = 0; j < cols; ++j)
                for (int64_t i = 0; i <= std::min(j, m - 1); ++i) R(i, j) = F(i, j);
            blas::gemm<T>(Op::notrans, Op::notrans, m, cols, m, T(-1), Q.data(), Q.ld, R.data(),
                          R.ld, T(1), D.data(), D.ld);
            EXPECT_LT(norm1(D) / (double(cols) * norm1(A0) * eps<T>()), tol) << "wide A - Q R";
        }
        const int64_t m = n, cols = 100, k = cols;
        const Dense<T> A0 = random_dense<T>(m, cols, 51);
        Dense<T> F = A0;
        std::vector<T> tau(static_cast<std::size_t>(k));
        {
            auto A = tessera::TileMatrix<T>::wrap(rt(), F.data(), m, cols, F.ld, nb);
            la::detail::TauPieces<T> pieces{rt(), tau.data(), k, nb};
            auto factors = la::detail::panel_factors<T>(rt(), A.nt(), nb);
            tessera::Sequence s{rt()};
            la::detail::geqrf_compact_async(A, pieces, factors, s);
            ASSERT_EQ(s.wait(), 0);
        }
        expect_on_gpu<T>("geqrf_panel");
        expect_on_gpu<T>("geqrf_update");
        Dense<T> Q(m, k);
        for (int64_t j = 0; j < k; ++j)
            for (int64_t i = 0; i < m; ++i) Q(i, j) = F(i, j);
        ASSERT_EQ(blas::ungqr<T>(m, k, k, Q.data(), Q.ld, tau.data()), 0);
        Dense<T> R(k, cols), D = A0;
        for (int64_t j = 0; j < cols; ++j)
            for (int64_t i = 0; i <= j; ++i) R(i, j) = F(i, j);
        blas::gemm<T>(Op::notrans, Op::notrans, m, cols, k, T(-1), Q.data(), Q.ld, R.data(), R.ld,
                      T(1), D.data(), D.ld);
        EXPECT_LT(norm1(D) / (double(m) * norm1(A0) * eps<T>()), tol) << "A - Q R";
        for (Side side : {Side::left, Side::right}) {
            const Op op = side == Side::left ? Op::notrans : Op::conjtrans;
            Dense<T> Qfull(m, m);  // all of Q, by LAPACKE
            for (int64_t j = 0; j < k; ++j)
                for (int64_t i = 0; i < m; ++i) Qfull(i, j) = F(i, j);
            ASSERT_EQ(blas::ungqr<T>(m, m, k, Qfull.data(), Qfull.ld, tau.data()), 0);
            const Dense<T> C0 =
                side == Side::left ? random_dense<T>(m, 40, 52) : random_dense<T>(40, m, 53);
            Dense<T> C = C0;
            {
                auto V = tessera::TileMatrix<T>::wrap(rt(), F.data(), m, k, F.ld, nb);
                auto Ct = tessera::TileMatrix<T>::wrap(rt(), C.data(), C.m, C.n, C.ld, nb);
                la::detail::TauPieces<T> pieces{rt(), tau.data(), k, nb};
                auto factors = la::detail::panel_factors<T>(rt(), V.nt(), nb);
                tessera::Sequence s{rt()};
                la::detail::unmqr_compact_async(side, op, V, pieces, factors, Ct, s);
                ASSERT_EQ(s.wait(), 0);
            }
            expect_on_gpu<T>("larft");
            Dense<T> P(C0.m, C0.n);
            if (side == Side::left)
                blas::gemm<T>(op, Op::notrans, m, 40, m, T(1), Qfull.data(), Qfull.ld, C0.data(),
                              C0.ld, T(0), P.data(), P.ld);
            else
                blas::gemm<T>(Op::notrans, op, 40, m, m, T(1), C0.data(), C0.ld, Qfull.data(),
                              Qfull.ld, T(0), P.data(), P.ld);
            EXPECT_LT(norm1_diff(C, P) / (norm1(C0) * double(m) * eps<T>()), tol)
                << "side " << char(side);
        }
    });
}

// The tile LU's update of a block of columns in one task (the task getrf gives a LAPACK array
// on the cores alone), on the GPU: per tile column, over tiles of their own or in place.
TEST_P(CudaTileKernels, TrailingUpdateOfABlockOfColumns)
{
    with_precision([&]<class T>() {
        for (bool in_place : {true, false}) {
            CudaFirst::on_gpu().clear();
            EXPECT_LT(lu_update_error<T>(rt(), in_place), tol)
                << (in_place ? "a LAPACK array" : "tiles of their own");
            expect_on_gpu<T>("lu_update");
        }
    });
}

// dsgesv's conversions on the GPU: rounding to single as dlag2s (each entry as float(x), an
// entry beyond single's range reported), and widening back, added to a double tile or not.
TEST_P(CudaTileKernels, PrecisionConversionsOfTheMixedSolvers)
{
    with_precision([&]<class T>() {
        if constexpr (std::same_as<T, double> || std::same_as<T, std::complex<double>>) {
            using S = la::cl::lower_precision_t<T>;
            for (bool beyond : {false, true}) {
                Dense<T> H = random_dense<T>(n, 40, 31);
                if (beyond) H(77, 13) = T(1e39);
                auto A = tiles_of(rt(), H, nb);
                TileMatrix<S> L{rt(), n, 40, nb};
                std::atomic<bool> overflow{false};
                CudaFirst::on_gpu().clear();
                {
                    tessera::Sequence s{rt()};
                    for (int64_t j = 0; j < A.nt(); ++j)
                        for (int64_t i = 0; i < A.mt(); ++i)
                            s.submit(la::cl::round_to_single<T>, rt::read(A(i, j)),
                                     rt::write(L(i, j)), rt::value(&overflow));
                    ASSERT_EQ(s.wait(), 0);
                }
                EXPECT_EQ(overflow.load(), beyond);
                EXPECT_TRUE(
                    CudaFirst::on_gpu().contains(std::same_as<T, double> ? "dlag2s" : "zlag2c"));
                const Dense<S> got = to_dense(L);
                int64_t wrong = 0;
                for (int64_t j = 0; j < 40; ++j)
                    for (int64_t i = 0; i < n; ++i) {
                        if (beyond && i == 77 && j == 13) continue;
                        if constexpr (std::same_as<T, double>)
                            wrong += got(i, j) != float(H(i, j));
                        else
                            wrong += got(i, j) != S(float(H(i, j).real()), float(H(i, j).imag()));
                    }
                EXPECT_EQ(wrong, 0) << "entries not rounded as float(x)";
                if (beyond) continue;
                // widen: X = L (first), then X = X + L
                auto X = tiles_of(rt(), H, nb);
                for (bool accumulate : {false, true}) {
                    tessera::Sequence s{rt()};
                    for (int64_t j = 0; j < X.nt(); ++j)
                        for (int64_t i = 0; i < X.mt(); ++i)
                            s.submit(la::cl::widen_to_double<T>, rt::read(L(i, j)),
                                     rt::readwrite(X(i, j)), rt::value(accumulate));
                    ASSERT_EQ(s.wait(), 0);
                }
                const Dense<T> W = to_dense(X);
                for (int64_t j = 0; j < 40; ++j)
                    for (int64_t i = 0; i < n; ++i) wrong += W(i, j) != T(2) * T(got(i, j));
                EXPECT_EQ(wrong, 0) << "entries not widened exactly";
                EXPECT_TRUE(
                    CudaFirst::on_gpu().contains(std::same_as<T, double> ? "slag2d" : "clag2z"));
            }
        }
    });
}

TEST_P(CudaTileKernels, PotrfInfoOfAMatrixThatIsNotPositiveDefinite)
{
    with_precision([&]<class T>() {
        for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
            Dense<T> A0 = hpd_dense<T>(n, 4);
            A0(70, 70) = T(-1);  // the leading minor of order 71 is not positive definite
            auto A = tiles_of(rt(), A0, nb);
            EXPECT_EQ(tessera::potrf(uplo, A), blas::potrf<T>(uplo, n, A0.data(), A0.ld))
                << char(uplo);
        }
        expect_on_gpu<T>("potrf");
    });
}

TEST_P(CudaTileKernels, PotrfInfoOfANanPivotIsLapacks)
{
    // LAPACK stops at a NaN pivot (find_nan_pivot); a NaN a_ij, i > j, makes pivot i + 1 NaN
    with_precision([&]<class T>() {
        const T nan = T(std::numeric_limits<real_t<T>>::quiet_NaN());
        for (auto [i, j] : {std::pair<int64_t, int64_t>{70, 70}, {45, 3}, {0, 0}})
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                Dense<T> A0 = hpd_dense<T>(n, 4);
                A0(i, j) = A0(j, i) = nan;
                auto A = tiles_of(rt(), A0, nb);
                EXPECT_EQ(tessera::potrf(uplo, A), i + 1)
                    << char(uplo) << " NaN at " << i << "," << j;
            }
        expect_on_gpu<T>("potrf");
    });
}

TEST_P(CudaTileKernels, Blas3AgainstTheHost)
{
    with_precision([&]<class T>() {
        const T alpha = scalar<T>(0.5, -0.25), beta = scalar<T>(-1.5, 0.5);
        const Dense<T> A0 = random_dense<T>(n, n, 7), B0 = random_dense<T>(n, n, 8),
                       C0 = random_dense<T>(n, n, 9);
        auto error = [&](Dense<T> const& got, Dense<T> const& want) {
            return norm1_diff(got, want) /
                   (double(n) * (norm1(A0) * norm1(B0) + norm1(C0)) * eps<T>());
        };
        for (Op ta : {Op::notrans, Op::trans, Op::conjtrans})
            for (Op tb : {Op::notrans, Op::conjtrans}) {
                auto A = tiles_of(rt(), A0, nb), B = tiles_of(rt(), B0, nb),
                     C = tiles_of(rt(), C0, nb);
                tessera::gemm(ta, tb, alpha, A, B, beta, C);
                Dense<T> want = C0;
                blas::gemm<T>(ta, tb, n, n, n, alpha, A0.data(), A0.ld, B0.data(), B0.ld, beta,
                              want.data(), want.ld);
                EXPECT_LT(error(to_dense(C), want), tol) << "gemm " << char(ta) << char(tb);
            }
        for (Side side : {Side::left, Side::right})
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                auto A = tiles_of(rt(), A0, nb), B = tiles_of(rt(), B0, nb),
                     C = tiles_of(rt(), C0, nb);
                tessera::symm(side, uplo, alpha, A, B, beta, C);
                Dense<T> want = C0;
                blas::symm<T>(side, uplo, false, n, n, alpha, A0.data(), A0.ld, B0.data(), B0.ld,
                              beta, want.data(), want.ld);
                EXPECT_LT(error(to_dense(C), want), tol) << "symm " << char(side) << char(uplo);
            }
        for (Uplo uplo : {Uplo::lower, Uplo::upper})
            for (Op trans : {Op::notrans, is_complex_v<T> ? Op::conjtrans : Op::trans}) {
                auto A = tiles_of(rt(), A0, nb), C = tiles_of(rt(), hermitian_from(C0, uplo), nb);
                const real_t<T> ra = real_t<T>(0.5), rb = real_t<T>(-1.5);
                tessera::herk(uplo, trans, ra, A, rb, C);
                Dense<T> want = hermitian_from(C0, uplo);
                blas::syrk<T>(uplo, trans, true, n, n, T(ra), A0.data(), A0.ld, T(rb), want.data(),
                              want.ld);
                EXPECT_LT(error(triangle(to_dense(C), uplo), triangle(want, uplo)), tol)
                    << "herk " << char(uplo) << char(trans);
            }
        for (Side side : {Side::left, Side::right})
            for (Uplo uplo : {Uplo::lower, Uplo::upper})
                for (Op trans : {Op::notrans, Op::conjtrans})
                    for (Diag diag : {Diag::nonunit, Diag::unit}) {
                        // a well-conditioned triangle: the identity plus small entries
                        Dense<T> T0 = triangle(A0, uplo);
                        for (int64_t j = 0; j < n; ++j)
                            for (int64_t i = 0; i < n; ++i)
                                T0(i, j) = i == j ? T(2) : T0(i, j) * T(1.0 / double(n));
                        auto A = tiles_of(rt(), T0, nb), B = tiles_of(rt(), B0, nb);
                        tessera::trmm(side, uplo, trans, diag, alpha, A, B);
                        tessera::trsm(side, uplo, trans, diag, T(1) / alpha, A, B);  // back to B0
                        EXPECT_LT(norm1_diff(to_dense(B), B0) / (double(n) * norm1(B0) * eps<T>()),
                                  tol)
                            << "trmm then trsm " << char(side) << char(uplo) << char(trans)
                            << char(diag);
                    }
        for (char const* routine : {"gemm", "symm", "syrk", "trmm", "trsm"})
            expect_on_gpu<T>(routine);
    });
}

// alpha = 0: syrk and herk compute C = beta C and reference no A. Their tile algorithm then
// passes C's own diagonal tile for A, whose other triangle holds NaN here: a GPU kernel that
// read it would spread NaN into C (the simulator's cuBLAS does, where cuBLAS may).
TEST_P(CudaTileKernels, SyrkAndHerkWithAlphaZeroReferenceNoA)
{
    with_precision([&]<class T>() {
        Dense<T> nans = random_dense<T>(n, n, 7);
        for (T& x : nans.a) x = nan<T>();
        const Dense<T> C0 = random_dense<T>(n, n, 9);
        for (bool hermitian : {false, true})
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                Dense<T> C1 = C0;  // the triangle kept, NaN in the other
                for (int64_t j = 0; j < n; ++j)
                    for (int64_t i = 0; i < n; ++i)
                        if (uplo == Uplo::lower ? i < j : i > j) C1(i, j) = nan<T>();
                auto A = tiles_of(rt(), nans, nb), C = tiles_of(rt(), C1, nb);
                const real_t<T> beta = real_t<T>(-1.5);
                if (hermitian)
                    tessera::herk(uplo, Op::notrans, real_t<T>(0), A, beta, C);
                else
                    tessera::syrk(uplo, Op::notrans, T(0), A, T(beta), C);
                Dense<T> got = triangle(to_dense(C), uplo), want = triangle(C0, uplo);
                for (int64_t j = 0; j < n; ++j)
                    for (int64_t i = 0; i < n; ++i) {
                        want(i, j) *= T(beta);
                        if (hermitian && i == j) want(i, j) = T(std::real(want(i, j)));
                    }
                EXPECT_FALSE(has_nan(got)) << (hermitian ? "herk " : "syrk ") << char(uplo);
                EXPECT_LT(norm1_diff(got, want) / (norm1(C0) * eps<T>()), tol)
                    << (hermitian ? "herk " : "syrk ") << char(uplo);
            }
        expect_on_gpu<T>("syrk");
    });
}

/// The tile dft_2d (tiles of nb) of a random m x n column-major X (the n x m row-major array)
/// against FFTW's 2D transform, within 5 log2(m n) eps in relative L1 distance.
template <class R>
void expect_dft_2d_as_fftw(rt::Runtime& runtime, int64_t m, int64_t n, tessera::fft::Sign sign,
                           uint64_t seed)
{
    using T = std::complex<R>;
    const Dense<T> X = random_dense<T>(m, n, seed);
    auto A = tiles_of(runtime, X, nb);
    tessera::fft::dft_2d<R>(sign, A);
    Dense<T> want(m, n);
    want.a = fftw_c2c<R>(int(n), int(m), X.a, int(sign));
    const double bound = 5 * std::log2(double(m * n)) * eps<T>();
    EXPECT_LT(norm1_diff(to_dense(A), want) / norm1(want), bound)
        << m << " x " << n << ", sign " << int(sign);
}

TEST_P(CudaTileKernels, Fft2dStagesOnTheGpu)
{
    with_precision([&]<class T>() {
        if constexpr (is_complex_v<T>) {
            using R = real_t<T>;
            // 150 x 120 (the 120 x 150 column-major matrix) in tiles of 32: both stages gather
            // five tiles, on a GPU of 1 MB
            for (auto sign : {tessera::fft::Sign::forward, tessera::fft::Sign::backward})
                expect_dft_2d_as_fftw<R>(rt(), 120, 150, sign, 7);
            expect_on_gpu<T>("fft_columns");
            expect_on_gpu<T>("fft_rows");
        }
    });
}

// A 2D transform larger than the GPU's memory: 300 x 512 (2.4 MB in double, 1.2 MB in single)
// on a GPU of 1 MB runs tile column by tile column and tile row by tile row, the tiles evicted
// and written back between the tasks.
TEST_P(CudaTileKernels, Fft2dLargerThanTheGpuRunsByBlocks)
{
    with_precision([&]<class T>() {
        if constexpr (is_complex_v<T>) {
            using R = real_t<T>;
            expect_dft_2d_as_fftw<R>(rt(), 512, 300, tessera::fft::Sign::forward, 19);
            EXPECT_GT(512 * 300 * sizeof(T), std::size_t(1) << 20) << "the array must not fit";
            expect_on_gpu<T>("fft_columns");
            expect_on_gpu<T>("fft_rows");
        }
    });
}

/// Relative L1 distance of got from want (0 when want is zero).
template <class T> double relative_distance(Dense<T> const& got, Dense<T> const& want)
{
    const double scale = norm1(want);
    return scale == 0 ? norm1(got) : norm1_diff(got, want) / scale;
}

TEST_P(CudaTileKernels, RealFftColumnsOnTheGpu)
{
    with_precision([&]<class T>() {
        if constexpr (is_complex_v<T>) {
            using R = real_t<T>;
            // the 150 x 120 row-major real array is the 120 x 150 column-major X; its half-
            // spectrum the 61 x 150 column-major one; tiles of 32, on a GPU of 1 MB
            constexpr int64_t m = 120, w = 150, half = m / 2 + 1;
            const Dense<R> X = random_dense<R>(m, w, 11);
            Dense<T> want(half, w);
            want.a = fftw_r2c<R>(int(w), int(m), X.a);
            const double bound = 5 * std::log2(double(m * w)) * eps<T>();
            Dense<R> NX = X;  // c2r of r2c: N X
            for (R& x : NX.a) x *= R(m * w);

            auto in = tiles_of(rt(), X, nb);
            TileMatrix<T> spectrum(rt(), half, w, nb);
            tessera::fft::dft_r2c_2d<R>(in, spectrum);
            EXPECT_LT(relative_distance(to_dense(spectrum), want), bound) << "r2c";
            TileMatrix<R> back(rt(), m, w, nb);
            tessera::fft::dft_c2r_2d<R>(spectrum, back);
            EXPECT_LT(relative_distance(to_dense(back), NX), bound) << "c2r";

            // in place (the plans' layout): column j's m reals open the bytes of column j
            Dense<T> padded(half, w);
            for (int64_t j = 0; j < w; ++j)
                std::copy_n(&X(0, j), m, reinterpret_cast<R*>(&padded(0, j)));
            auto A = tiles_of(rt(), padded, nb);
            synchronously(
                rt(), [&](Sequence& q) { tessera::fft::detail::r2c_in_place_async<R>(m, A, q); });
            EXPECT_LT(relative_distance(to_dense(A), want), bound) << "r2c in place";
            synchronously(
                rt(), [&](Sequence& q) { tessera::fft::detail::c2r_in_place_async<R>(m, A, q); });
            const Dense<T> reals = to_dense(A);
            Dense<R> got(m, w);
            for (int64_t j = 0; j < w; ++j)
                std::copy_n(reinterpret_cast<R const*>(&reals(0, j)), m, &got(0, j));
            EXPECT_LT(relative_distance(got, NX), bound) << "c2r in place";

            for (char const* name : {"fft_r2c_columns", "fft_c2r_columns"})
                EXPECT_TRUE(
                    CudaFirst::on_gpu().contains(std::string(1, "sd"[sizeof(R) / 8]) + name))
                    << name << " never ran on the GPU";
        }
    });
}

TEST_P(CudaTileKernels, FourStepFftOnTheGpu)
{
    with_precision([&]<class T>() {
        if constexpr (is_complex_v<T>) {
            using R = real_t<T>;
            // n = 96 x 80 points: x is the 96 x 80 column-major A, X = DFT(x) comes out as the
            // 80 x 96 Xt, through the scratch S; tiles of 32 (the last ones of 16)
            constexpr int64_t n1 = 96, n2 = 80;
            for (auto sign : {tessera::fft::Sign::forward, tessera::fft::Sign::backward}) {
                const Dense<T> x = random_dense<T>(n1, n2, 13);
                auto A = tiles_of(rt(), x, nb);
                TileMatrix<T> S(rt(), n1, n2, nb), Xt(rt(), n2, n1, nb);
                synchronously(rt(), [&](Sequence& q) {
                    tessera::fft::detail::four_step_async<R>(sign, A, S, Xt, q);
                });
                Dense<T> want(n2, n1);
                want.a = fftw_1d<R>(int(n1 * n2), x.a, int(sign));
                const double bound = 5 * std::log2(double(n1 * n2)) * eps<T>();
                EXPECT_LT(relative_distance(to_dense(Xt), want), bound) << int(sign);
            }
            expect_on_gpu<T>("fft_rows_twiddled");
            expect_on_gpu<T>("fft_columns_transposed");
        }
    });
}

TEST_P(CudaTileKernels, FftTileTransposesOnTheGpu)
{
    with_precision([&]<class T>() {
        if constexpr (is_complex_v<T>) {
            using R = real_t<T>;
            // the row stage of a square array through transposes: 150 x 150 in tiles of 32,
            // each diagonal tile transposed, each pair (i, j), (j, i) swapped transposed
            const Dense<T> X = random_dense<T>(n, n, 17);
            auto A = tiles_of(rt(), X, nb);
            synchronously(rt(), [&](Sequence& q) {
                for (int64_t j = 0; j < A.nt(); ++j) {
                    q.submit(tessera::fft::cl::transpose<R>, rt::readwrite(A(j, j)));
                    for (int64_t i = j + 1; i < A.mt(); ++i)
                        q.submit(tessera::fft::cl::swap_transposed<R>, rt::readwrite(A(i, j)),
                                 rt::readwrite(A(j, i)));
                }
            });
            const Dense<T> got = to_dense(A);
            int64_t wrong = 0;
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < n; ++i) wrong += got(i, j) != X(j, i);
            EXPECT_EQ(wrong, 0) << "entries not X^T's";
            expect_on_gpu<T>("fft_transpose");
            expect_on_gpu<T>("fft_swap_transposed");
        }
    });
}

TESSERA_INSTANTIATE_PRECISIONS(CudaTileKernels);

}  // namespace
}  // namespace tessera::test
