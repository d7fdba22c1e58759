// Runtime: start and stop (the machine set up by its drivers, the worker threads), what the
// runtime offers its policies, and the public Runtime's entry points.
#include "runtime/core/runtime_impl.hpp"

#include "runtime/data/coherency.hpp"
#include "runtime/data/data_state.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>

namespace tessera::rt::detail {

// ---- the calling thread's worker identity ----------------------------------------------------------

namespace {
thread_local RuntimeImpl* tls_runtime = nullptr;
thread_local WorkerId tls_worker = no_worker;
}  // namespace

WorkerId current_worker_id() noexcept
{
    return tls_worker;
}
RuntimeImpl* current_worker_runtime() noexcept
{
    return tls_runtime;
}
void set_current_worker(RuntimeImpl* rt, WorkerId w) noexcept
{
    tls_runtime = rt;
    tls_worker = w;
}

// ---- start and stop ---------------------------------------------------------------------------------

namespace {
/// TESSERA_TRACE's file for the next runtime of the process: FILE for the first, then FILE.2,
/// FILE.3... (a program that starts several runtimes keeps every trace).
std::string numbered_trace_path(std::string const& path)
{
    static std::atomic<unsigned> runtimes_traced{0};
    const unsigned k = runtimes_traced.fetch_add(1) + 1;
    return k == 1 ? path : path + "." + std::to_string(k);
}
}  // namespace

RuntimeImpl::RuntimeImpl(RuntimeConfig config) : RuntimeImpl(std::move(config), make_drivers())
{}

RuntimeImpl::RuntimeImpl(RuntimeConfig config, std::vector<std::unique_ptr<Driver>> drivers)
    : config_(std::move(config)), machine_(std::move(drivers))
{
    resolve_config();
    policy_ = policies().create(*config_.scheduler);  // throws for an unknown name
    models_.set_directory(*config_.perfmodel_dir == "none" ? "" : *config_.perfmodel_dir);
    decisions_.open(config_.sched_log);
    for (auto const& driver : machine_.drivers()) driver->add_to(machine_, config_);
    machine_.finish();
    window_.set_limit(*config_.max_pending_tasks);
    calibrate_bus();
    const unsigned n = worker_count();
    parking_.resize(n);
    contexts_.reset(n);
    bound_.resize(n);
    executed_ = std::make_unique<Counter[]>(n);
    retired_ = std::make_unique<std::atomic<bool>[]>(n);
    retired_why_.resize(n);
    policy_->init(*this);
    tracer_.prepare(n);
    if (config_.trace && !config_.trace->empty()) start_trace(numbered_trace_path(*config_.trace));

    threads_.reserve(n);
    for (WorkerId w = 0; w < n; ++w) {
        threads_.emplace_back([this, w] {
            set_current_worker(this, w);
            if (machine_.worker(w).core >= 0)
                machine_.topology().bind_current_thread(machine_.bind_core(w));
            machine_.driver_of(w).run_worker(*this, w);
            set_current_worker(nullptr, no_worker);
        });
    }
}

RuntimeImpl::~RuntimeImpl()
{
    window_.wait_until_empty();
    // handles still registered go home now: their users find valid data in their buffers
    std::vector<DataState*> alive;
    {
        std::lock_guard lock(tracked_m_);
        alive.assign(tracked_.begin(), tracked_.end());
    }
    for (DataState* d : alive) unregister_data(*d);
    stopping_.store(true, std::memory_order_seq_cst);
    parking_.wake_all();
    for (auto& t : threads_) t.join();
    machine_.transfers().stop();
    if (tracer_.on()) {
        try {
            stop_trace();
        } catch (std::exception const& e) {  // a destructor cannot throw: say it at least
            std::fprintf(stderr, "tessera: %s\n", e.what());
        }
    }
    try {
        models_.save();
    } catch (...) {  // out of memory: the models on disk stay as they were (a cache)
    }
}

void RuntimeImpl::track(DataState* d)
{
    std::lock_guard lock(tracked_m_);
    tracked_.insert(d);
}

void RuntimeImpl::untrack(DataState* d) noexcept
{
    std::lock_guard lock(tracked_m_);
    tracked_.erase(d);
}

// ---- what policies see ------------------------------------------------------------------------------

WorkerInfo const& RuntimeImpl::worker(WorkerId w) const
{
    require(w < worker_count(),
            [&] { return "worker: id " + std::to_string(w) + " out of range"; });
    return machine_.worker(w);
}

void RuntimeImpl::wake_any(ReadyTask t) noexcept
{
    parking_.wake_one([&](WorkerId w) { return can_run_on(Internals::task(t), w); });
}

void RuntimeImpl::prefetch(ReadyTask t, WorkerId w) noexcept
{
    if (machine_.node_count() == 1) return;  // one memory node: everything is where it runs
    if (retired(w)) return;                  // it runs nothing more
    NodeId node = NodeId(machine_.worker(w).memory_node);
    for (BufferSlot const& b : Internals::task(t)->buffers) {
        if (!reads(b.mode) || b.mode == Mode::COMMUTE) continue;  // nothing to bring in
        try {
            prefetch_replica(b.state, node);
        } catch (...) {  // best effort: the task fetches its data itself when it runs
        }
    }
}

void RuntimeImpl::push_to_group(ReadyTask rt, std::size_t g)
{
    Task* t = Internals::task(rt);
    auto const& groups = machine_.combined_workers();
    require(g < groups.size(),
            [&] { return "push_to_group: no combined worker " + std::to_string(g); });
    auto const& members = groups[g];
    t->group = g;
    t->group_size = unsigned(members.size());
    for (std::size_t i = 0; i < members.size(); ++i) task_retain(t);  // one per member's alias
    bound_.push_to_all(members, t);
    for (WorkerId w : members) parking_.wake(w);
}

std::vector<uint64_t> RuntimeImpl::executed_per_worker() const
{
    std::vector<uint64_t> out(worker_count());
    for (WorkerId w = 0; w < worker_count(); ++w)
        out[w] = executed_[w].executed.load(std::memory_order_relaxed);
    return out;
}

}  // namespace tessera::rt::detail

