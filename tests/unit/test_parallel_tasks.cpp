// Checks parallel tasks and scheduling contexts: an SPMD codelet gets combined workers from the
// HEFT policies once its models are calibrated, each rank learns its rank and the group's size,
// and the work is done exactly once; a fork-join codelet runs once per task; policies without
// combined workers run parallel codelets on one core; a context confines its tasks to its
// workers; bad contexts are clear errors.
#include "common/runtime_sweep.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace {

namespace rt = tessera::rt;

std::atomic<int> calls_of_size[5];

/// Each rank increments its slice; the whole vector is done once per task, whatever the size.
void spmd_increment(rt::Vector<double> v)
{
    unsigned r = rt::parallel_rank(), s = rt::parallel_size();
    calls_of_size[std::min(s, 4u)].fetch_add(1);
    int64_t first = v.n * r / s, last = v.n * (r + 1) / s;
    for (int64_t i = first; i < last; ++i) v[i] += 1;
    std::this_thread::sleep_for(std::chrono::microseconds(2000 / s));  // twice as fast on two cores
}
constexpr rt::PerfModel spmd_model{"test_spmd_increment"};
const rt::Codelet<rt::Vector<double>> spmd{.name = "spmd_increment",
                                           .cpu = &spmd_increment,
                                           .model = &spmd_model,
                                           .type = rt::ParallelKind::spmd,
                                           .max_parallelism = 2};

TEST(ParallelTasks, SpmdGetsCombinedWorkers)
{
    for (auto& c : calls_of_size) c = 0;
    rt::Runtime r{{.ncpus = 2, .scheduler = "dmdas", .perfmodel_dir = "none"}};
    std::vector<double> v(1000, 0.0);
    {
        rt::Handle h{r, rt::Vector<double>{v.data(), 1000}};
        for (int i = 0; i < 60; ++i) {
            r.submit(spmd, readwrite(h));
            r.wait_all();  // one at a time: a free group of 2 ends it first once calibrated
        }
    }
    for (double x : v) ASSERT_EQ(x, 60.0);
    EXPECT_GT(calls_of_size[2].load(), 20);  // ranks 0 and 1 of the tasks given both cores
    EXPECT_EQ(calls_of_size[2].load() % 2, 0);
}

/// What the barrier tests' kernels share: one slot per rank, and what they saw.
struct BarrierCheck {
    std::atomic<int> slot[2];
    std::atomic<int> groups_of_two{0}, mismatches{0}, broken_seen{0};
    std::atomic<bool> rank1_throws{false};
};

/// Each round, every rank writes the round into its slot, meets the other, and reads its slot:
/// without the barrier, a rank ahead would read the other's previous round.
void meet_each_round(BarrierCheck* c)
{
    const unsigned r = rt::parallel_rank(), s = rt::parallel_size();
    // twice as fast on two cores, far longer than the rounds below even under a sanitizer, so
    // that HEFT keeps giving these tasks both cores once calibrated
    std::this_thread::sleep_for(std::chrono::microseconds(4000 / s));
    if (s != 2) return;
    if (r == 0) c->groups_of_two.fetch_add(1);
    if (r == 1 && c->rank1_throws.exchange(false)) throw std::runtime_error("rank 1 failed");
    for (int round = 1; round <= 20; ++round) {
        c->slot[r].store(round, std::memory_order_relaxed);
        if (!rt::parallel_barrier()) {
            c->broken_seen.fetch_add(1);
            return;
        }
        if (c->slot[1 - r].load(std::memory_order_relaxed) != round) c->mismatches.fetch_add(1);
        if (!rt::parallel_barrier()) return;  // nobody writes the next round before both read
    }
}
constexpr rt::PerfModel barrier_model{"test_spmd_barrier"};
const rt::Codelet<BarrierCheck*> meet{.name = "spmd_barrier",
                                      .cpu = &meet_each_round,
                                      .model = &barrier_model,
                                      .type = rt::ParallelKind::spmd,
                                      .max_parallelism = 2};

// HEFT measures the group of two cores calibration_samples times, then gives it the tasks
// where it is faster: not always on a loaded machine (another test's process on the other
// core delays every barrier), so the barriers are tested on the calibration's groups.
TEST(ParallelTasks, RanksMeetAtBarriers)
{
    BarrierCheck c;
    rt::Runtime r{{.ncpus = 2, .scheduler = "dmdas", .perfmodel_dir = "none"}};
    for (int i = 0; i < 60; ++i) {
        r.submit(meet, rt::value(&c));
        r.wait_all();
    }
    EXPECT_GE(c.groups_of_two.load(), int(rt::calibration_samples));
    EXPECT_EQ(c.mismatches.load(), 0);
    EXPECT_EQ(c.broken_seen.load(), 0);
}

