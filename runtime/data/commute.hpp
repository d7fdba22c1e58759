// COMMUTE arbitration: tasks that access a handle in COMMUTE mode may run in any order, but
// never two at once. The order is decided at run time: a task about to run takes each of its
// COMMUTE handles (in address order, so that two tasks never wait for each other) or, finding
// one held, gives back what it took and waits in that handle's list; the holder, when it ends,
// hands its waiters back to be pushed again. Internal.
#pragma once

#include <tessera/rt/span.hpp>

#include <span>
#include <vector>

namespace tessera::rt::detail {

class Task;

inline bool has_commute(std::span<BufferSlot const> buffers) noexcept
{
    for (BufferSlot const& b : buffers)
        if (b.mode == Mode::COMMUTE) return true;
    return false;
}

bool take_commute_handles_slow(Task* t, std::span<BufferSlot const> buffers);
void give_back_commute_handles_slow(Task* t, std::span<BufferSlot const> buffers,
                                    std::vector<Task*>& waiters);

/// Takes every COMMUTE handle among `buffers` for task t; false if one is held (t then waits
/// in its list and holds none).
inline bool take_commute_handles(Task* t, std::span<BufferSlot const> buffers)
{
    return !has_commute(buffers) || take_commute_handles_slow(t, buffers);
}

/// Lets go of the COMMUTE handles t holds; appends the tasks that waited for them to `waiters`.
inline void give_back_commute_handles(Task* t, std::span<BufferSlot const> buffers,
                                      std::vector<Task*>& waiters)
{
    if (has_commute(buffers)) give_back_commute_handles_slow(t, buffers, waiters);
}

}  // namespace tessera::rt::detail
