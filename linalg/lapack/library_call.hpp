// The library's runtime held by one LAPACK-style call, from its start to its return, so that
// finalize() on another thread never destroys it under the call. Internal.
#pragma once

#include <tessera/rt/runtime.hpp>

#include "linalg/kernels/cpu/blas_lapack.hpp"

#include <utility>

namespace tessera::inline la::detail {

/// Holds the library's runtime (starting it if need be) until destroyed: finalize() waits
/// until no call holds it. A call made while finalize() waits waits for it to end, unless the
/// thread is already inside a call (posv's potrf and potrs go on).
class LibraryCall {
public:
    /// `routine` names the call in traces (rt::TracedCall): "potrf", "gesv"...
    explicit LibraryCall(char const* routine);
    ~LibraryCall();
    LibraryCall(LibraryCall const&) = delete;
    LibraryCall& operator=(LibraryCall const&) = delete;
    rt::Runtime& runtime() const noexcept { return *rt_; }

private:
    rt::TracedCall traced_;
    rt::Runtime* rt_;
};

/// True while the calling thread is inside a LAPACK-style call (a LibraryCall exists on it):
/// the drop-in LAPACK (linalg/dropin/) sends the BLAS and LAPACK calls such a call makes to the
/// system's libraries, never back into the library.
bool inside_library_call() noexcept;

/// True on a runtime's worker thread (inside a task or its callback). A LAPACK-style call made
/// there never submits tasks: it would have to wait for them, and a worker waiting on the
/// runtime can deadlock it (every worker may be waiting). It runs its kernels inline instead.
inline bool inside_task() noexcept
{
    return rt::Runtime::current_worker() != rt::no_worker;
}

/// Runs `kernels()` on the calling thread, with OpenBLAS on that one thread (the runtime
/// owns the cores): a nested call as a user of a BLAS expects it, the sequential routine.
template <class Kernels> decltype(auto) run_inline(Kernels&& kernels)
{
    const auto one_blas_thread = la::kernels::cpu::single_threaded_blas();
    return std::forward<Kernels>(kernels)();
}

}  // namespace tessera::inline la::detail
