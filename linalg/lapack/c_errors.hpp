// How the C API (include/tessera/tessera.h) turns C++ exceptions into return codes: a bad
// argument into LAPACK's -position, anything else into TESSERA_ERROR, the message kept for
// tessera_last_error() on the calling thread. Exceptions never cross into C. Shared by the
// linear algebra's C functions (c_api.cpp) and the FFT's (fft/c_api.cpp). Internal.
#pragma once

#include <tessera/error.hpp>
#include <tessera/tessera.h>

#include <exception>
#include <string>
#include <type_traits>

namespace tessera::capi {

/// This thread's message for tessera_last_error().
inline std::string& last_error()
{
    thread_local std::string message;
    return message;
}

/// Keeps a message for tessera_last_error(); out of memory for it, keeps none.
inline void remember(char const* what) noexcept
{
    try {
        last_error() = what;
    } catch (...) {
        last_error().clear();
    }
}

/// Runs `call` (returning LAPACK's info or void) and maps exceptions to LAPACK's info.
template <class F> int guarded(F&& call) noexcept
{
    try {
        last_error().clear();
        if constexpr (std::is_void_v<decltype(call())>) {
            call();
            return 0;
        } else {
            return int(call());
        }
    } catch (InvalidLapackArgument const& e) {
        remember(e.what());
        return -e.position();
    } catch (std::exception const& e) {
        remember(e.what());
    } catch (...) {
        remember("unknown exception");
    }
    return TESSERA_ERROR;
}

}  // namespace tessera::capi
