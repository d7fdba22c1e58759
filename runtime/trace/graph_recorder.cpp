#include "runtime/trace/graph_recorder.hpp"

namespace tessera::rt::detail {

void GraphRecorder::set_recording(bool on)
{
    std::lock_guard lock(m_);
    if (on && !recording_.load()) edges_.clear();
    recording_.store(on, std::memory_order_relaxed);
}

std::vector<DependencyEdge> GraphRecorder::edges() const
{
    std::lock_guard lock(m_);
    return edges_;
}

void GraphRecorder::record_slow(uint64_t from, uint64_t to, DependencyKind kind)
{
    std::lock_guard lock(m_);
    edges_.push_back({from, to, kind});
}

}  // namespace tessera::rt::detail
