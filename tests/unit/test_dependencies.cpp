// Task dependencies (include/tessera/rt/runtime.hpp), over every registered scheduler x
// {1, 2, 4} workers:
//  - implicit data dependencies in submission order (sequential consistency): read after
//    write, write after read, write after write, checked with timestamps on a random mix of
//    R/W/RW accesses; readers of the same data run concurrently (with >= 2 workers);
//  - the recorded graph: the thesis' reference graph A(d1 RW); B(d1 R, d2 RW);
//    C(d1 R, d3 RW); D(d2 R, d3 R, d4 RW) gives exactly A->B, A->C, B->D, C->D (read after
//    write), whichever of B and C is submitted first; each edge kind; edges to finished tasks;
//  - explicit dependencies with after() (variadic and span forms);
//  - tags: dependencies declared before the tasks exist and after they are done, chains,
//    wait_tag, notify_tag, remove_tag then reuse, reuse without remove throws;
//  - waiting: TaskRef::wait (from several threads), wait_all, submission from several threads.
#include "common/runtime_sweep.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <random>
#include <set>
#include <span>
#include <thread>
#include <tuple>
#include <vector>

namespace {

namespace rt = tessera::rt;
using namespace tessera::test;
using tessera::InvalidArgument;
using Kind = rt::DependencyKind;

// ---- timestamps: each task records when it started and ended on one global clock -------------

struct Clock {
    std::atomic<int64_t> now{0};
    std::vector<int64_t> start, end;
    explicit Clock(std::size_t n) : start(n, -1), end(n, -1) {}
};
void stamp(Clock* c, int64_t k)
{
    c->start[std::size_t(k)] = c->now.fetch_add(1);
    std::this_thread::sleep_for(100us);  // wide enough for a misordered neighbour to overlap
    c->end[std::size_t(k)] = c->now.fetch_add(1);
}
void stamp_r_cpu(rt::Variable<int64_t const>, Clock* c, int64_t k)
{
    stamp(c, k);
}
void stamp_w_cpu(rt::Variable<int64_t>, Clock* c, int64_t k)
{
    stamp(c, k);
}
const rt::Codelet<rt::Variable<int64_t const>, Clock*, int64_t> stamp_r{.name = "stamp_r",
                                                                        .cpu = &stamp_r_cpu};
const rt::Codelet<rt::Variable<int64_t>, Clock*, int64_t> stamp_w{.name = "stamp_w",
                                                                  .cpu = &stamp_w_cpu};

/// Counts predecessors done, and the successors that ran too early.
struct Progress {
    std::atomic<int> done{0};
    std::atomic<int> violations{0};
};
void finish_cpu(Progress* p, int64_t sleep_us)
{
    std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
    p->done.fetch_add(1);
}
/// A predecessor: sleeps, then counts itself done.
const rt::Codelet<Progress*, int64_t> finish{.name = "finish", .cpu = &finish_cpu};
void expect_done_cpu(Progress* p, int expected)
{
    if (p->done.load() < expected) p->violations.fetch_add(1);
}
/// A successor: counts a violation unless `expected` predecessors are done.
const rt::Codelet<Progress*, int> expect_done{.name = "expect_done", .cpu = &expect_done_cpu};

void reader_rendezvous_cpu(rt::Variable<int64_t const> x, Rendezvous* r, int64_t* seen)
{
    *seen = *x;
    rendezvous_cpu(r);
}
const rt::Codelet<rt::Variable<int64_t const>, Rendezvous*, int64_t*> reader_rendezvous{
    .name = "reader_rendezvous", .cpu = &reader_rendezvous_cpu};

// the thesis' reference graph (Fig. 2.8): kernels that leave a trace of the order they ran in
void a_cpu(rt::Variable<int64_t> d1)
{
    *d1 = *d1 * 10 + 1;
}
void b_cpu(rt::Variable<int64_t const> d1, rt::Variable<int64_t> d2)
{
    *d2 = *d1 * 10 + 2;
}
void c_cpu(rt::Variable<int64_t const> d1, rt::Variable<int64_t> d3)
{
    *d3 = *d1 * 10 + 3;
}
void d_cpu(rt::Variable<int64_t const> d2, rt::Variable<int64_t const> d3, rt::Variable<int64_t> d4)
{
    *d4 = *d2 * 1000 + *d3;
}
using V = rt::Variable<int64_t>;
using CV = rt::Variable<int64_t const>;
const rt::Codelet<V> task_a{.name = "A", .cpu = &a_cpu};
const rt::Codelet<CV, V> task_b{.name = "B", .cpu = &b_cpu};
const rt::Codelet<CV, V> task_c{.name = "C", .cpu = &c_cpu};
const rt::Codelet<CV, CV, V> task_d{.name = "D", .cpu = &d_cpu};

class Dependencies : public RuntimeSweep {};

// ---- implicit data dependencies -------------------------------------------------------------

TEST_P(Dependencies, ReadAfterWrite)
{
    auto rt = make_runtime();
    int64_t x = 0;
    std::vector<int64_t> y(20, 0);
    rt::Handle hx{*rt, V{&x}};
    std::vector<rt::Handle<V>> hy;
    for (auto& e : y) hy.emplace_back(*rt, V{&e});
    for (int64_t k = 0; k < 20; ++k) {
        rt->submit(sleep_cl, rt::value(int64_t{200}));  // a distraction for the other workers
        rt->submit(set_var, rt::write(hx), rt::value(k + 100));
        rt->submit(copy_var, rt::read(hx), rt::write(hy[std::size_t(k)]));
    }
    hy.clear();
    for (int64_t k = 0; k < 20; ++k) EXPECT_EQ(y[std::size_t(k)], k + 100);
}

TEST_P(Dependencies, WriteAfterReadAndWriteAfterWrite)
{
    auto rt = make_runtime();
    int64_t x = 1;
    std::vector<int64_t> y(8, 0);
    {
        rt::Handle hx{*rt, V{&x}};
        std::vector<rt::Handle<V>> hy;
        for (auto& e : y) hy.emplace_back(*rt, V{&e});
        for (std::size_t k = 0; k < 4; ++k) rt->submit(copy_var, rt::read(hx), rt::write(hy[k]));
        rt->submit(set_var, rt::write(hx), rt::value(int64_t{2}));  // after the 4 readers
        rt->submit(set_var, rt::write(hx), rt::value(int64_t{3}));  // after the first write
        for (std::size_t k = 4; k < 8; ++k) rt->submit(copy_var, rt::read(hx), rt::write(hy[k]));
        rt->submit(affine_var, rt::readwrite(hx), rt::value(int64_t{1}));
    }
    EXPECT_EQ(y, (std::vector<int64_t>{1, 1, 1, 1, 3, 3, 3, 3}));
    EXPECT_EQ(x, 10);
}

TEST_P(Dependencies, RandomAccessMixRunsConflictingTasksInSubmissionOrder)
{
    auto rt = make_runtime();
    constexpr int n = 120;
    std::mt19937 rng(11);
    Clock clock(n);
    std::vector<rt::Mode> modes(n);
    int64_t x = 0;
    {
        rt::Handle h{*rt, V{&x}};
        for (int k = 0; k < n; ++k) {
            // mostly readers, so that there are runs of concurrent readers between writers
            unsigned r = rng() % 6;
            modes[std::size_t(k)] = r < 4 ? rt::Mode::R : (r == 4 ? rt::Mode::W : rt::Mode::RW);
            switch (modes[std::size_t(k)]) {
            case rt::Mode::R:
                rt->submit(stamp_r, rt::read(h), rt::value(&clock), rt::value(int64_t{k}));
                break;
            case rt::Mode::W:
                rt->submit(stamp_w, rt::write(h), rt::value(&clock), rt::value(int64_t{k}));
                break;
            case rt::Mode::RW:
                rt->submit(stamp_w, rt::readwrite(h), rt::value(&clock), rt::value(int64_t{k}));
                break;
            default:
                FAIL() << "unexpected mode";
            }
        }
        rt->wait_all();
    }
    for (int j = 0; j < n; ++j) {
        ASSERT_GE(clock.start[std::size_t(j)], 0) << "task " << j << " never ran";
        for (int i = 0; i < j; ++i) {
            bool conflict = rt::writes(modes[std::size_t(i)]) || rt::writes(modes[std::size_t(j)]);
            if (conflict) {
                EXPECT_LT(clock.end[std::size_t(i)], clock.start[std::size_t(j)])
                    << "task " << j << " started before the conflicting earlier task " << i
                    << " ended";
            }
        }
    }
}

// ---- the recorded graph --------------------------------------------------------------------

TEST_P(Dependencies, ThesisReferenceGraph)
{
    for (bool c_first : {false, true}) {
        auto rt = make_runtime();
        int64_t d[4] = {5, 0, 0, 0};
        rt::Handle d1{*rt, V{&d[0]}}, d2{*rt, V{&d[1]}}, d3{*rt, V{&d[2]}}, d4{*rt, V{&d[3]}};
        rt->record_dependencies(true);
        auto a = rt->submit(task_a, rt::readwrite(d1));
        rt::TaskRef b, c;
        if (c_first) {
            c = rt->submit(task_c, rt::read(d1), rt::readwrite(d3));
            b = rt->submit(task_b, rt::read(d1), rt::readwrite(d2));
        } else {
            b = rt->submit(task_b, rt::read(d1), rt::readwrite(d2));
            c = rt->submit(task_c, rt::read(d1), rt::readwrite(d3));
        }
        auto dd = rt->submit(task_d, rt::read(d2), rt::read(d3), rt::readwrite(d4));
        rt->wait_all();
        auto edges = rt->recorded_dependencies();
        std::set<Edge> want{{a.id(), b.id(), Kind::read_after_write},
                            {a.id(), c.id(), Kind::read_after_write},
                            {b.id(), dd.id(), Kind::read_after_write},
                            {c.id(), dd.id(), Kind::read_after_write}};
        EXPECT_EQ(edge_set(edges), want)
            << (c_first ? "C submitted before B" : "B submitted before C");
        EXPECT_EQ(edges.size(), 4u) << "an edge was recorded twice";
        EXPECT_EQ(*d4.acquire<rt::Mode::R>().view(), 512 * 1000 + 513);
    }
}

TEST_P(Dependencies, EdgeKinds)
{
    auto rt = make_runtime();
    int64_t x = 0, y = 0, z = 0;
    rt::Handle h{*rt, V{&x}}, h2{*rt, V{&y}}, h3{*rt, V{&z}};
    rt->record_dependencies(true);
    auto t1 = rt->submit(set_var, rt::write(h), rt::value(int64_t{1}));
    auto t2 = rt->submit(copy_var, rt::read(h), rt::write(h2));
    auto t3 = rt->submit(copy_var, rt::read(h), rt::write(h3));
    auto t4 = rt->submit(set_var, rt::write(h), rt::value(int64_t{2}));  // after the readers only
    auto t5 = rt->submit(set_var, rt::write(h), rt::value(int64_t{3}));  // write after write
    auto t6 =
        rt->submit(affine_var, rt::readwrite(h), rt::value(int64_t{1}));  // read after write only
    auto t7 = rt->submit(add_var, rt::readwrite(h2), rt::value(int64_t{1}), rt::after(t6));
    rt->wait_all();
    std::set<Edge> want{
        {t1.id(), t2.id(), Kind::read_after_write},  {t1.id(), t3.id(), Kind::read_after_write},
        {t2.id(), t4.id(), Kind::write_after_read},  {t3.id(), t4.id(), Kind::write_after_read},
        {t4.id(), t5.id(), Kind::write_after_write}, {t5.id(), t6.id(), Kind::read_after_write},
        {t6.id(), t7.id(), Kind::explicit_task},     {t2.id(), t7.id(), Kind::read_after_write}};
    EXPECT_EQ(edge_set(rt->recorded_dependencies()), want);
    // stopping the recording stops it
    rt->record_dependencies(false);
    rt->submit(add_var, rt::readwrite(h), rt::value(int64_t{1}));
    rt->wait_all();
    EXPECT_EQ(edge_set(rt->recorded_dependencies()), want);
    h.unregister();  // the valid data may be on a device until then
    h2.unregister();
    EXPECT_EQ(x, 11);
    EXPECT_EQ(y, 2);
}

TEST_P(Dependencies, EdgesToFinishedTasksAreRecorded)
{
    auto rt = make_runtime();
    int64_t x = 0, y = 0;
    rt::Handle h{*rt, V{&x}}, h2{*rt, V{&y}};
    rt->record_dependencies(true);
    auto w = rt->submit(set_var, rt::write(h), rt::value(int64_t{4}));
    w.wait();
    auto r = rt->submit(copy_var, rt::read(h), rt::write(h2));
    auto e = rt->submit(add_var, rt::readwrite(h2), rt::value(int64_t{1}), rt::after(w));
    rt->wait_all();
    std::set<Edge> want{{w.id(), r.id(), Kind::read_after_write},
                        {r.id(), e.id(), Kind::read_after_write},
                        {w.id(), e.id(), Kind::explicit_task}};
    EXPECT_EQ(edge_set(rt->recorded_dependencies()), want);
    h2.unregister();  // the valid data may be on a device until then
    EXPECT_EQ(y, 5);
}

// ---- explicit dependencies -------------------------------------------------------------------

TEST_P(Dependencies, ExplicitAfter)
{
    auto rt = make_runtime();
    for (int rep = 0; rep < 3; ++rep) {
        Progress p;
        auto a1 = rt->submit(finish, rt::value(&p), rt::value(int64_t{3000}));
        auto a2 = rt->submit(finish, rt::value(&p), rt::value(int64_t{1000}));
        auto a3 = rt->submit(finish, rt::value(&p), rt::value(int64_t{2000}));
        rt->submit(expect_done, rt::value(&p), rt::value(3), rt::after(a1, a2, a3));
        rt->submit(expect_done, rt::value(&p), rt::value(1), rt::after(a2));
        // the span form, over many tasks
        Progress q;
        std::vector<rt::TaskRef> preds;
        for (int k = 0; k < 20; ++k)
            preds.push_back(rt->submit(finish, rt::value(&q), rt::value(int64_t{200})));
        auto last = rt->submit(expect_done, rt::value(&q), rt::value(20),
                               rt::after(std::span<rt::TaskRef const>(preds)));
        // a task after a finished one runs at once
        last.wait();
        auto again = rt->submit(expect_done, rt::value(&q), rt::value(20), rt::after(last));
        EXPECT_TRUE(completes(again));
        rt->wait_all();
        EXPECT_EQ(p.violations.load(), 0);
        EXPECT_EQ(q.violations.load(), 0);
    }
}

// ---- tags ----------------------------------------------------------------------------------

TEST_P(Dependencies, TagDependenciesDeclaredBeforeTheTasksExist)
{
    auto rt = make_runtime();
    Progress p;
    rt->declare_tag_deps(3, {1, 2});
    auto t3 = rt->submit(expect_done, rt::value(&p), rt::value(2), rt::tag(3));  // submitted first
    rt->submit(finish, rt::value(&p), rt::value(int64_t{5000}), rt::tag(1));
    std::this_thread::sleep_for(2ms);
    EXPECT_FALSE(t3.done());
    rt->submit(finish, rt::value(&p), rt::value(int64_t{2000}), rt::tag(2));
    rt->wait_tag(3);
    EXPECT_TRUE(completes(t3));
    EXPECT_EQ(p.violations.load(), 0);
    rt->wait_all();
}

TEST_P(Dependencies, TagDependencyOnAFinishedTag)
{
    auto rt = make_runtime();
    Progress p;
    rt->submit(finish, rt::value(&p), rt::value(int64_t{0}), rt::tag(10));
    rt->wait_tag(10);
    rt->declare_tag_deps(11, {10});
    auto t = rt->submit(expect_done, rt::value(&p), rt::value(1), rt::tag(11));
    EXPECT_TRUE(completes(t)) << "a task waited for a tag that was already done";
    // partly done: one dependency done, the other not yet submitted
    rt->declare_tag_deps(13, {10, 12});
    auto u = rt->submit(expect_done, rt::value(&p), rt::value(2), rt::tag(13));
    std::this_thread::sleep_for(2ms);
    EXPECT_FALSE(u.done());
    rt->submit(finish, rt::value(&p), rt::value(int64_t{100}), rt::tag(12));
    EXPECT_TRUE(completes(u));
    rt->wait_all();
    EXPECT_EQ(p.violations.load(), 0);
}

TEST_P(Dependencies, TagChainSubmittedBackwards)
{
    auto rt = make_runtime();
    constexpr rt::TagId base = 1000;
    constexpr int n = 30;
    Progress p;
    for (int k = 1; k < n; ++k) rt->declare_tag_deps(base + k, {base + k - 1});
    // the tasks only share a counter through tags: submitted from the end of the chain
    std::vector<rt::TaskRef> ts;
    for (int k = n - 1; k >= 0; --k) {
        ts.push_back(rt->submit(expect_done, rt::value(&p), rt::value(k),
                                rt::tag(base + rt::TagId(k)),
                                rt::callback([&p] { p.done.fetch_add(1); })));
    }
    rt->wait_tag(base + n - 1);
    for (auto& t : ts) EXPECT_TRUE(completes(t));
    EXPECT_EQ(p.violations.load(), 0);
    EXPECT_EQ(p.done.load(), n);
    rt->wait_all();
}

TEST_P(Dependencies, WaitTagWaitsForItsTask)
{
    auto rt = make_runtime();
    Progress p;
    rt->submit(finish, rt::value(&p), rt::value(int64_t{5000}), rt::tag(20));
    rt->wait_tag(20);
    EXPECT_EQ(p.done.load(), 1);
    rt->wait_tag(20);  // again: already done
    // the extreme ids are ordinary tags
    rt->submit(finish, rt::value(&p), rt::value(int64_t{0}), rt::tag(0));
    rt->submit(finish, rt::value(&p), rt::value(int64_t{0}), rt::tag(~rt::TagId{0}));
    rt->wait_tag(0);
    rt->wait_tag(~rt::TagId{0});
    EXPECT_EQ(p.done.load(), 3);
}

TEST_P(Dependencies, WaitTagReturnsOnceTheTaskHasCompleted)
{
    // wait_tag(T) blocks "until tag T is done", i.e. until its task has completed: the task's
    // TaskRef must then say so (done()), as after TaskRef::wait().
    auto rt = make_runtime();
    std::atomic<int64_t> c{0};
    int early = 0;
    for (rt::TagId tag = 1; tag <= 300; ++tag) {
        auto t = rt->submit(count_cl, rt::value(&c), rt::tag(tag));
        rt->wait_tag(tag);
        early += !t.done();
    }
    EXPECT_EQ(early, 0)
        << "wait_tag returned while the tagged task's TaskRef still said it was not done";
    rt->wait_all();
    EXPECT_EQ(c.load(), 300);
}

TEST_P(Dependencies, TagIsDoneOnceItsTaskIsWaitedFor)
{
    // The other direction: once TaskRef::wait() or wait_all() returned, the task's tag is done,
    // so that it can be removed and used again at once (StarPU's wait then starpu_tag_remove).
    auto rt = make_runtime();
    std::atomic<int64_t> c{0};
    int refused = 0;
    for (int k = 0; k < 300; ++k) {
        auto t = rt->submit(count_cl, rt::value(&c), rt::tag(77));
        if (k % 2)
            t.wait();
        else
            rt->wait_all();
        try {
            rt->remove_tag(77);
        } catch (tessera::InvalidArgument const&) {
            ++refused;
            rt->wait_tag(77);  // then it is done: remove it for the next round
            rt->remove_tag(77);
        }
    }
    EXPECT_EQ(refused, 0) << "remove_tag refused a tag whose task had been waited for";
    EXPECT_EQ(c.load(), 300);
}

TEST_P(Dependencies, NotifyTagReleasesDependents)
{
    auto rt = make_runtime();
    Progress p;
    rt->declare_tag_deps(31, {30});
    rt->declare_tag_deps(32, {30, 31});
    auto t31 = rt->submit(finish, rt::value(&p), rt::value(int64_t{0}), rt::tag(31));
    auto t32 = rt->submit(expect_done, rt::value(&p), rt::value(1), rt::tag(32));
    std::this_thread::sleep_for(5ms);
    EXPECT_FALSE(t31.done()) << "ran before the external event";
    EXPECT_FALSE(t32.done());
    rt->notify_tag(30);  // an external event: tag 30 has no task
    EXPECT_TRUE(completes(t31));
    EXPECT_TRUE(completes(t32));
    rt->wait_tag(30);
    rt->wait_tag(32);
    EXPECT_EQ(p.violations.load(), 0);
    rt->notify_tag(30);  // notifying a done tag again is harmless
}

TEST_P(Dependencies, RemoveTagThenReuse)
{
    auto rt = make_runtime();
    Progress p;
    rt->submit(finish, rt::value(&p), rt::value(int64_t{100}), rt::tag(40));
    rt->wait_tag(40);
    int64_t before = rt->pending_tasks();
    EXPECT_THROW(rt->submit(finish, rt::value(&p), rt::value(int64_t{0}), rt::tag(40)),
                 InvalidArgument)
        << "a tag is used once until removed";
    EXPECT_EQ(rt->pending_tasks(), before) << "the rejected task was submitted anyway";
    rt->remove_tag(40);
    EXPECT_THROW(rt->wait_tag(40), InvalidArgument) << "a removed tag is unknown";
    // reused: a fresh tag, with fresh dependencies
    rt->declare_tag_deps(40, {41});
    auto t = rt->submit(expect_done, rt::value(&p), rt::value(2), rt::tag(40));
    std::this_thread::sleep_for(2ms);
    EXPECT_FALSE(t.done());
    rt->submit(finish, rt::value(&p), rt::value(int64_t{0}), rt::tag(41));
    rt->wait_tag(40);
    EXPECT_EQ(p.violations.load(), 0);
    EXPECT_EQ(p.done.load(), 2);
    rt->wait_all();
}

TEST_P(Dependencies, TagMisuseThrows)
{
    auto rt = make_runtime();
    Progress p;
    EXPECT_THROW(rt->wait_tag(777), InvalidArgument) << "never declared, used or notified";
    EXPECT_THROW(rt->declare_tag_deps(50, {50}), InvalidArgument) << "depends on itself";
    rt->submit(finish, rt::value(&p), rt::value(int64_t{0}), rt::tag(51));
    EXPECT_THROW(rt->declare_tag_deps(51, {52}), InvalidArgument)
        << "its task was already submitted";
    EXPECT_THROW(rt->notify_tag(51), InvalidArgument)
        << "a tag with a task is marked done by the task";
    rt->wait_all();
}

TEST_P(Dependencies, TagsAndDataDependenciesCombine)
{
    auto rt = make_runtime();
    int64_t x = 1;
    rt::Handle h{*rt, V{&x}};
    rt->declare_tag_deps(61, {60});
    rt->submit(affine_var, rt::readwrite(h), rt::value(int64_t{1}), rt::tag(61));  // waits for 60
    rt->submit(affine_var, rt::readwrite(h), rt::value(int64_t{2}));  // waits for the above
    std::this_thread::sleep_for(2ms);
    EXPECT_EQ(x, 1);
    rt->notify_tag(60);
    EXPECT_EQ(*h.acquire<rt::Mode::R>().view(), (1 * 3 + 1) * 3 + 2);
}

// ---- waiting -------------------------------------------------------------------------------

TEST_P(Dependencies, WaitOnTasks)
{
    auto rt = make_runtime();
    Progress p;
    auto t = rt->submit(finish, rt::value(&p), rt::value(int64_t{3000}));
    // several application threads may wait for the same task
    std::vector<std::thread> waiters;
    std::atomic<int> saw_done{0};
    for (int k = 0; k < 3; ++k)
        waiters.emplace_back([&, copy = t] {
            copy.wait();
            if (p.done.load() == 1) saw_done.fetch_add(1);
        });
    t.wait();
    EXPECT_TRUE(t.done());
    EXPECT_EQ(p.done.load(), 1);
    for (auto& w : waiters) w.join();
    EXPECT_EQ(saw_done.load(), 3);
    t.wait();  // waiting again returns at once
}

TEST_P(Dependencies, WaitAllWaitsForEverything)
{
    auto rt = make_runtime();
    rt->wait_all();  // nothing submitted
    std::atomic<int64_t> c{0};
    int64_t x = 0;
    rt::Handle h{*rt, V{&x}};
    for (int k = 0; k < 300; ++k) {
        rt->submit(count_cl, rt::value(&c));
        rt->submit(add_var, rt::readwrite(h), rt::value(int64_t{1}));
    }
    rt->submit(sleep_cl, rt::value(int64_t{5000}));
    rt->wait_all();
    EXPECT_EQ(rt->pending_tasks(), 0);
    EXPECT_EQ(c.load(), 300);
    EXPECT_EQ(*h.acquire<rt::Mode::R>().view(), 300);
}

TEST_P(Dependencies, SubmissionFromSeveralThreads)
{
    auto rt = make_runtime();
    constexpr int threads = 3, per_thread = 400;
    int64_t shared = 0;
    std::vector<int64_t> own(threads, 1);
    rt::Handle hs{*rt, V{&shared}};
    std::vector<rt::Handle<V>> ho;
    for (auto& o : own) ho.emplace_back(*rt, V{&o});
    std::vector<std::thread> th;
    for (int t = 0; t < threads; ++t)
        th.emplace_back([&, t] {
            for (int k = 0; k < per_thread; ++k) {
                rt->submit(add_var, rt::readwrite(hs), rt::value(int64_t{1}));  // commutative
                rt->submit(affine_var, rt::readwrite(ho[std::size_t(t)]),
                           rt::value(int64_t{k % 5}));  // ordered
            }
        });
    for (auto& t : th) t.join();
    rt->wait_all();
    hs.unregister();
    ho.clear();
    EXPECT_EQ(shared, threads * per_thread);
    int64_t want = 1;
    for (int k = 0; k < per_thread; ++k) want = affine(want, k % 5);
    for (int64_t o : own) EXPECT_EQ(o, want);
}

TESSERA_INSTANTIATE_SWEEP(Dependencies);

// ---- concurrency (>= 2 workers) ----------------------------------------------------------------

class DependenciesConcurrency : public RuntimeSweep {};

TEST_P(DependenciesConcurrency, ReadersRunConcurrently)
{
    auto rt = make_runtime();
    int64_t x = 3;
    constexpr int readers = 16;
    std::vector<int64_t> seen(readers, 0);
    rt::Handle h{*rt, V{&x}};
    Rendezvous r;
    for (int k = 0; k < readers; ++k)
        rt->submit(reader_rendezvous, rt::read(h), rt::value(&r), rt::value(&seen[std::size_t(k)]));
    rt->submit(set_var, rt::write(h), rt::value(int64_t{4}));  // after every reader
    rt->wait_all();
    EXPECT_TRUE(r.met.load()) << "readers of the same data never ran at the same time";
    for (int64_t s : seen) EXPECT_EQ(s, 3);
    EXPECT_EQ(*h.acquire<rt::Mode::R>().view(), 4);
}

INSTANTIATE_TEST_SUITE_P(AtLeastTwoWorkers, DependenciesConcurrency,
                         testing::ValuesIn(runtime_params({2, 4})), runtime_param_name_of);

}  // namespace
