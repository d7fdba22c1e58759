// The CPU driver: the loop of a worker thread. CPU workers run it pinned to their core; an
// emulated accelerator's worker runs it too, on its own memory node. Internal.
#pragma once

#include <tessera/rt/sched.hpp>

namespace tessera::rt::detail {

class RuntimeImpl;

/// Pops and runs tasks for worker w until the runtime stops; sleeps when there is nothing.
void worker_loop(RuntimeImpl& rt, WorkerId w);

}  // namespace tessera::rt::detail
