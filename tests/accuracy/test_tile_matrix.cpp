// Checks the pieces every tile algorithm stands on, in the four precisions and on every
// scheduler of the sweep: TileMatrix (the tile sizes at the edges when nb does not divide m or
// n, contiguous tile storage, sub() views that read and write the right tiles, wrap() working
// in place on a LAPACK array with lda > m, with_tiles_at's tiles in place and in storage of
// its own, with_local_tiles' local tiles together and the others costing memory only where
// written, bad arguments throwing InvalidArgument); the layout
// conversions (lapack_to_tiles / tiles_to_lapack round trip with lda > m, the rows below m
// untouched); the generators (generate_random reproducible and independent of nb,
// generate_hpd Hermitian with eigenvalues from 1 down to exactly 1/kappa, checked by LAPACK's
// heev/syev in double); and norm() of each kind against a host computation, NaN propagation
// and no overflow in the Frobenius norm included, and norm_async chained in a sequence.
#include "accuracy/accuracy.hpp"

#include <lapacke.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <type_traits>

namespace tessera::test {
namespace {

using tessera::Norm;

/// Bitwise equality of the m x n parts (NaNs included).
template <Scalar T> bool same_entries(Dense<T> const& a, Dense<T> const& b)
{
    if (a.m != b.m || a.n != b.n) return false;
    for (int64_t j = 0; j < a.n; ++j)
        for (int64_t i = 0; i < a.m; ++i)
            if (std::memcmp(&a(i, j), &b(i, j), sizeof(T)) != 0) return false;
    return true;
}

/// A(i0:i0+m, j0:j0+n) as a new matrix.
template <Scalar T> Dense<T> block(Dense<T> const& A, int64_t i0, int64_t j0, int64_t m, int64_t n)
{
    Dense<T> B(m, n);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) B(i, j) = A(i0 + i, j0 + j);
    return B;
}

class TileMatrixAccuracy : public AccuracySweep {};

TEST_P(TileMatrixAccuracy, TileSizesAtTheEdges)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        struct Shape {
            int64_t m, n, nb;
        };
        for (Shape sh : {Shape{10, 7, 4}, Shape{7, 10, 3}, Shape{8, 8, 4}, Shape{5, 3, 8},
                         Shape{0, 4, 2}, Shape{4, 0, 2}, Shape{1, 1, 1}}) {
            tessera::TileMatrix<T> A{*rt, sh.m, sh.n, sh.nb};
            const auto where = ::testing::Message() << sh.m << " x " << sh.n << ", nb=" << sh.nb;
            EXPECT_EQ(A.m(), sh.m) << where;
            EXPECT_EQ(A.n(), sh.n) << where;
            EXPECT_EQ(A.nb(), sh.nb) << where;
            EXPECT_EQ(A.mt(), (sh.m + sh.nb - 1) / sh.nb) << where;
            EXPECT_EQ(A.nt(), (sh.n + sh.nb - 1) / sh.nb) << where;
            EXPECT_EQ(A.owns_storage(), sh.m * sh.n > 0) << where;  // no storage for no entry
            int64_t rows = 0, cols = 0;
            for (int64_t i = 0; i < A.mt(); ++i) rows += A.tile_m(i);
            for (int64_t j = 0; j < A.nt(); ++j) cols += A.tile_n(j);
            EXPECT_EQ(rows, sh.m) << where;
            EXPECT_EQ(cols, sh.n) << where;
            for (int64_t j = 0; j < A.nt(); ++j)
                for (int64_t i = 0; i < A.mt(); ++i) {
                    EXPECT_EQ(A.tile_m(i), std::min(sh.nb, sh.m - i * sh.nb)) << where;
                    EXPECT_EQ(A.tile_n(j), std::min(sh.nb, sh.n - j * sh.nb)) << where;
                    const rt::Matrix<T> v = A(i, j).view();
                    EXPECT_EQ(v.m, A.tile_m(i)) << where << " tile " << i << "," << j;
                    EXPECT_EQ(v.n, A.tile_n(j)) << where << " tile " << i << "," << j;
                    EXPECT_EQ(v.ld, A.tile_m(i)) << "tile storage is contiguous, " << where;
                }
            EXPECT_THROW((void)A(A.mt(), 0), tessera::InvalidArgument) << where;
            EXPECT_THROW((void)A(0, A.nt()), tessera::InvalidArgument) << where;
            EXPECT_THROW((void)A(-1, 0), tessera::InvalidArgument) << where;
        }
    });
}

