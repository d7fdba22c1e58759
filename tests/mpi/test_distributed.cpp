// The distributed linear algebra under mpirun (ctest -L mpi: 1, 2 and 4 ranks), on the grids
// ProcessGrid::for_ranks gives (1 x 1, 1 x 2, 2 x 2) and 1D cyclic ones: the library's tile
// gemm, getrf and geqrf on distributed tiles give the single-process result bit for bit (their
// panels write tiles of several ranks); the LAPACK-style potrf and getrf on a distribution give
// LAPACKE's factors within rounding and its info on every rank; scatter then gather returns the
// array. And the failures of a distributed flow: a task that throws on one rank reaches every
// rank's wait_all (the others would otherwise wait for its data), and ranks that submit
// different flows are told so instead of hanging.
#include "mpi/epoch_failure.hpp"
#include "mpi/refusal.hpp"

#include <tessera/la/distributed.hpp>
#include <tessera/rt/mpi.hpp>
#include <tessera/tessera.hpp>

#include <cblas.h>
#include <gtest/gtest.h>
#include <lapacke.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

namespace rt = tessera::rt;
using tessera::ProcessGrid;
using tessera::TileMatrix;
using tessera::test::refusal_of;

namespace {

rt::RuntimeConfig config()
{
    return {.ncpus = 1, .perfmodel_dir = "none"};
}

/// m x n uniform in [-1, 1), column-major, the same on every rank.
std::vector<double> random_matrix(int64_t m, int64_t n, unsigned seed)
{
    std::mt19937 g(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> a(std::size_t(m * n));
    for (double& x : a) x = u(g);
    return a;
}

/// A symmetric positive definite n x n matrix: a random one, symmetrized, plus n on its
/// diagonal.
std::vector<double> spd_matrix(int64_t n, unsigned seed)
{
    auto a = random_matrix(n, n, seed);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < j; ++i) a[std::size_t(i + j * n)] = a[std::size_t(j + i * n)];
    for (int64_t i = 0; i < n; ++i) a[std::size_t(i + i * n)] += double(n);
    return a;
}

/// The grids the tests run on for `ranks`: the squarest, and the two 1D cyclic ones.
std::vector<ProcessGrid> grids(int ranks)
{
    std::vector<ProcessGrid> all{ProcessGrid::for_ranks(ranks)};
    if (ranks > 1) all.insert(all.end(), {{ranks, 1}, {1, ranks}});
    return all;
}

/// A TileMatrix of `a` on every rank, distributed over `grid`, whose tiles other ranks own
/// start as NaN (a missing transfer cannot pass).
TileMatrix<double> distributed_copy(rt::mpi::Context& mpi, ProcessGrid grid,
                                    std::vector<double> const& a, int64_t m, int64_t n, int64_t nb)
{
    TileMatrix<double> A(mpi.runtime(), m, n, nb);
    std::vector<double> mine = a;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i)
            if (grid.owner(i / nb, j / nb) != mpi.rank())
                mine[std::size_t(i + j * m)] = std::numeric_limits<double>::quiet_NaN();
    tessera::lapack_to_tiles(mine.data(), m, A);
    tessera::distribute(mpi, A, grid);
    return A;
}

/// A's tiles gathered into an m x n array on rank 0 (empty elsewhere).
std::vector<double> gathered(rt::mpi::Context& mpi, TileMatrix<double> const& A)
{
    std::vector<double> a(mpi.rank() == 0 ? std::size_t(A.m() * A.n()) : 0);
    tessera::gather(mpi, A, a.data(), std::max<int64_t>(1, A.m()), 0);
    return a;
}

bool bitwise_equal(std::vector<double> const& x, std::vector<double> const& y)
{
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
}

constexpr int64_t nb = 32;

