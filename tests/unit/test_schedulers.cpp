// Scheduling policies (include/tessera/rt/sched.hpp, runtime/sched/):
//  - the registry: the five built-in names, descriptions, unknown names rejected with the list
//    of known ones, and a user-defined policy (a FIFO written here) registered and used: it
//    sees every task once through push/pop and its hooks, and with one worker runs FIFO;
//  - for every registered policy x {1, 2, 4} workers: 10000 independent tasks each execute
//    exactly once and executed_per_worker() adds up; with >= 2 workers, when one task
//    releases many, every worker takes part (ws/lws must steal: the released tasks are queued
//    on the releasing worker); random spreads tasks over all workers;
//  - workers: ids, current_worker() inside and outside tasks;
//  - the environment: TESSERA_SCHED, TESSERA_NCPU, TESSERA_PIN and TESSERA_MAX_PENDING are
//    honoured when the configuration leaves the field at its default, and an explicit field
//    wins.
#include "common/runtime_sweep.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <deque>
#include <mutex>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace rt = tessera::rt;
using namespace tessera::test;
using tessera::InvalidArgument;

// ---- the registry -------------------------------------------------------------------------------

TEST(Registry, HoldsTheBuiltInPolicies)
{
    auto names = rt::policies().names();
    for (char const* builtin : {"eager", "prio", "random", "ws", "lws"}) {
        EXPECT_NE(std::find(names.begin(), names.end(), builtin), names.end()) << builtin;
        EXPECT_TRUE(rt::policies().contains(builtin)) << builtin;
    }
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size())
        << "a name is listed twice";
    for (auto const& n : names) {
        EXPECT_FALSE(rt::policies().description(n).empty()) << n;
        auto p = rt::policies().create(n);
        ASSERT_NE(p, nullptr) << n;
        EXPECT_EQ(p->name(), n) << "a policy reports the name it is registered under";
        auto range = p->priorities();
        EXPECT_LE(range.min, range.max) << n;
    }
    EXPECT_FALSE(rt::policies().contains("no-such-policy"));
}

TEST(Registry, DeclaredPriorityRanges)
{
    auto range = [](char const* n) { return rt::policies().create(n)->priorities(); };
    EXPECT_EQ(range("eager").min, 0);
    EXPECT_EQ(range("eager").max, 1) << "eager: binary priorities";
    for (char const* full : {"prio", "random", "lws", "dmdas", "dmdasd"}) {
        EXPECT_EQ(range(full).min, INT_MIN) << full;
        EXPECT_EQ(range(full).max, INT_MAX) << full;
    }
    for (char const* binary : {"dm", "dmda"}) {
        EXPECT_EQ(range(binary).min, 0) << binary;
        EXPECT_EQ(range(binary).max, 1) << binary;
    }
    EXPECT_EQ(range("ws").min, range("ws").max) << "ws ignores priorities";
}

TEST(Registry, UnknownNameThrowsWithTheKnownNames)
{
    try {
        rt::policies().create("no-such-policy");
        FAIL() << "no exception";
    } catch (InvalidArgument const& e) {
        std::string msg = e.what();
        EXPECT_NE(msg.find("no-such-policy"), std::string::npos) << msg;
        for (auto const& n : rt::policies().names())
            EXPECT_NE(msg.find(n), std::string::npos) << msg;
    }
    EXPECT_THROW(rt::policies().add("", "empty", [] { return rt::policies().create("eager"); }),
                 InvalidArgument);
    EXPECT_THROW(rt::policies().add("null-factory", "no factory", nullptr), InvalidArgument);
    EXPECT_FALSE(rt::policies().contains("null-factory"));
}

// ---- a user-defined policy ------------------------------------------------------------------------

/// What the test policy saw (shared by its instances).
struct FifoStats {
    std::atomic<int> instances{0};
    std::atomic<int> inits{0};
    std::atomic<unsigned> workers{0};
    std::atomic<bool> neighbours_ok{true};
    std::atomic<int64_t> pushes{0}, pops{0}, starts{0}, completes{0};
};
FifoStats fifo_stats;