TEST_P(TileMatrixAccuracy, SubViewsReadAndWriteTheirTiles)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t m = 10, n = 11, nb = 3;  // tile rows 3 3 3 1, tile columns 3 3 3 2
        const Dense<T> D = random_dense<T>(m, n, 1);
        auto A = tessera::tile_copy_of(*rt, D.data(), m, n, D.ld, nb);

        auto V = A.sub(1, 2, 3, 2);  // rows 3..9, columns 6..10
        EXPECT_EQ(V.m(), 7);
        EXPECT_EQ(V.n(), 5);
        EXPECT_EQ(V.mt(), 3);
        EXPECT_EQ(V.nt(), 2);
        EXPECT_EQ(V.tile_m(2), 1);
        EXPECT_EQ(V.tile_n(1), 2);
        EXPECT_EQ(&V(0, 0), &A(1, 2));
        EXPECT_EQ(&V(2, 1), &A(3, 3));
        EXPECT_TRUE(same_entries(to_dense(V), block(D, 3, 6, 7, 5))) << "reading through a view";

        const Dense<T> W = random_dense<T>(7, 5, 2);
        tessera::lapack_to_tiles(W.data(), W.ld, V);  // writes the view's tiles only
        Dense<T> expected = D;
        for (int64_t j = 0; j < 5; ++j)
            for (int64_t i = 0; i < 7; ++i) expected(3 + i, 6 + j) = W(i, j);
        EXPECT_TRUE(same_entries(to_dense(A), expected)) << "writing through a view";

        auto VV = V.sub(1, 1, 2, 1);  // a view of a view: tiles (2..3, 3) of A
        EXPECT_EQ(&VV(0, 0), &A(2, 3));
        EXPECT_EQ(VV.m(), 4);
        EXPECT_EQ(VV.n(), 2);
        EXPECT_TRUE(same_entries(to_dense(VV), block(expected, 6, 9, 4, 2)));
        EXPECT_EQ(A.sub(0, 0, 0, 0).m(), 0);
        EXPECT_EQ(A.sub(0, 0, 0, 0).n(), 0);
        EXPECT_EQ(A.sub(1, 1, 0, 2).m(), 0);  // no tile rows: 0 x 6
        EXPECT_EQ(A.sub(1, 1, 0, 2).n(), 6);
        EXPECT_EQ(A.sub(2, 2, 2, 2).m(), 4);  // through the last, short tiles
        EXPECT_EQ(A.sub(2, 2, 2, 2).n(), 5);

        // The norm of a view is the norm of its block.
        const double host = norm1(block(expected, 3, 6, 7, 5));
        EXPECT_NEAR(double(tessera::norm(Norm::one, V)), host, 1e-5 * host);

        EXPECT_THROW((void)V.sub(0, 0, 4, 1), tessera::InvalidArgument);
        EXPECT_THROW((void)V.sub(0, 1, 1, 2), tessera::InvalidArgument);
        EXPECT_THROW((void)A.sub(-1, 0, 1, 1), tessera::InvalidArgument);
        EXPECT_THROW((void)A.sub(0, 0, 1, -1), tessera::InvalidArgument);

        // A view keeps the storage alive after the matrix it came from is gone.
        tessera::TileMatrix<T> kept;
        {
            auto B = tessera::tile_copy_of(*rt, D.data(), m, n, D.ld, nb);
            kept = B.sub(3, 3, 1, 1);
        }
        EXPECT_TRUE(same_entries(to_dense(kept), block(D, 9, 9, 1, 2)));
    });
}

TEST_P(TileMatrixAccuracy, WrapWorksInPlace)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t m = 10, n = 7, lda = 13, nb = 4;
        Dense<T> D = random_dense<T>(m, n, 3, lda);  // rows m..lda-1 hold values too
        const Dense<T> D0 = D;
        {
            auto W = tessera::TileMatrix<T>::wrap(*rt, D.data(), m, n, lda, nb);
            EXPECT_FALSE(W.owns_storage());
            EXPECT_EQ(W.mt(), 3);
            EXPECT_EQ(W.nt(), 2);
            const rt::Matrix<T> v = W(2, 1).view();
            EXPECT_EQ(v.ptr, D.data() + 8 + 4 * lda);
            EXPECT_EQ(v.m, 2);
            EXPECT_EQ(v.n, 3);
            EXPECT_EQ(v.ld, lda);
            EXPECT_TRUE(same_entries(to_dense(W), block(D0, 0, 0, m, n)));
            tessera::scale(T(2), W);  // tasks write the array itself
        }                             // unregistered: the array holds the result
        bool scaled = true, padding_kept = true;
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t i = 0; i < m; ++i) scaled = scaled && D(i, j) == T(2) * D0(i, j);
            for (int64_t i = m; i < lda; ++i) padding_kept = padding_kept && D(i, j) == D0(i, j);
        }
        EXPECT_TRUE(scaled);
        EXPECT_TRUE(padding_kept);
    });
}