// C = A B - C with 5 x 4 tiles of C: every rank's tasks on its tiles, inputs received.
TEST(MpiDistributed, GemmEqualsTheSingleProcessRun)
{
    constexpr int64_t m = 150, n = 120, k = 90;
    const auto a = random_matrix(m, k, 1), b = random_matrix(k, n, 2), c = random_matrix(m, n, 3);
    std::vector<double> reference;
    {
        rt::Runtime r{config()};
        auto A = tessera::tile_copy_of(r, a.data(), m, k, m, nb);
        auto B = tessera::tile_copy_of(r, b.data(), k, n, k, nb);
        auto C = tessera::tile_copy_of(r, c.data(), m, n, m, nb);
        tessera::gemm(tessera::Op::notrans, tessera::Op::notrans, 1.0, A, B, -1.0, C);
        reference.resize(std::size_t(m * n));
        tessera::tiles_to_lapack(C, reference.data(), m);
    }
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    for (ProcessGrid grid : grids(mpi.size())) {
        auto A = distributed_copy(mpi, grid, a, m, k, nb);
        auto B = distributed_copy(mpi, grid, b, k, n, nb);
        auto C = distributed_copy(mpi, grid, c, m, n, nb);
        tessera::gemm(tessera::Op::notrans, tessera::Op::notrans, 1.0, A, B, -1.0, C);
        const auto result = gathered(mpi, C);
        mpi.wait_all();
        if (mpi.rank() != 0) continue;
        EXPECT_TRUE(bitwise_equal(result, reference)) << grid.p << " x " << grid.q;
        // and CBLAS's product, within rounding
        std::vector<double> oracle = c;
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a.data(), m, b.data(),
                    k, -1.0, oracle.data(), m);
        for (std::size_t e = 0; e < oracle.size(); ++e)
            ASSERT_NEAR(result[e], oracle[e], 1e-12 * double(k)) << e;
    }
}

// getrf's panel and row interchanges write the tiles of a whole column, of several ranks: the
// panel runs on the owner of its top tile, which sends the tiles back. Factor and pivots equal
// the single-process run's bit for bit.
TEST(MpiDistributed, GetrfEqualsTheSingleProcessRun)
{
    constexpr int64_t m = 170, n = 140;
    const auto a = random_matrix(m, n, 4);
    std::vector<double> reference(std::size_t(m * n));
    std::vector<int64_t> reference_pivots;
    {
        rt::Runtime r{config()};
        auto A = tessera::tile_copy_of(r, a.data(), m, n, m, nb);
        tessera::Pivots P(A);
        ASSERT_EQ(tessera::getrf(A, P), 0);
        tessera::tiles_to_lapack(A, reference.data(), m);
        reference_pivots.assign(P.data(), P.data() + P.size());
    }
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    for (ProcessGrid grid : grids(mpi.size())) {
        auto A = distributed_copy(mpi, grid, a, m, n, nb);
        tessera::Pivots P(A);
        tessera::distribute(mpi, P, grid);
        EXPECT_EQ(mpi.agree_on_info(tessera::getrf(A, P)), 0);
        const auto result = gathered(mpi, A);
        for (int64_t k = 0; k < P.pieces(); ++k) mpi.get_data_on(P.piece(k), 0);
        mpi.wait_all();
        if (mpi.rank() != 0) continue;
        EXPECT_TRUE(bitwise_equal(result, reference)) << grid.p << " x " << grid.q;
        const rt::mpi::Context::Local here{mpi};
        EXPECT_EQ(std::vector<int64_t>(P.data(), P.data() + P.size()), reference_pivots);
    }
}

// The tile QR's eliminations write two tiles of one column (flat tree), or more: R and the
// reflectors equal the single-process run's bit for bit.
TEST(MpiDistributed, GeqrfEqualsTheSingleProcessRun)
{
    constexpr int64_t m = 160, n = 100;
    const auto a = random_matrix(m, n, 5);
    for (tessera::QrTree tree : {tessera::QrTree::flat, tessera::QrTree::binary}) {
        std::vector<double> reference(std::size_t(m * n));
        {
            rt::Runtime r{config()};
            auto A = tessera::tile_copy_of(r, a.data(), m, n, m, nb);
            tessera::QrFactors<double> F(A, tree);
            tessera::geqrf(A, F);
            tessera::tiles_to_lapack(A, reference.data(), m);
        }
        rt::Runtime r{config()};
        rt::mpi::Context mpi{r};
        for (ProcessGrid grid : grids(mpi.size())) {
            auto A = distributed_copy(mpi, grid, a, m, n, nb);
            tessera::QrFactors<double> F(A, tree);
            tessera::distribute(mpi, F, A, grid);
            tessera::geqrf(A, F);
            const auto result = gathered(mpi, A);
            mpi.wait_all();
            if (mpi.rank() == 0) {
                EXPECT_TRUE(bitwise_equal(result, reference))
                    << grid.p << " x " << grid.q
                    << (tree == tessera::QrTree::flat ? " flat" : " binary");
            }
        }
    }
}

