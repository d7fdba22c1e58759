// Driver: what the runtime needs from one kind of processing unit, behind one interface (as
// PaRSEC's device modules and StarPU's drivers are). A driver finds its devices, adds their
// memory nodes and workers to the machine at start, and runs each of its workers' loops. The
// core knows no driver by name: drivers.cpp lists those a build has, and a new one starts
// from runtime/drivers/template/. Internal.
#pragma once

#include <tessera/rt/runtime.hpp>
#include <tessera/rt/sched.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::rt::detail {

class Machine;
class RuntimeImpl;

class Driver {
public:
    virtual ~Driver() = default;

    /// "cpu", "emu", "cuda": for messages.
    virtual std::string_view name() const noexcept = 0;

    /// Finds the devices this driver will run, before the configuration is resolved, and
    /// sets the configuration fields that count them (RuntimeConfig::ncuda). Returns how many
    /// cores its workers take for themselves: by default the CPU workers leave them alone.
    virtual unsigned discover(RuntimeConfig& config)
    {
        (void)config;
        return 0;
    }

    /// Adds the driver's memory nodes and workers to the machine. Drivers are called in the
    /// order drivers.cpp lists them: worker ids follow that order (CPU workers first).
    virtual void add_to(Machine& machine, RuntimeConfig const& config) = 0;

    /// What the transfer costs between the host and this driver's nodes depend on, for the
    /// bus model's signature (the bus is measured again when it changes).
    virtual std::string link_signature(RuntimeConfig const& config) const
    {
        (void)config;
        return {};
    }

    /// Worker w's loop, on its own thread, until the runtime stops: pops tasks and runs them
    /// (RuntimeImpl::execute, or begin / the kernel / end for a driver that runs them
    /// asynchronously), and sleeps when there is nothing to do (sleep_until_work).
    virtual void run_worker(RuntimeImpl& rt, WorkerId w) = 0;
};

/// The drivers of this build, in the order their workers are numbered.
std::vector<std::unique_ptr<Driver>> make_drivers();

}  // namespace tessera::rt::detail
