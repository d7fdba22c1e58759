/// @file runtime.hpp
/// tessera::rt::Runtime: the task runtime. RAII: the constructor detects the machine (hwloc)
/// and starts one pinned worker thread per core; the destructor waits for every submitted
/// task and stops them.
///
///     rt::Runtime rt{{.ncpus = 4, .scheduler = "ws"}};
///     rt::Handle x{rt, rt::Vector<double>{v.data(), n}};
///     auto t = rt.submit(scale, readwrite(x), value(2.0), rt::priority(1));
///     t.wait();                 // or rt.wait_all()
///
/// Dependencies: tasks accessing the same handle run in submission order (read after write,
/// write after read, write after write), readers concurrently; explicit ones with after(t);
/// tags with declare_tag_deps. An exception thrown by a kernel cancels the tasks that read
/// what it wrote (transitively) and is rethrown by the next wait that covers them.
#pragma once

#include <tessera/error.hpp>
#include <tessera/rt/access.hpp>
#include <tessera/rt/bound.hpp>
#include <tessera/rt/codelet.hpp>
#include <tessera/rt/handle.hpp>
#include <tessera/rt/memory.hpp>
#include <tessera/rt/perfmodel.hpp>
#include <tessera/rt/sched.hpp>
#include <tessera/rt/span.hpp>
#include <tessera/rt/task.hpp>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace tessera::rt {

/// How to start a runtime. A field left unset takes the environment variable named in its
/// comment, then the built-in default; Runtime::config() returns every field that has a
/// default set to the value in use.
struct RuntimeConfig {
    std::optional<int> ncpus;              ///< CPU workers (TESSERA_NCPU; default: every core)
    std::optional<std::string> scheduler;  ///< policy name (TESSERA_SCHED; default: "dmdas",
                                           ///< i.e. heft-tmdp-pr)
    std::optional<bool> pin_workers;       ///< pin workers to cores (TESSERA_PIN=1/0; default yes)
    std::optional<int64_t> max_pending_tasks;  ///< submission blocks while this many tasks are
                                               ///< pending, until half have completed; 0: never
                                               ///< (TESSERA_MAX_PENDING; default 10000)
    // ---- emulated accelerators (DESIGN.md): each a memory node, a transfer thread, a worker ----
    std::optional<int> nemu;                   ///< how many (TESSERA_NEMU; default 0)
    std::optional<std::string> emu_memory;     ///< capacity of each, e.g. "16MB" (TESSERA_EMU_MEM;
                                               ///< unset: no limit)
    std::optional<std::string> emu_bandwidth;  ///< host link bandwidth per second, e.g. "2GB"
                                               ///< (TESSERA_EMU_BANDWIDTH; unset: memcpy speed)
    /// host link latency in µs (TESSERA_EMU_LATENCY; default 0)
    std::optional<double> emu_latency_us;
    std::optional<double> emu_speed;  ///< speed relative to a core (TESSERA_EMU_SPEED; default 1):
                                      ///< below 1 each kernel is padded to last 1/speed times
                                      ///< longer; above 1 only the scheduling weight changes
    // ---- CUDA GPUs (builds with CUDA): each a memory node and a worker on a reserved core ----
    std::optional<int> ncuda;  ///< how many GPUs at most (TESSERA_NCUDA; default: all);
                               ///< each takes a core from the default ncpus
    std::optional<std::string> cuda_memory;  ///< device memory each GPU may hold replicas in, e.g.
                                             ///< "64MB" (TESSERA_CUDA_MEM; unset: 90% of what is
                                             ///< free at start); beyond it, replicas are evicted
    /// the LAPACK-style calls page-lock user arrays of at least this size while GPUs copy them,
    /// e.g. "64MB", or "never" (TESSERA_CUDA_PIN_THRESHOLD; default 16MB)
    std::optional<std::string> cuda_pin_threshold;
    // ---- performance models ----
    std::optional<std::string> perfmodel_dir;  ///< where models persist (TESSERA_PERFMODEL_DIR;
                                               ///< default $XDG_CACHE_HOME/tessera/perfmodels/
                                               ///< `<host>`, else ~/.cache/tessera/...);
                                               ///< "none": nowhere
    std::optional<std::string> sched_log;  ///< explain each scheduling decision to this file, or
                                           ///< "stderr" (TESSERA_SCHED_LOG; unset: off)
    /// record a trace of the whole run into this file, written when the runtime stops
    /// (TESSERA_TRACE; unset: off); a second runtime of the process writes FILE.2, and so on.
    /// Read it with tessera-trace and tessera-bound (docs/guide/tracing.md).
    std::optional<std::string> trace;
};

