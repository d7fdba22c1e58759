// Errors (include/tessera/error.hpp; STYLE.md "Error handling: three layers"), over every
// registered scheduler x {1, 2, 4} workers:
//  - an exception thrown by a kernel (or a callback) is caught by its worker and rethrown by
//    TaskRef::wait, by the next wait_all (once: the first error since the previous wait_all)
//    and by wait_tag;
//  - the tasks that read what a failed task wrote are cancelled (never run), transitively,
//    including a chain of thousands of tasks (no stack overflow); explicit after() successors
//    and tag dependents are cancelled too; wait() on a cancelled task rethrows the cause;
//  - write-after-read successors of a failed reader and later pure writers still run;
//  - acquire of data last written by a failed task rethrows; the runtime stays usable;
//  - misuse throws tessera::InvalidArgument and submits nothing: empty, moved-from,
//    unregistered, partitioned or foreign handles, unknown scheduler, bad ncpus /
//    max_pending_tasks, bad TESSERA_* environment values, tag reuse without remove_tag,
//    waiting (wait_all, TaskRef::wait, wait_tag), acquiring or partitioning from inside a task.
#include "common/runtime_sweep.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace rt = tessera::rt;
using namespace tessera::test;
using tessera::InvalidArgument;
using V = rt::Variable<int64_t>;
using CV = rt::Variable<int64_t const>;

/// The message of the exception `f` throws ("" if none).
template <class F> std::string message_of(F&& f)
{
    try {
        f();
    } catch (std::exception const& e) {
        return e.what();
    }
    return "";
}

struct Boom : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void fail_write_cpu(V, int64_t code)
{
    throw Boom("boom " + std::to_string(code));
}
/// Declares a write of x, then throws Boom("boom <code>") without touching it.
const rt::Codelet<V, int64_t> fail_write{.name = "fail_write", .cpu = &fail_write_cpu};

void fail_read_cpu(CV, V, int64_t code)
{
    throw Boom("boom " + std::to_string(code));
}
/// Reads x and declares a write of y, then throws.
const rt::Codelet<CV, V, int64_t> fail_read{.name = "fail_read", .cpu = &fail_read_cpu};

void counted_affine_cpu(V x, std::atomic<int64_t>* ran)
{
    ran->fetch_add(1);
    *x = *x * 3 + 1;
}
/// x = 3x + 1, counting its executions.
const rt::Codelet<V, std::atomic<int64_t>*> counted_affine{.name = "counted_affine",
                                                           .cpu = &counted_affine_cpu};

void counted_copy_cpu(CV x, V y, std::atomic<int64_t>* ran)
{
    ran->fetch_add(1);
    *y = *x;
}
const rt::Codelet<CV, V, std::atomic<int64_t>*> counted_copy{.name = "counted_copy",
                                                             .cpu = &counted_copy_cpu};

class Errors : public RuntimeSweep {};

// ---- propagation -----------------------------------------------------------------------------

TEST_P(Errors, KernelExceptionReachesWaitAndWaitAllOnce)
{
    auto rt = make_runtime();
    auto t = rt->submit(throw_cl, rt::value(int64_t{7}));
    EXPECT_THROW(t.wait(), std::runtime_error);
    EXPECT_EQ(message_of([&] { t.wait(); }), "task failed on purpose: 7")
        << "the task's own exception";
    EXPECT_TRUE(t.done());
    EXPECT_TRUE(t.failed());
    EXPECT_FALSE(t.cancelled()) << "it ran: it was not cancelled";
    EXPECT_EQ(message_of([&] { rt->wait_all(); }), "task failed on purpose: 7");
    EXPECT_NO_THROW(rt->wait_all()) << "an error is reported by one wait_all only";
    // a later error is reported by the next wait_all
    rt->submit(throw_cl, rt::value(int64_t{8}));
    EXPECT_EQ(message_of([&] { rt->wait_all(); }), "task failed on purpose: 8");
    EXPECT_NO_THROW(rt->wait_all());
}

TEST_P(Errors, WaitAllReportsTheFirstError)
{
    auto rt = make_runtime();
    int64_t x = 0;
    rt::Handle h{*rt, V{&x}};
    // ordered: the second pure write does not read the first's output, so it runs and fails too
    auto f1 = rt->submit(fail_write, rt::write(h), rt::value(int64_t{1}));
    auto f2 = rt->submit(fail_write, rt::write(h), rt::value(int64_t{2}));
    EXPECT_EQ(message_of([&] { rt->wait_all(); }), "boom 1");
    EXPECT_FALSE(f2.cancelled());
    EXPECT_EQ(message_of([&] { f2.wait(); }), "boom 2");
    EXPECT_NO_THROW(rt->wait_all());
}

