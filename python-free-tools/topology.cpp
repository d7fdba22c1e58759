// tessera-topology: prints the machine's topology as hwloc sees it — how many packages
// (sockets), NUMA nodes, cores and processing units (PUs, hardware threads) there are, the
// memory and PUs of each NUMA node, and the PUs of each core.
//
// The runtime pins one worker per core with hwloc, so this is the picture its workers and
// memory nodes are built from. PU numbers are OS indices, the numbers taskset, numactl and
// /proc/cpuinfo use; cores are numbered by hwloc's logical index.
//
// Then what the runtime builds on it, as a program started here with the same settings
// (TESSERA_NCPU, TESSERA_NCUDA, TESSERA_NEMU ...) gets it: its workers, its memory nodes, and
// the latency and bandwidth of each link between the host and a device node, as the bus
// calibration measured them (tessera-bus prints the same). --hwloc leaves the runtime out.
//
// Usage: tessera-topology [--hwloc] [--help]

#include "python-free-tools/common/runtime_report.hpp"

#include <tessera/rt/runtime.hpp>

#include <hwloc.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

/// Owns a loaded hwloc topology of this machine.
class Topology {
public:
    Topology()
    {
        if (hwloc_topology_init(&topo_) != 0) return;
        if (hwloc_topology_load(topo_) != 0) {
            hwloc_topology_destroy(topo_);
            return;
        }
        loaded_ = true;
    }
    ~Topology()
    {
        if (loaded_) hwloc_topology_destroy(topo_);
    }
    Topology(Topology const&) = delete;
    Topology& operator=(Topology const&) = delete;

    bool loaded() const { return loaded_; }
    hwloc_topology_t get() const { return topo_; }

    /// Number of objects of a type; 0 when hwloc cannot tell (e.g. several depths).
    int count(hwloc_obj_type_t type) const
    {
        int n = hwloc_get_nbobjs_by_type(topo_, type);
        return n < 0 ? 0 : n;
    }

private:
    hwloc_topology_t topo_{};
    bool loaded_ = false;
};

/// A cpuset as a list of OS indices: "0-3,8" (hwloc list syntax, as taskset -c takes).
std::string cpu_list(hwloc_const_bitmap_t set)
{
    char* text = nullptr;
    if (set == nullptr || hwloc_bitmap_list_asprintf(&text, set) < 0 || text == nullptr) return "?";
    std::string list = text;
    std::free(text);
    return list.empty() ? "none" : list;
}

double gib(hwloc_uint64_t bytes)
{
    return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
}

/// The logical index of the ancestor of `obj` of the given type, or -1 when it has none.
long ancestor_index(hwloc_topology_t topo, hwloc_obj_type_t type, hwloc_obj_t obj)
{
    hwloc_obj_t up = hwloc_get_ancestor_obj_by_type(topo, type, obj);
    return up != nullptr ? static_cast<long>(up->logical_index) : -1;
}

void print_summary(Topology const& topo)
{
    hwloc_obj_t root = hwloc_get_root_obj(topo.get());
    std::printf("Machine topology (hwloc %s)\n", HWLOC_VERSION);
    std::printf("  packages:   %d\n", topo.count(HWLOC_OBJ_PACKAGE));
    std::printf("  NUMA nodes: %d\n", topo.count(HWLOC_OBJ_NUMANODE));
    std::printf("  cores:      %d\n", topo.count(HWLOC_OBJ_CORE));
    std::printf("  PUs:        %d  (OS indices %s)\n", topo.count(HWLOC_OBJ_PU),
                cpu_list(root->cpuset).c_str());
    std::printf("  memory:     %.1f GiB\n", gib(root->total_memory));
}

void print_numa_nodes(Topology const& topo)
{
    int const n = topo.count(HWLOC_OBJ_NUMANODE);
    if (n == 0) return;
    std::printf("\nNUMA nodes:\n");
    for (int i = 0; i < n; ++i) {
        hwloc_obj_t node = hwloc_get_obj_by_type(topo.get(), HWLOC_OBJ_NUMANODE, unsigned(i));
        std::printf("  node %u: %.1f GiB, PUs %s\n", node->os_index,
                    gib(node->attr->numanode.local_memory), cpu_list(node->cpuset).c_str());
    }
}

/// One line per core: its package and the PUs (hardware threads) it holds. Some virtual
/// machines report no cores; each PU is then listed on its own.
void print_cores(Topology const& topo)
{
    hwloc_obj_type_t const type = topo.count(HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    char const* label = type == HWLOC_OBJ_CORE ? "core" : "pu";
    int const n = topo.count(type);
    std::printf("\n%s (logical index: package, PUs):\n", type == HWLOC_OBJ_CORE ? "Cores" : "PUs");
    for (int i = 0; i < n; ++i) {
        hwloc_obj_t obj = hwloc_get_obj_by_type(topo.get(), type, unsigned(i));
        std::printf("  %s %u: package %ld, PUs %s\n", label, obj->logical_index,
                    ancestor_index(topo.get(), HWLOC_OBJ_PACKAGE, obj),
                    cpu_list(obj->cpuset).c_str());
    }
}

}  // namespace

int main(int argc, char** argv)
{
    bool runtime = true;
    for (int i = 1; i < argc; ++i) {
        std::string_view const arg = argv[i];
        if (arg == "--hwloc") {
            runtime = false;
            continue;
        }
        bool const help = arg == "--help" || arg == "-h";
        std::fprintf(help ? stdout : stderr,
                     "usage: %s [--hwloc] [--help]\n"
                     "Prints the packages, NUMA nodes, cores and PUs hwloc finds on this "
                     "machine,\nwith the PUs (OS indices) of each NUMA node and core; then the "
                     "runtime's workers,\nmemory nodes and bus model (latency and bandwidth "
                     "per link).\n"
                     "  --hwloc  hwloc's view only: no runtime started\n",
                     argv[0]);
        return help ? 0 : 2;
    }

    Topology topo;
    if (!topo.loaded()) {
        std::fprintf(stderr, "%s: hwloc could not load this machine's topology\n", argv[0]);
        return 1;
    }
    print_summary(topo);
    print_numa_nodes(topo);
    print_cores(topo);
    if (!runtime) return 0;

    std::printf("\nRuntime (with this environment's TESSERA_* settings):\n");
    std::fflush(stdout);  // before the runtime's own messages on stderr, if any
    try {
        tessera::rt::Runtime r;
        tessera::tools::print_runtime(r);
    } catch (std::exception const& e) {
        std::fprintf(stderr, "%s: the runtime did not start: %s\n", argv[0], e.what());
        return 1;
    }
    return 0;
}
