// Task queues shared by the built-in policies. Not thread-safe: each policy locks around them.
#pragma once

#include <tessera/rt/sched.hpp>

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <vector>

namespace tessera::rt::detail {

/// The first task of `q` (from the front) that worker w can run, removed; or an empty task.
template <class Deque>
ReadyTask take_first_runnable(Deque& q, WorkerId w)
{
    for (auto it = q.begin(); it != q.end(); ++it) {
        if (it->can_run_on(w)) {
            ReadyTask t = *it;
            q.erase(it);
            return t;
        }
    }
    return {};
}

/// Round robin over the workers able to run t: where work-stealing policies put the tasks that
/// the application (not a worker) made ready.
inline WorkerId next_able_worker(ReadyTask t, unsigned workers, std::atomic<unsigned>& cursor)
{
    for (unsigned i = 0; i < workers; ++i) {
        WorkerId w = cursor.fetch_add(1, std::memory_order_relaxed) % workers;
        if (t.can_run_on(w)) return w;
    }
    return 0;
}

/// Highest priority first, oldest first among equals (a bucket per distinct priority).
class PriorityQueue {
public:
    void push(ReadyTask t) { buckets_[t.priority()].push_back(t); ++size_; }
    /// The best task worker w can run, removed; or an empty task.
    ReadyTask pop_for(WorkerId w)
    {
        for (auto b = buckets_.begin(); b != buckets_.end(); ++b) {
            if (ReadyTask t = take_first_runnable(b->second, w)) {
                if (b->second.empty()) buckets_.erase(b);
                --size_;
                return t;
            }
        }
        return {};
    }
    /// Every task, removed, best first.
    std::vector<ReadyTask> take_all()
    {
        std::vector<ReadyTask> out;
        out.reserve(size_);
        for (auto& [priority, tasks] : buckets_) out.insert(out.end(), tasks.begin(), tasks.end());
        buckets_.clear();
        size_ = 0;
        return out;
    }
    bool empty() const noexcept { return size_ == 0; }
    std::size_t size() const noexcept { return size_; }

private:
    std::map<int, std::deque<ReadyTask>, std::greater<int>> buckets_;
    std::size_t size_ = 0;
};

}  // namespace tessera::rt::detail
