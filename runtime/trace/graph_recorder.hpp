// GraphRecorder: the task graph's edges as the runtime adds them, while recording is on
// (Runtime::record_dependencies): what the tests check dependencies with and what the tools
// draw. Internal.
#pragma once

#include <tessera/rt/runtime.hpp>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace tessera::rt::detail {

class GraphRecorder {
public:
    /// Turning it on clears what an earlier recording kept.
    void set_recording(bool on);
    bool recording() const noexcept { return recording_.load(std::memory_order_relaxed); }
    /// An edge from task `from` to task `to` (their sequence numbers); a no-op while off.
    void record(uint64_t from, uint64_t to, DependencyKind kind)
    {
        if (recording()) record_slow(from, to, kind);
    }
    std::vector<DependencyEdge> edges() const;

private:
    void record_slow(uint64_t from, uint64_t to, DependencyKind kind);

    std::atomic<bool> recording_{false};
    mutable std::mutex m_;
    std::vector<DependencyEdge> edges_;
};

}  // namespace tessera::rt::detail