// with_tiles_at: the tiles given a home are views of it (their own leading dimension), the
// others live in the matrix's storage; a scale writes both kinds, and the homes' spare rows
// stay as they were. A leading dimension below a tile's rows is refused, naming the tile.
TEST_P(TileMatrixAccuracy, WithTilesAtWorksInPlaceAndInItsOwnStorage)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t m = 10, n = 7, nb = 4, ld = 6;  // tiles (i, j) with i + j even have a home
        Dense<T> D = random_dense<T>(m, n, 5);
        std::vector<Dense<T>> homes;
        for (int64_t j = 0; j < 2; ++j)
            for (int64_t i = 0; i < 3; ++i) homes.push_back(random_dense<T>(ld, nb, 9, ld));
        auto home_of = [&](int64_t i, int64_t j) -> Dense<T>& {
            return homes[std::size_t(i + 3 * j)];
        };
        const std::vector<Dense<T>> homes0 = homes;
        {
            auto A = tessera::TileMatrix<T>::with_tiles_at(
                *rt, m, n, nb,
                [&](int64_t i, int64_t j) -> typename tessera::TileMatrix<T>::TileHome {
                    if ((i + j) % 2 != 0) return {};
                    return {home_of(i, j).data(), ld};
                });
            EXPECT_TRUE(A.owns_storage());
            EXPECT_EQ(A(2, 0).view().ptr, home_of(2, 0).data());
            EXPECT_EQ(A(2, 0).view().ld, ld);
            EXPECT_EQ(A(1, 0).view().ld, 4);
            tessera::lapack_to_tiles(D.data(), D.ld, A);
            tessera::scale(T(2), A);
            EXPECT_TRUE(same_entries(to_dense(A), [&] {
                Dense<T> twice = D;
                for (int64_t j = 0; j < n; ++j)
                    for (int64_t i = 0; i < m; ++i) twice(i, j) = T(2) * D(i, j);
                return twice;
            }()));
        }  // unregistered: the homes hold their tiles of 2 D
        for (int64_t j = 0; j < 2; ++j)
            for (int64_t i = 0; i < 3; ++i) {
                if ((i + j) % 2 != 0) continue;
                const int64_t mb = std::min(nb, m - i * nb), nbj = std::min(nb, n - j * nb);
                for (int64_t c = 0; c < nbj; ++c)
                    for (int64_t r = 0; r < ld; ++r)
                        ASSERT_EQ(home_of(i, j)(r, c), r < mb
                                                           ? T(2) * D(i * nb + r, j * nb + c)
                                                           : homes0[std::size_t(i + 3 * j)](r, c))
                            << "tile (" << i << ", " << j << ") row " << r << " column " << c;
            }
        T x{};
        std::string refused = "no InvalidArgument";
        try {
            (void)tessera::TileMatrix<T>::with_tiles_at(*rt, 8, 8, 4, [&](int64_t, int64_t) {
                return typename tessera::TileMatrix<T>::TileHome{&x, 3};
            });
        } catch (tessera::InvalidArgument const& e) {
            refused = e.what();
        }
        EXPECT_NE(refused.find("tile (0,0): ld = 3"), std::string::npos) << refused;
    });
}

// A rank's matrix of a distribution: its tiles (here those with i + j even) one after the
// other in the matrix's own storage, the others elsewhere; every tile reads and writes.
TEST_P(TileMatrixAccuracy, WithLocalTilesKeepsTheLocalTilesTogether)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t m = 10, n = 7, nb = 4;
        auto local = [](int64_t i, int64_t j) { return (i + j) % 2 == 0; };
        Dense<T> D = random_dense<T>(m, n, 6);
        auto A = tessera::TileMatrix<T>::with_local_tiles(*rt, m, n, nb, local);
        EXPECT_TRUE(A.owns_storage());
        T const* next = A(0, 0).view().ptr;  // the local tiles follow each other
        for (int64_t j = 0; j < A.nt(); ++j)
            for (int64_t i = 0; i < A.mt(); ++i) {
                auto v = A(i, j).view();
                EXPECT_EQ(v.ld, A.tile_m(i));
                if (!local(i, j)) continue;
                EXPECT_EQ(v.ptr, next) << "tile (" << i << ", " << j << ")";
                next += A.tile_m(i) * A.tile_n(j);
            }
        for (int64_t j = 0; j < A.nt(); ++j)
            for (int64_t i = 0; i < A.mt(); ++i) {
                T const* p = A(i, j).view().ptr;
                if (!local(i, j)) { EXPECT_TRUE(p < A(0, 0).view().ptr || p >= next); }
            }
        tessera::lapack_to_tiles(D.data(), D.ld, A);
        tessera::scale(T(2), A);
        Dense<T> twice = D;
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) twice(i, j) = T(2) * D(i, j);
        EXPECT_TRUE(same_entries(to_dense(A), twice));
    });
}

TEST_P(TileMatrixAccuracy, LayoutRoundTrip)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        struct Shape {
            int64_t m, n, nb, lda, ldb;
        };
        for (Shape sh : {Shape{10, 7, 4, 13, 11}, Shape{7, 10, 3, 7, 9}, Shape{33, 33, 32, 40, 33},
                         Shape{1, 5, 2, 1, 3}, Shape{0, 3, 2, 1, 1}}) {
            const auto where = ::testing::Message() << sh.m << " x " << sh.n << ", nb=" << sh.nb;
            const Dense<T> D = random_dense<T>(sh.m, sh.n, 4, sh.lda);
            tessera::TileMatrix<T> A{*rt, sh.m, sh.n, sh.nb};
            tessera::lapack_to_tiles(D.data(), D.ld, A);
            // Each tile holds its block of the array.
            bool tiles_right = true;
            for (int64_t j = 0; j < A.nt(); ++j)
                for (int64_t i = 0; i < A.mt(); ++i) {
                    auto g = A(i, j).template acquire<rt::Mode::R>();
                    for (int64_t jj = 0; jj < A.tile_n(j); ++jj)
                        for (int64_t ii = 0; ii < A.tile_m(i); ++ii)
                            tiles_right = tiles_right &&
                                          g.view()(ii, jj) == D(i * sh.nb + ii, j * sh.nb + jj);
                }
            EXPECT_TRUE(tiles_right) << where;
            Dense<T> out(sh.m, sh.n, sh.ldb);
            const T sentinel = T(real_t<T>(12345));
            std::fill(out.a.begin(), out.a.end(), sentinel);
            tessera::tiles_to_lapack(A, out.data(), out.ld);
            EXPECT_TRUE(same_entries(out, block(D, 0, 0, sh.m, sh.n))) << where;
            bool padding_kept = true;
            for (int64_t j = 0; j < sh.n; ++j)
                for (int64_t i = sh.m; i < out.ld; ++i)
                    padding_kept = padding_kept && out(i, j) == sentinel;
            EXPECT_TRUE(padding_kept) << where;
        }
    });
}

