/// @file sequence.hpp
/// A Sequence groups the tasks of asynchronous tile calls so that they chain without waiting
/// and are waited for once (PLASMA's plasma_sequence_t):
///
///     tessera::Sequence s{rt};
///     tessera::potrf_async(Uplo::lower, A, s);      // submits, returns at once
///     tessera::potrs_async(Uplo::lower, A, B, s);   // its tasks wait for potrf's by data
///     int64_t info = s.wait();                      // LAPACK's info of the failure, or 0
///
/// LAPACK's info is a result: wait() returns the smallest one recorded (a zero pivot of
/// getrf, reported with the factorization completed). A routine whose later steps would
/// compute garbage stops on it (OnInfo::stops: potrf, trtri); then, as when a task throws, the
/// failure poisons the sequence (as in PLASMA): the sequence's tasks that have not started do
/// not run (CancelToken; save those that look for the smallest info of the call that failed,
/// submit_finding_info), later calls on it submit nothing, and wait() reports the failure
/// (the smallest info when several calls failed: for calls that do not depend on each other,
/// which of them got to fail first depends on timing). Every call checks its matrices before
/// it submits anything; a submission that still throws (a handle partitioned meanwhile) fails
/// the sequence too, with that exception. What a failed call leaves in its matrices is
/// unspecified, as in LAPACK (the factorization stops part-way); the tasks of the calls
/// chained after it that ran before the failure was known have written their results, the
/// others have not run: a matrix such a call writes can be partly updated. failed_call() says
/// which call failed, or recorded the info returned (PLASMA's request status):
///
///     if (s.wait() != 0) std::cerr << s.failed_call()->routine;   // "potrf", call 1
#pragma once

#include <tessera/rt/cancellation.hpp>
#include <tessera/rt/codelet.hpp>
#include <tessera/rt/runtime.hpp>
#include <tessera/rt/task.hpp>

#include <atomic>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::inline la {

/// What a positive LAPACK info does to the sequence that records it. LAPACK's info is a
/// result, not an error (getrf reports the first zero pivot and completes the factorization):
/// by default it is only reduced. A routine whose later steps would compute garbage (potrf:
/// the trailing update of a non-positive minor) opts in to stopping.
enum class OnInfo : uint8_t {
    continues,  ///< the smallest info is kept; nothing is cancelled
    stops,      ///< the sequence fails: its tasks that have not started do not run
};

namespace detail {
/// Where factorization tasks report LAPACK's info, as a reduction: the smallest positive
/// value wins, since the first failing pivot or minor is the one LAPACK reports (each task
/// adds its tile's global offset: SLATE's kk + iinfo). Recording with OnInfo::stops also
/// cancels the sequence's tasks that have not started.
struct InfoSlot {
    /// `finding` of the tasks that are not a call's tasks looking for the smallest info.
    static constexpr uint64_t no_call = 0;
    static constexpr uint64_t none_yet = UINT64_MAX;

    std::atomic<int64_t> value{0};
    rt::CancelToken failed;  // the sequence's tasks are tied to it (a task's exception cancels it too)
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
        if (!failing_call.compare_exchange_strong(seen, mine, std::memory_order_relaxed) && seen != finding)
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
            while (flag.test_and_set(std::memory_order_acquire)) flag.wait(true, std::memory_order_relaxed);
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

/// What a factorization task records its info with, passed to it by value: the sequence's
/// slot, the number of the call it belongs to, its finding call (InfoSlot::no_call unless it
/// looks for the smallest info of its call), and whether a positive info stops the sequence.
struct InfoTarget {
    InfoSlot* slot;
    uint64_t call;
    uint64_t finding = InfoSlot::no_call;
    OnInfo on_info = OnInfo::continues;
    void record(int64_t info) const noexcept { slot->record(info, call, finding, on_info); }
};

/// The token of one call's tasks that look for the smallest info (Sequence::finding_call):
/// cancelled once the sequence has failed by anything else than their own records, so that
/// they still run after another of them failed; one of them that throws fails the sequence.
class FindingCallToken final : public rt::CancelToken {
public:
    FindingCallToken(InfoSlot& slot, uint64_t call) : slot_(slot), call_(call) {}
    bool cancelled() const noexcept override { return CancelToken::cancelled() || slot_.failed_elsewhere(call_); }
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

/// A call on a sequence, as Sequence::failed_call() names it.
struct SequenceCall {
    std::string routine;  ///< the routine called: "posv", not the potrf it runs inside
    int64_t number = 0;   ///< its place among the sequence's calls, from 1
};

/// The tasks of chained asynchronous calls, their first failure, and what must outlive them.
class Sequence {
    struct State;

public:
    /// A sequence on runtime `rt`, which must outlive it.
    explicit Sequence(rt::Runtime& rt);
    /// A moved-from sequence may only be destroyed.
    Sequence(Sequence&&) noexcept = default;
    Sequence& operator=(Sequence&&) = delete;
    /// Waits for the sequence's tasks; their errors are dropped here: call wait() to see them.
    /// While a sequence lives, OpenBLAS runs single-threaded (the runtime owns the cores);
    /// once none does, it has its thread count back.
    ~Sequence();

