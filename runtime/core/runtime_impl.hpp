// RuntimeImpl: the runtime's state behind tessera::rt::Runtime. Internal.
#pragma once

#include "runtime/core/bound_queues.hpp"
#include "runtime/core/contexts.hpp"
#include "runtime/core/machine.hpp"
#include "runtime/core/parking.hpp"
#include "runtime/core/placement.hpp"
#include "runtime/core/submission_window.hpp"
#include "runtime/core/tags.hpp"
#include "runtime/core/task.hpp"
#include "runtime/perfmodel/bus.hpp"
#include "runtime/perfmodel/predictor.hpp"
#include "runtime/perfmodel/store.hpp"
#include "runtime/trace/decision_log.hpp"
#include "runtime/trace/graph_recorder.hpp"
#include "runtime/trace/trace_recorder.hpp"

#include <tessera/rt/runtime.hpp>

#include <atomic>
#include <chrono>
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

/// The runtime: a task's life from submission to completion (lifecycle.cpp, parallel_task.cpp),
/// where a task may run (placement.cpp), workers retired after a fault (retirement.cpp), and
/// what the policies see (PolicyHost, runtime.cpp), over parts that each own one concept: the
/// machine and its drivers, the scheduling contexts, the bound queues, the submission window,
/// the predictor, the graph recorder and the decision log.
class RuntimeImpl final : public PolicyHost {
public:
    /// A runtime over this build's drivers (make_drivers()), or over `drivers` (a test of a
    /// new driver).
    explicit RuntimeImpl(RuntimeConfig config);
    RuntimeImpl(RuntimeConfig config, std::vector<std::unique_ptr<Driver>> drivers);
    ~RuntimeImpl() override;

    // ---- PolicyHost ----
    unsigned worker_count() const noexcept override { return machine_.worker_count(); }
    WorkerInfo const& worker(WorkerId w) const override;
    std::vector<WorkerId> neighbours(WorkerId w) const override { return machine_.neighbours(w); }
    void wake(WorkerId w) noexcept override { parking_.wake(w); }
    void wake_any(ReadyTask t) noexcept override;
    void prefetch(ReadyTask t, WorkerId w) noexcept override;
    double now() const noexcept override;
    std::vector<std::vector<WorkerId>> const& combined_workers() const noexcept override
    {
        return machine_.combined_workers();
    }
    void push_to_group(ReadyTask t, std::size_t g) override;
    std::string_view arch_name(WorkerId w) const override { return machine_.perf_arch(w); }
    bool logs_decisions() const noexcept override { return decisions_.enabled(); }
    void log_decision(std::string_view line) override { decisions_.write(line); }

    // ---- predictions (the predictor, given the task's kernel and the worker's architecture) ----
    Prediction expected_length(Task* t, WorkerId w);
    Prediction expected_length_on_cores(Task* t, unsigned size);
    unsigned max_parallelism(Task const* t) const noexcept;
    double expected_transfer(Task* t, WorkerId w);
    // where a task's data is valid, for the data-aware policies (data_locality.cpp)
    std::size_t valid_bytes(Task* t, WorkerId w);
    bool owns_written_data(Task* t, WorkerId w);
    ModelStore& models() noexcept { return models_; }
    BusModel const& bus() const noexcept { return bus_; }

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
    /// A task was submitted after a task whose output it reads had failed: it inherits the
    /// failure and will not run. That is no new error here (the failure was reported), but
    /// the placement is told: another process may wait for what the task would have sent.
    void failed_at_submission(std::exception_ptr e);
    void wait_all();

    // ---- where a task may run (placement.cpp) ----
    /// Some worker has an implementation the task may run with.
    bool runnable_somewhere(Task const* t) const;
    /// The implementation of t that worker w runs: the first its can_execute allows.
    std::optional<unsigned> first_runnable_implementation(Task const* t, WorkerId w) const
    {
        const int8_t i = t->first_impl[std::size_t(machine_.worker(w).arch)];
        if (i >= 0) return unsigned(i);
        if (i == Task::impl_none) return std::nullopt;
        return find_first_runnable(t, machine_.worker(w).arch);  // not submitted yet
    }
    /// Finds, once, the implementation each architecture would run t with (before t is
    /// visible to the policies, which then only read it).
    void find_implementations(Task* t) const;
    /// Whether a policy may give t to w: w may take t (binding, context) and has an
    /// implementation for it. A retired worker takes only the tasks no worker in service can
    /// run, which it fails (retired_worker_loop), so that every task has a worker to go to.
    bool can_run_on(Task const* t, WorkerId w) const
    {
        return able(t, w) && (!retired(w) || no_other_can_run(t, w));
    }

    // ---- workers retired after a fault (retirement.cpp) ----
    /// Takes worker w out of service for good (a GPU whose context a fault corrupted): the
    /// policy no longer gives it what another worker can run, and the memory nodes no longer
    /// copy from its node. `why` says what happened, for the errors of the tasks it cannot run.
    /// Call it from w's thread, which then runs retired_worker_loop.
    void retire_worker(WorkerId w, std::string const& why);
    bool retired(WorkerId w) const noexcept
    {
        return any_retired_.load(std::memory_order_acquire) &&
               retired_[w].load(std::memory_order_acquire);
    }
    /// A device memory node whose worker was retired: its replicas can no longer be read.
    bool node_retired(NodeId n) const noexcept;
    /// What a retired worker w does with a task it holds: hands it back to the policy, which
    /// gives it to a worker in service, or fails it where none can run it (completes it if it
    /// was cancelled). `popped`: w took it from the policy, whose hooks then see it start and end.
    void hand_back(Task* t, WorkerId w, bool popped);

