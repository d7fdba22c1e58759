#include "runtime/core/topology.hpp"

#include <hwloc.h>

#include <thread>

namespace tessera::rt::detail {

namespace {
hwloc_topology_t topo(void* p)
{
    return static_cast<hwloc_topology_t>(p);
}
hwloc_obj_t obj(void* p)
{
    return static_cast<hwloc_obj_t>(p);
}
}  // namespace

Topology::Topology()
{
    hwloc_topology_t t = nullptr;
    if (hwloc_topology_init(&t) == 0 && hwloc_topology_load(t) == 0) {
        topo_ = t;
        // the cores this thread (the one making the runtime: the process's binding) may use
        hwloc_bitmap_t bound = hwloc_bitmap_alloc();
        if (hwloc_get_cpubind(t, bound, HWLOC_CPUBIND_THREAD) != 0 || hwloc_bitmap_iszero(bound))
            hwloc_bitmap_copy(bound, hwloc_topology_get_topology_cpuset(t));
        hwloc_bitmap_t usable = hwloc_bitmap_alloc();
        int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
        for (int i = 0; i < n; ++i) {
            hwloc_obj_t core = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, unsigned(i));
            hwloc_bitmap_and(usable, core->cpuset, bound);
            hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(t, usable, HWLOC_OBJ_PU, 0);
            if (!pu) continue;  // not this process's
            core_objs_.push_back(core);
            pu_objs_.push_back(pu);
            core_pu_.push_back(int(pu->os_index));
        }
        hwloc_bitmap_free(usable);
        hwloc_bitmap_free(bound);
    } else if (t) {
        hwloc_topology_destroy(t);
    }
    if (core_pu_.empty()) {  // no hwloc view of the machine: trust the C++ runtime
        unsigned n = std::max(1u, std::thread::hardware_concurrency());
        for (unsigned i = 0; i < n; ++i) core_pu_.push_back(int(i));
    }
}

Topology::~Topology()
{
    if (topo_) hwloc_topology_destroy(topo(topo_));
}

bool Topology::bind_current_thread(unsigned c) const
{
    if (!topo_ || pu_objs_.empty()) return false;
    // one hardware thread of the core: the OS must not move the worker between siblings
    hwloc_obj_t pu = obj(pu_objs_[c % pu_objs_.size()]);
    return hwloc_set_cpubind(topo(topo_), pu->cpuset, HWLOC_CPUBIND_THREAD) == 0;
}

int Topology::closeness(unsigned a, unsigned b) const
{
    if (!topo_ || core_objs_.empty()) return 0;
    hwloc_obj_t oa = obj(core_objs_[a % core_objs_.size()]);
    hwloc_obj_t ob = obj(core_objs_[b % core_objs_.size()]);
    hwloc_obj_t common = hwloc_get_common_ancestor_obj(topo(topo_), oa, ob);
    return common ? int(common->depth) : 0;
}

std::string Topology::summary() const
{
    if (!topo_) return std::to_string(cores()) + " cores (hwloc unavailable)";
    auto count = [&](hwloc_obj_type_t type) {
        return std::to_string(std::max(0, hwloc_get_nbobjs_by_type(topo(topo_), type)));
    };
    const int all = hwloc_get_nbobjs_by_type(topo(topo_), HWLOC_OBJ_CORE);
    return count(HWLOC_OBJ_PACKAGE) + " package(s), " + count(HWLOC_OBJ_NUMANODE) +
           " NUMA node(s), " + count(HWLOC_OBJ_CORE) + " core(s), " + count(HWLOC_OBJ_PU) +
           " hardware thread(s)" +
           (int(cores()) < all ? ", " + std::to_string(cores()) + " core(s) for this process" : "");
}

}  // namespace tessera::rt::detail
