// Shared pieces of the accuracy tests (tests/accuracy): the sweep over precisions x
// schedulers x emulated devices, the sizes and tile sizes (nb never divides n), host-side
// column-major matrices and their generators, and the norms the scaled residuals need
// (DESIGN.md: each residual must stay under tol = 50... 60).
//
//     class PotrfAccuracy : public tessera::test::AccuracySweep {};
//     TEST_P(PotrfAccuracy, Residual) {
//         with_precision([&]<class T>() { ... auto rt = make_runtime(); ... });
//     }
//     TESSERA_INSTANTIATE_ACCURACY(PotrfAccuracy);
#pragma once

#include <tessera/tessera.hpp>

#include "linalg/kernels/cpu/blas_lapack.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace tessera::test {

namespace rt = tessera::rt;
using tessera::la::real_t;
using tessera::la::Scalar;
namespace blas = tessera::la::kernels::cpu;

/// The residual bound (STYLE.md: the shared SLATE/LAPACK++/PLASMA default).
inline constexpr double tol = 50;

/// One point of the accuracy sweep.
struct AccuracyParam {
    char precision;         ///< 's', 'd', 'c', 'z'
    std::string scheduler;  ///< "eager", "ws", "dmdas" (heft-tmdp-pr)
    int nemu;               ///< emulated devices (0 or 2)
};
inline std::string name_of(testing::TestParamInfo<AccuracyParam> const& info)
{
    std::string s = info.param.scheduler;
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return std::string(1, info.param.precision) + "_" + s + "_emu" + std::to_string(info.param.nemu);
}
/// {s, d, c, z} x {eager, ws, heft-tmdp-pr} x {0, 2 emulated devices}.
inline std::vector<AccuracyParam> accuracy_params()
{
    std::vector<AccuracyParam> v;
    for (char p : {'s', 'd', 'c', 'z'})
        for (char const* sched : {"eager", "ws", "heft-tmdp-pr"})
            for (int nemu : {0, 2}) v.push_back({p, sched, nemu});
    return v;
}

/// The sizes every routine is tested at, and a tile size that never divides them.
inline std::vector<int64_t> accuracy_sizes() { return {0, 1, 7, 100, 257, 1000}; }
inline int64_t tile_for(int64_t n) { return n <= 7 ? 3 : n <= 257 ? 32 : 96; }

/// The library's runtime (behind the LAPACK-style and C forms) started with a sweep point's
/// configuration for the scope of a test.
class LibraryRuntime {
public:
    explicit LibraryRuntime(AccuracyParam const& p)
    {
        tessera::finalize();
        tessera::init(rt::RuntimeConfig{.ncpus = 2, .scheduler = p.scheduler, .nemu = p.nemu, .emu_memory = "4MB"});
    }
    ~LibraryRuntime()
    {
        tessera::set_tile_size(0);
        tessera::finalize();
    }
    LibraryRuntime(LibraryRuntime const&) = delete;
    LibraryRuntime& operator=(LibraryRuntime const&) = delete;
};

class AccuracySweep : public testing::TestWithParam<AccuracyParam> {
protected:
    /// A runtime for this sweep point: 2 cores plus the emulated devices.
    std::unique_ptr<rt::Runtime> make_runtime() const
    {
        AccuracyParam const& p = GetParam();
        return std::make_unique<rt::Runtime>(
            rt::RuntimeConfig{.ncpus = 2, .scheduler = p.scheduler, .nemu = p.nemu, .emu_memory = "4MB"});
    }
    /// Calls f.template operator()<T>() with T the sweep point's precision.
    template <class F>
    void with_precision(F&& f) const
    {
        switch (GetParam().precision) {
            case 's': f.template operator()<float>(); break;
            case 'd': f.template operator()<double>(); break;
            case 'c': f.template operator()<std::complex<float>>(); break;
            default: f.template operator()<std::complex<double>>(); break;
        }
    }
};
#define TESSERA_INSTANTIATE_ACCURACY(Suite) \
    INSTANTIATE_TEST_SUITE_P(Sweep, Suite, testing::ValuesIn(tessera::test::accuracy_params()), tessera::test::name_of)

/// A column-major m x n matrix with leading dimension ld, on the host.
template <Scalar T>
struct Dense {
    int64_t m = 0, n = 0, ld = 1;
    std::vector<T> a;
    Dense() = default;
    Dense(int64_t rows, int64_t cols, int64_t lead = 0)
        : m(rows), n(cols), ld(std::max<int64_t>({1, rows, lead})), a(std::size_t(ld * std::max<int64_t>(cols, 1)))
    {
    }
    T& operator()(int64_t i, int64_t j) { return a[std::size_t(i + j * ld)]; }
    T const& operator()(int64_t i, int64_t j) const { return a[std::size_t(i + j * ld)]; }
    T* data() { return a.data(); }
    T const* data() const { return a.data(); }
};

template <Scalar T>
T random_value(std::mt19937_64& g)
{
    std::uniform_real_distribution<double> u(-1, 1);
    if constexpr (tessera::la::is_complex_v<T>) return T(real_t<T>(u(g)), real_t<T>(u(g)));
    else return T(u(g));
}
/// Entries uniform in [-1, 1] (real and imaginary parts), the padding below ld included.
template <Scalar T>
Dense<T> random_dense(int64_t m, int64_t n, uint64_t seed, int64_t ld = 0)
{
    Dense<T> A(m, n, ld);
    std::mt19937_64 g(seed);
    for (T& x : A.a) x = random_value<T>(g);
    return A;
}
/// A Hermitian positive definite matrix, both triangles: B B^H / n + I (eigenvalues in [1, 1 + |B|^2/n]).
template <Scalar T>
Dense<T> hpd_dense(int64_t n, uint64_t seed, int64_t ld = 0)
{
    Dense<T> B = random_dense<T>(n, n, seed);
    Dense<T> A(n, n, ld);
    if (n == 0) return A;
    blas::gemm<T>(tessera::la::Op::notrans, tessera::la::Op::conjtrans, n, n, n, T(real_t<T>(1.0 / double(n))), B.data(),
                  B.ld, B.data(), B.ld, T(0), A.data(), A.ld);
    for (int64_t i = 0; i < n; ++i) A(i, i) = T(std::real(A(i, i)) + 1);
    return A;
}

/// ||A||_1 (max column sum), in double; NaN when A holds a NaN.
template <Scalar T>
double norm1(Dense<T> const& A)
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
template <Scalar T>
double norm1_diff(Dense<T> const& A, Dense<T> const& B)
{
    double best = 0;
    for (int64_t j = 0; j < A.n; ++j) {
        double s = 0;
        for (int64_t i = 0; i < A.m; ++i) s += std::abs(std::complex<double>(A(i, j)) - std::complex<double>(B(i, j)));
        if (s > best || std::isnan(s)) best = s;  // a NaN must not vanish in the max
    }
    return best;
}
/// The `uplo` triangle of A, the other set to zero (and the diagonal to 1 for a unit triangle).
template <Scalar T>
Dense<T> triangle(Dense<T> const& A, tessera::Uplo uplo, tessera::Diag diag = tessera::Diag::nonunit)
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
template <Scalar T>
Dense<T> hermitian_from(Dense<T> const& A, tessera::Uplo uplo)
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
template <Scalar T>
double eps() { return double(tessera::la::eps<T>); }

}  // namespace tessera::test
