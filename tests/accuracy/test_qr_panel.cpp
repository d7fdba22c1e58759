// Checks the kernel of the compact QR's panel (linalg/kernels/cpu/tile_column_qr) against
// LAPACKE, run by 1, 2 and 3 ranks (threads meeting at a std::barrier, as the ranks of an
// SPMD task do): its R and reflectors are LAPACKE geqrf's to ||F - F_lapack||_1 / (m ||A||_1
// eps) < tol (both are Householder QRs with larfg's signs: the same factors up to rounding),
// its taus are LAPACKE's, and its T is LAPACKE larft's of its own reflectors; a zero column
// gets tau = 0 (H = I), as in LAPACK.
#include "accuracy/accuracy.hpp"
#include "accuracy/tiled_column.hpp"

#include "linalg/kernels/cpu/tile_column_qr.hpp"

#include <lapacke.h>

#include <thread>
#include <tuple>

namespace tessera::test {
namespace {

/// LAPACK's larft (forward, columnwise): T of the n reflectors in V (m x n) with their taus.
template <Scalar T> Dense<T> larft(Dense<T> const& V, std::vector<T> const& tau)
{
    const int64_t n = V.n;
    Dense<T> R(n, n);
    blas::pick<T>(LAPACKE_slarft, LAPACKE_dlarft, LAPACKE_clarft,
                  LAPACKE_zlarft)(LAPACK_COL_MAJOR, 'F', 'C', int(V.m), int(n), V.data(), int(V.ld),
                                  tau.data(), R.data(), int(R.ld));
    return R;
}

/// Factors the column with `size` ranks: the factored column and T.
template <Scalar T>
std::pair<Dense<T>, Dense<T>> factor(Dense<T> const& A, int64_t nb, unsigned size)
{
    TiledColumn<T> column(A, nb);
    Dense<T> t(A.n, A.n);
    kernel::PanelSums<T> sums;
    group_barrier.emplace(size);
    std::vector<std::thread> ranks;
    for (unsigned r = 0; r < size; ++r)
        ranks.emplace_back([&, r] {
            const kernel::PanelRanks me{r, size, size > 1 ? &meet : nullptr, nullptr};
            EXPECT_TRUE(kernel::geqrf_panel<T>(column.tiles, A.n, t.data(), t.ld, me, &sums));
        });
    for (auto& th : ranks) th.join();
    return {column.dense(), t};
}

/// The upper triangle of T (its strictly lower part is not part of the result).
template <Scalar T> Dense<T> upper(Dense<T> const& M)
{
    return triangle(M, Uplo::upper);
}

class QrPanelKernel : public PrecisionSweep {};

TEST_P(QrPanelKernel, EveryRankCountGivesLapacksFactors)
{
    with_precision([&]<class T>() {
        for (auto [m, n, nb] : {std::tuple<int64_t, int64_t, int64_t>{1000, 96, 96},
                                {517, 64, 100},
                                {96, 96, 96},
                                {300, 37, 40},
                                {5, 5, 5}}) {
            Dense<T> A = random_dense<T>(m, n, 91 + uint64_t(m));
            for (int64_t i = 0; i < m; ++i) A(i, n / 2) = T(0);  // a zero column: H = I, tau = 0
            Dense<T> ref = A;
            std::vector<T> tau(static_cast<std::size_t>(n));
            ASSERT_EQ(blas::geqrf<T>(m, n, ref.data(), ref.ld, tau.data()), 0);
            const double scale = double(m) * norm1(A) * eps<T>();
            for (unsigned size : {1u, 2u, 3u}) {
                const auto [F, t] = factor(A, nb, size);
                EXPECT_LT(norm1_diff(F, ref) / scale, tol)
                    << m << " x " << n << ", " << size << " ranks";
                double tau_error = 0;
                for (int64_t i = 0; i < n; ++i)
                    tau_error =
                        std::max(tau_error, std::abs(std::complex<double>(t(i, i)) -
                                                     std::complex<double>(tau[std::size_t(i)])));
                EXPECT_LT(tau_error / (double(m) * eps<T>()), tol)
                    << m << " x " << n << ", " << size << " ranks";
                EXPECT_EQ(t(n / 2, n / 2), T(0)) << "the zero column's tau";
                std::vector<T> ours(static_cast<std::size_t>(n));
                for (int64_t i = 0; i < n; ++i) ours[std::size_t(i)] = t(i, i);
                const Dense<T> expected = larft(F, ours);
                EXPECT_LT(norm1_diff(upper(t), upper(expected)) / (double(m) * eps<T>()), tol)
                    << m << " x " << n << ", " << size << " ranks";
            }
        }
    });
}

TESSERA_INSTANTIATE_PRECISIONS(QrPanelKernel);

}  // namespace
}  // namespace tessera::test
