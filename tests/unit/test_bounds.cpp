// The theoretical bounds of a task graph (include/tessera/rt/bound.hpp):
//  - the area bound against optima solved by hand: one class, two classes sharing one type,
//    a type only one class runs, 15 cores and a GPU; zero tasks give 0 s; bad arguments and a
//    type no class runs throw InvalidArgument naming them; on random problems the split it
//    returns is feasible and reaches T, T is at least the work at the fastest lengths over the
//    workers, and equals the work over the workers when every class is as fast;
//  - the critical path of a diamond, of a graph whose longest path is one task alone, of the
//    graph a runtime records; a cycle, an unknown id, a repeated id or a negative length
//    throw; on random DAGs, given in any order, it agrees with a memoised depth-first search.
// The area bound's cases skip themselves when Tessera was built without GLPK.
#include <tessera/rt/bound.hpp>
#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

namespace rt = tessera::rt;
using tessera::InvalidArgument;

constexpr double inf = std::numeric_limits<double>::infinity();

/// The message of the InvalidArgument `f` throws ("" if none, or another exception).
template <class F> std::string invalid_argument_of(F&& f)
{
    try {
        f();
    } catch (InvalidArgument const& e) {
        return e.what();
    } catch (...) {}
    return "";
}

#define REQUIRE_GLPK()                                                                             \
    if (!rt::area_bound_available()) GTEST_SKIP() << "Tessera was built without GLPK"

// ---- the area bound, solved by hand ---------------------------------------------------------

TEST(AreaBound, OneClassSharesTheWorkEvenly)
{
    REQUIRE_GLPK();
    // 4 tasks of 1 s on 2 workers: 4 x 1 <= 2 T, so T = 2.
    std::vector<rt::WorkerClass> classes{{"cpu", 2}};
    std::vector<rt::TaskType> types{{.name = "A", .count = 4, .seconds = {{"cpu", 1.0}}}};
    auto b = rt::area_bound(classes, types);
    EXPECT_NEAR(b.seconds, 2.0, 1e-9);
    ASSERT_EQ(b.tasks.size(), 1u);
    ASSERT_EQ(b.tasks[0].size(), 1u);
    EXPECT_NEAR(b.tasks[0][0], 4.0, 1e-9);
}

TEST(AreaBound, TwoClassesFinishTogether)
{
    REQUIRE_GLPK();
    // 10 tasks of 1 s on the core, 0.1 s on the GPU. At the optimum both finish at T:
    // n_cpu x 1 = T and (10 - n_cpu) x 0.1 = T, so 1.1 n_cpu = 1: n_cpu = 10/11, T = 10/11.
    std::vector<rt::WorkerClass> classes{{"cpu", 1}, {"gpu", 1}};
    std::vector<rt::TaskType> types{
        {.name = "A", .count = 10, .seconds = {{"cpu", 1.0}, {"gpu", 0.1}}}};
    auto b = rt::area_bound(classes, types);
    EXPECT_NEAR(b.seconds, 10.0 / 11, 1e-9);
    EXPECT_NEAR(b.tasks[0][0], 10.0 / 11, 1e-9);
    EXPECT_NEAR(b.tasks[0][1], 100.0 / 11, 1e-9);
}

TEST(AreaBound, TypeOnlyOneClassRuns)
{
    REQUIRE_GLPK();
    // B (2 tasks of 1 s) runs only on the core; A (30 tasks, 1 s / 0.1 s) on both. With n the
    // A tasks on the core: 2 + n = T and (30 - n) x 0.1 = T, so 1.1 n = 1: n = 10/11 and
    // T = 32/11. The GPU's length of B is infinite, or negative, or absent: all three mean
    // that it cannot run B.
    std::vector<rt::WorkerClass> classes{{"cpu", 1}, {"gpu", 1}};
    for (double gpu_b : {inf, -1.0, 0.0}) {
        rt::TaskType b_type{.name = "B", .count = 2, .seconds = {{"cpu", 1.0}}};
        if (gpu_b != 0.0) b_type.seconds["gpu"] = gpu_b;  // 0.0: absent
        std::vector<rt::TaskType> types{
            {.name = "A", .count = 30, .seconds = {{"cpu", 1.0}, {"gpu", 0.1}}}, b_type};
        auto b = rt::area_bound(classes, types);
        EXPECT_NEAR(b.seconds, 32.0 / 11, 1e-9) << "B on the GPU: " << gpu_b;
        EXPECT_NEAR(b.tasks[0][0], 10.0 / 11, 1e-9);
        EXPECT_NEAR(b.tasks[0][1], 30 - 10.0 / 11, 1e-9);
        EXPECT_NEAR(b.tasks[1][0], 2.0, 1e-9);
        EXPECT_EQ(b.tasks[1][1], 0.0) << "B ran on the GPU";
    }
}

