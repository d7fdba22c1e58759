#include "runtime/core/submission_window.hpp"

namespace tessera::rt::detail {

void SubmissionWindow::wait_for_room()
{
    // The flag is set again before every check: a completer that saw an earlier wait may clear
    // it late, and must not leave this one asleep with nobody to wake it.
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] {
        waiting_.store(true, std::memory_order_seq_cst);
        return pending_.load(std::memory_order_seq_cst) <= max_ / 2;
    });
}

void SubmissionWindow::wake_submitter()
{
    std::lock_guard lock(m_);
    waiting_.store(false, std::memory_order_relaxed);
    cv_.notify_all();
}

void SubmissionWindow::wait_until_empty() const
{
    for (int64_t n; (n = pending_.load(std::memory_order_acquire)) != 0;)
        pending_.wait(n, std::memory_order_acquire);
}

}  // namespace tessera::rt::detail
