#include "python-free-tools/common/runtime_report.hpp"

#include <cstdio>
#include <string>
#include <utility>

namespace tessera::tools {

namespace {
char const* kind_name(rt::NodeKind k)
{
    switch (k) {
    case rt::NodeKind::host:
        return "host";
    case rt::NodeKind::emu:
        return "emulated";
    case rt::NodeKind::cuda:
        return "CUDA GPU";
    }
    return "?";
}
}  // namespace

void print_workers(rt::Runtime& r)
{
    std::printf("workers: %u\n", r.worker_count());
    for (rt::WorkerId w = 0; w < r.worker_count(); ++w) {
        rt::WorkerInfo const& info = r.worker(w);
        std::printf("  %2u  %-4s  memory node %d  core %d\n", w,
                    std::string(rt::to_string(info.arch)).c_str(), info.memory_node, info.core);
    }
}

void print_memory_nodes(rt::Runtime& r)
{
    auto nodes = r.memory_nodes();
    std::printf("memory nodes: %zu\n", nodes.size());
    for (auto const& n : nodes)
        std::printf("  %2u  %-9s capacity %s\n", n.id, kind_name(n.kind),
                    n.capacity ? (std::to_string(n.capacity >> 20) + " MiB").c_str() : "unlimited");
}

void print_bus_model(rt::Runtime& r)
{
    auto nodes = r.memory_nodes();
    std::printf("bus model (link: latency, bandwidth):\n");
    if (nodes.size() < 2) std::printf("  none: the host is the only memory node\n");
    // the latency is the time of a tiny copy; the bandwidth is taken between a tiny and a
    // large one, so that the latency does not lower it
    constexpr std::size_t small = 8, large = std::size_t(256) << 20;
    for (auto const& n : nodes) {
        if (n.id == rt::host_node) continue;
        for (auto [src, dst] : {std::pair{rt::host_node, n.id}, std::pair{n.id, rt::host_node}}) {
            double t_small = r.predicted_transfer_time(src, dst, small);
            double t_large = r.predicted_transfer_time(src, dst, large);
            double bandwidth = double(large - small) / (t_large - t_small);
            std::printf("  %u -> %u: %8.2f us  %8.2f GB/s\n", src, dst, t_small * 1e6,
                        bandwidth / 1e9);
        }
    }
}

}  // namespace tessera::tools
