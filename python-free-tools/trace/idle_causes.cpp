#include "trace/idle_causes.hpp"

#include <algorithm>

namespace tessera::trace_tool {

namespace {

/// The state of the whole run at one time, as the tasks' READY and BEGIN times give it.
class ReadyTimes {
public:
    ReadyTimes(trace::Trace const& t, int64_t slack)
    {
        std::vector<trace::TaskRecord const*> by_ready;
        for (trace::TaskRecord const& r : t.tasks) {
            if (r.status == trace::TaskStatus::cancelled) continue;
            readies_.push_back(r.ready);
            begins_.push_back(r.begin);
            by_ready.push_back(&r);
        }
        std::sort(readies_.begin(), readies_.end());
        std::sort(begins_.begin(), begins_.end());
        std::sort(by_ready.begin(), by_ready.end(),
                  [](auto* a, auto* b) { return a->ready < b->ready; });
        // Per distinct READY time: the latest SUBMIT of a task that was ready on submission
        // (INT64_MIN when none was), to tell "not submitted yet" in O(log n).
        for (trace::TaskRecord const* r : by_ready) {
            if (distinct_.empty() || distinct_.back() != r->ready) {
                distinct_.push_back(r->ready);
                eager_submit_.push_back(INT64_MIN);
            }
            if (r->ready - r->submit <= slack)
                eager_submit_.back() = std::max(eager_submit_.back(), r->submit);
        }
        events_ = readies_;
        events_.insert(events_.end(), begins_.begin(), begins_.end());
        std::sort(events_.begin(), events_.end());
        events_.erase(std::unique(events_.begin(), events_.end()), events_.end());
    }

    /// The first READY or BEGIN time after `t` (INT64_MAX when none): nothing changes before.
    int64_t next_event(int64_t t) const
    {
        auto it = std::upper_bound(events_.begin(), events_.end(), t);
        return it == events_.end() ? INT64_MAX : *it;
    }

    /// Whether some task is ready and not begun at `t` (READY <= t < BEGIN): READY <= BEGIN,
    /// so those are the tasks ready by t less those begun by t.
    bool ready_task_waits(int64_t t) const
    {
        auto ready = std::upper_bound(readies_.begin(), readies_.end(), t) - readies_.begin();
        auto begun = std::upper_bound(begins_.begin(), begins_.end(), t) - begins_.begin();
        return ready > begun;
    }

    /// Whether the next task(s) to become ready after `t` were submitted at or after `since`
    /// and were ready on submission.
    bool next_ready_submitted_late(int64_t t, int64_t since) const
    {
        auto it = std::upper_bound(distinct_.begin(), distinct_.end(), t);
        return it != distinct_.end() && eager_submit_[std::size_t(it - distinct_.begin())] >= since;
    }

private:
    std::vector<int64_t> readies_, begins_, events_;
    std::vector<int64_t> distinct_, eager_submit_;
};

}  // namespace

std::vector<WorkerTime> idle_causes(trace::Trace const& t, Timeline const& tl,
                                    int64_t submission_slack)
{
    const ReadyTimes run(t, submission_slack);
    std::vector<WorkerTime> out(t.workers.size());
    for (std::size_t w = 0; w < t.workers.size(); ++w) {
        WorkerTime& time = out[w];
        const TaskTime tasks = task_time(t, tl.tasks[w]);
        time.busy = tasks.busy;
        time.data = tasks.data;
        // Between two READY/BEGIN times the answer cannot change: one verdict per piece.
        for (Span const& gap : tl.gaps[w]) {
            for (int64_t from = gap.begin; from < gap.end;) {
                const int64_t to = std::min(gap.end, run.next_event(from));
                int64_t& cause = run.ready_task_waits(from) ? time.scheduler
                                 : run.next_ready_submitted_late(from, gap.begin)
                                     ? time.submission
                                     : time.dependencies;
                cause += to - from;
                from = to;
            }
        }
    }
    return out;
}

}  // namespace tessera::trace_tool
