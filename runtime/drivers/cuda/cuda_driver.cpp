#include "runtime/drivers/cuda/cuda_driver.hpp"

#include "runtime/core/machine.hpp"
#include "runtime/core/runtime_impl.hpp"

#include <tessera/rt/memory.hpp>

#include <sstream>

namespace tessera::rt::detail {

namespace {
class CudaDriver final : public Driver {
public:
    std::string_view name() const noexcept override { return "cuda"; }

    unsigned discover(RuntimeConfig& config) override
    {
        devices_ = find_cuda_devices(config.ncuda.value_or(-1));
        config.ncuda = int(devices_.size());
        return unsigned(devices_.size());  // one core drives each GPU
    }

    void add_to(Machine& machine, RuntimeConfig const& config) override
    {
        std::vector<DeviceBackend*> opened;
        for (std::size_t g = 0; g < devices_.size(); ++g) {
            CudaDeviceInfo const& info = devices_[g];
            std::unique_ptr<DeviceBackend> device = open_cuda_device(info.ordinal);
            opened.push_back(device.get());
            std::size_t capacity =
                config.cuda_memory ? parse_bytes(*config.cuda_memory, "RuntimeConfig::cuda_memory")
                                   : info.free_memory / 10 * 9;
            WorkerInfo w;
            w.arch = Arch::cuda;
            w.memory_node = int(machine.add_node(NodeKind::cuda, capacity, std::move(device)));
            unsigned core = unsigned(*config.ncpus) + unsigned(g);
            w.core = *config.pin_workers ? machine.topology().core_pu(core) : -1;
            w.speed = default_speed;
            machine.add_worker(w, *this, "cuda" + std::to_string(g), core);
        }
        connect_cuda_peers(opened);
    }

    std::string link_signature(RuntimeConfig const&) const override
    {
        std::ostringstream sig;
        for (CudaDeviceInfo const& g : devices_)
            sig << " gpu" << g.ordinal << " '" << g.name << "'";
        return sig.str();
    }

    void run_worker(RuntimeImpl& rt, WorkerId w) override
    {
        cuda_worker_loop(rt, w, *rt.machine().device(NodeId(rt.worker(w).memory_node)));
    }

private:
    /// A GPU's speed relative to a core before its models know better (a DGEMM tile on an
    /// H100 against one AVX-512 core): only the first tasks' placement depends on it.
    static constexpr double default_speed = 20.0;
    std::vector<CudaDeviceInfo> devices_;
};
}  // namespace

std::unique_ptr<Driver> make_cuda_driver()
{
    return std::make_unique<CudaDriver>();
}

}  // namespace tessera::rt::detail
