// TraceRecorder: what a run does, as it does it (TESSERA_TRACE, Runtime::start_trace), kept in
// memory until the trace stops and then assembled into a trace::Trace. Each worker appends
// its tasks and idle periods to a buffer of its own (its lock is never contended but by the
// final assembly); edges, transfers and calls, rarer, go to one shared buffer. While off,
// each hook costs one relaxed load. Internal.
#pragma once

#include "runtime/trace/trace_file.hpp"

#include <tessera/rt/runtime.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tessera::rt::detail {

class TraceRecorder {
public:
    using Clock = std::chrono::steady_clock;
    /// Times are nanoseconds since `origin` (the runtime's start).
    explicit TraceRecorder(Clock::time_point origin) : origin_(origin) {}

    bool on() const noexcept { return on_.load(std::memory_order_acquire); }
    int64_t now() const noexcept { return since_origin(Clock::now()); }
    int64_t since_origin(Clock::time_point t) const noexcept
    {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(t - origin_).count();
    }

    /// Makes the buffers of `workers` workers (the same count at every call: a late worker may
    /// still write into its buffer); before the workers start, so that their sleeps are known.
    void prepare(unsigned workers);
    /// Starts recording (prepare(workers) if not yet), forgetting what an earlier recording kept.
    void start(unsigned workers);
    /// When the last start() was, in ns since the origin.
    int64_t started() const noexcept { return started_.load(std::memory_order_relaxed); }
    /// Stops recording and returns the trace: calls, codelets, tasks, edges, transfers and
    /// idle periods (the caller adds meta, nodes and workers).
    trace::Trace stop();

    // The records: noexcept, as the runtime calls them in the middle of a task's life; out of
    // memory, a record is dropped (the trace misses it), the run goes on.
    /// The id of API call `name` (interned; 0 for none, or when it cannot be kept).
    uint32_t call_id(std::string_view name) noexcept;
    /// A task worker `w` ran (or cancelled); `r.codelet` is ignored, `codelet` names it.
    void task(WorkerId w, std::string_view codelet, trace::TaskRecord r) noexcept;
    void idle(WorkerId w, int64_t start, int64_t end) noexcept;
    /// Worker `w` goes to sleep now, recording or not: a sleep that began before the trace or
    /// lasts past its end is recorded from the trace's start, or up to its end.
    void falls_asleep(WorkerId w) noexcept;
    /// Worker `w` woke: its sleep is recorded if a trace records.
    void wakes(WorkerId w) noexcept;
    void edge(uint64_t from, uint64_t to, DependencyKind kind) noexcept;
    void transfer(NodeId src, NodeId dst, uint64_t bytes, int64_t start, int64_t end) noexcept;

private:
    struct alignas(64) WorkerBuffer {
        std::mutex m;
        std::vector<trace::TaskRecord> tasks;  // codelet: an index into `codelets`
        std::vector<trace::IdleRecord> idles;
        std::atomic<int64_t> asleep_since{-1};  // -1: awake
        std::deque<std::string> codelets;       // a deque: the views below stay valid as it grows
        std::unordered_map<std::string_view, uint32_t> codelet_ids;  // views into `codelets`
    };

    Clock::time_point origin_;
    std::atomic<bool> on_{false};
    std::atomic<int64_t> started_{0};  // a waking worker may read it as a new trace starts
    std::unique_ptr<WorkerBuffer[]> workers_;
    unsigned nworkers_ = 0;

    std::mutex m_;  // the shared buffer
    std::vector<std::string> calls_{"-"};
    std::vector<DependencyEdge> edges_;
    std::vector<trace::TransferRecord> transfers_;
};

}  // namespace tessera::rt::detail
