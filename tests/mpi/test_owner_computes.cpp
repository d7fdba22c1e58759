// rt::mpi::Context::submit under mpirun (ctest -L mpi: 1, 2 and 4 ranks): every rank submits
// the whole task flow, the owner of what a task writes runs it, the inputs it lacks come by
// MPI and stay cached until written again. A tile Cholesky on a 2D block-cyclic distribution
// gives the factor of a single-process run of the same tasks, bit for bit, and LAPACKE's
// within rounding; the tiles other ranks own start as NaN, so a stale cached copy cannot pass.
#include "mpi/refusal.hpp"

#include <tessera/rt/mpi.hpp>
#include <tessera/tessera.hpp>

#include <cblas.h>
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

namespace rt = tessera::rt;
using tessera::test::refusal_of;

namespace {

using Tile = rt::Matrix<double>;
using ConstTile = rt::Matrix<const double>;

// the four tile kernels of the lower Cholesky, on OpenBLAS and LAPACKE directly
const rt::Codelet<Tile> potrf_cl{
    .name = "test_potrf",
    .cpu = [](Tile a) { LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', int(a.n), a.ptr, int(a.ld)); }};
const rt::Codelet<ConstTile, Tile> trsm_cl{
    .name = "test_trsm", .cpu = [](ConstTile l, Tile a) {  // A = A L^-T
        cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, int(a.m),
                    int(a.n), 1.0, l.ptr, int(l.ld), a.ptr, int(a.ld));
    }};
const rt::Codelet<ConstTile, Tile> syrk_cl{
    .name = "test_syrk", .cpu = [](ConstTile a, Tile c) {  // C -= A A^T
        cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, int(c.n), int(a.n), -1.0, a.ptr,
                    int(a.ld), 1.0, c.ptr, int(c.ld));
    }};
const rt::Codelet<ConstTile, ConstTile, Tile> gemm_cl{
    .name = "test_gemm", .cpu = [](ConstTile a, ConstTile b, Tile c) {  // C -= A B^T
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, int(c.m), int(c.n), int(a.n), -1.0,
                    a.ptr, int(a.ld), b.ptr, int(b.ld), 1.0, c.ptr, int(c.ld));
    }};

// a reduction's codelets: clear a contribution, merge one into another
const rt::Codelet<Tile> clear_cl{.name = "test_clear", .cpu = [](Tile) {}};
const rt::Codelet<Tile, ConstTile> merge_cl{.name = "test_merge", .cpu = [](Tile, ConstTile) {}};

constexpr int nt = 6, nb = 40, n = nt * nb;

/// An SPD matrix of order n, column-major, the same on every rank.
std::vector<double> spd_matrix()
{
    std::mt19937 g(11);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> a(std::size_t(n) * n);
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) a[std::size_t(i + j * n)] = a[std::size_t(j + i * n)] = u(g);
    for (int i = 0; i < n; ++i) a[std::size_t(i + i * n)] += n;
    return a;
}

/// The matrix as nt x nt tiles of nb x nb, each its own array; `keep(i, j)` says which tiles
/// get their values (the others are NaN).
struct Tiles {
    std::vector<std::vector<double>> data;
    std::vector<rt::Handle<Tile>> handles;
    Tiles(rt::Runtime& r, std::vector<double> const& a, auto keep)
    {
        for (int j = 0; j < nt; ++j)
            for (int i = 0; i < nt; ++i) {
                std::vector<double> t(std::size_t(nb) * nb,
                                      std::numeric_limits<double>::quiet_NaN());
                if (keep(i, j))
                    for (int c = 0; c < nb; ++c)
                        for (int r = 0; r < nb; ++r)
                            t[std::size_t(r + c * nb)] =
                                a[std::size_t(i * nb + r + std::size_t(j * nb + c) * n)];
                data.push_back(std::move(t));
            }
        for (auto& t : data) handles.emplace_back(r, Tile{t.data(), nb, nb, nb});
    }
    rt::Handle<Tile>& operator()(int i, int j) { return handles[std::size_t(i + j * nt)]; }
    std::vector<double> const& values(int i, int j) const { return data[std::size_t(i + j * nt)]; }
};

/// The tile Cholesky's task flow (lower), through `submit`: the runtime's, or the Context's.
template <class Submit> void cholesky(Tiles& A, Submit&& submit)
{
    for (int k = 0; k < nt; ++k) {
        submit(potrf_cl, readwrite(A(k, k)));
        for (int m = k + 1; m < nt; ++m) submit(trsm_cl, read(A(k, k)), readwrite(A(m, k)));
        for (int m = k + 1; m < nt; ++m) {
            submit(syrk_cl, read(A(m, k)), readwrite(A(m, m)));
            for (int c = k + 1; c < m; ++c)
                submit(gemm_cl, read(A(m, k)), read(A(c, k)), readwrite(A(m, c)));
        }
    }
}

