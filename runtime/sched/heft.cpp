// The HEFT family (thesis §3.4 to §3.6): each task goes to the worker where it is expected to
// finish first, from the performance models.
//
//   push(t):  for each able worker w:
//                end(w) = max(now, busy_until(w), reserved(w))        when w is free
//                       + queued(w)                                  dmdasd: ahead(w, t)
//                       + transfer(t, w)                             dmda, dmdas, dmdasd: bus
//                       + length(t, arch(w))                         perf model
//             w* = argmin end(w); on ties the one with the fewest tasks started or queued,
//             then the first; queued(w*) += length; queue t on w*;
//             dmdas, dmdasd: prefetch t's inputs to w*'s memory node now.
//   pop(w):   dm, dmda: priority > 0 first (newest first among those), then FIFO;
//             dmdas, dmdasd: highest priority first, FIFO among equals.
//             queued(w) -= length(t)
//   start:    started(w) += length(t); busy_until(w) = max(now, busy_until(w)) + length(t)
//   done:     started(w) -= length(t); busy_until(w) = now + started(w), or 0 (free: push
//             reads max(now, busy_until)) when nothing runs on w
//
// queued(w) counts every task queued on w, also those that a task of higher priority will
// overtake, as StarPU's dm, dmda and dmdas do. dmdasd ("sorted decision", as StarPU's) counts
// only the tasks ahead of t: ahead(w, t), those queued with t's priority or a higher one (its
// sorted queue sums their predicted lengths per priority). It
// was measured worse than dmdas on the Cholesky of tessera-bench policies (2 cores and 2
// emulated devices: 17.4 to 17.8 ms against 15.5 to 16.1): a burst of urgent tasks all goes to
// the fastest unit, behind which the work placed earlier ends later than was predicted for it.
// transfer(t, w) is added whole, as in eq. 3.6 and StarPU's dmda, even where the prefetch
// overlaps it with the queued tasks: it is the penalty for moving data as much as a time, and
// the bus it is predicted on is shared by the other transfers in flight.
//
// started(w) is the work w has begun and not finished: one task on a core, up to
// cuda_tasks_in_flight on a GPU, whose worker starts the next tasks before the first ends.
// Tasks bound to a worker (on_worker) never pass through the policy's queues, but they start
// and end like the others and so count too (their length predicted when they start). At
// each end the expected end is corrected by what happened.
//
// A parallel codelet's task may also go to a combined worker (parallel-heft, thesis §4.3):
// a group of k cores, predicted with the model of architecture "cpu_x<k>", expected to start
// when the busiest member is free; its members then hold that time, its predicted end. When
// it ends, earlier or later than that, the hold is released and the holds of the group's
// later tasks move by as much.
//
// While a task's model is not calibrated on some able worker's architecture, the task goes
// to the least loaded such worker, so that every architecture gets measured (calibration);
// a task with no model and no flop count is always placed that way (load balance).
#include "runtime/sched/builtin.hpp"
#include "runtime/sched/queue_mutex.hpp"
#include "runtime/sched/queues.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace tessera::rt::detail {

namespace {

enum class Variant { tm, tmdp, tmdp_pr, tmdp_pr_sorted_decision };

class Heft final : public Policy {
public:
    explicit Heft(Variant v) : variant_(v) {}

    std::string_view name() const noexcept override
    {
        switch (variant_) {
        case Variant::tm:
            return "dm";
        case Variant::tmdp:
            return "dmda";
        case Variant::tmdp_pr:
            return "dmdas";
        case Variant::tmdp_pr_sorted_decision:
            return "dmdasd";
        }
        return "?";
    }
    PriorityRange priorities() const noexcept override
    {
        return sorted_queues()
                   ? PriorityRange{std::numeric_limits<int>::min(), std::numeric_limits<int>::max()}
                   : PriorityRange{0, 1};
    }

    void init(PolicyHost& h) override
    {
        Policy::init(h);
        workers_ = std::vector<WorkerState>(h.worker_count());
    }

