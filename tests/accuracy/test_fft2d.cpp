// Checks the 2D transforms and the large 1D one (fft/) in both precisions against FFTW's own
// plans called directly as the oracle (and, for one small size, a direct DFT summed in long double): the
// relative L2 error ||y - y_ref||_2 / ||y_ref||_2 stays under 5 log2(N) eps; a forward then a
// backward transform returns N times the input; the half-spectrum of a real array is FFTW's
// and its c2r inverts it; in place and out of place; sizes that are powers of two, primes and
// composites, 1 x N, N x 1 and 1 x 1, through the sequential path (small) and the tasks
// (large); batches of 1D and 2D transforms with gaps between them left alone; the tile forms on tile storage (the gather paths) and chained with the linear
// algebra in one Sequence; the plans through the C API; FFTW_MEASURE never touching the
// arrays; bad arguments rejected naming them. Swept over the schedulers with 0 and 2 emulated
// devices (and a simulated GPU in the cuda variant).
#include "accuracy/accuracy.hpp"
#include "common/fftw_oracle.hpp"

#include <tessera/fft/fft2d.hpp>
#include <tessera/tessera.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <random>
#include <type_traits>
#include <vector>

namespace tessera::test {
namespace {

namespace fft = tessera::fft;
template <class R> using Cx = std::complex<R>;

/// The FFT sweep: single and double precision x the schedulers x emulated devices.
std::vector<AccuracyParam> fft_params()
{
    std::vector<AccuracyParam> v;
    for (AccuracyParam const& p : accuracy_params())
        if (p.precision == 's' || p.precision == 'd') v.push_back(p);
    return v;
}

class Fft2d : public AccuracySweep {
protected:
    template <class F> void with_real(F&& f) const
    {
        if (GetParam().precision == 's')
            f.template operator()<float>();
        else
            f.template operator()<double>();
    }
};

/// The bound on the relative L2 error of an N-point transform: 5 log2(N) eps (at least 5 eps).
template <class R> double bound(int64_t n0, int64_t n1)
{
    return 5.0 * std::max(1.0, std::log2(double(n0) * double(n1))) *
           double(std::numeric_limits<R>::epsilon());
}

template <class T> std::vector<T> random_array(std::size_t count, uint64_t seed)
{
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<T> v(count);
    for (T& x : v) {
        if constexpr (std::is_floating_point_v<T>)
            x = T(u(g));
        else
            x = T(typename T::value_type(u(g)), typename T::value_type(u(g)));
    }
    return v;
}

/// True when `text` holds `part` (the messages of bad arguments name them).
bool contains(std::string const& text, char const* part)
{
    return text.find(part) != std::string::npos;
}

/// The message of the InvalidArgument that f() throws, or "no exception".
template <class F> std::string message(F&& f)
{
    try {
        f();
    } catch (InvalidArgument const& e) {
        return e.what();
    }
    return "no exception";
}

/// ||y - ref||_2 / ||ref||_2 over `count` entries (0 when both are zero; NaN shows as NaN).
template <class T> double relative_error(T const* y, T const* ref, std::size_t count)
{
    long double num = 0, den = 0;
    for (std::size_t i = 0; i < count; ++i) {
        num += std::norm(std::complex<long double>(y[i]) - std::complex<long double>(ref[i]));
        den += std::norm(std::complex<long double>(ref[i]));
    }
    return den == 0 ? double(std::sqrt(num)) : double(std::sqrt(num / den));
}

/// The n0 x n1 complex array as the n1 x n0 column-major matrix the tile forms take is the
/// same memory: these copy it into and out of a TileMatrix of tile storage.
template <class T>
TileMatrix<T> tiles_of(rt::Runtime& rt, std::vector<T> const& x, int64_t rows, int64_t cols,
                       int64_t nb)
{
    TileMatrix<T> A(rt, rows, cols, nb);
    lapack_to_tiles(x.data(), std::max<int64_t>(rows, 1), A);
    return A;
}
template <class T> std::vector<T> array_of(TileMatrix<T> const& A)
{
    std::vector<T> x(std::size_t(A.m() * A.n()));
    tiles_to_lapack(A, x.data(), std::max<int64_t>(A.m(), 1));
    return x;
}

/// (n0, n1) pairs: primes, composites, powers of two, degenerate shapes; the large ones run
/// as tasks (at least fft::direct_points points), the others on the calling thread.
/// The cuda variant leaves out the longest lines, which the plain variant covers: they would
/// mostly time the sanitizer trees' simulated GPU.
std::vector<std::pair<int, int>> plan_sizes()
{
    // rows of 256 = 16 x 16 points split (out of place on the cores alone: through the
    // digit-reversed order, the last tile row of 2 rows); 300 x 300 is square, so stage 2 may
    // transpose, else it splits 300 = 15 x 20
    std::vector<std::pair<int, int>> s = {{1, 1},     {7, 5},     {1, 64},    {64, 1},
                                          {1009, 17}, {17, 1009}, {128, 160}, {210, 97},
                                          {256, 130}, {300, 300}};
    if (!cuda_variant()) s.insert(s.end(), {{1, 20000}, {20000, 1}});
    if (exhaustive_sweep()) s.insert(s.end(), {{512, 512}, {1000, 999}, {2, 30011}, {243, 625}});
    return s;
}

TEST_P(Fft2d, ComplexPlansMatchFftwInAndOutOfPlace)
{
    const LibraryRuntime library(GetParam());
    with_real([&]<class R>() {
        uint64_t seed = 1;
        for (auto [n0, n1] : plan_sizes())
            for (fft::Sign sign : {fft::Sign::forward, fft::Sign::backward})
                for (bool in_place : {false, true}) {
                    SCOPED_TRACE(testing::Message()
                                 << n0 << " x " << n1 << (in_place ? " in place" : " out of place")
                                 << " sign " << int(sign));
                    const std::size_t N = std::size_t(n0) * std::size_t(n1);
                    const auto x = random_array<Cx<R>>(N, seed++);
                    const auto ref = fftw_c2c<R>(n0, n1, x, int(sign));
                    auto in = x;
                    std::vector<Cx<R>> separate(N, Cx<R>(std::nan(""), 0));
                    Cx<R>* out = in_place ? in.data() : separate.data();
                    auto plan = fft::Plan<R>::dft_2d(n0, n1, in.data(), out, sign);
                    plan.execute();
                    EXPECT_LT(relative_error(out, ref.data(), N), bound<R>(n0, n1));
                    if (!in_place) {
                        EXPECT_EQ(0, std::memcmp(in.data(), x.data(), N * sizeof(Cx<R>)))
                            << "in changed";
                    }
                }
    });
}

TEST_P(Fft2d, OneDimensionalPlansMatchFftw)
{
    const LibraryRuntime library(GetParam());
    with_real([&]<class R>() {
        // as tasks: 2^16 (256 x 256), 100000 (250 x 400), 3 2^17 (384 x 1024), a million; on the
        // calling thread: small, prime (65537) or without a divisor from 32 (2 x 32771)
        std::vector<int> sizes = {1, 7, 1000, 65536, 100000, 65537, 65542};
        if (!cuda_variant()) sizes.insert(sizes.end(), {3 << 17, 1000000});
        uint64_t seed = 300;
        for (int n : sizes)
            for (fft::Sign sign : {fft::Sign::forward, fft::Sign::backward})
                for (bool in_place : {false, true}) {
                    SCOPED_TRACE(testing::Message()
                                 << "n " << n << (in_place ? " in place" : " out of place")
                                 << " sign " << int(sign));
                    const auto x = random_array<Cx<R>>(std::size_t(n), seed++);
                    const auto ref = fftw_1d<R>(n, x, int(sign));
                    auto in = x;
                    std::vector<Cx<R>> separate(std::size_t(n), Cx<R>(std::nan(""), 0));
                    Cx<R>* out = in_place ? in.data() : separate.data();
                    fft::Plan<R>::dft_1d(n, in.data(), out, sign).execute();
                    EXPECT_LT(relative_error(out, ref.data(), std::size_t(n)), bound<R>(n, 1));
                    if (!in_place) {
                        EXPECT_EQ(0,
                                  std::memcmp(in.data(), x.data(), std::size_t(n) * sizeof(Cx<R>)))
                            << "in changed";
                    }
                }
    });
}

TEST_P(Fft2d, BatchedPlansMatchFftwAndLeaveTheGapsAlone)
{
    const LibraryRuntime library(GetParam());
    with_real([&]<class R>() {
        struct Case {
            int rank;
            int64_t n[2];
            int64_t howmany, gap;  // distance = points + gap
        };
        // small batches on the calling thread, larger ones as tasks (a block of 1D transforms
        // per task; small 2D transforms as one tile each, large ones in tiles)
        const std::vector<Case> cases = {
            {1, {8, 1}, 3, 0},    {1, {1000, 1}, 40, 5},  {1, {4096, 1}, 9, 0}, {2, {5, 7}, 4, 1},
            {2, {33, 40}, 30, 0}, {2, {130, 140}, 3, 17}, {2, {1, 300}, 70, 2}};
        uint64_t seed = 500;
        for (Case const& c : cases)
            for (bool in_place : {false, true}) {
                const int64_t points = c.rank == 1 ? c.n[0] : c.n[0] * c.n[1],
                              dist = points + c.gap;
                SCOPED_TRACE(testing::Message()
                             << "rank " << c.rank << ", " << c.n[0] << " x " << c.n[1] << ", "
                             << c.howmany << " transforms " << dist << " apart"
                             << (in_place ? ", in place" : ""));
                const std::size_t total = std::size_t(dist * c.howmany);
                const auto x = random_array<Cx<R>>(total, seed++);
                auto in = x;
                std::vector<Cx<R>> separate(total, Cx<R>(-7, 7));
                Cx<R>* out = in_place ? in.data() : separate.data();
                fft::Plan<R>::dft_many(c.rank, c.n, c.howmany, in.data(), dist, out, dist,
                                       fft::Sign::forward)
                    .execute();
                for (int64_t t = 0; t < c.howmany; ++t) {
                    const std::vector<Cx<R>> one(x.begin() + t * dist,
                                                 x.begin() + t * dist + points);
                    const auto ref = c.rank == 1
                                         ? fftw_1d<R>(int(c.n[0]), one, FFTW_FORWARD)
                                         : fftw_c2c<R>(int(c.n[0]), int(c.n[1]), one, FFTW_FORWARD);
                    EXPECT_LT(relative_error(out + t * dist, ref.data(), std::size_t(points)),
                              bound<R>(points, 1))
                        << "transform " << t;
                    for (int64_t g = points; g < dist; ++g) {
                        const Cx<R> want = in_place ? x[std::size_t(t * dist + g)] : Cx<R>(-7, 7);
                        EXPECT_EQ(out[t * dist + g], want)
                            << "gap element " << g << " of transform " << t;
                    }
                }
            }
        // bad arguments
        std::vector<Cx<R>> a(64), b(64);
        const int64_t n8[2] = {8, 8};
        using P = fft::Plan<R>;
        EXPECT_PRED2(contains, message([&] {
                         P::dft_many(3, n8, 1, a.data(), 64, b.data(), 64, fft::Sign::forward);
                     }),
                     "(rank)");
        EXPECT_PRED2(contains, message([&] {
                         P::dft_many(2, n8, 0, a.data(), 64, b.data(), 64, fft::Sign::forward);
                     }),
                     "(howmany)");
        EXPECT_PRED2(contains, message([&] {
                         P::dft_many(2, n8, 2, a.data(), 63, b.data(), 64, fft::Sign::forward);
                     }),
                     "(idist)");
        EXPECT_PRED2(contains, message([&] {
                         P::dft_many(1, n8, 2, a.data(), 8, a.data(), 16, fft::Sign::forward);
                     }),
                     "idist == odist");
    });
}

TEST_P(Fft2d, ForwardThenBackwardGivesNTimesTheInput)
{
    const LibraryRuntime library(GetParam());
    with_real([&]<class R>() {
        for (auto [n0, n1] :
             std::vector<std::pair<int, int>>{{1, 1}, {33, 31}, {256, 96}, {97, 211}}) {
            SCOPED_TRACE(testing::Message() << n0 << " x " << n1);
            const std::size_t N = std::size_t(n0) * std::size_t(n1);
            const auto x = random_array<Cx<R>>(N, 7);
            auto a = x;
            fft::Plan<R>::dft_2d(n0, n1, a.data(), a.data(), fft::Sign::forward).execute();
            fft::Plan<R>::dft_2d(n0, n1, a.data(), a.data(), fft::Sign::backward).execute();
            for (auto& v : a) v /= R(N);
            EXPECT_LT(relative_error(a.data(), x.data(), N), 2 * bound<R>(n0, n1));
        }
    });
}

TEST_P(Fft2d, RealPlansMatchFftwAndInvert)
{
    const LibraryRuntime library(GetParam());
    with_real([&]<class R>() {
        uint64_t seed = 100;
        for (auto [n0, n1] : plan_sizes())
            for (bool in_place : {false, true}) {
                SCOPED_TRACE(testing::Message()
                             << n0 << " x " << n1 << (in_place ? " in place" : " out of place"));
                const int64_t half = n1 / 2 + 1;
                const std::size_t N = std::size_t(n0) * std::size_t(n1),
                                  H = std::size_t(n0) * std::size_t(half);
                const auto x = random_array<R>(N, seed++);
                const auto ref = fftw_r2c<R>(n0, n1, x);
                // in place: rows of 2 half reals, in the half-spectrum's memory
                std::vector<Cx<R>> spectrum(H, Cx<R>(std::nan(""), 0));
                std::vector<R> real_in;
                R* in;
                if (in_place) {
                    in = reinterpret_cast<R*>(spectrum.data());
                    for (int i = 0; i < n0; ++i)
                        std::copy_n(x.data() + i * n1, n1, in + i * 2 * half);
                } else {
                    real_in = x;
                    in = real_in.data();
                }
                fft::Plan<R>::dft_r2c_2d(n0, n1, in, spectrum.data()).execute();
                EXPECT_LT(relative_error(spectrum.data(), ref.data(), H), bound<R>(n0, n1));
                // the inverse: n0 n1 x
                std::vector<R> back(in_place ? 0 : N, std::nan(""));
                R* out = in_place ? reinterpret_cast<R*>(spectrum.data()) : back.data();
                fft::Plan<R>::dft_c2r_2d(n0, n1, spectrum.data(), out).execute();
                std::vector<R> got(N);
                for (int i = 0; i < n0; ++i)
                    for (int j = 0; j < n1; ++j)
                        got[std::size_t(i) * n1 + j] =
                            out[std::size_t(i) * (in_place ? 2 * half : n1) + j] / R(N);
                EXPECT_LT(relative_error(got.data(), x.data(), N), 2 * bound<R>(n0, n1));
            }
    });
}

TEST_P(Fft2d, TileFormsOnTileStorageMatchFftw)
{
    with_real([&]<class R>() {
        auto rt = make_runtime();
        // the n0 x n1 row-major array is the n1 x n0 column-major matrix
        for (auto [n0, n1, nb] : std::vector<std::tuple<int, int, int>>{
                 {77, 100, 32}, {5, 300, 64}, {129, 3, 16}, {64, 64, 64}, {100, 100, 32}}) {
            SCOPED_TRACE(testing::Message() << n0 << " x " << n1 << ", tiles of " << nb);
            const std::size_t N = std::size_t(n0) * std::size_t(n1);
            const auto x = random_array<Cx<R>>(N, 11);
            const auto ref = fftw_c2c<R>(n0, n1, x, FFTW_FORWARD);
            auto A = tiles_of(*rt, x, n1, n0, nb);
            fft::dft_2d<R>(fft::Sign::forward, A);
            EXPECT_LT(relative_error(array_of(A).data(), ref.data(), N), bound<R>(n0, n1))
                << "in place";
            const auto in = tiles_of(*rt, x, n1, n0, nb);
            TileMatrix<Cx<R>> out(*rt, n1, n0, nb);
            fft::dft_2d<R>(fft::Sign::forward, in, out);
            EXPECT_LT(relative_error(array_of(out).data(), ref.data(), N), bound<R>(n0, n1))
                << "out of place";

            const auto xr = random_array<R>(N, 12);
            const auto rref = fftw_r2c<R>(n0, n1, xr);
            const int64_t half = n1 / 2 + 1;
            const auto real = tiles_of(*rt, xr, n1, n0, nb);
            TileMatrix<Cx<R>> spectrum(*rt, half, n0, nb);
            fft::dft_r2c_2d<R>(real, spectrum);
            EXPECT_LT(relative_error(array_of(spectrum).data(), rref.data(), rref.size()),
                      bound<R>(n0, n1))
                << "r2c";
            TileMatrix<R> back(*rt, n1, n0, nb);
            fft::dft_c2r_2d<R>(spectrum, back);
            auto got = array_of(back);
            for (auto& v : got) v /= R(N);
            EXPECT_LT(relative_error(got.data(), xr.data(), N), 2 * bound<R>(n0, n1)) << "c2r";
        }
    });
}

TEST_P(Fft2d, ChainsWithTheLinearAlgebraInOneSequence)
{
    with_real([&]<class R>() {
        auto rt = make_runtime();
        const int n0 = 96, n1 = 80;
        const std::size_t N = std::size_t(n0) * n1;
        const auto x = random_array<Cx<R>>(N, 21);
        auto A = tiles_of(*rt, x, n1, n0, 32);
        Sequence s{*rt};
        fft::dft_2d_async<R>(fft::Sign::forward, A, s);
        fft::dft_2d_async<R>(fft::Sign::backward, A, s);
        scale_async<Cx<R>>(Cx<R>(R(1) / R(N)), A, s);
        EXPECT_EQ(0, s.wait());
        EXPECT_LT(relative_error(array_of(A).data(), x.data(), N), 2 * bound<R>(n0, n1));
    });
}

TEST_P(Fft2d, MeasuredPlansLeaveTheArraysAloneAndAgree)
{
    const LibraryRuntime library(GetParam());
    with_real([&]<class R>() {
        const int n0 = 150, n1 = 128;
        const std::size_t N = std::size_t(n0) * n1;
        const auto x = random_array<Cx<R>>(N, 31);
        auto in = x;
        std::vector<Cx<R>> out(N, Cx<R>(3, 4));
        auto plan =
            fft::Plan<R>::dft_2d(n0, n1, in.data(), out.data(), fft::Sign::forward, fft::measure);
        EXPECT_EQ(0, std::memcmp(in.data(), x.data(), N * sizeof(Cx<R>))) << "planning changed in";
        EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](Cx<R> v) { return v == Cx<R>(3, 4); }))
            << "planning changed out";
        plan.execute();
        EXPECT_LT(relative_error(out.data(), fftw_c2c<R>(n0, n1, x, FFTW_FORWARD).data(), N),
                  bound<R>(n0, n1));
        // new-array execute, out of place as planned
        const auto y = random_array<Cx<R>>(N, 32);
        auto in2 = y;
        std::vector<Cx<R>> out2(N);
        plan.execute_dft(in2.data(), out2.data());
        EXPECT_LT(relative_error(out2.data(), fftw_c2c<R>(n0, n1, y, FFTW_FORWARD).data(), N),
                  bound<R>(n0, n1));
    });
}

