// Machine: what the runtime runs on, set up once at start and fixed afterwards. The drivers
// add the memory nodes (each with its device, if any) and the workers (their architecture,
// memory node, core and relative speed); then finish() adds the transfer channels between the
// host and each device, and the combined workers of parallel tasks: consecutive CPU workers,
// 2, 4, ... and all of them (thesis §4.3). Internal.
#pragma once

#include "runtime/core/topology.hpp"
#include "runtime/data/device_backend.hpp"
#include "runtime/data/memory_node.hpp"
#include "runtime/data/transfer.hpp"
#include "runtime/drivers/driver.hpp"

#include <tessera/rt/memory.hpp>
#include <tessera/rt/sched.hpp>

#include <memory>
#include <string>
#include <vector>

namespace tessera::rt::detail {

class Machine {
public:
    /// Finds the topology; `drivers` set the machine up (make_drivers(): this build's).
    explicit Machine(std::vector<std::unique_ptr<Driver>> drivers);
    ~Machine();
    Machine(Machine const&) = delete;
    Machine& operator=(Machine const&) = delete;

    Topology const& topology() const noexcept { return topology_; }
    std::vector<std::unique_ptr<Driver>> const& drivers() const noexcept { return drivers_; }

    // ---- set-up, by the drivers (Driver::add_to) ----
    /// A memory node: the host (first), an emulated device, or a GPU whose `device` allocates
    /// and copies. `link` slows the copies of a node without device to an emulated link.
    NodeId add_node(NodeKind kind, std::size_t capacity,
                    std::unique_ptr<DeviceBackend> device = nullptr, LinkModel link = {});
    /// A worker run by `driver` (its id is set here); `perf_arch` names its performance models
    /// ("cpu", "emu0", "cuda0"), `bind_core` is the core its thread is bound to when
    /// info.core >= 0, and its kernels last `slowdown` times longer (an emulated slow device).
    WorkerId add_worker(WorkerInfo info, Driver& driver, std::string perf_arch, unsigned bind_core,
                        double slowdown = 1.0);
    /// Once every driver has added its own: transfer channels and combined workers.
    void finish();

    // ---- workers ----
    unsigned worker_count() const noexcept { return unsigned(workers_.size()); }
    WorkerInfo const& worker(WorkerId w) const noexcept { return workers_[w]; }
    Driver& driver_of(WorkerId w) const noexcept { return *driver_of_[w]; }
    std::string const& perf_arch(WorkerId w) const noexcept { return perf_arch_[w]; }
    unsigned bind_core(WorkerId w) const noexcept { return bind_core_[w]; }
    double slowdown(WorkerId w) const noexcept { return slowdown_[w]; }
    /// The capacity of w's memory node in bytes (0: no limit): a task whose data is larger
    /// cannot run on w, as its data must all be there at once.
    std::size_t memory_of(WorkerId w) const noexcept { return memory_of_[w]; }
    /// The smallest such capacity of any worker (0: no worker's memory is limited).
    std::size_t smallest_memory() const noexcept { return smallest_memory_; }
    /// One worker per distinct architecture, in worker order.
    std::vector<WorkerId> const& arch_representatives() const noexcept
    {
        return arch_representatives_;
    }
    std::vector<std::vector<WorkerId>> const& combined_workers() const noexcept { return groups_; }
    /// The other workers, CPU workers by closeness in the hwloc tree first.
    std::vector<WorkerId> neighbours(WorkerId w) const;

    // ---- memory ----
    unsigned node_count() const noexcept { return unsigned(nodes_.size()); }
    MemoryNode& node(NodeId n) const noexcept { return *nodes_[n]; }
    /// A node's GPU, or nullptr (the host, an emulated device).
    DeviceBackend* device(NodeId n) const noexcept
    {
        return n < devices_.size() ? devices_[n].get() : nullptr;
    }
    /// Can data move between nodes a and b in one copy? Always when one is the host; between
    /// two GPUs with peer access; never between other devices (they go through the host).
    bool peers(NodeId a, NodeId b) const noexcept;
    TransferEngine& transfers() noexcept { return transfers_; }
    LinkCounters& links() noexcept { return links_; }

private:
    Topology topology_;
    std::vector<std::unique_ptr<Driver>> drivers_;
    std::vector<WorkerInfo> workers_;
    std::vector<Driver*> driver_of_;
    std::vector<std::string> perf_arch_;
    std::vector<unsigned> bind_core_;
    std::vector<double> slowdown_;
    std::vector<std::size_t> memory_of_;
    std::size_t smallest_memory_ = 0;
    std::vector<WorkerId> arch_representatives_;
    std::vector<std::vector<WorkerId>> groups_;
    std::vector<LinkModel> node_links_;

    // declared first, destroyed last: the nodes and the channels use the devices
    std::vector<std::unique_ptr<DeviceBackend>> devices_;  // per node: its GPU, or nullptr
    LinkCounters links_;
    TransferEngine transfers_{links_};
    std::vector<std::unique_ptr<MemoryNode>> nodes_;
};

}  // namespace tessera::rt::detail
