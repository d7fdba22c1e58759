// What several tools print about a running runtime: its workers, its memory nodes, and the
// bus model's latency and bandwidth per link between the host and each device node.
// tessera-bus, tessera-topology and tessera-calibrate share it. Not a tool itself:
// python-free-tools/CMakeLists.txt links common/*.cpp into every tool.
#pragma once

#include <tessera/rt/runtime.hpp>

namespace tessera::tools {

/// One line per worker: its index, architecture, memory node and core.
void print_workers(rt::Runtime& r);
/// One line per memory node: its index, kind and capacity.
void print_memory_nodes(rt::Runtime& r);
/// One line per direction of each host-device link: the bus model's latency (the predicted
/// time of an 8-byte copy) and bandwidth (from the predicted time of a 256 MiB one).
void print_bus_model(rt::Runtime& r);

/// The three above, in that order.
inline void print_runtime(rt::Runtime& r)
{
    print_workers(r);
    print_memory_nodes(r);
    print_bus_model(r);
}

}  // namespace tessera::tools