/// While it lives, the tasks the calling thread submits belong to API call `name` in traces
/// ("potrf"): the LAPACK-style calls and the FFT plans open one. The outermost counts (posv's
/// tasks belong to posv, not to the potrf it calls). `name` must outlive the scope (a literal).
class TracedCall {
public:
    /// Enters call `name` (unless the thread is already in one).
    explicit TracedCall(char const* name) noexcept;
    /// Leaves it.
    ~TracedCall();
    TracedCall(TracedCall const&) = delete;             ///< a scope, not a value
    TracedCall& operator=(TracedCall const&) = delete;  ///< a scope, not a value
    /// The call the calling thread is in, or nullptr.
    static char const* current() noexcept;

private:
    bool outermost_;
};

class Runtime;

/// Why one task waits for another.
enum class DependencyKind : uint8_t {
    read_after_write,   ///< implicit: reads what the other wrote (its failure cancels this task)
    write_after_read,   ///< implicit: overwrites what the other reads
    write_after_write,  ///< implicit: overwrites what the other wrote, without reading it
    explicit_task,      ///< after(t) (its failure cancels this task)
};
/// An edge of the task graph: task `to` waits for task `from` (ids are TaskRef::id()).
struct DependencyEdge {
    /// @name Tasks
    //@{
    /// The predecessor `from` and the successor `to`, as TaskRef::id() numbers them.
    uint64_t from, to;
    //@}
    DependencyKind kind;  ///< why `to` waits for `from`
    /// Field by field: same tasks, same kind.
    friend bool operator==(DependencyEdge const&, DependencyEdge const&) = default;
};

namespace detail {
class RuntimeImpl;
Task* task_create(Runtime& rt, void const* codelet, CodeletOps const* ops);
/// Adds buffer `s` accessed with mode m; `element`: its index in a span argument, or no_element.
inline constexpr std::size_t no_element = std::size_t(-1);
void task_add_buffer(Task* t, DataState* s, Mode m, std::size_t arg_index,
                     std::size_t element = no_element);
/// Records that the next buffers belong to the next buffer parameter (codelets with spans).
void task_begin_buffer_parameter(Task* t);
void* task_value_storage(Task* t, std::size_t size, std::size_t align);
void task_values_constructed(Task* t, void (*destroy)(void*)) noexcept;
void task_set_priority(Task* t, int p) noexcept;
void task_set_callback(Task* t, std::function<void()>&& f);
void task_set_tag(Task* t, TagId id);
void task_set_cancel_token(Task* t, CancelToken* token) noexcept;
void task_add_dependency(Task* t, TaskRef const& pred, std::size_t arg_index);
TaskRef task_submit(Task* t);
void task_discard(Task* t) noexcept;

template <class Cl, class... Args> inline constexpr bool submittable_v = false;
template <class... Params, class... Args>
inline constexpr bool submittable_v<Codelet<Params...>, Args...> = [] {
    if constexpr (sizeof...(Args) < sizeof...(Params)) {
        return false;
    } else {
        using A = std::tuple<std::remove_cvref_t<Args>...>;
        using P = std::tuple<Params...>;
        return []<std::size_t... K, std::size_t... O>(std::index_sequence<K...>,
                                                      std::index_sequence<O...>)
        {
            return (BindsTo<std::tuple_element_t<K, A>, std::tuple_element_t<K, P>> && ...) &&
                   (TaskOption<std::tuple_element_t<sizeof...(Params) + O, A>> && ...);
        }
        (std::index_sequence_for<Params...>{},
         std::make_index_sequence<sizeof...(Args) - sizeof...(Params)>{});
    }
}();

template <class T> constexpr Mode mode_of = Mode::R;
template <Interface I, Mode M> constexpr Mode mode_of<Access<I, M>> = M;
template <Interface I, Mode M, class R> constexpr Mode mode_of<AccessAll<I, M, R>> = M;
template <class T> inline constexpr bool is_access_all_v = false;
template <Interface I, Mode M, class R>
inline constexpr bool is_access_all_v<AccessAll<I, M, R>> = true;

inline void apply_option(Task* t, Priority p, std::size_t) noexcept
{
    task_set_priority(t, p.value);
}
inline void apply_option(Task* t, Callback c, std::size_t)
{
    task_set_callback(t, std::move(c.fn));
}
inline void apply_option(Task* t, Tag g, std::size_t)
{
    task_set_tag(t, g.id);
}
inline void apply_option(Task* t, CancelledBy c, std::size_t) noexcept
{
    task_set_cancel_token(t, c.token);
}
void task_set_worker(Task* t, unsigned w, std::size_t arg_index);
inline void apply_option(Task* t, OnWorker o, std::size_t k)
{
    task_set_worker(t, o.worker, k);
}
void task_set_context(Task* t, ContextId c, std::size_t arg_index);
inline void apply_option(Task* t, InContext c, std::size_t k)
{
    task_set_context(t, c.context, k);
}
inline void apply_option(Task* t, After a, std::size_t k)
{
    for (TaskRef const& p : a.tasks) task_add_dependency(t, p, k);
}
template <std::size_t N> void apply_option(Task* t, AfterN<N> a, std::size_t k)
{
    for (TaskRef const* p : a.tasks) task_add_dependency(t, *p, k);
}
}  // namespace detail

