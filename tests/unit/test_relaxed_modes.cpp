// Checks the relaxed access modes, with 0 and 2 emulated devices, under every policy:
// REDUX (a dot product and a histogram against sequential results, the handle's prior value
// folded in, several phases, a failing contribution, a failing init that leaves no buffer
// behind), SCRATCH (a private temporary per task, from the allocation cache) and COMMUTE (any
// order, never two at once, ordered with the other accesses).
#include "common/runtime_sweep.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <numeric>
#include <thread>
#include <vector>

namespace {

namespace rt = tessera::rt;

struct Param {
    std::string scheduler;
    int nemu;
};

class RelaxedModes : public testing::TestWithParam<Param> {
protected:
    rt::Runtime make() const
    {
        return rt::Runtime{
            {.ncpus = 2, .scheduler = GetParam().scheduler, .nemu = GetParam().nemu}};
    }
};

// ---- REDUX --------------------------------------------------------------------------------------------

const rt::Codelet<rt::Variable<double>> zero{.name = "zero",
                                             .cpu = +[](rt::Variable<double> s) { *s = 0; }};
const rt::Codelet<rt::Variable<double>, rt::Variable<const double>> add{
    .name = "add", .cpu = +[](rt::Variable<double> a, rt::Variable<const double> b) { *a += *b; }};
const rt::Codelet<rt::Vector<const double>, rt::Vector<const double>, rt::Variable<double>> dot{
    .name = "dot",
    .cpu = +[](rt::Vector<const double> x, rt::Vector<const double> y, rt::Variable<double> s) {
        for (int64_t i = 0; i < x.n; ++i) *s += x[i] * y[i];
    }};

TEST_P(RelaxedModes, DotProduct)
{
    rt::Runtime r = make();
    constexpr int64_t n = 10000, parts = 40;
    std::vector<double> x(n), y(n);
    for (int64_t i = 0; i < n; ++i)
        x[std::size_t(i)] = double(i % 13), y[std::size_t(i)] = double(i % 7) - 3;
    double expect = 5.0;  // the handle's value before the contributions is folded in
    for (int64_t i = 0; i < n; ++i) expect += x[std::size_t(i)] * y[std::size_t(i)];
    double s = 5.0;
    {
        rt::Handle hx{r, rt::Vector<double>{x.data(), n}}, hy{r, rt::Vector<double>{y.data(), n}};
        rt::Handle hs{r, rt::Variable<double>{&s}};
        hs.set_reduction(zero, add);
        auto px = rt::partition(hx, rt::blocks(parts));
        auto py = rt::partition(hy, rt::blocks(parts));
        for (int64_t i = 0; i < parts; ++i) r.submit(dot, read(px[i]), read(py[i]), reduce(hs));
        auto g = hs.acquire<rt::Mode::R>();  // the first coherent access: reduces
        EXPECT_EQ(*g.view(), expect);        // integers: exact in double
    }
    EXPECT_EQ(s, expect);
}

// Two reduction phases separated by a read, and a reduction closed by unregister.
TEST_P(RelaxedModes, SeveralPhases)
{
    rt::Runtime r = make();
    const rt::Codelet<rt::Variable<double>, double> contribute{
        .name = "contribute", .cpu = +[](rt::Variable<double> s, double v) { *s += v; }};
    double s = 0, seen = -1;
    {
        rt::Handle hs{r, rt::Variable<double>{&s}};
        rt::Handle hseen{r, rt::Variable<double>{&seen}};
        hs.set_reduction(zero, add);
        for (int i = 1; i <= 100; ++i) r.submit(contribute, reduce(hs), rt::value(double(i)));
        const rt::Codelet<rt::Variable<const double>, rt::Variable<double>> copy{
            .name = "copy",
            .cpu = +[](rt::Variable<const double> a, rt::Variable<double> b) { *b = *a; }};
        r.submit(copy, read(hs), write(hseen));
        for (int i = 1; i <= 10; ++i) r.submit(contribute, reduce(hs), rt::value(1000.0));
    }  // unregister completes the second reduction
    EXPECT_EQ(seen, 5050.0);
    EXPECT_EQ(s, 15050.0);
}

TEST_P(RelaxedModes, Histogram)
{
    rt::Runtime r = make();
    constexpr int64_t n = 20000, bins = 16, parts = 25;
    std::vector<int64_t> data(n), hist(bins, 0), expect(bins, 0);
    for (int64_t i = 0; i < n; ++i) {
        data[std::size_t(i)] = (i * 7919) % 1000;
        ++expect[std::size_t(data[std::size_t(i)] % bins)];
    }
    const rt::Codelet<rt::Vector<int64_t>> clear{.name = "clear",
                                                 .cpu = +[](rt::Vector<int64_t> h) {
                                                     for (auto& b : h) b = 0;
                                                 }};
    const rt::Codelet<rt::Vector<int64_t>, rt::Vector<const int64_t>> merge{
        .name = "merge", .cpu = +[](rt::Vector<int64_t> a, rt::Vector<const int64_t> b) {
            for (int64_t i = 0; i < a.n; ++i) a[i] += b[i];
        }};
    const rt::Codelet<rt::Vector<const int64_t>, rt::Vector<int64_t>> count{
        .name = "count", .cpu = +[](rt::Vector<const int64_t> d, rt::Vector<int64_t> h) {
            for (int64_t v : d) ++h[v % h.n];
        }};
    {
        rt::Handle hd{r, rt::Vector<int64_t>{data.data(), n}};
        rt::Handle hh{r, rt::Vector<int64_t>{hist.data(), bins}};
        hh.set_reduction(clear, merge);
        auto pd = rt::partition(hd, rt::blocks(parts));
        for (int64_t i = 0; i < parts; ++i) r.submit(count, read(pd[i]), reduce(hh));
    }
    EXPECT_EQ(hist, expect);
}

TEST_P(RelaxedModes, FailingContributionCancelsTheReduction)
{
    rt::Runtime r = make();
    const rt::Codelet<rt::Variable<double>, int> contribute{
        .name = "maybe", .cpu = +[](rt::Variable<double> s, int i) {
            if (i == 7) throw std::runtime_error("contribution 7");
            *s += 1;
        }};
    double s = 0, after = 0;
    rt::Handle hs{r, rt::Variable<double>{&s}};
    rt::Handle ha{r, rt::Variable<double>{&after}};
    hs.set_reduction(zero, add);
    for (int i = 0; i < 20; ++i) r.submit(contribute, reduce(hs), rt::value(i));
    const rt::Codelet<rt::Variable<const double>, rt::Variable<double>> copy{
        .name = "copy",
        .cpu = +[](rt::Variable<const double> a, rt::Variable<double> b) { *b = *a + 1; }};
    auto reader = r.submit(copy, read(hs), write(ha));
    EXPECT_THROW(r.wait_all(), std::runtime_error);
    EXPECT_TRUE(reader.cancelled());
}

// An init codelet that throws fails the task that needed the private copy, and the copy's
// buffer goes back to its node: once the handle is gone, every byte in use is in the cache.
TEST_P(RelaxedModes, FailingInitLeavesNoBufferBehind)
{
    rt::Runtime r = make();
    const rt::Codelet<rt::Variable<double>> failing_zero{
        .name = "failing_zero",
        .cpu = +[](rt::Variable<double>) { throw std::runtime_error("no neutral element"); }};
    const rt::Codelet<rt::Variable<double>> inc{.name = "inc",
                                                .cpu = +[](rt::Variable<double> v) { *v += 1; }};
    double s = 5;
    {
        rt::Handle hs{r, rt::Variable<double>{&s}};
        hs.set_reduction(failing_zero, add);
        for (int i = 0; i < 4; ++i) r.submit(inc, reduce(hs));
        EXPECT_THROW(r.wait_all(), std::runtime_error);
    }
    EXPECT_EQ(s, 5.0);  // no contribution was folded in
    for (rt::MemoryNodeInfo const& node : r.memory_nodes())
        EXPECT_EQ(node.used, node.cached) << "node " << node.id;
}

TEST_P(RelaxedModes, ReduceWithoutMethodsIsAnError)
{
    rt::Runtime r = make();
    double s = 0;
    rt::Handle hs{r, rt::Variable<double>{&s}};
    const rt::Codelet<rt::Variable<double>> inc{.name = "inc",
                                                .cpu = +[](rt::Variable<double> v) { *v += 1; }};
    EXPECT_THROW(r.submit(inc, reduce(hs)), tessera::InvalidArgument);
}

// ---- SCRATCH -----------------------------------------------------------------------------------------

// y = reverse(x), through a private temporary that no other task can see.
TEST_P(RelaxedModes, ScratchIsPrivatePerTask)
{
    rt::Runtime r = make();
    constexpr int64_t n = 1000, parts = 20;
    const rt::Codelet<rt::Vector<const double>, rt::Vector<double>, rt::Vector<double>> reverse{
        .name = "reverse",
        .cpu = +[](rt::Vector<const double> x, rt::Vector<double> tmp, rt::Vector<double> y) {
            for (int64_t i = 0; i < x.n; ++i) tmp[i] = x[x.n - 1 - i];
            std::this_thread::yield();  // another task with its own temporary may run meanwhile
            for (int64_t i = 0; i < x.n; ++i) y[i] = tmp[i];
        }};
    std::vector<double> x(n), y(n, 0.0);
    std::iota(x.begin(), x.end(), 0.0);
    {
        rt::Handle hx{r, rt::Vector<double>{x.data(), n}}, hy{r, rt::Vector<double>{y.data(), n}};
        auto tmp =
            rt::Handle<rt::Vector<double>>::temporary(r, rt::Vector<double>{nullptr, n / parts});
        auto px = rt::partition(hx, rt::blocks(parts));
        auto py = rt::partition(hy, rt::blocks(parts));
        for (int64_t i = 0; i < parts; ++i)
            r.submit(reverse, read(px[i]), scratch(tmp), write(py[i]));
    }
    for (int64_t b = 0; b < parts; ++b)
        for (int64_t i = 0; i < n / parts; ++i)
            ASSERT_EQ(y[std::size_t(b * 50 + i)], x[std::size_t(b * 50 + 49 - i)]);
    EXPECT_THROW((rt::Handle<rt::Vector<double>>::temporary(r, rt::Vector<double>{y.data(), 4})),
                 tessera::InvalidArgument);
}

// ---- COMMUTE -----------------------------------------------------------------------------------------

std::atomic<int> inside{0};
std::atomic<int> overlaps{0};

TEST_P(RelaxedModes, CommuteNeverTogether)
{
    rt::Runtime r = make();
    const rt::Codelet<rt::Variable<int64_t>, int64_t> accumulate{
        .name = "accumulate", .cpu = +[](rt::Variable<int64_t> acc, int64_t v) {
            if (inside.fetch_add(1) != 0) overlaps.fetch_add(1);
            int64_t old = *acc;
            std::this_thread::sleep_for(std::chrono::microseconds(50));
            *acc = old + v;  // a lost update if two ran at once
            inside.fetch_sub(1);
        }};
    const rt::Codelet<rt::Variable<int64_t>, int64_t> scale{
        .name = "scale", .cpu = +[](rt::Variable<int64_t> acc, int64_t f) { *acc *= f; }};
    overlaps = 0;
    int64_t acc = 1;
    {
        rt::Handle h{r, rt::Variable<int64_t>{&acc}};
        r.submit(scale, readwrite(h), rt::value(int64_t(10)));                             // 10
        for (int64_t i = 1; i <= 50; ++i) r.submit(accumulate, commute(h), rt::value(i));  // + 1275
        r.submit(scale, readwrite(h), rt::value(int64_t(2)));  // x 2, after all
        for (int64_t i = 1; i <= 10; ++i) r.submit(accumulate, commute(h), rt::value(i));  // + 55
    }
    EXPECT_EQ(overlaps.load(), 0);
    EXPECT_EQ(acc, (10 + 1275) * 2 + 55);
}

// Tasks holding two commuting handles in different orders never deadlock.
TEST_P(RelaxedModes, CommuteOnTwoHandles)
{
    rt::Runtime r = make();
    const rt::Codelet<rt::Variable<int64_t>, rt::Variable<int64_t>> swap_add{
        .name = "two", .cpu = +[](rt::Variable<int64_t> a, rt::Variable<int64_t> b) {
            *a += 1;
            *b += 2;
        }};
    int64_t a = 0, b = 0;
    {
        rt::Handle ha{r, rt::Variable<int64_t>{&a}}, hb{r, rt::Variable<int64_t>{&b}};
        for (int i = 0; i < 200; ++i) {
            if (i % 2)
                r.submit(swap_add, commute(ha), commute(hb));
            else
                r.submit(swap_add, commute(hb), commute(ha));
        }
    }
    EXPECT_EQ(a + b, 600);
    EXPECT_EQ(a, 100 * 1 + 100 * 2);
}

std::vector<Param> params()
{
    std::vector<Param> out;
    for (auto const& s : rt::policies().names())
        for (int e : {0, 2}) out.push_back({s, e});
    return out;
}

INSTANTIATE_TEST_SUITE_P(EveryPolicy, RelaxedModes, testing::ValuesIn(params()),
                         [](auto const& info) {
                             return tessera::test::sanitize(info.param.scheduler) + "_" +
                                    std::to_string(info.param.nemu) + "emu";
                         });

}  // namespace