/// ‖A − L Lᵀ‖₁ / (n ‖A‖₁ ε) of the lower factor in l (the strict upper triangle ignored).
double cholesky_residual(std::vector<double> const& a, std::vector<double> const& l, int64_t n)
{
    std::vector<double> lower(std::size_t(n * n), 0.0);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = j; i < n; ++i) lower[std::size_t(i + j * n)] = l[std::size_t(i + j * n)];
    std::vector<double> r = a;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, -1.0, lower.data(), n,
                lower.data(), n, 1.0, r.data(), n);
    double eps = std::numeric_limits<double>::epsilon();
    return LAPACKE_dlange(LAPACK_COL_MAJOR, '1', n, n, r.data(), n) /
           (double(n) * LAPACKE_dlange(LAPACK_COL_MAJOR, '1', n, n, a.data(), n) * eps);
}

// The LAPACK-style potrf on a distribution: LAPACKE's factor within rounding, and on a matrix
// whose leading minor of order 61 is not positive, LAPACKE's info on every rank.
TEST(MpiDistributed, LapackStylePotrfGivesLapackesFactorAndInfoOnEveryRank)
{
    constexpr int64_t n = 200;
    const auto spd = spd_matrix(n, 6);
    auto indefinite = spd;
    indefinite[std::size_t(60 + 60 * n)] = -1e6;
    std::vector<double> lapacke = indefinite;
    const int64_t expected = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, lapacke.data(), n);
    ASSERT_EQ(expected, 61);

    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    for (ProcessGrid grid : grids(mpi.size())) {
        std::vector<double> a = mpi.rank() == 0 ? spd : std::vector<double>{};
        EXPECT_EQ(tessera::potrf(mpi, grid, tessera::Uplo::lower, n, a.data(), n, 0, nb), 0);
        if (mpi.rank() == 0) { EXPECT_LT(cholesky_residual(spd, a, n), 10.0); }
        std::vector<double> b = mpi.rank() == 0 ? indefinite : std::vector<double>{};
        EXPECT_EQ(tessera::potrf(mpi, grid, tessera::Uplo::lower, n, b.data(), n, 0, nb), expected)
            << "rank " << mpi.rank() << ", " << grid.p << " x " << grid.q;
    }
}

/// Pages of A's tiles kept for other ranks (reserved_for_copies) that are in memory (mincore).
int64_t resident_copy_pages(TileMatrix<double>& A)
{
    const auto page = std::size_t(sysconf(_SC_PAGESIZE));
    int64_t resident = 0;
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = 0; i < A.mt(); ++i) {
            if (!A.reserved_for_copies(i, j)) continue;
            const auto begin = reinterpret_cast<std::uintptr_t>(A(i, j).view().ptr);
            const std::size_t bytes = std::size_t(A.tile_m(i) * A.tile_n(j)) * sizeof(double);
            const std::uintptr_t first = begin / page * page;
            const std::size_t pages = (begin + bytes - first + page - 1) / page;
            std::vector<unsigned char> in_core(pages);
            if (mincore(reinterpret_cast<void*>(first), pages * page, in_core.data()) != 0)
                ADD_FAILURE() << "mincore failed";
            for (unsigned char c : in_core) resident += c & 1;
        }
    return resident;
}

