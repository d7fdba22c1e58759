/// @file span.hpp
/// rt::Span<V>: a kernel parameter that takes a variable number of buffers of one interface,
/// typed like a single buffer (StarPU's STARPU_DATA_MODE_ARRAY, checked at compile time). LU's
/// panel works on a whole tile column, its row interchanges touch every tile of a column, an
/// FFT stage works on a block of rows:
///
///     void scale_column(rt::Span<rt::Matrix<double>> tiles, double alpha)
///     {
///         for (rt::Matrix<double> t : tiles) ...;          // or tiles[i], tiles.size()
///     }
///     const rt::Codelet<rt::Span<rt::Matrix<double>>, double> scale{
///         .name = "scale_column", .cpu = &scale_column};
///     std::vector<rt::Handle<rt::Matrix<double>>*> column = ...;
///     rt.submit(scale, rt::readwrite_all(column), rt::value(2.0));
///
/// `read_all(r)` binds to a `Span<const_view_t<I>>`, `write_all(r)` and `readwrite_all(r)` to a
/// `Span<I>`. The range r holds handles, pointers to handles or reference_wrappers of them
/// (std::vector, std::array, std::span...); it is read at submission only. Each element is
/// one buffer of the task, exactly as if it were passed alone: its implicit dependencies, its
/// replica on the executing unit's memory node (transfers, eviction pins), its place in the
/// task's footprint. An empty range is allowed (the kernel gets an empty span). A handle that
/// appears twice, in a span or beside it, is merged as two single buffers are: one replica,
/// one dependency, the union of the modes; both elements see the same memory. Each submit
/// compares every buffer with the others: tens to a few hundred buffers per task are cheap.
/// A parallel (SPMD) task gets the same span on every rank; parallel_rank() and
/// parallel_size() say which part is its own.
#pragma once

#include <tessera/rt/access.hpp>
#include <tessera/rt/interfaces.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <ranges>
#include <type_traits>