TEST_P(Errors, ReadersOfFailedDataAreCancelledTransitively)
{
    auto rt = make_runtime();
    int64_t x = 1, y = 2, z = 3;
    std::atomic<int64_t> ran{0};
    rt::Handle hx{*rt, V{&x}}, hy{*rt, V{&y}}, hz{*rt, V{&z}};
    auto f = rt->submit(fail_write, rt::readwrite(hx), rt::value(int64_t{3}));
    auto r1 = rt->submit(counted_copy, rt::read(hx), rt::write(hy), rt::value(&ran));  // reads x
    auto r2 = rt->submit(counted_copy, rt::read(hy), rt::write(hz),
                         rt::value(&ran));  // reads y: transitively
    auto r3 = rt->submit(counted_affine, rt::readwrite(hx), rt::value(&ran));  // reads x
    auto r4 = rt->submit(counted_affine, rt::readwrite(hz), rt::value(&ran));  // reads z
    EXPECT_EQ(message_of([&] { rt->wait_all(); }), "boom 3") << "the cause, reported once";
    for (auto const* t : {&r1, &r2, &r3, &r4}) {
        EXPECT_TRUE(t->done());
        EXPECT_TRUE(t->cancelled());
        EXPECT_TRUE(t->failed());
        EXPECT_EQ(message_of([&] { t->wait(); }), "boom 3")
            << "wait() on a cancelled task rethrows the cause";
    }
    EXPECT_THROW(r2.wait(), Boom) << "the cause keeps its type";
    EXPECT_EQ(ran.load(), 0) << "a cancelled task ran";
    EXPECT_FALSE(f.cancelled());
    EXPECT_NO_THROW(rt->wait_all());
    hy.unregister();
    hz.unregister();
    EXPECT_EQ(y, 2);
    EXPECT_EQ(z, 3);
}

TEST_P(Errors, LongChainAfterAFailureIsCancelled)
{
    auto rt = make_runtime();
    constexpr int n = 4000;  // 2n + 2 tasks stay below the default submission window (10000)
    int64_t x = 5;
    std::atomic<int64_t> ran{0};
    rt::Handle h{*rt, V{&x}};
    Gate gate;
    auto opener = gate.opener();
    // the failure waits for the gate, so that the whole chain is queued behind it
    auto g = rt->submit(gate_cl, rt::value(&gate));
    auto f = rt->submit(fail_write, rt::readwrite(h), rt::value(int64_t{4}), rt::after(g));
    std::vector<rt::TaskRef> chain;
    chain.reserve(n);
    for (int k = 0; k < n; ++k)
        chain.push_back(rt->submit(counted_affine, rt::readwrite(h), rt::value(&ran)));
    // and an explicit-dependency chain of the same length
    rt::TaskRef prev = f;
    for (int k = 0; k < n; ++k) prev = rt->submit(count_cl, rt::value(&ran), rt::after(prev));
    gate.open();
    EXPECT_EQ(message_of([&] { rt->wait_all(); }), "boom 4");
    EXPECT_FALSE(gate.timed_out);
    EXPECT_EQ(ran.load(), 0);
    for (auto const& t : chain) ASSERT_TRUE(t.cancelled());
    EXPECT_TRUE(prev.cancelled());
    h.unregister();
    EXPECT_EQ(x, 5);
}

TEST_P(Errors, WriteAfterReadSuccessorsOfAFailedReaderStillRun)
{
    auto rt = make_runtime();
    int64_t x = 2, y = 0, w = 0;
    std::atomic<int64_t> ran{0};
    rt::Handle hx{*rt, V{&x}}, hy{*rt, V{&y}}, hw{*rt, V{&w}};
    auto f = rt->submit(fail_read, rt::read(hx), rt::readwrite(hy), rt::value(int64_t{5}));
    auto other_reader = rt->submit(counted_copy, rt::read(hx), rt::write(hw), rt::value(&ran));
    auto writer =
        rt->submit(counted_affine, rt::readwrite(hx), rt::value(&ran));  // after the readers
    auto reader_of_y = rt->submit(counted_affine, rt::readwrite(hy), rt::value(&ran));
    EXPECT_EQ(message_of([&] { rt->wait_all(); }), "boom 5");
    EXPECT_FALSE(other_reader.failed());
    EXPECT_FALSE(writer.failed()) << "a failed reader changed nothing in x: its successors run";
    EXPECT_TRUE(reader_of_y.cancelled()) << "y was written by the failed task";
    EXPECT_EQ(ran.load(), 2);
    EXPECT_EQ(*hx.acquire<rt::Mode::R>().view(), 7);
    EXPECT_EQ(*hw.acquire<rt::Mode::R>().view(), 2);
}

