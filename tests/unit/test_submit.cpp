// Typed task submission (include/tessera/rt/runtime.hpp, access.hpp, codelet.hpp), over every
// registered scheduler x {1, 2, 4} workers:
//  - the compile-time binding rules of SubmittableWith / Runtime::submit (read() only for
//    read-only views, arity, options after the arguments, value convertibility);
//  - by-value arguments of several types (integers, doubles, small and large structs,
//    over-aligned and non-trivial types), copied at submission;
//  - buffers of every interface (Variable, Vector, Matrix, Block), read-only and writable;
//  - several implementations per codelet and can_execute choosing among them; the flops field;
//  - callbacks: run once, after the kernel, before successors and before wait() returns, and
//    able to submit tasks (continuation passing: chains and trees);
//  - priorities: with one worker, every policy runs ready tasks in the order of its declared
//    priority range (full order for prio/random/lws, binary for eager, none for ws);
//  - TaskRef ids and the submission window (max_pending_tasks).
#include "common/runtime_sweep.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdint>
#include <functional>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

namespace rt = tessera::rt;
using namespace tessera::test;

// ---- compile-time checks of the binding rules -----------------------------------------------

using VecD = rt::Vector<double>;
using CVecD = rt::Vector<double const>;
using H = rt::Handle<VecD>;
using MatH = rt::Handle<rt::Matrix<double>>;
using R = decltype(rt::read(std::declval<H const&>()));
using W = decltype(rt::write(std::declval<H&>()));
using RW = decltype(rt::readwrite(std::declval<H&>()));
using MatRW = decltype(rt::readwrite(std::declval<MatH&>()));
using FloatR = decltype(rt::read(std::declval<rt::Handle<rt::Vector<float>> const&>()));
using ValD = decltype(rt::value(1.0));
using ValI = decltype(rt::value(1));
using ValS = decltype(rt::value(std::string("x")));
using ValView = decltype(rt::value(VecD{}));
using Prio = decltype(rt::priority(1));
using TagO = decltype(rt::tag(1));
using Cb = decltype(rt::callback([] {}));
using Aft = decltype(rt::after(std::declval<rt::TaskRef const&>()));

using MutCl = rt::Codelet<VecD, double>;     // kernel takes a writable vector
using ConstCl = rt::Codelet<CVecD, double>;  // kernel takes a read-only vector

// the valid forms
static_assert(rt::SubmittableWith<MutCl, RW, ValD>);
static_assert(rt::SubmittableWith<MutCl, W, ValD>);
static_assert(rt::SubmittableWith<ConstCl, R, ValD>);
static_assert(rt::SubmittableWith<MutCl, RW, ValI>, "int converts to double");
static_assert(rt::SubmittableWith<MutCl, RW, ValD, Prio, TagO, Cb, Aft>,
              "options follow the arguments");
static_assert(rt::SubmittableWith<MutCl, RW, ValD, Aft, Prio>, "options in any order");
static_assert(rt::SubmittableWith<rt::Codelet<std::string>, ValS>);
// read() where the kernel takes a mutable view does not compile (STYLE.md snippet 3)
static_assert(!rt::SubmittableWith<MutCl, R, ValD>);
// readwrite()/write() for a read-only view do not compile either
static_assert(!rt::SubmittableWith<ConstCl, RW, ValD>);
static_assert(!rt::SubmittableWith<ConstCl, W, ValD>);
// wrong arity
static_assert(!rt::SubmittableWith<MutCl, RW>);
static_assert(!rt::SubmittableWith<MutCl, RW, ValD, ValD>);
static_assert(!rt::SubmittableWith<MutCl>);
// options before the arguments
static_assert(!rt::SubmittableWith<MutCl, Prio, RW, ValD>);
static_assert(!rt::SubmittableWith<MutCl, RW, Prio, ValD>);
// arguments in the wrong order
static_assert(!rt::SubmittableWith<MutCl, ValD, RW>);
// a value that does not convert to the parameter
static_assert(!rt::SubmittableWith<MutCl, RW, ValS>);
// another interface or element type
static_assert(!rt::SubmittableWith<MutCl, MatRW, ValD>);
static_assert(!rt::SubmittableWith<ConstCl, FloatR, ValD>);
// a view passed by value instead of as a buffer
static_assert(!rt::SubmittableWith<rt::Codelet<VecD>, ValView>);

