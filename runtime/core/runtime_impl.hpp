// RuntimeImpl: the runtime's state behind tessera::rt::Runtime. Internal.
#pragma once

#include "runtime/core/parking.hpp"
#include "runtime/core/tags.hpp"
#include "runtime/core/task.hpp"
#include "runtime/core/topology.hpp"

#include <tessera/rt/runtime.hpp>

#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace tessera::rt::detail {

class RuntimeImpl final : public PolicyHost {
public:
    explicit RuntimeImpl(RuntimeConfig config);
    ~RuntimeImpl() override;

    // ---- PolicyHost ----
    unsigned worker_count() const noexcept override { return unsigned(workers_.size()); }
    WorkerInfo const& worker(WorkerId w) const override;
    std::vector<WorkerId> neighbours(WorkerId w) const override;
    void wake(WorkerId w) noexcept override { parking_.wake(w); }
    void wake_any(ReadyTask t) noexcept override;

    // ---- task life cycle ----
    /// Counts a submitted task; blocks the application thread while the window is full.
    void on_submit(Task* t);
    /// Drops one pending dependency of t; at zero the task is ready.
    void release_dependency(Task* t, WorkerId by);
    /// Hands a ready task to the policy.
    void push(Task* t);
    /// Runs t on worker w (or cancels it), then completes it.
    void execute(Task* t, WorkerId w);
    /// Completes t and every task its completion cancels, releasing their successors.
    void complete(Task* t, WorkerId w);
    /// Records a task error for the next wait_all.
    void record_error(std::exception_ptr e);

    void wait_all();
    void record_dependencies(bool on);
    std::vector<DependencyEdge> recorded_dependencies() const;
    void record_edge(Task const* from, Task const* to, DependencyKind kind)
    {
        if (recording_.load(std::memory_order_relaxed)) record_edge_slow(from, to, kind);
    }
    /// The implementation of t that worker w runs: the first its can_execute allows.
    std::optional<unsigned> first_runnable_implementation(Task const* t, WorkerId w) const;
    bool can_run_on(Task const* t, WorkerId w) const { return first_runnable_implementation(t, w).has_value(); }

    Policy& policy() noexcept { return *policy_; }
    Parking& parking() noexcept { return parking_; }
    TagTable& tags() noexcept { return tags_; }
    RuntimeConfig const& config() const noexcept { return config_; }
    int64_t pending_tasks() const noexcept { return pending_.load(std::memory_order_relaxed); }
    uint64_t next_sequence() noexcept { return sequence_.fetch_add(1, std::memory_order_relaxed); }
    std::vector<uint64_t> executed_per_worker() const;
    bool stopping() const noexcept { return stopping_.load(std::memory_order_acquire); }

private:
    void make_ready(Task* t, WorkerId by, std::vector<Task*>& cancelled);

    RuntimeConfig config_;
    Topology topology_;
    std::vector<WorkerInfo> workers_;
    std::unique_ptr<Policy> policy_;
    Parking parking_;
    TagTable tags_;

    std::atomic<int64_t> pending_{0};  // submitted, not completed
    std::atomic<uint64_t> sequence_{1};
    std::atomic<bool> stopping_{false};

    // submission window: the application thread sleeps while too many tasks are pending
    std::mutex window_m_;
    std::condition_variable window_cv_;
    std::atomic<bool> window_waiting_{false};

    void record_edge_slow(Task const* from, Task const* to, DependencyKind kind);
    std::atomic<bool> recording_{false};
    mutable std::mutex graph_m_;
    std::vector<DependencyEdge> edges_;

    std::mutex error_m_;
    std::exception_ptr first_error_;

    struct alignas(64) Counter {
        std::atomic<uint64_t> executed{0};
    };
    std::unique_ptr<Counter[]> executed_;
    std::vector<std::thread> threads_;
};

/// The worker the calling thread is (no_worker outside workers).
WorkerId current_worker_id() noexcept;
void set_current_worker(RuntimeImpl* rt, WorkerId w) noexcept;
RuntimeImpl* current_worker_runtime() noexcept;

}  // namespace tessera::rt::detail