/// The simplest conforming policy: one FIFO shared by all workers.
class Fifo final : public rt::Policy {
public:
    Fifo() { fifo_stats.instances.fetch_add(1); }
    std::string_view name() const noexcept override { return "test-fifo"; }
    void init(rt::PolicyHost& h) override
    {
        Policy::init(h);
        fifo_stats.inits.fetch_add(1);
        fifo_stats.workers.store(h.worker_count());
        for (rt::WorkerId w = 0; w < h.worker_count(); ++w) {
            auto nb = h.neighbours(w);
            std::set<rt::WorkerId> s(nb.begin(), nb.end());
            if (nb.size() != h.worker_count() - 1 || s.size() != nb.size() || s.contains(w))
                fifo_stats.neighbours_ok.store(false);
        }
    }
    void push(rt::ReadyTask t) override
    {
        {
            std::lock_guard lock(m_);
            q_.push_back(t);
        }
        fifo_stats.pushes.fetch_add(1);
        host().wake_any(t);
    }
    rt::ReadyTask pop(rt::WorkerId w) override
    {
        std::lock_guard lock(m_);
        for (auto it = q_.begin(); it != q_.end(); ++it)
            if (it->can_run_on(w)) {
                rt::ReadyTask t = *it;
                q_.erase(it);
                fifo_stats.pops.fetch_add(1);
                return t;
            }
        return {};
    }
    void on_start(rt::ReadyTask, rt::WorkerId) override { fifo_stats.starts.fetch_add(1); }
    void on_complete(rt::ReadyTask, rt::WorkerId) override { fifo_stats.completes.fetch_add(1); }

private:
    std::mutex m_;
    std::deque<rt::ReadyTask> q_;
};

void register_fifo()
{
    rt::policies().add("test-fifo", "a FIFO written by the test",
                       [] { return std::make_unique<Fifo>(); });
}

TEST(UserPolicy, RegisteredAndUsed)
{
    register_fifo();
    register_fifo();  // adding again replaces: still one entry
    auto names = rt::policies().names();
    EXPECT_EQ(std::count(names.begin(), names.end(), "test-fifo"), 1);
    EXPECT_EQ(rt::policies().description("test-fifo"), "a FIFO written by the test");

    fifo_stats.pushes = fifo_stats.pops = fifo_stats.starts = fifo_stats.completes = 0;
    int inits = fifo_stats.inits.load();
    constexpr int n = 2000;
    std::atomic<int64_t> count{0};
    {
        rt::Runtime rt{{.ncpus = 2, .scheduler = "test-fifo"}};
        EXPECT_EQ(rt.scheduler(), "test-fifo");
        EXPECT_EQ(fifo_stats.inits.load(), inits + 1);
        EXPECT_EQ(fifo_stats.workers.load(), 2u);
        EXPECT_TRUE(fifo_stats.neighbours_ok.load());
        int64_t x = 0;
        rt::Handle h{rt, rt::Variable<int64_t>{&x}};
        for (int k = 0; k < n; ++k) {
            rt.submit(count_cl, rt::value(&count));
            rt.submit(affine_var, rt::readwrite(h), rt::value(int64_t{k % 3}));
        }
        rt.wait_all();
        h.unregister();
        int64_t want = 0;
        for (int k = 0; k < n; ++k) want = affine(want, k % 3);
        EXPECT_EQ(x, want);
    }
    EXPECT_EQ(count.load(), n);
    EXPECT_EQ(fifo_stats.pushes.load(), 2 * n) << "every task is pushed once";
    EXPECT_EQ(fifo_stats.pops.load(), 2 * n);
    EXPECT_EQ(fifo_stats.starts.load(), 2 * n);
    EXPECT_EQ(fifo_stats.completes.load(), 2 * n);

    // with one worker, the order is the policy's: FIFO
    rt::Runtime rt{{.ncpus = 1, .scheduler = "test-fifo"}};
    Gate gate;
    OrderLog log;
    {
        auto opener = gate.opener();
        rt.submit(gate_cl, rt::value(&gate));
        ASSERT_TRUE(gate.wait_entered());
        for (int k = 0; k < 50; ++k)
            rt.submit(log_cl, rt::value(&log), rt::value(k), rt::priority(k % 7));
    }
    rt.wait_all();
    std::vector<int> want(50);
    std::iota(want.begin(), want.end(), 0);
    EXPECT_EQ(log.order, want);
}

// ---- every policy: conformance -----------------------------------------------------------------------

void hit_cpu(std::atomic<int>* hits, int k)
{
    hits[k].fetch_add(1);
}
const rt::Codelet<std::atomic<int>*, int> hit{.name = "hit", .cpu = &hit_cpu};

