// random (the thesis' w-rand, §3.3.2): each task goes to worker k with probability
// s_k / Σ s_i, where s is the worker's relative speed; each worker then runs its own queue in
// priority order. Fully decentralized: no shared queue to contend on.
#include "runtime/sched/builtin.hpp"
#include "runtime/sched/queue_mutex.hpp"
#include "runtime/sched/queues.hpp"

#include <climits>
#include <mutex>
#include <random>
#include <vector>

namespace tessera::rt::detail {

namespace {
class Random final : public Policy {
public:
    std::string_view name() const noexcept override { return "random"; }
    PriorityRange priorities() const noexcept override { return {INT_MIN, INT_MAX}; }

    void init(PolicyHost& h) override
    {
        Policy::init(h);
        queues_ = std::vector<Queue>(h.worker_count());
    }

    void push(ReadyTask t) override
    {
        WorkerId w = draw(t);
        {
            std::lock_guard lock(queues_[w].m);
            queues_[w].q.push(t);
        }
        host().wake(w);
    }

    ReadyTask pop(WorkerId w) override
    {
        std::lock_guard lock(queues_[w].m);
        return queues_[w].q.pop_for(w);
    }

    std::vector<ReadyTask> withdraw(WorkerId w) override
    {
        std::lock_guard lock(queues_[w].m);
        return queues_[w].q.take_all();
    }

private:
    /// The first able worker k with Σ_{i<=k} s_i > r, r uniform in [0, Σ s_i) (able workers only).
    WorkerId draw(ReadyTask t)
    {
        thread_local std::minstd_rand rng{std::random_device{}()};
        double total = 0;
        unsigned n = host().worker_count();
        for (WorkerId w = 0; w < n; ++w)
            if (t.can_run_on(w)) total += host().worker(w).speed;
        double r = std::uniform_real_distribution<double>(0, total)(rng);
        WorkerId last = 0;
        for (WorkerId w = 0; w < n; ++w) {
            if (!t.can_run_on(w)) continue;
            last = w;
            r -= host().worker(w).speed;
            if (r < 0) return w;
        }
        return last;  // rounding
    }

    struct Queue {
        QueueMutex m;
        PriorityQueue q;
    };
    std::vector<Queue> queues_;
};
}  // namespace

std::unique_ptr<Policy> make_random()
{
    return std::make_unique<Random>();
}

}  // namespace tessera::rt::detail
