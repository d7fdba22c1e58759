#include "runtime/core/bound_queues.hpp"

namespace tessera::rt::detail {

void BoundQueues::push(WorkerId w, Task* t)
{
    Queue& b = queues_[w];
    std::lock_guard lock(b.m);
    b.q.push_back(t);
    b.nonempty.store(true, std::memory_order_release);
}

void BoundQueues::push_to_all(std::vector<WorkerId> const& members, Task* t)
{
    std::lock_guard order(order_m_);
    for (WorkerId w : members) push(w, t);
}

Task* BoundQueues::pop_locked(WorkerId w)
{
    Queue& b = queues_[w];
    std::lock_guard lock(b.m);
    if (b.q.empty()) return nullptr;
    Task* t = b.q.front();
    b.q.pop_front();
    b.nonempty.store(!b.q.empty(), std::memory_order_release);
    return t;
}

}  // namespace tessera::rt::detail
