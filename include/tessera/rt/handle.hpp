/// @file handle.hpp
/// `Handle<I>`: data registered with the runtime. Registration puts user memory under the
/// runtime's control; from then on tasks access it through the handle (read(h), write(h),
/// readwrite(h)) and the application through an acquire guard. Unregistering (explicitly or
/// by the destructor) waits for every task that uses the handle and leaves valid data in the
/// user's buffer. Handles are move-only.
///
///     std::vector<double> x(n);
///     {
///         rt::Handle hx{rt, rt::Vector<double>{x.data(), n}};
///         rt.submit(fill, write(hx), value(1.0));
///         auto g = hx.acquire<rt::Mode::R>();   // waits for `fill`
///         double first = g.view()[0];
///     }                                          // unregisters: x holds the result
#pragma once

#include <tessera/error.hpp>
#include <tessera/rt/access.hpp>
#include <tessera/rt/codelet.hpp>
#include <tessera/rt/interfaces.hpp>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace tessera::rt {

class Runtime;

namespace detail {
std::shared_ptr<DataState> register_data(Runtime& rt, void* ptr, Layout const& layout);
void unregister_data(DataState& s) noexcept;
bool data_registered(DataState const& s) noexcept;
void* data_host_ptr(DataState const& s) noexcept;
void set_data_label(DataState& s, std::string label);
Layout const& data_layout(DataState const& s) noexcept;
Task* acquire_data(DataState* s, Mode m);
void release_data(Task* pseudo_task) noexcept;
void set_reduction(DataState* s, void const* init, CodeletOps const* init_ops, void const* redux,
                   CodeletOps const* redux_ops);
}  // namespace detail

/// Access to a handle's data from the application, held until the guard is released or
/// destroyed; tasks submitted meanwhile that conflict with the mode wait for the release.
template <View V> class AcquireGuard {
public:
    /// Takes over o's access; o releases nothing.
    AcquireGuard(AcquireGuard&& o) noexcept
        : view_(o.view_), pseudo_(std::exchange(o.pseudo_, nullptr))
    {}
    AcquireGuard& operator=(AcquireGuard&&) = delete;
    ~AcquireGuard() { release(); }

    /// The data, valid in host memory while the guard is held.
    V const& view() const noexcept { return view_; }
    /// Member access to the view: `g->ptr`, `g->n`.
    V const* operator->() const noexcept { return &view_; }
    /// Gives the data back to the runtime (idempotent).
    void release() noexcept
    {
        if (pseudo_) detail::release_data(std::exchange(pseudo_, nullptr));
    }

private:
    friend struct detail::Internals;
    AcquireGuard(V view, detail::Task* pseudo) noexcept : view_(view), pseudo_(pseudo) {}
    V view_;
    detail::Task* pseudo_;
};

template <Interface I> class ReadOnlyHandle;

