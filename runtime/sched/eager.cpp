// eager (StarPU's greedy): one FIFO shared by all workers. A task with priority > 0 jumps to
// the head (binary priorities, thesis Fig. 3.7b). Simple, and fine when tasks are many.
#include "runtime/sched/builtin.hpp"
#include "runtime/sched/queue_mutex.hpp"
#include "runtime/sched/queues.hpp"

#include <mutex>

namespace tessera::rt::detail {

namespace {
class Eager final : public Policy {
public:
    std::string_view name() const noexcept override { return "eager"; }
    PriorityRange priorities() const noexcept override { return {0, 1}; }

    void push(ReadyTask t) override
    {
        {
            std::lock_guard lock(m_);
            if (t.priority() > 0)
                queue_.push_front(t);
            else
                queue_.push_back(t);
        }
        host().wake_any(t);
    }

    ReadyTask pop(WorkerId w) override
    {
        std::lock_guard lock(m_);
        return take_first_runnable(queue_, w);
    }

private:
    QueueMutex m_;
    std::deque<ReadyTask> queue_;
};
}  // namespace

std::unique_ptr<Policy> make_eager()
{
    return std::make_unique<Eager>();
}

}  // namespace tessera::rt::detail