    // ---- the parts ----
    Machine& machine() noexcept { return machine_; }
    Machine const& machine() const noexcept { return machine_; }
    SchedulingContexts& contexts() noexcept { return contexts_; }
    SchedulingContexts const& contexts() const noexcept { return contexts_; }
    GraphRecorder& recorder() noexcept { return recorder_; }
    TraceRecorder& tracer() noexcept { return tracer_; }
    /// The placement that decides which tasks this process runs (null: every task), and
    /// installs one (runtime/core/placement.hpp): before submitting tasks, one at a time.
    TaskPlacement* placement() const noexcept { return placement_.load(std::memory_order_acquire); }
    void set_placement(TaskPlacement* p) noexcept
    {
        placement_.store(p, std::memory_order_release);
    }
    Policy& policy() noexcept { return *policy_; }
    Parking& parking() noexcept { return parking_; }
    TagTable& tags() noexcept { return tags_; }

    /// Registered root handles: the runtime unregisters those still alive when it stops.
    void track(DataState* d);
    void untrack(DataState* d) noexcept;

    RuntimeConfig const& config() const noexcept { return config_; }
    std::size_t pin_threshold() const noexcept { return pin_threshold_; }
    int64_t pending_tasks() const noexcept { return window_.pending(); }
    uint64_t next_sequence() noexcept { return sequence_.fetch_add(1, std::memory_order_relaxed); }
    std::vector<uint64_t> executed_per_worker() const;
    bool stopping() const noexcept { return stopping_.load(std::memory_order_acquire); }

    // ---- traces (tracing.cpp) ----
    void start_trace(std::string path);
    void stop_trace();
    /// The last trace stop_trace() assembled (empty before).
    trace::Trace const& last_trace() const noexcept { return last_trace_; }
    /// A task t ended on w while its trace recorded: its record.
    void trace_task(Task* t, WorkerId w) noexcept;
    TraceBounds trace_bounds();

private:
    /// Each setting left unset takes its environment variable, then its default (config.cpp);
    /// the drivers find their devices first.
    void resolve_config();
    /// The bus model: loaded, or measured over the machine's links.
    void calibrate_bus();
    /// A ready control task: an acquire wakes its application thread, a join completes, a
    /// reduction starts (reduction.cpp).
    void control_ready(Task* t, std::vector<Task*>& completed_now);
    /// Runs t's kernel on worker w (its data made valid there); returns the kernel's seconds.
    double run_kernel(Task* t, WorkerId w);
    /// A parallel task's member w (parallel_task.cpp).
    void execute_parallel(Task* t, WorkerId w);
    void record_sample(Task* t, WorkerId w, double seconds);
    static KernelShape shape_of(Task* t) noexcept
    {
        return {t->ops, t->codelet, kernel_args(t, t->buffers.data()), t->buffers, t->footprint};
    }
    /// w may take t, in service or not: its binding, its context, an implementation, and, for a
    /// task the policy places, room for its data (a task bound to a worker too small for it
    /// goes there and fails, as its binding asked).
    bool able(Task const* t, WorkerId w) const
    {
        if (t->bound_worker != no_worker) {
            if (t->bound_worker != w) return false;
        } else if (!holds_data_of(t, w)) {
            return false;
        }
        if (!contexts_.contains(t->context, w)) return false;
        return first_runnable_implementation(t, w).has_value();
    }
    /// w's memory node can hold all of t's data at once (a GPU, capped or not by
    /// TESSERA_CUDA_MEM; an emulated device with a capacity): otherwise w would wait forever
    /// for room that t itself takes.
    bool holds_data_of(Task const* t, WorkerId w) const noexcept
    {
        const std::size_t memory = machine_.memory_of(w);
        return memory == 0 || t->data_bytes <= memory;
    }
    /// No worker in service but w may take t.
    bool no_other_can_run(Task const* t, WorkerId w) const;
    /// The first implementation of t for `arch` whose can_execute allows it.
    static std::optional<unsigned> find_first_runnable(Task const* t, Arch arch);

    RuntimeConfig config_;
    Machine machine_;                // first built, last destroyed: everything else runs on it
    std::size_t pin_threshold_ = 0;  // config_.cuda_pin_threshold in bytes
    std::unique_ptr<Policy> policy_;
    Parking parking_;
    TagTable tags_;
    SchedulingContexts contexts_;
    BoundQueues bound_;
    SubmissionWindow window_;

    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    ModelStore models_{""};
    BusModel bus_;
    Predictor predictor_{models_, bus_};
    DecisionLog decisions_;
    GraphRecorder recorder_;
    TraceRecorder tracer_{start_};
    std::atomic<TaskPlacement*> placement_{nullptr};
    std::mutex trace_m_;       // start_trace and stop_trace
    std::string trace_path_;   // where stop_trace writes ("": nowhere)
    trace::Trace last_trace_;  // under trace_m_

    std::mutex tracked_m_;
    std::unordered_set<DataState*> tracked_;

    std::atomic<uint64_t> sequence_{1};
    std::atomic<bool> stopping_{false};

    std::mutex error_m_;
    std::exception_ptr first_error_;

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
