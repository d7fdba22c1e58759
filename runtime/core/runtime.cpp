// Runtime: configuration, workers, and the task life cycle (submission, readiness, execution,
// completion, cancellation).
#include "runtime/core/runtime_impl.hpp"

#include "runtime/data/data_state.hpp"
#include "runtime/drivers/cpu/cpu_driver.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <string>

namespace tessera::rt::detail {

// ---- the calling thread's worker identity ----------------------------------------------------------

namespace {
thread_local RuntimeImpl* tls_runtime = nullptr;
thread_local WorkerId tls_worker = no_worker;

/// Reads integer environment variable `name`; throws InvalidArgument naming it if malformed.
std::optional<int64_t> env_int(char const* name)
{
    char const* v = std::getenv(name);
    if (!v || !*v) return std::nullopt;
    int64_t x = 0;
    std::string_view s(v);
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    require(ec == std::errc() && p == s.data() + s.size(),
            std::string(name) + "='" + v + "' is not an integer");
    return x;
}
}  // namespace

WorkerId current_worker_id() noexcept { return tls_worker; }
RuntimeImpl* current_worker_runtime() noexcept { return tls_runtime; }
void set_current_worker(RuntimeImpl* rt, WorkerId w) noexcept
{
    tls_runtime = rt;
    tls_worker = w;
}

// ---- start and stop ---------------------------------------------------------------------------------

RuntimeImpl::RuntimeImpl(RuntimeConfig config) : config_(std::move(config))
{
    if (config_.ncpus < 0) config_.ncpus = int(env_int("TESSERA_NCPU").value_or(topology_.cores()));
    require(config_.ncpus >= 1, "RuntimeConfig::ncpus / TESSERA_NCPU must be at least 1, got " +
                                    std::to_string(config_.ncpus));
    if (config_.scheduler.empty()) {
        char const* s = std::getenv("TESSERA_SCHED");
        config_.scheduler = (s && *s) ? s : "eager";
    }
    if (config_.pin_workers < 0) config_.pin_workers = int(env_int("TESSERA_PIN").value_or(1));
    if (config_.max_pending_tasks < 0)
        config_.max_pending_tasks = env_int("TESSERA_MAX_PENDING").value_or(10000);
    require(config_.max_pending_tasks == 0 || config_.max_pending_tasks >= 2,
            "RuntimeConfig::max_pending_tasks / TESSERA_MAX_PENDING must be 0 (no limit) or >= 2");

    policy_ = policies().create(config_.scheduler);  // throws for an unknown name

    for (int i = 0; i < config_.ncpus; ++i) {
        WorkerInfo w;
        w.id = WorkerId(i);
        w.arch = Arch::cpu;
        w.core = config_.pin_workers ? topology_.core_pu(unsigned(i)) : -1;
        workers_.push_back(w);
    }
    parking_.resize(worker_count());
    executed_ = std::make_unique<Counter[]>(worker_count());
    policy_->init(*this);

    threads_.reserve(workers_.size());
    for (WorkerId w = 0; w < worker_count(); ++w) {
        threads_.emplace_back([this, w] {
            set_current_worker(this, w);
            if (config_.pin_workers) topology_.bind_current_thread(w);
            cpu_worker_loop(*this, w);
            set_current_worker(nullptr, no_worker);
        });
    }
}

RuntimeImpl::~RuntimeImpl()
{
    for (int64_t n; (n = pending_.load(std::memory_order_acquire)) != 0;)
        pending_.wait(n, std::memory_order_acquire);
    stopping_.store(true, std::memory_order_seq_cst);
    parking_.wake_all();
    for (auto& t : threads_) t.join();
}

WorkerInfo const& RuntimeImpl::worker(WorkerId w) const
{
    require(w < workers_.size(), "worker: id " + std::to_string(w) + " out of range");
    return workers_[w];
}

std::vector<WorkerId> RuntimeImpl::neighbours(WorkerId w) const
{
    std::vector<WorkerId> out;
    for (WorkerId v = 0; v < worker_count(); ++v)
        if (v != w) out.push_back(v);
    // closest first: deepest common ancestor in the hwloc tree; ties by id distance
    std::stable_sort(out.begin(), out.end(), [&](WorkerId a, WorkerId b) {
        int ca = topology_.closeness(w, a), cb = topology_.closeness(w, b);
        if (ca != cb) return ca > cb;
        return (a + worker_count() - w) % worker_count() < (b + worker_count() - w) % worker_count();
    });
    return out;
}

void RuntimeImpl::wake_any(ReadyTask t) noexcept
{
    parking_.wake_one([&](WorkerId w) { return can_run_on(t.get(), w); });
}

std::optional<unsigned> RuntimeImpl::first_runnable_implementation(Task const* t, WorkerId w) const
{
    Arch arch = workers_[w].arch;
    unsigned n = t->ops->implementations(t->codelet, arch);
    KernelArgs args{t->buffers.data(), t->values, nullptr};
    for (unsigned i = 0; i < n; ++i)
        if (t->ops->can_execute(t->codelet, arch, i, args)) return i;
    return std::nullopt;
}

std::vector<uint64_t> RuntimeImpl::executed_per_worker() const
{
    std::vector<uint64_t> out(worker_count());
    for (WorkerId w = 0; w < worker_count(); ++w) out[w] = executed_[w].executed.load(std::memory_order_relaxed);
    return out;
}

// ---- task life cycle ----------------------------------------------------------------------------------

void RuntimeImpl::on_submit(Task*)
{
    int64_t n = pending_.fetch_add(1, std::memory_order_seq_cst) + 1;
    int64_t max = config_.max_pending_tasks;
    // the window only throttles the application: a worker submitting from a task must not block
    if (max > 0 && n > max && current_worker_id() == no_worker) {
        std::unique_lock lock(window_m_);
        window_waiting_.store(true, std::memory_order_seq_cst);
        window_cv_.wait(lock, [&] { return pending_.load(std::memory_order_seq_cst) <= max / 2; });
    }
}

void RuntimeImpl::release_dependency(Task* t, WorkerId by)
{
    if (t->pending.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    t->released_by = by;
    if (t->kind == Task::Kind::acquire) {  // the application thread waiting in acquire() takes it
        t->ready.store(1, std::memory_order_release);
        t->ready.notify_all();
    } else if (t->cancelled) {
        complete(t, by);
    } else {
        push(t);
    }
}

void RuntimeImpl::push(Task* t)
{
    // Once queued, t may run and complete on another worker before push() returns; the
    // reference keeps it valid for the policy until then (e.g. for wake_any(t)).
    task_retain(t);
    policy_->push(ReadyTask(t));
    task_release(t);
}

void RuntimeImpl::record_error(std::exception_ptr e)
{
    std::lock_guard lock(error_m_);
    if (!first_error_) first_error_ = std::move(e);
}

void RuntimeImpl::execute(Task* t, WorkerId w)
{
    t->ran_on = w;
    ReadyTask rt(t);
    policy_->on_start(rt, w);
    if (!t->cancelled) {
        try {
            KernelArgs args{t->buffers.data(), t->values, nullptr};
            t->ops->run(t->codelet, workers_[w].arch, first_runnable_implementation(t, w).value_or(0), args);
            if (t->callback) t->callback();
        } catch (...) {
            std::exception_ptr e = std::current_exception();
            {
                std::lock_guard lock(t->m);
                t->failed = true;
                t->error = e;
            }
            record_error(e);
        }
        executed_[w].executed.fetch_add(1, std::memory_order_relaxed);
    }
    policy_->on_complete(rt, w);
    complete(t, w);
}

void RuntimeImpl::complete(Task* first, WorkerId w)
{
    // Completing a failed task can cancel whole chains of successors: an explicit work list
    // instead of recursion keeps the stack flat.
    std::vector<Task*> work{first};
    std::vector<Task*> released;
    std::vector<Successor> successors;
    while (!work.empty()) {
        Task* t = work.back();
        work.pop_back();

        for (std::size_t i = 0; i < t->buffers.size(); ++i) {
            DataState* s = t->buffers[i].state;
            bool first_use = std::none_of(t->buffers.begin(), t->buffers.begin() + std::ptrdiff_t(i),
                                          [&](BufferSlot const& b) { return b.state == s; });
            if (first_use) s->access_done();
        }

        std::exception_ptr error;
        {
            std::lock_guard lock(t->m);
            t->completed = true;
            successors.swap(t->successors);
            if (t->failed) error = t->error;
        }
        auto release = [&](Task* s) {
            if (s->pending.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
            s->released_by = w;
            if (s->kind == Task::Kind::acquire) {
                s->ready.store(1, std::memory_order_release);
                s->ready.notify_all();
            } else if (s->cancelled) {
                work.push_back(s);
            } else {
                push(s);
            }
        };
        for (Successor const& s : successors) {
            if (error && s.propagates_failure) s.task->poison(error);
            release(s.task);
        }
        successors.clear();
        if (t->has_tag) {
            tags_.task_done(t->tag, error, released);
            for (Task* r : released) release(r);
            released.clear();
        }

        t->done.store(1, std::memory_order_release);
        t->done.notify_all();
        if (t->kind == Task::Kind::codelet) {  // acquires are not counted: wait_all ignores them
            int64_t left = pending_.fetch_sub(1, std::memory_order_seq_cst) - 1;
            if (left == 0) pending_.notify_all();
            if (window_waiting_.load(std::memory_order_seq_cst) && left <= config_.max_pending_tasks / 2) {
                std::lock_guard lock(window_m_);
                window_waiting_.store(false, std::memory_order_relaxed);
                window_cv_.notify_all();
            }
        }
        task_release(t);  // the runtime's reference
    }
}

void RuntimeImpl::wait_all()
{
    require(current_worker_id() == no_worker,
            "wait_all: cannot wait from inside a task (it could deadlock); use dependencies");
    for (int64_t n; (n = pending_.load(std::memory_order_acquire)) != 0;)
        pending_.wait(n, std::memory_order_acquire);
    std::exception_ptr e;
    {
        std::lock_guard lock(error_m_);
        std::swap(e, first_error_);
    }
    if (e) std::rethrow_exception(e);
}

void RuntimeImpl::record_dependencies(bool on)
{
    std::lock_guard lock(graph_m_);
    if (on && !recording_.load()) edges_.clear();
    recording_.store(on, std::memory_order_relaxed);
}

std::vector<DependencyEdge> RuntimeImpl::recorded_dependencies() const
{
    std::lock_guard lock(graph_m_);
    return edges_;
}

void RuntimeImpl::record_edge_slow(Task const* from, Task const* to, DependencyKind kind)
{
    std::lock_guard lock(graph_m_);
    edges_.push_back({from->sequence, to->sequence, kind});
}

// ---- submission entry points used by Runtime::submit -----------------------------------------------

Task* task_create(Runtime& rt, void const* codelet, CodeletOps const* ops)
{
    Task* t = allocate_task();
    t->rt = &rt.impl();
    t->kind = Task::Kind::codelet;
    t->codelet = codelet;
    t->ops = ops;
    t->sequence = t->rt->next_sequence();
    return t;
}

void task_add_buffer(Task* t, DataState* s, Mode m, std::size_t arg_index)
{
    std::string arg = "submit: argument " + std::to_string(arg_index + 1);
    require(s != nullptr && s->registered.load(std::memory_order_acquire),
            arg + ": handle is not registered");
    require(s->rt == t->rt, arg + ": handle belongs to another runtime");
    {
        std::lock_guard lock(s->m);
        require(!s->partitioned, arg + ": handle is partitioned; use its sub-handles or unpartition it");
    }
    t->buffers.push_back(BufferSlot{s, s->host_ptr, &s->layout, m});
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

void task_values_constructed(Task* t, void (*destroy)(void*)) noexcept { t->destroy_values = destroy; }

void task_set_priority(Task* t, int p) noexcept { t->priority = p; }
void task_set_callback(Task* t, std::function<void()>&& f) { t->callback = std::move(f); }
void task_set_tag(Task* t, TagId id)
{
    t->has_tag = true;
    t->tag = id;
}

void task_add_dependency(Task* t, TaskRef const& pred, std::size_t arg_index)
{
    require(pred.get() != nullptr, "submit: argument " + std::to_string(arg_index + 1) +
                                       ": after() names an empty task reference");
    require(pred.get()->rt == t->rt, "submit: argument " + std::to_string(arg_index + 1) +
                                         ": after() names a task of another runtime");
    task_retain(pred.get());
    t->explicit_preds.push_back(pred.get());
}

void task_discard(Task* t) noexcept { recycle_task(t); }

static void add_implicit_dependencies(Task* t)
{
    // a handle named twice in one task counts once, with the union of the modes
    for (std::size_t i = 0; i < t->buffers.size(); ++i) {
        DataState* s = t->buffers[i].state;
        bool seen = false;
        uint8_t mode = 0;
        for (std::size_t j = 0; j < t->buffers.size(); ++j) {
            if (t->buffers[j].state != s) continue;
            if (j < i) seen = true;
            mode |= uint8_t(t->buffers[j].mode);
        }
        if (!seen) s->add_access(t, Mode(mode), i);
    }
}

TaskRef task_submit(Task* t)
{
    RuntimeImpl& rt = *t->rt;
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
    for (Task* p : t->explicit_preds) {
        add_edge(p, t, DependencyKind::explicit_task);
        task_release(p);
    }
    t->explicit_preds.clear();
    add_implicit_dependencies(t);
    rt.release_dependency(t, no_worker);  // drop the submission guard
    return TaskRef(t);
}

}  // namespace tessera::rt::detail

namespace tessera::rt {

Runtime::Runtime(RuntimeConfig config) : impl_(std::make_unique<detail::RuntimeImpl>(std::move(config))) {}
Runtime::~Runtime() = default;

void Runtime::wait_all() { impl_->wait_all(); }

void Runtime::declare_tag_deps(TagId id, std::span<TagId const> deps) { impl_->tags().declare_deps(id, deps); }
void Runtime::wait_tag(TagId id)
{
    require(detail::current_worker_id() == no_worker,
            "wait_tag: cannot wait from inside a task (it could deadlock)");
    impl_->tags().wait(id);
}
void Runtime::notify_tag(TagId id)
{
    std::vector<detail::Task*> released;
    impl_->tags().notify(id, released);
    for (detail::Task* t : released) impl_->release_dependency(t, no_worker);
}
void Runtime::remove_tag(TagId id) { impl_->tags().remove(id); }

unsigned Runtime::worker_count() const noexcept { return impl_->worker_count(); }
WorkerInfo const& Runtime::worker(WorkerId w) const { return impl_->worker(w); }
std::string_view Runtime::scheduler() const noexcept { return impl_->policy().name(); }
RuntimeConfig const& Runtime::config() const noexcept { return impl_->config(); }
int64_t Runtime::pending_tasks() const noexcept { return impl_->pending_tasks(); }
std::vector<uint64_t> Runtime::executed_per_worker() const { return impl_->executed_per_worker(); }
void Runtime::record_dependencies(bool on) { impl_->record_dependencies(on); }
std::vector<DependencyEdge> Runtime::recorded_dependencies() const { return impl_->recorded_dependencies(); }
WorkerId Runtime::current_worker() noexcept { return detail::current_worker_id(); }

}  // namespace tessera::rt
