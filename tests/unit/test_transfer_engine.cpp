// The transfer engine's channel to a device, against a device of the test's own whose copies
// end only when the test lets them: several copies in flight on one direction, finished and
// reported in the order they were queued, none before its end; a request that comes while
// copies are in flight started at once; a copy whose end is never announced found by asking
// the device, and its late announcement not taken for the end of the next copy in its slot; a
// copy that fails to start (answered at once) or to finish fails its own request and no other;
// stopping finishes every copy queued or in flight, and waits for late announcements.
#include "runtime/data/device_backend.hpp"
#include "runtime/data/transfer.hpp"

#include <tessera/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace rt = tessera::rt;
namespace detail = tessera::rt::detail;
using detail::CopyPath;
using detail::DeviceBackend;
using detail::TransferRequest;

constexpr unsigned window = DeviceBackend::copies_in_flight;

/// A device whose copies are memcpy made when started, and which announces their ends only
/// once the test has opened the gate (and at once after that). Copy number `fail_start`
/// (counted from 0 in the order the channel starts them) throws when started, copy
/// `fail_finish` when finished. It notes a copy finished before its end was announced: the
/// channel must wait for that. With `announces` false, it never calls `ended`: the channel
/// must ask (copy_has_ended). Copy `announced_late` ends at once, but its end is announced only
/// when the test calls announce_late().
class GatedDevice final : public DeviceBackend {
public:
    int fail_start = -1, fail_finish = -1, announced_late = -1;
    bool announces = true;

    void* allocate(std::size_t) override { return nullptr; }
    void free(void*) noexcept override {}
    bool reaches(DeviceBackend const&) const noexcept override { return false; }
    void copy_now(TransferRequest const& r) override
    {
        std::memcpy(r.dst_ptr, r.src_ptr, r.src_layout.bytes());
    }

    void start_copy(TransferRequest const& r, CopyPath, unsigned slot,
                    std::function<void()> ended) override
    {
        std::unique_lock lock(m_);
        const int number = attempts_++;
        if (number == fail_start)
            throw tessera::DeviceError("copy " + std::to_string(number) + " refused");
        std::memcpy(r.dst_ptr, r.src_ptr, r.src_layout.bytes());
        slots_started_.push_back(slot);
        copy_of_slot_[slot] = number;
        cv_.notify_all();
        ended_[slot] = open_ || number == announced_late;
        if (number == announced_late) {
            late_ = std::move(ended);
            return;
        }
        if (!open_) {
            unannounced_.push_back({number, slot, announces ? std::move(ended) : nullptr});
            return;
        }
        lock.unlock();
        if (announces) ended();
    }
    void finish_copy(CopyPath, unsigned slot) override
    {
        std::lock_guard lock(m_);
        if (!ended_[slot]) finished_before_its_end_ = true;
        if (copy_of_slot_[slot] == fail_finish)
            throw tessera::DeviceError("copy " + std::to_string(fail_finish) + " lost");
    }
    bool copy_has_ended(CopyPath, unsigned slot) noexcept override
    {
        std::lock_guard lock(m_);
        return ended_[slot];
    }
    /// The late announcement is made now, as a GPU's callback runs once its stream is synchronized.
    void await_announcements() noexcept override { announce_late(); }
    bool late_announcement_pending()
    {
        std::lock_guard lock(m_);
        return bool(late_);
    }

