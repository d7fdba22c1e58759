// prio: one shared queue ordered by priority over the whole int range, FIFO among equal
// priorities (thesis Fig. 3.7c).
#include "runtime/sched/builtin.hpp"
#include "runtime/sched/queue_mutex.hpp"
#include "runtime/sched/queues.hpp"

#include <climits>
#include <mutex>

namespace tessera::rt::detail {

namespace {
class Prio final : public Policy {
public:
    std::string_view name() const noexcept override { return "prio"; }
    PriorityRange priorities() const noexcept override { return {INT_MIN, INT_MAX}; }

    void push(ReadyTask t) override
    {
        {
            std::lock_guard lock(m_);
            queue_.push(t);
        }
        host().wake_any(t);
    }

    ReadyTask pop(WorkerId w) override
    {
        std::lock_guard lock(m_);
        return queue_.pop_for(w);
    }

private:
    QueueMutex m_;
    PriorityQueue queue_;
};
}  // namespace

std::unique_ptr<Policy> make_prio()
{
    return std::make_unique<Prio>();
}

}  // namespace tessera::rt::detail