// Conversions on one array in one sequence share its registration, so the runtime orders them:
// tiles written out to `a` and then read back from it give what was written, and a read from
// `a` before a write into it gives what `a` held. Memory that overlaps an array written
// earlier with another shape is refused, as nothing would order the two, and so is a write
// into memory read earlier with another shape; reads of reads are not.
TEST_P(TileMatrixAccuracy, ConversionsOnOneArrayInASequenceRunInOrder)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t n = 40, nb = 8;
        const Dense<T> X = random_dense<T>(n, n, 21), Y = random_dense<T>(n, n, 22);
        for (int round = 0; round < 5; ++round) {
            auto A = tiles_of(*rt, X, nb);
            tessera::TileMatrix<T> B{*rt, n, n, nb}, C{*rt, n, n, nb};
            Dense<T> a = Y;
            {
                tessera::Sequence s{*rt};
                tessera::lapack_to_tiles_async(a.data(), a.ld, C, s);  // Y, before the write below
                tessera::tiles_to_lapack_async(A, a.data(), a.ld, s);  // a = X
                tessera::lapack_to_tiles_async(a.data(), a.ld, B, s);  // X
                EXPECT_EQ(s.wait(), 0);
            }
            EXPECT_EQ(norm1_diff(to_dense(B), X), 0.0)
                << "read before the write into the array ended";
            EXPECT_EQ(norm1_diff(to_dense(C), Y), 0.0)
                << "read after the write into the array began";
            EXPECT_EQ(norm1_diff(a, X), 0.0);
        }
        auto A = tiles_of(*rt, X, nb);
        tessera::TileMatrix<T> top{*rt, n / 2, n, nb}, other_nb{*rt, n, n, nb / 2};
        Dense<T> a = Y;
        tessera::Sequence s{*rt};
        tessera::tiles_to_lapack_async(A, a.data(), a.ld, s);
        EXPECT_THROW(tessera::lapack_to_tiles_async(a.data(), a.ld, top, s),
                     tessera::InvalidArgument);
        EXPECT_THROW(tessera::lapack_to_tiles_async(a.data(), a.ld, other_nb, s),
                     tessera::InvalidArgument);
        EXPECT_EQ(s.wait(), 0);
        tessera::lapack_to_tiles_async(a.data(), a.ld, top, s);       // once waited for, any shape
        tessera::lapack_to_tiles_async(a.data(), a.ld, other_nb, s);  // reads of the same bytes
        EXPECT_EQ(s.wait(), 0);
        EXPECT_EQ(norm1_diff(to_dense(other_nb), X), 0.0);
        // Reads with two shapes, then a write with the first one: the second one's reads are
        // not ordered with it either, whichever of the two registrations comes first.
        tessera::TileMatrix<T> same_nb{*rt, n, n, nb};
        tessera::lapack_to_tiles_async(a.data(), a.ld, same_nb, s);
        tessera::lapack_to_tiles_async(a.data(), a.ld, other_nb, s);
        EXPECT_THROW(tessera::tiles_to_lapack_async(A, a.data(), a.ld, s),
                     tessera::InvalidArgument);
        EXPECT_EQ(s.wait(), 0);
        EXPECT_EQ(norm1_diff(to_dense(same_nb), X), 0.0) << "what a held";
    });
}

