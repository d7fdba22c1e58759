// Checks the CPU tile kernels themselves (linalg/kernels/cpu), against CBLAS and LAPACKE called
// directly: the per-tile kernels never touch memory outside their tile (each tile ends at a
// guard page (PROT_NONE), so a read or write one element past the end faults; this caught
// OpenBLAS 0.3.21's clauum/zlauum('U'), which read past the matrix and crashed a tile that
// ended a mapping; the kernel layer works around it); the recursive trsm matches cblas_?trsm
// in every (side, uplo, trans, diag) case, the recursive potrf LAPACKE's, info included.
#include "accuracy/accuracy.hpp"

#include "linalg/kernels/cpu/blas_lapack.hpp"

#include <sys/mman.h>
#include <unistd.h>

namespace tessera::test {
namespace {

namespace kernel = tessera::la::kernels::cpu;  // under test here; blas:: is the oracle

/// n x n elements of T that end exactly at a PROT_NONE page.
template <Scalar T> class GuardedTile {
public:
    explicit GuardedTile(int64_t n) : n_(n)
    {
        const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE)),
                          bytes = std::size_t(n * n) * sizeof(T);
        span_ = (bytes + page - 1) / page * page + page;
        base_ = static_cast<char*>(
            mmap(nullptr, span_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        if (base_ == MAP_FAILED) throw std::runtime_error("mmap failed");
        mprotect(base_ + span_ - page, page, PROT_NONE);
        data_ = reinterpret_cast<T*>(base_ + span_ - page - bytes);
    }
    ~GuardedTile() { munmap(base_, span_); }
    GuardedTile(GuardedTile const&) = delete;
    GuardedTile& operator=(GuardedTile const&) = delete;
    T* data() { return data_; }
    void set(Dense<T> const& A)
    {
        for (int64_t j = 0; j < n_; ++j)
            for (int64_t i = 0; i < n_; ++i) data_[i + j * n_] = A(i, j);
    }
    Dense<T> get() const
    {
        Dense<T> A(n_, n_);
        for (int64_t j = 0; j < n_; ++j)
            for (int64_t i = 0; i < n_; ++i) A(i, j) = data_[i + j * n_];
        return A;
    }

private:
    int64_t n_;
    std::size_t span_ = 0;
    char* base_ = nullptr;
    T* data_ = nullptr;
};

class TileKernels : public PrecisionSweep {};

TEST_P(TileKernels, FactorizationsStayInsideTheirTile)
{
    with_precision([&]<class T>() {
        for (int64_t n : {1, 2, 17, 96, 130})
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                const Dense<T> H = hpd_dense<T>(n, 40 + uint64_t(n));
                GuardedTile<T> g(n);
                g.set(H);
                ASSERT_EQ(kernel::potrf<T>(uplo, n, g.data(), n), 0);
                const Dense<T> F = g.get();
                ASSERT_EQ(kernel::trtri<T>(uplo, Diag::nonunit, n, g.data(), n), 0);
                g.set(F);
                kernel::lauum<T>(uplo, n, g.data(), n);  // U U^H or L^H L of the factor
                // The triangle lauum computed, against the same product on the host.
                Dense<T> L = triangle(F, uplo), P(n, n);
                if (uplo == Uplo::upper)
                    blas::gemm<T>(Op::notrans, Op::conjtrans, n, n, n, T(1), L.data(), L.ld,
                                  L.data(), L.ld, T(0), P.data(), P.ld);
                else
                    blas::gemm<T>(Op::conjtrans, Op::notrans, n, n, n, T(1), L.data(), L.ld,
                                  L.data(), L.ld, T(0), P.data(), P.ld);
                const Dense<T> R = g.get();
                EXPECT_LT(norm1_diff(triangle(R, uplo), triangle(P, uplo)) /
                              (norm1(P) * double(n) * eps<T>()),
                          tol)
                    << "lauum n=" << n << " uplo=" << char(uplo);
                for (int64_t j = 0; j < n; ++j)  // the other triangle is not referenced
                    for (int64_t i = 0; i < n; ++i)
                        if (uplo == Uplo::upper ? i > j : i < j) {
                            ASSERT_EQ(R(i, j), F(i, j)) << "lauum wrote (" << i << ", " << j << ")";
                        }
            }
    });
}

TEST_P(TileKernels, RecursiveTrsmMatchesBlas)
{
    with_precision([&]<class T>() {
        for (int64_t k : {7, 100, 300})
            for (Side side : {Side::left, Side::right})
                for (Uplo uplo : {Uplo::lower, Uplo::upper})
                    for (Op trans : {Op::notrans, Op::trans, Op::conjtrans})
                        for (Diag diag : {Diag::nonunit, Diag::unit}) {
                            const int64_t m = side == Side::left ? k : 45,
                                          n = side == Side::left ? 45 : k;
                            Dense<T> A = random_dense<T>(k, k, 3);
                            for (int64_t i = 0; i < k; ++i) A(i, i) = T(real_t<T>(k));
                            const Dense<T> B = random_dense<T>(m, n, 4);
                            Dense<T> X = B, Y = B;
                            const T alpha = T(real_t<T>(0.5));
                            kernel::trsm<T>(side, uplo, trans, diag, m, n, alpha, A.data(), A.ld,
                                            X.data(), X.ld);
                            blas::trsm<T>(side, uplo, trans, diag, m, n, alpha, A.data(), A.ld,
                                          Y.data(), Y.ld);
                            EXPECT_LT(norm1_diff(X, Y) / (norm1(Y) * double(k) * eps<T>()), tol)
                                << "k=" << k << " side=" << char(side) << " uplo=" << char(uplo)
                                << " trans=" << char(trans) << " diag=" << char(diag);
                        }
    });
}

TEST_P(TileKernels, RecursivePotrfMatchesLapack)
{
    with_precision([&]<class T>() {
        for (int64_t n : {64, 65, 300})
            for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
                const Dense<T> H = hpd_dense<T>(n, 50 + uint64_t(n));
                Dense<T> F = H, G = H;
                ASSERT_EQ(kernel::potrf<T>(uplo, n, F.data(), F.ld), 0);
                ASSERT_EQ(blas::potrf<T>(uplo, n, G.data(), G.ld), 0);
                EXPECT_LT(norm1_diff(F, G) / (norm1(G) * double(n) * eps<T>()), tol)
                    << "n=" << n << " uplo=" << char(uplo);
                // A failure anywhere, in either half of any level of the recursion, gives
                // LAPACK's order of the first minor that is not positive definite.
                for (int64_t bad : {int64_t(0), n / 2 - 1, n / 2, n / 2 + 1, n - 1}) {
                    Dense<T> B = H, C = H;
                    B(bad, bad) = C(bad, bad) = T(-1);
                    EXPECT_EQ(kernel::potrf<T>(uplo, n, B.data(), B.ld), bad + 1)
                        << "n=" << n << " uplo=" << char(uplo) << " bad=" << bad;
                    EXPECT_EQ(blas::potrf<T>(uplo, n, C.data(), C.ld), bad + 1);
                }
            }
    });
}

TESSERA_INSTANTIATE_PRECISIONS(TileKernels);

}  // namespace
}  // namespace tessera::test
