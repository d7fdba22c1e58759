// SchedulingContexts: subsets of the workers a task may be confined to (in_context), as
// StarPU's scheduling contexts give parts of a machine to different computations. Context 0
// holds every worker. Contexts are only ever added: a policy reads membership without a lock.
// Internal.
#pragma once

#include <tessera/rt/runtime.hpp>
#include <tessera/rt/sched.hpp>

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

namespace tessera::rt::detail {

class SchedulingContexts {
public:
    /// Context 0 over `workers` workers, and no other (at start, before any task).
    void reset(unsigned workers);
    /// A new context of `workers` (not empty, each an existing worker).
    ContextId create(std::vector<WorkerId> const& workers);
    /// Its workers, in id order; throws InvalidArgument for an unknown context.
    std::vector<WorkerId> workers(ContextId c) const;
    uint32_t count() const noexcept { return count_.load(std::memory_order_acquire); }
    /// Whether worker w belongs to context c (c < count()).
    bool contains(uint32_t c, WorkerId w) const noexcept { return c == 0 || members_[c][w]; }

private:
    unsigned workers_ = 0;
    mutable std::mutex m_;
    std::deque<std::vector<bool>> members_;  // append-only: readers index without a lock
    std::atomic<uint32_t> count_{0};
};

}  // namespace tessera::rt::detail
