/// @file cancellation.hpp
/// Cancelling a group of tasks at once (QUARK's sequence cancellation, on which PLASMA's
/// failed sequences rest):
///
///     rt::CancelToken group;
///     rt.submit(cl, readwrite(a), rt::cancelled_by(group));
///     ...
///     group.cancel();   // the group's tasks that have not started will not run
///
/// A task tied to a cancelled token completes without running: no kernel, no callback, no
/// error; its successors are released as after any completion. A task of the group that fails
/// cancels the token itself, so that one failure stops the whole group. The token must
/// outlive the tasks tied to it. A derived token may add conditions to cancelled() (asked
/// when a task starts) and effects to cancel() (called when a task of its group fails).
#pragma once

#include <atomic>

namespace tessera::rt {

/// A group of tasks that can be cancelled at once (see above). Not copyable: tasks point to it.
class CancelToken {
public:
    /// A token not cancelled.
    CancelToken() = default;
    CancelToken(CancelToken const&) = delete;
    CancelToken& operator=(CancelToken const&) = delete;
    virtual ~CancelToken() = default;
    /// Cancels the group, for good: its tasks that have not started complete without running.
    /// Thread-safe; the runtime calls it when a task of the group fails.
    virtual void cancel() noexcept { cancelled_.store(true, std::memory_order_release); }
    /// Whether cancel() was called; asked by the worker about to start a task of the group.
    virtual bool cancelled() const noexcept { return cancelled_.load(std::memory_order_acquire); }

private:
    std::atomic<bool> cancelled_{false};
};

/// Task option: ties the task to `token`.
struct CancelledBy {
    CancelToken* token;  ///< must outlive the task
};
/// Task option: ties the task to `token`, which must outlive it (see CancelToken).
inline CancelledBy cancelled_by(CancelToken& token) noexcept
{
    return {&token};
}

}  // namespace tessera::rt
