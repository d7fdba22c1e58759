#include "runtime/core/task_data.hpp"

#include "runtime/core/runtime_impl.hpp"
#include "runtime/data/coherency.hpp"
#include "runtime/data/data_state.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <memory>
#include <string>

namespace tessera::rt::detail {

TaskData::TaskData(RuntimeImpl& rt, Task* t, WorkerId w, NodeId node, CudaContext const* cuda,
                   MemoryNode::Wait wait, KeepUntilEnd* keep)
    : rt_(rt), t_(t), node_(node), cuda_(cuda), keep_(keep), wait_(wait),
      slots_(t->running_buffers), acquired_(t->acquired)
{
    slots_.assign(t->buffers.begin(), t->buffers.end());
    acquired_.clear();
    require_room_for_all();
    try {
        for (std::size_t i = 0; i < t->buffers.size(); ++i) bind(i, w);
    } catch (...) {
        unbind();
        throw;
    }
    if (has_data_) rt_.machine().node(node_).count_task(!missed_);
}

TaskData::~TaskData()
{
    unbind();
}

void TaskData::bind(std::size_t i, WorkerId w)
{
    BufferSlot& b = slots_[i];
    DataState* d = b.state;
    for (std::size_t j = 0; j < i; ++j) {  // the same handle again: the same replica
        if (slots_[j].state == d) {
            b.ptr = slots_[j].ptr;
            b.layout = slots_[j].layout;
            bound_ = i + 1;
            return;
        }
    }
    if (b.mode == Mode::SCRATCH) {
        b.ptr = allocate(d->layout.bytes());
        b.layout = &d->scratch_layout;
    } else if (b.mode == Mode::REDUX) {
        b.ptr = private_copy(d, w);
        b.layout = &d->scratch_layout;
    } else {
        Mode merged{};
        for (BufferSlot const& o : t_->buffers)
            if (o.state == d) merged = Mode(uint8_t(merged) | uint8_t(o.mode));
        Replica& r = acquire_replica(d, node_, merged, wait_, &missed_);
        has_data_ = true;
        b.ptr = r.ptr;
        b.layout = &r.layout;
        acquired_.push_back({d, merged});
    }
    bound_ = i + 1;
}

void TaskData::require_room_for_all() const
{
    const std::size_t capacity = rt_.machine().node(node_).capacity();
    if (capacity == 0) return;
    std::size_t bytes = 0;  // each handle once: a handle passed twice has one buffer
    for (std::size_t i = 0; i < slots_.size(); ++i)
        if (std::none_of(slots_.begin(), slots_.begin() + std::ptrdiff_t(i),
                         [&](BufferSlot const& o) { return o.state == slots_[i].state; }))
            bytes += slots_[i].state->layout.bytes();
    if (bytes > capacity)
        throw Error("task '" + std::string(t_->ops->name(t_->codelet)) + "': its data, " +
                    std::to_string(bytes) + " bytes together, can never fit in memory node " +
                    std::to_string(node_) + "'s " + std::to_string(capacity) + " bytes");
}

void* TaskData::allocate(std::size_t bytes)
{
    void* p = rt_.machine().node(node_).allocate(bytes, wait_);
    if (!p) throw NoRoomNow(node_, bytes);
    return p;
}

void* TaskData::private_copy(DataState* d, WorkerId w)
{
    {
        std::lock_guard lock(d->cm);
        if (d->private_copies.size() <= w) d->private_copies.resize(rt_.worker_count());
        if (d->private_copies[w].ptr) return d->private_copies[w].ptr;
    }
    void* p = allocate(d->layout.bytes());
    // the neutral element, by the init codelet, on this worker
    BufferSlot slot{d, p, &d->scratch_layout, Mode::W};
    KernelArgs args{&slot, nullptr, cuda_};
    Arch arch = rt_.worker(w).arch;
    ReductionMethods const& red = d->reduction;
    unsigned n = red.init_ops->implementations(red.init, arch);
    if (n == 0) {
        rt_.machine().node(node_).release(p, d->layout.bytes());
        throw InvalidArgument("reduce: the init codelet '" +
                              std::string(red.init_ops->name(red.init)) + "' has no " +
                              std::string(to_string(arch)) + " implementation");
    }
    try {
        red.init_ops->run(red.init, arch, 0, args);
    } catch (...) {
        // The buffer is no one's: back to the node, on a GPU once the stream has passed the
        // task's end (the init may have queued kernels before it failed), else at once.
        MemoryNode& node = rt_.machine().node(node_);
        std::shared_ptr<void> back(
            p, [&node, bytes = d->layout.bytes()](void* q) { node.release(q, bytes); });
        if (keep_) keep_->push_back([back] {});  // held, not run, by a failed task until its end
        throw;
    }
    std::lock_guard lock(d->cm);
    d->private_copies[w] = PrivateCopy{p, node_};
    return p;
}

void TaskData::unbind() noexcept
{
    for (std::size_t i = 0; i < bound_; ++i) {
        BufferSlot const& b = slots_[i];
        bool first = std::none_of(slots_.begin(), slots_.begin() + std::ptrdiff_t(i),
                                  [&](BufferSlot const& o) { return o.state == b.state; });
        if (first && b.mode == Mode::SCRATCH)
            rt_.machine().node(node_).release(b.ptr, b.state->layout.bytes());
    }
    for (auto const& [d, mode] : acquired_) release_replica(d, node_, mode);
    acquired_.clear();
    bound_ = 0;
}

}  // namespace tessera::rt::detail