    /// Ends every copy started so far, in order, and the later ones as soon as started.
    void open_gate()
    {
        {
            std::lock_guard lock(m_);
            open_ = true;
        }
        end_copies_below(std::numeric_limits<int>::max());
    }
    /// Ends the copies started so far that are numbered below `number`, in order.
    void end_copies_below(int number)
    {
        std::vector<Unannounced> announce;
        {
            std::lock_guard lock(m_);
            auto first_kept =
                std::stable_partition(unannounced_.begin(), unannounced_.end(),
                                      [&](Unannounced const& u) { return u.number < number; });
            announce.assign(std::make_move_iterator(unannounced_.begin()),
                            std::make_move_iterator(first_kept));
            unannounced_.erase(unannounced_.begin(), first_kept);
            for (Unannounced const& u : announce) ended_[u.slot] = true;
        }
        for (Unannounced const& u : announce)
            if (u.ended) u.ended();
    }
    /// Announces the end of copy `announced_late`, which ended when it started.
    void announce_late()
    {
        std::function<void()> ended;
        {
            std::lock_guard lock(m_);
            ended.swap(late_);
        }
        if (ended) ended();
    }
    /// Waits (at most 10 s) until `n` copies have started; returns how many have.
    std::size_t wait_started(std::size_t n)
    {
        std::unique_lock lock(m_);
        cv_.wait_for(lock, std::chrono::seconds(10), [&] { return slots_started_.size() >= n; });
        return slots_started_.size();
    }
    std::vector<unsigned> slots_started()
    {
        std::lock_guard lock(m_);
        return slots_started_;
    }
    bool finished_a_copy_before_its_end()
    {
        std::lock_guard lock(m_);
        return finished_before_its_end_;
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    bool open_ = false, finished_before_its_end_ = false;
    int attempts_ = 0;
    std::vector<unsigned> slots_started_;
    int copy_of_slot_[window] = {};
    bool ended_[window] = {};
    struct Unannounced {
        int number;
        unsigned slot;
        std::function<void()> ended;  // empty when the device does not announce
    };
    std::vector<Unannounced> unannounced_;  // in the order started
    std::function<void()> late_;            // copy announced_late's announcement
};

/// `copies` host-to-device copies of one double each, and what their requesters learned.
struct Copies {
    explicit Copies(int copies) : from(copies), to(copies, -1.0), errors(copies)
    {
        for (int i = 0; i < copies; ++i) from[i] = i;
    }
    TransferRequest request(int i)
    {
        rt::Layout one{.kind = rt::InterfaceKind::variable, .elem_size = sizeof(double)};
        return {.src = 0,
                .dst = 1,
                .src_ptr = &from[i],
                .src_layout = one,
                .dst_ptr = &to[i],
                .dst_layout = one,
                .done = [this, i](std::exception_ptr error) {
                    std::lock_guard lock(m);
                    errors[i] = error;
                    order.push_back(i);
                    cv.notify_all();
                }};
    }
    void wait_all() { wait_reported(from.size()); }
    void wait_reported(std::size_t n)
    {
        std::unique_lock lock(m);
        ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return order.size() >= n; }))
            << order.size() << " of " << n << " copies reported";
    }
    std::size_t reported()
    {
        std::lock_guard lock(m);
        return order.size();
    }

    std::vector<double> from, to;
    std::vector<std::exception_ptr> errors;
    std::vector<int> order;  // the requesters, in the order they were told
    std::mutex m;
    std::condition_variable cv;
};

/// A device's channels (node 1) through a GatedDevice.
class TransferEngine : public testing::Test {
protected:
    void SetUp() override { engine.add_channels(1, {}, &gpu); }
    // a failed assertion must not leave the channel waiting for a gate that stays shut, nor
    // a copy answering requesters that are gone
    void TearDown() override
    {
        gpu.open_gate();
        engine.stop();
        EXPECT_FALSE(gpu.finished_a_copy_before_its_end());
    }
    Copies& make_copies(int n) { return copies_.emplace(n); }
    void submit_all(Copies& copies)
    {
        for (int i = 0; i < int(copies.from.size()); ++i) engine.submit(copies.request(i));
    }
    /// Every copy arrived without error, and its requester was told in the order queued.
    static void expect_all_arrived_in_order(Copies const& copies)
    {
        std::vector<int> in_order(copies.from.size());
        for (int i = 0; i < int(in_order.size()); ++i) {
            in_order[i] = i;
            EXPECT_FALSE(copies.errors[i]) << "copy " << i;
            EXPECT_EQ(copies.to[i], double(i)) << "copy " << i;
        }
        EXPECT_EQ(copies.order, in_order);
    }

    GatedDevice gpu;
    detail::LinkCounters counters{2};
    detail::TransferEngine engine{counters};

private:
    std::optional<Copies> copies_;
};

TEST_F(TransferEngine, ADeviceChannelKeepsSeveralCopiesInFlightAndReportsThemInOrder)
{
    constexpr int n = 3 * window + 1;
    Copies& copies = make_copies(n);
    submit_all(copies);
    // the channel starts a window of copies before the first one ends, and no more
    EXPECT_EQ(gpu.wait_started(window), window);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(gpu.slots_started().size(), window);
    EXPECT_EQ(copies.reported(), 0u);
    gpu.open_gate();
    copies.wait_all();
    expect_all_arrived_in_order(copies);
    std::vector<unsigned> slots_in_turn(n);
    for (int i = 0; i < n; ++i) slots_in_turn[i] = unsigned(i) % window;
    EXPECT_EQ(gpu.slots_started(), slots_in_turn);
    auto links = counters.snapshot();
    ASSERT_EQ(links.size(), 1u);
    EXPECT_EQ(links[0].transfers, uint64_t(n));
    EXPECT_EQ(links[0].bytes, uint64_t(n) * sizeof(double));
}

TEST_F(TransferEngine, ACopyRequestedWhileAnotherIsInFlightStartsAtOnce)
{
    Copies& copies = make_copies(2);
    engine.submit(copies.request(0));
    ASSERT_EQ(gpu.wait_started(1), 1u);
    // copy 0 has not ended: the channel does not wait for it to start copy 1
    engine.submit(copies.request(1));
    EXPECT_EQ(gpu.wait_started(2), 2u);
    EXPECT_EQ(copies.reported(), 0u);
    gpu.open_gate();
    copies.wait_all();
    EXPECT_EQ(copies.order, (std::vector<int>{0, 1}));
    EXPECT_EQ(copies.to, (std::vector<double>{0, 1}));
}

