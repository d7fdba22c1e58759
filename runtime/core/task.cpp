// The task pool, and the task-level operations shared by the runtime, TaskRef and ReadyTask.
#include "runtime/core/task.hpp"

#include "runtime/core/runtime_impl.hpp"

#include <tessera/error.hpp>
#include <tessera/rt/task.hpp>

#include <algorithm>
#include <iterator>
#include <new>

namespace tessera::rt::detail {

// ---- pool: a per-thread cache over a shared free list ------------------------------------------
// Tasks are allocated by the submitting thread and recycled by workers, so free tasks migrate
// between threads in batches: a cache holds up to 2*batch tasks and trades `batch` at a time.

namespace {
constexpr std::size_t batch = 64;

struct SharedPool {
    std::mutex m;
    std::vector<Task*> free;
    ~SharedPool()
    {
        for (Task* t : free) delete t;
    }
};
SharedPool& shared_pool()
{
    static SharedPool* pool = new SharedPool;  // leaked on purpose: thread caches outlive statics
    return *pool;
}

struct ThreadCache {
    std::vector<Task*> free;
    ~ThreadCache()
    {
        SharedPool& p = shared_pool();
        std::lock_guard lock(p.m);
        p.free.insert(p.free.end(), free.begin(), free.end());
    }
};
thread_local ThreadCache cache;
}  // namespace

Task* allocate_task()
{
    auto& local = cache.free;
    if (local.empty()) {
        SharedPool& p = shared_pool();
        std::lock_guard lock(p.m);
        std::size_t n = std::min(batch, p.free.size());
        local.insert(local.end(), p.free.end() - std::ptrdiff_t(n), p.free.end());
        p.free.resize(p.free.size() - n);
    }
    if (local.empty()) return new Task;
    Task* t = local.back();
    local.pop_back();
    return t;
}

void recycle_task(Task* t) noexcept
{
    t->reset();
    auto& local = cache.free;
    local.push_back(t);
    if (local.size() >= 2 * batch) {
        SharedPool& p = shared_pool();
        std::lock_guard lock(p.m);
        p.free.insert(p.free.end(), local.end() - std::ptrdiff_t(batch), local.end());
        local.resize(local.size() - batch);
    }
}

// A pending task is one of these plus its buffer lists (two while it runs: its own and
// TaskData's): keep it small (DESIGN.md: under 1 KB). 592 with the span groups, the running
// buffers, the implementation per architecture and a GPU task's traced end.
static_assert(sizeof(Task) <= 592, "Task grew: check what was added to it");

// ---- Task ----------------------------------------------------------------------------------------

void Task::poison(std::exception_ptr e)
{
    std::lock_guard lock(m);
    cancelled = true;
    failed = true;
    if (!error) error = std::move(e);
}

bool Task::skips() noexcept
{
    if (!cancelled && cancel_token && cancel_token->cancelled()) {
        std::lock_guard lock(m);
        cancelled = true;
    }
    return cancelled;
}

bool Task::add_successor(Task* succ, bool propagates_failure)
{
    std::exception_ptr inherited;
    {
        std::lock_guard lock(m);
        if (!completed) {
            successors.push_back({succ, propagates_failure});
            return true;
        }
        if (propagates_failure && failed) inherited = error;
    }
    if (inherited) {
        succ->poison(inherited);
        succ->rt->failed_at_submission(inherited);
    }
    return false;
}

void add_edge(Task* pred, Task* succ, DependencyKind kind)
{
    succ->rt->recorder().record(pred->sequence, succ->sequence, kind);
    if (succ->rt->tracer().on()) succ->rt->tracer().edge(pred->sequence, succ->sequence, kind);
    bool propagates_failure =
        kind == DependencyKind::read_after_write || kind == DependencyKind::explicit_task;
    succ->pending.fetch_add(1, std::memory_order_relaxed);
    if (!pred->add_successor(succ, propagates_failure))
        succ->pending.fetch_sub(1, std::memory_order_relaxed);
}

void Task::reset() noexcept
{
    if (destroy_values) destroy_values(values);
    if (heap_values) ::operator delete(heap_values, std::align_val_t(heap_values_align));
    rt = nullptr;
    kind = Kind::codelet;
    codelet = nullptr;
    ops = nullptr;
    buffers.clear();
    buffer_groups.clear();
    values = nullptr;
    heap_values = nullptr;
    heap_values_align = 0;
    destroy_values = nullptr;
    callback = nullptr;
    for (Task* p : explicit_preds) task_release(p);
    explicit_preds.clear();
    priority = 0;
    sequence = 0;
    has_tag = false;
    tag = 0;
    bound_worker = no_worker;
    cancel_token = nullptr;
    internal = false;
    skip_deps = 0;
    reduction_phase = 0;
    context = 0;
    group_size = 1;
    std::fill(std::begin(first_impl), std::end(first_impl), impl_unknown);
    group = 0;
    next_rank.store(0, std::memory_order_relaxed);
    arrived.store(0, std::memory_order_relaxed);
    kernel_arrivals.store(0, std::memory_order_relaxed);
    group_broken.store(false, std::memory_order_relaxed);
    running_slots = nullptr;
    data_bytes = 0;
    predicted = 0;
    footprint = {};
    trace = {};
    pending.store(1, std::memory_order_relaxed);
    successors.clear();
    completed = cancelled = failed = false;
    error = nullptr;
    released_by = ran_on = no_worker;
    done.store(0, std::memory_order_relaxed);
    ready.store(0, std::memory_order_relaxed);
    refs.store(0, std::memory_order_relaxed);
}

void task_retain(Task* t) noexcept
{
    t->refs.fetch_add(1, std::memory_order_relaxed);
}

void task_release(Task* t) noexcept
{
    if (t->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) recycle_task(t);
}

}  // namespace tessera::rt::detail

