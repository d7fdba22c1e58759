// The life of a task: submission (implicit, explicit and tag dependencies), readiness, binding
// to a worker, execution with its data made valid on the worker's memory node, completion and
// cancellation.
#include "runtime/core/runtime_impl.hpp"

#include "runtime/core/task_data.hpp"

#include "runtime/data/coherency.hpp"
#include "runtime/data/commute.hpp"
#include "runtime/data/data_state.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

namespace tessera::rt::detail {

// ---- submission entry points used by Runtime::submit -----------------------------------------------

Task* task_create(Runtime& rt, void const* codelet, CodeletOps const* ops)
{
    Task* t = allocate_task();
    t->rt = &Internals::impl(rt);
    t->kind = Task::Kind::codelet;
    t->codelet = codelet;
    t->ops = ops;
    t->sequence = t->rt->next_sequence();
    return t;
}

Task* make_control_task(RuntimeImpl* rt, Task::Kind kind)
{
    Task* t = allocate_task();
    t->rt = rt;
    t->kind = kind;
    t->sequence = rt->next_sequence();
    t->refs.store(1, std::memory_order_relaxed);  // the runtime's, dropped at completion
    return t;
}

void task_add_buffer(Task* t, DataState* s, Mode m, std::size_t arg_index, std::size_t element)
{
    // the messages are built only when a check fails: this runs for every buffer of every task
    auto arg = [&](char const* what) {
        std::string a = "submit: argument " + std::to_string(arg_index + 1);
        if (element != no_element) a += ", element " + std::to_string(element);
        return a + ": " + what;
    };
    require(s != nullptr && s->registered.load(std::memory_order_acquire),
            [&] { return arg("handle is not registered"); });
    require(s->rt == t->rt, [&] { return arg("handle belongs to another runtime"); });
    {
        std::lock_guard lock(s->m);
        require(!s->partitioned, [&] {
            return arg("handle is partitioned; use its sub-handles or unpartition it");
        });
    }
    if (m == Mode::REDUX)
        require(s->reduction.redux != nullptr,
                [&] { return arg("reduce(h) needs h.set_reduction(init, redux) first"); });
    for (BufferSlot const& b : t->buffers)
        if (b.state == s && b.mode != m)
            require(coherent(b.mode) && coherent(m) && b.mode != Mode::COMMUTE &&
                        m != Mode::COMMUTE,
                    [&] { return arg("the same handle twice, with modes that do not combine"); });
    t->buffers.push_back(BufferSlot{s, s->host_ptr, &s->layout, m});  // where it executes, set then
}

void task_begin_buffer_parameter(Task* t)
{
    t->buffer_groups.push_back(uint32_t(t->buffers.size()));
}

void* task_value_storage(Task* t, std::size_t size, std::size_t align)
{
    if (size <= Task::inline_value_bytes && align <= alignof(std::max_align_t)) {
        t->values = t->inline_values;
    } else {
        t->heap_values = ::operator new(size, std::align_val_t(align));
        t->heap_values_align = align;
        t->values = t->heap_values;
    }
    return t->values;
}

void task_values_constructed(Task* t, void (*destroy)(void*)) noexcept
{
    t->destroy_values = destroy;
}
void task_set_priority(Task* t, int p) noexcept
{
    t->priority = p;
}
void task_set_callback(Task* t, std::function<void()>&& f)
{
    t->callback = std::move(f);
}
void task_set_cancel_token(Task* t, CancelToken* token) noexcept
{
    t->cancel_token = token;
}
void task_set_tag(Task* t, TagId id)
{
    t->has_tag = true;
    t->tag = id;
}

void task_set_worker(Task* t, unsigned w, std::size_t arg_index)
{
    require(w < t->rt->worker_count(), [&] {
        return "submit: argument " + std::to_string(arg_index + 1) + ": on_worker(" +
               std::to_string(w) + "): there are " + std::to_string(t->rt->worker_count()) +
               " workers";
    });
    t->bound_worker = w;
}

void task_set_context(Task* t, ContextId c, std::size_t arg_index)
{
    require(c.value < t->rt->contexts().count(), [&] {
        return "submit: argument " + std::to_string(arg_index + 1) +
               ": in_context: unknown context " + std::to_string(c.value);
    });
    t->context = c.value;
}

void task_add_dependency(Task* t, TaskRef const& pred, std::size_t arg_index)
{
    require(Internals::task(pred) != nullptr, [&] {
        return "submit: argument " + std::to_string(arg_index + 1) +
               ": after() names an empty task reference";
    });
    require(Internals::task(pred)->rt == t->rt, [&] {
        return "submit: argument " + std::to_string(arg_index + 1) +
               ": after() names a task of another runtime";
    });
    task_retain(Internals::task(pred));
    t->explicit_preds.push_back(Internals::task(pred));
}

void task_discard(Task* t) noexcept
{
    recycle_task(t);
}

namespace {
/// Implicit dependencies of each handle t uses; a handle named twice counts once, with the
/// union of its modes.
void add_implicit_dependencies(Task* t, std::vector<Task*>& control)
{
    for (std::size_t i = 0; i < t->buffers.size(); ++i) {
        DataState* s = t->buffers[i].state;
        bool seen = false;
        uint8_t mode = 0;
        for (std::size_t j = 0; j < t->buffers.size(); ++j) {
            if (t->buffers[j].state != s) continue;
            if (j < i) seen = true;
            mode |= uint8_t(t->buffers[j].mode);
        }
        if (seen) continue;
        if (i < 32 && (t->skip_deps >> i) & 1u)  // ordered by the runtime itself (reductions)
            s->users.fetch_add(1, std::memory_order_relaxed);
        else
            s->add_access(t, Mode(mode), control);
    }
}
}  // namespace

namespace {
thread_local int unplaced = 0;  // Unplaced scopes open on this thread
}  // namespace

Unplaced::Unplaced() noexcept
{
    ++unplaced;
}
Unplaced::~Unplaced()
{
    --unplaced;
}

TaskRef task_submit(Task* t)
{
    RuntimeImpl& rt = *t->rt;
    TaskPlacement* placed = nullptr;  // the placement that kept the task
    if (TaskPlacement* placement = rt.placement(); placement && unplaced == 0) {
        bool here = false;
        try {
            const Unplaced own_tasks;  // the transfers it submits are not placed
            here = placement->runs_here(t->buffers);
        } catch (...) {
            task_discard(t);
            throw;
        }
        if (!here) {  // another process runs it: dropped at submission cost
            task_discard(t);
            return {};
        }
        placed = placement;
    }
    rt.find_implementations(t);
    if (!rt.runnable_somewhere(t)) {
        std::string what = t->bound_worker != no_worker
                               ? "on_worker(" + std::to_string(t->bound_worker) + ")"
                               : "no worker";
        std::string name(t->ops->name(t->codelet));
        const std::size_t bytes = t->data_bytes;
        task_discard(t);
        throw InvalidArgument("submit: " + what + " can run codelet '" + name +
                              "' (its implementations, where and can_execute, and the units' "
                              "memory: its data takes " +
                              std::to_string(bytes) + " bytes)");
    }
    if (t->has_tag) {
        try {
            rt.tags().associate(t->tag, t);  // throws if the tag is in use: nothing submitted yet
        } catch (...) {
            task_discard(t);
            throw;
        }
    }
    t->refs.store(2, std::memory_order_relaxed);  // the runtime's and the returned TaskRef's
    rt.on_submit(t);
    if (rt.tracer().on()) {
        t->trace.submit = rt.tracer().now();
        if (char const* call = TracedCall::current()) t->trace.call = rt.tracer().call_id(call);
    }
    for (Task* p : t->explicit_preds) {
        add_edge(p, t, DependencyKind::explicit_task);
        task_release(p);
    }
    t->explicit_preds.clear();
    std::vector<Task*> control;
    add_implicit_dependencies(t, control);
    release_control_tasks(control);
    rt.release_dependency(t, no_worker);  // drop the submission guard
    TaskRef ref = Internals::adopt_task<TaskRef>(t);
    if (placed) {
        const Unplaced own_tasks;
        placed->after_submission();
    }
    return ref;
}

// ---- readiness ---------------------------------------------------------------------------------------

void RuntimeImpl::on_submit(Task* t)
{
    // the window only throttles the application: a worker submitting from a task, or the
    // runtime submitting for itself, must not block
    window_.admit(!t->internal && current_worker_id() == no_worker);
}

void RuntimeImpl::control_ready(Task* t, std::vector<Task*>& completed_now)
{
    switch (t->kind) {
    case Task::Kind::acquire:  // the application thread waiting in acquire() takes it
        t->ready.store(1, std::memory_order_release);
        t->ready.notify_all();
        break;
    case Task::Kind::join:
        completed_now.push_back(t);
        break;
    case Task::Kind::reduction:
        advance_reduction(t, completed_now);
        break;
    case Task::Kind::codelet:
        break;
    }
}

bool RuntimeImpl::drop_dependency(Task* t, WorkerId by, std::vector<Task*>& completed_now)
{
    if (t->pending.fetch_sub(1, std::memory_order_acq_rel) != 1) return false;
    t->released_by = by;
    if (t->kind != Task::Kind::codelet)
        control_ready(t, completed_now);
    else if (t->skips())
        completed_now.push_back(t);  // never runs: completes at once, cancelling what follows
    else {
        if (t->trace.submit >= 0) t->trace.ready = tracer_.now();
        push(t);
    }
    return true;
}

void RuntimeImpl::release_dependency(Task* t, WorkerId by)
{
    std::vector<Task*> completed_now;
    if (drop_dependency(t, by, completed_now))
        for (Task* c : completed_now) complete(c, by);
}

void RuntimeImpl::push(Task* t)
{
    // Once queued, t may run and complete on another worker before push() returns; the
    // reference keeps it valid for the policy until then (e.g. for wake_any(t)).
    task_retain(t);
    if (WorkerId w = t->bound_worker; w != no_worker) {
        bound_.push(w, t);
        parking_.wake(w);
    } else {
        policy_->push(Internals::adopt_task<ReadyTask>(t));
    }
    task_release(t);
}

ReadyTask RuntimeImpl::pop(WorkerId w)
{
    if (Task* t = bound_.pop(w)) return Internals::adopt_task<ReadyTask>(t);
    return policy_->pop(w);
}

// ---- execution ------------------------------------------------------------------------------------------

double RuntimeImpl::run_kernel(Task* t, WorkerId w)
{
    WorkerInfo const& worker = machine_.worker(w);
    TaskData data(*this, t, w, NodeId(worker.memory_node));
    KernelArgs args = kernel_args(t, data.slots());
    if (t->trace.submit >= 0) t->trace.start = tracer_.now();  // its data is in place
    const unsigned impl = first_runnable_implementation(t, w).value_or(0);
    // The kernel's time feeds its performance model and pads a slower emulated device; a task
    // that needs neither is not timed (two clock reads of an empty task's few hundred ns).
    const double slowdown = machine_.slowdown(w);
    if (slowdown <= 1 && !predictor_.learns_from(shape_of(t))) {
        t->ops->run(t->codelet, worker.arch, impl, args);
        return -1;
    }
    auto start = std::chrono::steady_clock::now();
    t->ops->run(t->codelet, worker.arch, impl, args);
    auto took = std::chrono::steady_clock::now() - start;
    if (slowdown > 1) {  // the kernel lasts slowdown times longer
        std::this_thread::sleep_for(took * (slowdown - 1));
        took = std::chrono::steady_clock::now() - start;
    }
    return std::chrono::duration<double>(took).count();
}

void RuntimeImpl::fail(Task* t, std::exception_ptr e)
{
    bool first;
    {
        std::lock_guard lock(t->m);
        first = !t->failed;
        t->failed = true;
        if (!t->error) t->error = e;
    }
    if (first) {
        record_error(e);
        if (TaskPlacement* p = placement()) p->task_failed(e);
    }
    if (t->cancel_token) t->cancel_token->cancel();  // one failure stops the task's group
}

void RuntimeImpl::failed_at_submission(std::exception_ptr e)
{
    if (TaskPlacement* p = placement()) p->task_failed(e);
}

void RuntimeImpl::execute(Task* t, WorkerId w)
{
    if (t->group_size > 1) return execute_parallel(t, w);
    if (!begin(t, w)) return;
    double seconds = -1;
    std::exception_ptr error;
    if (!t->cancelled) {
        try {
            seconds = run_kernel(t, w);
        } catch (...) {
            error = std::current_exception();
        }
    }
    end(t, w, seconds, error);
}

bool RuntimeImpl::begin(Task* t, WorkerId w)
{
    if (!t->skips() && !take_commute_handles(t, t->buffers))
        return false;  // pushed again when its turn comes
    t->ran_on = w;
    if (t->trace.submit >= 0) t->trace.begin = tracer_.now();
    policy_->on_start(Internals::adopt_task<ReadyTask>(t), w);
    return true;
}

void RuntimeImpl::end(Task* t, WorkerId w, double seconds, std::exception_ptr error)
{
    if (!t->cancelled) {
        if (!error) {
            if (seconds >= 0) record_sample(t, w, seconds);
            try {
                if (t->callback) t->callback();
            } catch (...) {
                error = std::current_exception();
            }
        }
        if (error) fail(t, error);
        executed_[w].executed.fetch_add(1, std::memory_order_relaxed);
    }
    if (t->trace.submit >= 0 && tracer_.on()) trace_task(t, w);
    policy_->on_complete(Internals::adopt_task<ReadyTask>(t), w);
    std::vector<Task*> waiters;  // allocated only for COMMUTE tasks' waiters
    give_back_commute_handles(t, t->buffers, waiters);
    complete(t, w);
    for (Task* x : waiters) push(x);
}

void RuntimeImpl::record_error(std::exception_ptr e)
{
    std::lock_guard lock(error_m_);
    if (!first_error_) first_error_ = std::move(e);
}

// ---- completion ---------------------------------------------------------------------------------------

namespace {
/// What complete() works through: the tasks to complete, and those a tag released.
struct CompletionLists {
    std::vector<Task*> work, released;
    bool in_use = false;
};
}  // namespace

void RuntimeImpl::complete(Task* first, WorkerId w)
{
    // Completing a failed task can cancel whole chains of successors: an explicit work list
    // instead of recursion keeps the stack flat. The lists are the thread's own, kept from one
    // completion to the next (no allocation per task), unless a completion is nested in another
    // on this thread (then it takes fresh ones).
    thread_local CompletionLists mine;
    CompletionLists fresh;
    CompletionLists& lists = mine.in_use ? fresh : mine;
    struct InUse {
        CompletionLists& l;
        explicit InUse(CompletionLists& x) noexcept : l(x) { l.in_use = true; }
        ~InUse()
        {
            l.work.clear();
            l.released.clear();
            l.in_use = false;
        }
    } in_use(lists);
    std::vector<Task*>& work = lists.work;
    std::vector<Task*>& released = lists.released;
    work.push_back(first);
    while (!work.empty()) {
        Task* t = work.back();
        work.pop_back();

        for (std::size_t i = 0; i < t->buffers.size(); ++i) {
            DataState* s = t->buffers[i].state;
            bool first_use =
                std::none_of(t->buffers.begin(), t->buffers.begin() + std::ptrdiff_t(i),
                             [&](BufferSlot const& b) { return b.state == s; });
            if (first_use) s->access_done();
        }

        std::exception_ptr error;
        {
            std::lock_guard lock(t->m);  // completed: no successor is added from now on
            t->completed = true;
            if (t->failed) error = t->error;
        }
        for (Successor const& s : t->successors) {
            if (error && s.propagates_failure) s.task->poison(error);
            drop_dependency(s.task, w, work);
        }
        t->successors.clear();  // keeps its capacity for the task's next use from the pool
        // done and no longer pending (and its tag done, atomically with both): whoever
        // waits for one of them sees the others
        auto retire = [&] {
            t->done.store(1, std::memory_order_release);
            if (t->kind != Task::Kind::codelet) return;  // control tasks are not counted
            window_.retire();
        };
        if (t->has_tag)
            tags_.task_done(t->tag, error, retire, released);
        else
            retire();
        t->done.notify_all();
        for (Task* r : released)
            drop_dependency(r, w, work);  // tasks whose tags waited for this one
        released.clear();
        task_release(t);  // the runtime's reference
    }
}

void RuntimeImpl::wait_all()
{
    require(current_worker_id() == no_worker,
            "wait_all: cannot wait from inside a task (it could deadlock); use dependencies");
    window_.wait_until_empty();
    std::exception_ptr e;
    {
        std::lock_guard lock(error_m_);
        std::swap(e, first_error_);
    }
    if (e) std::rethrow_exception(e);
}

}  // namespace tessera::rt::detail
