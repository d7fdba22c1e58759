// The library's runtime held by one LAPACK-style call, from its start to its return, so that
// finalize() on another thread never destroys it under the call. Internal.
#pragma once

#include <tessera/rt/runtime.hpp>

namespace tessera::inline la::detail {

/// Holds the library's runtime (starting it if need be) until destroyed: finalize() waits
/// until no call holds it. A call made while finalize() waits waits for it to end, unless the
/// thread is already inside a call (posv's potrf and potrs go on).
class LibraryCall {
public:
    LibraryCall();
    ~LibraryCall();
    LibraryCall(LibraryCall const&) = delete;
    LibraryCall& operator=(LibraryCall const&) = delete;
    rt::Runtime& runtime() const noexcept { return *rt_; }

private:
    rt::Runtime* rt_;
};

}  // namespace tessera::inline la::detail