TEST_P(Errors, PureWriteAfterAFailureRestoresTheData)
{
    auto rt = make_runtime();
    int64_t x = 1, y = 0;
    std::atomic<int64_t> ran{0};
    rt::Handle hx{*rt, V{&x}}, hy{*rt, V{&y}};
    rt->submit(fail_write, rt::readwrite(hx), rt::value(int64_t{6}));
    auto cancelled = rt->submit(counted_affine, rt::readwrite(hx), rt::value(&ran));
    EXPECT_THROW(hx.acquire<rt::Mode::R>(), Boom) << "acquire of data written by a failed task";
    EXPECT_THROW(hx.acquire<rt::Mode::RW>(), Boom);
    auto rewrite =
        rt->submit(set_var, rt::write(hx), rt::value(int64_t{40}));  // reads nothing: runs
    auto after = rt->submit(counted_copy, rt::read(hx), rt::write(hy), rt::value(&ran));
    EXPECT_EQ(message_of([&] { rt->wait_all(); }), "boom 6");
    EXPECT_TRUE(cancelled.cancelled());
    EXPECT_FALSE(rewrite.failed());
    EXPECT_FALSE(after.failed());
    EXPECT_EQ(*hx.acquire<rt::Mode::R>().view(), 40);
    EXPECT_EQ(*hy.acquire<rt::Mode::R>().view(), 40);
    EXPECT_EQ(ran.load(), 1);
}

TEST_P(Errors, ExplicitSuccessorsAreCancelled)
{
    auto rt = make_runtime();
    std::atomic<int64_t> ran{0};
    auto f = rt->submit(throw_cl, rt::value(int64_t{9}));
    auto b = rt->submit(count_cl, rt::value(&ran), rt::after(f));
    auto c = rt->submit(count_cl, rt::value(&ran), rt::after(b));
    auto unrelated = rt->submit(count_cl, rt::value(&ran));
    EXPECT_THROW(rt->wait_all(), std::runtime_error);
    EXPECT_TRUE(b.cancelled());
    EXPECT_TRUE(c.cancelled());
    EXPECT_EQ(message_of([&] { c.wait(); }), "task failed on purpose: 9");
    EXPECT_FALSE(unrelated.failed());
    EXPECT_EQ(ran.load(), 1);
    // after() on a task that already failed: cancelled at once
    auto late = rt->submit(count_cl, rt::value(&ran), rt::after(f));
    EXPECT_TRUE(completes(late));
    EXPECT_TRUE(late.cancelled());
    EXPECT_EQ(ran.load(), 1);
    EXPECT_NO_THROW(rt->wait_all()) << "a cancellation is not a new error";
}

TEST_P(Errors, TagDependentsAreCancelled)
{
    auto rt = make_runtime();
    std::atomic<int64_t> ran{0};
    rt->declare_tag_deps(2, {1});
    rt->declare_tag_deps(3, {2});
    auto t3 = rt->submit(count_cl, rt::value(&ran), rt::tag(3));
    auto t2 = rt->submit(count_cl, rt::value(&ran), rt::tag(2));
    rt->submit(throw_cl, rt::value(int64_t{10}), rt::tag(1));
    EXPECT_EQ(message_of([&] { rt->wait_tag(1); }), "task failed on purpose: 10");
    EXPECT_EQ(message_of([&] { rt->wait_tag(3); }), "task failed on purpose: 10");
    EXPECT_EQ(message_of([&] { rt->wait_tag(2); }), "task failed on purpose: 10");
    ASSERT_TRUE(completes(t2) && completes(t3));
    EXPECT_TRUE(t2.cancelled());
    EXPECT_TRUE(t3.cancelled());
    // a dependency declared after the failure still passes it on
    rt->declare_tag_deps(4, {1});
    auto t4 = rt->submit(count_cl, rt::value(&ran), rt::tag(4));
    EXPECT_TRUE(completes(t4));
    EXPECT_TRUE(t4.cancelled());
    EXPECT_EQ(ran.load(), 0);
    EXPECT_THROW(rt->wait_all(), std::runtime_error);
}

