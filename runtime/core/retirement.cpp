// Workers retired after a fault. A fault that corrupts a GPU's context (an illegal address,
// a trap: a "sticky" error) makes every later call on that GPU fail, for the rest of the
// process. Its worker leaves service for good instead of failing every task the policy
// gives it:
//
//   - the tasks it had in flight fail with the fault (even one whose kernel ran before it:
//     its results are on the GPU, which can no longer be read);
//   - what its queues hold goes back to the policy, which places it on the workers in service;
//   - a task that no worker in service can run (a CUDA-only codelet, a task bound to the GPU)
//     still goes to the retired worker, which fails it with DeviceError (or completes it as
//     cancelled, if it was): what depends on it is cancelled and the wait reports it, rather
//     than waiting for a worker that never comes;
//   - data whose only valid copy was on the GPU is lost: the tasks that read it fail, and
//     unregistering it reports the loss (coherency.cpp). Copies elsewhere are read instead.
#include "runtime/core/runtime_impl.hpp"

#include "runtime/drivers/cpu/cpu_driver.hpp"

#include <tessera/error.hpp>

#include <cstdio>
#include <string>

namespace tessera::rt::detail {

void RuntimeImpl::retire_worker(WorkerId w, std::string const& why)
{
    {
        std::lock_guard lock(retired_m_);
        if (retired_[w].load(std::memory_order_relaxed)) return;
        retired_why_[w] = why;
        retired_[w].store(true, std::memory_order_release);
    }
    any_retired_.store(true, std::memory_order_release);  // after the worker's own flag
    std::fprintf(stderr, "tessera: worker %u (%s) retired: %s; the other workers take its tasks\n",
                 w, machine_.perf_arch(w).c_str(), why.c_str());
    for (ReadyTask t : policy_->withdraw(w)) hand_back(Internals::task(t), w, false);
    // A push may have woken this worker alone for a task that now waits for the others, in a
    // shared queue or a deque they steal from: every sleeper looks again.
    parking_.wake_all();
}

bool RuntimeImpl::node_retired(NodeId n) const noexcept
{
    if (n == host_node || !any_retired_.load(std::memory_order_acquire)) return false;
    for (WorkerId w = 0; w < worker_count(); ++w)
        if (NodeId(machine_.worker(w).memory_node) == n && retired(w)) return true;
    return false;
}

void RuntimeImpl::hand_back(Task* t, WorkerId w, bool popped)
{
    if (!t->skips() && !can_run_on(t, w)) {  // a worker in service can: the policy places it there
        push(t);
        return;
    }
    // like any popped task, it starts and ends for the policy
    if (popped) policy_->on_start(Internals::adopt_task<ReadyTask>(t), w);
    if (t->skips()) {  // cancelled meanwhile (its group, a failed predecessor): no error of its own
        if (popped) policy_->on_complete(Internals::adopt_task<ReadyTask>(t), w);
        complete(t, w);
        return;
    }
    std::string why;
    {
        std::lock_guard lock(retired_m_);
        why = retired_why_[w];
    }
    fail(t, std::make_exception_ptr(DeviceError("task '" + std::string(t->ops->name(t->codelet)) +
                                                "': no worker in service can run it; worker " +
                                                std::to_string(w) + " (" + machine_.perf_arch(w) +
                                                ") was retired: " + why)));
    if (popped) policy_->on_complete(Internals::adopt_task<ReadyTask>(t), w);
    complete(t, w);  // cancels what depends on it
}

void retired_worker_loop(RuntimeImpl& rt, WorkerId w)
{
    Parking& parking = rt.parking();
    for (;;) {
        // registered before looking, so that a task queued for w after the look wakes it
        uint32_t ticket = parking.prepare_wait(w);
        bool any = false;
        for (ReadyTask t : rt.policy().withdraw(w)) {  // placed for w just before it retired
            rt.hand_back(Internals::task(t), w, false);
            any = true;
        }
        while (ReadyTask t = rt.pop(w)) {  // bound to w, or which no worker in service can run
            rt.hand_back(Internals::task(t), w, true);
            any = true;
        }
        if (any) {
            parking.cancel_wait(w);
        } else if (rt.stopping()) {
            parking.cancel_wait(w);
            return;
        } else {
            parking.commit_wait(w, ticket);
        }
    }
}

}  // namespace tessera::rt::detail