TEST(AreaBound, FifteenCoresAndAGpu)
{
    REQUIRE_GLPK();
    // 160 tasks, 1 s on a core, 0.1 s on the GPU. n on the cores: n x 1 = 15 T and
    // (160 - n) x 0.1 = T, so 16 - 1.5 T = T: T = 6.4, n = 96, and 64 on the GPU.
    std::vector<rt::WorkerClass> classes{{"cpu", 15}, {"cuda", 1}};
    std::vector<rt::TaskType> types{
        {.name = "dgemm", .count = 160, .seconds = {{"cpu", 1.0}, {"cuda", 0.1}}}};
    auto b = rt::area_bound(classes, types);
    EXPECT_NEAR(b.seconds, 6.4, 1e-9);
    EXPECT_NEAR(b.tasks[0][0], 96.0, 1e-7);
    EXPECT_NEAR(b.tasks[0][1], 64.0, 1e-7);
}

TEST(AreaBound, SmallLengthsAndLargeCounts)
{
    REQUIRE_GLPK();
    // TwoClassesFinishTogether at other scales: 10^6 tasks of 1 µs / 0.1 µs. n x 10^-6 = T and
    // (10^6 - n) x 10^-7 = T, so 0.1 - 0.1 T = T: T = 1/11 s, n = 10^6/11. The solver must not
    // lose it to the scales.
    std::vector<rt::WorkerClass> classes{{"cpu", 1}, {"gpu", 1}};
    std::vector<rt::TaskType> types{
        {.name = "A", .count = 1'000'000, .seconds = {{"cpu", 1e-6}, {"gpu", 1e-7}}}};
    auto b = rt::area_bound(classes, types);
    EXPECT_NEAR(b.seconds, 1.0 / 11, 1e-12);
    EXPECT_NEAR(b.tasks[0][0], 1e6 / 11, 1e-4);
}

TEST(AreaBound, ZeroTasksTakeNoTime)
{
    // No solver needed: this holds without GLPK too.
    std::vector<rt::WorkerClass> classes{{"cpu", 4}, {"gpu", 1}};
    EXPECT_EQ(rt::area_bound(classes, {}).seconds, 0.0);
    EXPECT_EQ(rt::area_bound({}, {}).seconds, 0.0);
    // types without tasks, even one that no class can run
    std::vector<rt::TaskType> types{{.name = "A", .count = 0, .seconds = {{"cpu", 1.0}}},
                                    {.name = "B", .count = 0}};
    auto b = rt::area_bound(classes, types);
    EXPECT_EQ(b.seconds, 0.0);
    EXPECT_EQ(b.tasks, std::vector<std::vector<double>>(2, std::vector<double>(2, 0.0)));
}

TEST(AreaBound, TypeNoClassRunsThrows)
{
    std::vector<rt::WorkerClass> classes{{"cpu", 1}, {"gpu", 1}};
    std::vector<rt::TaskType> types{
        {.name = "A", .count = 1, .seconds = {{"cpu", 1.0}}},
        {.name = "lonely", .count = 3, .seconds = {{"cpu", inf}, {"gpu", -1.0}}}};
    auto msg = invalid_argument_of([&] { rt::area_bound(classes, types); });
    EXPECT_NE(msg.find("\"lonely\""), std::string::npos) << msg;
    EXPECT_NE(msg.find("types[1]"), std::string::npos) << msg;
    // no class at all
    msg = invalid_argument_of([&] { rt::area_bound({}, std::span(types).first(1)); });
    EXPECT_NE(msg.find("\"A\""), std::string::npos) << msg;
}

TEST(AreaBound, BadArgumentsThrow)
{
    std::vector<rt::TaskType> types{{.name = "A", .count = 1, .seconds = {{"cpu", 1.0}}}};
    auto message = [&](std::vector<rt::WorkerClass> const& classes,
                       std::vector<rt::TaskType> const& ts) {
        return invalid_argument_of([&] { rt::area_bound(classes, ts); });
    };
    auto msg = message({{"cpu", 0}}, types);
    EXPECT_NE(msg.find("workers"), std::string::npos) << msg;
    msg = message({{"cpu", 1}, {"cpu", 2}}, types);
    EXPECT_NE(msg.find("classes[1]"), std::string::npos) << msg;
    msg = message({{"cpu", 1}}, {{.name = "A", .count = 1, .seconds = {{"gpu", 1.0}}}});
    EXPECT_NE(msg.find("\"gpu\""), std::string::npos) << msg;
    msg = message({{"cpu", 1}}, {{.name = "A",
                                  .count = 1,
                                  .seconds = {{"cpu", std::numeric_limits<double>::quiet_NaN()}}}});
    EXPECT_NE(msg.find("not a number"), std::string::npos) << msg;
}

