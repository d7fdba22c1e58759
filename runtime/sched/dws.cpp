// dws: data-aware work stealing (seed 001, Algorithm 2). A ready task goes to the mailbox of
// the worker whose memory node holds the most valid bytes of its data, so that it moves the
// least; the workers of one node tie, and the local worker, or else one at random, takes it.
// Mailboxes run first and may be stolen (mailbox_stealing.hpp).
#include "runtime/sched/builtin.hpp"
#include "runtime/sched/mailbox_stealing.hpp"

#include <string>
#include <vector>

namespace tessera::rt::detail {

namespace {
class DataAwareWorkStealing final : public MailboxStealing {
public:
    std::string_view name() const noexcept override { return "dws"; }

protected:
    static constexpr std::size_t not_asked = std::size_t(-1);

    Placement place(ReadyTask t) override
    {
        // total_j: the task's valid bytes on worker j's node (Algorithm 2, lines 1-7)
        thread_local std::vector<std::size_t> total, of_node;  // of_node: per node leader
        total.assign(worker_count(), 0);
        of_node.assign(worker_count(), not_asked);
        std::size_t best = 0;
        for (WorkerId w = 0; w < worker_count(); ++w) {
            if (!t.can_run_on(w)) continue;
            std::size_t& bytes = of_node[node_leader(w)];
            if (bytes == not_asked) bytes = t.valid_bytes_on(w);
            total[w] = bytes;
            best = std::max(best, total[w]);
        }
        std::string why;
        if (host().logs_decisions()) {
            why = "valid bytes";
            for (WorkerId w = 0; w < worker_count(); ++w)
                why += " w" + std::to_string(w) + ":" + std::to_string(total[w]);
        }
        if (best == 0) return {no_worker, false, why};  // nothing valid anywhere: stays local
        return {pick(t, [&](WorkerId w) { return total[w] == best; }), true, why};  // line 8
    }
};
}  // namespace

std::unique_ptr<Policy> make_dws()
{
    return std::make_unique<DataAwareWorkStealing>();
}

}  // namespace tessera::rt::detail
