#include "runtime/core/parking.hpp"

#include <algorithm>

namespace tessera::rt::detail {

Parking::Parking(unsigned workers)
{
    resize(workers);
}

void Parking::resize(unsigned workers)
{
    slots_ = std::make_unique<Slot[]>(workers);
    workers_ = workers;
    idle_.clear();
    idle_.reserve(workers);
}

uint32_t Parking::prepare_wait(WorkerId w)
{
    std::lock_guard lock(m_);
    Slot& s = slots_[w];
    if (!s.idle) {
        s.idle = true;
        idle_.push_back(w);
        idle_count_.fetch_add(1, std::memory_order_seq_cst);
    }
    uint32_t ticket = s.epoch.load(std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return ticket;
}

void Parking::cancel_wait(WorkerId w)
{
    std::lock_guard lock(m_);
    Slot& s = slots_[w];
    if (s.idle) {
        s.idle = false;
        idle_.erase(std::find(idle_.begin(), idle_.end(), w));
        idle_count_.fetch_sub(1, std::memory_order_relaxed);
    }
}

void Parking::commit_wait(WorkerId w, uint32_t ticket)
{
    if (has_listener_.load(std::memory_order_acquire)) {
        std::lock_guard lock(listener_m_);
        if (sleep_listener_) sleep_listener_();
    }
    slots_[w].epoch.wait(ticket, std::memory_order_acquire);
}

void Parking::set_sleep_listener(std::function<void()> listener)
{
    std::lock_guard lock(listener_m_);
    has_listener_.store(bool(listener), std::memory_order_release);
    sleep_listener_ = std::move(listener);
}

void Parking::signal_locked(WorkerId w) noexcept
{
    Slot& s = slots_[w];
    s.idle = false;
    idle_count_.fetch_sub(1, std::memory_order_relaxed);
    s.epoch.fetch_add(1, std::memory_order_release);
    s.epoch.notify_one();
}

void Parking::wake(WorkerId w) noexcept
{
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (idle_count_.load(std::memory_order_relaxed) == 0) return;
    std::lock_guard lock(m_);
    if (!slots_[w].idle) return;
    idle_.erase(std::find(idle_.begin(), idle_.end(), w));
    signal_locked(w);
}

void Parking::wake_all() noexcept
{
    std::lock_guard lock(m_);
    for (WorkerId w : idle_) signal_locked(w);
    idle_.clear();
}

}  // namespace tessera::rt::detail