TEST(AreaBound, WithoutGlpkThrows)
{
    if (rt::area_bound_available()) GTEST_SKIP() << "Tessera was built with GLPK";
    std::vector<rt::WorkerClass> classes{{"cpu", 1}};
    std::vector<rt::TaskType> types{{.name = "A", .count = 1, .seconds = {{"cpu", 1.0}}}};
    try {
        rt::area_bound(classes, types);
        ADD_FAILURE() << "no exception";
    } catch (tessera::Error const& e) {
        EXPECT_NE(std::string(e.what()).find("libglpk-dev"), std::string::npos) << e.what();
    }
}

// ---- the area bound on random problems ------------------------------------------------------

struct RandomProblem {
    std::vector<rt::WorkerClass> classes;
    std::vector<rt::TaskType> types;
};

/// 1-3 classes of 1-8 workers, 1-4 types of 0-50 tasks; lengths in [0.01, 1] s, each class
/// as fast as the others when `uniform`, otherwise each type runnable on a random subset.
RandomProblem random_problem(std::mt19937_64& rng, bool uniform)
{
    auto uniform_int = [&](int lo, int hi) { return std::uniform_int_distribution(lo, hi)(rng); };
    std::uniform_real_distribution<double> length(0.01, 1.0);
    RandomProblem p;
    int const nclasses = uniform_int(1, 3), ntypes = uniform_int(1, 4);
    for (int c = 0; c < nclasses; ++c)
        p.classes.push_back({"class" + std::to_string(c), uniform_int(1, 8)});
    for (int t = 0; t < ntypes; ++t) {
        rt::TaskType type{.name = "type" + std::to_string(t),
                          .count = uint64_t(uniform_int(0, 50))};
        double const d = length(rng);
        int const always = uniform_int(0, nclasses - 1);  // a class that runs it
        for (int c = 0; c < nclasses; ++c)
            if (uniform || c == always || uniform_int(0, 1) == 1)
                type.seconds[p.classes[c].name] = uniform ? d : length(rng);
        p.types.push_back(type);
    }
    return p;
}

TEST(AreaBound, RandomProblemsWithEqualClassesShareTheWorkEvenly)
{
    REQUIRE_GLPK();
    // Every class as fast: the workers are interchangeable, so T = Σ_t n_t d_t / Σ_c m_c.
    std::mt19937_64 rng(20240611);
    for (int trial = 0; trial < 200; ++trial) {
        auto p = random_problem(rng, true);
        double work = 0;
        for (auto const& t : p.types) work += double(t.count) * t.seconds.begin()->second;
        int workers = 0;
        for (auto const& c : p.classes) workers += c.workers;
        auto b = rt::area_bound(p.classes, p.types);
        EXPECT_GE(b.seconds, work / workers * (1 - 1e-9)) << "trial " << trial;
        EXPECT_NEAR(b.seconds, work / workers, 1e-9 * std::max(1.0, work)) << "trial " << trial;
    }
}

TEST(AreaBound, RandomProblemsGiveFeasibleSplits)
{
    REQUIRE_GLPK();
    // The split returned runs every task (Σ_c n_{t,c} = n_t), only where it can, and keeps
    // each class within m_c T; T is at least the work at the fastest lengths over the workers.
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 200; ++trial) {
        auto p = random_problem(rng, false);
        auto b = rt::area_bound(p.classes, p.types);
        ASSERT_EQ(b.tasks.size(), p.types.size());
        double fastest_work = 0;
        std::vector<double> load(p.classes.size(), 0.0);
        for (std::size_t t = 0; t < p.types.size(); ++t) {
            auto const& type = p.types[t];
            double fastest = inf, count = 0;
            for (std::size_t c = 0; c < p.classes.size(); ++c) {
                auto it = type.seconds.find(p.classes[c].name);
                double const n = b.tasks[t][c];
                EXPECT_GE(n, 0.0);
                if (it == type.seconds.end()) {
                    EXPECT_EQ(n, 0.0) << "trial " << trial << ": a class ran what it cannot";
                    continue;
                }
                fastest = std::min(fastest, it->second);
                load[c] += n * it->second;
                count += n;
            }
            EXPECT_NEAR(count, double(type.count), 1e-6) << "trial " << trial;
            fastest_work += double(type.count) * fastest;
        }
        int workers = 0;
        for (std::size_t c = 0; c < p.classes.size(); ++c) {
            EXPECT_LE(load[c], p.classes[c].workers * b.seconds + 1e-6) << "trial " << trial;
            workers += p.classes[c].workers;
        }
        EXPECT_GE(b.seconds, fastest_work / workers - 1e-9) << "trial " << trial;
    }
}

