// The drop-in called as a Fortran program calls LAPACK (this executable links
// libtessera_lapack.so): bad arguments reach the program's own xerbla_ with LAPACK's names
// and positions; calls from several threads at once, and from inside a task of the
// program's own runtime, are correct. ctest runs it with
// TESSERA_LAPACK_MIN_N=0 (Tessera runs every call it can) and with a crossover no call
// reaches (the next library runs them all): the results must not depend on it.
#include <gtest/gtest.h>

#include <tessera/rt/runtime.hpp>

#include <cmath>
#include <complex>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

using cdouble = std::complex<double>;

extern "C" {
void dpotrf_(char const*, int const*, double*, int const*, int*, std::size_t);
void dposv_(char const*, int const*, int const*, double*, int const*, double*, int const*, int*,
            std::size_t);
void dgesv_(int const*, int const*, double*, int const*, int*, double*, int const*, int*);
void dgemm_(char const*, char const*, int const*, int const*, int const*, double const*,
            double const*, int const*, double const*, int const*, double const*, double*,
            int const*, std::size_t, std::size_t);
void sgemm_(char const*, char const*, int const*, int const*, int const*, float const*,
            float const*, int const*, float const*, int const*, float const*, float*, int const*,
            std::size_t, std::size_t);
void cgemm_(char const*, char const*, int const*, int const*, int const*,
            std::complex<float> const*, std::complex<float> const*, int const*,
            std::complex<float> const*, int const*, std::complex<float> const*,
            std::complex<float>*, int const*, std::size_t, std::size_t);
void zgemm_(char const*, char const*, int const*, int const*, int const*, cdouble const*,
            cdouble const*, int const*, cdouble const*, int const*, cdouble const*, cdouble*,
            int const*, std::size_t, std::size_t);
void dgeqrf_(int const*, int const*, double*, int const*, double*, double*, int const*, int*);
void dormqr_(char const*, char const*, int const*, int const*, int const*, double const*,
             int const*, double const*, double*, int const*, double*, int const*, int*, std::size_t,
             std::size_t);
void zunmqr_(char const*, char const*, int const*, int const*, int const*, cdouble const*,
             int const*, cdouble const*, cdouble*, int const*, cdouble*, int const*, int*,
             std::size_t, std::size_t);
void dgels_(char const*, int const*, int const*, int const*, double*, int const*, double*,
            int const*, double*, int const*, int*, std::size_t);
void zherk_(char const*, char const*, int const*, int const*, double const*, cdouble const*,
            int const*, double const*, cdouble*, int const*, std::size_t, std::size_t);

// The program's own xerbla_, as LAPACK's test suite defines it: it must win over the
// library's (the drop-in calls xerbla_ through the dynamic symbol).
std::string xerbla_name;
int xerbla_position = 0;
void xerbla_(char const* name, int const* info, std::size_t length)
{
    xerbla_name.assign(name, strnlen(name, length));
    while (!xerbla_name.empty() && xerbla_name.back() == ' ') xerbla_name.pop_back();
    xerbla_position = *info;
}
}