// A rank keeps the copies it receives of other ranks' tiles only while the task flow reads
// them: potrf gives back each panel's after its last update, scatter root's once sent, and
// gather root's once in the array. The factor is LAPACKE's all the same.
TEST(MpiDistributed, RanksGiveBackTheirCopiesOfOtherRanksTiles)
{
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    if (mpi.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    constexpr int64_t n = 384, tile = 64;  // 6 x 6 tiles of 32 KB, page-aligned in reserve
    const auto spd = spd_matrix(n, 8);
    for (ProcessGrid grid : grids(mpi.size())) {
        auto A = tessera::distributed_matrix<double>(mpi, grid, n, n, tile);
        tessera::scatter(mpi, spd.data(), n, 0, A);
        mpi.wait_all();
        EXPECT_EQ(resident_copy_pages(A), 0) << "after scatter, " << grid.p << " x " << grid.q;
        EXPECT_EQ(tessera::potrf(tessera::Uplo::lower, A), 0);
        mpi.wait_all();
        EXPECT_EQ(resident_copy_pages(A), 0) << "after potrf, " << grid.p << " x " << grid.q;
        std::vector<double> l(mpi.rank() == 0 ? std::size_t(n * n) : 0);
        tessera::gather(mpi, A, l.data(), n, 0);
        mpi.wait_all();
        EXPECT_EQ(resident_copy_pages(A), 0) << "after gather, " << grid.p << " x " << grid.q;
        if (mpi.rank() == 0) { EXPECT_LT(cholesky_residual(spd, l, n), 10.0); }
    }
}

// The LAPACK-style getrf on a distribution, rooted on the last rank: LAPACKE's pivots and
// factor, and on a matrix whose column 45 is zero, LAPACKE's info on every rank.
TEST(MpiDistributed, LapackStyleGetrfGivesLapackesFactorAndInfoOnEveryRank)
{
    constexpr int64_t m = 130, n = 110;
    const auto a = random_matrix(m, n, 7);
    auto singular = a;
    for (int64_t i = 0; i < m; ++i) singular[std::size_t(i + 44 * m)] = 0.0;
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    const int root = mpi.size() - 1;
    for (ProcessGrid grid : grids(mpi.size())) {
        for (std::vector<double> const* input :
             {&a, static_cast<std::vector<double> const*>(&singular)}) {
            std::vector<double> lu = mpi.rank() == root ? *input : std::vector<double>{};
            std::vector<int64_t> ipiv(std::size_t(std::min(m, n)), -1);
            const int64_t info =
                tessera::getrf(mpi, grid, m, n, lu.data(), m, ipiv.data(), root, nb);
            std::vector<double> oracle = *input;
            std::vector<lapack_int> oracle_pivots(std::size_t(std::min(m, n)));
            const int64_t expected =
                LAPACKE_dgetrf(LAPACK_COL_MAJOR, m, n, oracle.data(), m, oracle_pivots.data());
            EXPECT_EQ(info, expected) << "rank " << mpi.rank();
            if (mpi.rank() != root) continue;
            for (std::size_t i = 0; i < ipiv.size(); ++i) ASSERT_EQ(ipiv[i], oracle_pivots[i]) << i;
            for (std::size_t e = 0; e < oracle.size(); ++e)
                ASSERT_NEAR(lu[e], oracle[e], 1e-10) << e;
        }
    }
}

// A ScaLAPACK user's local arrays, in place: each rank holds its blocks of a 2D block-cyclic
// SPD matrix (NUMROC's local sizes, a leading dimension with 3 rows to spare); the tile potrf
// on wrap_scalapack leaves in each local array its blocks of LAPACKE's factor, and the spare
// rows alone.
TEST(MpiDistributed, ScalapackLocalArraysAreFactoredInPlace)
{
    constexpr int64_t n = 150, block = 32;
    const auto spd = spd_matrix(n, 8);
    std::vector<double> factor = spd;
    ASSERT_EQ(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, factor.data(), n), 0);
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    for (ProcessGrid grid : grids(mpi.size())) {
        const int row = mpi.rank() / grid.q, column = mpi.rank() % grid.q;
        const int64_t local_m = tessera::local_extent(n, block, row, grid.p);
        const int64_t local_n = tessera::local_extent(n, block, column, grid.q);
        const int64_t lld = local_m + 3;
        constexpr double spare = -9.0;
        std::vector<double> local(std::size_t(lld * std::max<int64_t>(1, local_n)), spare);
        auto local_index = [&](int64_t i, int64_t j) {  // global (i, j) in this rank's array
            return std::size_t((i / block / grid.p * block + i % block) +
                               (j / block / grid.q * block + j % block) * lld);
        };
        auto mine = [&](int64_t i, int64_t j) {
            return grid.owner(i / block, j / block) == mpi.rank();
        };
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i)
                if (mine(i, j)) local[local_index(i, j)] = spd[std::size_t(i + j * n)];
        {
            auto A = tessera::wrap_scalapack(mpi, grid, local.data(), n, n, block, lld);
            EXPECT_EQ(mpi.agree_on_info(tessera::potrf(tessera::Uplo::lower, A)), 0);
            mpi.wait_all();
        }  // unregistered: the local array holds the results
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = j; i < n; ++i)
                if (mine(i, j)) {
                    ASSERT_NEAR(local[local_index(i, j)], factor[std::size_t(i + j * n)], 1e-10)
                        << "(" << i << ", " << j << ") on rank " << mpi.rank();
                }
        for (int64_t j = 0; j < local_n; ++j)
            for (int64_t i = local_m; i < lld; ++i)
                ASSERT_EQ(local[std::size_t(i + j * lld)], spare);
    }
    const std::string short_lld = refusal_of([&] {
        double x = 0;
        tessera::wrap_scalapack(mpi, ProcessGrid::for_ranks(mpi.size()), &x, n, n, block, 1);
    });
    EXPECT_NE(short_lld.find("lld = 1"), std::string::npos) << short_lld;
    mpi.wait_all();
}

