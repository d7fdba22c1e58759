// BoundQueues: per worker, the tasks that bypass the policy: those bound to it with
// on_worker(), and the members' aliases of a parallel task placed on a combined worker. A
// worker looks here before it asks its policy. Internal.
#pragma once

#include <tessera/rt/sched.hpp>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

namespace tessera::rt::detail {

class Task;

class BoundQueues {
public:
    /// One empty queue per worker (at start, before any task).
    void resize(unsigned workers) { queues_ = std::make_unique<Queue[]>(workers); }
    void push(WorkerId w, Task* t);
    /// t on every member, in one order on all of them: two parallel tasks never wait for each
    /// other's members.
    void push_to_all(std::vector<WorkerId> const& members, Task* t);
    /// The oldest task bound to w, or nullptr (without a lock when there is none).
    Task* pop(WorkerId w)
    {
        return queues_[w].nonempty.load(std::memory_order_acquire) ? pop_locked(w) : nullptr;
    }

private:
    Task* pop_locked(WorkerId w);

    struct alignas(64) Queue {
        std::mutex m;
        std::deque<Task*> q;
        std::atomic<bool> nonempty{false};
    };
    std::unique_ptr<Queue[]> queues_;
    std::mutex order_m_;
};

}  // namespace tessera::rt::detail
