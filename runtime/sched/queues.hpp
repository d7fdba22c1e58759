// Task queues shared by the built-in policies. Not thread-safe: each policy locks around them.
#pragma once

#include <tessera/rt/sched.hpp>

#include <algorithm>
#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <random>
#include <vector>

namespace tessera::rt::detail {

/// The first task of `q` (from the front) that worker w can run, removed; or an empty task.
template <class Deque> ReadyTask take_first_runnable(Deque& q, WorkerId w)
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

/// The last task of `q` (the newest) that worker w can run, removed; or an empty task: what a
/// work-stealing deque's owner takes (depth first).
template <class Deque> ReadyTask take_last_runnable(Deque& q, WorkerId w)
{
    for (auto it = q.rbegin(); it != q.rend(); ++it) {
        if (it->can_run_on(w)) {
            ReadyTask t = *it;
            q.erase(std::next(it).base());
            return t;
        }
    }
    return {};
}

/// A thief's round: the workers other than w, from a random one on, until `take(v)` gives a
/// task (or an empty task when none did).
template <class Take> ReadyTask steal_round(unsigned workers, WorkerId w, Take take)
{
    thread_local std::minstd_rand rng{std::random_device{}()};
    unsigned start = unsigned(rng() % workers);
    for (unsigned i = 0; i < workers; ++i) {
        WorkerId v = (start + i) % workers;
        if (v == w) continue;
        if (ReadyTask t = take(v)) return t;
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

/// Highest priority first, oldest first among equals (a bucket per distinct priority). Each
/// bucket also sums its tasks' predicted lengths (ReadyTask::predicted, set before the push).
class PriorityQueue {
public:
    void push(ReadyTask t)
    {
        Bucket& b = buckets_[t.priority()];
        b.tasks.push_back(t);
        b.predicted += t.predicted();
        ++size_;
    }
    /// The best task worker w can run, removed; or an empty task.
    ReadyTask pop_for(WorkerId w)
    {
        for (auto b = buckets_.begin(); b != buckets_.end(); ++b) {
            if (ReadyTask t = take_first_runnable(b->second.tasks, w)) {
                if (b->second.tasks.empty())
                    buckets_.erase(b);  // no rounding left behind
                else
                    b->second.predicted = std::max(0.0, b->second.predicted - t.predicted());
                --size_;
                return t;
            }
        }
        return {};
    }
    /// The predicted seconds of the tasks that pop_for takes before one of priority p: those
    /// of priority p (older) or higher.
    double predicted_ahead_of(int p) const
    {
        double ahead = 0;
        for (auto b = buckets_.begin(); b != buckets_.end() && b->first >= p; ++b)
            ahead += b->second.predicted;
        return ahead;
    }
    /// Every task, removed, best first.
    std::vector<ReadyTask> take_all()
    {
        std::vector<ReadyTask> out;
        out.reserve(size_);
        for (auto& [priority, b] : buckets_) out.insert(out.end(), b.tasks.begin(), b.tasks.end());
        buckets_.clear();
        size_ = 0;
        return out;
    }
    bool empty() const noexcept { return size_ == 0; }
    std::size_t size() const noexcept { return size_; }

private:
    struct Bucket {
        std::deque<ReadyTask> tasks;
        double predicted = 0;  // seconds
    };
    std::map<int, Bucket, std::greater<int>> buckets_;
    std::size_t size_ = 0;
};

}  // namespace tessera::rt::detail