// posv, gesv and gemm on a distribution, rooted on rank 0 or the last rank: LAPACKE's and
// CBLAS's results within rounding, LAPACKE's pivots, and on every rank LAPACKE's info for an
// indefinite (posv) and a singular (gesv) matrix.
TEST(MpiDistributed, LapackStyleSolversAndGemmMatchLapacke)
{
    constexpr int64_t n = 120, nrhs = 7, k = 50;
    const auto spd = spd_matrix(n, 9);
    auto indefinite = spd;
    indefinite[std::size_t(40 + 40 * n)] = -1e6;
    const auto general = random_matrix(n, n, 10), rhs = random_matrix(n, nrhs, 11);
    auto singular = general;
    for (int64_t i = 0; i < n; ++i) singular[std::size_t(i + 70 * n)] = 0.0;
    const auto left = random_matrix(k, n, 12), right = random_matrix(k, nrhs, 13);

    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    for (ProcessGrid grid : grids(mpi.size())) {
        for (int root : {0, mpi.size() - 1}) {
            const bool here = mpi.rank() == root;
            auto on_root = [&](std::vector<double> const& x) {
                return here ? x : std::vector<double>{};
            };
            for (std::vector<double> const* a_in : std::array{&spd, &std::as_const(indefinite)}) {
                std::vector<double> a = on_root(*a_in), b = on_root(rhs);
                std::vector<double> oa = *a_in, ob = rhs;
                const int64_t expected =
                    LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', n, nrhs, oa.data(), n, ob.data(), n);
                EXPECT_EQ(tessera::posv(mpi, grid, tessera::Uplo::lower, n, nrhs, a.data(), n,
                                        b.data(), n, root, nb),
                          expected)
                    << "posv on rank " << mpi.rank();
                if (here && expected == 0) {
                    for (std::size_t e = 0; e < ob.size(); ++e)
                        ASSERT_NEAR(b[e], ob[e], 1e-10) << e;
                }
            }
            for (std::vector<double> const* a_in : std::array{&general, &std::as_const(singular)}) {
                std::vector<double> a = on_root(*a_in), b = on_root(rhs);
                std::vector<int64_t> ipiv(std::size_t(n), -1);
                std::vector<double> oa = *a_in, ob = rhs;
                std::vector<lapack_int> opiv(static_cast<std::size_t>(n));
                const int64_t expected = LAPACKE_dgesv(LAPACK_COL_MAJOR, n, nrhs, oa.data(), n,
                                                       opiv.data(), ob.data(), n);
                EXPECT_EQ(tessera::gesv(mpi, grid, n, nrhs, a.data(), n, ipiv.data(), b.data(), n,
                                        root, nb),
                          expected)
                    << "gesv on rank " << mpi.rank();
                if (!here) continue;
                for (std::size_t i = 0; i < opiv.size(); ++i) ASSERT_EQ(ipiv[i], opiv[i]) << i;
                if (expected == 0) {
                    for (std::size_t e = 0; e < ob.size(); ++e) ASSERT_NEAR(b[e], ob[e], 1e-9) << e;
                }
            }
            // C = 2 Lᵀ R - C, L k x n and R k x nrhs
            std::vector<double> c = on_root(rhs), oc = rhs;
            tessera::gemm(mpi, grid, tessera::Op::trans, tessera::Op::notrans, n, nrhs, k, 2.0,
                          here ? left.data() : nullptr, k, here ? right.data() : nullptr, k, -1.0,
                          c.data(), n, root, nb);
            cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, n, nrhs, k, 2.0, left.data(), k,
                        right.data(), k, -1.0, oc.data(), n);
            if (here) {
                for (std::size_t e = 0; e < oc.size(); ++e) ASSERT_NEAR(c[e], oc[e], 1e-12) << e;
            }
        }
    }
}

