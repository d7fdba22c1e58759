// TaskData: the data of a task on one memory node, for the time of its kernel: coherent
// buffers valid there, scratch buffers from the node's allocation cache, REDUX buffers the
// worker's private copy (created and initialized on first use). The kernel gets slots() (the
// task's own slots keep describing the registered data: a policy may still read them
// meanwhile). Its lists live in the task (Task::running_buffers, Task::acquired), whose pool
// keeps their capacity: running a task allocates nothing in steady state. Constructing it may block while data arrives; destroying it lets the data go.
// Internal.
#pragma once

#include "runtime/core/task.hpp"
#include "runtime/data/memory_node.hpp"

#include <tessera/rt/codelet.hpp>
#include <tessera/rt/memory.hpp>
#include <tessera/rt/sched.hpp>

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

namespace tessera::rt::detail {

class RuntimeImpl;

class TaskData {
public:
    /// Where a driver that runs kernels asynchronously keeps what the kernels the task queued
    /// may still use until the task ends (the CUDA worker's completion functions).
    using KeepUntilEnd = std::vector<std::function<void()>>;

    /// `cuda`: the CUDA worker's context (for a REDUX buffer's init codelet), else nullptr;
    /// `keep`: its KeepUntilEnd (nullptr: kernels run synchronously, nothing outlives them).
    /// `wait`: Wait::no throws NoRoomNow (having let go what it had bound) where the node has
    /// no room now, instead of waiting for some.
    TaskData(RuntimeImpl& rt, Task* t, WorkerId w, NodeId node, CudaContext const* cuda = nullptr,
             MemoryNode::Wait wait = MemoryNode::Wait::yes, KeepUntilEnd* keep = nullptr);
    ~TaskData();
    TaskData(TaskData const&) = delete;
    TaskData& operator=(TaskData const&) = delete;
    BufferSlot const* slots() const noexcept { return slots_.data(); }

private:
    // Throws Error when the task's data together exceed the node's capacity: it would wait
    // forever for room that its own buffers take.
    void require_room_for_all() const;
    void bind(std::size_t i, WorkerId w);
    void* allocate(std::size_t bytes);
    void* private_copy(DataState* d, WorkerId w);
    void unbind() noexcept;

    RuntimeImpl& rt_;
    Task* t_;
    NodeId node_;
    CudaContext const* cuda_;
    KeepUntilEnd* keep_;
    MemoryNode::Wait wait_;
    std::vector<BufferSlot>& slots_;  // t->running_buffers
    std::size_t bound_ = 0;
    bool has_data_ = false;  // a buffer went through coherency
    bool missed_ = false;    // one of them was not valid here yet (NodeHitStats)
    std::vector<std::pair<DataState*, Mode>>& acquired_;  // t->acquired
};

}  // namespace tessera::rt::detail