    /// Submits one task of the sequence, tied to its failure (it does not run once the
    /// sequence has failed); a no-op returning an empty TaskRef if it has failed already.
    template <class... Params, class... Args>
    rt::TaskRef submit(rt::Codelet<Params...> const& cl, Args&&... args)
    {
        if (failed()) return {};
        const uint64_t call = current_call(cl.name);
        try {
            return kept(call, state_->rt->submit(cl, std::forward<Args>(args)...,
                                                 rt::cancelled_by(state_->info.failed)));
        } catch (...) {
            fail(std::current_exception(), call);  // the call's tasks submitted before it must not go on alone
            throw;
        }
    }
    /// Submits a task of finding call `finding` (finding_call()) that records LAPACK's info
    /// (with info_target(finding)) and may run before one that records a smaller info
    /// (trtri's diagonal tiles, independent of each other). It still runs after a failure its
    /// own finding call recorded, so that the smallest info is found, but not after the
    /// sequence failed otherwise (detail::FindingCallToken).
    template <class... Params, class... Args>
    rt::TaskRef submit_finding_info(uint64_t finding, rt::Codelet<Params...> const& cl, Args&&... args)
    {
        if (failed()) return {};
        const uint64_t call = current_call(cl.name);
        try {
            return kept(call, state_->rt->submit(cl, std::forward<Args>(args)...,
                                                 rt::cancelled_by(state_->finding_tokens.at(std::size_t(finding - 1)))));
        } catch (...) {
            fail(std::current_exception(), call);
            throw;
        }
    }
    /// While it lives, the tasks submitted through the sequence belong to one call, which
    /// failed_call() names: the tile calls open one (potrf_async opens "potrf"), and the calls
    /// made inside it (posv's potrf) belong to it. A task submitted outside any call is a call
    /// of its own, named after its codelet. A scope must end before its sequence is moved from
    /// or destroyed.
    class CallScope {
    public:
        CallScope(CallScope const&) = delete;
        CallScope& operator=(CallScope const&) = delete;
        ~CallScope();

    private:
        friend class Sequence;
        explicit CallScope(State* state) noexcept : state_(state) {}
        State* state_;
    };
    /// Opens call `routine` (the next number), or, inside an open call, goes on with that one.
    [[nodiscard]] CallScope call(std::string const& routine);

    /// A number for a call whose tasks look for the smallest info, unique in this sequence.
    uint64_t finding_call()
    {
        return state_->finding_tokens.emplace_back(state_->info, state_->finding_tokens.size() + 1).call();
    }

    /// Waits for every task submitted through the sequence. Returns LAPACK's info of its
    /// numerical failure (0: success); when several calls failed, the smallest info. Rethrows
    /// the first exception a task raised (a bad device, a kernel error), after all tasks are
    /// done.
    int64_t wait();
    /// Once wait() has reported a failure, the call that failed: the one whose info it
    /// returned, or the one whose task (the first in submission order), or submission, threw
    /// what it rethrew. std::nullopt when wait() reported none.
    std::optional<SequenceCall> failed_call() const;
    /// The info recorded so far (tasks may still be running).
    int64_t info() const noexcept { return state_->info.value.load(std::memory_order_relaxed); }
    /// True once a numerical failure or a task's exception is known.
    bool failed() const noexcept { return state_->info.failed.cancelled() || state_->error != nullptr; }