/// @name Parallel tasks
//@{
/// Inside a parallel (SPMD) task: this call's rank in its group, and the group's size (0 and 1
/// in a sequential task or outside tasks). In a fork-join task, rank 0 and the group's size:
/// the number of cores the implementation may use.
unsigned parallel_rank() noexcept;
unsigned parallel_size() noexcept;
//@}
/// Inside a parallel (SPMD) task: returns once every member of the group has called it as
/// many times as this one (OpenMP's barrier; memory written before it is visible to all
/// after it), and returns true. Every rank must call it the same number of times. Returns
/// false, at once, when the kernel of another rank threw: the task has failed, and the
/// caller should return without using what the others computed. A no-op returning true in a
/// sequential or fork-join task. Members spin briefly, then sleep: each holds a core.
///
///     if (!rt::parallel_barrier()) return;
[[nodiscard]] bool parallel_barrier() noexcept;

/// A codelet and an argument list it accepts: one Access or Value per kernel parameter, each
/// binding to it (BindsTo), then options.
template <class Cl, class... Args> concept SubmittableWith = detail::submittable_v<Cl, Args...>;

/// The task runtime.
class Runtime {
public:
    /// Starts the workers. Throws InvalidArgument for an unknown scheduler or a bad setting
    /// (naming the field or the environment variable).
    explicit Runtime(RuntimeConfig config = {});
    /// Waits for every submitted task, then stops the workers. Task errors not yet reported
    /// by a wait are dropped (a destructor cannot throw).
    ~Runtime();
    Runtime(Runtime const&) = delete;
    Runtime& operator=(Runtime const&) = delete;

    /// Submits a task of codelet `cl`: one argument per kernel parameter (read(h), write(h),
    /// readwrite(h), value(x); read_all(r), write_all(r), readwrite_all(r) for a Span), then options (priority, callback, tag, after). Asynchronous:
    /// returns at once with a reference to the task (an empty one where an rt::mpi::Context
    /// places the task on another rank). Throws InvalidArgument if a handle is not registered
    /// or is partitioned, or a tag is already in use; nothing is submitted then.
    template <class... Params, class... Args>
        requires SubmittableWith<Codelet<Params...>, Args...>
            TaskRef submit(Codelet<Params...> const& cl, Args&&... args);

    /// Blocks until every submitted task has completed, then rethrows the first task error
    /// raised since the previous wait_all, if any. Not callable from inside a task.
    void wait_all();

    // ---- tags (StarPU's tag API) ----
    /// Tag `id` becomes ready when every tag in `deps` is done: its task, submitted after this
    /// call, does not start until then, and is cancelled if one of them failed (the tags of
    /// `deps` may get their tasks before or after this call). Throws InvalidArgument if `id`
    /// already has a task or is done, or if `deps` contains `id`.
    void declare_tag_deps(TagId id, std::span<TagId const> deps);
    /// The same, for a braced list: `rt.declare_tag_deps(3, {1, 2})`.
    void declare_tag_deps(TagId id, std::initializer_list<TagId> deps)
    {
        declare_tag_deps(id, std::span<TagId const>(deps.begin(), deps.size()));
    }
    /// Blocks until tag `id` is done; rethrows the error of its task if it failed. Throws
    /// InvalidArgument for a tag that was never declared, used or notified.
    void wait_tag(TagId id);
    /// Marks tag `id` done from the application (a tag with no task, e.g. an external event).
    void notify_tag(TagId id);
    /// Forgets tag `id` so that it can be used again.
    void remove_tag(TagId id);

