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

#include <cstdint>
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

class Sequence;
namespace detail {
struct InfoSlot;
}

/// What a factorization task records LAPACK's info with, passed to its codelet by value
/// (Sequence::info_target): the sequence's reduction of the smallest info, the call the task
/// belongs to, and whether a positive info stops the sequence. A task of a tile at global
/// offset kk that finds info i records kk + i (SLATE's kk + iinfo).
class InfoTarget {
public:
    /// Records info > 0 (0 and negative values are not recorded). Safe from any task.
    void record(int64_t info) const noexcept;

private:
    friend class Sequence;
    InfoTarget(detail::InfoSlot* slot, uint64_t call, uint64_t finding, OnInfo on_info) noexcept
        : slot_(slot), call_(call), finding_(finding), on_info_(on_info)
    {}
    detail::InfoSlot* slot_;
    uint64_t call_;
    uint64_t finding_;
    OnInfo on_info_;
};

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
    /// sequence has failed); a no-op returning an empty TaskRef if it has failed already
    /// (submits_nothing()).
    template <class... Params, class... Args>
    rt::TaskRef submit(rt::Codelet<Params...> const& cl, Args&&... args)
    {
        if (submits_nothing()) return {};
        const uint64_t call = current_call(cl.name);
        try {
            return kept(call, rt_->submit(cl, std::forward<Args>(args)...,
                                          rt::cancelled_by(failure_token())));
        } catch (...) {
            fail(std::current_exception(),
                 call);  // the call's tasks submitted before it must not go on alone
            throw;
        }
    }
    /// Submits a task of finding call `finding` (finding_call()) that records LAPACK's info
    /// (with info_target(finding)) and may run before one that records a smaller info
    /// (trtri's diagonal tiles, independent of each other). It still runs after a failure its
    /// own finding call recorded, so that the smallest info is found, but not after the
    /// sequence failed otherwise.
    template <class... Params, class... Args>
    rt::TaskRef submit_finding_info(uint64_t finding, rt::Codelet<Params...> const& cl,
                                    Args&&... args)
    {
        if (submits_nothing()) return {};
        const uint64_t call = current_call(cl.name);
        try {
            return kept(call, rt_->submit(cl, std::forward<Args>(args)...,
                                          rt::cancelled_by(finding_token(finding))));
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
    uint64_t finding_call();

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
    int64_t info() const noexcept;
    /// True once a numerical failure or a task's exception is known.
    bool failed() const noexcept;
    /// True when the calls on the sequence submit nothing more: it has failed, and this
    /// process runs its tasks alone. Under MPI's owner computes (rt::mpi::Context), every
    /// rank must submit the same tasks whatever it found, so a failed sequence still submits
    /// them there, and they are cancelled where they would run.
    bool submits_nothing() const noexcept;

    /// The runtime the sequence's tasks run on.
    rt::Runtime& runtime() const noexcept { return *rt_; }
    /// Where the open call's factorization tasks record their info (internal: passed to tasks);
    /// `finding` is their finding_call(), if they look for the smallest info. With no call
    /// open, an info is recorded with no call, which failed_call() cannot name.
    InfoTarget info_target(OnInfo on_info = OnInfo::continues,
                           uint64_t finding = no_finding_call) const noexcept;
    /// info_target's `finding` of tasks that do not look for the smallest info.
    static constexpr uint64_t no_finding_call = 0;
    /// Keeps `p` alive until the sequence's tasks are done (e.g. registrations of user memory).
    void keep_alive(std::shared_ptr<void const> p);

    /// User memory registered in place for the sequence's tasks (the layout conversions), kept
    /// until they are done. A second registration of the same memory would be another handle,
    /// which the runtime would not order with the first: calls on the same bytes share one.
    /// The registration of bytes [begin, end) as `shape` (the element type and the sizes) made
    /// earlier in the sequence, or nullptr; throws InvalidArgument naming `what` when the
    /// bytes overlap memory registered as another shape and either call writes them (wait for
    /// the sequence first).
    std::shared_ptr<void> registration_of(void const* begin, void const* end,
                                          std::string const& shape, bool writes,
                                          std::string const& what);
    /// Keeps `registration` of bytes [begin, end) as `shape` until the sequence's tasks are done.
    void keep_registration(void const* begin, void const* end, std::string shape, bool writes,
                           std::shared_ptr<void> registration);

private:
    // What the templates above need of the state, which the installed header does not show
    // (linalg/matrix/sequence_state.hpp).
    rt::CancelToken& failure_token() noexcept;
    rt::CancelToken& finding_token(uint64_t finding);
    // A submission threw: the sequence fails with that exception, its tasks not yet started
    // do not run, and wait() rethrows it.
    void fail(std::exception_ptr e, uint64_t call) noexcept;
    // Keeps t until it is done, so that wait() sees its error. Memory stays bounded: once the
    // list doubles, the tasks done are dropped from it (their errors harvested first), so that
    // it holds about twice the runtime's pending tasks at most, whatever the sequence's length.
    rt::TaskRef kept(uint64_t call, rt::TaskRef t);
    // The number of the call a task submitted now belongs to: the open one, or a new call of
    // its own named `codelet`.
    uint64_t current_call(std::string_view codelet);
    struct Registration;
    struct Submitted;
    void sweep_done_tasks();
    // Waits for a task (at once for one done), keeping the first error in submission order
    // (State::task_error).
    void harvest(Submitted const& submitted) noexcept;

    rt::Runtime* rt_;
    std::unique_ptr<State> state_;
};

/// The blocking form of asynchronous tile calls: runs `submit(s)` with a new sequence s on
/// `rt`, waits for it, and returns its info (rethrowing a task's exception), e.g.
///     int64_t info = synchronously(rt, [&](Sequence& s) { potrf_async(Uplo::lower, A, s); });
template <class Submit> int64_t synchronously(rt::Runtime& rt, Submit&& submit)
{
    Sequence s{rt};
    submit(s);
    return s.wait();
}

}  // namespace tessera::inline la
