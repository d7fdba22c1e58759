#include "runtime/drivers/emu/emu_driver.hpp"

#include "runtime/core/machine.hpp"
#include "runtime/drivers/cpu/cpu_driver.hpp"

#include <tessera/rt/memory.hpp>

#include <sstream>
#include <string>

namespace tessera::rt::detail {

namespace {
class EmuDriver final : public Driver {
public:
    std::string_view name() const noexcept override { return "emu"; }

    void add_to(Machine& machine, RuntimeConfig const& config) override
    {
        std::size_t capacity =
            config.emu_memory ? parse_bytes(*config.emu_memory, "RuntimeConfig::emu_memory") : 0;
        LinkModel link{config.emu_bandwidth ? double(parse_bytes(*config.emu_bandwidth,
                                                                 "RuntimeConfig::emu_bandwidth"))
                                            : 0.0,
                       *config.emu_latency_us * 1e-6};
        const double speed = *config.emu_speed;
        for (int e = 0; e < *config.nemu; ++e) {
            WorkerInfo w;
            w.arch = Arch::emu;
            w.memory_node = int(machine.add_node(NodeKind::emu, capacity, nullptr, link));
            w.speed = speed;
            machine.add_worker(w, *this, "emu" + std::to_string(e), 0,
                               speed < 1 ? 1.0 / speed : 1.0);
        }
    }

    std::string link_signature(RuntimeConfig const& config) const override
    {
        std::ostringstream sig;
        sig << " emu_bandwidth '" << config.emu_bandwidth.value_or("") << "' emu_latency_us "
            << *config.emu_latency_us;
        return sig.str();
    }

    void run_worker(RuntimeImpl& rt, WorkerId w) override { worker_loop(rt, w); }
};
}  // namespace

std::unique_ptr<Driver> make_emu_driver()
{
    return std::make_unique<EmuDriver>();
}

}  // namespace tessera::rt::detail