TEST_P(Errors, CallbackExceptionFailsTheTask)
{
    auto rt = make_runtime();
    int64_t x = 1;
    std::atomic<int64_t> ran{0};
    rt::Handle h{*rt, V{&x}};
    auto t = rt->submit(add_var, rt::readwrite(h), rt::value(int64_t{1}),
                        rt::callback([] { throw Boom("callback"); }));
    auto r = rt->submit(counted_affine, rt::readwrite(h), rt::value(&ran));
    EXPECT_EQ(message_of([&] { t.wait(); }), "callback");
    EXPECT_TRUE(t.failed());
    EXPECT_FALSE(t.cancelled());
    EXPECT_TRUE(completes(r));
    EXPECT_TRUE(r.cancelled());
    EXPECT_EQ(ran.load(), 0);
    EXPECT_EQ(message_of([&] { rt->wait_all(); }), "callback");
}

TEST_P(Errors, RuntimeStaysUsableAndCountsOnlyTasksThatRan)
{
    auto rt = make_runtime();
    int64_t x = 0;
    std::atomic<int64_t> ran{0};
    rt::Handle h{*rt, V{&x}};
    for (int round = 0; round < 3; ++round) {
        rt->submit(fail_write, rt::write(h), rt::value(int64_t{round}));
        for (int k = 0; k < 10; ++k)
            rt->submit(counted_affine, rt::readwrite(h), rt::value(&ran));  // cancelled
        EXPECT_THROW(rt->wait_all(), Boom);
        rt->submit(set_var, rt::write(h), rt::value(int64_t{1}));
        for (int k = 0; k < 10; ++k) rt->submit(counted_affine, rt::readwrite(h), rt::value(&ran));
        EXPECT_NO_THROW(rt->wait_all());
        EXPECT_EQ(*h.acquire<rt::Mode::R>().view(), 88573) << "3^10 + (3^10 - 1) / 2";
    }
    EXPECT_EQ(ran.load(), 30);
    auto per_worker = rt->executed_per_worker();
    EXPECT_EQ(per_worker.size(), std::size_t(rt->worker_count()));
    // 3 x (1 failed + 1 set + 10 affine) ran; the 30 cancelled ones did not
    EXPECT_EQ(std::accumulate(per_worker.begin(), per_worker.end(), uint64_t{0}), 36u);
}

TEST_P(Errors, DestructorDropsUnreportedErrors)
{
    auto rt = make_runtime();
    int64_t x = 0;
    rt::Handle h{*rt, V{&x}};
    rt->submit(fail_write, rt::write(h), rt::value(int64_t{1}));
    rt->submit(add_var, rt::readwrite(h), rt::value(int64_t{1}));
    h.unregister();  // noexcept: waits, reports nothing
    EXPECT_NO_THROW(rt.reset());
}

void fail_vec_cpu(rt::Vector<int64_t>, int64_t code)
{
    throw Boom("boom " + std::to_string(code));
}
const rt::Codelet<rt::Vector<int64_t>, int64_t> fail_vec{.name = "fail_vec", .cpu = &fail_vec_cpu};
void counted_add_vec_cpu(rt::Vector<int64_t> x, std::atomic<int64_t>* ran)
{
    ran->fetch_add(1);
    for (int64_t& e : x) e += 1;
}
const rt::Codelet<rt::Vector<int64_t>, std::atomic<int64_t>*> counted_add_vec{
    .name = "counted_add_vec", .cpu = &counted_add_vec_cpu};

