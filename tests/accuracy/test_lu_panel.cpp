// Checks the kernel of the tile LU's panel (linalg/kernels/cpu/tile_column_lu) against LAPACKE
// and against itself: run by 2 or 3 ranks (threads meeting at a std::barrier, as the ranks of
// an SPMD task do), it gives bitwise the same factors and pivots as one rank, since each rank
// makes the same BLAS calls on its own tiles that one rank makes on all; its pivots are
// LAPACKE's on a matrix whose pivots are distinct by a wide margin; the interchanges it
// reports, applied to another column, give the rows LAPACKE's laswp gives; the trailing
// update of a block of columns in one task is LAPACK's laswp, trsm and gemm, whether the block
// lies in one LAPACK array (one call each) or in tiles of their own (a call per tile column).
#include "accuracy/accuracy.hpp"
#include "accuracy/lu_update_check.hpp"
#include "accuracy/tiled_column.hpp"

#include "linalg/kernels/cpu/tile_column_lu.hpp"

#include <barrier>
#include <numeric>
#include <optional>
#include <random>
#include <thread>

namespace tessera::test {
namespace {

/// Factors the column with `size` ranks; returns the factors, the pivots (from 1) and info.
template <Scalar T>
std::tuple<Dense<T>, std::vector<int64_t>, int64_t> factor(Dense<T> const& A, int64_t nb,
                                                           unsigned size)
{
    TiledColumn<T> column(A, nb);
    std::vector<int64_t> ipiv(static_cast<std::size_t>(std::min(A.m, A.n)));
    kernel::PivotSearch search;
    group_barrier.emplace(size);
    std::vector<int64_t> info(size);
    std::vector<std::thread> ranks;
    for (unsigned r = 0; r < size; ++r)
        ranks.emplace_back([&, r] {
            const kernel::PanelRanks me{r, size, size > 1 ? &meet : nullptr, &search};
            info[r] = kernel::getrf_panel<T>(column.tiles, nb, A.n, ipiv.data(),
                                             kernel::Pivoting::partial, me);
        });
    for (auto& t : ranks) t.join();
    for (unsigned r = 1; r < size; ++r) EXPECT_EQ(info[r], info[0]) << "rank " << r;
    for (int64_t& p : ipiv) ++p;
    return {column.dense(), ipiv, info[0]};
}

class LuPanelKernel : public PrecisionSweep {};

TEST_P(LuPanelKernel, RanksAgreeBitwiseWithOneRankAndPivotLikeLapack)
{
    with_precision([&]<class T>() {
        for (auto [m, n, nb] :
             {std::tuple<int64_t, int64_t, int64_t>{1000, 96, 96}, {517, 64, 100}, {90, 96, 96}}) {
            Dense<T> A = random_dense<T>(m, n, 77 + uint64_t(m));
            std::vector<int64_t> rows(static_cast<std::size_t>(m));
            std::iota(rows.begin(), rows.end(), 0);
            std::shuffle(rows.begin(), rows.end(), std::mt19937_64(5));
            for (int64_t j = 0; j < std::min(m, n); ++j)
                A(rows[std::size_t(j)], j) += T(real_t<T>(m + n));

            const auto [F1, p1, info1] = factor(A, nb, 1);
            Dense<T> ref = A;
            std::vector<lapack_int> piv(static_cast<std::size_t>(std::min(m, n)));
            ASSERT_EQ(blas::getrf<T>(m, n, ref.data(), ref.ld, piv.data()), 0);
            EXPECT_EQ(info1, 0);
            EXPECT_EQ(p1, std::vector<int64_t>(piv.begin(), piv.end())) << m << " x " << n;
            EXPECT_LT(norm1_diff(F1, ref) / (norm1(ref) * double(n) * eps<T>()), tol)
                << m << " x " << n;
            for (unsigned size : {2u, 3u}) {
                const auto [F, p, info] = factor(A, nb, size);
                EXPECT_EQ(info, info1);
                EXPECT_EQ(p, p1) << size << " ranks";
                EXPECT_TRUE(same_bits(F.a, F1.a)) << size << " ranks, " << m << " x " << n;
            }
        }
    });
}

TEST_P(LuPanelKernel, AZeroColumnIsReportedAndSkipped)
{
    with_precision([&]<class T>() {
        Dense<T> A = random_dense<T>(300, 64, 91);
        for (int64_t i = 0; i < A.m; ++i) A(i, 20) = T(0);
        Dense<T> ref = A;
        std::vector<lapack_int> piv(64);
        const int64_t expected = blas::getrf<T>(300, 64, ref.data(), ref.ld, piv.data());
        ASSERT_EQ(expected, 21);
        for (unsigned size : {1u, 2u}) {
            const auto [F, p, info] = factor(A, 64, size);
            EXPECT_EQ(info, expected) << size << " ranks";
        }
    });
}

TEST_P(LuPanelKernel, RowSwapsAcrossTilesMatchLaswp)
{
    with_precision([&]<class T>() {
        const int64_t m = 250, n = 5, nb = 64, count = 40, first = 10;
        const Dense<T> B0 = random_dense<T>(m, n, 95);
        std::vector<int64_t> ipiv(count);
        std::mt19937_64 g(96);
        for (int64_t i = 0; i < count; ++i)  // row first + i swapped with one at or below it
            ipiv[std::size_t(i)] = first + i + 1 + int64_t(g() % uint64_t(m - first - i));
        std::vector<lapack_int> lapack_ipiv(static_cast<std::size_t>(first + count));
        for (int64_t i = 0; i < first; ++i) lapack_ipiv[std::size_t(i)] = lapack_int(i + 1);
        for (int64_t i = 0; i < count; ++i)
            lapack_ipiv[std::size_t(first + i)] = lapack_int(ipiv[std::size_t(i)]);
        for (auto [order, incx] :
             {std::pair{kernel::SwapOrder::forward, 1}, {kernel::SwapOrder::backward, -1}}) {
            TiledColumn<T> column(B0, nb);
            kernel::apply_row_swaps<T>(column.tiles, nb, n, ipiv.data(), count, first, 0, order);
            Dense<T> ref = B0;
            blas::laswp<T>(n, ref.data(), ref.ld, first + 1, first + count, lapack_ipiv.data(),
                           incx);
            EXPECT_EQ(norm1_diff(column.dense(), ref), 0.0) << "incx " << incx;
        }
    });
}

TEST_P(LuPanelKernel, TrailingUpdateOfABlockOfColumnsMatchesLapack)
{
    rt::Runtime r{rt::RuntimeConfig{.ncpus = 1, .ncuda = 0, .perfmodel_dir = "none"}};
    with_precision([&]<class T>() {
        for (bool in_place : {true, false})
            EXPECT_LT(lu_update_error<T>(r, in_place), tol)
                << (in_place ? "a LAPACK array" : "tiles of their own");
    });
}

TESSERA_INSTANTIATE_PRECISIONS(LuPanelKernel);

}  // namespace
}  // namespace tessera::test
