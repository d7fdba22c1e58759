// Shared pieces of the accuracy tests (tests/accuracy): the sweep over precisions x
// schedulers x emulated devices, the sizes and tile sizes (nb never divides n), host-side
// column-major matrices and their generators, the norms the scaled residuals need
// (DESIGN.md: each residual must stay under tol = 50... 60), and what several routines'
// tests check alike (NaN where a routine must not read, the padding below m it must not
// write, the position a bad argument is reported at, the solve residual). Each
// tests/accuracy/*.cpp is its own executable: code they share lives in headers, this one,
// triangular.hpp (trmm and trsm) and common/oracle.hpp (CBLAS and LAPACKE as the oracle).
//
//     class PotrfAccuracy : public tessera::test::AccuracySweep {};
//     TEST_P(PotrfAccuracy, Residual) {
//         with_precision([&]<class T>() { ... auto rt = make_runtime(); ... });
//     }
//     TESSERA_INSTANTIATE_ACCURACY(PotrfAccuracy);
#pragma once

#include "common/exhaustive.hpp"

#include <tessera/tessera.hpp>

#include "common/oracle.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

namespace tessera::test {

namespace rt = tessera::rt;
using tessera::Diag;
using tessera::Op;
using tessera::Side;
using tessera::Uplo;
using tessera::la::is_complex_v;
using tessera::la::real_t;
using tessera::la::Scalar;
/// The references: CBLAS and LAPACKE called directly (common/oracle.hpp), never the library's
/// kernel layer.
namespace blas = tessera::test::oracle;

/// The residual bound (STYLE.md: the shared SLATE/LAPACK++/PLASMA default).
inline constexpr double tol = 50;

/// One point of the accuracy sweep.
struct AccuracyParam {
    char precision;         ///< 's', 'd', 'c', 'z'
    std::string scheduler;  ///< "eager", "ws", "dmdas" (heft-tmdp-pr)
    int nemu;               ///< emulated devices (0 or 2)
};
/// How GoogleTest prints a sweep point (in a failure and in --gtest_list_tests), e.g.
/// "{precision 'z', scheduler heft-tmdp-pr, 2 emulated devices}".
inline void PrintTo(AccuracyParam const& p, std::ostream* os)
{
    *os << "{precision '" << p.precision << "', scheduler " << p.scheduler << ", " << p.nemu
        << " emulated device" << (p.nemu == 1 ? "" : "s") << "}";
}
inline std::string name_of(testing::TestParamInfo<AccuracyParam> const& info)
{
    std::string s = info.param.scheduler;
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return std::string(1, info.param.precision) + "_" + s + "_emu" +
           std::to_string(info.param.nemu);
}
/// {s, d, c, z} x {eager, ws, heft-tmdp-pr} x {0, 2 emulated devices}; exhaustive: every
/// registered policy x {0, 1, 2 emulated devices}. Pairwise (the sanitizer trees): each
/// precision with each policy once, the i-th precision with the j-th policy on device count
/// (i + j) mod 2, so that every pair of values of any two parameters still meets: 12 points.
inline std::vector<AccuracyParam> accuracy_params()
{
    std::vector<std::string> policies = {"eager", "ws", "heft-tmdp-pr"};
    std::vector<int> devices = {0, 2};
    const bool pairwise = pairwise_sweep() && !exhaustive_sweep();
    if (exhaustive_sweep()) {
        policies = rt::policies().names();
        devices = {0, 1, 2};
    }
    const std::string precisions = "sdcz";
    std::vector<AccuracyParam> v;
    for (std::size_t i = 0; i < precisions.size(); ++i)
        for (std::size_t j = 0; j < policies.size(); ++j) {
            if (pairwise) {
                v.push_back({precisions[i], policies[j], devices[(i + j) % devices.size()]});
                continue;
            }
            for (int nemu : devices) v.push_back({precisions[i], policies[j], nemu});
        }
    return v;
}

/// The sizes every routine is tested at, and a tile size that divides none of the default ones
/// (exhaustive: more sizes up to 1500, 64 among them, which its tile divides exactly).
/// Pairwise (the sanitizer trees) ends at 500 instead of 1000: still 6 x 6 tiles of 96 with a
/// partial last one, for a quarter of the instrumented O(n^2) work (generating, copying and
/// checking), which took most of the sweep's time under ThreadSanitizer.
inline std::vector<int64_t> accuracy_sizes()
{
    if (exhaustive_sweep()) return {0, 1, 2, 7, 31, 64, 100, 257, 513, 1000, 1500};
    if (pairwise_sweep()) return {0, 1, 7, 100, 257, 500};
    return {0, 1, 7, 100, 257, 1000};
}
inline int64_t tile_for(int64_t n)
{
    return n <= 7 ? 3 : n <= 257 ? 32 : 96;
}

/// The library's runtime (behind the LAPACK-style and C forms) started with a sweep point's
/// configuration for the scope of a test.
/// Calls f.template operator()<T>() with T the precision of letter p ('s', 'd', 'c', 'z').
template <class F> void dispatch_precision(char p, F& f)
{
    switch (p) {
    case 's':
        f.template operator()<float>();
        break;
    case 'd':
        f.template operator()<double>();
        break;
    case 'c':
        f.template operator()<std::complex<float>>();
        break;
    default:
        f.template operator()<std::complex<double>>();
        break;
    }
}

class LibraryRuntime {
public:
    explicit LibraryRuntime(AccuracyParam const& p)
    {
        tessera::finalize();
        tessera::init(rt::RuntimeConfig{
            .ncpus = 2, .scheduler = p.scheduler, .nemu = p.nemu, .emu_memory = "4MB"});
    }
    ~LibraryRuntime()
    {
        tessera::set_tile_size(0);
        tessera::finalize();
    }
    LibraryRuntime(LibraryRuntime const&) = delete;
    LibraryRuntime& operator=(LibraryRuntime const&) = delete;
};

/// True under ctest's "cuda" variant (TESSERA_TEST_CUDA=1, tests/CMakeLists.txt), whose runtimes
/// have a GPU beside the cores (TESSERA_NCUDA=1).
inline bool cuda_variant()
{
    return std::getenv("TESSERA_TEST_CUDA") != nullptr;
}
/// Whether a runtime started now gets a CUDA worker (asked once per process).
inline bool gpu_answers()
{
    static const bool yes = [] {
        rt::Runtime r{rt::RuntimeConfig{.ncpus = 1}};  // the bus model of the tests' perfmodel dir
        for (rt::WorkerId w = 0; w < r.worker_count(); ++w)
            if (r.worker(w).arch == rt::Arch::cuda) return true;
        return false;
    }();
    return yes;
}

/// The host oracles run OpenBLAS on one thread: Tessera gives OpenBLAS its thread count back
/// after each call, and OpenBLAS's own threads are invisible to ThreadSanitizer.
inline void one_blas_thread_for_oracles()
{
    openblas_set_num_threads(1);
}

class AccuracySweep : public testing::TestWithParam<AccuracyParam> {
protected:
    void SetUp() override
    {
        one_blas_thread_for_oracles();
        if (cuda_variant() && !gpu_answers())
            GTEST_SKIP() << "no GPU: the cuda variant of the sweep needs one";
    }