TEST_P(Fft2d, BadArgumentsAreRejectedNamingThem)
{
    const LibraryRuntime library(GetParam());
    with_real([&]<class R>() {
        std::vector<Cx<R>> a(64), b(64);
        using P = fft::Plan<R>;
        EXPECT_PRED2(contains,
                     message([&] { P::dft_2d(0, 8, a.data(), b.data(), fft::Sign::forward); }),
                     "(n0)");
        EXPECT_PRED2(contains,
                     message([&] { P::dft_2d(8, -1, a.data(), b.data(), fft::Sign::forward); }),
                     "(n1)");
        EXPECT_PRED2(contains,
                     message([&] { P::dft_2d(8, 8, nullptr, b.data(), fft::Sign::forward); }),
                     "(in)");
        EXPECT_PRED2(contains,
                     message([&] { P::dft_2d(8, 8, a.data(), nullptr, fft::Sign::forward); }),
                     "(out)");
        EXPECT_PRED2(contains, message([&] { P::dft_2d(8, 8, a.data(), b.data(), fft::Sign(3)); }),
                     "(sign)");
        EXPECT_PRED2(contains, message([&] {
                         P::dft_2d(8, 8, a.data(), b.data(), fft::Sign::forward, 12345);
                     }),
                     "(flags)");
        EXPECT_PRED2(contains,
                     message([&] { P::dft_2d(8, 8, a.data(), a.data() + 1, fft::Sign::forward); }),
                     "overlap");
        auto plan = P::dft_2d(8, 8, a.data(), b.data(), fft::Sign::forward);
        EXPECT_PRED2(contains, message([&] { plan.execute_dft(a.data(), a.data()); }),
                     "out of place");
        EXPECT_PRED2(contains, message([&] {
                         plan.execute_dft_r2c(reinterpret_cast<R*>(a.data()), b.data());
                     }),
                     "another kind");
        // the tile forms: sizes that do not match
        auto rt = make_runtime();
        TileMatrix<Cx<R>> A(*rt, 10, 12, 4), B(*rt, 10, 13, 4);
        EXPECT_PRED2(contains, message([&] { fft::dft_2d<R>(fft::Sign::forward, A, B); }),
                     "out is 10 x 13");
        TileMatrix<R> X(*rt, 10, 12, 4);
        EXPECT_PRED2(contains, message([&] { fft::dft_r2c_2d<R>(X, A); }), "must be 6 x 12");
    });
}