/// A p x q process grid for `size` ranks (p the largest divisor at most sqrt(size)).
std::pair<int, int> grid(int size)
{
    int p = 1;
    for (int d = 1; d * d <= size; ++d)
        if (size % d == 0) p = d;
    return {p, size / p};
}

TEST(MpiOwnerComputes, DistributedCholeskyEqualsTheSingleProcessRun)
{
    const std::vector<double> a = spd_matrix();
    // the reference: the same tasks on one process
    std::vector<std::vector<double>> reference;
    {
        rt::Runtime r{{.ncpus = 1, .perfmodel_dir = "none"}};
        Tiles A(r, a, [](int, int) { return true; });
        cholesky(A, [&](auto const& cl, auto&&... args) { r.submit(cl, args...); });
        r.wait_all();
        for (auto& h : A.handles) h.unregister();
        reference = A.data;
    }
    rt::Runtime r{{.ncpus = 1, .perfmodel_dir = "none"}};
    std::optional<rt::mpi::Context> mpi{std::in_place, r};
    const int rank = mpi->rank(), size = mpi->size();
    const auto [p, q] = grid(size);
    auto owner = [p = p, q = q](int i, int j) { return (i % p) * q + (j % q); };  // 2D block-cyclic
    Tiles A(r, a, [&](int i, int j) { return owner(i, j) == rank; });
    for (int j = 0; j < nt; ++j)
        for (int i = 0; i < nt; ++i) mpi->register_data(A(i, j), owner(i, j), i + j * nt);
    int ran = 0;
    cholesky(A, [&](auto const& cl, auto&&... args) { ran += bool(mpi->submit(cl, args...)); });
    for (int j = 0; j < nt; ++j)
        for (int i = j; i < nt; ++i) mpi->get_data_on(A(i, j), 0);
    mpi->wait_all();
    for (auto& h : A.handles) h.unregister();
    const rt::mpi::TransferCounts transfers = mpi->transfers();
    // MPI_THREAD_SERIALIZED: the test's own MPI call once the progress thread has stopped
    mpi.reset();

    // each task ran on exactly one rank
    int all = 0;
    MPI_Allreduce(&ran, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(all, nt + nt * (nt - 1) / 2 * 2 + nt * (nt - 1) * (nt - 2) / 6);
    if (size > 1) {
        EXPECT_LT(ran, all) << "rank " << rank << " ran every task";
        EXPECT_GT(transfers.receives + transfers.sends, 0u);
    }
    if (rank != 0) return;
    for (int j = 0; j < nt; ++j)
        for (int i = j; i < nt; ++i)
            for (std::size_t e = 0; e < std::size_t(nb) * nb; ++e)
                ASSERT_EQ(std::memcmp(&A.values(i, j)[e], &reference[std::size_t(i + j * nt)][e],
                                      sizeof(double)),
                          0)
                    << "tile (" << i << ", " << j << ") element " << e;
    // and LAPACKE's factor of the whole matrix, within rounding
    std::vector<double> l = a;
    ASSERT_EQ(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, l.data(), n), 0);
    double worst = 0;
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i)
            worst = std::max(
                worst, std::abs(A.values(i / nb, j / nb)[std::size_t(i % nb + (j % nb) * nb)] -
                                l[std::size_t(i + j * n)]));
    EXPECT_LT(worst, 1e-10);
}