TEST(ErrorsAcrossPartitions, FailureBeforePartitioningCancelsReadersOfThePieces)
{
    // The pieces alias what the failed task wrote: reading one reads its output.
    auto rt = std::make_unique<rt::Runtime>(rt::RuntimeConfig{.ncpus = 2});
    std::vector<int64_t> v(8, 0);
    std::atomic<int64_t> ran{0};
    rt::Handle h{*rt, rt::Vector<int64_t>{v.data(), 8}};
    rt->submit(fail_vec, rt::readwrite(h), rt::value(int64_t{11}));
    {
        auto p = rt::partition(h, rt::blocks(2));
        auto t = rt->submit(counted_add_vec, rt::readwrite(p[0]), rt::value(&ran));
        EXPECT_TRUE(completes(t));
        EXPECT_TRUE(t.cancelled()) << "a task read a piece of data written by a failed task";
        EXPECT_THROW(p[1].acquire<rt::Mode::R>(), Boom) << "acquire of a piece of failed data";
    }
    EXPECT_EQ(ran.load(), 0);
    EXPECT_THROW(rt->wait_all(), Boom);
}

TEST(ErrorsAcrossPartitions, FailureOfAPieceCancelsReadersOfTheParentAfterUnpartitioning)
{
    auto rt = std::make_unique<rt::Runtime>(rt::RuntimeConfig{.ncpus = 2});
    std::vector<int64_t> v(8, 0);
    std::atomic<int64_t> ran{0};
    rt::Handle h{*rt, rt::Vector<int64_t>{v.data(), 8}};
    {
        auto p = rt::partition(h, rt::blocks(2));
        rt->submit(fail_vec, rt::readwrite(p[1]), rt::value(int64_t{12}));
    }
    auto t = rt->submit(counted_add_vec, rt::readwrite(h), rt::value(&ran));
    EXPECT_TRUE(completes(t));
    EXPECT_TRUE(t.cancelled()) << "a task read the whole of data partly written by a failed task";
    EXPECT_THROW(h.acquire<rt::Mode::R>(), Boom);
    EXPECT_EQ(ran.load(), 0);
    EXPECT_THROW(rt->wait_all(), Boom);
}

// ---- misuse inside tasks -------------------------------------------------------------------------

void wait_all_inside_cpu(rt::Runtime* r)
{
    r->wait_all();
}
const rt::Codelet<rt::Runtime*> wait_all_inside{.name = "wait_all_inside",
                                                .cpu = &wait_all_inside_cpu};
void wait_task_inside_cpu(rt::TaskRef const* t)
{
    t->wait();
}
const rt::Codelet<rt::TaskRef const*> wait_task_inside{.name = "wait_task_inside",
                                                       .cpu = &wait_task_inside_cpu};
void wait_tag_inside_cpu(rt::Runtime* r, rt::TagId tag)
{
    r->wait_tag(tag);
}
const rt::Codelet<rt::Runtime*, rt::TagId> wait_tag_inside{.name = "wait_tag_inside",
                                                           .cpu = &wait_tag_inside_cpu};
void acquire_inside_cpu(rt::Handle<V>* h)
{
    (void)h->acquire<rt::Mode::R>();
}
const rt::Codelet<rt::Handle<V>*> acquire_inside{.name = "acquire_inside",
                                                 .cpu = &acquire_inside_cpu};
void partition_inside_cpu(rt::Handle<rt::Vector<int64_t>>* h)
{
    (void)rt::partition(*h, rt::blocks(2));
}
const rt::Codelet<rt::Handle<rt::Vector<int64_t>>*> partition_inside{.name = "partition_inside",
                                                                     .cpu = &partition_inside_cpu};

/// Expects task `t` to fail with InvalidArgument (and to complete: a runtime that lets a task
/// wait for itself would deadlock instead), then clears the error from wait_all.
void expect_invalid(rt::Runtime& rt, rt::TaskRef const& t, char const* what)
{
    ASSERT_TRUE(completes(t)) << what << ": the task never completed";
    EXPECT_TRUE(t.failed()) << what;
    EXPECT_THROW(t.wait(), InvalidArgument) << what;
    EXPECT_THROW(rt.wait_all(), InvalidArgument) << what;
}