    void push(ReadyTask t) override
    {
        double now = host().now();
        struct Candidate {
            WorkerId w;
            Prediction length;
            double transfer, end;
            std::size_t queued_tasks;
            int group = -1;  // a combined worker, or -1
        };
        static thread_local std::vector<Candidate> cands;  // push is never re-entered on a thread:
        cands.clear();                                     // one buffer, no allocation per task
        bool calibrating = false;
        // workers of one architecture share a prediction: ask the models once per architecture
        std::string_view last_arch;
        Prediction p;
        // when worker w can start t: after what it has begun and what its queue runs first
        auto free_at = [&](WorkerState& s) {
            double ahead;
            if (variant_ == Variant::tmdp_pr_sorted_decision) {
                std::lock_guard lock(s.m);
                ahead = s.sorted.predicted_ahead_of(t.priority());
            } else {
                ahead = s.seen_queued.load(std::memory_order_relaxed);
            }
            return std::max(now, s.seen_free_at()) + ahead;
        };
        for (WorkerId w = 0; w < workers_.size(); ++w) {
            if (!t.can_run_on(w)) continue;
            if (std::string_view arch = host().arch_name(w); arch != last_arch || cands.empty()) {
                p = t.expected_length(w);
                last_arch = arch;
            }
            double transfer = variant_ == Variant::tm ? 0.0 : t.expected_transfer(w);
            WorkerState& s = workers_[w];
            cands.push_back({w, p, transfer, free_at(s) + transfer + p.seconds, s.seen_tasks()});
            calibrating = calibrating || !p.known();
        }
        if (unsigned maxp = t.max_parallelism(); maxp > 1) {
            auto const& groups = host().combined_workers();
            for (std::size_t g = 0; g < groups.size(); ++g) {
                if (groups[g].size() > maxp) continue;
                bool able = true;
                double start = now;
                std::size_t queued_tasks = 0;
                for (WorkerId w : groups[g]) {
                    able = able && t.can_run_on(w);
                    WorkerState& s = workers_[w];
                    start = std::max(start, free_at(s));  // the same estimate as one member alone
                    queued_tasks = std::max(queued_tasks, s.seen_tasks());
                }
                if (!able) continue;
                Prediction pg = t.expected_length_on_cores(unsigned(groups[g].size()));
                cands.push_back({groups[g][0], pg, 0.0, start + pg.seconds, queued_tasks, int(g)});
                calibrating = calibrating || !pg.known();
            }
        }
        if (cands.empty()) return;  // the runtime checked that some worker can run it
        Candidate const* best = nullptr;
        for (Candidate const& c : cands) {
            if (calibrating) {  // measure where the model is not calibrated, the least loaded first
                if (c.length.known()) continue;
                if (!best || c.queued_tasks < best->queued_tasks ||
                    (c.queued_tasks == best->queued_tasks && c.end < best->end))
                    best = &c;
            } else if (!best || c.end < best->end ||
                       (c.end == best->end && c.queued_tasks < best->queued_tasks)) {
                best = &c;  // on a tie, the less busy: a task of unknown length may be running
            }
        }
        if (host().logs_decisions())
            host().log_decision(explain(t, cands, *best, calibrating, now));

        double length = best->length.known() ? best->length.seconds : 0.0;
        t.set_predicted(length);
        if (best->group >= 0) {  // every member holds the time; the runtime queues the aliases
            {
                std::lock_guard lock(holds_m_);
                holds_[t.sequence()] = {std::size_t(best->group), best->end};
                pending_holds_.fetch_add(1, std::memory_order_release);
                for (WorkerId w : host().combined_workers()[std::size_t(best->group)]) {
                    WorkerState& s = workers_[w];
                    s.reserved = std::max(s.reserved, best->end);
                    ++s.holds;
                    s.publish_holds();
                }
            }
            host().push_to_group(t, std::size_t(best->group));
            return;
        }
        WorkerState& s = workers_[best->w];
        if (sorted_queues()) host().prefetch(t, best->w);  // before t is visible to w
        {
            std::lock_guard lock(s.m);
            s.queued += length;
            ++s.ntasks;
            if (sorted_queues())
                s.sorted.push(t);
            else if (t.priority() > 0)
                s.fifo.push_front(t);
            else
                s.fifo.push_back(t);
            s.publish_queue();
        }
        host().wake(best->w);
    }

