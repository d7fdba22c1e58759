#include "runtime/drivers/template/template_driver.hpp"

#include "runtime/core/machine.hpp"
#include "runtime/core/runtime_impl.hpp"
#include "runtime/drivers/cpu/cpu_driver.hpp"

#include <string>

namespace tessera::rt::detail {

namespace {
class TemplateDriver final : public Driver {
public:
    explicit TemplateDriver(unsigned devices) : devices_(devices) {}

    std::string_view name() const noexcept override { return "template"; }

    // Finds the devices (here: as many as asked). Return the cores their workers need for
    // themselves (a GPU's worker polls its streams from a core of its own).
    unsigned discover(RuntimeConfig&) override { return 0; }

    void add_to(Machine& machine, RuntimeConfig const&) override
    {
        for (unsigned d = 0; d < devices_; ++d) {
            WorkerInfo w;
            w.arch = Arch::emu;
            w.memory_node = int(machine.add_node(NodeKind::emu, 0));  // 0: no capacity limit
            machine.add_worker(w, *this, "template" + std::to_string(d), 0);
        }
    }

    // Pop, run, sleep when idle: the CPU driver's loop. An asynchronous device keeps several
    // tasks in flight instead (begin, launch, and end once the device says they are done).
    void run_worker(RuntimeImpl& rt, WorkerId w) override { worker_loop(rt, w); }

private:
    unsigned devices_;
};
}  // namespace

std::unique_ptr<Driver> make_template_driver(unsigned devices)
{
    return std::make_unique<TemplateDriver>(devices);
}

}  // namespace tessera::rt::detail
