// Library calls made from inside a task (include/tessera/la/context.hpp, "nested calls"): a
// user's codelet calling a LAPACK-style routine on its buffers, or a LAPACK interposer that
// re-enters the library, on the user's runtime and on the library's own one.
//  - every LAPACK-style routine and the C API run inline on the worker and give LAPACK's
//    answer (checked against CBLAS and LAPACKE called directly on a copy), and never hang, on
//    a 2-core runtime whose two workers are all busy with such tasks;
//  - posv and potrf report LAPACK's info inline too;
//  - the tile API (which runs on a Sequence) is refused inside a task with InvalidArgument
//    before anything is submitted: the task fails with it, and the runtime goes on.
#include "common/runtime_sweep.hpp"

#include <tessera/tessera.h>
#include <tessera/tessera.hpp>

#include <cblas.h>
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

namespace rt = tessera::rt;
using tessera::Diag;
using tessera::Op;
using tessera::Side;
using tessera::Uplo;
using namespace tessera::test;

std::vector<double> random_matrix(int64_t m, int64_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> a(std::size_t(m * n));
    for (double& x : a) x = u(rng);
    return a;
}
/// A well-conditioned symmetric positive definite n x n matrix: R R^T / n + I.
std::vector<double> spd_matrix(int64_t n, unsigned seed)
{
    auto r = random_matrix(n, n, seed);
    std::vector<double> a(std::size_t(n * n));
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, int(n), int(n), int(n), 1.0 / double(n),
                r.data(), int(n), r.data(), int(n), 0.0, a.data(), int(n));
    for (int64_t i = 0; i < n; ++i) a[std::size_t(i + i * n)] += 1.0;
    return a;
}
/// max |x - y| / max |y|
double relative_difference(std::vector<double> const& x, std::vector<double> const& y)
{
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        diff = std::max(diff, std::abs(x[i] - y[i]));
        scale = std::max(scale, std::abs(y[i]));
    }
    return diff / std::max(scale, 1e-300);
}

/// Runs `call` inside a task of `r`, twice at once (on both workers of a 2-core runtime: no
/// worker is left free for tasks the call might submit and wait for); rethrows its failure.
void in_two_tasks(rt::Runtime& r, std::function<void()> call)
{
    struct Ctx {
        std::function<void()>* call;
    } ctx{&call};
    const rt::Codelet<Ctx*> nested{.name = "nested_call", .cpu = +[](Ctx* c) { (*c->call)(); }};
    auto a = r.submit(nested, rt::value(&ctx));
    auto b = r.submit(nested, rt::value(&ctx));
    ASSERT_TRUE(completes(a, 60s) && completes(b, 60s)) << "a call nested in a task did not return";
    a.wait();
    b.wait();
}

constexpr int64_t n = 300;  // a few tiles of every tile size the library would choose
constexpr double tol = 1e-12;

/// The runtimes to nest in: the user's own (2 cores), and the library's (a LAPACK interposer
/// re-entering it from one of its own tasks).
enum class Host { user_runtime, library_runtime };
class NestedCalls : public testing::TestWithParam<Host> {
protected:
    void SetUp() override
    {
        // the oracles' OpenBLAS on one thread: its own threads are not instrumented, and
        // ThreadSanitizer would see their writes race with the test's
        openblas_set_num_threads(1);
        if (GetParam() == Host::library_runtime) {
            tessera::finalize();
            tessera::init({.ncpus = 2, .perfmodel_dir = "none"});
        } else {
            own_ = std::make_unique<rt::Runtime>(
                rt::RuntimeConfig{.ncpus = 2, .perfmodel_dir = "none"});
        }
    }
    void TearDown() override
    {
        own_.reset();
        if (GetParam() == Host::library_runtime) tessera::finalize();
    }
    rt::Runtime& host() { return own_ ? *own_ : tessera::runtime(); }

private:
    std::unique_ptr<rt::Runtime> own_;
};

