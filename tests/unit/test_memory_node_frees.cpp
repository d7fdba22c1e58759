// A memory node frees its buffers outside its lock, and counts them as used until they are
// freed (on a GPU without memory pools, cudaFree waits for every kernel in flight). These
// cases take the node on its own, on a device of the test's own whose frees wait until the
// test lets them, with a replica no task uses on it:
// - an allocation that may wait, and that the memory being freed will serve, waits for that
//   memory: it does not evict the replica, whose data stays where the next task may read it;
// - an allocation that may not wait (a GPU worker binding a task's data) evicts the replica
//   and is handed its buffer at once, without waiting for the free.
#include "runtime/core/runtime_impl.hpp"
#include "runtime/data/coherency.hpp"
#include "runtime/data/data_state.hpp"
#include "runtime/data/device_backend.hpp"
#include "runtime/data/memory_node.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace {

namespace rt = tessera::rt;
namespace detail = tessera::rt::detail;
using detail::MemoryNode;
using Wait = MemoryNode::Wait;

constexpr std::size_t mb = std::size_t(1) << 20;

/// Host memory posing as a device's: a free waits until the test opens the gate (as cudaFree
/// waits for the kernels in flight). No copies: the replicas here are never written back.
class GatedFrees final : public detail::DeviceBackend {
public:
    void* allocate(std::size_t bytes) override { return std::malloc(bytes); }
    void free(void* p) noexcept override
    {
        std::unique_lock lock(m_);
        ++waiting_;
        cv_.notify_all();
        cv_.wait(lock, [&] { return open_; });
        std::free(p);
    }
    void start_copy(detail::TransferRequest const&, detail::CopyPath, unsigned,
                    std::function<void()>) override
    {
        throw tessera::DeviceError("GatedFrees copies nothing");
    }
    void finish_copy(detail::CopyPath, unsigned) override {}
    bool copy_has_ended(detail::CopyPath, unsigned) noexcept override { return true; }
    void await_announcements() noexcept override {}
    void copy_now(detail::TransferRequest const&) override
    {
        throw tessera::DeviceError("GatedFrees copies nothing");
    }
    bool reaches(DeviceBackend const&) const noexcept override { return false; }

    /// Blocks until a free is waiting at the gate.
    void wait_for_a_free()
    {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return waiting_ > 0; });
    }
    void open_gate()
    {
        std::lock_guard lock(m_);
        open_ = true;
        cv_.notify_all();
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    int waiting_ = 0;
    bool open_ = false;
};

/// A node of 3 MB on a GatedFrees device, full: 1 MB held by the test (a task's data), 1 MB
/// in the allocation cache, and a valid 1 MB replica of a handle, which no task uses. Then the
/// cached megabyte is being freed, on a thread of its own (reclaim: room for a workspace),
/// and that free waits at the gate.
class FullNodeWhileAFreeWaits : public testing::Test {
protected:
    static constexpr rt::NodeId id = 1;  // the emulated device's node: its replica slot

    void SetUp() override
    {
        home_.assign(mb, 1);
        rt::Layout layout = rt::layout_of(rt::Vector<char>{home_.data(), int64_t(mb)});
        handle_.emplace(&tessera::rt::detail::Internals::impl(runtime_), home_.data(), layout,
                        nullptr);
        replica_ = node_.allocate(mb, Wait::yes);
        detail::Replica& r = handle_->replicas[id];
        r.ptr = replica_;
        r.layout = layout;
        r.state = detail::Msi::shared;
        r.owned = true;
        r.in_lru = true;
        r.lru = node_.lru_insert(&*handle_);
        held_ = node_.allocate(mb, Wait::yes);
        node_.release(node_.allocate(mb, Wait::yes), mb);
        ASSERT_EQ(node_.info().used, 3 * mb);
        reclaimer_ = std::thread([&] { node_.reclaim(mb); });
        device_.wait_for_a_free();
    }
    void TearDown() override
    {
        device_.open_gate();
        if (reclaimer_.joinable()) reclaimer_.join();
        node_.release(held_, mb);
        detail::Replica& r = handle_->replicas[id];
        if (r.ptr) {  // not evicted
            node_.lru_erase(r.lru);
            node_.release(r.ptr, mb);
            r = detail::Replica{};
        }
    }

    /// Allocates 1 MB on a thread of its own, waiting or not; allocated_ tells when it returned.
    std::thread allocate_in_the_background(Wait wait)
    {
        return std::thread([this, wait] {
            got_ = node_.allocate(mb, wait);
            allocated_ = true;
        });
    }
    bool allocated_within(std::chrono::milliseconds limit)
    {
        const auto until = std::chrono::steady_clock::now() + limit;
        while (!allocated_ && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return allocated_;
    }

    rt::Runtime runtime_{{.ncpus = 1, .nemu = 1, .ncuda = 0}};  // a node 1 for the replica
    std::vector<char> home_;
    std::optional<detail::DataState> handle_;
    GatedFrees device_;
    MemoryNode node_{id, rt::NodeKind::cuda, 3 * mb, &device_};
    void* replica_ = nullptr;
    void* held_ = nullptr;
    std::thread reclaimer_;
    std::atomic<bool> allocated_{false};
    void* got_ = nullptr;
};

TEST_F(FullNodeWhileAFreeWaits, AnAllocationThatMayWaitWaitsForItRatherThanEvict)
{
    std::thread allocator = allocate_in_the_background(Wait::yes);
    EXPECT_FALSE(allocated_within(std::chrono::milliseconds(300)))
        << "it did not wait for the memory being freed";
    EXPECT_EQ(node_.info().evictions, 0u) << "it evicted a replica while memory was being freed";
    EXPECT_EQ(handle_->replicas[id].ptr, replica_);
    device_.open_gate();
    allocator.join();
    EXPECT_NE(got_, nullptr);
    EXPECT_NE(got_, replica_);
    EXPECT_EQ(node_.info().evictions, 0u);
    EXPECT_EQ(handle_->replicas[id].state, detail::Msi::shared) << "the replica is still valid";
    EXPECT_EQ(node_.info().used, 3 * mb);
    node_.release(got_, mb);
}

TEST_F(FullNodeWhileAFreeWaits, AnAllocationThatMayNotWaitEvictsAndIsServedAtOnce)
{
    std::thread allocator = allocate_in_the_background(Wait::no);
    EXPECT_TRUE(allocated_within(std::chrono::milliseconds(2000))) << "it waited for the free";
    device_.open_gate();
    allocator.join();
    EXPECT_EQ(got_, replica_) << "the evicted replica's buffer, handed over as it is";
    EXPECT_EQ(node_.info().evictions, 1u);
    EXPECT_EQ(handle_->replicas[id].ptr, nullptr);
    EXPECT_EQ(handle_->replicas[id].state, detail::Msi::invalid);
    node_.release(got_, mb);
}

}  // namespace