TEST_F(TransferEngine, CopiesWhoseEndsAreNeverAnnouncedAreFoundByAsking)
{
    gpu.announces = false;
    constexpr int n = window + 1;
    Copies& copies = make_copies(n);
    submit_all(copies);
    ASSERT_EQ(gpu.wait_started(window), window);
    gpu.open_gate();
    copies.wait_all();  // about announcement_overdue per copy
    expect_all_arrived_in_order(copies);
}

// Copy 0's end is announced only after the channel has found it by asking and started copy
// `window` in its slot: that announcement must not pass for the end of copy `window`, which
// stays in flight while the copies before it end.
TEST_F(TransferEngine, ALateAnnouncementDoesNotEndTheNextCopyInItsSlot)
{
    gpu.announced_late = 0;
    constexpr int n = window + 1;
    Copies& copies = make_copies(n);
    submit_all(copies);
    ASSERT_EQ(gpu.wait_started(n),
              std::size_t(n));  // copy 0 found ended after announcement_overdue
    const std::vector<unsigned> slots = gpu.slots_started();
    ASSERT_EQ(slots.back(), slots.front());
    gpu.announce_late();
    gpu.end_copies_below(n - 1);
    copies.wait_reported(n - 1);
    std::this_thread::sleep_for(
        std::chrono::milliseconds(50));  // time to take the last copy for ended
    EXPECT_EQ(copies.reported(), std::size_t(n - 1))
        << "the late announcement ended the next copy in its slot";
    EXPECT_FALSE(gpu.finished_a_copy_before_its_end());
    gpu.open_gate();
    copies.wait_all();
    expect_all_arrived_in_order(copies);
}

// Copy 0 is found ended by asking, and its end is announced only when the device is asked to
// deliver its announcements: stop() asks before its channels go, so the announcement reaches a
// channel that still exists.
TEST_F(TransferEngine, StopWaitsForLateAnnouncementsBeforeTheChannelsGo)
{
    gpu.announced_late = 0;
    Copies& copies = make_copies(1);
    submit_all(copies);
    copies.wait_all();  // after announcement_overdue
    engine.stop();
    EXPECT_FALSE(gpu.late_announcement_pending());
    expect_all_arrived_in_order(copies);
}

TEST_F(TransferEngine, ACopyThatFailsFailsItsOwnRequestOnly)
{
    gpu.fail_start = 2;   // copy 2 is refused
    gpu.fail_finish = 6;  // copy 6 fails on the device
    constexpr int n = 2 * window + 2;
    Copies& copies = make_copies(n);
    submit_all(copies);
    // copies 0, 1, 3 and 4 in flight; the refused one is answered at once, before them
    ASSERT_EQ(gpu.wait_started(window), window);
    {
        std::lock_guard lock(copies.m);
        EXPECT_EQ(copies.order, std::vector<int>{2});
    }
    gpu.open_gate();
    copies.wait_all();
    // the refused copy took no slot: the slots still go in turn
    std::vector<unsigned> slots_in_turn;
    for (int i = 0; i < n - 1; ++i) slots_in_turn.push_back(unsigned(i) % window);
    EXPECT_EQ(gpu.slots_started(), slots_in_turn);
    for (int i = 0; i < n; ++i) {
        const bool fails = i == 2 || i == 6;
        EXPECT_EQ(bool(copies.errors[i]), fails) << "copy " << i;
        if (!fails) { EXPECT_EQ(copies.to[i], double(i)) << "copy " << i; }
    }
    EXPECT_THROW(std::rethrow_exception(copies.errors[2]), tessera::DeviceError);
    EXPECT_THROW(std::rethrow_exception(copies.errors[6]), tessera::DeviceError);
    // what arrived is counted; the refused copy and the lost one are not
    ASSERT_EQ(counters.snapshot().size(), 1u);
    EXPECT_EQ(counters.snapshot()[0].transfers, uint64_t(n - 2));
}

TEST_F(TransferEngine, StoppingFinishesTheCopiesQueuedAndInFlight)
{
    constexpr int n = 2 * window + 3;
    Copies& copies = make_copies(n);
    submit_all(copies);
    ASSERT_EQ(gpu.wait_started(window), window);
    std::thread opener([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        gpu.open_gate();
    });
    engine.stop();  // returns once every request has its answer
    opener.join();
    EXPECT_EQ(copies.reported(), std::size_t(n));
    for (int i = 0; i < n; ++i) EXPECT_EQ(copies.to[i], double(i)) << "copy " << i;
}

}  // namespace
