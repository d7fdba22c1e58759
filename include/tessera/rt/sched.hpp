/// @file sched.hpp
/// The scheduling-policy interface. A policy is a small push/pop table (StarPU's
/// starpu_sched_policy): the runtime pushes each task whose dependencies are all satisfied,
/// and each idle worker pops. Policies are registered by name and chosen at run time
/// (RuntimeConfig::scheduler or TESSERA_SCHED).
///
///      submit ─► dependencies done ─► Policy::push(task) ─► queue(s) ─► Policy::pop(worker)
///                                         │ host.wake(w) / host.wake_any(task)         │
///                                         ▼                                           ▼
///                                    sleeping worker ◄──────────────────────── worker runs task
///
/// Contract: push and pop are called concurrently from any thread; a policy does its own
/// locking. A pushed task may be popped, run and completed by a worker before push returns;
/// the ReadyTask stays valid (its queries answer) until push returns, not after. After queueing a task, push must call host().wake(w) for the worker it chose, or
/// host().wake_any(task) when any able worker may take it; pop must never return a task the
/// worker cannot run (ReadyTask::can_run_on).
#pragma once

#include <tessera/rt/codelet.hpp>
#include <tessera/rt/perfmodel.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::rt {

/// A worker's index, 0 to Runtime::worker_count() - 1.
using WorkerId = unsigned;
/// "Not released by a worker": the application thread made the task ready.
inline constexpr WorkerId no_worker = ~0u;

/// A processing unit of the runtime.
struct WorkerInfo {
    WorkerId id = 0;        ///< its index
    Arch arch = Arch::cpu;  ///< its kind of unit: which implementations it runs
    int core = -1;          ///< the logical core (hwloc PU index) it is pinned to, -1 if unpinned
    int memory_node = 0;    ///< the memory node whose replicas its tasks use
    double speed = 1.0;     ///< relative speed (1 = one CPU core), for speed-weighted policies
};

/// A task whose dependencies are all satisfied, as a policy sees it.
class ReadyTask {
public:
    /// An empty ReadyTask: what pop returns when it has nothing for the worker.
    ReadyTask() = default;
    /// False for an empty ReadyTask. The queries below need a non-empty one.
    explicit operator bool() const noexcept { return t_ != nullptr; }
    /// Whether both refer to the same task (or are both empty).
    friend bool operator==(ReadyTask, ReadyTask) = default;

    /// The priority given at submission (rt::priority; 0 without it), unclamped.
    int priority() const noexcept;
    /// Monotonic submission number (ties between equal priorities go to the older task).
    uint64_t sequence() const noexcept;
    /// The worker whose completing task made this one ready, or no_worker.
    WorkerId released_by() const noexcept;
    /// The worker the task is bound to (on_worker), or no_worker. A bound task never passes
    /// through the policy's push and pop: the policy sees it only start and end.
    WorkerId bound_worker() const noexcept;
    /// Whether worker w has an implementation that may run this task. The answer changes when
    /// a worker is retired after a fault (Policy::withdraw): ask it when placing and popping.
    bool can_run_on(WorkerId w) const;
    /// The name of the task's codelet (Codelet::name).
    std::string_view codelet_name() const noexcept;
    /// The predicted length on worker w's architecture (perfmodel.hpp): a calibrated model's
    /// mean or regression, else the flop count over the unit's measured speed; with the state
    /// of calibration, so that a policy can spread tasks to calibrate their models.
    Prediction expected_length(WorkerId w) const;
    /// The predicted time to bring the data the task reads to w's memory node (0 for what is
    /// valid there or already on its way), from the bus model.
    double expected_transfer(WorkerId w) const;
    /// The bytes of the task's data (each buffer once; SCRATCH and REDUX aside) valid, or on
    /// their way, on w's memory node: the data a data-aware policy keeps from moving.
    std::size_t valid_bytes_on(WorkerId w) const;
    /// Whether w's memory node holds a valid copy of the data the task writes (owner
    /// computes): of its first written buffer (W, RW, COMMUTE) that has a valid copy anywhere.
    /// False when no buffer the task writes has one (new data, or a task that writes nothing).
    bool owns_written_data(WorkerId w) const;
    /// The predicted length on a combined worker of `size` CPU cores (architecture "cpu_x<size>").
    Prediction expected_length_on_cores(unsigned size) const;
    /// The largest combined worker worth giving this task: its codelet's max_parallelism for a
    /// parallel codelet, 1 otherwise (and for tasks bound to a worker or with COMMUTE data).
    unsigned max_parallelism() const noexcept;
    /// The length a policy expects, kept with the task (e.g. to correct expected ends).
    void set_predicted(double seconds) noexcept;
    /// What set_predicted last stored, in seconds (0 if it was never called).
    double predicted() const noexcept;

private:
    friend struct detail::Internals;
    explicit ReadyTask(detail::Task* t) noexcept : t_(t) {}
    detail::Task* t_ = nullptr;
};