TEST_P(TileMatrixAccuracy, BadArgumentsThrow)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        std::vector<T> a(64);
        using TM = tessera::TileMatrix<T>;
        EXPECT_THROW((void)TM(*rt, -1, 2, 2), tessera::InvalidArgument);
        EXPECT_THROW((void)TM(*rt, 2, -1, 2), tessera::InvalidArgument);
        EXPECT_THROW((void)TM(*rt, 2, 2, 0), tessera::InvalidArgument);
        EXPECT_THROW((void)TM::wrap(*rt, a.data(), 4, 4, 3, 2),
                     tessera::InvalidArgument);  // lda < m
        EXPECT_THROW((void)TM::wrap(*rt, a.data(), 4, 4, 4, 0), tessera::InvalidArgument);  // nb
        EXPECT_THROW((void)TM::wrap(*rt, a.data(), -4, 4, 4, 2), tessera::InvalidArgument);
        T* null = nullptr;
        T const* null_read_only = nullptr;
        EXPECT_THROW((void)TM::wrap(*rt, null, 4, 4, 4, 2), tessera::InvalidArgument);
        EXPECT_THROW((void)TM::wrap(*rt, null_read_only, 4, 4, 4, 2), tessera::InvalidArgument);
        EXPECT_NO_THROW((void)TM::wrap(*rt, null, 0, 4, 1, 2));
        // read-only memory gives a matrix the tile calls can only read
        static_assert(
            std::is_same_v<decltype(TM::wrap(*rt, static_cast<T const*>(a.data()), 4, 4, 4, 2)),
                           tessera::ReadOnlyTileMatrix<T>>);
        static_assert(std::is_convertible_v<tessera::ReadOnlyTileMatrix<T> const&, TM const&>);
        static_assert(!std::is_convertible_v<tessera::ReadOnlyTileMatrix<T>&, TM&>);

        TM A{*rt, 4, 4, 2};
        EXPECT_THROW(tessera::lapack_to_tiles(a.data(), 3, A), tessera::InvalidArgument);
        EXPECT_THROW(tessera::tiles_to_lapack(A, a.data(), 3), tessera::InvalidArgument);
        EXPECT_THROW(tessera::lapack_to_tiles(static_cast<T const*>(nullptr), 4, A),
                     tessera::InvalidArgument);

        TM empty;
        EXPECT_FALSE(empty);
        EXPECT_EQ(empty.m(), 0);
        EXPECT_THROW((void)empty.runtime(), tessera::InvalidArgument);

        TM R{*rt, 4, 3, 2};
        EXPECT_THROW(tessera::generate_hpd(R, 10, 1), tessera::InvalidArgument);   // not square
        EXPECT_THROW(tessera::generate_hpd(A, 0.5, 1), tessera::InvalidArgument);  // kappa < 1
        // rounded to T, 1/kappa below eps could come out indefinite
        const double one_over_eps = 1 / double(std::numeric_limits<real_t<T>>::epsilon());
        EXPECT_THROW(tessera::generate_hpd(A, std::numeric_limits<double>::infinity(), 1),
                     tessera::InvalidArgument);
        EXPECT_THROW(tessera::generate_hpd(A, one_over_eps, 1), tessera::InvalidArgument);
        EXPECT_NO_THROW(tessera::generate_hpd(A, one_over_eps / 2, 1));

        EXPECT_THROW((void)tessera::norm(static_cast<Norm>('O'), A),
                     tessera::InvalidArgument);  // not a Norm
        EXPECT_THROW((void)tessera::norm(static_cast<Norm>('X'), TM{}), tessera::InvalidArgument);
        real_t<T> value = -1;
        EXPECT_THROW(tessera::norm_async(static_cast<Norm>('E'), A, &value,
                                         *std::make_unique<tessera::Sequence>(*rt)),
                     tessera::InvalidArgument);
        EXPECT_EQ(value, real_t<T>(-1));

        // m n elements beyond the address space; one tile of nb near INT64_MAX
        const int64_t huge = int64_t(1) << 62;
        EXPECT_THROW((void)TM(*rt, 3, huge, huge), tessera::InvalidArgument);
        TM one_tile{*rt, 5, 5, std::numeric_limits<int64_t>::max()};
        EXPECT_EQ(one_tile.mt(), 1);
        EXPECT_EQ(one_tile.nt(), 1);
        // a view's rows up to the storage's end, without (i + mt) nb overflowing
        TM tall{*rt, std::numeric_limits<int64_t>::max(), 0, huge};
        EXPECT_EQ(tall.sub(0, 0, 2, 0).m(), std::numeric_limits<int64_t>::max());
        EXPECT_EQ(tall.sub(1, 0, 1, 0).m(), std::numeric_limits<int64_t>::max() - huge);
        EXPECT_EQ(tall.sub(0, 0, 1, 0).m(), huge);
    });
}

// overlaps(): views of one matrix whose tile ranges meet; wraps of one array whose elements
// meet, exactly with one leading dimension (a column folded into the next one included), by
// address range with two.
TEST_P(TileMatrixAccuracy, OverlapsTellsWhetherTwoMatricesShareAnElement)
{
    with_precision([&]<class T>() {
        using TM = tessera::TileMatrix<T>;
        auto rt = make_runtime();
        TM P{*rt, 6, 6, 2};
        EXPECT_TRUE(P.overlaps(P));
        EXPECT_TRUE(P.sub(0, 0, 2, 2).overlaps(P.sub(1, 1, 2, 2)));
        EXPECT_FALSE(P.sub(0, 0, 1, 3).overlaps(P.sub(1, 0, 2, 3)));
        EXPECT_FALSE(P.sub(0, 0, 3, 1).overlaps(P.sub(0, 1, 3, 2)));
        EXPECT_FALSE(P.sub(0, 0, 0, 3).overlaps(P));  // an empty view shares nothing
        EXPECT_TRUE(
            P.sub(1, 1, 2, 2).sub(0, 0, 1, 1).overlaps(P.sub(1, 1, 1, 1)));  // a view of a view
        EXPECT_FALSE(P.overlaps(TM{*rt, 6, 6, 2}));                          // storage of its own
        EXPECT_FALSE(P.overlaps(TM{}));

        std::vector<T> a(8 * 8);  // lda = 8
        auto wrap = [&](int64_t offset, int64_t m, int64_t n, int64_t lda) {
            return TM::wrap(*rt, a.data() + offset, m, n, lda, 4);
        };
        auto left = wrap(0, 8, 4, 8), right = wrap(32, 8, 4, 8), top = wrap(0, 4, 8, 8),
             bottom = wrap(4, 4, 8, 8);
        EXPECT_FALSE(left.overlaps(right));
        EXPECT_FALSE(
            top.overlaps(bottom));  // their address ranges interleave, their elements do not
        EXPECT_TRUE(left.overlaps(bottom));
        EXPECT_TRUE(bottom.overlaps(left));
        EXPECT_TRUE(top.overlaps(right));
        auto folded = wrap(6, 4, 2, 8);  // rows 6-7 of columns 0 and 1, rows 0-1 of columns 1 and 2
        EXPECT_TRUE(folded.overlaps(wrap(8, 2, 1, 8)));                      // rows 0-1 of column 1
        EXPECT_FALSE(folded.overlaps(wrap(10, 2, 1, 8)));                    // rows 2-3 of column 1
        EXPECT_TRUE(folded.overlaps(wrap(15, 1, 1, 8)));                     // row 7 of column 1
        EXPECT_FALSE(folded.overlaps(wrap(26, 4, 1, 8)));                    // rows 2-5 of column 3
        EXPECT_TRUE(left.sub(1, 0, 1, 1).overlaps(bottom.sub(0, 0, 1, 1)));  // views of wraps
        EXPECT_FALSE(left.sub(0, 0, 1, 1).overlaps(bottom));
        auto other_ld = wrap(40, 2, 2, 4);  // a.data() + 40, 44 .. 46: inside right's range
        EXPECT_TRUE(other_ld.overlaps(right));
        EXPECT_FALSE(other_ld.overlaps(left));
    });
}

