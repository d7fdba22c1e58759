// The CPU driver: the loop of a worker thread. CPU workers run it pinned to their core; an
// emulated accelerator's worker runs it too, on its own memory node. Internal.
#pragma once

#include <tessera/rt/sched.hpp>

namespace tessera::rt::detail {

class RuntimeImpl;

/// Pops and runs tasks for worker w until the runtime stops; sleeps when there is nothing.
void worker_loop(RuntimeImpl& rt, WorkerId w);

/// What an idle worker does (every driver): registers as idle, looks for a task once more and
/// returns it, else sleeps until woken (see Parking) and returns none. `stop` becomes true
/// when the runtime stops instead.
ReadyTask sleep_until_work(RuntimeImpl& rt, WorkerId w, bool& stop);

}  // namespace tessera::rt::detail