/// What the runtime offers a policy.
class PolicyHost {
public:
    virtual ~PolicyHost() = default;
    /// Number of workers; their ids are 0 to worker_count() - 1.
    virtual unsigned worker_count() const noexcept = 0;
    /// Worker w's description. Throws InvalidArgument when w >= worker_count().
    virtual WorkerInfo const& worker(WorkerId w) const = 0;
    /// Workers sorted from the closest to the farthest from w in the machine's topology
    /// (shared caches, then NUMA node), w excluded.
    virtual std::vector<WorkerId> neighbours(WorkerId w) const = 0;
    /// A task was queued for w: wake w if it sleeps.
    virtual void wake(WorkerId w) noexcept = 0;
    /// A task was queued that any able worker may take: wake one sleeping worker able to run it.
    virtual void wake_any(ReadyTask t) noexcept = 0;
    /// Starts bringing the data t reads to the memory node of worker w, so that it is there
    /// when w runs t (best effort: nothing happens where the node is full). Call it before
    /// queueing t, or from push while t is valid.
    virtual void prefetch(ReadyTask t, WorkerId w) noexcept = 0;
    /// Combined workers: groups of CPU workers close in the topology (2, 4, ... cores, and all),
    /// which a policy may give a parallel task with push_to_group.
    virtual std::vector<std::vector<WorkerId>> const& combined_workers() const noexcept = 0;
    /// Queues t on every worker of combined worker g, in the same order on all of them (so that
    /// two parallel tasks never wait for each other), and wakes them. Instead of queueing t in
    /// the policy: its workers take it before anything the policy holds.
    virtual void push_to_group(ReadyTask t, std::size_t g) = 0;
    /// Seconds since the runtime started (a steady clock).
    virtual double now() const noexcept = 0;
    /// The performance architecture of w: "cpu", "emu0", "cuda1"...
    virtual std::string_view arch_name(WorkerId w) const = 0;
    /// Whether scheduling decisions are to be explained (TESSERA_SCHED_LOG).
    virtual bool logs_decisions() const noexcept = 0;
    /// Appends one explanation, a whole line, to the decision log. Lines that several threads
    /// log at once are written one after the other, never interleaved.
    virtual void log_decision(std::string_view line) = 0;
};

/// The range of priorities a policy distinguishes (StarPU's min/max priority).
struct PriorityRange {
    /// @name Bounds
    //@{
    /// The lowest and the highest priority the policy tells apart, both included.
    int min = 0, max = 0;
    //@}
};

/// A scheduling policy.
class Policy {
public:
    virtual ~Policy() = default;
    /// The name Runtime::scheduler() reports. The built-in policies return their registered
    /// name ("dmdas"), also when created through an alias ("heft-tmdp-pr").
    virtual std::string_view name() const noexcept = 0;
    /// Called once, before any push, with the runtime's workers.
    virtual void init(PolicyHost& host) { host_ = &host; }
    /// A ready task: queue it and wake a worker.
    virtual void push(ReadyTask t) = 0;
    /// The next task for worker w, or an empty ReadyTask.
    virtual ReadyTask pop(WorkerId w) = 0;
    /// Hook: worker w starts a task it popped or was bound to, also one that it completes
    /// without running because it was cancelled (a parallel task: once, on the worker of rank
    /// 0). Runs on w's own thread.
    virtual void on_start(ReadyTask, WorkerId) {}
    /// Hook: worker w is done with the task (it ran, failed, or was skipped as cancelled),
    /// before the task's successors are released. Runs on w's own thread.
    virtual void on_complete(ReadyTask, WorkerId) {}
    /// The priorities this policy orders by; tasks outside are clamped by the policy.
    virtual PriorityRange priorities() const noexcept { return {0, 0}; }
    /// Worker w left service for good (a GPU whose context a fault corrupted): return every
    /// task queued for w alone; the runtime places each again (from now on, can_run_on(w) is
    /// true only for the tasks no other worker can run). A policy with per-worker queues must
    /// override it; a shared queue has nothing to give back.
    virtual std::vector<ReadyTask> withdraw(WorkerId) { return {}; }

protected:
    /// The host given to init. An override of init must call Policy::init(host) first;
    /// before it, host() must not be called.
    PolicyHost& host() const noexcept { return *host_; }

private:
    PolicyHost* host_ = nullptr;
};

/// The named registry of policies.
class PolicyRegistry {
public:
    /// Makes a new policy object; create() calls it each time, so each Runtime has its own.
    using Factory = std::function<std::unique_ptr<Policy>()>;
    /// Adds (or replaces) a policy under `name`, with a one-line description.
    void add(std::string name, std::string description, Factory make);
    /// Creates the policy called `name`; throws InvalidArgument listing the known names if unknown.
    std::unique_ptr<Policy> create(std::string_view name) const;
    /// Whether create() accepts `name`: a registered name or an alias.
    bool contains(std::string_view name) const;
    /// Another name for a registered policy (e.g. heft-tmdp-pr for dmdas).
    void alias(std::string name, std::string target);
    /// The registered names, in registration order (aliases excluded).
    std::vector<std::string> names() const;
    /// Every name create() accepts: the names, then the aliases.
    std::vector<std::string> all_names() const;
    /// The description given to add() for `name`; empty for an alias or an unknown name.
    std::string description(std::string_view name) const;

private:
    struct Entry {
        std::string name, description;
        Factory make;
    };
    mutable std::mutex m_;
    std::vector<Entry> entries_;
    std::vector<std::pair<std::string, std::string>> aliases_;  // alias -> name
};

/// The process-wide registry, holding the built-in policies (eager, prio, random, ws, lws, dm,
/// dmda, dmdas, dmdasd) and the seeds' names for dm, dmda and dmdas (heft-tm, heft-tmdp,
/// heft-tmdp-pr, and heft-tmdm as chapter 7 of the thesis calls heft-tmdp).
PolicyRegistry& policies();

}  // namespace tessera::rt