// scatter from the last rank then gather on rank 0 returns the array, on every grid; bad
// grids and roots are named.
TEST(MpiDistributed, ScatterThenGatherReturnsTheArray)
{
    constexpr int64_t m = 75, n = 66, lda = 80;
    std::vector<double> a(std::size_t(lda * n));
    for (std::size_t e = 0; e < a.size(); ++e) a[e] = double(e);
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    const int last = mpi.size() - 1;
    for (ProcessGrid grid : grids(mpi.size())) {
        TileMatrix<double> A(r, m, n, nb);
        tessera::distribute(mpi, A, grid);
        tessera::scatter(mpi, mpi.rank() == last ? a.data() : nullptr, lda, last, A);
        std::vector<double> back(std::size_t(lda * n), -1.0);
        tessera::gather(mpi, A, back.data(), lda, 0);
        mpi.wait_all();
        if (mpi.rank() != 0) continue;
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < lda; ++i)
                ASSERT_EQ(back[std::size_t(i + j * lda)],
                          i < m ? a[std::size_t(i + j * lda)] : -1.0)
                    << i << ", " << j;
    }
    TileMatrix<double> A(r, m, n, nb);
    const std::string bad_grid = refusal_of([&] {
        tessera::distribute(mpi, A, ProcessGrid{mpi.size() + 1, 1});
    });
    EXPECT_NE(bad_grid.find("grid"), std::string::npos) << bad_grid;
    tessera::distribute(mpi, A, ProcessGrid::for_ranks(mpi.size()));
    const std::string bad_root = refusal_of([&] { tessera::gather(mpi, A, a.data(), lda, -1); });
    EXPECT_NE(bad_root.find("root: -1"), std::string::npos) << bad_root;
    mpi.wait_all();
}

using Tile = rt::Matrix<double>;
const rt::Codelet<Tile> explode_cl{.name = "test_explode",
                                   .cpu = [](Tile) { throw std::runtime_error("tile exploded"); }};
const rt::Codelet<rt::Matrix<const double>, Tile> add_cl{
    .name = "test_add", .cpu = [](rt::Matrix<const double> x, Tile y) {
        for (int64_t e = 0; e < y.m * y.n; ++e) y.ptr[e] += x.ptr[e];
    }};

const rt::Codelet<Tile, double> fill_cl{.name = "test_fill", .cpu = [](Tile y, double x) {
                                            for (int64_t e = 0; e < y.m * y.n; ++e) y.ptr[e] = x;
                                        }};

/// Runs wait_all, which must throw on every rank with a message naming the failure of the
/// task of `last`'s: the task's own exception there, "rank <last> failed" elsewhere.
void expect_the_failure_everywhere(rt::mpi::Context& mpi, char const* when)
{
    const int last = mpi.size() - 1;
    // std::exception: the task's own exception on the last rank
    const std::string what = tessera::test::epoch_failure<std::exception>(mpi);
    EXPECT_NE(what.find("tile exploded"), std::string::npos) << when << ": " << what;
    if (mpi.rank() != last) {
        EXPECT_NE(what.find("rank " + std::to_string(last) + " failed"), std::string::npos)
            << when << ": " << what;
    }
}

// The last rank's task throws; rank 0's next task needs what it wrote, so without a word from
// the last rank, rank 0 would wait for it forever. Every rank's wait_all throws instead,
// naming the failure. What the failed task wrote stays failed: a later task that reads it
// fails the same way (on every rank, no hang) until it is written again.
TEST(MpiDistributed, AFailingTaskReachesEveryRanksWait)
{
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    const int last = mpi.size() - 1;
    std::vector<double> x(16, 1.0), y(16, 0.0), z(16, 0.0);
    rt::Handle hx{r, Tile{x.data(), 4, 4, 4}};
    rt::Handle hy{r, Tile{y.data(), 4, 4, 4}};
    rt::Handle hz{r, Tile{z.data(), 4, 4, 4}};
    mpi.register_data(hx, last);
    mpi.register_data(hy, 0);
    mpi.register_data(hz, 0);
    mpi.submit(explode_cl, readwrite(hx));
    mpi.submit(add_cl, read(hx), readwrite(hy));
    expect_the_failure_everywhere(mpi, "the failing task");
    EXPECT_EQ(y[0], 0.0) << "the task after the failure ran on rank " << mpi.rank();
    mpi.submit(add_cl, read(hx), readwrite(hz));  // hx is still the failed task's
    expect_the_failure_everywhere(mpi, "a read of its output later");
    EXPECT_EQ(z[0], 0.0) << "a task read the failed output on rank " << mpi.rank();
    // written again, the data flows again
    mpi.submit(fill_cl, write(hx), rt::value(3.0));
    mpi.submit(fill_cl, write(hy), rt::value(5.0));
    mpi.submit(add_cl, read(hx), readwrite(hy));
    mpi.wait_all();
    hy.unregister();
    if (mpi.rank() == 0) { EXPECT_EQ(y[0], 8.0); }
}