TEST_P(NestedCalls, GemmSymmSyrkTrsmTrmmRunInlineAndMatchBlas)
{
    const auto a = random_matrix(n, n, 1), b = random_matrix(n, n, 2), c0 = random_matrix(n, n, 3);
    auto tri = random_matrix(n, n, 4);
    for (int64_t i = 0; i < n; ++i) tri[std::size_t(i + i * n)] += double(n);  // well conditioned
    struct Case {
        std::string name;
        std::function<void(std::vector<double>&)> tessera, blas;
    };
    std::vector<Case> cases{
        {"gemm",
         [&](auto& c) {
             tessera::gemm<double>(Op::notrans, Op::trans, n, n, n, 0.5, a.data(), n, b.data(), n,
                                   2.0, c.data(), n);
         },
         [&](auto& c) {
             cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, 0.5, a.data(), n,
                         b.data(), n, 2.0, c.data(), n);
         }},
        {"symm",
         [&](auto& c) {
             tessera::symm<double>(Side::left, Uplo::lower, n, n, 0.5, a.data(), n, b.data(), n,
                                   2.0, c.data(), n);
         },
         [&](auto& c) {
             cblas_dsymm(CblasColMajor, CblasLeft, CblasLower, n, n, 0.5, a.data(), n, b.data(), n,
                         2.0, c.data(), n);
         }},
        {"syrk",
         [&](auto& c) {
             tessera::syrk<double>(Uplo::upper, Op::notrans, n, n, 0.5, a.data(), n, 2.0, c.data(),
                                   n);
         },
         [&](auto& c) {
             cblas_dsyrk(CblasColMajor, CblasUpper, CblasNoTrans, n, n, 0.5, a.data(), n, 2.0,
                         c.data(), n);
         }},
        {"trsm",
         [&](auto& c) {
             tessera::trsm<double>(Side::left, Uplo::lower, Op::notrans, Diag::nonunit, n, n, 2.0,
                                   tri.data(), n, c.data(), n);
         },
         [&](auto& c) {
             cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n, n,
                         2.0, tri.data(), n, c.data(), n);
         }},
        {"trmm",
         [&](auto& c) {
             tessera::trmm<double>(Side::right, Uplo::upper, Op::trans, Diag::unit, n, n, 2.0,
                                   a.data(), n, c.data(), n);
         },
         [&](auto& c) {
             cblas_dtrmm(CblasColMajor, CblasRight, CblasUpper, CblasTrans, CblasUnit, n, n, 2.0,
                         a.data(), n, c.data(), n);
         }},
    };
    for (Case const& k : cases) {
        std::vector<double> want = c0, got1 = c0, got2 = c0;
        k.blas(want);
        std::atomic<int> calls{0};  // the two tasks run at once: each takes its own C
        in_two_tasks(host(), [&] { k.tessera(calls.fetch_add(1) == 0 ? got1 : got2); });
        EXPECT_LT(relative_difference(got1, want), tol) << k.name;
        EXPECT_LT(relative_difference(got2, want), tol) << k.name;
    }
}

TEST_P(NestedCalls, PotrfPotrsPosvPotriRunInlineAndMatchLapack)
{
    const auto spd = spd_matrix(n, 5);
    const auto rhs = random_matrix(n, 7, 6);
    // the oracle: LAPACKE on copies
    auto l = spd;
    ASSERT_EQ(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, l.data(), n), 0);
    auto x = rhs;
    ASSERT_EQ(LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', n, 7, l.data(), n, x.data(), n), 0);
    auto inv = l;
    ASSERT_EQ(LAPACKE_dpotri(LAPACK_COL_MAJOR, 'L', n, inv.data(), n), 0);

    std::vector<double> f(spd), fb(rhs), s(spd), sb(rhs), p(l);
    std::vector<double> solved(rhs);
    std::vector<int64_t> infos;
    std::mutex m;
    std::atomic<int> round{0};  // the two tasks run at once: each takes its part
    in_two_tasks(host(), [&] {
        std::vector<int64_t> got;
        if (round.fetch_add(1) == 0) {  // one task factors, solves and inverts; the other runs posv
            got.push_back(tessera::potrf(Uplo::lower, n, f.data(), n));
            got.push_back(tessera::potrs(Uplo::lower, n, int64_t{7},
                                         static_cast<double const*>(l.data()), n, solved.data(),
                                         n));
            got.push_back(tessera::potri(Uplo::lower, n, p.data(), n));
        } else {
            got.push_back(tessera::posv(Uplo::lower, n, int64_t{7}, s.data(), n, sb.data(), n));
        }
        std::lock_guard lock(m);
        infos.insert(infos.end(), got.begin(), got.end());
    });
    EXPECT_EQ(infos, std::vector<int64_t>(4, 0));
    auto lower = [](std::vector<double> v) {  // the referenced triangle only
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < j; ++i) v[std::size_t(i + j * n)] = 0;
        return v;
    };
    EXPECT_LT(relative_difference(lower(f), lower(l)), tol) << "potrf";
    EXPECT_LT(relative_difference(solved, x), 1e-10) << "potrs";
    EXPECT_LT(relative_difference(lower(p), lower(inv)), 1e-10) << "potri";
    EXPECT_LT(relative_difference(lower(s), lower(l)), tol) << "posv's factor";
    EXPECT_LT(relative_difference(sb, x), 1e-10) << "posv's solution";
}