    rt::Runtime& runtime() const noexcept { return *state_->rt; }
    /// Where the open call's factorization tasks record their info (internal: passed to tasks);
    /// `finding` is their finding_call(), if they look for the smallest info. With no call
    /// open, an info is recorded with no call, which failed_call() cannot name.
    detail::InfoTarget info_target(OnInfo on_info = OnInfo::continues,
                                   uint64_t finding = detail::InfoSlot::no_call) const noexcept
    {
        return {&state_->info, state_->open_call, finding, on_info};
    }
    /// Keeps `p` alive until the sequence's tasks are done (e.g. registrations of user memory).
    void keep_alive(std::shared_ptr<void const> p) { state_->kept.push_back(std::move(p)); }

    /// User memory registered in place for the sequence's tasks (the layout conversions), kept
    /// until they are done. A second registration of the same memory would be another handle,
    /// which the runtime would not order with the first: calls on the same bytes share one.
    /// The registration of bytes [begin, end) as `shape` (the element type and the sizes) made
    /// earlier in the sequence, or nullptr; throws InvalidArgument naming `what` when the
    /// bytes overlap memory registered as another shape and either call writes them (wait for
    /// the sequence first).
    std::shared_ptr<void> registration_of(void const* begin, void const* end, std::string const& shape, bool writes,
                                          std::string const& what);
    /// Keeps `registration` of bytes [begin, end) as `shape` until the sequence's tasks are done.
    void keep_registration(void const* begin, void const* end, std::string shape, bool writes,
                           std::shared_ptr<void> registration);

private:
    // A submission threw: the sequence fails with that exception, its tasks not yet started
    // do not run, and wait() rethrows it.
    void fail(std::exception_ptr e, uint64_t call) noexcept
    {
        if (!state_->error) {
            state_->error = e;
            state_->error_call = call;
        }
        state_->info.failed.cancel();
    }
    // Keeps t until it is done, so that wait() sees its error. Memory stays bounded: once the
    // list doubles, the tasks done are dropped from it (their errors harvested first), so that
    // it holds about twice the runtime's pending tasks at most, whatever the sequence's length.
    rt::TaskRef kept(uint64_t call, rt::TaskRef t)
    {
        state_->tasks.push_back({t, call});
        if (state_->tasks.size() >= state_->sweep_at) sweep_done_tasks();
        return t;
    }
    void sweep_done_tasks();
    // The number of the call a task submitted now belongs to: the open one, or a new call of
    // its own named `codelet`.
    uint64_t current_call(std::string_view codelet);

    struct Registration {
        std::uintptr_t begin, end;
        std::string shape;
        bool writes;  // a call on it writes into the memory
        std::shared_ptr<void> object;
    };
    struct Submitted {
        rt::TaskRef task;
        uint64_t call;  // the number of the call it belongs to
    };
    // Waits for a task (at once for one done), keeping the first error in submission order
    // (State::task_error).
    void harvest(Submitted const& submitted) noexcept;
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
    struct State {
        rt::Runtime* rt;
        detail::InfoSlot info;
        std::exception_ptr error;
        uint64_t error_call = 0;  // the call whose task or submission threw `error`
        std::vector<Submitted> tasks;  // not known to be done at the last sweep
        std::size_t sweep_at = 1024;   // sweep the done tasks out of `tasks` at this size
        std::exception_ptr task_error;  // the first task error found by a sweep...
        uint64_t task_error_id = UINT64_MAX;  // ... by task id (submission order)
        uint64_t task_error_call = 0;
        CallNames calls;
        uint64_t open_call = 0;          // 0: none open
        int open_depth = 0;              // the open call's scopes: its own and those inside it
        std::vector<std::shared_ptr<void const>> kept;
        std::vector<Registration> registrations;
        std::shared_ptr<void> one_blas_thread;  // OpenBLAS single-threaded while this lives
        std::deque<detail::FindingCallToken> finding_tokens;  // call c's is at c - 1
    };
    std::unique_ptr<State> state_;
};

/// The blocking form of asynchronous tile calls: runs `submit(s)` with a new sequence s on
/// `rt`, waits for it, and returns its info (rethrowing a task's exception), e.g.
///     int64_t info = synchronously(rt, [&](Sequence& s) { potrf_async(Uplo::lower, A, s); });
template <class Submit>
int64_t synchronously(rt::Runtime& rt, Submit&& submit)
{
    Sequence s{rt};
    submit(s);
    return s.wait();
}

}  // namespace tessera::la
