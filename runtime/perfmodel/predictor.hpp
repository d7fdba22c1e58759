// Predictor: what the runtime predicts for its schedulers, from the inputs it is given (no
// runtime internals): a kernel's length on an architecture (its performance model, else its
// flops at the architecture's measured speed), the time to bring a task's data to a memory
// node (the bus model), and the measurements that feed the models. Internal.
#pragma once

#include "runtime/data/data_state.hpp"
#include "runtime/perfmodel/bus.hpp"
#include "runtime/perfmodel/store.hpp"

#include <tessera/rt/codelet.hpp>
#include <tessera/rt/perfmodel.hpp>
#include <tessera/rt/span.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <span>
#include <string>

namespace tessera::rt::detail {

/// A codelet task's kernel, as the predictor sees it: `args` over its registered buffers,
/// `footprint` the task's own (computed here on first use).
struct KernelShape {
    CodeletOps const* ops;
    void const* codelet;
    KernelArgs args;
    std::span<BufferSlot const> buffers;
    Footprint& footprint;
};

class Predictor {
public:
    Predictor(ModelStore& models, BusModel const& bus) : models_(models), bus_(bus) {}

    /// The kernel's length on `arch`, a unit `unit_speed` times as fast as a core before its
    /// models know better.
    Prediction length(KernelShape const& k, std::string const& arch, double unit_speed);
    /// Whether a measured run of the kernel teaches the models anything: it has a performance
    /// model or a flop count (the flop rate of its architecture).
    static bool learns_from(KernelShape const& k)
    {
        return k.ops->model(k.codelet) || k.ops->flops(k.codelet, k.args) >= 0;
    }
    /// A measured run of the kernel on `arch`.
    void record(KernelShape const& k, std::string const& arch, double seconds);
    /// Seconds to bring what `buffers` read to `node` from the best valid replica of each, not
    /// counting a replica there or on its way, nor one on a node `unreadable` says is lost.
    template <class Unreadable>
    double fetch_time(std::span<BufferSlot const> buffers, NodeId node,
                      Unreadable const& unreadable) const
    {
        double total = 0;
        for (std::size_t i = 0; i < buffers.size(); ++i) {
            BufferSlot const& b = buffers[i];
            if (!reads(b.mode)) continue;
            bool first = true;
            for (std::size_t j = 0; j < i; ++j) first = first && buffers[j].state != b.state;
            if (!first) continue;
            DataState* d = b.state;
            std::lock_guard lock(d->cm);
            Replica const& r = d->replicas[node];
            if (r.state != Msi::invalid || r.busy)
                continue;  // there, or on its way: costs nothing more
            double best = std::numeric_limits<double>::infinity();
            for (NodeId k = 0; k < d->replicas.size(); ++k)
                if (d->replicas[k].state != Msi::invalid &&
                    !unreadable(k))  // never a faulted GPU's
                    best = std::min(best, bus_.time(k, node, double(d->layout.bytes())));
            if (std::isfinite(best)) total += best;
        }
        return total;
    }

private:
    ModelStore& models_;
    BusModel const& bus_;
};

}  // namespace tessera::rt::detail