TEST_P(Errors, WaitingAcquiringOrPartitioningInsideATaskThrows)
{
    auto rt = make_runtime();
    int64_t x = 0;
    std::vector<int64_t> v(4, 0);
    rt::Handle h{*rt, V{&x}};
    rt::Handle hv{*rt, rt::Vector<int64_t>{v.data(), 4}};
    std::atomic<int64_t> c{0};
    auto other = rt->submit(count_cl, rt::value(&c));
    expect_invalid(*rt, rt->submit(wait_all_inside, rt::value(rt.get())), "wait_all");
    expect_invalid(*rt, rt->submit(wait_task_inside, rt::value(&other)), "TaskRef::wait");
    rt->submit(count_cl, rt::value(&c), rt::tag(5));
    expect_invalid(*rt, rt->submit(wait_tag_inside, rt::value(rt.get()), rt::value(rt::TagId{5})),
                   "wait_tag");
    expect_invalid(*rt, rt->submit(acquire_inside, rt::value(&h)), "acquire");
    expect_invalid(*rt, rt->submit(partition_inside, rt::value(&hv)), "partition");
    // nothing was left behind
    EXPECT_NO_THROW(rt::partition(hv, rt::blocks(2)));
    rt->submit(add_var, rt::readwrite(h), rt::value(int64_t{1}));
    EXPECT_EQ(*h.acquire<rt::Mode::R>().view(), 1);
}

TESSERA_INSTANTIATE_SWEEP(Errors);

// ---- misuse at the API edges -----------------------------------------------------------------------

TEST(Misuse, SubmitWithUnusableHandlesThrowsAndSubmitsNothing)
{
    rt::Runtime rt{{.ncpus = 2}};
    int64_t x = 0, y = 0;
    rt::Handle good{rt, V{&x}};
    rt::Handle<V> empty;
    rt::Handle src{rt, V{&y}};
    rt::Handle dst{std::move(src)};
    rt::Handle<V> unregistered{rt, V{&y}};
    unregistered.unregister();
    std::vector<int64_t> v(4);
    rt::Handle hv{rt, rt::Vector<int64_t>{v.data(), 4}};
    auto p = rt::partition(hv, rt::blocks(2));
    rt::Runtime other{{.ncpus = 1}};
    int64_t z = 0;
    rt::Handle foreign{other, V{&z}};

    rt.record_dependencies(true);
    int64_t before = rt.pending_tasks();
    EXPECT_THROW(rt.submit(add_var, rt::readwrite(empty), rt::value(int64_t{1})), InvalidArgument);
    EXPECT_THROW(rt.submit(add_var, rt::readwrite(src), rt::value(int64_t{1})), InvalidArgument)
        << "moved from";
    EXPECT_THROW(rt.submit(add_var, rt::readwrite(unregistered), rt::value(int64_t{1})),
                 InvalidArgument);
    EXPECT_THROW(rt.submit(add_var, rt::readwrite(foreign), rt::value(int64_t{1})), InvalidArgument)
        << "a handle of another runtime";
    EXPECT_THROW(rt.submit(copy_var, rt::read(good), rt::write(empty)), InvalidArgument)
        << "the bad argument is the second: the first must not be left with a dependency";
    auto msg = message_of([&] { rt.submit(copy_var, rt::read(good), rt::write(empty)); });
    EXPECT_NE(msg.find("argument 2"), std::string::npos)
        << "the message names the argument: " << msg;
    EXPECT_EQ(rt.pending_tasks(), before);
    rt::TaskRef none;
    EXPECT_THROW(rt.submit(add_var, rt::readwrite(good), rt::value(int64_t{1}), rt::after(none)),
                 InvalidArgument);
    auto foreign_task = other.submit(add_var, rt::readwrite(foreign), rt::value(int64_t{1}));
    EXPECT_THROW(
        rt.submit(add_var, rt::readwrite(good), rt::value(int64_t{1}), rt::after(foreign_task)),
        InvalidArgument);
    EXPECT_EQ(rt.pending_tasks(), before);
    EXPECT_TRUE(rt.recorded_dependencies().empty()) << "a rejected task left an edge";
    // the handles that were named next to a bad one are untouched: a task on them runs at once
    auto t = rt.submit(add_var, rt::readwrite(good), rt::value(int64_t{1}));
    EXPECT_TRUE(completes(t));
    EXPECT_TRUE(rt.recorded_dependencies().empty());
    EXPECT_EQ(*good.acquire<rt::Mode::R>().view(), 1);
    EXPECT_THROW(none.wait(), InvalidArgument);
    other.wait_all();
}

TEST(Misuse, TagReuseWithoutRemoveThrows)
{
    rt::Runtime rt{{.ncpus = 1}};
    std::atomic<int64_t> c{0};
    rt.submit(count_cl, rt::value(&c), rt::tag(9));
    EXPECT_THROW(rt.submit(count_cl, rt::value(&c), rt::tag(9)), InvalidArgument);
    rt.wait_all();
    EXPECT_THROW(rt.submit(count_cl, rt::value(&c), rt::tag(9)), InvalidArgument)
        << "done, but not removed";
    rt.remove_tag(9);
    EXPECT_NO_THROW(rt.submit(count_cl, rt::value(&c), rt::tag(9)));
    rt.wait_all();
    EXPECT_EQ(c.load(), 2);
}

