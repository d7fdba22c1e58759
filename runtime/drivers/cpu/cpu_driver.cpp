#include "runtime/drivers/cpu/cpu_driver.hpp"

#include "runtime/core/machine.hpp"
#include "runtime/core/runtime_impl.hpp"

namespace tessera::rt::detail {

namespace {
class CpuDriver final : public Driver {
public:
    std::string_view name() const noexcept override { return "cpu"; }

    void add_to(Machine& machine, RuntimeConfig const& config) override
    {
        machine.add_node(NodeKind::host, 0);  // node 0: the host, no limit
        for (int i = 0; i < *config.ncpus; ++i) {
            WorkerInfo w;
            w.arch = Arch::cpu;
            w.core = *config.pin_workers ? machine.topology().core_pu(unsigned(i)) : -1;
            w.memory_node = host_node;
            machine.add_worker(w, *this, "cpu", unsigned(i));
        }
    }

    void run_worker(RuntimeImpl& rt, WorkerId w) override { worker_loop(rt, w); }
};
}  // namespace

std::unique_ptr<Driver> make_cpu_driver()
{
    return std::make_unique<CpuDriver>();
}

void worker_loop(RuntimeImpl& rt, WorkerId w)
{
    for (bool stop = false; !stop;) {
        ReadyTask t = rt.pop(w);
        if (!t) t = sleep_until_work(rt, w, stop);
        if (t) rt.execute(Internals::task(t), w);
    }
}

ReadyTask sleep_until_work(RuntimeImpl& rt, WorkerId w, bool& stop)
{
    Parking& parking = rt.parking();
    uint32_t ticket = parking.prepare_wait(w);
    if (ReadyTask t = rt.pop(w)) {  // pushed between our last look and the registration
        parking.cancel_wait(w);
        return t;
    }
    if (rt.stopping()) {
        parking.cancel_wait(w);
        stop = true;
        return {};
    }
    // one clock read a sleep: a sleep that began before a trace started shows in it too
    rt.tracer().falls_asleep(w);
    parking.commit_wait(w, ticket);
    rt.tracer().wakes(w);
    return {};
}

}  // namespace tessera::rt::detail
