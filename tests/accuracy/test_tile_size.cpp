// The automatic tile size of the LAPACK-style calls (tessera::tile_size, docs/tile-size.md):
// an override wins for every routine; automatic sizes are multiples of 32 that leave at
// least 3 tile rows; the inverse takes larger tiles than the factorization once n is large,
// the solve smaller ones; getrf gives a tall and narrow matrix one tile column; and a runtime
// with a GPU never gets tiles too small for it.
#include "accuracy/accuracy.hpp"

#include <tessera/la/context.hpp>

namespace tessera::test {
namespace {

using tessera::Routine;

constexpr Routine tiled_routines[] = {Routine::symm, Routine::syrk,  Routine::trsm,
                                      Routine::trmm, Routine::potrf, Routine::potrs,
                                      Routine::posv, Routine::potri};

/// The library's runtime on 2 cores (and `ncuda` GPUs where there are some) for one test.
class TileSize : public testing::Test {
protected:
    void start(int ncuda)
    {
        tessera::finalize();
        tessera::init(rt::RuntimeConfig{.ncpus = 2, .nemu = 0, .ncuda = ncuda});
    }
    void TearDown() override
    {
        tessera::set_tile_size(0);
        tessera::finalize();
    }
};

TEST_F(TileSize, SetTileSizeOverridesEveryRoutine)
{
    start(0);
    tessera::set_tile_size(77);
    EXPECT_TRUE(tessera::tile_size_is_set());
    for (Routine r : tiled_routines) EXPECT_EQ(tessera::tile_size(r, 'd', 5000), 77);
    EXPECT_EQ(tessera::tile_size(Routine::gemm, 'z', 5000), 77);
    EXPECT_THROW(tessera::set_tile_size(-1), tessera::InvalidArgument);
    EXPECT_EQ(tessera::tile_size(Routine::potrf, 'd', 5000), 77)
        << "a rejected size changed the setting";
    tessera::set_tile_size(0);
    EXPECT_FALSE(tessera::tile_size_is_set());
    EXPECT_NE(tessera::tile_size(Routine::potrf, 'd', 5000), 77);
}

TEST_F(TileSize, AutomaticSizesAreMultiplesOf32WithThreeTileRows)
{
    start(0);
    for (Routine r : tiled_routines)
        for (char p : {'s', 'd', 'c', 'z'})
            for (int64_t n : {1, 2, 50, 97, 100, 500, 1000, 3000, 8000, 20000, 100000}) {
                const int64_t nb = tessera::tile_size(r, p, n),
                              rows_cap = std::max<int64_t>(32, (n + 2) / 3);
                EXPECT_GE(nb, 1) << "n=" << n;
                EXPECT_LE(nb, rows_cap) << "fewer than 3 tile rows at n=" << n;
                if (nb < rows_cap) { EXPECT_EQ(nb % 32, 0) << "n=" << n << " nb=" << nb; }
            }
}

// The measured best sizes on the 2-core reference machine (docs/tile-size.md).
TEST_F(TileSize, EachRoutineFollowsItsMeasurements)
{
    start(0);
    EXPECT_EQ(tessera::tile_size(Routine::potrf, 'd', 8000), 768);
    EXPECT_EQ(tessera::tile_size(Routine::posv, 'd', 8000), 768);
    EXPECT_EQ(tessera::tile_size(Routine::potri, 'd', 8000), 1024);
    EXPECT_EQ(tessera::tile_size(Routine::potri, 'd', 4000), 768);
    EXPECT_EQ(tessera::tile_size(Routine::potrs, 'd', 8000), 384);
    for (int64_t n : {2000, 4000, 8000}) {
        EXPECT_GT(tessera::tile_size(Routine::potri, 'd', n),
                  tessera::tile_size(Routine::potrf, 'd', n))
            << n;
        EXPECT_LT(tessera::tile_size(Routine::potrs, 'd', n),
                  tessera::tile_size(Routine::potrf, 'd', n))
            << n;
    }
}

// getrf factors a tall and narrow matrix as one tile column (one panel task over every core);
// other shapes take the size at order min(m, n); an override still wins.
TEST_F(TileSize, GetrfGivesATallNarrowMatrixOneTileColumn)
{
    start(0);
    EXPECT_EQ(tessera::tile_size(Routine::getrf, 'd', 20000, 200), 200);
    EXPECT_EQ(tessera::tile_size(Routine::getrf, 'z', 800, 200), 200);
    for (auto [m, n] :
         {std::pair<int64_t, int64_t>{700, 200}, {20000, 256}, {200, 20000}, {4000, 4000}})
        EXPECT_EQ(tessera::tile_size(Routine::getrf, 'd', m, n),
                  tessera::tile_size(Routine::getrf, 'd', std::min(m, n)))
            << m << " x " << n;
    EXPECT_EQ(tessera::tile_size(Routine::potrf, 'd', 20000, 200),
              tessera::tile_size(Routine::potrf, 'd', 200));
    tessera::set_tile_size(64);
    EXPECT_EQ(tessera::tile_size(Routine::getrf, 'd', 20000, 200), 64);
}

TEST_F(TileSize, GpusGetLargeTiles)
{
    start(1);
    bool gpu = false;
    for (rt::WorkerId w = 0; w < tessera::runtime().worker_count(); ++w)
        gpu = gpu || tessera::runtime().worker(w).arch == rt::Arch::cuda;
    if (!gpu) GTEST_SKIP() << "no GPU";
    for (Routine r : tiled_routines)
        for (char p : {'s', 'd', 'c', 'z'}) {
            EXPECT_GE(tessera::tile_size(r, p, 40000), tessera::gpu_min_tile_size) << "n=40000";
            EXPECT_EQ(tessera::tile_size(r, p, 2000), 2002 / 3)
                << "3 tile rows still win at n=2000";
        }
}

}  // namespace
}  // namespace tessera::test
