// tessera-bus: the runtime's workers, memory nodes and bus model on this machine — for each
// link between the host and a device node (GPU or emulated), the latency and bandwidth the
// bus calibration measured (thesis §3.6.1: T = latency + bytes / bandwidth). The calibration
// runs when the runtime first starts with a configuration and is kept with the performance
// models; --recalibrate measures again into a scratch directory.
//
// The runtime's usual variables choose what it starts with: TESSERA_NCPU, TESSERA_NCUDA,
// TESSERA_CUDA_MEM, TESSERA_NEMU, TESSERA_EMU_BANDWIDTH, TESSERA_EMU_LATENCY...
//
// Usage: tessera-bus [--recalibrate] [--help]
#include <tessera/tessera.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <unistd.h>

namespace rt = tessera::rt;

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

void print(rt::Runtime& r)
{
    std::printf("workers: %u\n", r.worker_count());
    for (rt::WorkerId w = 0; w < r.worker_count(); ++w) {
        rt::WorkerInfo const& info = r.worker(w);
        std::printf("  %2u  %-4s  memory node %d  core %d\n", w,
                    std::string(rt::to_string(info.arch)).c_str(), info.memory_node, info.core);
    }
    auto nodes = r.memory_nodes();
    std::printf("memory nodes: %zu\n", nodes.size());
    for (auto const& n : nodes)
        std::printf("  %2u  %-9s capacity %s\n", n.id, kind_name(n.kind),
                    n.capacity ? (std::to_string(n.capacity >> 20) + " MiB").c_str() : "unlimited");
    std::printf("bus model (link: latency, bandwidth):\n");
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

}  // namespace

int main(int argc, char** argv)
{
    bool recalibrate = false;
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        if (a == "--recalibrate") {
            recalibrate = true;
        } else {
            std::printf("usage: tessera-bus [--recalibrate]\n"
                        "prints the workers, the memory nodes and the bus model's latency and "
                        "bandwidth per link\n");
            return a == "--help" ? 0 : 2;
        }
    }
    try {
        rt::RuntimeConfig config;
        std::filesystem::path scratch;
        if (recalibrate) {
            scratch = std::filesystem::temp_directory_path() /
                      ("tessera-bus-" + std::to_string(getpid()));
            std::filesystem::create_directories(scratch);
            config.perfmodel_dir = scratch.string();
        }
        {
            rt::Runtime r{config};
            print(r);
        }
        if (!scratch.empty()) std::filesystem::remove_all(scratch);
    } catch (std::exception const& e) {
        std::fprintf(stderr, "tessera-bus: %s\n", e.what());
        return 1;
    }
    return 0;
}