class Policies : public RuntimeSweep {};

TEST_P(Policies, ManyIndependentTasksRunExactlyOnce)
{
    auto rt = make_runtime();
    EXPECT_EQ(rt->scheduler(), scheduler());
    EXPECT_EQ(rt->worker_count(), unsigned(ncpus() + sweep_emulated_devices()));
    constexpr int n = 10000;
    std::vector<std::atomic<int>> hits(n);
    for (int k = 0; k < n; ++k)
        rt->submit(hit, rt::value(hits.data()), rt::value(k), rt::priority(k % 5 - 2));
    rt->wait_all();
    int wrong = 0;
    for (int k = 0; k < n; ++k) wrong += hits[std::size_t(k)].load() != 1;
    EXPECT_EQ(wrong, 0) << "tasks run zero or several times";
    auto per = rt->executed_per_worker();
    ASSERT_EQ(per.size(), std::size_t(rt->worker_count()));
    EXPECT_EQ(std::accumulate(per.begin(), per.end(), uint64_t{0}), uint64_t(n));
}

TEST_P(Policies, WorkersKnowWhoTheyAre)
{
    auto rt = make_runtime();
    EXPECT_EQ(rt::Runtime::current_worker(), rt::no_worker);
    for (rt::WorkerId w = 0; w < rt->worker_count(); ++w) {
        EXPECT_EQ(rt->worker(w).id, w);
        EXPECT_EQ(rt->worker(w).arch, w < unsigned(ncpus()) ? rt::Arch::cpu : rt::Arch::emu);
    }
    EXPECT_THROW(rt->worker(rt->worker_count()), InvalidArgument);
    std::vector<std::atomic<unsigned>> seen(200);
    for (auto& s : seen) s = rt::no_worker;
    for (std::size_t k = 0; k < seen.size(); ++k)
        rt->submit(sleep_cl, rt::value(int64_t{0}),
                   rt::callback([&seen, k] { seen[k].store(rt::Runtime::current_worker()); }));
    rt->wait_all();
    for (auto& s : seen) EXPECT_LT(s.load(), rt->worker_count());
    // executed_per_worker agrees with where tasks ran
    auto per = rt->executed_per_worker();
    for (auto& s : seen) EXPECT_GT(per[s.load()], 0u);
}

TESSERA_INSTANTIATE_SWEEP(Policies);

// ---- every policy with >= 2 workers: all workers take part -------------------------------------------

struct WhoRan {
    std::vector<std::atomic<int>> by_worker;
    explicit WhoRan(unsigned n) : by_worker(n) {}
};
void record_worker_cpu(rt::Variable<int64_t const>, WhoRan* who, int64_t sleep_us)
{
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
    who->by_worker[rt::Runtime::current_worker()].fetch_add(1);
}
const rt::Codelet<rt::Variable<int64_t const>, WhoRan*, int64_t> record_worker{
    .name = "record_worker", .cpu = &record_worker_cpu};

class PoliciesParallel : public RuntimeSweep {};

TEST_P(PoliciesParallel, OneTaskReleasesManyAndEveryWorkerTakesPart)
{
    // The 64 readers become ready together when the writer completes, on the writer's worker:
    // ws and lws queue them there, so the other workers only get them by stealing.
    auto rt = make_runtime();
    WhoRan who(rt->worker_count());
    int64_t x = 0;
    rt::Handle h{*rt, rt::Variable<int64_t>{&x}};
    for (int round = 0; round < 3; ++round) {
        rt->submit(add_var, rt::readwrite(h), rt::value(int64_t{1}));
        for (int k = 0; k < 64; ++k)
            rt->submit(record_worker, rt::read(h), rt::value(&who), rt::value(int64_t{1000}));
        rt->wait_all();
    }
    for (unsigned w = 0; w < rt->worker_count(); ++w)
        EXPECT_GT(who.by_worker[w].load(), 0) << "worker " << w << " took no part";
}

INSTANTIATE_TEST_SUITE_P(AtLeastTwoWorkers, PoliciesParallel,
                         testing::ValuesIn(runtime_params({2, 4})), runtime_param_name_of);