    // ---- scheduling contexts ----
    /// A subset of the workers; tasks submitted with in_context(c) run only there (a library
    /// confining its tasks, two computations sharing a machine). Throws InvalidArgument for
    /// an empty set or an unknown worker.
    ContextId create_context(std::vector<WorkerId> const& workers);
    /// The workers of context c.
    std::vector<WorkerId> context_workers(ContextId c) const;

    // ---- memory nodes and transfers ----
    /// Node 0 is the host; then one per emulated accelerator (and later per GPU).
    std::vector<MemoryNodeInfo> memory_nodes() const;
    /// Page-locks the caller's [p, p + bytes) while the result lives, when that pays: when this
    /// runtime has GPUs and the region is at least pin_threshold() bytes (small arrays move in
    /// a few copies, where registering would cost more than it saves). Otherwise, or without
    /// CUDA, an empty PinnedRegion. The LAPACK-style calls pin the user's arrays with it.
    PinnedRegion pin_for_transfers(void const* p, std::size_t bytes) const;
    /// RuntimeConfig::cuda_pin_threshold in bytes (SIZE_MAX for "never").
    std::size_t pin_threshold() const noexcept;
    /// 16 MB, a first guess not yet measured on a GPU (docs/gpu-validation.md).
    static constexpr std::size_t default_pin_threshold = std::size_t(16) << 20;
    /// Host memory for data this runtime will move to its devices (a TileMatrix's tiles):
    /// page-locked when it has GPUs, else ordinary page-aligned memory, with no CUDA call
    /// (TESSERA_NCUDA=0 creates no CUDA context). Free it with free_pinned.
    void* allocate_for_transfers(std::size_t bytes) const;
    /// Transfers and bytes per link used since the start or the last reset_link_stats().
    std::vector<LinkStats> link_stats() const;
    /// Per memory node, the tasks run there and those whose data was already valid there
    /// (NodeHitStats), since the start or the last reset_link_stats().
    std::vector<NodeHitStats> hit_stats() const;
    /// Sets every link's transfer and byte counts, and every node's hit counts, back to 0.
    void reset_link_stats();
    /// Starts bringing a valid copy of h to memory node `node`, without waiting; best effort
    /// (it gives up when the node is full). A task later reading h there finds it in place.
    template <Interface I> void prefetch(Handle<I> const& h, NodeId node)
    {
        prefetch_data(detail::Internals::state(h), node);
    }

    // ---- introspection ----
    /// Number of workers: CPU, emulated-accelerator and GPU ones together.
    unsigned worker_count() const noexcept;
    /// Worker w's description. Throws InvalidArgument when w >= worker_count().
    WorkerInfo const& worker(WorkerId w) const;
    /// The policy in use.
    std::string_view scheduler() const noexcept;
    /// The configuration after defaults and environment were applied.
    RuntimeConfig const& config() const noexcept;
    /// Tasks submitted and not yet completed.
    int64_t pending_tasks() const noexcept;
    /// What the performance model `symbol` has recorded so far (loading it if need be).
    std::vector<PerfModelEntry> perfmodel_entries(std::string_view symbol) const;
    /// The bus model's prediction for `bytes` from node src to node dst, in seconds.
    double predicted_transfer_time(NodeId src, NodeId dst, std::size_t bytes) const;
    /// Tasks each worker has executed so far (cancelled tasks are not counted).
    std::vector<uint64_t> executed_per_worker() const;
    /// Whether worker w left service after a fault that corrupted its GPU's context (an illegal
    /// address, a trap): it runs nothing more; the other workers take its tasks, and a task
    /// none of them can run fails with DeviceError. Throws InvalidArgument for an unknown w.
    bool worker_retired(WorkerId w) const;
    /// Starts (true) or stops (false) recording the dependency edges of submitted tasks.
    void record_dependencies(bool on);
    /// The edges recorded so far, in the order they were added (also from tasks that had
    /// already completed when their successor was submitted).
    std::vector<DependencyEdge> recorded_dependencies() const;
    /// The worker running the calling thread, or no_worker for a non-worker thread.
    static WorkerId current_worker() noexcept;

