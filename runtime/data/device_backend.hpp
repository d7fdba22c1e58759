// DeviceBackend: what a memory node backed by a real device (a GPU) does differently from
// host memory: how its buffers are allocated and freed, and how bytes are copied to and from
// it. The host and the emulated accelerators have none (ordinary memory, memcpy); the CUDA
// driver implements it for each GPU. No device headers here: core code calls it blind. Internal.
#pragma once

#include "runtime/data/transfer.hpp"

#include <cstddef>
#include <functional>

namespace tessera::rt::detail {

class DeviceBackend {
public:
    virtual ~DeviceBackend() = default;
    /// `bytes` of device memory, or nullptr when the device has no room (the node then
    /// evicts and retries). Throws DeviceError for any other failure (a faulted device).
    virtual void* allocate(std::size_t bytes) = 0;
    virtual void free(void* p) noexcept = 0;
    /// The copies a transfer channel may have started on one direction's stream and not yet
    /// finished: their slots are 0 .. copies_in_flight - 1.
    static constexpr unsigned copies_in_flight = 4;
    /// Queues copy r (one end, or both, on this device) on `path`'s stream and returns without
    /// waiting for it. Once the copy has ended, arrived or failed, calls `ended` exactly once,
    /// from a thread of the device's driver (it only signals: no device calls); finish_copy
    /// then tells which. Called from that direction's channel thread only, with a slot whose
    /// last copy has finished. Throws DeviceError, and then never calls `ended`.
    virtual void start_copy(TransferRequest const& r, CopyPath path, unsigned slot,
                            std::function<void()> ended) = 0;
    /// Called once the copy started in `slot` of `path` has ended: throws DeviceError when it
    /// failed.
    virtual void finish_copy(CopyPath path, unsigned slot) = 0;
    /// Has the copy started in `slot` of `path` ended, arrived or failed? Asks without waiting:
    /// the channel's fallback should the call to `ended` be overdue.
    virtual bool copy_has_ended(CopyPath path, unsigned slot) noexcept = 0;
    /// Returns once every `ended` of the copies started so far has been called. The transfer
    /// engine calls it after its channel threads have stopped and before the channels go: an
    /// announcement overdue (the copy found ended by asking) must not reach a channel that is
    /// gone.
    virtual void await_announcements() noexcept = 0;
    /// Copies r from the calling thread, any thread, and returns once the data has arrived
    /// (an eviction's write-back, the bus calibration). Throws DeviceError.
    virtual void copy_now(TransferRequest const& r) = 0;
    /// Can this device read and write node `other`'s memory directly (peer access)?
    virtual bool reaches(DeviceBackend const& other) const noexcept = 0;

    /// Set by the runtime once the device's memory node exists (MemoryNode::reclaim): frees
    /// at least `bytes` of the node's unused memory if it can, for what the device allocates
    /// outside the node (workspaces). True if anything was freed.
    std::function<bool(std::size_t)> reclaim_node_memory;
};

}  // namespace tessera::rt::detail
