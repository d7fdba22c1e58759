// Cancellation tokens (include/tessera/rt/cancellation.hpp), over every registered scheduler
// x {1, 2, 4} workers:
//  - the tasks tied to a token that is cancelled before they start complete without running:
//    cancelled, not failed, no error reported; untied successors still run after them;
//  - a task tied to a token already cancelled completes at once;
//  - a tied task that fails cancels its token: the group's later tasks do not run, and the
//    failure is reported once.
#include "common/runtime_sweep.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>

namespace {

namespace rt = tessera::rt;
using namespace tessera::test;
using V = rt::Variable<int64_t>;

class Cancellation : public RuntimeSweep {};

TEST_P(Cancellation, TasksNotStartedWhenTheTokenIsCancelledDoNotRun)
{
    auto rt = make_runtime();
    int64_t x = 1;
    std::atomic<int64_t> ran{0};
    rt::CancelToken group;
    Gate g;
    {
        rt::Handle hx{*rt, V{&x}};
        auto opener = g.opener();
        auto gate = rt->submit(gate_cl, rt::value(&g));
        auto tied = rt->submit(affine_var, rt::readwrite(hx), rt::value(int64_t{2}),
                               rt::after(gate), rt::cancelled_by(group));
        auto tied_too =
            rt->submit(count_cl, rt::value(&ran), rt::after(gate), rt::cancelled_by(group));
        auto untied = rt->submit(count_cl, rt::value(&ran), rt::after(tied));
        ASSERT_TRUE(g.wait_entered());
        group.cancel();  // while the gate holds them back
        g.open();
        EXPECT_NO_THROW(rt->wait_all()) << "a cancellation is not an error";
        for (auto const* t : {&tied, &tied_too}) {
            EXPECT_TRUE(t->cancelled());
            EXPECT_FALSE(t->failed());
            EXPECT_NO_THROW(t->wait());
        }
        EXPECT_FALSE(untied.cancelled()) << "a successor outside the group runs";
        EXPECT_EQ(ran.load(), 1);
        // tied to a token already cancelled: completes at once
        auto late = rt->submit(count_cl, rt::value(&ran), rt::cancelled_by(group));
        EXPECT_TRUE(completes(late));
        EXPECT_TRUE(late.cancelled());
        EXPECT_EQ(ran.load(), 1);
    }
    EXPECT_EQ(x, 1) << "the cancelled task wrote its data";
}

TEST_P(Cancellation, AFailingTaskCancelsItsGroup)
{
    auto rt = make_runtime();
    std::atomic<int64_t> ran{0};
    rt::CancelToken group;
    auto before = rt->submit(count_cl, rt::value(&ran), rt::cancelled_by(group));
    EXPECT_NO_THROW(before.wait());
    EXPECT_FALSE(group.cancelled()) << "a task that succeeds leaves its group alone";
    auto f = rt->submit(throw_cl, rt::value(int64_t{5}), rt::cancelled_by(group));
    EXPECT_THROW(f.wait(), std::runtime_error);
    EXPECT_TRUE(group.cancelled());
    auto later = rt->submit(count_cl, rt::value(&ran), rt::cancelled_by(group));
    auto outside = rt->submit(count_cl, rt::value(&ran));
    EXPECT_THROW(rt->wait_all(), std::runtime_error) << "the failure, reported once";
    EXPECT_NO_THROW(rt->wait_all());
    EXPECT_TRUE(later.cancelled());
    EXPECT_FALSE(later.failed());
    EXPECT_FALSE(outside.cancelled());
    EXPECT_EQ(ran.load(), 2);
}

TESSERA_INSTANTIATE_SWEEP(Cancellation);

}  // namespace
