// What the runtime asks its predictor for its policies, and what it gives it back: a task's
// kernel as the predictor sees it, the worker's architecture and speed, the kernel's measured
// seconds; and the bus model, measured over the machine's links.
#include "runtime/core/runtime_impl.hpp"

#include "runtime/perfmodel/bus_calibration.hpp"

#include <algorithm>
#include <sstream>

namespace tessera::rt::detail {

double RuntimeImpl::now() const noexcept
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

Prediction RuntimeImpl::expected_length(Task* t, WorkerId w)
{
    return predictor_.length(shape_of(t), machine_.perf_arch(w), machine_.worker(w).speed);
}

Prediction RuntimeImpl::expected_length_on_cores(Task* t, unsigned size)
{
    return size <= 1 ? predictor_.length(shape_of(t), "cpu", 1.0)
                     : predictor_.length(shape_of(t), "cpu_x" + std::to_string(size), double(size));
}

unsigned RuntimeImpl::max_parallelism(Task const* t) const noexcept
{
    if (!t->ops || t->bound_worker != no_worker) return 1;
    for (BufferSlot const& b : t->buffers)
        if (b.mode == Mode::COMMUTE) return 1;
    unsigned max = 1;
    ParallelKind kind = t->ops->parallel(t->codelet, &max);
    return kind == ParallelKind::sequential ? 1 : std::max(1u, max);
}

double RuntimeImpl::expected_transfer(Task* t, WorkerId w)
{
    if (machine_.node_count() == 1) return 0;  // one memory node: nothing ever moves
    return predictor_.fetch_time(t->buffers, NodeId(machine_.worker(w).memory_node),
                                 [this](NodeId n) { return node_retired(n); });
}

void RuntimeImpl::record_sample(Task* t, WorkerId w, double seconds)
{
    std::string arch =
        t->group_size > 1 ? "cpu_x" + std::to_string(t->group_size) : machine_.perf_arch(w);
    predictor_.record(shape_of(t), arch, seconds);
}

void RuntimeImpl::calibrate_bus()
{
    BusCalibrationInput in;
    std::ostringstream sig;  // what the links depend on: the nodes, then each driver's say
    sig << "nodes " << machine_.node_count();
    for (NodeId n = 1; n < machine_.node_count(); ++n)
        sig << (machine_.node(n).kind() == NodeKind::cuda ? " cuda" : " emu");
    for (auto const& driver : machine_.drivers()) sig << driver->link_signature(config_);
    in.signature = sig.str();
    for (NodeId n = 0; n < machine_.node_count(); ++n) in.devices.push_back(machine_.device(n));
    in.transfers = &machine_.transfers();
    in.directory = models_.directory();
    calibrate_bus_model(bus_, in);
    machine_.links().reset();  // calibration traffic is not the application's
}

}  // namespace tessera::rt::detail
