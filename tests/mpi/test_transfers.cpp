// rt::mpi::Context under mpirun (ctest -L mpi: 1, 2 and 4 ranks): handles' data sent and
// received at their place in each rank's task flow, in order, with their layouts' gaps left
// alone; bad arguments named; a message of the wrong size reported, not hung on. Every rank
// runs every test; a test that needs more ranks than it has skips.
#include "mpi/epoch_failure.hpp"
#include "mpi/refusal.hpp"

#include <tessera/rt/mpi.hpp>
#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace rt = tessera::rt;
using tessera::test::epoch_failure;
using tessera::test::refusal_of;

namespace {

const rt::Codelet<rt::Matrix<double>, double> fill_cl{
    .name = "test_fill", .cpu = [](rt::Matrix<double> a, double base) {
        for (int64_t j = 0; j < a.n; ++j)
            for (int64_t i = 0; i < a.m; ++i) a(i, j) = base + double(i) + 100.0 * double(j);
    }};
const rt::Codelet<rt::Matrix<double>, double> add_cl{.name = "test_add",
                                                     .cpu = [](rt::Matrix<double> a, double x) {
                                                         for (int64_t j = 0; j < a.n; ++j)
                                                             for (int64_t i = 0; i < a.m; ++i)
                                                                 a(i, j) += x;
                                                     }};
const rt::Codelet<rt::Vector<int64_t>, int64_t> set_cl{.name = "test_set",
                                                       .cpu = [](rt::Vector<int64_t> v, int64_t x) {
                                                           for (int64_t i = 0; i < v.n; ++i)
                                                               v[i] = x;
                                                       }};

rt::RuntimeConfig config()
{
    return {.ncpus = 1, .perfmodel_dir = "none"};
}

// m x n in an array with leading dimension m + 4: the 4 rows of the gap must stay as they are
constexpr int64_t m = 37, n = 29, ld = m + 4;
constexpr double gap = -7.5;

// Rank 0 fills a matrix and sends it; rank 1 adds 1 and sends it back; rank 0 checks every
// element and the gap rows it never sent.
TEST(MpiTransfers, PingPongKeepsTheLayoutsGaps)
{
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    if (mpi.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    std::vector<double> a(std::size_t(ld * n), gap);
    rt::Handle h{r, rt::Matrix<double>{a.data(), m, n, ld}};
    if (mpi.rank() == 0) {
        r.submit(fill_cl, write(h), rt::value(1.0));
        mpi.isend(h, 1, 3);
        mpi.irecv(h, 1, 4);
    } else if (mpi.rank() == 1) {
        mpi.irecv(h, 0, 3);
        r.submit(add_cl, readwrite(h), rt::value(1.0));
        mpi.isend(h, 0, 4);
    }
    mpi.wait_all();
    h.unregister();
    if (mpi.rank() > 1) return;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < m; ++i)
            ASSERT_EQ(a[std::size_t(i + j * ld)], 2.0 + double(i) + 100.0 * double(j))
                << "rank " << mpi.rank() << " (" << i << ", " << j << ")";
        for (int64_t i = m; i < ld; ++i) ASSERT_EQ(a[std::size_t(i + j * ld)], gap);
    }
}

// Every rank sends 20 vectors, each written by a task just before, to the next rank with one
// tag: they arrive in the order of the isend calls, whichever pack task ran first (one rank:
// to itself).
TEST(MpiTransfers, MessagesOfOneTagArriveInTheOrderOfTheirSends)
{
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    constexpr int count = 20;
    const int next = (mpi.rank() + 1) % mpi.size(),
              previous = (mpi.rank() + mpi.size() - 1) % mpi.size();
    std::vector<std::vector<int64_t>> out(count, std::vector<int64_t>(1000)), in = out;
    std::vector<rt::Handle<rt::Vector<int64_t>>> hout, hin;
    for (int i = 0; i < count; ++i) {
        hout.emplace_back(r, rt::Vector<int64_t>{out[std::size_t(i)].data(), 1000});
        hin.emplace_back(r, rt::Vector<int64_t>{in[std::size_t(i)].data(), 1000});
    }
    for (int i = 0; i < count; ++i) mpi.irecv(hin[std::size_t(i)], previous, 9);
    for (int i = count - 1; i >= 0; --i)  // the last written first: its pack may run first
        r.submit(set_cl, write(hout[std::size_t(i)]), rt::value(int64_t(1000 * previous + i)));
    for (int i = 0; i < count; ++i) mpi.isend(hout[std::size_t(i)], next, 9);
    mpi.wait_all();
    for (auto& h : hin) h.unregister();
    for (int i = 0; i < count; ++i)
        for (int64_t x : in[std::size_t(i)])
            ASSERT_EQ(x, int64_t(1000 * ((previous + mpi.size() - 1) % mpi.size()) + i))
                << "message " << i << " on rank " << mpi.rank();
}

