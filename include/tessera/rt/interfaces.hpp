/// @file interfaces.hpp
/// Data interfaces: the shapes of data a handle can describe, and the typed views a kernel
/// receives. A view is a pointer plus a layout; `Matrix<double>` lets a kernel write,
/// `Matrix<const double>` only read. Registration takes a view over user memory:
///
///     std::vector<double> a(m * n);
///     rt::Handle A{rt, rt::Matrix<double>{a.data(), m, n, /*ld=*/m}};
///     rt.submit(scale, readwrite(A), value(2.0));   // kernel: void(Matrix<double>, double)
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tessera::rt {

/// The kind of a data interface (StarPU's variable, vector, matrix and block interfaces).
enum class InterfaceKind : uint8_t { variable, vector, matrix, block };

/// Type-erased description of a registered buffer's shape: up to 3 dimensions, column-major,
/// with leading dimensions. Element (i, j, k) sits at ptr + (i + j*ld + k*ldz) * elem_size.
struct Layout {
    InterfaceKind kind = InterfaceKind::variable;  ///< the view type it was taken from
    std::size_t elem_size = 0;                     ///< bytes per element, sizeof(T)
    /// @name Extents
    //@{
    /// Extents (rows, columns, planes); 1 for the dimensions the interface lacks.
    int64_t nx = 1, ny = 1, nz = 1;
    //@}
    /// @name Leading dimensions
    //@{
    /// Distance between columns and between planes, in elements.
    int64_t ld = 1, ldz = 1;
    //@}

    /// Number of elements described (not counting the gaps of the leading dimensions).
    int64_t elements() const noexcept { return nx * ny * nz; }
    /// Bytes of the described elements.
    std::size_t bytes() const noexcept { return std::size_t(elements()) * elem_size; }
    /// Field by field: same kind, element size, extents and leading dimensions.
    friend bool operator==(Layout const&, Layout const&) = default;
};

/// One value of type T (StarPU's variable interface).
template <class T> struct Variable {
    using value_type = T;  ///< the element type, const in a read-only view
    static constexpr InterfaceKind kind = InterfaceKind::variable;  ///< recorded in Layout::kind
    T* ptr = nullptr;                                               ///< the value

    /// The value (ptr must not be null).
    T& operator*() const noexcept { return *ptr; }
    /// The value's address, for member access when T is a class.
    T* operator->() const noexcept { return ptr; }
};

/// n contiguous values.
template <class T> struct Vector {
    using value_type = T;  ///< the element type, const in a read-only view
    static constexpr InterfaceKind kind = InterfaceKind::vector;  ///< recorded in Layout::kind
    T* ptr = nullptr;                                             ///< the first element
    int64_t n = 0;                                                ///< number of elements

    /// Element i, 0 <= i < n (not checked): ptr[i].
    T& operator[](int64_t i) const noexcept { return ptr[i]; }
    /// The elements as the range [ptr, ptr + n), for range-for and the standard algorithms.
    T* begin() const noexcept { return ptr; }
    /// One past the last element, ptr + n.
    T* end() const noexcept { return ptr + n; }
};

/// An m x n column-major matrix with leading dimension ld >= m.
template <class T> struct Matrix {
    using value_type = T;  ///< the element type, const in a read-only view
    static constexpr InterfaceKind kind = InterfaceKind::matrix;  ///< recorded in Layout::kind
    T* ptr = nullptr;                                             ///< element (0, 0)
    /// @name Shape
    //@{
    /// m rows, n columns; column j starts ld elements after column j - 1. Registration
    /// requires ld >= max(1, m).
    int64_t m = 0, n = 0, ld = 0;
    //@}

    /// Element (i, j), 0-based, not checked: ptr[i + j*ld].
    T& operator()(int64_t i, int64_t j) const noexcept { return ptr[i + j * ld]; }
};

/// An nx x ny x nz block; element (i, j, k) at ptr[i + j*ldy + k*ldz].
template <class T> struct Block {
    using value_type = T;  ///< the element type, const in a read-only view
    static constexpr InterfaceKind kind = InterfaceKind::block;  ///< recorded in Layout::kind
    T* ptr = nullptr;                                            ///< element (0, 0, 0)
    /// @name Shape
    //@{
    /// Extents nx, ny, nz; ldy elements between consecutive j, ldz between consecutive k.
    /// Registration requires ldy >= max(1, nx) and ldz >= max(1, ldy*ny).
    int64_t nx = 0, ny = 0, nz = 0, ldy = 0, ldz = 0;
    //@}

    /// Element (i, j, k), 0-based, not checked: ptr[i + j*ldy + k*ldz].
    T& operator()(int64_t i, int64_t j, int64_t k) const noexcept
    {
        return ptr[i + j * ldy + k * ldz];
    }
};

namespace detail {
template <class V> struct view_traits : std::false_type {};
template <template <class> class V, class T> struct view_traits_of : std::true_type {
    using element = T;
    using const_view = V<std::add_const_t<T>>;
    using mutable_view = V<std::remove_const_t<T>>;
};
template <class T> struct view_traits<Variable<T>> : view_traits_of<Variable, T> {};
template <class T> struct view_traits<Vector<T>> : view_traits_of<Vector, T> {};
template <class T> struct view_traits<Matrix<T>> : view_traits_of<Matrix, T> {};
template <class T> struct view_traits<Block<T>> : view_traits_of<Block, T> {};
}  // namespace detail

/// True for the view types above (the buffer parameters of a kernel).
template <class V>
inline constexpr bool is_view_v = detail::view_traits<std::remove_cvref_t<V>>::value;
template <class V> concept View = is_view_v<V>;
/// The read-only view of an interface: const_view_t<Matrix<double>> is Matrix<const double>.
template <View V> using const_view_t = typename detail::view_traits<V>::const_view;
/// The writable view of an interface.
template <View V> using mutable_view_t = typename detail::view_traits<V>::mutable_view;
/// An interface a handle can be registered with: a view over mutable elements.
template <class V> concept Interface = View<V> && !std::is_const_v<typename V::value_type>;

/// The layout described by a view (its pointer aside).
template <View V> Layout layout_of(V const& v) noexcept
{
    Layout l;
    l.kind = V::kind;
    l.elem_size = sizeof(typename V::value_type);
    if constexpr (V::kind == InterfaceKind::vector) {
        l.nx = v.n;
        l.ld = v.n;
    } else if constexpr (V::kind == InterfaceKind::matrix) {
        l.nx = v.m;
        l.ny = v.n;
        l.ld = v.ld;
        l.ldz = v.ld * v.n;
    } else if constexpr (V::kind == InterfaceKind::block) {
        l.nx = v.nx;
        l.ny = v.ny;
        l.nz = v.nz;
        l.ld = v.ldy;
        l.ldz = v.ldz;
    }
    return l;
}

/// The view of type V over `ptr` with layout `l` (the inverse of layout_of).
template <View V> V view_of(void* ptr, Layout const& l) noexcept
{
    using T = typename V::value_type;
    T* p = static_cast<T*>(ptr);
    if constexpr (V::kind == InterfaceKind::variable)
        return V{p};
    else if constexpr (V::kind == InterfaceKind::vector)
        return V{p, l.nx};
    else if constexpr (V::kind == InterfaceKind::matrix)
        return V{p, l.nx, l.ny, l.ld};
    else
        return V{p, l.nx, l.ny, l.nz, l.ld, l.ldz};
}

}  // namespace tessera::rt
