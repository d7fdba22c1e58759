// Parking: idle workers sleep and are woken one at a time, never spin (these machines have 2
// cores: a spinning worker would steal the core of the one doing real work). Internal.
//
// Protocol (an event count): a worker that found nothing to do calls prepare_wait(), pops
// once more, then either cancel_wait() (it found a task) or commit_wait() (it sleeps). A
// pusher queues its task, then calls wake(w) or wake_one(pred). Because the worker registers
// as idle before its second pop and the pusher checks for idle workers after queueing, one of
// them always sees the other: no wake-up is lost.
#pragma once

#include <tessera/rt/sched.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace tessera::rt::detail {

class Parking {
public:
    explicit Parking(unsigned workers = 0);
    void resize(unsigned workers);

    /// Worker w registers as idle; returns the ticket for commit_wait.
    uint32_t prepare_wait(WorkerId w);
    /// Worker w found work after prepare_wait.
    void cancel_wait(WorkerId w);
    /// Worker w sleeps until woken after prepare_wait (returns at once if it already was).
    void commit_wait(WorkerId w, uint32_t ticket);

    /// Wakes w if it is idle.
    void wake(WorkerId w) noexcept;
    /// Wakes one idle worker satisfying `able` (the most recently idle one, whose caches are
    /// warmest). Returns false if none was idle and able.
    template <class Pred> bool wake_one(Pred&& able) noexcept
    {
        std::atomic_thread_fence(std::memory_order_seq_cst);
        if (idle_count_.load(std::memory_order_relaxed) == 0) return false;
        std::lock_guard lock(m_);
        for (auto it = idle_.rbegin(); it != idle_.rend(); ++it) {
            if (able(*it)) {
                WorkerId w = *it;
                idle_.erase(std::next(it).base());
                signal_locked(w);
                return true;
            }
        }
        return false;
    }
    /// Wakes every idle worker (shutdown).
    void wake_all() noexcept;

    /// Whether some worker is idle (registered by prepare_wait and not woken yet).
    bool any_idle() const noexcept { return idle_count_.load(std::memory_order_relaxed) > 0; }
    /// Has `listener` called each time a worker falls asleep (null: no one), so that a
    /// helper thread that shares the cores (MPI's progress thread) can work while they are
    /// free. Returns once no call of the previous listener runs.
    void set_sleep_listener(std::function<void()> listener);

private:
    void signal_locked(WorkerId w) noexcept;

    struct alignas(64) Slot {
        std::atomic<uint32_t> epoch{0};
        bool idle = false;
    };
    std::unique_ptr<Slot[]> slots_;
    unsigned workers_ = 0;
    std::mutex m_;
    std::vector<WorkerId> idle_;  // idle workers, the most recent last
    std::atomic<int> idle_count_{0};
    std::mutex listener_m_;
    std::function<void()> sleep_listener_;   // under listener_m_
    std::atomic<bool> has_listener_{false};  // read without the lock on each sleep
};

}  // namespace tessera::rt::detail
