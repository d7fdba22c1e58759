// The CPU driver: the loop of a worker thread bound to a core. Internal.
#pragma once

#include <tessera/rt/sched.hpp>

namespace tessera::rt::detail {

class RuntimeImpl;

/// Pops and runs tasks for worker w until the runtime stops; sleeps when there is nothing.
void cpu_worker_loop(RuntimeImpl& rt, WorkerId w);

}  // namespace tessera::rt::detail
