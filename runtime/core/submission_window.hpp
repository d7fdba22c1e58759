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
    void admit(bool throttled);
    /// Counts a completed task; wakes a throttled submitter once half the window is free, and
    /// those waiting for no task to be pending.
    void retire();
    /// Returns once no task is pending.
    void wait_until_empty() const;
    int64_t pending() const noexcept { return pending_.load(std::memory_order_relaxed); }

private:
    int64_t max_ = 0;
    std::atomic<int64_t> pending_{0};
    std::mutex m_;
    std::condition_variable cv_;
    std::atomic<bool> waiting_{false};
};

}  // namespace tessera::rt::detail