    ReadyTask pop(WorkerId w) override
    {
        WorkerState& s = workers_[w];
        std::lock_guard lock(s.m);
        ReadyTask t = sorted_queues() ? s.sorted.pop_for(w) : take_first_runnable(s.fifo, w);
        if (t) {
            --s.ntasks;
            s.queued = s.ntasks == 0 ? 0.0 : std::max(0.0, s.queued - t.predicted());
            s.publish_queue();
        }
        return t;
    }

    void on_start(ReadyTask t, WorkerId w) override
    {
        // A task bound to w never came through push: it is predicted now, once, so that its
        // end takes off what its start added.
        if (t.bound_worker() != no_worker) {
            Prediction p = t.expected_length(w);
            t.set_predicted(p.known() ? p.seconds : 0.0);
        }
        WorkerState& s = workers_[w];  // w's own thread: no lock (see WorkerState)
        ++s.running;
        // a task predicted to take no time leaves busy_until as it was: push reads
        // max(its now, busy_until), which is what max(now, busy_until) here would give it
        // (so a task without a model costs no clock read)
        if (const double length = t.predicted(); length > 0) {
            s.started += length;
            s.busy_until = std::max(host().now(), s.busy_until) + length;
        }
        s.publish_run();
    }

    void on_complete(ReadyTask t, WorkerId w) override
    {
        WorkerState& s = workers_[w];  // w's own thread: no lock (see WorkerState)
        if (s.running > 0) --s.running;
        if (s.running == 0) {
            // free now: push reads max(its now, busy_until) = its now (no clock read here)
            s.started = 0;
            s.busy_until = 0;
        } else {  // a GPU worker with tasks still in flight
            s.started = std::max(0.0, s.started - t.predicted());
            s.busy_until = host().now() + s.started;
        }
        s.publish_run();
        if (pending_holds_.load(std::memory_order_acquire) > 0) release_hold(t, host().now());
    }

    std::vector<ReadyTask> withdraw(WorkerId w) override
    {
        WorkerState& s = workers_[w];
        std::lock_guard lock(s.m);
        std::vector<ReadyTask> out = s.sorted.take_all();
        out.insert(out.end(), s.fifo.begin(), s.fifo.end());
        s.fifo.clear();
        s.queued = 0;
        s.ntasks = 0;
        s.publish_queue();
        return out;
    }

private:
    bool sorted_queues() const noexcept
    {
        return variant_ == Variant::tmdp_pr || variant_ == Variant::tmdp_pr_sorted_decision;
    }

    // A parallel task ended: its group's members no longer hold the time it was predicted to
    // end, and the holds of their later parallel tasks move by as much as it ended early (or
    // late: they could not start before it ended).
    void release_hold(ReadyTask t, double now)
    {
        std::lock_guard lock(holds_m_);
        auto it = holds_.find(t.sequence());
        if (it == holds_.end()) return;
        const Hold hold = it->second;
        holds_.erase(it);
        pending_holds_.fetch_sub(1, std::memory_order_release);
        const double shift = now - hold.end;
        for (WorkerId w : host().combined_workers()[hold.group]) {
            WorkerState& s = workers_[w];
            if (s.holds > 0) --s.holds;
            s.reserved = s.holds == 0 ? 0.0 : std::max(now, s.reserved + shift);
            s.publish_holds();
        }
    }