TEST(RandomPolicy, SpreadsTasksOverTheWorkers)
{
    for (int ncpus : {2, 4}) {
        rt::Runtime rt{{.ncpus = ncpus, .scheduler = "random"}};
        constexpr int n = 4000;
        std::vector<std::atomic<int>> hits(n);
        for (int k = 0; k < n; ++k) rt.submit(hit, rt::value(hits.data()), rt::value(k));
        rt.wait_all();
        auto per = rt.executed_per_worker();
        // random never moves a task once drawn: each worker runs about n / W (binomial, with a
        // standard deviation near 30), far above the bound below
        for (std::size_t w = 0; w < per.size(); ++w)
            EXPECT_GT(per[w], uint64_t(n / (2 * ncpus))) << "worker " << w << " of " << ncpus;
    }
}

// ---- the environment -------------------------------------------------------------------------------

TEST(Environment, SchedulerVariable)
{
    {
        ScopedEnv env("TESSERA_SCHED", "lws");
        rt::Runtime rt{{.ncpus = 1}};
        EXPECT_EQ(rt.scheduler(), "lws");
        EXPECT_EQ(rt.config().scheduler, "lws");
        rt::Runtime explicit_rt{{.ncpus = 1, .scheduler = "prio"}};
        EXPECT_EQ(explicit_rt.scheduler(), "prio") << "an explicit field wins";
    }
    {
        ScopedEnv env("TESSERA_SCHED", std::nullopt);
        rt::Runtime rt{{.ncpus = 1}};
        EXPECT_EQ(rt.scheduler(), "dmdas") << "the built-in default (heft-tmdp-pr)";
    }
    {
        ScopedEnv env("TESSERA_SCHED", "");
        rt::Runtime rt{{.ncpus = 1}};
        EXPECT_EQ(rt.scheduler(), "dmdas") << "an empty variable counts as unset";
    }
    for (auto const& name : rt::policies().names()) {
        ScopedEnv env("TESSERA_SCHED", name);
        rt::Runtime rt{{.ncpus = 2}};
        EXPECT_EQ(rt.scheduler(), name);
        std::atomic<int64_t> c{0};
        for (int k = 0; k < 100; ++k) rt.submit(count_cl, rt::value(&c));
        rt.wait_all();
        EXPECT_EQ(c.load(), 100) << name;
    }
}

TEST(Environment, WorkerCountVariable)
{
    {
        ScopedEnv env("TESSERA_NCPU", "3");
        rt::Runtime rt{{.scheduler = "ws"}};
        EXPECT_EQ(rt.worker_count(), 3u);
        EXPECT_EQ(rt.config().ncpus, 3);
        EXPECT_EQ(rt.executed_per_worker().size(), 3u);
        rt::Runtime explicit_rt{{.ncpus = 1}};
        EXPECT_EQ(explicit_rt.worker_count(), 1u) << "an explicit field wins";
    }
    {
        ScopedEnv env("TESSERA_NCPU", std::nullopt);
        rt::Runtime rt;
        EXPECT_GE(rt.worker_count(), 1u) << "default: one worker per core";
        EXPECT_LE(rt.worker_count(), std::max(1u, std::thread::hardware_concurrency()));
        EXPECT_EQ(rt.config().ncpus, int(rt.worker_count()));
    }
}

TEST(Environment, PinningAndWindowVariables)
{
    {
        ScopedEnv env("TESSERA_PIN", "0");
        rt::Runtime rt{{.ncpus = 2}};
        EXPECT_EQ(rt.config().pin_workers, 0);
        for (rt::WorkerId w = 0; w < rt.worker_count(); ++w) EXPECT_EQ(rt.worker(w).core, -1);
        rt::Runtime explicit_rt{{.ncpus = 2, .pin_workers = 1}};
        EXPECT_EQ(explicit_rt.config().pin_workers, 1);
        for (rt::WorkerId w = 0; w < explicit_rt.worker_count(); ++w)
            EXPECT_GE(explicit_rt.worker(w).core, 0);
    }
    {
        ScopedEnv env("TESSERA_MAX_PENDING", "100");
        rt::Runtime rt{{.ncpus = 1}};
        EXPECT_EQ(rt.config().max_pending_tasks, 100);
    }
    {
        ScopedEnv env("TESSERA_MAX_PENDING", std::nullopt);
        ScopedEnv pin("TESSERA_PIN", std::nullopt);
        rt::Runtime rt{{.ncpus = 1}};
        EXPECT_EQ(rt.config().max_pending_tasks, 10000) << "the documented default";
        EXPECT_EQ(rt.config().pin_workers, 1);
    }
}

}  // namespace
