// RuntimeImpl: the runtime's state behind tessera::rt::Runtime. Internal.
#pragma once

#include "runtime/core/parking.hpp"
#include "runtime/core/tags.hpp"
#include "runtime/core/task.hpp"
#include "runtime/core/topology.hpp"
#include "runtime/data/memory_node.hpp"
#include "runtime/data/transfer.hpp"
#include "runtime/drivers/cuda/cuda_driver.hpp"
#include "runtime/perfmodel/bus.hpp"
#include "runtime/perfmodel/store.hpp"

#include <tessera/rt/runtime.hpp>

#include <atomic>
#include <chrono>
#include <fstream>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

namespace tessera::rt::detail {

class DataState;

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
    void prefetch(ReadyTask t, WorkerId w) noexcept override;
    double now() const noexcept override;
    std::vector<std::vector<WorkerId>> const& combined_workers() const noexcept override { return groups_; }
    void push_to_group(ReadyTask t, std::size_t g) override;
    std::string_view arch_name(WorkerId w) const override { return perf_arch_.at(w); }
    bool logs_decisions() const noexcept override { return sched_log_ != nullptr; }
    void log_decision(std::string_view line) override;

    // ---- performance models ----
    Prediction expected_length(Task* t, WorkerId w);
    Prediction expected_length_on_cores(Task* t, unsigned size);
    unsigned max_parallelism(Task const* t) const noexcept;
    ContextId create_context(std::vector<WorkerId> const& workers);
    std::vector<WorkerId> context_workers(ContextId c) const;
    uint32_t context_count() const noexcept { return ncontexts_.load(std::memory_order_acquire); }
    double expected_transfer(Task* t, WorkerId w);
    ModelStore& models() noexcept { return models_; }
    BusModel const& bus() const noexcept { return bus_; }
    /// Some worker has an implementation the task may run with.
    bool runnable_somewhere(Task const* t) const;

    // ---- task life cycle ----
    /// Counts a submitted task; blocks the application thread while the window is full.
    void on_submit(Task* t);
    /// Drops one pending dependency of t; at zero the task is ready: pushed, or for a control or
    /// cancelled task, handled at once (what completes then is appended to `completed_now`).
    /// True if it became ready.
    bool drop_dependency(Task* t, WorkerId by, std::vector<Task*>& completed_now);
    /// drop_dependency, completing at once what it makes complete.
    void release_dependency(Task* t, WorkerId by);
    /// Hands a ready task to the policy (or to the worker it is bound to).
    void push(Task* t);
    /// The next task for worker w: one bound to it (on_worker), else the policy's.
    ReadyTask pop(WorkerId w);
    /// Runs t on worker w (or cancels it), then completes it: begin, the kernel, end.
    void execute(Task* t, WorkerId w);
    /// Before t runs on w (a driver that runs kernels asynchronously calls begin and end
    /// itself): false if t waits for a COMMUTE handle (it is pushed again when its turn comes).
    bool begin(Task* t, WorkerId w);
    /// After t ran on w (or was cancelled): records the kernel's `seconds` in the performance
    /// model (< 0: none), runs the callback, records `error`, and completes t.
    void end(Task* t, WorkerId w, double seconds, std::exception_ptr error);
    /// Completes t and every task its completion cancels, releasing their successors.
    void complete(Task* t, WorkerId w);
    /// Records a task error for the next wait_all.
    void record_error(std::exception_ptr e);
    /// Marks t failed with e (its first error counts), records e, and cancels t's group.
    void fail(Task* t, std::exception_ptr e);

