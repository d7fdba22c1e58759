// Work stealing with mailboxes, the frame of seed 001's data-aware and locality-aware
// policies (section 4.3, XKaapi's push_activated): a ready task goes to the mailbox of the
// worker a placement rule names; a worker runs its mailbox (oldest first), then its own
// deque (newest first), and only then steals: the oldest task of a random victim's deque,
// then of its mailbox. The rule is the policy's own (dws.cpp, law.cpp). Internal.
#pragma once

#include "runtime/sched/queue_mutex.hpp"
#include "runtime/sched/queues.hpp"

#include <tessera/rt/sched.hpp>

#include <atomic>
#include <deque>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace tessera::rt::detail {

class MailboxStealing : public Policy {
public:
    void init(PolicyHost& h) override
    {
        Policy::init(h);
        workers_ = std::vector<Worker>(h.worker_count());
        leaders_.resize(h.worker_count());
        for (WorkerId w = 0; w < h.worker_count(); ++w) {
            leaders_[w] = w;
            for (WorkerId v = 0; v < w; ++v)
                if (h.worker(v).memory_node == h.worker(w).memory_node) {
                    leaders_[w] = v;
                    break;
                }
        }
    }

    void push(ReadyTask t) override
    {
        Placement p = place(t);
        if (p.worker == no_worker || p.worker >= workers_.size() || !t.can_run_on(p.worker))
            p = {local_worker(t), false, std::move(p.why)};
        if (host().logs_decisions())
            host().log_decision(std::string(name()) + " task " + std::string(t.codelet_name()) +
                                "#" + std::to_string(t.sequence()) + " -> worker " +
                                std::to_string(p.worker) +
                                (p.mailbox ? " (mailbox)" : " (local deque)") +
                                (p.why.empty() ? "" : ": " + p.why));
        {
            std::lock_guard lock(workers_[p.worker].m);
            (p.mailbox ? workers_[p.worker].mailbox : workers_[p.worker].deque).push_back(t);
        }
        host().wake_any(t);  // the target, or a thief
    }

    ReadyTask pop(WorkerId w) override
    {
        {
            std::lock_guard lock(workers_[w].m);
            if (ReadyTask t = take_first_runnable(workers_[w].mailbox, w)) return t;
            if (ReadyTask t = take_last_runnable(workers_[w].deque, w)) return t;  // newest first
        }
        return steal_round(unsigned(workers_.size()), w, [&](WorkerId v) {
            std::lock_guard lock(workers_[v].m);
            if (ReadyTask t = take_first_runnable(workers_[v].deque, w)) return t;
            return take_first_runnable(workers_[v].mailbox, w);
        });
    }

    std::vector<ReadyTask> withdraw(WorkerId w) override
    {
        std::lock_guard lock(workers_[w].m);
        std::vector<ReadyTask> out(workers_[w].mailbox.begin(), workers_[w].mailbox.end());
        out.insert(out.end(), workers_[w].deque.begin(), workers_[w].deque.end());
        workers_[w].mailbox.clear();
        workers_[w].deque.clear();
        return out;
    }

protected:
    /// Where a ready task goes: a worker's mailbox, or (mailbox false) its own deque; `why`
    /// is for the decision log (TESSERA_SCHED_LOG).
    struct Placement {
        WorkerId worker = no_worker;
        bool mailbox = true;
        std::string why;
    };
    /// The policy's rule; no_worker leaves the task on its local worker's deque.
    virtual Placement place(ReadyTask t) = 0;

    /// The worker that released t when it can run t, else the next able one in turn: where
    /// plain work stealing keeps a task.
    WorkerId local_worker(ReadyTask t)
    {
        WorkerId w = t.released_by();
        if (w != no_worker && w < workers_.size() && t.can_run_on(w)) return w;
        return next_able_worker(t, unsigned(workers_.size()), next_);
    }

    /// Among the workers able to run t for which `eligible(w)` holds: the local worker when it
    /// is one of them (its caches are warm), else one at random (the seed's tie rule).
    template <class Eligible> WorkerId pick(ReadyTask t, Eligible eligible)
    {
        WorkerId local = t.released_by();
        if (local != no_worker && local < workers_.size() && t.can_run_on(local) && eligible(local))
            return local;
        thread_local std::vector<WorkerId> candidates;
        candidates.clear();
        for (WorkerId w = 0; w < workers_.size(); ++w)
            if (t.can_run_on(w) && eligible(w)) candidates.push_back(w);
        if (candidates.empty()) return no_worker;
        thread_local std::minstd_rand rng{std::random_device{}()};
        return candidates[rng() % candidates.size()];
    }

    unsigned worker_count() const noexcept { return unsigned(workers_.size()); }
    /// The first worker on w's memory node: where the data is valid is a node's answer, asked
    /// once of it for all the node's workers (the cores share one).
    WorkerId node_leader(WorkerId w) const noexcept { return leaders_[w]; }

private:
    struct Worker {
        QueueMutex m;
        std::deque<ReadyTask> mailbox;  // placed here by the rule; runs first, may be stolen
        std::deque<ReadyTask> deque;    // left local; the owner takes the newest
    };
    std::vector<Worker> workers_;
    std::vector<WorkerId> leaders_;  // node_leader
    std::atomic<unsigned> next_{0};
};

}  // namespace tessera::rt::detail