TEST(Misuse, BadRuntimeConfigurationsThrow)
{
    ScopedEnv no_sched("TESSERA_SCHED", std::nullopt), no_ncpu("TESSERA_NCPU", std::nullopt);
    auto msg = message_of([] { rt::Runtime rt{{.ncpus = 1, .scheduler = "no-such-policy"}}; });
    EXPECT_NE(msg.find("no-such-policy"), std::string::npos) << msg;
    for (auto const& name : rt::policies().names())
        EXPECT_NE(msg.find(name), std::string::npos)
            << "the message lists the known policies: " << msg;
    EXPECT_THROW((rt::Runtime{{.ncpus = 1, .scheduler = "no-such-policy"}}), InvalidArgument);
    EXPECT_THROW((rt::Runtime{{.ncpus = 0}}), InvalidArgument);
    EXPECT_THROW((rt::Runtime{{.ncpus = 1, .max_pending_tasks = 1}}), InvalidArgument);
    msg = message_of([] { rt::Runtime rt{{.ncpus = 1, .cuda_pin_threshold = "16 parsecs"}}; });
    EXPECT_NE(msg.find("RuntimeConfig::cuda_pin_threshold"), std::string::npos) << msg;
}

// The size from which the LAPACK-style calls page-lock user arrays: 16 MB by default, a size,
// or never; the field wins over the variable.
TEST(Configuration, PinThreshold)
{
    ScopedEnv no_threshold("TESSERA_CUDA_PIN_THRESHOLD", std::nullopt);
    EXPECT_EQ((rt::Runtime{{.ncpus = 1}}.pin_threshold()), rt::Runtime::default_pin_threshold);
    EXPECT_EQ((rt::Runtime{{.ncpus = 1, .cuda_pin_threshold = "64MB"}}.pin_threshold()),
              std::size_t(64) << 20);
    EXPECT_EQ((rt::Runtime{{.ncpus = 1, .cuda_pin_threshold = "Never"}}.pin_threshold()),
              std::numeric_limits<std::size_t>::max());
    ScopedEnv threshold("TESSERA_CUDA_PIN_THRESHOLD", "1MB");
    EXPECT_EQ((rt::Runtime{{.ncpus = 1}}.pin_threshold()), std::size_t(1) << 20);
    EXPECT_EQ((rt::Runtime{{.ncpus = 1, .cuda_pin_threshold = "never"}}.pin_threshold()),
              std::numeric_limits<std::size_t>::max());
}

TEST(Misuse, BadEnvironmentValuesThrow)
{
    for (char const* bad : {"abc", "4x", "0", "-2", " 2"}) {
        ScopedEnv env("TESSERA_NCPU", bad);
        EXPECT_THROW(rt::Runtime{}, InvalidArgument) << "TESSERA_NCPU=" << bad;
        auto msg = message_of([] { rt::Runtime rt; });
        EXPECT_NE(msg.find("TESSERA_NCPU"), std::string::npos)
            << "the message names the variable: " << msg;
    }
    {
        ScopedEnv env("TESSERA_SCHED", "no-such-policy");
        EXPECT_THROW((rt::Runtime{{.ncpus = 1}}), InvalidArgument);
    }
    {
        ScopedEnv env("TESSERA_MAX_PENDING", "many");
        EXPECT_THROW((rt::Runtime{{.ncpus = 1}}), InvalidArgument);
    }
    {
        ScopedEnv env("TESSERA_PIN", "yes");
        EXPECT_THROW((rt::Runtime{{.ncpus = 1}}), InvalidArgument);
    }
    {
        ScopedEnv env("TESSERA_CUDA_PIN_THRESHOLD", "sometimes");
        auto msg = message_of([] { rt::Runtime rt{{.ncpus = 1}}; });
        EXPECT_NE(msg.find("TESSERA_CUDA_PIN_THRESHOLD"), std::string::npos) << msg;
    }
    // an explicit field wins over a bad variable
    ScopedEnv env("TESSERA_NCPU", "abc");
    EXPECT_NO_THROW((rt::Runtime{{.ncpus = 1}}));
}

}  // namespace
