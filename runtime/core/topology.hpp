// Topology: the cores this process may run on as hwloc sees them, binding of threads to cores,
// and how close two cores are (for locality-aware policies). A process started bound to some
// cores (mpirun binds each rank to its own; taskset) sees those only, so that the workers of
// two such processes never share a core. Internal.
#pragma once

#include <string>
#include <vector>

namespace tessera::rt::detail {

class Topology {
public:
    Topology();
    ~Topology();
    Topology(Topology const&) = delete;
    Topology& operator=(Topology const&) = delete;

    /// Physical cores this process may run on (at least 1).
    unsigned cores() const noexcept { return unsigned(core_pu_.size()); }
    /// The OS index of the first hardware thread of core c.
    int core_pu(unsigned c) const { return core_pu_[c % cores()]; }
    /// Binds the calling thread to core c (modulo the number of cores); false if hwloc refused.
    bool bind_current_thread(unsigned c) const;
    /// Closeness of two cores: the depth of their deepest common ancestor in the hwloc tree
    /// (larger = closer: same L2 > same L3 > same NUMA node > same machine).
    int closeness(unsigned a, unsigned b) const;
    /// One line: "1 package, 1 NUMA node, 2 cores, 2 hardware threads".
    std::string summary() const;

private:
    void* topo_ = nullptr;          // hwloc_topology_t
    std::vector<void*> core_objs_;  // hwloc_obj_t per core
    std::vector<void*> pu_objs_;    // hwloc_obj_t: the hardware thread a worker binds to
    std::vector<int> core_pu_;
};

}  // namespace tessera::rt::detail