namespace {

void expect_xerbla(char const* name, int position)
{
    EXPECT_EQ(xerbla_name, name);
    EXPECT_EQ(xerbla_position, position);
    xerbla_name.clear();
    xerbla_position = 0;
}

TEST(DropIn, BadArgumentsReachTheProgramsXerbla)
{
    std::vector<double> a(64, 1.0), b(64, 1.0), c(64, 0.0), work(64), tau(8);
    int info = 0, two = 2, one = 1, zero = 0, eight = 8, m1 = -1;
    const double alpha = 1, beta = 0;
    dpotrf_("X", &two, a.data(), &two, &info, 1);
    EXPECT_EQ(info, -1);
    expect_xerbla("DPOTRF", 1);
    dpotrf_("L", &two, a.data(), &one, &info, 1);
    EXPECT_EQ(info, -4);
    expect_xerbla("DPOTRF", 4);
    dposv_("U", &two, &m1, a.data(), &two, b.data(), &two, &info, 1);
    EXPECT_EQ(info, -3);
    expect_xerbla("DPOSV", 3);
    dgemm_("N", "Q", &two, &two, &two, &alpha, a.data(), &two, b.data(), &two, &beta, c.data(),
           &two, 1, 1);
    expect_xerbla("DGEMM", 2);
    dgemm_("T", "N", &two, &two, &eight, &alpha, a.data(), &two, b.data(), &eight, &beta, c.data(),
           &two, 1, 1);
    expect_xerbla("DGEMM", 8);  // A^T is k x m: lda >= k
    dgeqrf_(&eight, &eight, a.data(), &eight, tau.data(), work.data(), &zero, &info);
    EXPECT_EQ(info, -7);  // lwork < n
    expect_xerbla("DGEQRF", 7);
    dormqr_("L", "C", &two, &two, &one, a.data(), &two, tau.data(), c.data(), &two, work.data(),
            &eight, &info, 1, 1);
    EXPECT_EQ(info, -2);  // 'C' is not an option of the real ormqr
    expect_xerbla("DORMQR", 2);
    std::vector<cdouble> z(16), zt(4), zw(16);
    zunmqr_("L", "T", &two, &two, &one, z.data(), &two, zt.data(), z.data(), &two, zw.data(),
            &eight, &info, 1, 1);
    EXPECT_EQ(info, -2);  // nor 'T' of the complex unmqr
    expect_xerbla("ZUNMQR", 2);
    dgels_("N", &eight, &two, &one, a.data(), &eight, b.data(), &two, work.data(), &eight, &info,
           1);
    EXPECT_EQ(info, -8);  // ldb < max(m, n)
    expect_xerbla("DGELS", 8);
    const double ralpha = 1, rbeta = 0;
    zherk_("L", "T", &two, &two, &ralpha, z.data(), &two, &rbeta, zw.data(), &two, 1, 1);
    expect_xerbla("ZHERK", 2);  // herk takes 'N' or 'C'
}

/// gemm_ of precision T.
template <class T> constexpr auto gemm_of()
{
    if constexpr (std::is_same_v<T, float>)
        return &sgemm_;
    else if constexpr (std::is_same_v<T, double>)
        return &dgemm_;
    else if constexpr (std::is_same_v<T, std::complex<float>>)
        return &cgemm_;
    else
        return &zgemm_;
}

/// C = alpha op(A) op(B) + beta C through the drop-in's gemm_, against loops, on sizes from 1
/// to above the crossovers, with leading dimensions larger than the rows: every argument,
/// the nine on the stack included, must reach whoever runs the call (the gate of gate.hpp
/// forwards the small ones with the caller's stack as it is).
template <class T> void expect_gemm_products(double tolerance)
{
    std::mt19937_64 gen(7);
    std::uniform_real_distribution<double> u(-1, 1);
    auto random = [&] {
        if constexpr (std::is_floating_point_v<T>)
            return T(u(gen));
        else
            return T(u(gen), u(gen));
    };
    const T alpha = random(), beta = random();
    for (int n : {1, 2, 3, 5, 16, 33, 200})
        for (char ta : {'N', 'T'}) {
            const int m = n + 1, k = n + 2, lda = (ta == 'N' ? m : k) + 3, ldb = k + 1, ldc = m + 2;
            std::vector<T> a(std::size_t(lda) * (ta == 'N' ? k : m)), b(std::size_t(ldb) * n),
                c(std::size_t(ldc) * n);
            for (auto* v : {&a, &b, &c})
                for (T& x : *v) x = random();
            std::vector<T> expected = c;
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < m; ++i) {
                    T s{};
                    for (int l = 0; l < k; ++l)
                        s += (ta == 'N' ? a[i + std::size_t(l) * lda]
                                        : a[l + std::size_t(i) * lda]) *
                             b[l + std::size_t(j) * ldb];
                    expected[i + std::size_t(j) * ldc] =
                        alpha * s + beta * c[i + std::size_t(j) * ldc];
                }
            const char tb = 'N';
            gemm_of<T>()(&ta, &tb, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta,
                         c.data(), &ldc, 1, 1);
            double error = 0;
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < ldc; ++i) {
                    const std::size_t at = i + std::size_t(j) * ldc;
                    // rows m .. ldc - 1 are padding: untouched
                    error = std::max(error, double(std::abs(c[at] - expected[at])));
                }
            EXPECT_LE(error, tolerance * k) << "n = " << n << ", op(A) = " << ta;
        }
}

TEST(DropIn, GemmGivesTheProductBelowAndAboveTheCrossover)
{
    expect_gemm_products<float>(1e-5);
    expect_gemm_products<double>(1e-13);
    expect_gemm_products<std::complex<float>>(1e-5);
    expect_gemm_products<cdouble>(1e-13);
    // a negative dimension: reported by the routine, whichever side of the crossover
    std::vector<double> a(16, 1.0), c(16, 0.0);
    const int two = 2, m1 = -1;
    const double alpha = 1, beta = 0;
    dgemm_("N", "N", &m1, &two, &two, &alpha, a.data(), &two, a.data(), &two, &beta, c.data(), &two,
           1, 1);
    expect_xerbla("DGEMM", 3);
    dgemm_("N", "N", &two, &two, &m1, &alpha, a.data(), &two, a.data(), &two, &beta, c.data(), &two,
           1, 1);
    expect_xerbla("DGEMM", 5);
}