// The same when every message arrives before its receive is asked for (the receiver asks
// 200 ms late): the progress thread holds them, matched, in order, small (sent eagerly) and
// large (sent on a rendezvous) alike, and gives each to its receive.
TEST(MpiTransfers, MessagesThatArriveBeforeTheirReceivesWaitInOrder)
{
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    constexpr int count = 12;
    const int next = (mpi.rank() + 1) % mpi.size(),
              previous = (mpi.rank() + mpi.size() - 1) % mpi.size();
    auto length = [](int i) { return int64_t(i % 2 ? 50 : 5000); };  // 400 bytes, 40 KB
    std::vector<std::vector<int64_t>> out, in;
    std::vector<rt::Handle<rt::Vector<int64_t>>> hout, hin;
    for (int i = 0; i < count; ++i) {
        out.emplace_back(std::size_t(length(i)), int64_t(1000 * mpi.rank() + i));
        in.emplace_back(std::size_t(length(i)), -1);
    }
    for (int i = 0; i < count; ++i) {
        hout.emplace_back(r, rt::Vector<int64_t>{out[std::size_t(i)].data(), length(i)});
        hin.emplace_back(r, rt::Vector<int64_t>{in[std::size_t(i)].data(), length(i)});
    }
    for (int i = 0; i < count; ++i) mpi.isend(hout[std::size_t(i)], next, 11);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    for (int i = 0; i < count; ++i) mpi.irecv(hin[std::size_t(i)], previous, 11);
    mpi.wait_all();
    for (auto& h : hin) h.unregister();
    for (int i = 0; i < count; ++i)
        for (int64_t x : in[std::size_t(i)])
            ASSERT_EQ(x, int64_t(1000 * previous + i))
                << "message " << i << " on rank " << mpi.rank();
}

// A task that writes the handle after an isend waits until MPI no longer needs its data (the
// pack task's copy, or the delivery of a send in place), and the message carries the value
// before it: the receiver gets 1, then 2, even when it posts its receives late.
TEST(MpiTransfers, AWriteAfterASendDoesNotChangeTheMessage)
{
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    if (mpi.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    std::vector<int64_t> v(4096, 0), first(4096, 0), second(4096, 0);
    rt::Handle h{r, rt::Vector<int64_t>{v.data(), 4096}};
    rt::Handle h1{r, rt::Vector<int64_t>{first.data(), 4096}};
    rt::Handle h2{r, rt::Vector<int64_t>{second.data(), 4096}};
    std::atomic<int> sent{0}, received{0};
    if (mpi.rank() == 0) {
        r.submit(set_cl, write(h), rt::value(int64_t(1)));
        mpi.isend(h, 1, 5, [&] { ++sent; });
        r.submit(set_cl, write(h), rt::value(int64_t(2)));
        mpi.isend(h, 1, 5, [&] { ++sent; });
    } else if (mpi.rank() == 1) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));  // rank 0 writes h meanwhile
        mpi.irecv(h1, 0, 5, [&] { ++received; });
        mpi.irecv(h2, 0, 5, [&] { ++received; });
    }
    mpi.wait_all();
    h1.unregister();
    h2.unregister();
    if (mpi.rank() == 0) { EXPECT_EQ(sent.load(), 2); }
    if (mpi.rank() != 1) return;
    EXPECT_EQ(received.load(), 2);
    EXPECT_EQ(first.front(), 1);
    EXPECT_EQ(first.back(), 1);
    EXPECT_EQ(second.front(), 2);
    EXPECT_EQ(second.back(), 2);
}

// What a reader saw of its handle, after a pause: the smallest and largest of its elements.
struct Seen {
    std::atomic<int64_t> low{-1}, high{-1};
};
const rt::Codelet<rt::Vector<const int64_t>, Seen*, int> watch_cl{
    .name = "test_watch", .cpu = [](rt::Vector<const int64_t> v, Seen* seen, int pause_ms) {
        std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
        int64_t low = v[0], high = v[0];
        for (int64_t i = 0; i < v.n; ++i) {
            low = std::min(low, v[i]);
            high = std::max(high, v[i]);
        }
        seen->low = low;
        seen->high = high;
    }};
const rt::Codelet<rt::Vector<int64_t>, int> explode_later_cl{
    .name = "test_explode_later", .cpu = [](rt::Vector<int64_t>, int pause_ms) {
        std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
        throw tessera::Error("the failing task");
    }};

