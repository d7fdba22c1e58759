// Runtime: start and stop (workers, memory nodes, transfer channels), what the runtime offers
// its policies, and the public Runtime's entry points.
#include "runtime/core/runtime_impl.hpp"

#include "runtime/data/coherency.hpp"
#include "runtime/data/data_state.hpp"
#include "runtime/drivers/cpu/cpu_driver.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <string>

namespace tessera::rt::detail {

// ---- the calling thread's worker identity ----------------------------------------------------------

namespace {
thread_local RuntimeImpl* tls_runtime = nullptr;
thread_local WorkerId tls_worker = no_worker;
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
    resolve_config();
    policy_ = policies().create(*config_.scheduler);  // throws for an unknown name
    models_.set_directory(*config_.perfmodel_dir == "none" ? "" : *config_.perfmodel_dir);
    open_decision_log();
    add_workers();
    calibrate_bus();
    parking_.resize(worker_count());
    executed_ = std::make_unique<Counter[]>(worker_count());
    bound_ = std::make_unique<BoundQueue[]>(worker_count());
    retired_ = std::make_unique<std::atomic<bool>[]>(worker_count());
    retired_why_.resize(worker_count());
    policy_->init(*this);

    threads_.reserve(workers_.size());
    for (WorkerId w = 0; w < worker_count(); ++w) {
        threads_.emplace_back([this, w] {
            set_current_worker(this, w);
            if (workers_[w].core >= 0) topology_.bind_current_thread(bind_core_[w]);
#if TESSERA_HAVE_CUDA
            if (workers_[w].arch == Arch::cuda) {
                cuda_worker_loop(*this, w, *devices_[std::size_t(workers_[w].memory_node)]);
                set_current_worker(nullptr, no_worker);
                return;
            }
#endif
            worker_loop(*this, w);
            set_current_worker(nullptr, no_worker);
        });
    }
}

void RuntimeImpl::add_workers()
{
    // memory node 0: the host; one CPU worker per core on it
    nodes_.push_back(std::make_unique<MemoryNode>(host_node, NodeKind::host, 0));
    for (int i = 0; i < *config_.ncpus; ++i) {
        WorkerInfo w;
        w.id = WorkerId(workers_.size());
        w.arch = Arch::cpu;
        w.core = *config_.pin_workers ? topology_.core_pu(unsigned(i)) : -1;
        w.memory_node = host_node;
        workers_.push_back(w);
        bind_core_.push_back(unsigned(i));
        perf_arch_.push_back("cpu");
        slowdown_.push_back(1.0);
    }
    // emulated accelerators: a memory node of its own, its transfer channels, an unpinned worker
    std::size_t capacity =
        config_.emu_memory ? parse_bytes(*config_.emu_memory, "RuntimeConfig::emu_memory") : 0;
    LinkModel link{config_.emu_bandwidth ? double(parse_bytes(*config_.emu_bandwidth, "RuntimeConfig::emu_bandwidth")) : 0.0,
                   *config_.emu_latency_us * 1e-6};
    for (int e = 0; e < *config_.nemu; ++e) {
        NodeId node = NodeId(nodes_.size());
        nodes_.push_back(std::make_unique<MemoryNode>(node, NodeKind::emu, capacity));
        WorkerInfo w;
        w.id = WorkerId(workers_.size());
        w.arch = Arch::emu;
        w.memory_node = int(node);
        w.speed = *config_.emu_speed;
        workers_.push_back(w);
        bind_core_.push_back(0);
        perf_arch_.push_back("emu" + std::to_string(e));
        slowdown_.push_back(*config_.emu_speed < 1 ? 1.0 / *config_.emu_speed : 1.0);
    }
    add_cuda_workers();
    // combined workers: consecutive CPU workers (consecutive cores), 2, 4, ... and all of them
    const int ncpus = *config_.ncpus;
    for (int size = 2; size <= ncpus; size = size * 2 > ncpus && size != ncpus ? ncpus : size * 2)
        for (int first = 0; first + size <= ncpus; first += size) {
            std::vector<WorkerId> g;
            for (int i = first; i < first + size; ++i) g.push_back(WorkerId(i));
            groups_.push_back(std::move(g));
        }
    contexts_.emplace_back(workers_.size(), true);  // context 0: every worker
    ncontexts_.store(1, std::memory_order_release);
    for (WorkerId w = 0; w < workers_.size(); ++w) {
        bool seen = false;
        for (WorkerId r : arch_representatives_) seen = seen || workers_[r].arch == workers_[w].arch;
        if (!seen) arch_representatives_.push_back(w);
    }
    links_ = LinkCounters(node_count());
    devices_.resize(node_count());  // the GPUs' were set by add_cuda_workers
    for (NodeId n = 1; n < node_count(); ++n) transfers_.add_channels(n, link, devices_[n].get());
}

// GPUs: a memory node each, with the device's allocator and copies, a worker on a core of its
// own (after the CPU workers'), and peer access between them where the hardware allows.
void RuntimeImpl::add_cuda_workers()
{
#if TESSERA_HAVE_CUDA
    std::vector<DeviceBackend*> opened;
    for (std::size_t g = 0; g < cuda_devices_.size(); ++g) {
        CudaDeviceInfo const& info = cuda_devices_[g];
        NodeId node = NodeId(nodes_.size());
        devices_.resize(node + 1);
        devices_[node] = open_cuda_device(info.ordinal);
        opened.push_back(devices_[node].get());
        std::size_t capacity = config_.cuda_memory ? parse_bytes(*config_.cuda_memory, "RuntimeConfig::cuda_memory")
                                                   : info.free_memory / 10 * 9;
        nodes_.push_back(std::make_unique<MemoryNode>(node, NodeKind::cuda, capacity, devices_[node].get()));
        devices_[node]->reclaim_node_memory = [n = nodes_.back().get()](std::size_t bytes) { return n->reclaim(bytes); };
        WorkerInfo w;
        w.id = WorkerId(workers_.size());
        w.arch = Arch::cuda;
        unsigned core = unsigned(*config_.ncpus) + unsigned(g);
        w.core = *config_.pin_workers ? topology_.core_pu(core) : -1;
        w.memory_node = int(node);
        w.speed = cuda_default_speed;
        workers_.push_back(w);
        bind_core_.push_back(core);
        perf_arch_.push_back("cuda" + std::to_string(g));
        slowdown_.push_back(1.0);
    }
    connect_cuda_peers(opened);
#endif
}

bool RuntimeImpl::peers(NodeId a, NodeId b) const noexcept
{
    if (a == host_node || b == host_node) return true;
    DeviceBackend const* da = a < devices_.size() ? devices_[a].get() : nullptr;
    DeviceBackend const* db = b < devices_.size() ? devices_[b].get() : nullptr;
    return da && db && da->reaches(*db);
}

RuntimeImpl::~RuntimeImpl()
{
    for (int64_t n; (n = pending_.load(std::memory_order_acquire)) != 0;)
        pending_.wait(n, std::memory_order_acquire);
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
    transfers_.stop();
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
    require(w < workers_.size(), [&] { return "worker: id " + std::to_string(w) + " out of range"; });
    return workers_[w];
}

std::vector<WorkerId> RuntimeImpl::neighbours(WorkerId w) const
{
    std::vector<WorkerId> out;
    for (WorkerId v = 0; v < worker_count(); ++v)
        if (v != w) out.push_back(v);
    // CPU workers by closeness in the hwloc tree (deepest common ancestor), then the others
    auto closeness = [&](WorkerId v) {
        bool cpus = workers_[w].arch == Arch::cpu && workers_[v].arch == Arch::cpu;
        return cpus ? topology_.closeness(w, v) : -1;
    };
    std::stable_sort(out.begin(), out.end(), [&](WorkerId a, WorkerId b) {
        int ca = closeness(a), cb = closeness(b);
        if (ca != cb) return ca > cb;
        return (a + worker_count() - w) % worker_count() < (b + worker_count() - w) % worker_count();
    });
    return out;
}

void RuntimeImpl::wake_any(ReadyTask t) noexcept
{
    parking_.wake_one([&](WorkerId w) { return can_run_on(Internals::task(t), w); });
}

void RuntimeImpl::prefetch(ReadyTask t, WorkerId w) noexcept
{
    if (node_count() == 1) return;  // one memory node: everything is where it runs
    if (retired(w)) return;         // it runs nothing more
    NodeId node = NodeId(workers_[w].memory_node);
    for (BufferSlot const& b : Internals::task(t)->buffers) {
        if (!reads(b.mode) || b.mode == Mode::COMMUTE) continue;  // nothing to bring in
        try {
            prefetch_replica(b.state, node);
        } catch (...) {  // best effort: the task fetches its data itself when it runs
        }
    }
}

namespace {
int8_t find_first_runnable(Task const* t, Arch arch)
{
    unsigned n = t->ops->implementations(t->codelet, arch);
    KernelArgs args = kernel_args(t, t->buffers.data());
    for (unsigned i = 0; i < n; ++i)
        if (t->ops->can_execute(t->codelet, arch, i, args)) return int8_t(i);
    return Task::impl_none;
}
}  // namespace

void RuntimeImpl::find_implementations(Task* t) const
{
    for (WorkerId w : arch_representatives_) {
        const auto arch = std::size_t(workers_[w].arch);
        t->first_impl[arch] = find_first_runnable(t, workers_[w].arch);
    }
}

std::optional<unsigned> RuntimeImpl::first_runnable_implementation(Task const* t, WorkerId w) const
{
    const Arch arch = workers_[w].arch;
    int8_t i = t->first_impl[std::size_t(arch)];
    if (i == Task::impl_unknown) i = find_first_runnable(t, arch);  // not submitted yet
    if (i == Task::impl_none) return std::nullopt;
    return unsigned(i);
}

bool RuntimeImpl::able(Task const* t, WorkerId w) const
{
    if (t->bound_worker != no_worker && t->bound_worker != w) return false;
    if (t->context != 0 && !contexts_[t->context][w]) return false;
    return first_runnable_implementation(t, w).has_value();
}

bool RuntimeImpl::can_run_on(Task const* t, WorkerId w) const
{
    if (!able(t, w)) return false;
    if (!retired(w)) return true;
    for (WorkerId v = 0; v < worker_count(); ++v)
        if (v != w && !retired(v) && able(t, v)) return false;  // it goes to v
    return true;  // to w, which fails it
}

ContextId RuntimeImpl::create_context(std::vector<WorkerId> const& workers)
{
    require(!workers.empty(), "create_context: no workers");
    std::vector<bool> members(workers_.size(), false);
    for (WorkerId w : workers) {
        require(w < workers_.size(), "create_context: no worker " + std::to_string(w));
        members[w] = true;
    }
    std::lock_guard lock(contexts_m_);
    contexts_.push_back(std::move(members));
    uint32_t id = uint32_t(contexts_.size() - 1);
    ncontexts_.store(id + 1, std::memory_order_release);
    return ContextId{id};
}

std::vector<WorkerId> RuntimeImpl::context_workers(ContextId c) const
{
    require(c.value < context_count(), "context_workers: unknown context " + std::to_string(c.value));
    std::vector<WorkerId> out;
    for (WorkerId w = 0; w < workers_.size(); ++w)
        if (contexts_[c.value][w]) out.push_back(w);
    return out;
}

void RuntimeImpl::push_to_group(ReadyTask rt, std::size_t g)
{
    Task* t = Internals::task(rt);
    require(g < groups_.size(), "push_to_group: no combined worker " + std::to_string(g));
    auto const& members = groups_[g];
    t->group = g;
    t->group_size = unsigned(members.size());
    for (std::size_t i = 0; i < members.size(); ++i) task_retain(t);  // one per member's alias
    {
        std::lock_guard order(group_push_m_);
        for (WorkerId w : members) {
            std::lock_guard lock(bound_[w].m);
            bound_[w].q.push_back(t);
            bound_[w].nonempty.store(true, std::memory_order_release);
        }
    }
    for (WorkerId w : members) parking_.wake(w);
}

std::vector<uint64_t> RuntimeImpl::executed_per_worker() const
{
    std::vector<uint64_t> out(worker_count());
    for (WorkerId w = 0; w < worker_count(); ++w) out[w] = executed_[w].executed.load(std::memory_order_relaxed);
    return out;
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
bool Runtime::worker_retired(WorkerId w) const
{
    (void)impl_->worker(w);  // throws for an unknown worker
    return impl_->retired(w);
}
void Runtime::record_dependencies(bool on) { impl_->record_dependencies(on); }
std::vector<DependencyEdge> Runtime::recorded_dependencies() const { return impl_->recorded_dependencies(); }
WorkerId Runtime::current_worker() noexcept { return detail::current_worker_id(); }

std::vector<MemoryNodeInfo> Runtime::memory_nodes() const
{
    std::vector<MemoryNodeInfo> out;
    for (NodeId n = 0; n < impl_->node_count(); ++n) out.push_back(impl_->node(n).info());
    return out;
}
namespace {
bool has_gpu(detail::RuntimeImpl& rt)
{
    for (NodeId n = 0; n < rt.node_count(); ++n)
        if (rt.node(n).info().kind == NodeKind::cuda) return true;
    return false;
}
}  // namespace

PinnedRegion Runtime::pin_for_transfers(void* p, std::size_t bytes) const
{
    if (bytes < impl_->pin_threshold() || !has_gpu(*impl_)) return {};
    return PinnedRegion(p, bytes);
}
std::size_t Runtime::pin_threshold() const noexcept { return impl_->pin_threshold(); }
void* Runtime::allocate_for_transfers(std::size_t bytes) const { return allocate_host(bytes, has_gpu(*impl_)); }
ContextId Runtime::create_context(std::vector<WorkerId> const& workers) { return impl_->create_context(workers); }
std::vector<WorkerId> Runtime::context_workers(ContextId c) const { return impl_->context_workers(c); }
std::vector<LinkStats> Runtime::link_stats() const { return impl_->links().snapshot(); }
void Runtime::reset_link_stats() { impl_->links().reset(); }
std::vector<PerfModelEntry> Runtime::perfmodel_entries(std::string_view symbol) const
{
    return impl_->models().entries(symbol);
}
double Runtime::predicted_transfer_time(NodeId src, NodeId dst, std::size_t bytes) const
{
    require(src < impl_->node_count() && dst < impl_->node_count(), "predicted_transfer_time: no such memory node");
    return impl_->bus().time(src, dst, double(bytes));
}
void Runtime::prefetch_data(detail::DataState* d, NodeId node)
{
    require(d != nullptr && d->registered.load(std::memory_order_acquire), "prefetch: handle is not registered");
    require(node < impl_->node_count(), "prefetch: no memory node " + std::to_string(node));
    detail::prefetch_replica(d, node);
}

}  // namespace tessera::rt