TEST_P(TileMatrixAccuracy, GenerateRandomIsReproducibleAndIndependentOfNb)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const int64_t m = 37, n = 23;
        tessera::TileMatrix<T> A{*rt, m, n, 5}, B{*rt, m, n, 16}, C{*rt, m, n, 5};
        tessera::generate_random(A, 42);
        {
            tessera::Sequence s{*rt};
            tessera::generate_random_async(B, 42, s);
            tessera::generate_random_async(C, 43, s);
            EXPECT_EQ(s.wait(), 0);
        }
        const Dense<T> a = to_dense(A), b = to_dense(B), c = to_dense(C);
        EXPECT_TRUE(same_entries(a, b)) << "the entries depend on the tile size";
        tessera::generate_random(A, 42);
        EXPECT_TRUE(same_entries(to_dense(A), a)) << "not reproducible";
        int64_t equal = 0;
        bool in_range = true;
        auto part_in_range = [](real_t<T> x) { return x >= real_t<T>(-0.5) && x < real_t<T>(0.5); };
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) {
                equal += a(i, j) == c(i, j);
                in_range = in_range && part_in_range(std::real(a(i, j))) &&
                           part_in_range(std::imag(a(i, j)));
            }
        EXPECT_EQ(equal, 0) << "seeds 42 and 43 give equal entries";
        EXPECT_TRUE(in_range);
        EXPECT_GT(norm1(a), 0.1 * double(m) * 0.25) << "entries far from uniform in [-0.5, 0.5)";
    });
}

/// The eigenvalues of the Hermitian A, ascending, computed in double precision.
template <Scalar T> std::vector<double> eigenvalues(Dense<T> const& A)
{
    const int64_t n = A.n;
    std::vector<double> w(static_cast<std::size_t>(n));
    if constexpr (tessera::la::is_complex_v<T>) {
        std::vector<std::complex<double>> a(static_cast<std::size_t>(n * n));
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i)
                a[std::size_t(i + j * n)] = std::complex<double>(A(i, j));
        EXPECT_EQ(LAPACKE_zheev(LAPACK_COL_MAJOR, 'N', 'L', int(n),
                                reinterpret_cast<lapack_complex_double*>(a.data()), int(n),
                                w.data()),
                  0);
    } else {
        std::vector<double> a(static_cast<std::size_t>(n * n));
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) a[std::size_t(i + j * n)] = double(A(i, j));
        EXPECT_EQ(LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'L', int(n), a.data(), int(n), w.data()), 0);
    }
    return w;
}

TEST_P(TileMatrixAccuracy, GenerateHpdIsHermitianWithTheAskedCondition)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        const double kappa = 1e3;
        // The eigenvalues of the matrix rounded to T move by about n eps_T, 1/kappa included:
        // relative to 1/kappa, about 1e-13 in double and 4e-5 in single.
        const double rel = std::is_same_v<real_t<T>, double> ? 1e-10 : 1e-3;
        for (int64_t n : {1, 2, 7, 100}) {
            const double k = n == 1 ? 1.0 : kappa;  // a 1 x 1 matrix has condition number 1
            tessera::TileMatrix<T> A{*rt, n, n, tile_for(n)}, B{*rt, n, n, n};
            tessera::generate_hpd(A, k, 5);
            tessera::generate_hpd(B, k, 5);
            const Dense<T> a = to_dense(A);
            EXPECT_TRUE(same_entries(a, to_dense(B)))
                << "the entries depend on the tile size, n=" << n;
            bool hermitian = true;
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < n; ++i)
                    hermitian = hermitian && a(i, j) == tessera::la::conj(a(j, i));
            EXPECT_TRUE(hermitian) << "n=" << n;
            const std::vector<double> w = eigenvalues(a);
            const double lo = 1.0 / k;
            EXPECT_NEAR(w.front(), lo, rel * lo) << "smallest eigenvalue, n=" << n;
            EXPECT_NEAR(w.back(), 1.0, rel) << "largest eigenvalue, n=" << n;
        }
    });
}