/// A direct DFT of the n0 x n1 array, summed in long double: an oracle independent of FFTW.
std::vector<std::complex<long double>> direct_dft(int n0, int n1, std::vector<Cx<double>> const& x,
                                                  int sign)
{
    std::vector<std::complex<long double>> y(x.size());
    const long double two_pi = 2 * std::acos(-1.0L);
    for (int k0 = 0; k0 < n0; ++k0)
        for (int k1 = 0; k1 < n1; ++k1) {
            std::complex<long double> s = 0;
            for (int j0 = 0; j0 < n0; ++j0)
                for (int j1 = 0; j1 < n1; ++j1) {
                    const long double phase =
                        sign * two_pi *
                        ((long double)(j0 * k0 % n0) / n0 + (long double)(j1 * k1 % n1) / n1);
                    s += std::complex<long double>(x[std::size_t(j0) * n1 + j1]) *
                         std::polar(1.0L, phase);
                }
            y[std::size_t(k0) * n1 + k1] = s;
        }
    return y;
}

TEST(Fft2dDirect, TheTasksMatchADirectSumWithoutFftw)
{
    one_blas_thread_for_oracles();
    rt::Runtime rt{rt::RuntimeConfig{.ncpus = 2}};
    const int n0 = 12, n1 = 7;  // tiles of 4 x 4: the gather paths of both stages
    const auto x = random_array<Cx<double>>(std::size_t(n0) * n1, 41);
    auto A = tiles_of(rt, x, n1, n0, 4);
    fft::dft_2d<double>(fft::Sign::backward, A);
    const auto y = array_of(A);
    const auto ref = direct_dft(n0, n1, x, +1);
    long double num = 0, den = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        num += std::norm(std::complex<long double>(y[i]) - ref[i]);
        den += std::norm(ref[i]);
    }
    EXPECT_LT(double(std::sqrt(num / den)), bound<double>(n0, n1));
}