// ---- the critical path ----------------------------------------------------------------------

using Kind = rt::DependencyKind;

TEST(CriticalPath, Diamond)
{
    //        b (2 s)
    //      /        \.
    // a (1 s)        d (1 s)      a-b-d: 4 s, a-c-d: 1 + 5 + 1 = 7 s
    //      \        /
    //        c (5 s)
    std::vector<rt::PathTask> tasks{{10, 1.0}, {20, 2.0}, {30, 5.0}, {40, 1.0}};
    std::vector<rt::DependencyEdge> edges{{10, 20, Kind::read_after_write},
                                          {10, 30, Kind::read_after_write},
                                          {20, 40, Kind::read_after_write},
                                          {30, 40, Kind::write_after_read}};
    auto path = rt::critical_path(tasks, edges);
    EXPECT_DOUBLE_EQ(path.seconds, 7.0);
    EXPECT_EQ(path.tasks, (std::vector<uint64_t>{10, 30, 40}));
    // the order of the tasks and of the edges does not matter
    std::ranges::reverse(tasks);
    std::ranges::reverse(edges);
    path = rt::critical_path(tasks, edges);
    EXPECT_DOUBLE_EQ(path.seconds, 7.0);
    EXPECT_EQ(path.tasks, (std::vector<uint64_t>{10, 30, 40}));
}

TEST(CriticalPath, LongestTaskAlone)
{
    // chain 1 -> 2 -> 3 of 1 s each (3 s) beside task 4 of 5 s, which no edge names
    std::vector<rt::PathTask> tasks{{1, 1.0}, {2, 1.0}, {3, 1.0}, {4, 5.0}};
    std::vector<rt::DependencyEdge> edges{{1, 2, Kind::explicit_task}, {2, 3, Kind::explicit_task}};
    auto path = rt::critical_path(tasks, edges);
    EXPECT_DOUBLE_EQ(path.seconds, 5.0);
    EXPECT_EQ(path.tasks, (std::vector<uint64_t>{4}));
    // an edge given twice changes nothing
    edges.push_back(edges.front());
    tasks.back().seconds = 0.5;
    path = rt::critical_path(tasks, edges);
    EXPECT_DOUBLE_EQ(path.seconds, 3.0);
    EXPECT_EQ(path.tasks, (std::vector<uint64_t>{1, 2, 3}));
}

TEST(CriticalPath, Empty)
{
    auto path = rt::critical_path({}, {});
    EXPECT_EQ(path.seconds, 0.0);
    EXPECT_TRUE(path.tasks.empty());
}