    // ---- traces (docs/guide/tracing.md) ----
    /// Starts recording a trace: per worker, each task's times (ready, taken, data in place,
    /// done), codelet, tile and call; the task graph's edges; transfers per link; idle periods.
    /// `path`: where stop_trace() writes it; empty: kept in memory only (for bounds). Throws
    /// InvalidArgument when a trace is already being recorded.
    void start_trace(std::string path = {});
    /// Stops recording (after the tasks of interest completed: wait_all first) and writes the
    /// trace to the path start_trace was given. Throws InvalidArgument when no trace is being
    /// recorded or the file cannot be written (naming it). TESSERA_TRACE's trace stops when the
    /// runtime does.
    void stop_trace();
    /// Whether a trace is being recorded.
    bool tracing() const noexcept;
    /// The bounds of the last trace stop_trace() ended: its time against the area bound
    /// (solved with GLPK) and the critical path. Throws InvalidArgument before any trace ended.
    TraceBounds trace_bounds() const;

private:
    friend struct detail::Internals;
    explicit Runtime(
        std::unique_ptr<detail::RuntimeImpl> impl) noexcept;  // Internals::adopt_runtime
    void prefetch_data(detail::DataState* d, NodeId node);
    std::unique_ptr<detail::RuntimeImpl> impl_;
};

template <class... Params, class... Args>
    requires SubmittableWith<Codelet<Params...>, Args...>
        TaskRef Runtime::submit(Codelet<Params...> const& cl, Args&&... args)
    {
        using Sig = detail::Signature<Params...>;
        using Values = typename Sig::Values;
        detail::Task* t = detail::task_create(*this, &cl, &detail::CodeletOpsFor<Params...>::ops);
        try {
            auto argv = std::forward_as_tuple(std::forward<Args>(args)...);
            // buffers, in parameter order; a span's elements in a row, where each buffer
            // parameter's first buffer is recorded (Sig::has_spans)
            [&]<std::size_t... K>(std::index_sequence<K...>)
            {
                (([&] {
                     if constexpr (Sig::is_buffer[K]) {
                         using A =
                             std::remove_cvref_t<std::tuple_element_t<K, std::tuple<Args...>>>;
                         if constexpr (Sig::has_spans) detail::task_begin_buffer_parameter(t);
                         if constexpr (detail::is_access_all_v<A>) {
                             std::size_t e = 0;
                             for (auto&& h : *std::get<K>(argv).range)
                                 detail::task_add_buffer(
                                     t, detail::Internals::state(detail::handle_of(h)),
                                     detail::mode_of<A>, K, e++);
                         } else {
                             detail::task_add_buffer(t, std::get<K>(argv).state, detail::mode_of<A>,
                                                     K);
                         }
                     }
                 }()),
                 ...);
            }
            (std::index_sequence_for<Params...>{});
            if constexpr (Sig::has_spans)
                detail::task_begin_buffer_parameter(t);  // the end of the last
            // values, copied into the task as the parameter types
            if constexpr (Sig::values > 0) {
                void* mem = detail::task_value_storage(t, sizeof(Values), alignof(Values));
                [&]<std::size_t... J>(std::index_sequence<J...>)
                {
                    ::new (mem)
                        Values(static_cast<
                               std::tuple_element_t<Sig::value_param[J], std::tuple<Params...>>>(
                            std::get<Sig::value_param[J]>(argv).v)...);
                }
                (std::make_index_sequence<Sig::values>{});
                detail::task_values_constructed(
                    t, [](void* p) { static_cast<Values*>(p)->~Values(); });
            }
            // options
            [&]<std::size_t... O>(std::index_sequence<O...>)
            {
                (detail::apply_option(t, std::get<sizeof...(Params) + O>(argv),
                                      sizeof...(Params) + O),
                 ...);
            }
            (std::make_index_sequence<sizeof...(Args) - sizeof...(Params)>{});
        } catch (...) {
            detail::task_discard(t);
            throw;
        }
        return detail::task_submit(t);
    }

}  // namespace tessera::rt