TEST_P(NestedCalls, InfoOfAMatrixThatIsNotPositiveDefinite)
{
    auto a = spd_matrix(n, 7);
    a[std::size_t(100 + 100 * n)] = -1e3;  // the leading minor of order 101 is not positive
    auto want = a;
    const auto lapack_info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, want.data(), n);
    ASSERT_EQ(lapack_info, 101);
    auto b = random_matrix(n, 2, 8);
    const auto b0 = b;
    int64_t potrf_info = -1, posv_info = -1;
    auto f = a, s = a;
    std::atomic<int> round{0};  // the two tasks run at once: each takes its part
    in_two_tasks(host(), [&] {
        if (round.fetch_add(1) == 0)
            potrf_info = tessera::potrf(Uplo::lower, n, f.data(), n);
        else
            posv_info = tessera::posv(Uplo::lower, n, int64_t{2}, s.data(), n, b.data(), n);
    });
    EXPECT_EQ(potrf_info, lapack_info);
    EXPECT_EQ(posv_info, lapack_info);
    EXPECT_EQ(b, b0) << "posv must leave B untouched when the factorization fails";
}

TEST_P(NestedCalls, TheCApiRunsInline)
{
    const auto a = random_matrix(n, n, 9), b = random_matrix(n, n, 10);
    std::vector<double> want(std::size_t(n * n), 0.0), got1 = want, got2 = want;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a.data(), n, b.data(), n,
                0.0, want.data(), n);
    auto spd = spd_matrix(n, 11), l = spd;
    ASSERT_EQ(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', n, l.data(), n), 0);
    auto f = spd;
    int gemm_info1 = -1, gemm_info2 = -1, potrf_info = -1;
    std::atomic<int> round{0};  // the two tasks run at once: each takes its part
    in_two_tasks(host(), [&] {
        if (round.fetch_add(1) == 0) {
            gemm_info1 = tessera_dgemm('N', 'N', n, n, n, 1.0, a.data(), n, b.data(), n, 0.0,
                                       got1.data(), n);
            potrf_info = tessera_dpotrf('U', n, f.data(), n);
        } else {
            gemm_info2 = tessera_dgemm('N', 'N', n, n, n, 1.0, a.data(), n, b.data(), n, 0.0,
                                       got2.data(), n);
        }
    });
    EXPECT_EQ(gemm_info1, 0);
    EXPECT_EQ(gemm_info2, 0);
    EXPECT_EQ(potrf_info, 0);
    EXPECT_LT(relative_difference(got1, want), tol);
    EXPECT_LT(relative_difference(got2, want), tol);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i <= j; ++i)
            ASSERT_NEAR(f[std::size_t(i + j * n)], l[std::size_t(i + j * n)],
                        1e-10 * std::abs(l[std::size_t(j + j * n)]));
}

TEST_P(NestedCalls, TheTileApiIsRefusedBeforeSubmittingAnything)
{
    auto spd = spd_matrix(64, 12);
    const auto before = spd;
    rt::Runtime& r = host();
    {
        auto A = tessera::TileMatrix<double>::wrap(r, spd.data(), 64, 64, 64, 16);
        const int64_t pending_before = r.pending_tasks();
        std::string refused;
        struct Ctx {
            tessera::TileMatrix<double>* A;
            std::string* refused;
        } ctx{&A, &refused};
        const rt::Codelet<Ctx*> tile_call{.name = "tile_call_in_task", .cpu = +[](Ctx* c) {
                                              try {
                                                  (void)tessera::potrf(Uplo::lower, *c->A);
                                              } catch (tessera::InvalidArgument const& e) {
                                                  *c->refused = e.what();
                                              }
                                          }};
        auto t = r.submit(tile_call, rt::value(&ctx));
        ASSERT_TRUE(completes(t, 60s)) << "a tile call inside a task hung";
        t.wait();
        EXPECT_NE(refused.find("inside a task"), std::string::npos) << refused;
        EXPECT_EQ(r.pending_tasks(), pending_before);
    }  // unregisters A: nothing may be pending on its tiles
    EXPECT_EQ(spd, before);
}

INSTANTIATE_TEST_SUITE_P(Hosts, NestedCalls,
                         testing::Values(Host::user_runtime, Host::library_runtime),
                         [](testing::TestParamInfo<Host> const& i) {
                             return i.param == Host::user_runtime ? std::string("UserRuntime")
                                                                  : std::string("LibraryRuntime");
                         });

}  // namespace