/// Threads of this process (Linux's /proc/self/task).
std::size_t thread_count()
{
    std::size_t n = 0;
    for ([[maybe_unused]] auto const& e : std::filesystem::directory_iterator("/proc/self/task"))
        ++n;
    return n;
}

// A program that uses FFTW's threads itself sets a thread count that is global to FFTW's
// planner: the plans of Tessera's tasks stay single-threaded (the tasks are the parallelism)
// and the program's count is left as it was.
TEST(Fft2dFftwThreads, AProgramsFftwThreadCountLeavesTheTasksSingleThreaded)
{
    if (cuda_variant()) GTEST_SKIP() << "a simulated GPU's streams are threads of their own";
    one_blas_thread_for_oracles();
    ASSERT_NE(fftw_init_threads(), 0);
    fftw_plan_with_nthreads(4);
    la::runtime();  // its workers start
    const std::size_t threads = thread_count();
    const int n0 = 384, n1 = 320;  // shapes of tasks that no other test plans
    const std::size_t N = std::size_t(n0) * n1;
    const auto x = random_array<Cx<double>>(N, 61);
    auto in = x;
    std::vector<Cx<double>> out(N);
    // FFTW_MEASURE: the tasks' shapes are planned (and run) now, where FFTW's estimated plans
    // of such small batches would not use threads anyway
    auto plan =
        fft::Plan<double>::dft_2d(n0, n1, in.data(), out.data(), fft::Sign::forward, fft::measure);
    plan.execute();
    EXPECT_EQ(thread_count(), threads) << "the tasks' FFTW plans started threads of their own";
    EXPECT_EQ(fftw_planner_nthreads(), 4);
    fftw_plan_with_nthreads(1);
    EXPECT_LT(relative_error(out.data(), fftw_c2c<double>(n0, n1, x, FFTW_FORWARD).data(), N),
              bound<double>(n0, n1));
}