/// The norm of D computed on the host in double, the way LAPACK's lange defines it.
template <Scalar T> double host_norm(Norm kind, Dense<T> const& D)
{
    double r = 0;
    if (kind == Norm::one) return norm1(D);
    if (kind == Norm::inf) {
        for (int64_t i = 0; i < D.m; ++i) {
            double s = 0;
            for (int64_t j = 0; j < D.n; ++j) s += std::abs(std::complex<double>(D(i, j)));
            r = std::max(r, s);
        }
    } else if (kind == Norm::max) {
        for (int64_t j = 0; j < D.n; ++j)
            for (int64_t i = 0; i < D.m; ++i)
                r = std::max(r, std::abs(std::complex<double>(D(i, j))));
    } else {
        for (int64_t j = 0; j < D.n; ++j)
            for (int64_t i = 0; i < D.m; ++i) r += std::norm(std::complex<double>(D(i, j)));
        r = std::sqrt(r);
    }
    return r;
}

TEST_P(TileMatrixAccuracy, NormsMatchTheHost)
{
    with_precision([&]<class T>() {
        auto rt = make_runtime();
        struct Shape {
            int64_t m, n, nb;
        };
        for (Shape sh : {Shape{37, 23, 5}, Shape{23, 37, 8}, Shape{1, 1, 3}, Shape{100, 100, 32}})
            for (double magnitude : {1.0, 1e20}) {  // 1e20: squares overflow in single
                Dense<T> D = random_dense<T>(sh.m, sh.n, 6);
                for (T& x : D.a) x *= real_t<T>(magnitude);
                auto A = tessera::tile_copy_of(*rt, D.data(), sh.m, sh.n, D.ld, sh.nb);
                for (Norm kind : {Norm::one, Norm::inf, Norm::max, Norm::fro}) {
                    const double host = host_norm(kind, D), got = double(tessera::norm(kind, A));
                    EXPECT_NEAR(got, host, 10.0 * double(sh.m + sh.n) * eps<T>() * host)
                        << "norm " << char(kind) << ", " << sh.m << " x " << sh.n << ", magnitude "
                        << magnitude;
                }
            }
        tessera::TileMatrix<T> E{*rt, 0, 5, 2};
        for (Norm kind : {Norm::one, Norm::inf, Norm::max, Norm::fro}) {
            EXPECT_EQ(tessera::norm(kind, E), real_t<T>(0));
            EXPECT_EQ(tessera::norm(kind, tessera::TileMatrix<T>{}), real_t<T>(0))
                << "a matrix with no runtime";
        }

        // A NaN anywhere makes every norm NaN, as LAPACK's lange: in a tile of zeros too.
        for (bool zeros : {false, true}) {
            Dense<T> D = zeros ? Dense<T>(9, 8) : random_dense<T>(9, 8, 7);
            D(5, 4) = T(std::numeric_limits<real_t<T>>::quiet_NaN());
            auto A = tessera::tile_copy_of(*rt, D.data(), 9, 8, D.ld, 4);
            for (Norm kind : {Norm::one, Norm::inf, Norm::max, Norm::fro})
                EXPECT_TRUE(std::isnan(tessera::norm(kind, A)))
                    << "norm " << char(kind) << (zeros ? " of zeros" : "");
        }

        // Infinite entries make every norm Inf, as in lange: two of them in one tile, in two
        // tiles (merged partial sums of squares), or a complex (inf, inf), do not make a NaN.
        const real_t<T> inf = std::numeric_limits<real_t<T>>::infinity();
        for (auto [i0, j0, i1, j1] :
             {std::array<int64_t, 4>{1, 1, 2, 2}, std::array<int64_t, 4>{1, 1, 7, 6}}) {
            Dense<T> D = random_dense<T>(9, 8, 8);
            D(i0, j0) = T(inf);
            D(i1, j1) = T(-inf);
            auto A = tessera::tile_copy_of(*rt, D.data(), 9, 8, D.ld, 3);
            for (Norm kind : {Norm::one, Norm::inf, Norm::max, Norm::fro})
                EXPECT_EQ(tessera::norm(kind, A), inf)
                    << "norm " << char(kind) << ", infinities at (" << i0 << ", " << j0 << ") and ("
                    << i1 << ", " << j1 << ")";
        }
        if constexpr (is_complex_v<T>) {
            Dense<T> D(1, 1);
            D(0, 0) = T(inf, inf);
            auto A = tessera::tile_copy_of(*rt, D.data(), 1, 1, D.ld, 1);
            EXPECT_EQ(tessera::norm(Norm::fro, A), inf);
        }
    });
}

