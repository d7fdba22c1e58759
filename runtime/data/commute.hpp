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

/// Takes every COMMUTE handle among `buffers` for task t; false if one is held (t then waits
/// in its list and holds none).
bool take_commute_handles(Task* t, std::span<BufferSlot const> buffers);

/// Lets go of the COMMUTE handles t holds; returns the tasks that waited for them.
std::vector<Task*> give_back_commute_handles(Task* t, std::span<BufferSlot const> buffers);

}  // namespace tessera::rt::detail