TEST(Fft2dCApi, PlansExecuteAndReportBadArguments)
{
    one_blas_thread_for_oracles();
    const int n0 = 160, n1 = 130;
    const std::size_t N = std::size_t(n0) * n1;
    const auto x = random_array<Cx<double>>(N, 51);
    auto in = x;
    std::vector<Cx<double>> out(N);
    tessera_fft_plan p = tessera_fft_plan_dft_2d(n0, n1, in.data(), out.data(), TESSERA_FFT_FORWARD,
                                                 TESSERA_FFT_ESTIMATE);
    ASSERT_NE(p, nullptr) << tessera_last_error();
    EXPECT_EQ(0, tessera_fft_execute(p));
    EXPECT_LT(relative_error(out.data(), fftw_c2c<double>(n0, n1, x, FFTW_FORWARD).data(), N),
              bound<double>(n0, n1));
    EXPECT_EQ(TESSERA_ERROR, tessera_fft_execute_dft(p, in.data(), in.data()));
    EXPECT_PRED2(contains, tessera_last_error(), "out of place");
    tessera_fft_destroy_plan(p);

    EXPECT_EQ(nullptr, tessera_fft_plan_dft_2d(0, n1, in.data(), out.data(), TESSERA_FFT_FORWARD,
                                               TESSERA_FFT_ESTIMATE));
    EXPECT_PRED2(contains, tessera_last_error(), "(n0)");
    EXPECT_EQ(nullptr,
              tessera_fft_plan_dft_2d(n0, n1, in.data(), out.data(), 0, TESSERA_FFT_ESTIMATE));
    EXPECT_PRED2(contains, tessera_last_error(), "(sign)");
    EXPECT_EQ(nullptr, tessera_fft_plan_dft_1d(-5, in.data(), out.data(), TESSERA_FFT_FORWARD,
                                               TESSERA_FFT_ESTIMATE));
    EXPECT_PRED2(contains, tessera_last_error(), "argument 1 (n)");
    const int sizes[2] = {13, 10};
    EXPECT_EQ(nullptr, tessera_fft_plan_many_dft(2, sizes, 2, in.data(), 100, out.data(), 130,
                                                 TESSERA_FFT_FORWARD, TESSERA_FFT_ESTIMATE));
    EXPECT_PRED2(contains, tessera_last_error(), "argument 5 (idist)");
    tessera_fft_plan pm = tessera_fft_plan_many_dft(2, sizes, 2, in.data(), 130, out.data(), 130,
                                                    TESSERA_FFT_FORWARD, TESSERA_FFT_ESTIMATE);
    ASSERT_NE(pm, nullptr) << tessera_last_error();
    EXPECT_EQ(0, tessera_fft_execute(pm));
    const std::vector<Cx<double>> second(x.begin() + 130, x.begin() + 260);
    EXPECT_LT(relative_error(out.data() + 130,
                             fftw_c2c<double>(13, 10, second, FFTW_FORWARD).data(), 130),
              bound<double>(13, 10));
    tessera_fft_destroy_plan(pm);

    // 1D, as tasks (100000 = 250 x 400)
    const int n = 100000;
    const auto x1 = random_array<Cx<double>>(std::size_t(n), 53);
    auto in1 = x1;
    std::vector<Cx<double>> out1(x1.size());
    tessera_fft_plan p1 = tessera_fft_plan_dft_1d(n, in1.data(), out1.data(), TESSERA_FFT_BACKWARD,
                                                  TESSERA_FFT_ESTIMATE);
    ASSERT_NE(p1, nullptr) << tessera_last_error();
    EXPECT_EQ(0, tessera_fft_execute(p1));
    EXPECT_LT(
        relative_error(out1.data(), fftw_1d<double>(n, x1, FFTW_BACKWARD).data(), std::size_t(n)),
        bound<double>(n, 1));
    tessera_fft_destroy_plan(p1);
    EXPECT_EQ(TESSERA_ERROR, tessera_fft_execute(nullptr));

    // single precision, real forms
    const auto xr = random_array<float>(N, 52);
    auto rin = xr;
    std::vector<Cx<float>> spectrum(std::size_t(n0) * (n1 / 2 + 1));
    tessera_fftf_plan q =
        tessera_fftf_plan_dft_r2c_2d(n0, n1, rin.data(), spectrum.data(), TESSERA_FFT_ESTIMATE);
    ASSERT_NE(q, nullptr) << tessera_last_error();
    EXPECT_EQ(0, tessera_fftf_execute(q));
    const auto ref = fftw_r2c<float>(n0, n1, xr);
    EXPECT_LT(relative_error(spectrum.data(), ref.data(), ref.size()), bound<float>(n0, n1));
    tessera_fftf_destroy_plan(q);

    char* wisdom = tessera_fft_export_wisdom_to_string();
    ASSERT_NE(wisdom, nullptr);
    EXPECT_GT(std::strlen(wisdom), 0u);
    EXPECT_EQ(1, tessera_fft_import_wisdom_from_string(wisdom));
    std::free(wisdom);
    tessera_finalize();
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Sweep, Fft2d, testing::ValuesIn(fft_params()), name_of);

}  // namespace tessera::test
