// Where a task's data is valid, as the data-aware policies ask (the seed 001's Algorithms 2
// and 3): the bytes already on a worker's memory node, and who owns what the task writes.
#include "runtime/core/runtime_impl.hpp"
#include "runtime/data/data_state.hpp"

#include <mutex>

namespace tessera::rt::detail {

namespace {
// Whether buffers[i] repeats an earlier buffer of the task (a handle passed twice counts once).
bool seen_before(std::vector<BufferSlot> const& buffers, std::size_t i)
{
    for (std::size_t j = 0; j < i; ++j)
        if (buffers[j].state == buffers[i].state) return true;
    return false;
}
}  // namespace

std::size_t RuntimeImpl::valid_bytes(Task* t, WorkerId w)
{
    NodeId node = NodeId(machine_.worker(w).memory_node);
    std::size_t total = 0;
    for (std::size_t i = 0; i < t->buffers.size(); ++i) {
        BufferSlot const& b = t->buffers[i];
        if (!coherent(b.mode) || seen_before(t->buffers, i)) continue;
        DataState* d = b.state;
        std::lock_guard lock(d->cm);
        Replica const& r = d->replicas[node];
        if (r.state != Msi::invalid || r.busy) total += d->layout.bytes();
    }
    return total;
}

bool RuntimeImpl::owns_written_data(Task* t, WorkerId w)
{
    NodeId node = NodeId(machine_.worker(w).memory_node);
    for (BufferSlot const& b : t->buffers) {
        if (!writes(b.mode)) continue;
        DataState* d = b.state;
        std::lock_guard lock(d->cm);
        bool somewhere = false;
        for (NodeId k = 0; k < d->replicas.size() && !somewhere; ++k)
            somewhere = d->replicas[k].state != Msi::invalid && !node_retired(k);
        if (somewhere) return d->replicas[node].state != Msi::invalid;
    }
    return false;
}

}  // namespace tessera::rt::detail