// The library's own tile Cholesky (tessera::potrf on a TileMatrix), unchanged: with the tiles
// registered on a 2D block-cyclic grid, its tasks run distributed, and the factor gathered on
// rank 0 is the single-process one, bit for bit.
TEST(MpiOwnerComputes, TheLibrarysPotrfRunsDistributedUnchanged)
{
    const std::vector<double> a = spd_matrix();
    auto fill = [&](tessera::TileMatrix<double>& A, auto keep) {
        for (int j = 0; j < nt; ++j)
            for (int i = 0; i < nt; ++i) {
                auto tile = A(i, j).acquire<rt::Mode::W>();
                for (int c = 0; c < nb; ++c)
                    for (int r = 0; r < nb; ++r)
                        tile.view()(r, c) =
                            keep(i, j) ? a[std::size_t(i * nb + r + std::size_t(j * nb + c) * n)]
                                       : std::numeric_limits<double>::quiet_NaN();
            }
    };
    auto lower_tiles = [&](tessera::TileMatrix<double>& A) {
        std::vector<double> out;
        for (int j = 0; j < nt; ++j)
            for (int i = j; i < nt; ++i) {
                auto tile = A(i, j).acquire<rt::Mode::R>();
                for (int c = 0; c < nb; ++c)
                    for (int r = 0; r < nb; ++r) out.push_back(tile.view()(r, c));
            }
        return out;
    };
    std::vector<double> reference;
    {
        rt::Runtime r{{.ncpus = 1, .perfmodel_dir = "none"}};
        tessera::TileMatrix<double> A(r, n, n, nb);
        fill(A, [](int, int) { return true; });
        ASSERT_EQ(tessera::potrf(tessera::Uplo::lower, A), 0);
        reference = lower_tiles(A);
    }
    rt::Runtime r{{.ncpus = 1, .perfmodel_dir = "none"}};
    rt::mpi::Context mpi{r};
    const auto [p, q] = grid(mpi.size());
    auto owner = [p = p, q = q](int i, int j) { return (i % p) * q + (j % q); };
    tessera::TileMatrix<double> A(r, n, n, nb);
    fill(A, [&](int i, int j) { return owner(i, j) == mpi.rank(); });
    for (int j = 0; j < nt; ++j)
        for (int i = 0; i < nt; ++i) mpi.register_data(A(i, j), owner(i, j), i + j * nt);
    const auto before = mpi.transfers();
    EXPECT_EQ(tessera::potrf(tessera::Uplo::lower, A), 0);
    for (int j = 0; j < nt; ++j)
        for (int i = j; i < nt; ++i) mpi.get_data_on(A(i, j), 0);
    mpi.wait_all();
    if (mpi.size() > 1) {  // the tiles crossed ranks
        EXPECT_GT(mpi.transfers().sends + mpi.transfers().receives, before.sends + before.receives);
    }
    if (mpi.rank() != 0) return;
    const std::vector<double> factor = lower_tiles(A);
    ASSERT_EQ(factor.size(), reference.size());
    EXPECT_EQ(std::memcmp(factor.data(), reference.data(), factor.size() * sizeof(double)), 0);
}

