// Transfers between memory nodes: asynchronous requests, each serviced by a channel (a thread)
// of the device end of the copy, with per-link statistics. A device node has two channels, one
// per direction, as a PCIe or NVLink link is full duplex and a GPU has a copy engine for each:
// copies to the device (from the host, or from a peer device: the destination's) and copies
// from it to the host overlap. A GPU's channel keeps up to DeviceBackend::copies_in_flight
// copies queued on its stream, so that its copy engine goes from one to the next without
// waiting for the channel's thread to learn that the last one ended and queue another. The
// channel's thread does not wait for a copy it has started: the device tells it when one has
// ended, so that a request that comes meanwhile is queued on the stream at once. Internal.
//
//   requester ──submit──► the device node's channel queue for that direction ──► copy (memcpy
//   slowed to the link's bandwidth and latency when emulated; for a GPU, started on the
//   direction's stream, its end announced by the device, finished in order) ──► link stats
//   ──► request.done(error) wakes the requester
#pragma once

#include <tessera/rt/interfaces.hpp>
#include <tessera/rt/memory.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tessera::rt::detail {

class DeviceBackend;
class TraceRecorder;

struct TransferRequest {
    NodeId src = 0, dst = 0;
    void const* src_ptr = nullptr;
    Layout src_layout;
    void* dst_ptr = nullptr;
    Layout dst_layout;
    /// Called by the channel thread once the data has arrived, or with the copy's error.
    std::function<void(std::exception_ptr)> done;
};

/// Transfers and bytes per (source, destination) pair.
class LinkCounters {
public:
    explicit LinkCounters(unsigned nodes = 1);
    void count(NodeId src, NodeId dst, std::size_t bytes) noexcept;
    std::vector<LinkStats> snapshot() const;  // the links used so far
    void reset() noexcept;

private:
    unsigned nodes_;
    std::unique_ptr<std::atomic<uint64_t>[]> transfers_, bytes_;
};

/// The two directions of a device's link, each with its own channel thread (and, on a GPU,
/// its own stream).
enum class CopyPath { to_device, from_device };

/// How an emulated link behaves: each copy takes latency + bytes / bandwidth at least, in
/// each direction independently.
struct LinkModel {
    double bandwidth = 0;  // bytes per second; 0: as fast as memcpy
    double latency = 0;    // seconds
};

class TransferEngine {
public:
    explicit TransferEngine(LinkCounters& counters) : counters_(counters) {}
    ~TransferEngine();
    /// Gives device node `node` its two channel threads (to it, from it): copies through
    /// `device` (a GPU; not owned), or memcpy slowed to link model `model` when `device` is
    /// nullptr.
    void add_channels(NodeId node, LinkModel model, DeviceBackend* device = nullptr);
    /// Queues a copy between the host and a device node, or between two devices that reach
    /// each other (the destination's channel to it services that one).
    void submit(TransferRequest r);
    /// Copies at once on the calling thread (eviction's write-back), with the link's cost.
    /// Throws DeviceError when a device copy fails.
    void copy_now(TransferRequest const& r);
    void stop() noexcept;
    /// Copies are recorded in `tracer`'s trace while it records; nullptr: in none.
    void set_tracer(TraceRecorder* tracer) noexcept
    {
        tracer_.store(tracer, std::memory_order_release);
    }

private:
    struct Channel {
        NodeId node;
        CopyPath path;
        LinkModel model;
        DeviceBackend* device = nullptr;
        std::mutex m;
        std::condition_variable cv;
        std::deque<TransferRequest> queue;
        // per slot: the number of the latest copy there whose end is known (guarded by m); a
        // number, not a flag, so that a late announcement cannot pass for a later copy's end
        std::vector<uint64_t> ended;
        bool stopping = false;
        std::thread thread;
    };
    /// A copy the channel has started and not yet finished; `slot` names it to the device,
    /// `number` (1, 2, ... in the order started) to the announcement of its end.
    struct CopyInFlight {
        TransferRequest request;
        unsigned slot;
        uint64_t number;
        std::chrono::steady_clock::time_point started{};  // for traces
    };
    /// Counts a copy in the link statistics, and in the trace while one records.
    void account(TransferRequest const& r, std::chrono::steady_clock::time_point started) noexcept;
    void serve(Channel& c);
    /// How long a channel waits for its oldest copy's end to be announced before it asks the
    /// device whether that copy has ended.
    static constexpr std::chrono::milliseconds announcement_overdue{250};
    Channel& channel_of(TransferRequest const& r);
    /// The copies a channel may have started and not finished: several on a GPU's stream, one
    /// on an emulated link (whose copy is done, and its cost slept, when started).
    static unsigned window(Channel const& c) noexcept;
    void start(Channel& c, CopyInFlight const& f);
    /// Called once copy `f` has ended, from any thread (the device's): wakes the channel to
    /// finish it.
    static void copy_ended(Channel& c, unsigned slot, uint64_t number) noexcept;
    void finish(Channel const& c, CopyInFlight const& f);
    /// An emulated link's copy: memcpy, then sleep until the link's cost has elapsed.
    static void emulate(LinkModel const& model, TransferRequest const& r);

    LinkCounters& counters_;
    std::atomic<TraceRecorder*> tracer_{nullptr};
    std::vector<std::unique_ptr<Channel>> channels_;
};

}  // namespace tessera::rt::detail
