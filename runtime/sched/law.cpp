// law: locality-aware work stealing (seed 001, Algorithm 3), owner computes. A ready task goes
// to the mailbox of a worker whose memory node holds a valid copy of what it writes, so that
// the fewest replicas are invalidated; the local worker when it is one of them, else one at
// random. A task that writes nothing valid anywhere stays on the local worker's deque.
// Mailboxes run first and may be stolen (mailbox_stealing.hpp).
#include "runtime/sched/builtin.hpp"
#include "runtime/sched/mailbox_stealing.hpp"

#include <vector>

namespace tessera::rt::detail {

namespace {
class LocalityAwareWorkStealing final : public MailboxStealing {
public:
    std::string_view name() const noexcept override { return "law"; }

protected:
    Placement place(ReadyTask t) override
    {
        thread_local std::vector<signed char> owns;  // per node leader: -1 not asked yet
        owns.assign(worker_count(), -1);
        WorkerId owner = pick(t, [&](WorkerId w) {
            signed char& o = owns[node_leader(w)];
            if (o < 0) o = t.owns_written_data(w) ? 1 : 0;
            return o == 1;
        });
        if (owner == no_worker)  // Algorithm 3, line 8: p_local
            return {no_worker, false, "no valid copy of what it writes"};
        return {owner, true, "holds a valid copy of what it writes"};
    }
};
}  // namespace

std::unique_ptr<Policy> make_law()
{
    return std::make_unique<LocalityAwareWorkStealing>();
}

}  // namespace tessera::rt::detail
