#include "runtime/core/contexts.hpp"

#include <tessera/error.hpp>

#include <string>

namespace tessera::rt::detail {

void SchedulingContexts::reset(unsigned workers)
{
    workers_ = workers;
    members_.clear();
    members_.emplace_back(workers, true);
    count_.store(1, std::memory_order_release);
}

ContextId SchedulingContexts::create(std::vector<WorkerId> const& workers)
{
    require(!workers.empty(), "create_context: no workers");
    std::vector<bool> members(workers_, false);
    for (WorkerId w : workers) {
        require(w < workers_, [&] { return "create_context: no worker " + std::to_string(w); });
        members[w] = true;
    }
    std::lock_guard lock(m_);
    members_.push_back(std::move(members));
    uint32_t id = uint32_t(members_.size() - 1);
    count_.store(id + 1, std::memory_order_release);
    return ContextId{id};
}

std::vector<WorkerId> SchedulingContexts::workers(ContextId c) const
{
    require(c.value < count(),
            [&] { return "context_workers: unknown context " + std::to_string(c.value); });
    std::vector<WorkerId> out;
    for (WorkerId w = 0; w < workers_; ++w)
        if (contains(c.value, w)) out.push_back(w);
    return out;
}

}  // namespace tessera::rt::detail