// Runtime::submit itself carries the constraint (a requires-expression, not only the concept).
template <class Cl, class... A>
concept SubmitCompiles = requires(rt::Runtime& r, Cl const& cl, A... a)
{
    r.submit(cl, a...);
};
static_assert(SubmitCompiles<MutCl, RW, ValD>);
static_assert(SubmitCompiles<ConstCl, R, ValD, Prio>);
static_assert(!SubmitCompiles<MutCl, R, ValD>);
static_assert(!SubmitCompiles<ConstCl, RW, ValD>);
static_assert(!SubmitCompiles<MutCl, RW>);
static_assert(!SubmitCompiles<MutCl, Prio, RW, ValD>);
static_assert(!SubmitCompiles<MutCl, RW, ValS>);

// ---- values --------------------------------------------------------------------------------

struct Small {
    int32_t a;
    double b;
    char c;
};
struct Large {  // beyond the task's inline value storage
    std::array<int64_t, 40> v;
};
#pragma GCC diagnostic ignored                                                                     \
    "-Wpsabi"                 // "the ABI for passing 32-byte aligned parameters changed in GCC 4.6"
struct alignas(32) Aligned {  // beyond alignof(std::max_align_t): stored apart
    double x;
};

void values_cpu(rt::Variable<int64_t> out, int64_t i, double d, Small s, Large l, Aligned al)
{
    int64_t sum = std::accumulate(l.v.begin(), l.v.end(), int64_t{0});
    *out = i + int64_t(d * 4) + s.a * 1000 + int64_t(s.b * 10) + s.c + sum * 7 + int64_t(al.x) * 3;
}
const rt::Codelet<rt::Variable<int64_t>, int64_t, double, Small, Large, Aligned> values_cl{
    .name = "values", .cpu = &values_cpu};

void strings_cpu(rt::Variable<int64_t> out, std::string s, std::vector<int> v)
{
    *out = int64_t(s.size()) * 100 + std::accumulate(v.begin(), v.end(), 0);
}
const rt::Codelet<rt::Variable<int64_t>, std::string, std::vector<int>> strings_cl{
    .name = "strings", .cpu = &strings_cpu};

class Submit : public RuntimeSweep {};

