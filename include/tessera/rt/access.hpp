/// @file access.hpp
/// The arguments of a task: buffers with an access mode, by-value arguments, and options.
///
///     rt.submit(cl, read(a), readwrite(b), value(alpha), priority(3), tag(42));
///
/// Buffers and values come first, one per parameter of the codelet's kernel, in order; options
/// follow. Each argument is checked at compile time against the parameter it binds to:
/// read(h) binds only to a read-only view (Matrix<const T>), write(h) and readwrite(h) only to
/// a writable one (Matrix<T>), and so do scratch(h), reduce(h) and commute(h); value(x) binds to
/// any non-view parameter x converts to.
#pragma once

#include <tessera/rt/cancellation.hpp>
#include <tessera/rt/interfaces.hpp>

#include <array>
#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>

namespace tessera::rt {

namespace detail {
class DataState;
class Task;

/// How the runtime reaches what its public types keep private (their records: a handle's
/// DataState, a task reference's Task, a runtime's RuntimeImpl), as Taskflow's Task keeps its
/// Node* with friends: the installed API shows none of it. Members are templates, so that
/// each class is complete where they are used.
struct Internals {
    template <class H> static DataState* state(H const& h) noexcept { return h.state_.get(); }
    template <class H> static auto const& shared_state(H const& h) noexcept { return h.state_; }
    template <class H, class S> static H adopt_state(S&& s) noexcept
    {
        return H(std::forward<S>(s));
    }
    template <class R> static Task* task(R const& r) noexcept { return r.t_; }
    template <class R> static R adopt_task(Task* t) noexcept { return R(t); }
    template <class RT> static auto& impl(RT& r) noexcept { return *r.impl_; }
    template <class RT, class I> static std::unique_ptr<RT> adopt_runtime(std::unique_ptr<I> impl)
    {
        return std::unique_ptr<RT>(new RT(std::move(impl)));
    }
    template <class G, class V> static G guard(V view, Task* pseudo) noexcept
    {
        return G(view, pseudo);
    }
};
}  // namespace detail

template <Interface I> class Handle;
class TaskRef;

/// How a task accesses a buffer (StarPU's STARPU_R, W, RW, SCRATCH, REDUX, RW|COMMUTE).
enum class Mode : uint8_t {
    R = 1,         ///< read: fetched; concurrent readers allowed
    W = 2,         ///< write only: the previous content is not needed
    RW = 3,        ///< read and write
    SCRATCH = 4,   ///< a temporary buffer of the handle's shape, private to the task: no
                   ///< coherency, no transfer, content undefined at start and lost at the end
    REDUX = 8,     ///< contribute to a reduction: each worker accumulates into a private copy
                   ///< (started by the handle's init codelet); the next other access combines
                   ///< the copies with its reduction codelet
    COMMUTE = 19,  ///< read-write that commutes with the other COMMUTE accesses: they run in
                   ///< any order, never two at once
};
/// Whether mode m reads the buffer's previous content (R, RW, COMMUTE): bit R of m.
constexpr bool reads(Mode m) noexcept
{
    return (uint8_t(m) & uint8_t(Mode::R)) != 0;
}
/// Whether mode m writes the buffer, so that other replicas become invalid (W, RW, COMMUTE):
/// bit W of m.
constexpr bool writes(Mode m) noexcept
{
    return (uint8_t(m) & uint8_t(Mode::W)) != 0;
}
/// Accesses that go through coherency (R, W, RW, COMMUTE), as opposed to SCRATCH and REDUX.
constexpr bool coherent(Mode m) noexcept
{
    return reads(m) || writes(m);
}

/// A buffer argument: handle `state` accessed with mode M through interface I.
template <Interface I, Mode M> struct Access {
    detail::DataState* state;  ///< the handle's record (the runtime's, opaque)
};

/// Reads `h` (Mode::R); binds to the read-only view `const_view_t<I>`.
template <Interface I> Access<I, Mode::R> read(Handle<I> const& h) noexcept
{
    return {detail::Internals::state(h)};
}
/// Writes `h` without reading it first (Mode::W); binds to the writable view I.
template <Interface I> Access<I, Mode::W> write(Handle<I>& h) noexcept
{
    return {detail::Internals::state(h)};
}
/// Reads and writes `h` (Mode::RW); binds to the writable view I.
template <Interface I> Access<I, Mode::RW> readwrite(Handle<I>& h) noexcept
{
    return {detail::Internals::state(h)};
}
/// A private buffer of `h`'s shape (Mode::SCRATCH); binds to the writable view I.
template <Interface I> Access<I, Mode::SCRATCH> scratch(Handle<I>& h) noexcept
{
    return {detail::Internals::state(h)};
}
/// Contributes to a reduction into `h` (Mode::REDUX); binds to the writable view I. The
/// submit throws InvalidArgument unless `h.set_reduction(init, redux)` was called first.
template <Interface I> Access<I, Mode::REDUX> reduce(Handle<I>& h) noexcept
{
    return {detail::Internals::state(h)};
}
/// Reads and writes `h` in any order with the other commute(h) tasks (Mode::COMMUTE); binds
/// to the writable view I.
template <Interface I> Access<I, Mode::COMMUTE> commute(Handle<I>& h) noexcept
{
    return {detail::Internals::state(h)};
}

/// A by-value argument, copied into the task at submission.
template <class V> struct Value {
    V v;  ///< the argument, converted to the kernel's parameter type when the task is built
};
/// Passes `v` by value: copied (or moved, from an rvalue) as `std::decay_t<V>`; binds to any
/// parameter that is not a view and that `V` converts to.
template <class V> Value<std::decay_t<V>> value(V&& v)
{
    return {std::forward<V>(v)};
}

// ---- options ---------------------------------------------------------------------------------

/// Scheduling priority: higher runs earlier where the policy supports it (see Policy).
struct Priority {
    int value;  ///< higher first; a task given no priority option has 0
};
/// Task option: priority `p` (default 0). Higher runs earlier where the policy orders by
/// priority (prio, lws, dmdas...); eager only tells p > 0 apart.
constexpr Priority priority(int p) noexcept
{
    return {p};
}

/// A function run by the worker once the task's kernel is done, before its successors are
/// released. It may submit tasks (continuation passing). An exception it throws counts as
/// the task's failure.
struct Callback {
    std::function<void()> fn;  ///< run on the worker thread after the kernel
};
/// Task option: runs `f` after the task's kernel (see Callback).
inline Callback callback(std::function<void()> f)
{
    return {std::move(f)};
}

/// A tag: an application-chosen 64-bit name for the task, through which other tags can depend
/// on it before it exists (Runtime::declare_tag_deps, wait_tag).
using TagId = uint64_t;
/// Task option: names the task with a TagId.
struct Tag {
    TagId id;  ///< the task's tag
};
/// Task option: tag `id`. The submit throws InvalidArgument when the tag is in use (it has a
/// task, or was notified); Runtime::remove_tag frees it.
constexpr Tag tag(TagId id) noexcept
{
    return {id};
}

/// Runs the task on this worker, bypassing the scheduler (StarPU's execute_on_a_specific_worker).
struct OnWorker {
    unsigned worker;  ///< a WorkerId, below Runtime::worker_count()
};
/// Task option: runs the task on worker `w` (see OnWorker). The submit throws InvalidArgument
/// when w >= Runtime::worker_count() or when w has no implementation able to run the task.
constexpr OnWorker on_worker(unsigned w) noexcept
{
    return {w};
}

/// A scheduling context: a subset of the workers (Runtime::create_context). A task submitted
/// with in_context(c) runs only on c's workers.
struct ContextId {
    unsigned value = 0;  ///< 0: every worker
};
/// Task option: confines the task to the workers of a scheduling context.
struct InContext {
    ContextId context;  ///< from Runtime::create_context
};
/// Task option: runs the task only on the workers of context `c`. The submit throws
/// InvalidArgument for a context that Runtime::create_context did not return.
constexpr InContext in_context(ContextId c) noexcept
{
    return {c};
}

/// Explicit task-to-task dependencies: the task starts after each of these tasks completes.
struct After {
    std::span<TaskRef const> tasks;  ///< read at submission only
};
/// Task option: the task starts after every task of `tasks` has completed; a failure of one
/// of them cancels it. The submit throws InvalidArgument for an empty TaskRef or a task of
/// another runtime.
inline After after(std::span<TaskRef const> tasks) noexcept
{
    return {tasks};
}
/// Explicit dependencies on N tasks named one by one: what `after(t1, t2...)` returns.
template <std::size_t N> struct AfterN {
    std::array<TaskRef const*, N> tasks;  ///< the TaskRef arguments, read at submission only
};
/// Task option: the task starts after each of `t...` has completed, as after(tasks) does.
template <std::same_as<TaskRef>... T> AfterN<sizeof...(T)> after(T const&... t) noexcept
{
    return {{&t...}};
}

// ---- compile-time binding rules (STYLE.md snippet 3) ------------------------------------------

/// Whether argument type Arg may be passed for kernel parameter type Param: false unless a
/// specialization below (or in span.hpp) says so.
template <class Arg, class Param> inline constexpr bool binds_v = false;
/// @name Binding rules
//@{
/// read(h) binds to `const_view_t<I>`; the other modes of an `Access<I, M>` to I itself;
/// value(x) to a non-view parameter that x converts to.
template <Interface I> inline constexpr bool binds_v<Access<I, Mode::R>, const_view_t<I>> = true;
template <Interface I> inline constexpr bool binds_v<Access<I, Mode::RW>, I> = true;
template <Interface I> inline constexpr bool binds_v<Access<I, Mode::W>, I> = true;
template <Interface I> inline constexpr bool binds_v<Access<I, Mode::SCRATCH>, I> = true;
template <Interface I> inline constexpr bool binds_v<Access<I, Mode::REDUX>, I> = true;
template <Interface I> inline constexpr bool binds_v<Access<I, Mode::COMMUTE>, I> = true;
template <class V, class P>
    requires(!is_view_v<P> && std::convertible_to<V, P>)
inline constexpr bool binds_v<Value<V>, P> = true;
//@}

/// Arg (an Access or a Value) can be passed for a kernel parameter of type Param.
template <class Arg, class Param> concept BindsTo = binds_v<std::remove_cvref_t<Arg>, Param>;

/// Whether T is a task option type: false unless specialized below.
template <class T> inline constexpr bool is_option_v = false;
/// @name Task options
//@{
/// The option types, which a submit accepts after the kernel's arguments.
template <> inline constexpr bool is_option_v<Priority> = true;
template <> inline constexpr bool is_option_v<Callback> = true;
template <> inline constexpr bool is_option_v<Tag> = true;
template <> inline constexpr bool is_option_v<After> = true;
template <> inline constexpr bool is_option_v<OnWorker> = true;
template <> inline constexpr bool is_option_v<InContext> = true;
template <> inline constexpr bool is_option_v<CancelledBy> = true;
template <std::size_t N> inline constexpr bool is_option_v<AfterN<N>> = true;
//@}
/// A task option (priority, callback, tag, after, on_worker, in_context, cancelled_by).
template <class T> concept TaskOption = is_option_v<std::remove_cvref_t<T>>;

}  // namespace tessera::rt
