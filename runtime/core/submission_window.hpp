// SubmissionWindow: the count of tasks submitted and not yet completed, and the throttle on
// the application thread (RuntimeConfig::max_pending_tasks, as StarPU's
// STARPU_LIMIT_MAX_SUBMITTED_TASKS): past `max` pending tasks it sleeps until half of them have
// completed, so that a loop submitting millions of tasks keeps bounded memory. Internal.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace tessera::rt::detail {

class SubmissionWindow {
public:
    /// `max` 0: no limit.
    void set_limit(int64_t max) noexcept { max_ = max; }
    /// Counts a submitted task. With `throttled` (the application's own submissions: never a
    /// worker's or the runtime's, which must not block) sleeps while the window is full.
    void admit(bool throttled)
    {
        int64_t n = pending_.fetch_add(1, std::memory_order_seq_cst) + 1;
        if (throttled && max_ > 0 && n > max_) wait_for_room();
    }
    /// Counts a completed task; wakes a throttled submitter once half the window is free, and
    /// those waiting for no task to be pending.
    void retire()
    {
        int64_t left = pending_.fetch_sub(1, std::memory_order_seq_cst) - 1;
        if (left == 0) pending_.notify_all();
        if (waiting_.load(std::memory_order_seq_cst) && left <= max_ / 2) wake_submitter();
    }
    /// Returns once no task is pending.
    void wait_until_empty() const;
    int64_t pending() const noexcept { return pending_.load(std::memory_order_relaxed); }

private:
    void wait_for_room();
    void wake_submitter();

    int64_t max_ = 0;
    std::atomic<int64_t> pending_{0};
    std::mutex m_;
    std::condition_variable cv_;
    std::atomic<bool> waiting_{false};
};

}  // namespace tessera::rt::detail
