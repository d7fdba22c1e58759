/// @file enums.hpp
/// BLAS/LAPACK's option arguments as enums with LAPACK's letters, so that a C API argument
/// converts with a check (`uplo_from_char('L')`) and a C++ one cannot be misspelled.
#pragma once

#include <tessera/error.hpp>

#include <string>

namespace tessera::inline la {

/// Which triangle of a matrix is referenced: A = L L^H (lower) or A = U^H U (upper).
enum class Uplo : char { lower = 'L', upper = 'U', general = 'G' };
/// op(A): A, A^T or A^H.
enum class Op : char { notrans = 'N', trans = 'T', conjtrans = 'C' };
/// Which side a triangular or symmetric matrix multiplies from: op(A) B or B op(A).
enum class Side : char { left = 'L', right = 'R' };
/// Whether a triangular matrix has an implicit unit diagonal.
enum class Diag : char { nonunit = 'N', unit = 'U' };
/// Matrix norms: ||A||_1 (max column sum), ||A||_inf (max row sum), max |a_ij|, Frobenius.
enum class Norm : char { one = '1', inf = 'I', max = 'M', fro = 'F' };

namespace detail {
/// Whether `op` is one of the three operations (an Op cast from another letter is not).
constexpr bool is_operation(Op op) noexcept
{
    return op == Op::notrans || op == Op::trans || op == Op::conjtrans;
}
/// Whether `kind` is one of the four norms (a Norm cast from another letter, 'O' or 'E'
/// included, is not: norm_from_char maps those).
constexpr bool is_norm(Norm kind) noexcept
{
    return kind == Norm::one || kind == Norm::inf || kind == Norm::max || kind == Norm::fro;
}
inline char upper_letter(char c) noexcept
{
    return (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c;
}
[[noreturn]] inline void bad_letter(char c, char const* arg, char const* allowed)
{
    throw InvalidArgument(std::string(arg) + ": '" + std::string(1, c) + "' is not one of " +
                          allowed);
}
}  // namespace detail

/// 'L'/'l' or 'U'/'u' (as LAPACK: case-insensitive); anything else throws naming `arg`.
inline Uplo uplo_from_char(char c, char const* arg = "uplo")
{
    switch (detail::upper_letter(c)) {
    case 'L':
        return Uplo::lower;
    case 'U':
        return Uplo::upper;
    default:
        detail::bad_letter(c, arg, "'L', 'U'");
    }
}
/// 'N', 'T' or 'C'.
inline Op op_from_char(char c, char const* arg = "trans")
{
    switch (detail::upper_letter(c)) {
    case 'N':
        return Op::notrans;
    case 'T':
        return Op::trans;
    case 'C':
        return Op::conjtrans;
    default:
        detail::bad_letter(c, arg, "'N', 'T', 'C'");
    }
}
/// 'L' or 'R'.
inline Side side_from_char(char c, char const* arg = "side")
{
    switch (detail::upper_letter(c)) {
    case 'L':
        return Side::left;
    case 'R':
        return Side::right;
    default:
        detail::bad_letter(c, arg, "'L', 'R'");
    }
}
/// 'N' or 'U'.
inline Diag diag_from_char(char c, char const* arg = "diag")
{
    switch (detail::upper_letter(c)) {
    case 'N':
        return Diag::nonunit;
    case 'U':
        return Diag::unit;
    default:
        detail::bad_letter(c, arg, "'N', 'U'");
    }
}
/// '1'/'O', 'I', 'M' or 'F'/'E'.
inline Norm norm_from_char(char c, char const* arg = "norm")
{
    switch (detail::upper_letter(c)) {
    case '1':
    case 'O':
        return Norm::one;
    case 'I':
        return Norm::inf;
    case 'M':
        return Norm::max;
    case 'F':
    case 'E':
        return Norm::fro;
    default:
        detail::bad_letter(c, arg, "'1', 'O', 'I', 'M', 'F', 'E'");
    }
}

/// The letter LAPACK uses for the value.
///@{
constexpr char to_char(Uplo u) noexcept
{
    return char(u);
}
constexpr char to_char(Op o) noexcept
{
    return char(o);
}
constexpr char to_char(Side s) noexcept
{
    return char(s);
}
constexpr char to_char(Diag d) noexcept
{
    return char(d);
}
constexpr char to_char(Norm n) noexcept
{
    return char(n);
}
///@}

}  // namespace tessera::inline la