/// n x n symmetric positive definite, column-major.
std::vector<double> spd(int n, unsigned seed)
{
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> a(std::size_t(n) * n);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i <= j; ++i)
            a[i + std::size_t(j) * n] = a[j + std::size_t(i) * n] = u(gen) + (i == j ? n : 0);
    return a;
}

/// ||A x - b||_inf / (||A||_inf ||x||_inf n eps) by loops.
double residual(int n, std::vector<double> const& a, std::vector<double> const& x,
                std::vector<double> const& b)
{
    double r = 0, an = 0, xn = 0;
    for (int i = 0; i < n; ++i) {
        double s = -b[i], row = 0;
        for (int j = 0; j < n; ++j) {
            s += a[i + std::size_t(j) * n] * x[j];
            row += std::abs(a[i + std::size_t(j) * n]);
        }
        r = std::max(r, std::abs(s));
        an = std::max(an, row);
        xn = std::max(xn, std::abs(x[i]));
    }
    return r / (an * xn * n * 0x1p-52);
}

TEST(DropIn, CallsFromSeveralThreadsAtOnceAreCorrect)
{
    // One thread's call keeps the runtime busy: the others' go to the next library, and
    // every one of them must be right.
    constexpr int threads = 4, calls = 6, n = 240;
    std::vector<double> worst(threads, 0.0);
    std::vector<int> infos(threads, 0);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (int c = 0; c < calls; ++c) {
                const auto a = spd(n, unsigned(100 * t + c));
                std::vector<double> b(n, 1.0), f = a, x = b, g = a, y = b;
                std::vector<int> ipiv(n);
                int info = 0, one = 1;
                dposv_("L", &n, &one, f.data(), &n, x.data(), &n, &info, 1);
                infos[t] |= info;
                worst[t] = std::max(worst[t], residual(n, a, x, b));
                dgesv_(&n, &one, g.data(), &n, ipiv.data(), y.data(), &n, &info);
                infos[t] |= info;
                worst[t] = std::max(worst[t], residual(n, a, y, b));
            }
        });
    for (auto& t : pool) t.join();
    for (int t = 0; t < threads; ++t) {
        EXPECT_EQ(infos[t], 0) << "thread " << t;
        EXPECT_LT(worst[t], 30.0) << "thread " << t;
    }
}

/// A kernel of the program's own that calls LAPACK: inside a task, the drop-in must send the
/// call to the next library (Tessera waiting for itself on a worker could deadlock).
void factor_in_a_task(tessera::rt::Vector<double> a)
{
    const int n = int(std::lround(std::sqrt(double(a.n))));
    int info = 0;
    dpotrf_("L", &n, a.ptr, &n, &info, 1);
    if (info != 0) throw std::runtime_error("dpotrf_ info " + std::to_string(info));
}
const tessera::rt::Codelet<tessera::rt::Vector<double>> factor_cl{.name = "factor_in_a_task",
                                                                  .cpu = &factor_in_a_task};

TEST(DropIn, CallsFromInsideATaskAreCorrect)
{
    constexpr int n = 200;
    tessera::rt::Runtime rt;
    std::vector<std::vector<double>> as, a0s;
    for (int t = 0; t < 4; ++t) {
        as.push_back(spd(n, unsigned(40 + t)));
        a0s.push_back(as.back());
    }
    {
        std::vector<std::unique_ptr<tessera::rt::Handle<tessera::rt::Vector<double>>>> handles;
        for (auto& a : as) {
            handles.push_back(std::make_unique<tessera::rt::Handle<tessera::rt::Vector<double>>>(
                rt, tessera::rt::Vector<double>{a.data(), int64_t(a.size())}));
            rt.submit(factor_cl, readwrite(*handles.back()));
        }
        rt.wait_all();
    }
    for (std::size_t t = 0; t < as.size(); ++t) {  // L L^T = A on the lower triangle
        double worst = 0;
        for (int j = 0; j < n; ++j)
            for (int i = j; i < n; ++i) {
                double s = 0;
                for (int k = 0; k <= j; ++k)
                    s += as[t][i + std::size_t(k) * n] * as[t][j + std::size_t(k) * n];
                worst = std::max(worst, std::abs(s - a0s[t][i + std::size_t(j) * n]));
            }
        EXPECT_LT(worst / (n * n * 0x1p-52), 30.0) << "task " << t;
    }
}

TEST(DropIn, InfoIsLapacksOnANumericalFailure)
{
    constexpr int n = 300;
    auto a = spd(n, 3);
    a[150 + std::size_t(150) * n] = -1e6;  // the leading minor of order 151 is not positive
    int info = 0;
    dpotrf_("U", &n, a.data(), &n, &info, 1);
    EXPECT_EQ(info, 151);
}

}  // namespace
