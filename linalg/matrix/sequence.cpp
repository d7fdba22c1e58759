// Sequence: waiting for the tasks of chained asynchronous calls.
#include "linalg/matrix/sequence_state.hpp"

#include "linalg/kernels/cpu/blas_lapack.hpp"
#include "runtime/core/runtime_impl.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>

namespace tessera::inline la {

Sequence::Sequence(rt::Runtime& rt) : rt_(&rt), state_(std::make_unique<State>())
{
    // Its wait would block a worker on the runtime, which can deadlock it: the tile calls, all
    // of which run on a sequence, are refused inside a task before they submit anything (the
    // LAPACK-style calls run inline there instead).
    require(rt::Runtime::current_worker() == rt::no_worker,
            "Sequence: cannot be used inside a task (its wait could deadlock the runtime); the "
            "tile calls "
            "cannot either: submit the tile algorithm's tasks from the application, or call the "
            "LAPACK-style routine, which runs inline in a task");
    state_->one_blas_thread =
        kernels::cpu::single_threaded_blas();  // every tile call has a sequence
}

Sequence::~Sequence()
{
    if (!state_) return;
    try {
        (void)wait();
    } catch (...) {  // reported only to wait(): a destructor must not throw
    }
}

int64_t Sequence::wait()
{
    require(rt::Runtime::current_worker() == rt::no_worker,
            "Sequence::wait: cannot wait from inside a task (it could deadlock)");
    // Every task is waited for, even after a failure: nothing may still run on the data when
    // the caller goes on.
    for (Submitted const& submitted : state_->tasks) harvest(submitted);
    state_->tasks.clear();
    state_->sweep_at = 1024;
    state_->kept.clear();
    state_->registrations.clear();
    if (state_->task_error && !state_->error) {
        state_->error = state_->task_error;
        state_->error_call = state_->task_error_call;
    }
    state_->task_error = nullptr;
    state_->task_error_id = UINT64_MAX;
    if (state_->error) std::rethrow_exception(state_->error);
    return info();
}

void Sequence::harvest(Submitted const& submitted) noexcept
{
    try {
        submitted.task.wait();  // rethrows its error (a cancelled task's: its cause's)
    } catch (...) {
        if (submitted.task.id() < state_->task_error_id) {
            state_->task_error = std::current_exception();
            state_->task_error_id = submitted.task.id();
            state_->task_error_call = submitted.call;
        }
    }
}

void Sequence::sweep_done_tasks()
{
    std::vector<Submitted>& tasks = state_->tasks;
    std::size_t kept = 0;
    for (Submitted& s : tasks) {
        if (s.task.done())
            harvest(s);
        else
            tasks[kept++] = std::move(s);
    }
    tasks.resize(kept);
    state_->sweep_at = std::max<std::size_t>(1024, 2 * kept);
}

std::optional<SequenceCall> Sequence::failed_call() const
{
    const uint64_t call = state_->error ? state_->error_call : state_->info.call_of_value();
    if (call == 0) return std::nullopt;
    return SequenceCall{state_->calls.name(call), int64_t(call)};
}

uint64_t detail::CallNames::add(std::string_view routine)
{
    if (runs_.empty() || runs_.back().routine != routine)
        runs_.push_back({count_ + 1, std::string(routine)});
    return ++count_;
}

std::string const& detail::CallNames::name(uint64_t call) const
{
    require(call >= 1 && call <= count_, "Sequence: no call " + std::to_string(call));
    auto after = std::upper_bound(runs_.begin(), runs_.end(), call,
                                  [](uint64_t c, Run const& r) { return c < r.first; });
    return std::prev(after)->routine;
}

Sequence::CallScope Sequence::call(std::string const& routine)
{
    if (state_->open_depth == 0) {
        state_->open_call =
            state_->calls.add(routine);  // first: if it throws, no call is left open
    }
    ++state_->open_depth;
    return CallScope{state_.get()};
}

Sequence::CallScope::~CallScope()
{
    if (--state_->open_depth == 0) state_->open_call = 0;
}

uint64_t Sequence::current_call(std::string_view codelet)
{
    if (state_->open_call != 0) return state_->open_call;
    return state_->calls.add(codelet);
}

std::shared_ptr<void> Sequence::registration_of(void const* begin, void const* end,
                                                std::string const& shape, bool writes,
                                                std::string const& what)
{
    // Every other registration that overlaps is checked, also those after a match: a write
    // through the match would not be ordered with their reads.
    const auto b = reinterpret_cast<std::uintptr_t>(begin),
               e = reinterpret_cast<std::uintptr_t>(end);
    Registration* match = nullptr;
    for (Registration& r : state_->registrations) {
        if (r.begin == b && r.end == e && r.shape == shape) {
            match = &r;
            continue;
        }
        require(e <= r.begin || r.end <= b || !(writes || r.writes),
                what + " overlaps an array converted earlier in the sequence as " + r.shape +
                    ", not " + shape +
                    ", and one of the two writes it: wait for the sequence first");
    }
    if (!match) return nullptr;
    match->writes = match->writes || writes;
    return match->object;
}

void Sequence::keep_registration(void const* begin, void const* end, std::string shape, bool writes,
                                 std::shared_ptr<void> registration)
{
    state_->registrations.push_back({reinterpret_cast<std::uintptr_t>(begin),
                                     reinterpret_cast<std::uintptr_t>(end), std::move(shape),
                                     writes, std::move(registration)});
}

// ---- what the templates and the tasks need of the state ---------------------------------------------

void InfoTarget::record(int64_t info) const noexcept
{
    if (info > 0) slot_->record(info, call_, finding_, on_info_);
}

InfoTarget Sequence::info_target(OnInfo on_info, uint64_t finding) const noexcept
{
    return {&state_->info, state_->open_call, finding, on_info};
}

uint64_t Sequence::finding_call()
{
    return state_->finding_tokens.emplace_back(state_->info, state_->finding_tokens.size() + 1)
        .call();
}

int64_t Sequence::info() const noexcept
{
    return state_->info.value.load(std::memory_order_relaxed);
}

bool Sequence::failed() const noexcept
{
    return state_->info.failed.cancelled() || state_->error != nullptr;
}

bool Sequence::submits_nothing() const noexcept
{
    return failed() && rt::detail::Internals::impl(*rt_).placement() == nullptr;
}

void Sequence::keep_alive(std::shared_ptr<void const> p)
{
    state_->kept.push_back(std::move(p));
}

rt::CancelToken& Sequence::failure_token() noexcept
{
    return state_->info.failed;
}

rt::CancelToken& Sequence::finding_token(uint64_t finding)
{
    require(finding >= 1 && finding <= state_->finding_tokens.size(), [&] {
        return "submit_finding_info: " + std::to_string(finding) +
               " is not a finding_call() of this sequence";
    });
    return state_->finding_tokens[std::size_t(finding - 1)];
}

void Sequence::fail(std::exception_ptr e, uint64_t call) noexcept
{
    if (!state_->error) {
        state_->error = e;
        state_->error_call = call;
    }
    state_->info.failed.cancel();
}

rt::TaskRef Sequence::kept(uint64_t call, rt::TaskRef t)
{
    if (!t) return t;  // another process runs it (rt::mpi::Context's owner computes)
    state_->tasks.push_back({t, call});
    if (state_->tasks.size() >= state_->sweep_at) sweep_done_tasks();
    return t;
}

}  // namespace tessera::inline la