namespace tessera::rt {

template <Interface I> class Handle;

namespace detail {

/// One buffer of a task as the executing unit sees it: the replica's address on the unit's
/// memory node, its layout, and the access mode.
struct BufferSlot {
    DataState* state = nullptr;
    void* ptr = nullptr;
    Layout const* layout = nullptr;
    Mode mode = Mode::R;
};

template <class... Params> struct Signature;

}  // namespace detail

/// The buffers a task received for a span parameter, as views of type V (Matrix<double>,
/// Matrix<const double>...), in the order of the range given at submission.
template <View V> class Span {
public:
    using value_type = V;           ///< the view type of each buffer
    using size_type = std::size_t;  ///< the type of size() and of indices

    /// A random-access iterator yielding the views by value.
    class iterator {
    public:
        /// @name Iterator traits
        //@{
        /// Random access; dereferencing yields a view by value (reference is V, not V&).
        using iterator_category = std::random_access_iterator_tag;
        using iterator_concept = std::random_access_iterator_tag;
        using value_type = V;
        using difference_type = std::ptrdiff_t;
        using reference = V;
        //@}

        /// A singular iterator (compare and assign it only).
        iterator() = default;
        /// The view of the buffer it points to.
        V operator*() const noexcept { return view_of<V>(p_->ptr, *p_->layout); }
        /// The view i buffers further: *(*this + i).
        V operator[](difference_type i) const noexcept { return *(*this + i); }
        /// @name Random-access iterator arithmetic
        //@{
        /// Moves by one buffer (++, --) or by d buffers, and compares positions, as a pointer
        /// into the span's buffers does. Iterators compare only within one span.
        iterator& operator++() noexcept
        {
            ++p_;
            return *this;
        }
        iterator operator++(int) noexcept { return iterator(p_++); }
        iterator& operator--() noexcept
        {
            --p_;
            return *this;
        }
        iterator operator--(int) noexcept { return iterator(p_--); }
        iterator& operator+=(difference_type d) noexcept
        {
            p_ += d;
            return *this;
        }
        iterator& operator-=(difference_type d) noexcept
        {
            p_ -= d;
            return *this;
        }
        friend iterator operator+(iterator i, difference_type d) noexcept { return i += d; }
        friend iterator operator+(difference_type d, iterator i) noexcept { return i += d; }
        friend iterator operator-(iterator i, difference_type d) noexcept { return i -= d; }
        friend difference_type operator-(iterator a, iterator b) noexcept { return a.p_ - b.p_; }
        friend bool operator==(iterator, iterator) = default;
        friend auto operator<=>(iterator, iterator) = default;
        //@}

    private:
        friend class Span;
        explicit iterator(detail::BufferSlot const* p) noexcept : p_(p) {}
        detail::BufferSlot const* p_ = nullptr;
    };

    /// An empty span.
    Span() = default;
    /// Number of buffers: the size of the range given at submission.
    size_type size() const noexcept { return n_; }
    /// True when the range given at submission was empty.
    bool empty() const noexcept { return n_ == 0; }
    /// Element i (i < size()) as a view.
    V operator[](size_type i) const noexcept
    {
        return view_of<V>(slots_[i].ptr, *slots_[i].layout);
    }
    /// The first buffer, for range-for: `for (Matrix<double> t : tiles)`.
    iterator begin() const noexcept { return iterator(slots_); }
    /// One past the last buffer.
    iterator end() const noexcept { return iterator(slots_ + n_); }

private:
    template <class... Params> friend struct detail::Signature;
    Span(detail::BufferSlot const* slots, size_type n) noexcept : slots_(slots), n_(n) {}
    detail::BufferSlot const* slots_ = nullptr;
    size_type n_ = 0;
};

/// Whether T is a Span (a kernel parameter that takes any number of buffers).
template <class T> inline constexpr bool is_span_v = false;
/// True: `Span<V>` is a span.
template <View V> inline constexpr bool is_span_v<Span<V>> = true;

namespace detail {

/// The handle an element of a span's range refers to: the element itself, the pointee of a
/// pointer, or the referent of a reference_wrapper.
template <class E> decltype(auto) handle_of(E&& e) noexcept
{
    using D = std::remove_cvref_t<E>;
    if constexpr (std::is_pointer_v<D>)
        return *e;
    else if constexpr (requires {
                           typename D::type;
                           requires std::same_as<D, std::reference_wrapper<typename D::type>>;
                       })
        return e.get();
    else
        return std::forward<E>(e);
}

/// The handle type (Handle<I> or Handle<I> const) the elements of range R refer to.
template <class R>
using range_handle_t =
    std::remove_reference_t<decltype(handle_of(std::declval<std::ranges::range_reference_t<R>>()))>;

template <class H> inline constexpr bool is_handle_v = false;
template <Interface I> inline constexpr bool is_handle_v<Handle<I>> = true;
template <class H> struct handle_interface;
template <Interface I> struct handle_interface<Handle<I>> {
    using type = I;
};

}  // namespace detail

/// A range whose elements are (or point to, or wrap) handles of one interface.
template <class R>
concept HandleRange = std::ranges::input_range<R> &&
    detail::is_handle_v<std::remove_const_t<detail::range_handle_t<R>>>;
/// A HandleRange through which the handles may be written (not handles of a const range).
template <class R>
concept WritableHandleRange = HandleRange<R> && !std::is_const_v<detail::range_handle_t<R>>;

/// The interface of the handles of range R.
template <HandleRange R>
using range_interface_t =
    typename detail::handle_interface<std::remove_const_t<detail::range_handle_t<R>>>::type;

/// A span argument: every handle of `range` accessed with mode M through interface I.
template <Interface I, Mode M, class R> struct AccessAll {
    R* range;  ///< the range given to read_all, write_all or readwrite_all; read at submission
};

/// @name Span arguments
//@{
/// The span arguments: every handle of range `r`, read (binds to `Span<const_view_t<I>>`),
/// written without being read first, or read and written (both bind to `Span<I>`). A range of
/// handles that is const can only be read. Each handle must be registered and not
/// partitioned, else the submit throws InvalidArgument naming the argument and the element.
template <class R>
    requires HandleRange<R> AccessAll<range_interface_t<R>, Mode::R, std::remove_reference_t<R>>
    read_all(R&& r)
noexcept
{
    return {&r};
}
template <class R>
    requires WritableHandleRange<R>
        AccessAll<range_interface_t<R>, Mode::W, std::remove_reference_t<R>> write_all(R&& r)
noexcept
{
    return {&r};
}
template <class R>
    requires WritableHandleRange<R>
        AccessAll<range_interface_t<R>, Mode::RW, std::remove_reference_t<R>> readwrite_all(R&& r)
noexcept
{
    return {&r};
}
//@}

/// @name Span binding rules
//@{
/// read_all(r) binds to `Span<const_view_t<I>>`, write_all(r) and readwrite_all(r) to
/// `Span<I>` (see binds_v).
template <Interface I, class R>
inline constexpr bool binds_v<AccessAll<I, Mode::R, R>, Span<const_view_t<I>>> = true;
template <Interface I, class R>
inline constexpr bool binds_v<AccessAll<I, Mode::W, R>, Span<I>> = true;
template <Interface I, class R>
inline constexpr bool binds_v<AccessAll<I, Mode::RW, R>, Span<I>> = true;
//@}

}  // namespace tessera::rt