// norm_async chains with the other asynchronous calls by data: each norm sees the matrix as
// the calls before it in the sequence left it, and a view's norm is its block's.
TEST_P(TileMatrixAccuracy, NormAsyncChainsInASequence)
{
    with_precision([&]<class T>() {
        using R = real_t<T>;
        auto rt = make_runtime();
        const int64_t m = 23, n = 17, nb = 5;
        tessera::TileMatrix<T> A{*rt, m, n, nb};
        R before[4], after[4], corner = -1, corner_rows = -1;
        const Norm kinds[4] = {Norm::one, Norm::inf, Norm::max, Norm::fro};
        {
            tessera::Sequence s{*rt};
            tessera::generate_random_async(A, 11, s);
            for (int k = 0; k < 4; ++k) tessera::norm_async(kinds[k], A, &before[k], s);
            tessera::scale_async(T(-4), A, s);  // |-4 x| = 4 |x| exactly: every norm times 4
            for (int k = 0; k < 4; ++k) tessera::norm_async(kinds[k], A, &after[k], s);
            tessera::norm_async(Norm::one, A.sub(2, 1, 3, 3), &corner,
                                s);  // rows 10..22, columns 5..16
            tessera::norm_async(Norm::inf, A.sub(2, 1, 3, 3), &corner_rows, s);
            EXPECT_EQ(s.wait(), 0);
        }
        tessera::TileMatrix<T> B{*rt, m, n, nb};
        tessera::generate_random(B, 11);
        const Dense<T> D = to_dense(B);
        for (int k = 0; k < 4; ++k) {
            const double host = host_norm(kinds[k], D),
                         tol = 10.0 * double(m + n) * eps<T>() * host;
            EXPECT_NEAR(double(before[k]), host, tol)
                << "norm " << char(kinds[k]) << " before scaling";
            EXPECT_NEAR(double(after[k]), 4 * host, 4 * tol)
                << "norm " << char(kinds[k]) << " after scaling";
        }
        for (auto [kind, got] : {std::pair{Norm::one, corner}, std::pair{Norm::inf, corner_rows}}) {
            const double host = 4 * host_norm(kind, block(D, 10, 5, 13, 12));
            EXPECT_NEAR(double(got), host, 10.0 * double(m + n) * eps<T>() * host)
                << "norm " << char(kind) << " of a view";
        }
    });
}

// A failed sequence computes no norm, and a null destination is a bad argument.
TEST_P(TileMatrixAccuracy, NormAsyncOnAFailedSequenceWritesNothing)
{
    with_precision([&]<class T>() {
        using R = real_t<T>;
        auto rt = make_runtime();
        tessera::TileMatrix<T> A{*rt, 12, 12, 4};
        tessera::generate_random(A, 3);  // not positive definite: potrf fails at some k
        R value = -1;
        tessera::Sequence s{*rt};
        tessera::potrf_async(tessera::Uplo::lower, A, s);
        tessera::norm_async(Norm::fro, A, &value, s);
        EXPECT_GT(s.wait(), 0);
        EXPECT_EQ(value, R(-1)) << "a poisoned sequence computed a norm";
        tessera::TileMatrix<T> E{*rt, 0, 4, 4};
        for (auto* M : {&A, &E}) {  // a call on the sequence once it has failed
            tessera::norm_async(Norm::max, *M, &value, s);
            EXPECT_GT(s.wait(), 0);
            EXPECT_EQ(value, R(-1)) << "a norm was written on a failed sequence, m = " << M->m();
        }
        EXPECT_THROW(tessera::norm_async(Norm::one, A, static_cast<R*>(nullptr), s),
                     tessera::InvalidArgument);
    });
}

TESSERA_INSTANTIATE_ACCURACY(TileMatrixAccuracy);

/// A number from a /proc file, times `unit`: the one after the word `key`, or the file's
/// first when key is empty; 0 if unreadable.
double proc_number(char const* path, std::string const& key, double unit)
{
    std::ifstream in(path);
    std::string word;
    while (in >> word)
        if (key.empty() || word == key) {
            double x = 0;
            if (key.empty()) return std::stod(word) * unit;
            in >> x;
            return x * unit;
        }
    return 0;
}

// The other ranks' tiles cost address space, not memory: a matrix twice the size of the
// machine's memory and swap (which the kernel's overcommit heuristic refuses as one
// allocation), of which this rank owns one tile, is made; writing one of the other tiles
// (a received copy) backs that tile only.
TEST(TileMatrixMemory, TheOtherRanksTilesCostOnlyTheCopiesWritten)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "the sanitizers' shadow memory follows the mappings";
#endif
    if (proc_number("/proc/sys/vm/overcommit_memory", "", 1) == 2)
        GTEST_SKIP() << "strict overcommit (vm.overcommit_memory = 2) backs every mapping";
    const double machine = proc_number("/proc/meminfo", "MemTotal:", 1024) +
                           proc_number("/proc/meminfo", "SwapTotal:", 1024);
    ASSERT_GT(machine, 0);
    const double page = double(sysconf(_SC_PAGESIZE));
    auto resident = [&] {  // statm: the program's size, then its resident pages
        std::ifstream in("/proc/self/statm");
        double size = 0, pages = 0;
        in >> size >> pages;
        return pages * page;
    };
    const int64_t nb = 4096;
    const int64_t n = (int64_t(std::sqrt(2 * machine / sizeof(double))) / nb + 1) * nb;
    const double tile_bytes = double(nb * nb) * sizeof(double);
    tessera::rt::Runtime rt{{.ncpus = 1, .nemu = 0, .ncuda = 0, .perfmodel_dir = "none"}};
    const double before = resident();
    auto A = tessera::TileMatrix<double>::with_local_tiles(
        rt, n, n, nb, [](int64_t i, int64_t j) { return i == 0 && j == 0; });
    EXPECT_GT(double(n) * double(n) * sizeof(double), machine);
    {
        auto copy = A(1, 0).acquire<tessera::rt::Mode::W>();
        for (int64_t c = 0; c < nb; ++c)
            for (int64_t r = 0; r < nb; ++r) copy.view()(r, c) = double(r + c);
    }
    const double grown = resident() - before;
    EXPECT_LT(grown, tile_bytes + 64e6) << n << " x " << n << " in tiles of " << nb;
    EXPECT_GT(grown, tile_bytes / 2);
}

}  // namespace
}  // namespace tessera::test
