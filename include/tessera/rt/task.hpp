/// @file task.hpp
/// TaskRef: a cheap, copyable reference to a submitted task (reference counted). Holding one
/// makes the task waitable and usable as an explicit dependency (`after(t)`); dropping every
/// reference makes it detached, as StarPU's default, and the runtime recycles it when done.
#pragma once

#include <tessera/rt/access.hpp>

#include <cstdint>
#include <utility>

namespace tessera::rt {

namespace detail {
void task_retain(Task* t) noexcept;
void task_release(Task* t) noexcept;
}  // namespace detail

/// A reference to a submitted task.
class TaskRef {
public:
    /// An empty reference, to no task.
    TaskRef() = default;
    /// Another reference to o's task (the count goes up).
    TaskRef(TaskRef const& o) noexcept : t_(o.t_)
    {
        if (t_) detail::task_retain(t_);
    }
    /// Takes over o's reference; o is left empty.
    TaskRef(TaskRef&& o) noexcept : t_(o.t_) { o.t_ = nullptr; }
    /// Refers to o's task instead, dropping the reference held before (copy or move: o is
    /// taken by value).
    TaskRef& operator=(TaskRef o) noexcept
    {
        std::swap(t_, o.t_);
        return *this;
    }
    ~TaskRef()
    {
        if (t_) detail::task_release(t_);
    }

    /// Blocks until the task has completed (run, failed or been cancelled) and its callback
    /// has returned. Rethrows the task's exception, or for a cancelled task the exception of
    /// the failed task it depended on. Throws InvalidArgument on an empty reference or when
    /// called from inside a task (that could deadlock).
    void wait() const;
    /// True once the task has completed.
    bool done() const noexcept;
    /// True when the task threw, or was cancelled because a task it depends on failed.
    bool failed() const noexcept;
    /// True when the task was cancelled (never ran): a task it depends on failed, or its
    /// CancelToken was cancelled before it started (cancelled_by).
    bool cancelled() const noexcept;
    /// The task's submission number, unique within its runtime (0 for an empty reference).
    uint64_t id() const noexcept;
    /// False for an empty reference (default-constructed or moved from).
    explicit operator bool() const noexcept { return t_ != nullptr; }

private:
    friend struct detail::Internals;
    /// Adopts one reference to `t`.
    explicit TaskRef(detail::Task* t) noexcept : t_(t) {}
    detail::Task* t_ = nullptr;
};

}  // namespace tessera::rt
