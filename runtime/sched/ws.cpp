// ws: work stealing. Each worker owns a deque: a task released by a worker goes on that
// worker's deque (its data is likely in that core's cache); the owner pops the newest (LIFO,
// depth first), an idle worker steals the oldest (FIFO) of a random victim. Priorities are
// ignored. Suits tree-shaped and irregular task graphs on identical cores.
#include "runtime/sched/builtin.hpp"
#include "runtime/sched/queue_mutex.hpp"
#include "runtime/sched/queues.hpp"

#include <atomic>
#include <mutex>
#include <random>
#include <vector>

namespace tessera::rt::detail {

namespace {
class WorkStealing final : public Policy {
public:
    std::string_view name() const noexcept override { return "ws"; }

    void init(PolicyHost& h) override
    {
        Policy::init(h);
        deques_ = std::vector<Deque>(h.worker_count());
    }

    void push(ReadyTask t) override
    {
        WorkerId w = t.released_by();
        if (w == no_worker || w >= deques_.size() || !t.can_run_on(w))
            w = next_able_worker(t, unsigned(deques_.size()), next_);
        {
            std::lock_guard lock(deques_[w].m);
            deques_[w].q.push_back(t);
        }
        host().wake_any(t);  // the owner or a thief
    }

    ReadyTask pop(WorkerId w) override
    {
        {
            std::lock_guard lock(deques_[w].m);
            if (ReadyTask t = take_last_runnable(deques_[w].q, w)) return t;  // newest first
        }
        return steal_round(unsigned(deques_.size()), w, [&](WorkerId v) {
            std::lock_guard lock(deques_[v].m);
            return take_first_runnable(deques_[v].q, w);  // oldest first
        });
    }

    std::vector<ReadyTask> withdraw(WorkerId w) override
    {
        std::lock_guard lock(deques_[w].m);
        std::vector<ReadyTask> out(deques_[w].q.begin(), deques_[w].q.end());
        deques_[w].q.clear();
        return out;
    }

private:
    struct Deque {
        QueueMutex m;
        std::deque<ReadyTask> q;
    };
    std::vector<Deque> deques_;
    std::atomic<unsigned> next_{0};
};
}  // namespace

std::unique_ptr<Policy> make_ws()
{
    return std::make_unique<WorkStealing>();
}

}  // namespace tessera::rt::detail