    template <class C>
    std::string explain(ReadyTask t, std::vector<C> const& cands, C const& best, bool calibrating,
                        double now)
    {
        std::ostringstream log;
        auto ms = [](double s) { return s * 1e3; };
        auto unit =
            [&](C const& c) -> std::ostream& {  // "cpu", "emu0", or "x2" for a combined worker
            if (c.group >= 0)
                return log << "x" << host().combined_workers()[std::size_t(c.group)].size();
            return log << host().arch_name(c.w);
        };
        log << name() << " t=" << ms(now) << "ms task " << t.codelet_name() << "#" << t.sequence()
            << " -> worker " << best.w << " (";
        unit(best) << ")" << (calibrating ? " [calibrating]" : "") << " length "
                   << ms(best.length.seconds) << "ms transfer " << ms(best.transfer) << "ms end "
                   << ms(best.end) << "ms |";
        for (C const& c : cands) {
            log << " w" << c.w << ":";
            unit(c) << " len " << ms(c.length.seconds) << (c.length.known() ? "" : "?") << " xfer "
                    << ms(c.transfer) << " end " << ms(c.end);
        }
        log << "\n";
        return std::move(log).str();
    }

    // A worker's state has three parts, each with one writer at a time, so that a task's start
    // and end take no lock and its push and pop contend only on the queue:
    //   queue: under m (push runs on any thread, pop on w's);
    //   run:   w's own thread alone (the runtime calls on_start and on_complete there);
    //   holds: under holds_m_ (parallel tasks placed and ended on any thread).
    struct WorkerState {
        QueueMutex m;
        std::deque<ReadyTask> fifo;  // dm, dmda
        PriorityQueue sorted;        // dmdas, dmdasd (with the predicted seconds per priority)
        double queued = 0;           // predicted seconds of the queued tasks
        std::size_t ntasks = 0;      // queued tasks

        double started = 0;       // predicted seconds of the tasks started, not ended
        std::size_t running = 0;  // tasks started, not ended
        double busy_until = 0;    // expected end of the started tasks

        double reserved = 0;    // held by parallel tasks until then
        std::size_t holds = 0;  // parallel tasks holding it

        // What push reads without a lock (it runs for every task and every worker), stored by
        // each part's writer after each change. A push may read a state a change older than a
        // locked read would have, which a placement made a moment earlier would also have seen.
        std::atomic<double> seen_busy_until{0}, seen_reserved{0}, seen_queued{0};
        std::atomic<std::size_t> seen_ntasks{0}, seen_running{0};

        double seen_free_at() const noexcept
        {
            return std::max(seen_busy_until.load(std::memory_order_relaxed),
                            seen_reserved.load(std::memory_order_relaxed));
        }
        std::size_t seen_tasks() const noexcept
        {
            return seen_ntasks.load(std::memory_order_relaxed) +
                   seen_running.load(std::memory_order_relaxed);
        }
        void publish_queue() noexcept
        {
            seen_queued.store(queued, std::memory_order_relaxed);
            seen_ntasks.store(ntasks, std::memory_order_relaxed);
        }
        void publish_run() noexcept
        {
            seen_busy_until.store(busy_until, std::memory_order_relaxed);
            seen_running.store(running, std::memory_order_relaxed);
        }
        void publish_holds() noexcept { seen_reserved.store(reserved, std::memory_order_relaxed); }
    };
    struct Hold {
        std::size_t group = 0;  // the combined worker
        double end = 0;         // the end predicted when it was placed
    };
    Variant variant_;
    std::vector<WorkerState> workers_;
    std::mutex holds_m_;
    std::unordered_map<uint64_t, Hold> holds_;   // parallel tasks placed, not ended, by sequence
    std::atomic<std::size_t> pending_holds_{0};  // holds_.size(): ends skip the lock when 0
};

}  // namespace

std::unique_ptr<Policy> make_dm()
{
    return std::make_unique<Heft>(Variant::tm);
}
std::unique_ptr<Policy> make_dmda()
{
    return std::make_unique<Heft>(Variant::tmdp);
}
std::unique_ptr<Policy> make_dmdas()
{
    return std::make_unique<Heft>(Variant::tmdp_pr);
}
std::unique_ptr<Policy> make_dmdasd()
{
    return std::make_unique<Heft>(Variant::tmdp_pr_sorted_decision);
}

}  // namespace tessera::rt::detail