    void wait_all();
    void record_dependencies(bool on);
    std::vector<DependencyEdge> recorded_dependencies() const;
    void record_edge(Task const* from, Task const* to, DependencyKind kind)
    {
        if (recording_.load(std::memory_order_relaxed)) record_edge_slow(from, to, kind);
    }
    /// The implementation of t that worker w runs: the first its can_execute allows.
    std::optional<unsigned> first_runnable_implementation(Task const* t, WorkerId w) const;
    /// Finds, once, the implementation each architecture would run t with (before t is
    /// visible to the policies, which then only read it).
    void find_implementations(Task* t) const;
    /// Whether a policy may give t to w: w may take t (binding, context) and has an
    /// implementation for it. A retired worker takes only the tasks no worker in service can
    /// run, which it fails (retired_worker_loop), so that every task has a worker to go to.
    bool can_run_on(Task const* t, WorkerId w) const;

    // ---- workers retired after a fault (retirement.cpp) ----
    /// Takes worker w out of service for good (a GPU whose context a fault corrupted): the
    /// policy no longer gives it what another worker can run, and the memory nodes no longer
    /// copy from its node. `why` says what happened, for the errors of the tasks it cannot run.
    /// Call it from w's thread, which then runs retired_worker_loop.
    void retire_worker(WorkerId w, std::string const& why);
    bool retired(WorkerId w) const noexcept
    {
        return any_retired_.load(std::memory_order_acquire) && retired_[w].load(std::memory_order_acquire);
    }
    /// A device memory node whose worker was retired: its replicas can no longer be read.
    bool node_retired(NodeId n) const noexcept;
    /// What a retired worker w does with a task it holds: hands it back to the policy, which
    /// gives it to a worker in service, or fails it where none can run it (completes it if it
    /// was cancelled). `popped`: w took it from the policy, whose hooks then see it start and end.
    void hand_back(Task* t, WorkerId w, bool popped);

    // ---- memory ----
    unsigned node_count() const noexcept { return unsigned(nodes_.size()); }
    MemoryNode& node(NodeId n) { return *nodes_[n]; }
    /// Can data move between nodes a and b in one copy? Always when one is the host; between
    /// two GPUs with peer access; never between other devices (they go through the host).
    bool peers(NodeId a, NodeId b) const noexcept;
    TransferEngine& transfers() noexcept { return transfers_; }
    LinkCounters& links() noexcept { return links_; }
    /// Registered root handles: the runtime unregisters those still alive when it stops.
    void track(DataState* d);
    void untrack(DataState* d) noexcept;

    Policy& policy() noexcept { return *policy_; }
    Parking& parking() noexcept { return parking_; }
    TagTable& tags() noexcept { return tags_; }
    RuntimeConfig const& config() const noexcept { return config_; }
    std::size_t pin_threshold() const noexcept { return pin_threshold_; }
    int64_t pending_tasks() const noexcept { return pending_.load(std::memory_order_relaxed); }
    uint64_t next_sequence() noexcept { return sequence_.fetch_add(1, std::memory_order_relaxed); }
    std::vector<uint64_t> executed_per_worker() const;
    bool stopping() const noexcept { return stopping_.load(std::memory_order_acquire); }

private:
    void resolve_config();
    void add_workers();
    void add_cuda_workers();
    /// A GPU's speed relative to a core before its models know better (a DGEMM tile on an
    /// H100 against one AVX-512 core): only the first tasks' placement depends on it.
    static constexpr double cuda_default_speed = 20.0;
    void calibrate_bus();
    void open_decision_log();
    void record_sample(Task* t, WorkerId w, double seconds);
    void record_edge_slow(Task const* from, Task const* to, DependencyKind kind);
    /// A ready control task: an acquire wakes its application thread, a join completes, a
    /// reduction starts (reduction.cpp).
    void control_ready(Task* t, std::vector<Task*>& completed_now);
    /// Runs t's kernel on worker w (its data made valid there); returns the kernel's seconds.
    double run_kernel(Task* t, WorkerId w);
    void execute_parallel(Task* t, WorkerId w);
    Prediction predict(Task* t, std::string const& arch, double unit_speed);