namespace tessera::rt {

// ---- TaskRef ------------------------------------------------------------------------------------

void TaskRef::wait() const
{
    require(t_ != nullptr, "TaskRef::wait: empty task reference");
    require(detail::current_worker_id() == no_worker,
            "TaskRef::wait: cannot wait from inside a task (it could deadlock); use a dependency");
    t_->done.wait(0, std::memory_order_acquire);
    if (t_->failed) std::rethrow_exception(t_->error);
}

uint64_t TaskRef::id() const noexcept
{
    return t_ ? t_->sequence : 0;
}
bool TaskRef::done() const noexcept
{
    return t_ && t_->done.load(std::memory_order_acquire) != 0;
}
bool TaskRef::failed() const noexcept
{
    return done() && t_->failed;
}
bool TaskRef::cancelled() const noexcept
{
    return done() && t_->cancelled;
}

// ---- ReadyTask ----------------------------------------------------------------------------------

int ReadyTask::priority() const noexcept
{
    return t_->priority;
}
uint64_t ReadyTask::sequence() const noexcept
{
    return t_->sequence;
}
WorkerId ReadyTask::released_by() const noexcept
{
    return t_->released_by;
}
WorkerId ReadyTask::bound_worker() const noexcept
{
    return t_->bound_worker;
}
bool ReadyTask::can_run_on(WorkerId w) const
{
    return t_->rt->can_run_on(t_, w);
}
Prediction ReadyTask::expected_length(WorkerId w) const
{
    return t_->rt->expected_length(t_, w);
}
Prediction ReadyTask::expected_length_on_cores(unsigned size) const
{
    return t_->rt->expected_length_on_cores(t_, size);
}
unsigned ReadyTask::max_parallelism() const noexcept
{
    return t_->rt->max_parallelism(t_);
}
double ReadyTask::expected_transfer(WorkerId w) const
{
    return t_->rt->expected_transfer(t_, w);
}
std::size_t ReadyTask::valid_bytes_on(WorkerId w) const
{
    return t_->rt->valid_bytes(t_, w);
}
bool ReadyTask::owns_written_data(WorkerId w) const
{
    return t_->rt->owns_written_data(t_, w);
}
void ReadyTask::set_predicted(double seconds) noexcept
{
    t_->predicted = seconds;
}
double ReadyTask::predicted() const noexcept
{
    return t_->predicted;
}
std::string_view ReadyTask::codelet_name() const noexcept
{
    return t_->ops ? t_->ops->name(t_->codelet) : std::string_view("acquire");
}

}  // namespace tessera::rt
