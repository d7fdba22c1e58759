// Task: what the runtime keeps per submitted task. Internal.
//
// Life of a task:  created (pool) ─► submitted: pending = 1 + unsatisfied dependencies
//   ─► pending reaches 0: ready ─► Policy::push ─► a worker pops and runs it (or, if a task it
//   depends on failed, completes it as cancelled without running it) ─► complete: successors'
//   pending counts drop, tag done, waiters woken ─► back to the pool when the last reference goes.
#pragma once

#include "runtime/perfmodel/store.hpp"  // Footprint

#include <tessera/rt/codelet.hpp>
#include <tessera/rt/runtime.hpp>
#include <tessera/rt/sched.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <vector>

namespace tessera::rt::detail {

class RuntimeImpl;

/// An edge to a task that waits for this one. `propagates_failure` is false for edges that
/// only order the successor after a reader (write after read): nothing flows along them.
struct Successor {
    Task* task;
    bool propagates_failure;
};

class Task {
public:
    /// A codelet task, or a control task: an application's acquire, the join closing a COMMUTE
    /// group, the reduction closing REDUX contributions.
    enum class Kind : uint8_t { codelet, acquire, join, reduction };
    static constexpr std::size_t inline_value_bytes = 64;

    // ---- identity and arguments (set before submission, read-only afterwards) ----
    RuntimeImpl* rt = nullptr;
    Kind kind = Kind::codelet;
    void const* codelet = nullptr;
    CodeletOps const* ops = nullptr;
    std::vector<BufferSlot> buffers;      // keeps its capacity across reuses from the pool
    std::vector<uint32_t> buffer_groups;  // codelets with spans: KernelArgs::groups; else empty
    // TaskData's while the task runs (kept here, with their capacity, across reuses from the
    // pool: running a task allocates nothing in steady state)
    std::vector<BufferSlot> running_buffers;
    std::vector<std::pair<DataState*, Mode>> acquired;
    alignas(std::max_align_t) std::byte inline_values[inline_value_bytes];
    void* values = nullptr;
    void* heap_values = nullptr;
    std::size_t heap_values_align = 0;
    void (*destroy_values)(void*) = nullptr;
    std::function<void()> callback;
    std::vector<Task*> explicit_preds;  // after(...): retained until wired at submission
    int priority = 0;
    uint64_t sequence = 0;
    bool has_tag = false;
    TagId tag = 0;
    WorkerId bound_worker = no_worker;    // on_worker(): bypasses the policy
    CancelToken* cancel_token = nullptr;  // cancelled_by(): skipped once it is cancelled
    bool internal = false;                // submitted by the runtime itself: never throttled
    uint32_t skip_deps = 0;               // buffers (bit i) that take no implicit dependency
    int reduction_phase = 0;              // a reduction task: 0 contributions pending, 1 combining
    uint32_t context = 0;                 // in_context(): 0 for every worker
    unsigned group_size = 1;              // > 1: a parallel task on a combined worker
    std::size_t group = 0;
    std::atomic<unsigned> next_rank{0};  // each member of the group takes the next rank
    std::atomic<unsigned> arrived{0};    // barrier count: data ready at size, kernel done at 2 size
    std::atomic<unsigned> kernel_arrivals{0};  // parallel_barrier(): b barriers passed at b size
    std::atomic<bool> group_broken{false};     // a rank's kernel threw: the barriers release all
    bool group_runs = false;  // set by rank 0 before the first meeting: the ranks run their kernels
    BufferSlot const* running_slots = nullptr;  // a parallel task's data on its node (rank 0's)
    // per architecture, the implementation its workers run (first_runnable_implementation),
    // found once at submission: policies ask for every worker and every pop
    static constexpr int8_t impl_unknown = -2, impl_none = -1;
    int8_t first_impl[arch_count] = {impl_unknown, impl_unknown, impl_unknown};
    std::size_t data_bytes = 0;  // its handles' bytes, each handle once (found at submission)
    double predicted = 0;        // the length its policy expects (ReadyTask::set_predicted)
    Footprint footprint;         // the shape of its buffers, for the models (lazily)

    // ---- dependencies ----
    std::atomic<int> pending{1};  // unsatisfied dependencies + 1 while being submitted
    std::mutex m;                 // guards successors, completed, error, cancelled
    std::vector<Successor> successors;
    bool completed = false;
    bool cancelled = false;  // a task it depends on failed, or its token was cancelled: never runs
    bool failed = false;     // its kernel or callback threw, or it was cancelled
    std::exception_ptr error;

    // ---- scheduling and execution ----
    WorkerId released_by = no_worker;
    WorkerId ran_on = no_worker;
    std::atomic<uint32_t> done{0};   // 1 once complete (waited on by TaskRef::wait)
    std::atomic<uint32_t> ready{0};  // 1 once an acquire's dependencies are satisfied

    std::atomic<int> refs{0};

    // ---- tracing: written only while a trace records (TraceRecorder) ----
    struct TraceTimes {
        int64_t submit = -1;  // -1: submitted while no trace recorded, left out of it
        int64_t ready = 0, begin = 0, start = 0;  // ns since the runtime started
        int64_t end = -1;   // -1: when the runtime ends it; a GPU's: when its end event passed
        uint32_t call = 0;  // the API call it belongs to (0: none)
    } trace;

    /// Marks this task cancelled because a task it depends on failed with `e`.
    void poison(std::exception_ptr e);
    /// True if the task must not run: cancelled already, or its token cancelled before it
    /// started (it is then marked cancelled, without failing). Called by the thread about to
    /// run it.
    bool skips() noexcept;
    /// Adds `succ` as a successor unless this task already completed; in that case the
    /// dependency is already satisfied (and a failure is propagated at once). Returns true
    /// if an edge was added (the caller counted it in succ->pending beforehand).
    bool add_successor(Task* succ, bool propagates_failure);

    /// Resets for reuse from the pool.
    void reset() noexcept;
};

/// The arguments of t's kernel over `slots` (its buffers where the kernel runs).
inline KernelArgs kernel_args(Task const* t, BufferSlot const* slots,
                              CudaContext const* cuda = nullptr) noexcept
{
    return KernelArgs{slots, t->values, cuda,
                      t->buffer_groups.empty() ? nullptr : t->buffer_groups.data()};
}

/// Makes `succ` wait for `pred` (counted in succ->pending before pred can release it; a
/// no-op, save for failure propagation, if pred already completed).
void add_edge(Task* pred, Task* succ, DependencyKind kind);

/// The pool tasks come from: per-thread caches over a shared free list, so that steady-state
/// submission allocates nothing.
Task* allocate_task();
void recycle_task(Task* t) noexcept;

}  // namespace tessera::rt::detail