namespace tessera::rt {

Runtime::Runtime(RuntimeConfig config)
    : impl_(std::make_unique<detail::RuntimeImpl>(std::move(config)))
{}
Runtime::Runtime(std::unique_ptr<detail::RuntimeImpl> impl) noexcept : impl_(std::move(impl))
{}
Runtime::~Runtime() = default;

void Runtime::wait_all()
{
    impl_->wait_all();
}

void Runtime::declare_tag_deps(TagId id, std::span<TagId const> deps)
{
    impl_->tags().declare_deps(id, deps);
}
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
void Runtime::remove_tag(TagId id)
{
    impl_->tags().remove(id);
}

unsigned Runtime::worker_count() const noexcept
{
    return impl_->worker_count();
}
WorkerInfo const& Runtime::worker(WorkerId w) const
{
    return impl_->worker(w);
}
std::string_view Runtime::scheduler() const noexcept
{
    return impl_->policy().name();
}
RuntimeConfig const& Runtime::config() const noexcept
{
    return impl_->config();
}
int64_t Runtime::pending_tasks() const noexcept
{
    return impl_->pending_tasks();
}
std::vector<uint64_t> Runtime::executed_per_worker() const
{
    return impl_->executed_per_worker();
}
bool Runtime::worker_retired(WorkerId w) const
{
    (void)impl_->worker(w);  // throws for an unknown worker
    return impl_->retired(w);
}
void Runtime::record_dependencies(bool on)
{
    impl_->recorder().set_recording(on);
}
std::vector<DependencyEdge> Runtime::recorded_dependencies() const
{
    return impl_->recorder().edges();
}
WorkerId Runtime::current_worker() noexcept
{
    return detail::current_worker_id();
}

std::vector<MemoryNodeInfo> Runtime::memory_nodes() const
{
    std::vector<MemoryNodeInfo> out;
    for (NodeId n = 0; n < impl_->machine().node_count(); ++n)
        out.push_back(impl_->machine().node(n).info());
    return out;
}
namespace {
bool has_gpu(detail::RuntimeImpl& rt)
{
    for (NodeId n = 0; n < rt.machine().node_count(); ++n)
        if (rt.machine().node(n).info().kind == NodeKind::cuda) return true;
    return false;
}
}  // namespace

PinnedRegion Runtime::pin_for_transfers(void const* p, std::size_t bytes) const
{
    if (bytes < impl_->pin_threshold() || !has_gpu(*impl_)) return {};
    return PinnedRegion(p, bytes);
}
std::size_t Runtime::pin_threshold() const noexcept
{
    return impl_->pin_threshold();
}
void* Runtime::allocate_for_transfers(std::size_t bytes) const
{
    return allocate_host(bytes, has_gpu(*impl_));
}
ContextId Runtime::create_context(std::vector<WorkerId> const& workers)
{
    return impl_->contexts().create(workers);
}
std::vector<WorkerId> Runtime::context_workers(ContextId c) const
{
    return impl_->contexts().workers(c);
}
std::vector<LinkStats> Runtime::link_stats() const
{
    return impl_->machine().links().snapshot();
}
std::vector<NodeHitStats> Runtime::hit_stats() const
{
    std::vector<NodeHitStats> out;
    for (NodeId n = 0; n < impl_->machine().node_count(); ++n)
        out.push_back(impl_->machine().node(n).hit_stats());
    return out;
}
void Runtime::reset_link_stats()
{
    impl_->machine().links().reset();
    for (NodeId n = 0; n < impl_->machine().node_count(); ++n)
        impl_->machine().node(n).reset_hit_stats();
}
std::vector<PerfModelEntry> Runtime::perfmodel_entries(std::string_view symbol) const
{
    return impl_->models().entries(symbol);
}
double Runtime::predicted_transfer_time(NodeId src, NodeId dst, std::size_t bytes) const
{
    require(src < impl_->machine().node_count() && dst < impl_->machine().node_count(),
            "predicted_transfer_time: no such memory node");
    return impl_->bus().time(src, dst, double(bytes));
}
void Runtime::prefetch_data(detail::DataState* d, NodeId node)
{
    require(d != nullptr && d->registered.load(std::memory_order_acquire),
            "prefetch: handle is not registered");
    require(node < impl_->machine().node_count(),
            "prefetch: no memory node " + std::to_string(node));
    detail::prefetch_replica(d, node);
}

}  // namespace tessera::rt