TEST(CriticalPath, BadGraphsThrow)
{
    std::vector<rt::PathTask> tasks{{1, 1.0}, {2, 1.0}, {3, 1.0}};
    auto message = [&](std::vector<rt::DependencyEdge> const& edges) {
        return invalid_argument_of([&] { rt::critical_path(tasks, edges); });
    };
    auto msg = message(
        {{1, 2, Kind::explicit_task}, {2, 3, Kind::explicit_task}, {3, 2, Kind::explicit_task}});
    EXPECT_NE(msg.find("the graph has a cycle"), std::string::npos) << msg;
    msg = message({{2, 2, Kind::explicit_task}});
    EXPECT_NE(msg.find("the graph has a cycle"), std::string::npos) << msg;
    msg = message({{1, 2, Kind::explicit_task}, {2, 99, Kind::explicit_task}});
    EXPECT_NE(msg.find("edges[1]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("99"), std::string::npos) << msg;
    std::vector<rt::PathTask> twice{{1, 1.0}, {1, 2.0}};
    msg = invalid_argument_of([&] { rt::critical_path(twice, {}); });
    EXPECT_NE(msg.find("tasks[1]"), std::string::npos) << msg;
    std::vector<rt::PathTask> negative{{1, -1.0}};
    msg = invalid_argument_of([&] { rt::critical_path(negative, {}); });
    EXPECT_NE(msg.find("tasks[0]"), std::string::npos) << msg;
}

TEST(CriticalPath, RandomDagsAgreeWithDepthFirstSearch)
{
    // Edges only from a lower to a higher rank make a DAG; tasks and edges are then shuffled.
    // The reference: longest(i) = seconds(i) + max over successors j of longest(j), memoised.
    std::mt19937_64 rng(42);
    for (int trial = 0; trial < 100; ++trial) {
        int const n = std::uniform_int_distribution(1, 60)(rng);
        std::vector<rt::PathTask> tasks;
        std::vector<uint64_t> ids(n);
        std::iota(ids.begin(), ids.end(), uint64_t{1000});
        std::ranges::shuffle(ids, rng);  // id order is not the topological order
        for (int i = 0; i < n; ++i)
            tasks.push_back({ids[i], std::uniform_real_distribution(0.0, 1.0)(rng)});
        std::vector<rt::DependencyEdge> edges;
        std::vector<std::vector<int>> succ(n);
        std::bernoulli_distribution link(0.1);
        for (int i = 0; i < n; ++i)
            for (int j = i + 1; j < n; ++j)
                if (link(rng)) {
                    edges.push_back({ids[i], ids[j], Kind::read_after_write});
                    succ[i].push_back(j);
                }
        std::vector<double> memo(n, -1);
        std::function<double(int)> longest = [&](int i) {
            if (memo[i] >= 0) return memo[i];
            double best = 0;
            for (int j : succ[i]) best = std::max(best, longest(j));
            return memo[i] = tasks[i].seconds + best;
        };
        double want = 0;
        for (int i = 0; i < n; ++i) want = std::max(want, longest(i));

        std::ranges::shuffle(tasks, rng);
        std::ranges::shuffle(edges, rng);
        auto path = rt::critical_path(tasks, edges);
        EXPECT_NEAR(path.seconds, want, 1e-12) << "trial " << trial;
        // the path is a path, and its lengths add up to its length
        double sum = 0;
        for (std::size_t k = 0; k < path.tasks.size(); ++k) {
            auto t = std::ranges::find(tasks, path.tasks[k], &rt::PathTask::id);
            ASSERT_NE(t, tasks.end());
            sum += t->seconds;
            if (k > 0) {
                rt::DependencyEdge const e{path.tasks[k - 1], path.tasks[k],
                                           Kind::read_after_write};
                EXPECT_NE(std::ranges::find(edges, e), edges.end()) << "trial " << trial;
            }
        }
        EXPECT_NEAR(sum, path.seconds, 1e-12) << "trial " << trial;
    }
}

// ---- the graph a runtime records ------------------------------------------------------------

void touch(rt::Variable<int64_t>)
{}
void look(rt::Variable<int64_t const>, rt::Variable<int64_t>)
{}
const rt::Codelet<rt::Variable<int64_t>> touch_cl{.name = "touch", .cpu = &touch};
const rt::Codelet<rt::Variable<int64_t const>, rt::Variable<int64_t>> look_cl{.name = "look",
                                                                              .cpu = &look};

TEST(CriticalPath, RecordedGraph)
{
    // The diamond of CriticalPath.Diamond, submitted: b and c read what a wrote, d overwrites
    // a's data after them (write after read) and b's and c's.
    rt::Runtime r{{.ncpus = 2}};
    int64_t x = 0, y = 0, z = 0;
    rt::Handle hx{r, rt::Variable<int64_t>{&x}}, hy{r, rt::Variable<int64_t>{&y}},
        hz{r, rt::Variable<int64_t>{&z}};
    r.record_dependencies(true);
    auto a = r.submit(touch_cl, rt::readwrite(hx));
    auto b = r.submit(look_cl, rt::read(hx), rt::readwrite(hy));
    auto c = r.submit(look_cl, rt::read(hx), rt::readwrite(hz));
    auto d = r.submit(touch_cl, rt::readwrite(hx), rt::after(b), rt::after(c));
    r.wait_all();
    std::vector<rt::PathTask> tasks{{a.id(), 1.0}, {b.id(), 2.0}, {c.id(), 5.0}, {d.id(), 1.0}};
    auto path = rt::critical_path(tasks, r.recorded_dependencies());
    EXPECT_DOUBLE_EQ(path.seconds, 7.0);
    EXPECT_EQ(path.tasks, (std::vector<uint64_t>{a.id(), c.id(), d.id()}));
}

}  // namespace