// A receive into a contiguous handle may land in the handle's own memory, but never before
// the tasks submitted before it are done with the handle: a reader that takes 200 ms sees the
// old data throughout, though the message arrives long before it ends and the other worker
// is free; the reader after the receive sees the message.
TEST(MpiTransfers, AReceiveLandsOnlyAfterTheTasksBeforeIt)
{
    rt::Runtime r{{.ncpus = 2, .perfmodel_dir = "none"}};
    rt::mpi::Context mpi{r};
    if (mpi.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    std::vector<int64_t> v(100000, 5);  // 800 KB: on MPI's rendezvous
    rt::Handle h{r, rt::Vector<int64_t>{v.data(), int64_t(v.size())}};
    Seen before, after;
    if (mpi.rank() == 0) {
        r.submit(set_cl, write(h), rt::value(int64_t(7)));
        mpi.isend(h, 1, 3);
    } else if (mpi.rank() == 1) {
        r.submit(watch_cl, read(h), rt::value(&before), rt::value(200));
        mpi.irecv(h, 0, 3);
        r.submit(watch_cl, read(h), rt::value(&after), rt::value(0));
    }
    mpi.wait_all();
    h.unregister();
    if (mpi.rank() != 1) return;
    EXPECT_EQ(before.low.load(), 5);
    EXPECT_EQ(before.high.load(), 5) << "the message landed under a reader submitted before it";
    EXPECT_EQ(after.low.load(), 7);
    EXPECT_EQ(after.high.load(), 7);
    EXPECT_EQ(v.front(), 7);
}

// A message that arrives while its handle is still held by a task that then fails: the epoch
// fails on both ranks (no hang), and the next epoch's message of the same tag lands.
TEST(MpiTransfers, AFailureWhileAMessageWaitsForItsHandleLeavesTheNextEpochClean)
{
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    if (mpi.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    std::vector<int64_t> v(100000, 5);
    rt::Handle h{r, rt::Vector<int64_t>{v.data(), int64_t(v.size())}};
    if (mpi.rank() == 0) {
        r.submit(set_cl, write(h), rt::value(int64_t(7)));
        mpi.isend(h, 1, 4);
    } else if (mpi.rank() == 1) {
        r.submit(explode_later_cl, readwrite(h), rt::value(200));  // the message arrives first
        mpi.irecv(h, 0, 4);
    }
    const std::string what = epoch_failure<tessera::Error>(mpi);
    EXPECT_NE(what.find("the failing task"), std::string::npos) << what;
    if (mpi.rank() != 1) { EXPECT_NE(what.find("rank 1 failed"), std::string::npos) << what; }
    if (mpi.rank() == 0) {
        r.submit(set_cl, write(h), rt::value(int64_t(8)));
        mpi.isend(h, 1, 4);
    } else if (mpi.rank() == 1) {
        r.submit(set_cl, write(h), rt::value(int64_t(0)));  // written again: no longer failed
        mpi.irecv(h, 0, 4);
    }
    mpi.wait_all();
    h.unregister();
    if (mpi.rank() == 1) {
        EXPECT_EQ(v.front(), 8);
        EXPECT_EQ(v.back(), 8);
    }
}

TEST(MpiTransfers, BadArgumentsAreNamed)
{
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    std::vector<double> a(16);
    rt::Handle h{r, rt::Vector<double>{a.data(), 16}};
    EXPECT_NE(refusal_of([&] { mpi.isend(h, mpi.size(), 1); }).find("dest"), std::string::npos);
    EXPECT_NE(refusal_of([&] { mpi.irecv(h, -1, 1); }).find("source"), std::string::npos);
    EXPECT_NE(refusal_of([&] { mpi.isend(h, 0, -3); }).find("tag -3"), std::string::npos);
    rt::Handle<rt::Vector<double>> none;
    EXPECT_NE(refusal_of([&] { mpi.isend(none, 0, 1); }).find("not registered"), std::string::npos);
    EXPECT_NE(refusal_of([&] { mpi.irecv(none, 0, 1); }).find("not registered"), std::string::npos);
    mpi.wait_all();  // nothing was left behind by the refused calls
    mpi.barrier();
}

// A message shorter than the receiving handle fails the receive with both sizes named, at
// wait_all; nothing hangs, and the tasks after it on that handle are cancelled. The epoch
// fails as a whole: every rank's wait_all throws, naming rank 1; the next one is clean.
TEST(MpiTransfers, AMessageOfTheWrongSizeIsReported)
{
    rt::Runtime r{config()};
    rt::mpi::Context mpi{r};
    if (mpi.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    std::vector<int64_t> small(10, 3), large(20, 0);
    rt::Handle hs{r, rt::Vector<int64_t>{small.data(), 10}};
    rt::Handle hl{r, rt::Vector<int64_t>{large.data(), 20}};
    if (mpi.rank() == 0) {
        mpi.isend(hs, 1, 2);
    } else if (mpi.rank() == 1) {
        mpi.irecv(hl, 0, 2);
        r.submit(set_cl, readwrite(hl), rt::value(int64_t(9)));
    }
    const std::string what = epoch_failure<tessera::Error>(mpi);
    EXPECT_NE(what.find("80 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("160"), std::string::npos) << what;
    if (mpi.rank() != 1) { EXPECT_NE(what.find("rank 1 failed"), std::string::npos) << what; }
    EXPECT_EQ(large.front(), 0) << "a task after the failed receive ran";
    // the next epoch works: a message of the right size
    if (mpi.rank() == 0) {
        mpi.isend(hs, 1, 2);
    } else if (mpi.rank() == 1) {
        std::vector<int64_t> right(10, 0);
        rt::Handle hm{r, rt::Vector<int64_t>{right.data(), 10}};
        mpi.irecv(hm, 0, 2);
        mpi.wait_all();
        hm.unregister();
        EXPECT_EQ(right, small);
        mpi.barrier();
        return;
    }
    mpi.wait_all();
    mpi.barrier();
}

}  // namespace
