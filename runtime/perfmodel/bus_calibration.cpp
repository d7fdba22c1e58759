#include "runtime/perfmodel/bus_calibration.hpp"

#include <tessera/error.hpp>
#include <tessera/rt/memory.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>

namespace tessera::rt::detail {

void calibrate_bus_model(BusModel& bus, BusCalibrationInput const& in)
{
    const unsigned nodes = unsigned(in.devices.size());
    bus.resize(nodes);
    if (nodes < 2) return;
    std::string path =
        in.directory.empty() ? "" : in.directory + "/" + bus_model_file(in.signature);
    if (!path.empty() && bus.load(path, in.signature)) return;

    // between page-locked host memory and the node's own memory (a GPU's copies are much
    // faster: a larger block keeps the latency's share small)
    constexpr std::size_t small = 8;
    auto layout_of_bytes = [](std::size_t n) {
        Layout l;
        l.kind = InterfaceKind::vector;
        l.elem_size = 1;
        l.nx = l.ld = int64_t(n);
        return l;
    };
    for (NodeId d = 1; d < nodes; ++d) {
        DeviceBackend* gpu = in.devices[d];
        std::size_t large = gpu ? std::size_t(64) << 20 : std::size_t(4) << 20;
        // the device end: GPU memory outside the node's accounting, or an emulated node's host
        // memory (and then no page-locking: no CUDA context for a runtime without GPUs)
        std::unique_ptr<void, void (*)(void*)> host(allocate_host(large, gpu != nullptr),
                                                    &free_pinned);
        std::vector<std::byte> emulated(gpu ? 0 : large);
        void* device = gpu ? gpu->allocate(large) : emulated.data();
        if (!device)
            throw DeviceError("bus calibration: no room for " + std::to_string(large) +
                              " bytes on node " + std::to_string(d));
        auto timed = [&](NodeId src, NodeId dst, std::size_t bytes, int reps) {
            std::vector<double> t;
            Layout l = layout_of_bytes(bytes);
            void const* from = src == host_node ? host.get() : device;
            void* to = dst == host_node ? host.get() : device;
            for (int i = 0; i < reps; ++i) {
                auto t0 = std::chrono::steady_clock::now();
                in.transfers->copy_now({src, dst, from, l, to, l, {}});
                t.push_back(
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            }
            std::sort(t.begin(), t.end());
            return t[t.size() / 2];
        };
        try {
            for (auto [src, dst] : {std::pair{host_node, d}, std::pair{d, host_node}}) {
                double lat = timed(src, dst, small, 9);
                double big = timed(src, dst, large, 3);
                bus.set(src, dst, {lat, double(large) / std::max(big - lat, 1e-9)});
            }
        } catch (...) {
            if (gpu) gpu->free(device);
            throw;
        }
        if (gpu) gpu->free(device);
    }
    if (!path.empty()) bus.save(path, in.signature);
}

}  // namespace tessera::rt::detail