// A tile that rank 1 reads three times is received once; written again by its owner, it is
// received again; after invalidate, once more.
TEST(MpiOwnerComputes, ReceivedCopiesAreCachedUntilWrittenAgain)
{
    rt::Runtime r{{.ncpus = 1, .perfmodel_dir = "none"}};
    rt::mpi::Context mpi{r};
    if (mpi.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    std::vector<double> x(nb * nb, 1.0), y1(nb * nb, 0.0), y2 = y1, y3 = y1;
    rt::Handle hx{r, Tile{x.data(), nb, nb, nb}};
    rt::Handle h1{r, Tile{y1.data(), nb, nb, nb}};
    rt::Handle h2{r, Tile{y2.data(), nb, nb, nb}};
    rt::Handle h3{r, Tile{y3.data(), nb, nb, nb}};
    mpi.register_data(hx, 0, 1);
    mpi.register_data(h1, 1, 2);
    mpi.register_data(h2, 1, 3);
    mpi.register_data(h3, 1, 4);
    const auto before = mpi.transfers();
    mpi.submit(gemm_cl, read(hx), read(hx), readwrite(h1));  // hx read twice: one receive
    mpi.submit(syrk_cl, read(hx), readwrite(h2));
    mpi.submit(trsm_cl, read(hx), readwrite(h3));
    // rank 0 sends, rank 1 receives, the others move nothing
    auto expect_transfers = [&](uint64_t count, char const* when) {
        const rt::mpi::TransferCounts now = mpi.transfers();
        EXPECT_EQ(now.receives - before.receives, mpi.rank() == 1 ? count : 0) << when;
        EXPECT_EQ(now.sends - before.sends, mpi.rank() == 0 ? count : 0) << when;
    };
    expect_transfers(1, "three reads");
    mpi.submit(potrf_cl, readwrite(hx));  // runs on rank 0: the cached copies are stale
    mpi.submit(syrk_cl, read(hx), readwrite(h2));
    expect_transfers(2, "a read after the owner wrote it");
    mpi.invalidate(hx);
    mpi.submit(syrk_cl, read(hx), readwrite(h2));
    expect_transfers(3, "a read after invalidate");
    mpi.release(hx, false);  // as invalidate, the memory kept
    mpi.submit(syrk_cl, read(hx), readwrite(h2));
    expect_transfers(4, "a read after release");
    mpi.wait_all();
}

// release with give_back: the copies of the ranks other than the owner read as zeros in their
// whole pages once the tasks before it are done, and the next reader receives the data again.
TEST(MpiOwnerComputes, AReleasedCopyIsGivenBackAndReceivedAgain)
{
    rt::Runtime r{{.ncpus = 1, .perfmodel_dir = "none"}};
    rt::mpi::Context mpi{r};
    if (mpi.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    const auto page = std::size_t(sysconf(_SC_PAGESIZE));
    constexpr int64_t n = 64;  // 32 KB: whole pages inside
    void* memory = mmap(nullptr, n * n * sizeof(double), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(memory, MAP_FAILED);
    auto* x = static_cast<double*>(memory);
    std::fill(x, x + n * n, mpi.rank() == 0 ? 3.0 : -1.0);
    std::vector<double> y(n * n, 0.0);
    {
        rt::Handle hx{r, Tile{x, n, n, n}};
        rt::Handle hy{r, Tile{y.data(), n, n, n}};
        mpi.register_data(hx, 0, 1);
        mpi.register_data(hy, 1, 2);
        mpi.submit(syrk_cl, read(hx), readwrite(hy));  // rank 1 receives x
        mpi.wait_all();
        if (mpi.rank() == 1) { EXPECT_EQ(x[0], 3.0); }
        mpi.release(hx, true);
        mpi.wait_all();
        // the owner's data is the data; every other rank's copy is given back: zeros
        EXPECT_EQ(x[page / sizeof(double)], mpi.rank() == 0 ? 3.0 : 0.0);
        const auto before = mpi.transfers();
        mpi.submit(syrk_cl, read(hx), readwrite(hy));  // received again
        mpi.wait_all();
        EXPECT_EQ(mpi.transfers().receives - before.receives, mpi.rank() == 1 ? 1u : 0u);
        if (mpi.rank() == 1) { EXPECT_EQ(x[page / sizeof(double)], 3.0); }
    }
    munmap(memory, n * n * sizeof(double));
}

// A task that reads a registered handle and writes only a handle of this rank's own runs on
// every rank, each receiving the registered input it lacks (its owner's data, NaN elsewhere).
TEST(MpiOwnerComputes, ATaskWritingOnlyLocalDataRunsOnEveryRank)
{
    rt::Runtime r{{.ncpus = 1, .perfmodel_dir = "none"}};
    rt::mpi::Context mpi{r};
    std::vector<double> x(16, mpi.rank() == 0 ? 2.0 : std::numeric_limits<double>::quiet_NaN());
    std::vector<double> local(16, 0.0);
    rt::Handle hx{r, Tile{x.data(), 4, 4, 4}};
    rt::Handle hl{r, Tile{local.data(), 4, 4, 4}};
    mpi.register_data(hx, 0, 1);
    EXPECT_TRUE(mpi.submit(syrk_cl, read(hx), readwrite(hl))) << "rank " << mpi.rank();
    mpi.wait_all();
    hl.unregister();
    for (int j = 0; j < 4; ++j)  // the lower triangle of -(x x^T): -4 * 2 * 2
        for (int i = j; i < 4; ++i)
            ASSERT_EQ(local[std::size_t(i + 4 * j)], -16.0) << "rank " << mpi.rank();
}

TEST(MpiOwnerComputes, BadSubmissionsAreNamed)
{
    rt::Runtime r{{.ncpus = 1, .perfmodel_dir = "none"}};
    rt::mpi::Context mpi{r};
    std::vector<double> x(16), y(16), z(16);
    rt::Handle hx{r, Tile{x.data(), 4, 4, 4}};
    rt::Handle hy{r, Tile{y.data(), 4, 4, 4}};
    rt::Handle hz{r, Tile{z.data(), 4, 4, 4}};
    mpi.register_data(hx, 0, 1);
    mpi.register_data(hy, mpi.size() - 1, 2);
    EXPECT_NE(refusal_of([&] { mpi.register_data(hx, 0, 5); }).find("registered already"),
              std::string::npos);
    EXPECT_NE(refusal_of([&] { mpi.register_data(hz, mpi.size(), 5); }).find("owner"),
              std::string::npos);
    hx.set_reduction(clear_cl, merge_cl);
    const std::string reduction = refusal_of([&] { mpi.submit(clear_cl, reduce(hx)); });
    EXPECT_NE(reduction.find("argument 1: reductions"), std::string::npos) << reduction;
    EXPECT_EQ(mpi.transfers().sends + mpi.transfers().receives, 0u) << "a refused task moved data";
    mpi.wait_all();
}

}  // namespace
