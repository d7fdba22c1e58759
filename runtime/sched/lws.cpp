// lws: locality work stealing. A task stays on the worker whose completing task released it
// (its inputs are hot in that core's caches); each worker runs its own queue in priority
// order; an idle worker steals from the other workers closest to it in the machine's topology
// first (sharing a cache, then a NUMA node), taking their highest-priority task.
#include "runtime/sched/builtin.hpp"
#include "runtime/sched/queue_mutex.hpp"
#include "runtime/sched/queues.hpp"

#include <atomic>
#include <climits>
#include <mutex>
#include <vector>

namespace tessera::rt::detail {

namespace {
class LocalityWorkStealing final : public Policy {
public:
    std::string_view name() const noexcept override { return "lws"; }
    PriorityRange priorities() const noexcept override { return {INT_MIN, INT_MAX}; }

    void init(PolicyHost& h) override
    {
        Policy::init(h);
        queues_ = std::vector<Queue>(h.worker_count());
        victims_.resize(h.worker_count());
        for (WorkerId w = 0; w < h.worker_count(); ++w) victims_[w] = h.neighbours(w);
    }

    void push(ReadyTask t) override
    {
        WorkerId w = t.released_by();
        if (w == no_worker || w >= queues_.size() || !t.can_run_on(w))
            w = next_able_worker(t, unsigned(queues_.size()), next_);
        {
            std::lock_guard lock(queues_[w].m);
            queues_[w].q.push(t);
        }
        host().wake_any(t);
    }

    ReadyTask pop(WorkerId w) override
    {
        {
            std::lock_guard lock(queues_[w].m);
            if (ReadyTask t = queues_[w].q.pop_for(w)) return t;
        }
        for (WorkerId v : victims_[w]) {
            std::lock_guard lock(queues_[v].m);
            if (ReadyTask t = queues_[v].q.pop_for(w)) return t;
        }
        return {};
    }

    std::vector<ReadyTask> withdraw(WorkerId w) override
    {
        std::lock_guard lock(queues_[w].m);
        return queues_[w].q.take_all();
    }

private:
    struct Queue {
        QueueMutex m;
        PriorityQueue q;
    };
    std::vector<Queue> queues_;
    std::vector<std::vector<WorkerId>> victims_;
    std::atomic<unsigned> next_{0};
};
}  // namespace

std::unique_ptr<Policy> make_lws()
{
    return std::make_unique<LocalityWorkStealing>();
}

}  // namespace tessera::rt::detail