TEST_P(Submit, ValuesOfSeveralTypesReachTheKernel)
{
    auto rt = make_runtime();
    constexpr int n = 64;
    std::vector<int64_t> out(n, -1);
    std::vector<rt::Handle<rt::Variable<int64_t>>> h;
    for (int k = 0; k < n; ++k) h.emplace_back(*rt, rt::Variable<int64_t>{&out[std::size_t(k)]});
    auto expected = [](int k) {
        int64_t sum = 0;
        for (int j = 0; j < 40; ++j) sum += k + j;
        return int64_t(k) * 1'000'000'007LL + int64_t(0.25 * k * 4) + k * 1000 +
               int64_t((k + 0.5) * 10) + 'a' + sum * 7 + int64_t(2 * k) * 3;
    };
    for (int k = 0; k < n; ++k) {
        Large l;
        for (int j = 0; j < 40; ++j) l.v[std::size_t(j)] = k + j;
        rt->submit(values_cl, rt::write(h[std::size_t(k)]), rt::value(int64_t(k) * 1'000'000'007LL),
                   rt::value(0.25 * k), rt::value(Small{k, k + 0.5, 'a'}), rt::value(l),
                   rt::value(Aligned{double(2 * k)}));
    }
    rt->wait_all();
    h.clear();  // unregister: the results are in `out`
    for (int k = 0; k < n; ++k) EXPECT_EQ(out[std::size_t(k)], expected(k)) << "task " << k;
}

TEST_P(Submit, ValuesAreCopiedAtSubmission)
{
    auto rt = make_runtime();
    int64_t r1 = 0, r2 = 0;
    rt::Handle h1{*rt, rt::Variable<int64_t>{&r1}}, h2{*rt, rt::Variable<int64_t>{&r2}};
    Gate gate;
    auto opener = gate.opener();
    auto g = rt->submit(gate_cl, rt::value(&gate));
    ASSERT_TRUE(gate.wait_entered());
    std::string s = "four";
    std::vector<int> v{1, 2, 3};
    int64_t i = 41;
    // held back by the gate until the arguments have changed
    auto t1 = rt->submit(strings_cl, rt::write(h1), rt::value(s), rt::value(v), rt::after(g));
    auto t2 = rt->submit(add_var, rt::readwrite(h2), rt::value(i), rt::after(g));
    s = "changed after submission";
    v.assign(100, 1000);
    i = -1;
    EXPECT_FALSE(t1.done());
    EXPECT_FALSE(t2.done());
    gate.open();
    rt->wait_all();
    EXPECT_FALSE(gate.timed_out);
    EXPECT_EQ(*h1.acquire<rt::Mode::R>().view(), 4 * 100 + 6);
    EXPECT_EQ(*h2.acquire<rt::Mode::R>().view(), 41);
}

// ---- buffers of every interface -----------------------------------------------------------

void fill_all_cpu(rt::Variable<double> v, rt::Vector<double> x, rt::Matrix<double> a,
                  rt::Block<double> b, double base)
{
    *v = base;
    for (int64_t i = 0; i < x.n; ++i) x[i] = base + double(i);
    for (int64_t j = 0; j < a.n; ++j)
        for (int64_t i = 0; i < a.m; ++i) a(i, j) = base + double(100 * i + j);
    for (int64_t k = 0; k < b.nz; ++k)
        for (int64_t j = 0; j < b.ny; ++j)
            for (int64_t i = 0; i < b.nx; ++i) b(i, j, k) = base + double(10000 * k + 100 * i + j);
}
const rt::Codelet<rt::Variable<double>, rt::Vector<double>, rt::Matrix<double>, rt::Block<double>,
                  double>
    fill_all{.name = "fill_all", .cpu = &fill_all_cpu};

void sum_all_cpu(rt::Variable<double const> v, rt::Vector<double const> x,
                 rt::Matrix<double const> a, rt::Block<double const> b, rt::Variable<double> out,
                 rt::Vector<int64_t> shape)
{
    double s = *v;
    for (double e : x) s += e;
    for (int64_t j = 0; j < a.n; ++j)
        for (int64_t i = 0; i < a.m; ++i) s += a(i, j);
    for (int64_t k = 0; k < b.nz; ++k)
        for (int64_t j = 0; j < b.ny; ++j)
            for (int64_t i = 0; i < b.nx; ++i) s += b(i, j, k);
    *out = s;
    int64_t dims[] = {x.n, a.m, a.n, a.ld, b.nx, b.ny, b.nz, b.ldy, b.ldz};
    std::copy(std::begin(dims), std::end(dims), shape.begin());
}
const rt::Codelet<rt::Variable<double const>, rt::Vector<double const>, rt::Matrix<double const>,
                  rt::Block<double const>, rt::Variable<double>, rt::Vector<int64_t>>
    sum_all{.name = "sum_all", .cpu = &sum_all_cpu};

TEST_P(Submit, BuffersOfEveryInterface)
{
    auto rt = make_runtime();
    constexpr int64_t n = 7, m = 5, nc = 3, ld = 8, nx = 3, ny = 4, nz = 2, ldy = 5, ldz = 23;
    double v = -1, out = 0;
    std::vector<double> x(n, -1), a(ld * nc, -1), b(ldz * nz, -1);
    std::vector<int64_t> shape(9, 0);
    double expected = 0;
    {
        rt::Handle hv{*rt, rt::Variable<double>{&v}};
        rt::Handle hx{*rt, rt::Vector<double>{x.data(), n}};
        rt::Handle ha{*rt, rt::Matrix<double>{a.data(), m, nc, ld}};
        rt::Handle hb{*rt, rt::Block<double>{b.data(), nx, ny, nz, ldy, ldz}};
        rt::Handle ho{*rt, rt::Variable<double>{&out}};
        rt::Handle hs{*rt, rt::Vector<int64_t>{shape.data(), 9}};
        rt->submit(fill_all, rt::write(hv), rt::write(hx), rt::write(ha), rt::write(hb),
                   rt::value(0.5));
        rt->submit(sum_all, rt::read(hv), rt::read(hx), rt::read(ha), rt::read(hb), rt::write(ho),
                   rt::write(hs));
        rt->wait_all();
    }
    expected += 0.5;
    for (int64_t i = 0; i < n; ++i) expected += 0.5 + double(i);
    for (int64_t j = 0; j < nc; ++j)
        for (int64_t i = 0; i < m; ++i) expected += 0.5 + double(100 * i + j);
    for (int64_t k = 0; k < nz; ++k)
        for (int64_t j = 0; j < ny; ++j)
            for (int64_t i = 0; i < nx; ++i) expected += 0.5 + double(10000 * k + 100 * i + j);
    EXPECT_DOUBLE_EQ(out, expected);
    // on a device the copies are contiguous: the leading dimensions may be the extents there
    std::vector<int64_t> packed{n, m, nc, m, nx, ny, nz, nx, nx * ny};
    if (shape != packed) {
        EXPECT_EQ(shape, (std::vector<int64_t>{n, m, nc, ld, nx, ny, nz, ldy, ldz}));
    }
    // the kernels saw exactly the described elements: the gaps of ld/ldy/ldz are untouched
    for (int64_t j = 0; j < nc; ++j)
        for (int64_t i = m; i < ld; ++i) EXPECT_EQ(a[std::size_t(i + j * ld)], -1);
    for (int64_t k = 0; k < nz; ++k)
        for (int64_t e = 0; e < ldz; ++e) {
            int64_t i = e % ldy, j = e / ldy;
            bool inside = i < nx && j < ny;
            if (!inside) {
                EXPECT_EQ(b[std::size_t(e + k * ldz)], -1) << "block gap " << e << " plane " << k;
            }
        }
}

// ---- several implementations --------------------------------------------------------------

void impl_a_cpu(rt::Variable<int64_t> x, int64_t)
{
    *x = 1;
}
void impl_b_cpu(rt::Variable<int64_t> x, int64_t)
{
    *x = 2;
}
const rt::Codelet<rt::Variable<int64_t>, int64_t> two_impls{.name = "two_impls",
                                                            .cpu = {&impl_a_cpu, &impl_b_cpu}};
const rt::Codelet<rt::Variable<int64_t>, int64_t> second_only{
    .name = "second_only",
    .cpu = {&impl_a_cpu, &impl_b_cpu},
    .can_execute = [](rt::Arch a, unsigned impl, rt::Variable<int64_t> const&,
                      int64_t const&) { return a == rt::Arch::cpu && impl == 1; },
};
// the first implementation only for arguments >= 10: the predicate sees the task's arguments
const rt::Codelet<rt::Variable<int64_t>, int64_t> by_argument{
    .name = "by_argument",
    .cpu = {&impl_a_cpu, &impl_b_cpu},
    .can_execute = [](rt::Arch, unsigned impl, rt::Variable<int64_t> const& x,
                      int64_t const& k) { return impl != 0 || (k >= 10 && x.ptr != nullptr); },
};

TEST_P(Submit, CanExecuteChoosesTheImplementation)
{
    auto rt = make_runtime();
    constexpr int n = 40;
    std::vector<int64_t> first(n, 0), second(n, 0), arg(n, 0);
    {
        std::vector<rt::Handle<rt::Variable<int64_t>>> hf, hs, ha;
        for (int k = 0; k < n; ++k) {
            hf.emplace_back(*rt, rt::Variable<int64_t>{&first[std::size_t(k)]});
            hs.emplace_back(*rt, rt::Variable<int64_t>{&second[std::size_t(k)]});
            ha.emplace_back(*rt, rt::Variable<int64_t>{&arg[std::size_t(k)]});
            rt->submit(two_impls, rt::write(hf.back()), rt::value(int64_t(k)));
            rt->submit(second_only, rt::write(hs.back()), rt::value(int64_t(k)));
            rt->submit(by_argument, rt::write(ha.back()), rt::value(int64_t(k)));
        }
        rt->wait_all();
    }
    for (int k = 0; k < n; ++k) {
        EXPECT_EQ(first[std::size_t(k)], 1) << "no predicate: the first implementation runs";
        EXPECT_EQ(second[std::size_t(k)], 2) << "can_execute allows only the second";
        EXPECT_EQ(arg[std::size_t(k)], k >= 10 ? 1 : 2) << "argument " << k;
    }
}

// ---- flops ------------------------------------------------------------------------------------

void axpy_cpu(rt::Vector<double const> x, rt::Vector<double> y, double alpha)
{
    for (int64_t i = 0; i < y.n; ++i) y[i] += alpha * x[i];
}
const rt::Codelet<rt::Vector<double const>, rt::Vector<double>, double> axpy{
    .name = "axpy",
    .cpu = &axpy_cpu,
    .flops = [](auto const& x, auto const&, double const&) { return 2.0 * double(x.n); },
};

TEST_P(Submit, FlopsFieldAndKernelAgree)
{
    ASSERT_NE(axpy.flops, nullptr);
    std::vector<double> x(13, 1.0), y(13, 2.0);
    EXPECT_DOUBLE_EQ(
        axpy.flops(rt::Vector<double const>{x.data(), 13}, rt::Vector<double>{y.data(), 13}, 3.0),
        26.0);
    EXPECT_EQ(two_impls.flops, nullptr);
    auto rt = make_runtime();
    {
        rt::Handle hx{*rt, rt::Vector<double>{x.data(), 13}};
        rt::Handle hy{*rt, rt::Vector<double>{y.data(), 13}};
        rt->submit(axpy, rt::read(hx), rt::readwrite(hy), rt::value(3.0)).wait();
    }
    for (double e : y) EXPECT_DOUBLE_EQ(e, 5.0);
}

// ---- callbacks ------------------------------------------------------------------------------

void mark_cpu(rt::Vector<int64_t> ran, int64_t k)
{
    ran[k] += 1;
}
const rt::Codelet<rt::Vector<int64_t>, int64_t> mark{.name = "mark", .cpu = &mark_cpu};

TEST_P(Submit, CallbackRunsOnceAfterTheKernelOnAWorker)
{
    auto rt = make_runtime();
    constexpr int n = 200;
    // one vector of flags per task (separate handles: the tasks are independent)
    std::vector<std::vector<int64_t>> ran(n, std::vector<int64_t>(1, 0));
    std::vector<std::atomic<int>> calls(n), saw_kernel(n), on_worker(n);
    {
        std::vector<rt::Handle<rt::Vector<int64_t>>> h;
        for (int k = 0; k < n; ++k)
            h.emplace_back(*rt, rt::Vector<int64_t>{ran[std::size_t(k)].data(), 1});
        for (int k = 0; k < n; ++k) {
            int64_t* flag = ran[std::size_t(k)].data();
            rt->submit(
                mark, rt::readwrite(h[std::size_t(k)]), rt::value(int64_t{0}),
                rt::callback([&, k, flag] {
                    calls[std::size_t(k)].fetch_add(1);
                    // the registered memory holds the kernel's result when it ran on the
                    // host (on a device it goes home at unregister)
                    bool on_host = rt->worker(rt::Runtime::current_worker()).memory_node == 0;
                    saw_kernel[std::size_t(k)].store(!on_host || *flag == 1);
                    on_worker[std::size_t(k)].store(rt::Runtime::current_worker() != rt::no_worker);
                }));
        }
        rt->wait_all();
    }
    for (int k = 0; k < n; ++k) {
        EXPECT_EQ(calls[std::size_t(k)].load(), 1) << "task " << k;
        EXPECT_TRUE(saw_kernel[std::size_t(k)].load())
            << "callback ran before the kernel, task " << k;
        EXPECT_TRUE(on_worker[std::size_t(k)].load()) << "task " << k;
        EXPECT_EQ(ran[std::size_t(k)][0], 1);
    }
}

struct Ordering {
    std::atomic<bool> predecessor_done{false};
    std::atomic<int> violations{0};
};
void expect_after_cpu(rt::Variable<int64_t> x, Ordering* o)
{
    if (!o->predecessor_done.load()) o->violations.fetch_add(1);
    *x += 1;
}
/// Counts a violation if it runs before o->predecessor_done is set.
const rt::Codelet<rt::Variable<int64_t>, Ordering*> expect_after{.name = "expect_after",
                                                                 .cpu = &expect_after_cpu};
void expect_after_nodata_cpu(Ordering* o)
{
    if (!o->predecessor_done.load()) o->violations.fetch_add(1);
}
const rt::Codelet<Ordering*> expect_after_nodata{.name = "expect_after_nodata",
                                                 .cpu = &expect_after_nodata_cpu};

TEST_P(Submit, CallbackFinishesBeforeWaitReturnsAndBeforeSuccessors)
{
    auto rt = make_runtime();
    for (int rep = 0; rep < 5; ++rep) {
        std::atomic<bool> cb_done{false};
        auto t = rt->submit(sleep_cl, rt::value(int64_t{100}), rt::callback([&] {
                                std::this_thread::sleep_for(5ms);
                                cb_done.store(true);
                            }));
        t.wait();
        EXPECT_TRUE(cb_done.load()) << "wait() returned before the callback did";
    }
    for (int rep = 0; rep < 5; ++rep) {
        Ordering o;
        int64_t x = 0;
        rt::Handle h{*rt, rt::Variable<int64_t>{&x}};
        auto a = rt->submit(add_var, rt::readwrite(h), rt::value(int64_t{1}), rt::callback([&] {
                                std::this_thread::sleep_for(5ms);
                                o.predecessor_done.store(true);
                            }));
        rt->submit(expect_after, rt::readwrite(h), rt::value(&o));     // successor through the data
        rt->submit(expect_after_nodata, rt::value(&o), rt::after(a));  // successor through after()
        rt->wait_all();
        EXPECT_EQ(o.violations.load(), 0) << "a successor ran before the callback returned";
        EXPECT_EQ(*h.acquire<rt::Mode::R>().view(), 2);
    }
}

TEST_P(Submit, CallbacksBuildAChain)
{
    // continuation passing: each task's callback submits the next one
    auto rt = make_runtime();
    constexpr int64_t n = 300;
    int64_t x = 1;
    {
        rt::Handle h{*rt, rt::Variable<int64_t>{&x}};
        std::function<void(int64_t)> step = [&](int64_t k) {
            if (k == n) return;
            rt->submit(affine_var, rt::readwrite(h), rt::value(k),
                       rt::callback([&step, k] { step(k + 1); }));
        };
        step(0);
        rt->wait_all();  // also waits for the tasks the callbacks submitted
        EXPECT_EQ(rt->pending_tasks(), 0);
    }
    int64_t expected = 1;
    for (int64_t k = 0; k < n; ++k) expected = affine(expected, k);
    EXPECT_EQ(x, expected);
}

TEST_P(Submit, CallbacksUnrollATree)
{
    auto rt = make_runtime();
    constexpr int depth = 9;
    std::atomic<int64_t> count{0};
    std::function<void(int)> node = [&](int d) {
        rt->submit(count_cl, rt::value(&count), rt::callback([&node, d] {
                       if (d < depth) {
                           node(d + 1);
                           node(d + 1);
                       }
                   }));
    };
    node(0);
    rt->wait_all();
    EXPECT_EQ(count.load(), (int64_t{1} << (depth + 1)) - 1);
}

// ---- TaskRef --------------------------------------------------------------------------------

TEST_P(Submit, TaskRefIdsAreUniqueAndIncreasing)
{
    auto rt = make_runtime();
    std::atomic<int64_t> c{0};
    std::vector<rt::TaskRef> ts;
    for (int k = 0; k < 100; ++k) ts.push_back(rt->submit(count_cl, rt::value(&c)));
    for (std::size_t k = 1; k < ts.size(); ++k) EXPECT_LT(ts[k - 1].id(), ts[k].id());
    EXPECT_NE(ts.front().id(), 0u);
    rt::TaskRef copy = ts[5];
    EXPECT_EQ(copy.id(), ts[5].id());
    rt->wait_all();
    EXPECT_TRUE(copy.done());
    EXPECT_FALSE(copy.failed());
    EXPECT_FALSE(copy.cancelled());
    rt::TaskRef empty;
    EXPECT_EQ(empty.id(), 0u);
    EXPECT_FALSE(empty.done());
    EXPECT_FALSE(bool(empty));
    EXPECT_EQ(c.load(), 100);
}

TEST_P(Submit, SubmissionWindowBoundsPendingTasks)
{
    constexpr int64_t window = 16;
    std::shared_ptr<rt::Runtime> rt = make_runtime(window);
    EXPECT_EQ(rt->config().max_pending_tasks, window);
    auto worst = std::make_shared<std::atomic<int64_t>>(0);
    bool finished = finishes_within(20s, [rt, worst] {
        for (int k = 0; k < 300; ++k) {
            rt->submit(sleep_cl, rt::value(int64_t{20}));
            worst->store(std::max(worst->load(), rt->pending_tasks()));
        }
        rt->wait_all();
    });
    ASSERT_TRUE(finished) << "submission blocked forever in the window (pending "
                          << rt->pending_tasks() << ")";
    EXPECT_LE(worst->load(), window);
    EXPECT_GT(worst->load(), 1) << "the window should let tasks queue up";
    EXPECT_EQ(rt->pending_tasks(), 0);
}

TEST_P(Submit, SubmissionWindowNeverLosesAWakeUp)
{
    // Many tiny tasks through a small window: the application thread sleeps and is woken
    // thousands of times; it must never sleep forever.
    for (int64_t window : {4, 32}) {
        std::shared_ptr<rt::Runtime> rt = make_runtime(window);
        auto count = std::make_shared<std::atomic<int64_t>>(0);
        bool finished = finishes_within(10s, [rt, count] {
            for (int k = 0; k < 5000; ++k) rt->submit(count_cl, rt::value(count.get()));
            rt->wait_all();
        });
        ASSERT_TRUE(finished) << "window " << window
                              << ": the submitting thread was never woken (pending "
                              << rt->pending_tasks() << ", executed " << count->load() << ")";
        EXPECT_EQ(count->load(), 5000);
    }
}

TESSERA_INSTANTIATE_SWEEP(Submit);

// ---- priorities (one worker: the execution order is the policy's choice alone) ---------------

/// Runs `prios.size()` independent tasks, all made ready while a gate task holds the only
/// worker; returns the indices in execution order.
std::vector<int> run_gated(std::string const& sched, std::vector<int> const& prios)
{
    rt::Runtime rt{{.ncpus = 1, .scheduler = sched}};
    Gate gate;
    OrderLog log;
    {
        auto opener = gate.opener();
        rt.submit(gate_cl, rt::value(&gate));
        EXPECT_TRUE(gate.wait_entered());
        for (int k = 0; k < int(prios.size()); ++k)
            rt.submit(log_cl, rt::value(&log), rt::value(k), rt::priority(prios[std::size_t(k)]));
    }
    rt.wait_all();
    EXPECT_FALSE(gate.timed_out);
    return log.order;
}

class Priorities : public RuntimeSweep {};

TEST_P(Priorities, OneWorkerRunsReadyTasksInPriorityOrder)
{
    auto range = rt::policies().create(scheduler())->priorities();
    ASSERT_LE(range.min, range.max);
    std::mt19937 rng(7);
    std::vector<int> prios(200);
    for (int& p : prios) p = int(rng() % 41) - 20;
    prios[3] = INT_MAX;
    prios[4] = INT_MIN;
    prios[150] = INT_MAX;
    prios[151] = INT_MIN;
    auto order = run_gated(scheduler(), prios);
    ASSERT_EQ(order.size(), prios.size());
    std::vector<int> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(sorted, [&] {
        std::vector<int> v(prios.size());
        std::iota(v.begin(), v.end(), 0);
        return v;
    }()) << "every task runs exactly once";
    // the priorities the policy distinguishes must come out in non-increasing order
    auto clamp = [&](int p) { return std::clamp(p, range.min, range.max); };
    for (std::size_t i = 1; i < order.size(); ++i)
        EXPECT_GE(clamp(prios[std::size_t(order[i - 1])]), clamp(prios[std::size_t(order[i])]))
            << "position " << i << " (range [" << range.min << ", " << range.max << "])";
    if (range.min == range.max) {  // priorities ignored: the order does not depend on them
        std::vector<int> flat(prios.size(), 0);
        EXPECT_EQ(run_gated(scheduler(), flat), order);
    }
}

INSTANTIATE_TEST_SUITE_P(OneWorker, Priorities, testing::ValuesIn(runtime_params({1})),
                         runtime_param_name_of);

TEST(EagerPriorities, BinaryPriorityFirstThenFifo)
{
    ASSERT_TRUE(rt::policies().contains("eager"));
    EXPECT_EQ(rt::policies().create("eager")->priorities().min, 0);
    EXPECT_EQ(rt::policies().create("eager")->priorities().max, 1);
    std::vector<int> prios{0, 5, -3, 1, 0, 2, -1, 0, 7, 0};
    auto order = run_gated("eager", prios);
    ASSERT_EQ(order.size(), prios.size());
    // every task with priority > 0 before every other one
    std::size_t high = std::count_if(prios.begin(), prios.end(), [](int p) { return p > 0; });
    for (std::size_t i = 0; i < order.size(); ++i)
        EXPECT_EQ(prios[std::size_t(order[i])] > 0, i < high) << "position " << i;
    // the others in submission order (a FIFO)
    std::vector<int> rest(order.begin() + std::ptrdiff_t(high), order.end());
    EXPECT_TRUE(std::is_sorted(rest.begin(), rest.end()));
}

TEST(PrioPriorities, FifoAmongEqualPriorities)
{
    for (std::string s : {"prio", "lws", "random"}) {
        ASSERT_TRUE(rt::policies().contains(s));
        std::vector<int> prios{1, 0, 1, 0, 1, 0, 2, 2};
        auto order = run_gated(s, prios);
        EXPECT_EQ(order, (std::vector<int>{6, 7, 0, 2, 4, 1, 3, 5})) << s;
    }
}

}  // namespace
