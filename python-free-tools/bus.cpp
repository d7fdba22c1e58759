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
#include "python-free-tools/common/runtime_report.hpp"

#include <tessera/tessera.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <unistd.h>

namespace rt = tessera::rt;

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
            tessera::tools::print_runtime(r);
        }
        if (!scratch.empty()) std::filesystem::remove_all(scratch);
    } catch (std::exception const& e) {
        std::fprintf(stderr, "tessera-bus: %s\n", e.what());
        return 1;
    }
    return 0;
}
