// The state of a Sequence, behind the installed header (include/tessera/la/sequence.hpp):
// the info reduction its factorization tasks record into, the tokens that cancel its tasks,
// the tasks not yet known to be done, the names of its calls, and what must outlive its tasks.
// Internal.
#pragma once

#include <tessera/la/sequence.hpp>

#include <atomic>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::inline la {

namespace detail {
/// Where factorization tasks report LAPACK's info, as a reduction: the smallest positive
/// value wins, since the first failing pivot or minor is the one LAPACK reports (each task
/// adds its tile's global offset: SLATE's kk + iinfo). Recording with OnInfo::stops also
/// cancels the sequence's tasks that have not started.
struct InfoSlot {
    /// `finding` of the tasks that are not a call's tasks looking for the smallest info.
    static constexpr uint64_t no_call = Sequence::no_finding_call;
    static constexpr uint64_t none_yet = UINT64_MAX;

    std::atomic<int64_t> value{0};
    rt::CancelToken
        failed;  // the sequence's tasks are tied to it (a task's exception cancels it too)
    /// The call (Sequence::finding_call) whose tasks recorded every failure so far: none_yet
    /// before the first one, no_call once other tasks, or several calls, recorded one.
    std::atomic<uint64_t> failing_call{none_yet};

    /// Records info > 0 of the call numbered `call` (Sequence::failed_call), found by a task
    /// of finding call `finding` (no_call: not one looking for the smallest info); with
    /// OnInfo::stops, the sequence fails.
    void record(int64_t info, uint64_t call, uint64_t finding, OnInfo on_info) noexcept
    {
        {
            SpinLock lock{recording_};  // the value and its call change together
            const int64_t cur = value.load(std::memory_order_relaxed);
            if (cur == 0 || info < cur) {
                value.store(info, std::memory_order_relaxed);
                call_of_value_ = call;
            }
        }
        if (on_info == OnInfo::continues) return;
        // cancelled with no record yet: a task's exception came first
        const uint64_t mine = failed.cancelled() ? no_call : finding;
        uint64_t seen = none_yet;
        if (!failing_call.compare_exchange_strong(seen, mine, std::memory_order_relaxed) &&
            seen != finding)
            failing_call.store(no_call, std::memory_order_relaxed);
        failed.cancel();  // publishes failing_call with it
    }
    /// The number of the call whose info value holds (0 while it holds none).
    uint64_t call_of_value() const noexcept
    {
        SpinLock lock{recording_};
        return call_of_value_;
    }
    /// Has the sequence failed by anything else than the tasks of `call` looking for the
    /// smallest info (an earlier call, a task's exception)? Then those tasks do no more.
    bool failed_elsewhere(uint64_t call) const noexcept
    {
        return failed.cancelled() && failing_call.load(std::memory_order_relaxed) != call;
    }

private:
    // Failures are rare and brief to record: a spin lock, which cannot throw inside a task.
    struct SpinLock {
        std::atomic_flag& flag;
        explicit SpinLock(std::atomic_flag& f) noexcept : flag(f)
        {
            while (flag.test_and_set(std::memory_order_acquire))
                flag.wait(true, std::memory_order_relaxed);
        }
        ~SpinLock()
        {
            flag.clear(std::memory_order_release);
            flag.notify_one();
        }
    };
    mutable std::atomic_flag recording_;
    uint64_t call_of_value_ = 0;
};

/// The token of one call's tasks that look for the smallest info (Sequence::finding_call):
/// cancelled once the sequence has failed by anything else than their own records, so that
/// they still run after another of them failed; one of them that throws fails the sequence.
class FindingCallToken final : public rt::CancelToken {
public:
    FindingCallToken(InfoSlot& slot, uint64_t call) : slot_(slot), call_(call) {}
    bool cancelled() const noexcept override
    {
        return CancelToken::cancelled() || slot_.failed_elsewhere(call_);
    }
    void cancel() noexcept override
    {
        CancelToken::cancel();
        slot_.failing_call.store(InfoSlot::no_call, std::memory_order_relaxed);
        slot_.failed.cancel();
    }
    uint64_t call() const noexcept { return call_; }

private:
    InfoSlot& slot_;
    uint64_t call_;
};
}  // namespace detail

namespace detail {
/// The routine of each call, numbered from 1; a run of calls of the same routine (tasks
/// submitted outside calls, one call each) is stored once.
class CallNames {
public:
    uint64_t add(std::string_view routine);
    std::string const& name(uint64_t call) const;
    uint64_t count() const noexcept { return count_; }

private:
    struct Run {
        uint64_t first;  // the run's first call
        std::string routine;
    };
    std::vector<Run> runs_;
    uint64_t count_ = 0;
};
}  // namespace detail

struct Sequence::Registration {
    std::uintptr_t begin, end;
    std::string shape;
    bool writes;  // a call on it writes into the memory
    std::shared_ptr<void> object;
};

struct Sequence::Submitted {
    rt::TaskRef task;
    uint64_t call;  // the number of the call it belongs to
};

struct Sequence::State {
    detail::InfoSlot info;
    std::exception_ptr error;
    uint64_t error_call = 0;              // the call whose task or submission threw `error`
    std::vector<Submitted> tasks;         // not known to be done at the last sweep
    std::size_t sweep_at = 1024;          // sweep the done tasks out of `tasks` at this size
    std::exception_ptr task_error;        // the first task error found by a sweep...
    uint64_t task_error_id = UINT64_MAX;  // ... by task id (submission order)
    uint64_t task_error_call = 0;
    detail::CallNames calls;
    uint64_t open_call = 0;  // 0: none open
    int open_depth = 0;      // the open call's scopes: its own and those inside it
    std::vector<std::shared_ptr<void const>> kept;
    std::vector<Registration> registrations;
    std::shared_ptr<void> one_blas_thread;  // OpenBLAS single-threaded while this lives
    std::deque<detail::FindingCallToken> finding_tokens;  // call c's is at c - 1
};

}  // namespace tessera::inline la
