/// @file scalar.hpp
/// The four precisions of the dense linear algebra, without a code generator (STYLE.md):
/// one template per algorithm over `Scalar T`, complex-only branches under
/// `if constexpr (is_complex_v<T>)`.
#pragma once

#include <complex>
#include <concepts>
#include <cstdint>
#include <limits>

namespace tessera::inline la {

/// float or double.
template <class T> concept Real = std::same_as<T, float> || std::same_as<T, double>;
/// True for `std::complex<float>` and `std::complex<double>`, false for any other type.
template <class T> inline constexpr bool is_complex_v = false;
template <class R> inline constexpr bool is_complex_v<std::complex<R>> = Real<R>;
/// float, double, `std::complex<float>` or `std::complex<double>` (LAPACK's s, d, c, z).
template <class T> concept Scalar = Real<T> || is_complex_v<T>;

namespace detail {
template <class T> struct real_of {
    using type = T;
};
template <class R> struct real_of<std::complex<R>> {
    using type = R;
};
}  // namespace detail
/// The real type underneath T: `real_t<std::complex<double>>` is double.
template <Scalar T> using real_t = typename detail::real_of<T>::type;

/// Machine epsilon of T's real type (LAPACK's lamch('E') times 2: the spacing at 1).
template <Scalar T> inline constexpr real_t<T> eps = std::numeric_limits<real_t<T>>::epsilon();

/// LAPACK's precision letter: 's', 'd', 'c' or 'z'.
template <Scalar T> constexpr char precision_letter() noexcept
{
    if constexpr (std::same_as<T, float>)
        return 's';
    else if constexpr (std::same_as<T, double>)
        return 'd';
    else if constexpr (std::same_as<T, std::complex<float>>)
        return 'c';
    else
        return 'z';
}

/// Picks the string of T's precision, as in
/// `by_precision<T>("sgemm", "dgemm", "cgemm", "zgemm")`.
template <Scalar T>
constexpr char const* by_precision(char const* s, char const* d, char const* c,
                                   char const* z) noexcept
{
    switch (precision_letter<T>()) {
    case 's':
        return s;
    case 'd':
        return d;
    case 'c':
        return c;
    default:
        return z;
    }
}

/// conj(x) for real and complex alike (std::conj of a real returns a complex).
template <Scalar T> constexpr T conj(T x) noexcept
{
    if constexpr (is_complex_v<T>)
        return std::conj(x);
    else
        return x;
}

/// Floating-point operations of one multiply-add in T: 2 for real, 8 for complex (LAPACK's
/// flop counts weigh a complex multiplication as 6 and an addition as 2).
template <Scalar T> inline constexpr double fma_flops = is_complex_v<T> ? 8.0 : 2.0;

}  // namespace tessera::inline la
