// Where a task runs when several processes submit the same task flow (the MPI layer's owner
// computes, runtime/mpi/): a TaskPlacement installed on a runtime sees every task at
// submission and says whether this process runs it; the others are dropped at submission
// cost (Runtime::submit returns an empty TaskRef). The tasks a placement submits itself (its
// transfers) are not placed. Internal: libtessera_mpi installs one.
#pragma once

#include <tessera/rt/span.hpp>

#include <exception>
#include <span>

namespace tessera::rt::detail {

class TaskPlacement {
public:
    virtual ~TaskPlacement() = default;
    /// True to run the task of these buffers on this process. It may submit tasks first (the
    /// transfers of the task's inputs); it throws InvalidArgument to refuse the task.
    virtual bool runs_here(std::span<BufferSlot const> buffers) = 0;
    /// The task runs_here kept is submitted (its dependencies taken): the placement may submit
    /// what must follow it (the transfers of what it wrote back to their owners). Same thread.
    virtual void after_submission() = 0;
    /// A task of this process failed with `error` (its first failure; the cancellations it
    /// causes are not failures): the placement may tell the other processes. Called by the
    /// worker that ran the task.
    virtual void task_failed(std::exception_ptr const& error) noexcept = 0;
    /// The task flow will not read the data of `state` again before it writes it (a tile
    /// algorithm's panel after its last update; every process says so at the same point of
    /// the flow): the placement may forget this process's copy of another process's data,
    /// and with `reclaim` give its memory back. Nothing by default.
    virtual void release_copy(DataState* state, bool reclaim)
    {
        (void)state;
        (void)reclaim;
    }
};

/// While one lives on a thread, the tasks that thread submits are not placed: a placement's
/// own transfers, and those its owner submits outside runs_here (an explicit isend).
class Unplaced {
public:
    Unplaced() noexcept;
    ~Unplaced();
    Unplaced(Unplaced const&) = delete;
    Unplaced& operator=(Unplaced const&) = delete;
};

}  // namespace tessera::rt::detail