// The same when the failure is known before the send of the failed output is asked for (the
// last rank waits for its task first): that send is not made, and its pack task, cancelled
// with the data, leaves nothing waiting for it.
TEST(MpiDistributed, AFailureBeforeTheSendOfItsOutputReachesEveryRanksWait)
{
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    const int last = mpi.size() - 1;
    std::vector<double> x(4096, 1.0), y(4096, 0.0);  // 32 KB: sent from the tile itself
    rt::Handle hx{r, Tile{x.data(), 64, 64, 64}};
    rt::Handle hy{r, Tile{y.data(), 64, 64, 64}};
    mpi.register_data(hx, last);
    mpi.register_data(hy, 0);
    mpi.submit(explode_cl, readwrite(hx));
    if (mpi.rank() == last) {
        try {
            r.wait_all();
            ADD_FAILURE() << "the task did not fail";
        } catch (std::exception const&) {}
    }
    mpi.submit(add_cl, read(hx), readwrite(hy));
    expect_the_failure_everywhere(mpi, "the failing task");
    EXPECT_EQ(y[0], 0.0) << "the task after the failure ran on rank " << mpi.rank();
}

// Rank 0 submits a task the others do not, and rank 1 one that reads rank 0's tile, so that it
// waits for a message rank 0 never sends: wait_all finds the difference first, on every rank,
// and nothing hangs.
TEST(MpiDistributed, DifferentFlowsOnTheRanksAreNamed)
{
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    std::vector<double> x(16, 1.0), y(16, 0.0);
    rt::Handle hx{r, Tile{x.data(), 4, 4, 4}};
    rt::Handle hy{r, Tile{y.data(), 4, 4, 4}};
    mpi.register_data(hx, 0);
    mpi.register_data(hy, mpi.size() - 1);
    if (mpi.rank() == 0) mpi.submit(add_cl, read(hx), readwrite(hx));
    if (mpi.rank() == 1) mpi.submit(add_cl, read(hx), readwrite(hy));
    if (mpi.size() == 1) {  // one rank cannot differ from itself
        mpi.wait_all();
        return;
    }
    const std::string what = refusal_of([&] { mpi.wait_all(); });
    EXPECT_NE(what.find("different task flows"), std::string::npos) << what;
    mpi.wait_all();  // the next epoch is clean
}

// A task that writes tiles of two ranks runs on the owner of the first it writes, which
// receives the other and sends it back: both owners end with the swapped data.
TEST(MpiDistributed, ATaskWritingTwoRanksTilesRunsOnTheFirstsOwner)
{
    const rt::Codelet<Tile, Tile> swap_cl{.name = "test_swap", .cpu = [](Tile a, Tile b) {
                                              for (int64_t e = 0; e < a.m * a.n; ++e)
                                                  std::swap(a.ptr[e], b.ptr[e]);
                                          }};
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    const int last = mpi.size() - 1;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> x(16, mpi.rank() == 0 ? 1.0 : nan), y(16, mpi.rank() == last ? 2.0 : nan);
    rt::Handle hx{r, Tile{x.data(), 4, 4, 4}};
    rt::Handle hy{r, Tile{y.data(), 4, 4, 4}};
    mpi.register_data(hx, 0);
    mpi.register_data(hy, last);
    const bool ran = bool(mpi.submit(swap_cl, readwrite(hx), readwrite(hy)));
    EXPECT_EQ(ran, mpi.rank() == 0);
    mpi.wait_all();
    hx.unregister();
    hy.unregister();
    if (mpi.rank() == 0) { EXPECT_EQ(x[0], 2.0); }
    if (mpi.rank() == last) { EXPECT_EQ(y[15], 1.0); }
}

}  // namespace