/// Registered data described by interface I (Variable<T>, Vector<T>, Matrix<T>, Block<T>).
template <Interface I> class Handle {
public:
    /// An empty handle (not registered).
    Handle() = default;
    /// Registers the memory `view` describes, which must stay alive until unregistration.
    /// Throws InvalidArgument for a null pointer, negative sizes or ld < m.
    Handle(Runtime& rt, I view)
        : state_(detail::register_data(rt, checked(view.ptr), layout_of(view)))
    {}
    /// Takes over o's registration; o is left empty (not registered).
    Handle(Handle&&) noexcept = default;
    /// Unregisters this handle's data (waiting for its tasks), then takes over o's
    /// registration; o is left empty. Self-assignment does nothing.
    Handle& operator=(Handle&& o) noexcept
    {
        if (this != &o) {
            unregister();
            state_ = std::move(o.state_);
        }
        return *this;
    }
    ~Handle() { unregister(); }

    /// Waits for every task using the handle, then ends its registration; the user's buffer
    /// holds valid data afterwards. Idempotent; noexcept: task errors are reported by waits.
    void unregister() noexcept
    {
        if (state_) detail::unregister_data(*state_);
        state_.reset();
    }
    /// True while the handle is registered (false once moved from or unregistered).
    bool registered() const noexcept { return state_ && detail::data_registered(*state_); }

    /// Names the handle in traces, e.g. "(2,3)" or "x" (a TileMatrix names its tiles "(i,j)").
    /// Call it before submitting tasks on the handle: tasks read it when they end.
    void set_label(std::string label)
    {
        require(registered(), "handle: set_label: not registered");
        detail::set_data_label(*state_, std::move(label));
    }

    /// The registered memory, as a view (for the application: access it only through acquire).
    I view() const
    {
        require(registered(), "handle: not registered");
        return view_of<I>(detail::data_host_ptr(*state_), detail::data_layout(*state_));
    }

    /// Waits until the tasks submitted before that conflict with mode M are done, and gives
    /// the application access in host memory until the guard is released. Rethrows the
    /// exception of a failed task that wrote the data.
    template <Mode M = Mode::RW> auto acquire()
    {
        using V = std::conditional_t<M == Mode::R, const_view_t<I>, I>;
        require(state_ != nullptr, "acquire: handle is not registered");
        detail::Task* pseudo = detail::acquire_data(state_.get(), M);
        return detail::Internals::guard<AcquireGuard<V>>(
            view_of<V>(detail::data_host_ptr(*state_), detail::data_layout(*state_)), pseudo);
    }

    /// A handle with no user memory behind it: the runtime allocates its home buffer, whose
    /// content is undefined until a task writes it (for SCRATCH and W-first accesses, and
    /// reductions). `shape` gives the sizes; its pointer must be null.
    static Handle temporary(Runtime& rt, I shape)
    {
        require(shape.ptr == nullptr, "Handle::temporary: the shape's pointer must be null");
        return Handle(detail::register_data(rt, nullptr, layout_of(shape)));
    }

    /// Sets the reduction used by REDUX accesses (reduce(h)): `init` sets a private copy to the
    /// neutral element (0 for a sum), `redux` computes a = a (+) b. The operation must be
    /// commutative and associative. The handle's value before the contributions is folded in.
    template <class Init, class Redux> void set_reduction(Init const& init, Redux const& redux)
    {
        static_assert(std::is_same_v<Init, Codelet<I>>,
                      "init codelet: Codelet<I> (one writable buffer)");
        static_assert(std::is_same_v<Redux, Codelet<I, const_view_t<I>>>,
                      "reduction codelet: Codelet<I, const_view_t<I>> computing a = a (+) b");
        require(state_ != nullptr, "set_reduction: handle is not registered");
        detail::set_reduction(state_.get(), &init, &detail::CodeletOpsFor<I>::ops, &redux,
                              &detail::CodeletOpsFor<I, const_view_t<I>>::ops);
    }

private:
    friend struct detail::Internals;
    friend class ReadOnlyHandle<I>;
    /// Adopts an existing record (partitions' children).
    explicit Handle(std::shared_ptr<detail::DataState> s) noexcept : state_(std::move(s)) {}
    template <class P> static P* checked(P* p)
    {
        require(
            p != nullptr,
            "register: null data pointer (Handle::temporary registers data the runtime allocates)");
        return p;
    }
    std::shared_ptr<detail::DataState> state_;
};

/// Deduces the interface from the view: `Handle h{rt, Matrix<double>{...}}` is a
/// `Handle<Matrix<double>>`.
template <Interface I> Handle(Runtime&, I) -> Handle<I>;

/// Registered data that tasks only read, over memory that may be const (the A of a LAPACK-style
/// call): read(h) is the only access it gives, so the runtime never writes through it (its
/// home replica stays valid, and unregistering it copies nothing back).
///
///     rt::ReadOnlyHandle a{rt, rt::Matrix<double const>{a_ptr, m, k, lda}};
///     rt.submit(gemm_cl, read(a), readwrite(c));
template <Interface I> class ReadOnlyHandle {
public:
    /// An empty handle (not registered).
    ReadOnlyHandle() = default;
    /// Registers the memory `view` describes, which must stay alive until unregistration.
    /// Throws InvalidArgument for a null pointer, negative sizes or ld < m.
    ReadOnlyHandle(Runtime& rt, const_view_t<I> view)
        : h_(detail::Internals::adopt_state<Handle<I>>(detail::register_data(
              rt, const_cast<void*>(static_cast<void const*>(Handle<I>::checked(view.ptr))),
              layout_of(view))))
    {}
    /// The handle, to read: a const Handle takes no write access.
    Handle<I> const& handle() const noexcept { return h_; }
    /// True while the handle is registered (false once moved from or unregistered).
    bool registered() const noexcept { return h_.registered(); }
    /// Waits for every task using the handle, then ends its registration; nothing is copied
    /// back, the user's memory was never written. Idempotent.
    void unregister() noexcept { h_.unregister(); }

private:
    Handle<I> h_;
};

/// Deduces the interface from a read-only view: `ReadOnlyHandle a{rt, Matrix<double const>{...}}`
/// is a `ReadOnlyHandle<Matrix<double>>`.
template <View V> ReadOnlyHandle(Runtime&, V) -> ReadOnlyHandle<mutable_view_t<V>>;

/// Reads a read-only handle (Mode::R), as read(h.handle()); binds to `const_view_t<I>`.
template <Interface I> Access<I, Mode::R> read(ReadOnlyHandle<I> const& h) noexcept
{
    return read(h.handle());
}

}  // namespace tessera::rt
