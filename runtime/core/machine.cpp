#include "runtime/core/machine.hpp"

#include <algorithm>

namespace tessera::rt::detail {

Machine::Machine(std::vector<std::unique_ptr<Driver>> drivers) : drivers_(std::move(drivers))
{}

Machine::~Machine() = default;

NodeId Machine::add_node(NodeKind kind, std::size_t capacity, std::unique_ptr<DeviceBackend> device,
                         LinkModel link)
{
    NodeId id = NodeId(nodes_.size());
    DeviceBackend* raw = device.get();
    devices_.push_back(std::move(device));
    node_links_.push_back(link);
    nodes_.push_back(std::make_unique<MemoryNode>(id, kind, capacity, raw));
    // where the GPU has no room for what the node does not account for (a workspace, a plan),
    // the node frees unused replicas first
    if (raw)
        raw->reclaim_node_memory = [n = nodes_.back().get()](std::size_t bytes) {
            return n->reclaim(bytes);
        };
    return id;
}

WorkerId Machine::add_worker(WorkerInfo info, Driver& driver, std::string perf_arch,
                             unsigned bind_core, double slowdown)
{
    info.id = WorkerId(workers_.size());
    workers_.push_back(info);
    driver_of_.push_back(&driver);
    perf_arch_.push_back(std::move(perf_arch));
    bind_core_.push_back(bind_core);
    slowdown_.push_back(slowdown);
    const std::size_t memory = node(NodeId(info.memory_node)).info().capacity;
    memory_of_.push_back(memory);
    if (memory && (smallest_memory_ == 0 || memory < smallest_memory_)) smallest_memory_ = memory;
    return info.id;
}

void Machine::finish()
{
    std::vector<WorkerId> cpus;
    for (WorkerInfo const& w : workers_)
        if (w.arch == Arch::cpu) cpus.push_back(w.id);
    const int n = int(cpus.size());
    for (int size = 2; size <= n; size = size * 2 > n && size != n ? n : size * 2)
        for (int first = 0; first + size <= n; first += size)
            groups_.emplace_back(cpus.begin() + first, cpus.begin() + first + size);
    for (WorkerInfo const& w : workers_)
        if (std::none_of(arch_representatives_.begin(), arch_representatives_.end(),
                         [&](WorkerId r) { return workers_[r].arch == w.arch; }))
            arch_representatives_.push_back(w.id);
    links_ = LinkCounters(node_count());
    for (NodeId n = 1; n < node_count(); ++n)
        transfers_.add_channels(n, node_links_[n], devices_[n].get());
}

std::vector<WorkerId> Machine::neighbours(WorkerId w) const
{
    std::vector<WorkerId> out;
    for (WorkerId v = 0; v < worker_count(); ++v)
        if (v != w) out.push_back(v);
    // CPU workers by closeness in the hwloc tree (deepest common ancestor), then the others
    auto closeness = [&](WorkerId v) {
        bool cpus = workers_[w].arch == Arch::cpu && workers_[v].arch == Arch::cpu;
        return cpus ? topology_.closeness(bind_core_[w], bind_core_[v]) : -1;
    };
    std::stable_sort(out.begin(), out.end(), [&](WorkerId a, WorkerId b) {
        int ca = closeness(a), cb = closeness(b);
        if (ca != cb) return ca > cb;
        return (a + worker_count() - w) % worker_count() <
               (b + worker_count() - w) % worker_count();
    });
    return out;
}

bool Machine::peers(NodeId a, NodeId b) const noexcept
{
    if (a == host_node || b == host_node) return true;
    DeviceBackend const* da = device(a);
    DeviceBackend const* db = device(b);
    return da && db && da->reaches(*db);
}

}  // namespace tessera::rt::detail