TEST(ParallelTasks, ARankThatThrowsReleasesTheOthersAtTheirBarriers)
{
    BarrierCheck c;
    rt::Runtime r{{.ncpus = 2, .scheduler = "dmdas", .perfmodel_dir = "none"}};
    c.rank1_throws = true;  // in the first group of two, which calibration brings early
    int failures = 0;
    for (int i = 0; i < 60 && c.groups_of_two.load() == 0; ++i) {
        r.submit(meet, rt::value(&c));
        try {
            r.wait_all();
        } catch (std::runtime_error const& e) {
            EXPECT_STREQ(e.what(), "rank 1 failed");
            ++failures;
        }
    }
    ASSERT_GT(c.groups_of_two.load(), 0) << "no task got a group of two cores";
    EXPECT_EQ(failures, 1);
    EXPECT_EQ(c.broken_seen.load(), 1);  // rank 0 was let through, told the group broke
}

TEST(ParallelTasks, ForkJoinRunsOncePerTask)
{
    std::atomic<int> calls{0}, widest{0};
    struct Ctx {
        std::atomic<int>* calls;
        std::atomic<int>* widest;
    } ctx{&calls, &widest};
    constexpr rt::PerfModel fj_model{"test_forkjoin"};
    const rt::Codelet<Ctx*> forkjoin{.name = "forkjoin",
                                     .cpu =
                                         +[](Ctx* c) {
                                             c->calls->fetch_add(1);
                                             int s = int(rt::parallel_size());
                                             if (s > c->widest->load()) c->widest->store(s);
                                             std::this_thread::sleep_for(
                                                 std::chrono::microseconds(500));
                                         },
                                     .model = &fj_model,
                                     .type = rt::ParallelKind::forkjoin,
                                     .max_parallelism = 2};
    rt::Runtime r{{.ncpus = 2, .scheduler = "dmda", .perfmodel_dir = "none"}};
    for (int i = 0; i < 40; ++i) r.submit(forkjoin, rt::value(&ctx));
    r.wait_all();
    EXPECT_EQ(calls.load(), 40);
}

TEST(ParallelTasks, WithoutCombinedWorkersParallelCodeletsRunOnOneCore)
{
    for (auto& c : calls_of_size) c = 0;
    for (std::string sched : {"eager", "ws"}) {
        rt::Runtime r{{.ncpus = 2, .scheduler = sched, .perfmodel_dir = "none"}};
        std::vector<double> v(100, 0.0);
        {
            rt::Handle h{r, rt::Vector<double>{v.data(), 100}};
            for (int i = 0; i < 10; ++i) r.submit(spmd, readwrite(h));
        }
        for (double x : v) ASSERT_EQ(x, 10.0);
    }
    EXPECT_EQ(calls_of_size[1].load(), 20);
    EXPECT_EQ(calls_of_size[2].load(), 0);
}

TEST(SchedulingContexts, TasksStayInTheirContext)
{
    for (std::string const& sched : rt::policies().names()) {
        rt::Runtime r{{.ncpus = 2, .scheduler = sched, .nemu = 1, .perfmodel_dir = "none"}};
        rt::ContextId ctx = r.create_context({1, 2});
        EXPECT_EQ(r.context_workers(ctx), (std::vector<rt::WorkerId>{1, 2}));
        std::vector<std::atomic<int>> ran(r.worker_count());
        const rt::Codelet<std::atomic<int>*> note{
            .name = "note",
            .cpu = +[](std::atomic<int>* ran) { ran[rt::Runtime::current_worker()].fetch_add(1); }};
        for (int i = 0; i < 200; ++i) r.submit(note, rt::value(ran.data()), rt::in_context(ctx));
        r.wait_all();
        EXPECT_EQ(ran[0].load(), 0) << sched;
        EXPECT_EQ(ran[1].load() + ran[2].load(), 200) << sched;
    }
}

TEST(SchedulingContexts, Errors)
{
    rt::Runtime r{{.ncpus = 2, .nemu = 1, .perfmodel_dir = "none"}};
    EXPECT_THROW(r.create_context({}), tessera::InvalidArgument);
    EXPECT_THROW(r.create_context({7}), tessera::InvalidArgument);
    const rt::Codelet<> cpu_only{.name = "cpu_only", .where = rt::ArchMask::cpu, .cpu = +[] {}};
    rt::ContextId emu_only = r.create_context({2});
    EXPECT_THROW(r.submit(cpu_only, rt::in_context(emu_only)), tessera::InvalidArgument);
    EXPECT_THROW(r.submit(cpu_only, rt::in_context(rt::ContextId{99})), tessera::InvalidArgument);
    const rt::Codelet<> emu_only_codelet{
        .name = "emu_only", .where = rt::ArchMask::emu, .cpu = +[] {}};
    rt::Runtime no_emu{{.ncpus = 1, .perfmodel_dir = "none"}};
    EXPECT_THROW(no_emu.submit(emu_only_codelet), tessera::InvalidArgument);  // nobody can run it
}

}  // namespace