    /// A runtime for this sweep point: 2 cores plus the emulated devices.
    std::unique_ptr<rt::Runtime> make_runtime() const
    {
        AccuracyParam const& p = GetParam();
        return std::make_unique<rt::Runtime>(rt::RuntimeConfig{
            .ncpus = 2, .scheduler = p.scheduler, .nemu = p.nemu, .emu_memory = "4MB"});
    }
    /// Calls f.template operator()<T>() with T the sweep point's precision.
    template <class F> void with_precision(F&& f) const
    {
        dispatch_precision(GetParam().precision, f);
    }
};

/// A suite over the four precisions only (no runtime sweep), e.g. for kernels and the C API.
class PrecisionSweep : public testing::TestWithParam<char> {
protected:
    void SetUp() override { one_blas_thread_for_oracles(); }
    template <class F> void with_precision(F&& f) const { dispatch_precision(GetParam(), f); }
};
#define TESSERA_INSTANTIATE_PRECISIONS(Suite)                                                      \
    INSTANTIATE_TEST_SUITE_P(                                                                      \
        Precisions, Suite, testing::Values('s', 'd', 'c', 'z'),                                    \
        [](testing::TestParamInfo<char> const& i) { return std::string(1, i.param); })
#define TESSERA_INSTANTIATE_ACCURACY(Suite)                                                        \
    INSTANTIATE_TEST_SUITE_P(Sweep, Suite, testing::ValuesIn(tessera::test::accuracy_params()),    \
                             tessera::test::name_of)

/// A column-major m x n matrix with leading dimension ld, on the host.
template <Scalar T> struct Dense {
    int64_t m = 0, n = 0, ld = 1;
    std::vector<T> a;
    Dense() = default;
    Dense(int64_t rows, int64_t cols, int64_t lead = 0)
        : m(rows), n(cols), ld(std::max<int64_t>({1, rows, lead})),
          a(std::size_t(ld * std::max<int64_t>(cols, 1)))
    {}
    T& operator()(int64_t i, int64_t j) { return a[std::size_t(i + j * ld)]; }
    T const& operator()(int64_t i, int64_t j) const { return a[std::size_t(i + j * ld)]; }
    T* data() { return a.data(); }
    T const* data() const { return a.data(); }
};

template <Scalar T> T random_value(std::mt19937_64& g)
{
    std::uniform_real_distribution<double> u(-1, 1);
    if constexpr (tessera::la::is_complex_v<T>)
        return T(real_t<T>(u(g)), real_t<T>(u(g)));
    else
        return T(u(g));
}
/// Entries uniform in [-1, 1] (real and imaginary parts), the padding below ld included.
template <Scalar T> Dense<T> random_dense(int64_t m, int64_t n, uint64_t seed, int64_t ld = 0)
{
    Dense<T> A(m, n, ld);
    std::mt19937_64 g(seed);
    for (T& x : A.a) x = random_value<T>(g);
    return A;
}
/// A Hermitian positive definite matrix, both triangles: B B^H / n + I (eigenvalues in [1, 1 + |B|^2/n]).
template <Scalar T> Dense<T> hpd_dense(int64_t n, uint64_t seed, int64_t ld = 0)
{
    Dense<T> B = random_dense<T>(n, n, seed);
    Dense<T> A(n, n, ld);
    if (n == 0) return A;
    blas::gemm<T>(tessera::la::Op::notrans, tessera::la::Op::conjtrans, n, n, n,
                  T(real_t<T>(1.0 / double(n))), B.data(), B.ld, B.data(), B.ld, T(0), A.data(),
                  A.ld);
    for (int64_t i = 0; i < n; ++i) A(i, i) = T(std::real(A(i, i)) + 1);
    return A;
}

/// ||A||_1 (max column sum), in double; NaN when A holds a NaN.
template <Scalar T> double norm1(Dense<T> const& A)
{
    double best = 0;
    for (int64_t j = 0; j < A.n; ++j) {
        double s = 0;
        for (int64_t i = 0; i < A.m; ++i) s += std::abs(std::complex<double>(A(i, j)));
        if (s > best || std::isnan(s)) best = s;  // a NaN must not vanish in the max
    }
    return best;
}
/// ||A - B||_1 over the m x n part; NaN when either holds a NaN there.
template <Scalar T> double norm1_diff(Dense<T> const& A, Dense<T> const& B)
{
    double best = 0;
    for (int64_t j = 0; j < A.n; ++j) {
        double s = 0;
        for (int64_t i = 0; i < A.m; ++i)
            s += std::abs(std::complex<double>(A(i, j)) - std::complex<double>(B(i, j)));
        if (s > best || std::isnan(s)) best = s;  // a NaN must not vanish in the max
    }
    return best;
}
/// The `uplo` triangle of A, the other set to zero (and the diagonal to 1 for a unit triangle).
template <Scalar T>
Dense<T> triangle(Dense<T> const& A, tessera::Uplo uplo,
                  tessera::Diag diag = tessera::Diag::nonunit)
{
    Dense<T> L(A.m, A.n);
    for (int64_t j = 0; j < A.n; ++j)
        for (int64_t i = 0; i < A.m; ++i) {
            const bool keep = uplo == tessera::Uplo::lower ? i >= j : i <= j;
            L(i, j) = i == j && diag == tessera::Diag::unit ? T(1) : keep ? A(i, j) : T(0);
        }
    return L;
}
/// The full Hermitian matrix whose `uplo` triangle A holds.
template <Scalar T> Dense<T> hermitian_from(Dense<T> const& A, tessera::Uplo uplo)
{
    Dense<T> H(A.n, A.n);
    for (int64_t j = 0; j < A.n; ++j)
        for (int64_t i = 0; i < A.n; ++i) {
            const bool stored = uplo == tessera::Uplo::lower ? i >= j : i <= j;
            H(i, j) = stored ? A(i, j) : tessera::la::conj(A(j, i));
        }
    for (int64_t i = 0; i < A.n; ++i) H(i, i) = T(std::real(H(i, i)));
    return H;
}

/// Machine epsilon of T, as double.
template <Scalar T> double eps()
{
    return double(tessera::la::eps<T>);
}

/// re + i im (re for a real T).
template <Scalar T> T scalar(double re, double im)
{
    if constexpr (is_complex_v<T>)
        return T(real_t<T>(re), real_t<T>(im));
    else
        return T(re);
}
/// A quiet NaN of T (real part NaN).
template <Scalar T> T nan()
{
    return T(std::numeric_limits<real_t<T>>::quiet_NaN());
}
/// True when an entry of the m x n part of X is NaN.
template <Scalar T> bool has_nan(Dense<T> const& X)
{
    for (int64_t j = 0; j < X.n; ++j)
        for (int64_t i = 0; i < X.m; ++i)
            if (std::isnan(std::abs(X(i, j)))) return true;
    return false;
}
/// ||op(A)||_1: the max column sum of A, or its max row sum when A is transposed.
template <Scalar T> double norm1_op(Dense<T> const& A, Op op)
{
    if (op == Op::notrans) return norm1(A);
    std::vector<double> rows(std::size_t(A.m), 0.0);
    for (int64_t j = 0; j < A.n; ++j)
        for (int64_t i = 0; i < A.m; ++i)
            rows[std::size_t(i)] += std::abs(std::complex<double>(A(i, j)));
    double best = 0;
    for (double r : rows) best = std::max(best, r);
    return best;
}

/// True for (i, j) in the strict triangle opposite to `uplo`.
inline bool in_other_triangle(int64_t i, int64_t j, Uplo uplo)
{
    return uplo == Uplo::lower ? i < j : i > j;
}
/// A with the strict triangle opposite to `uplo` (the one the routine must not reference)
/// set to NaN, so that reading it would show.
template <Scalar T> Dense<T> with_other_triangle_nan(Dense<T> A, Uplo uplo)
{
    for (int64_t j = 0; j < A.n; ++j)
        for (int64_t i = 0; i < A.m; ++i)
            if (in_other_triangle(i, j, uplo)) A(i, j) = nan<T>();
    return A;
}
/// Both triangles, lower then upper, but `turn` only above size 257: at the largest size of
/// the sweep a routine's tile-form and LAPACK-style tests take one triangle each, for time.
inline std::vector<Uplo> uplos_for(int64_t n, Uplo turn)
{
    if (n > 257) return {turn};
    return {Uplo::lower, Uplo::upper};
}

/// Bitwise equality (NaNs included).
template <Scalar T> bool same_bits(std::vector<T> const& a, std::vector<T> const& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}
/// True when X's rows below X.m (its padding up to ld) are those of X0, in X's n columns.
template <Scalar T> bool padding_unchanged(Dense<T> const& X, Dense<T> const& X0)
{
    bool kept = true;
    for (int64_t j = 0; j < X.n; ++j)
        for (int64_t i = X.m; i < X.ld; ++i) kept = kept && X(i, j) == X0(i, j);
    return kept;
}

/// ||A X - B||_1 / (||A||_1 ||X||_1 n eps), A the full n x n matrix, X and B n x nrhs.
template <Scalar T> double solve_residual(Dense<T> const& A, Dense<T> const& X, Dense<T> const& B)
{
    const int64_t n = A.n, nrhs = B.n;
    if (n == 0 || nrhs == 0) return 0;
    Dense<T> R = B;
    blas::gemm<T>(Op::notrans, Op::notrans, n, nrhs, n, T(-1), A.data(), A.ld, X.data(), X.ld, T(1),
                  R.data(), R.ld);
    return norm1(R) / (norm1(A) * norm1(X) * double(n) * eps<T>());
}

/// A tile copy of D's m x n part, with tile size nb.
template <Scalar T> tessera::TileMatrix<T> tiles_of(rt::Runtime& rt, Dense<T> const& D, int64_t nb)
{
    return tessera::tile_copy_of(rt, D.data(), D.m, D.n, D.ld, nb);
}
/// A tile matrix's entries on the host.
template <Scalar T> Dense<T> to_dense(tessera::TileMatrix<T> const& A)
{
    Dense<T> D(A.m(), A.n());
    tessera::tiles_to_lapack(A, D.data(), D.ld);
    return D;
}

/// The position (LAPACK's numbering) of the bad argument that call() throws
/// InvalidLapackArgument for; 0 when it throws nothing.
template <class F> int argument_position(F&& call)
{
    try {
        call();
    } catch (tessera::InvalidLapackArgument const& e) {
        return e.position();
    }
    return 0;
}

/// The LAPACK-style form of a Cholesky solve, solve(uplo, n, nrhs, a, lda, b, ldb) (posv's and
/// potrs's arguments), throws InvalidLapackArgument naming each bad argument's position, and
/// nothing for an empty system with null arrays.
template <Scalar T, class Solve> void expect_solve_arguments_named(Solve const& solve)
{
    std::vector<T> a(16), b(16);
    T* const null = nullptr;
    auto position = [&](Uplo uplo, int64_t n, int64_t nrhs, T* pa, int64_t lda, T* pb,
                        int64_t ldb) {
        return argument_position([&] { solve(uplo, n, nrhs, pa, lda, pb, ldb); });
    };
    EXPECT_EQ(position(Uplo('X'), 4, 1, a.data(), 4, b.data(), 4), 1);
    EXPECT_EQ(position(Uplo::lower, -1, 1, a.data(), 4, b.data(), 4), 2);
    EXPECT_EQ(position(Uplo::lower, 4, -1, a.data(), 4, b.data(), 4), 3);
    EXPECT_EQ(position(Uplo::lower, 4, 1, null, 4, b.data(), 4), 4);
    EXPECT_EQ(position(Uplo::lower, 4, 1, a.data(), 3, b.data(), 4), 5);
    EXPECT_EQ(position(Uplo::lower, 4, 1, a.data(), 4, null, 4), 6);
    EXPECT_EQ(position(Uplo::lower, 4, 1, a.data(), 4, b.data(), 3), 7);
    EXPECT_EQ(position(Uplo::upper, 0, 0, null, 1, null, 1), 0);
}

}  // namespace tessera::test