    RuntimeConfig config_;
    Topology topology_;
    std::vector<CudaDeviceInfo> cuda_devices_;  // the GPUs found at start (resolve_config)
    std::size_t pin_threshold_ = 0;             // config_.cuda_pin_threshold in bytes
    std::vector<WorkerInfo> workers_;
    std::vector<unsigned> bind_core_;     // per worker: the core index its thread is bound to
    std::vector<std::string> perf_arch_;  // per worker: "cpu", "emu0"...
    std::vector<WorkerId> arch_representatives_;  // one worker per distinct architecture
    std::vector<std::vector<WorkerId>> groups_;    // combined workers
    std::mutex group_push_m_;                      // one order of parallel tasks on all members
    mutable std::mutex contexts_m_;
    std::deque<std::vector<bool>> contexts_;       // append-only: readers index without a lock
    std::atomic<uint32_t> ncontexts_{0};
    std::vector<double> slowdown_;  // per worker: kernel time is padded to this factor
    std::unique_ptr<Policy> policy_;
    Parking parking_;
    TagTable tags_;

    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    ModelStore models_{""};
    BusModel bus_;
    std::unique_ptr<std::ofstream> sched_log_file_;
    std::ostream* sched_log_ = nullptr;
    std::mutex sched_log_m_;

    // declared first, destroyed last: the nodes and the channels use the devices
    std::vector<std::unique_ptr<DeviceBackend>> devices_;  // per node: its GPU, or nullptr
    LinkCounters links_;
    TransferEngine transfers_{links_};
    std::vector<std::unique_ptr<MemoryNode>> nodes_;
    std::mutex tracked_m_;
    std::unordered_set<DataState*> tracked_;

    struct alignas(64) BoundQueue {  // tasks bound to a worker with on_worker()
        std::mutex m;
        std::deque<Task*> q;
        std::atomic<bool> nonempty{false};
    };
    std::unique_ptr<BoundQueue[]> bound_;

    std::atomic<int64_t> pending_{0};  // submitted, not completed
    std::atomic<uint64_t> sequence_{1};
    std::atomic<bool> stopping_{false};

    // submission window: the application thread sleeps while too many tasks are pending
    std::mutex window_m_;
    std::condition_variable window_cv_;
    std::atomic<bool> window_waiting_{false};

    std::atomic<bool> recording_{false};
    mutable std::mutex graph_m_;
    std::vector<DependencyEdge> edges_;

    std::mutex error_m_;
    std::exception_ptr first_error_;

    /// w may take t, in service or not: its binding, its context, an implementation.
    bool able(Task const* t, WorkerId w) const;

    // workers retired after a fault: a flag is never cleared; a placement made on a flag read
    // late is handed back by the retired worker (or stolen, or found after its wake_all)
    std::atomic<bool> any_retired_{false};
    std::unique_ptr<std::atomic<bool>[]> retired_;
    mutable std::mutex retired_m_;
    std::vector<std::string> retired_why_;  // per worker, under retired_m_

    struct alignas(64) Counter {
        std::atomic<uint64_t> executed{0};
    };
    std::unique_ptr<Counter[]> executed_;
    std::vector<std::thread> threads_;
};

/// The loop of a retired worker w (retirement.cpp), until the runtime stops: hands back what
/// the policy still gives it, and sleeps.
void retired_worker_loop(RuntimeImpl& rt, WorkerId w);

/// The worker the calling thread is (no_worker outside workers).
WorkerId current_worker_id() noexcept;
void set_current_worker(RuntimeImpl* rt, WorkerId w) noexcept;
RuntimeImpl* current_worker_runtime() noexcept;

/// A control task (acquire, join, reduction) of runtime rt, holding the runtime's reference.
Task* make_control_task(RuntimeImpl* rt, Task::Kind kind);
/// A reduction task r became ready (reduction.cpp): once its contributions are done, it submits
/// the tree of reduction tasks; once they are done (or if it was cancelled), it frees the
/// private copies and is appended to `completed_now`.
void advance_reduction(Task* r, std::vector<Task*>& completed_now);

}  // namespace tessera::rt::detail
