/// @file error.hpp
/// Tessera's error types. Three layers (STYLE.md):
///  1. a bad argument at an API edge throws InvalidArgument (LAPACK's info < 0);
///  2. a numerical outcome is returned as LAPACK's info, never thrown;
///  3. an exception or device error inside a task is caught by its worker, cancels the tasks
///     that depend on it, and is rethrown by the wait that covers it.
/// The library never calls exit() or abort().
#pragma once

#include <concepts>
#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace tessera {

/// Base of every exception Tessera throws; remembers where it was raised.
class Error : public std::runtime_error {
public:
    /// An error with message `msg`, raised at `at` (by default, where it is constructed).
    explicit Error(std::string const& msg,
                   std::source_location at = std::source_location::current())
        : std::runtime_error(msg), at_(at)
    {}
    /// The source location of the check that failed.
    std::source_location const& where() const noexcept { return at_; }

private:
    std::source_location at_;
};

/// A bad argument or a misuse of the API (unregistered or partitioned handle, wrong
/// argument list, unknown scheduler name...). The message names the argument.
struct InvalidArgument : Error {
    using Error::Error;  ///< Error's constructor
};

/// A bad argument of a LAPACK-style routine: position() is its 1-based place in the routine's
/// argument list, so that the C API returns LAPACK's info = -position.
class InvalidLapackArgument : public InvalidArgument {
public:
    /// A bad argument at `position` (from 1) described by `msg`, raised at `at`.
    InvalidLapackArgument(std::string const& msg, int position,
                          std::source_location at = std::source_location::current())
        : InvalidArgument(msg, at), position_(position)
    {}
    /// The argument's place in the routine's argument list, from 1.
    int position() const noexcept { return position_; }

private:
    int position_;
};

/// A CUDA, cuBLAS, cuSOLVER or cuFFT failure.
struct DeviceError : Error {
    using Error::Error;  ///< Error's constructor
};

/// Always-on user-facing check: throws InvalidArgument(what) when `ok` is false.
inline void require(bool ok, std::string_view what,
                    std::source_location at = std::source_location::current())
{
    if (!ok) [[unlikely]]
        throw InvalidArgument(std::string(what), at);
}

/// The same check with a message built only when it fails, for hot paths (a submit checks
/// every buffer): `require(ok, [&] { return "argument " + std::to_string(k) + ": ..."; })`.
template <std::invocable F>
    requires std::convertible_to<std::invoke_result_t<F>, std::string>
void require(bool ok, F&& what, std::source_location at = std::source_location::current())
{
    if (!ok) [[unlikely]]
        throw InvalidArgument(std::string(what()), at);
}

}  // namespace tessera
