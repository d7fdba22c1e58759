// The CPU driver: the host memory node, one worker per core, each pinned to its core, running
// the codelets' CPU implementations. Its loop (worker_loop) and the way an idle worker sleeps
// (sleep_until_work) serve the other drivers too. Internal.
#pragma once

#include "runtime/drivers/driver.hpp"

#include <tessera/rt/sched.hpp>

#include <memory>

namespace tessera::rt::detail {

class RuntimeImpl;

std::unique_ptr<Driver> make_cpu_driver();

/// Pops and runs tasks for worker w until the runtime stops; sleeps when there is nothing.
void worker_loop(RuntimeImpl& rt, WorkerId w);

/// What an idle worker does (every driver): registers as idle, looks for a task once more and
/// returns it, else sleeps until woken (see Parking) and returns none. `stop` becomes true
/// when the runtime stops instead.
ReadyTask sleep_until_work(RuntimeImpl& rt, WorkerId w, bool& stop);

}  // namespace tessera::rt::detail
