// One transfer of a handle's data between two ranks (rt::mpi::Context::isend, irecv): its
// staging buffer, where the pack task copies the data out or the unpack task copies it in
// (unless the message leaves from or lands in the handle's own memory), and what its
// completion does.
// Internal to libtessera_mpi.
#pragma once

#include <tessera/rt/access.hpp>

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace tessera::rt::mpi::detail {

class ProgressEngine;

/// An allocator whose vectors leave new elements uninitialized where value-initialization
/// would zero them: a message's bytes are written (by the pack task, or by MPI) before they
/// are read, and a receive's buffer, allocated when the receive is submitted, is backed by
/// pages only once its message arrives.
template <class T> struct UninitializedAllocator : std::allocator<T> {
    template <class U> struct rebind {
        using other = UninitializedAllocator<U>;
    };
    UninitializedAllocator() = default;
    template <class U> UninitializedAllocator(UninitializedAllocator<U> const&) noexcept {}
    template <class U> void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
    template <class U, class... Args> void construct(U* p, Args&&... args)
    {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
using Bytes = std::vector<std::byte, UninitializedAllocator<std::byte>>;

struct Message {
    /// Point to point on the data communicator; collectives on it (barrier, the max of a few
    /// integers, its renewal after an aborted epoch); a failure's notice on the control one.
    enum class Kind { send, receive, barrier, reduce_max, renew, notice_send, notice_receive };
    Kind kind = Kind::send;
    int peer = 0;  // the destination of a send, the source of a receive
    int tag = 0;
    Bytes buffer;                    // reduce_max: the uint64_t values, reduced in place
    std::size_t expected_bytes = 0;  // a receive: the handle's bytes
    std::function<void()> on_sent;   // a send: run by the progress thread once MPI has the data
    // A send from the handle's own memory (a contiguous handle at home on the host): its pack
    // task gives MPI `data` instead of copying it into `buffer`, and its hold task keeps the
    // handle's writers waiting until `sent` is notified, once MPI no longer reads it.
    // A receive into the handle's own memory (the same handles): its claim task, which runs
    // once the tasks before it are done with the handle, sets `landing`; a message that
    // arrives after it is received there, and the unpack task, next in the handle's flow,
    // copies nothing. One that arrives before goes through `buffer`.
    bool in_place = false;
    void const* data = nullptr;           // set by the pack task, `bytes` long
    std::atomic<void*> landing{nullptr};  // set by the claim task
    bool landed = false;                  // the progress thread received it at `landing`
    std::size_t bytes = 0;
    TagId sent = 0;       // notified exactly once, when the send completes, fails or is dropped
    TagId hold = 0;       // the hold task's tag, which waits for `sent`
    TagId arrived = 0;    // a receive: notified when the message is in `buffer` or landed
    TagId unpack = 0;     // a receive: the unpack task's tag, which waits for `arrived`
    bool orphan = false;  // a receive of an aborted epoch's message, made to drop it
    bool packed = false;  // a send: its buffer holds the data (under the engine's lock)
    std::atomic<bool> done{false};  // MPI completed it (or failed it)
    std::string error;              // MPI's error, written before `done` and `arrived`
    MPI_Request request = MPI_REQUEST_NULL;
    ProgressEngine* engine = nullptr;  // a send: told when its buffer is packed
};

}  // namespace tessera::rt::mpi::detail
