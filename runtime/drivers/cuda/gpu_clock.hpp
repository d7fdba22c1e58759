// GpuClock: CUDA events placed on the trace's host clock, so that a traced GPU task shows when
// its kernels ran, not when the worker queued them (with 4 tasks in flight on one stream, the
// host's stamps made each task last from its launch to the end of those queued before it).
//
// An origin event is recorded on a stream of its own, which the GPU reaches at once, and
// stamped with the host time halfway between its record and its synchronisation (a few µs of
// uncertainty). An event that passed after it is then at origin + cudaEventElapsedTime (0.5 µs
// resolution; a float of ms, so about 1 µs of rounding 16 s after the origin: the origin is
// renewed each second while nothing is in flight). Only while a trace records. Internal.
#pragma once

#include "runtime/trace/trace_recorder.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace tessera::rt::detail {

class GpuClock {
public:
    /// For the GPU current on the calling thread, which must make every later call.
    explicit GpuClock(TraceRecorder const& tracer) noexcept : tracer_(tracer) {}
    ~GpuClock();
    GpuClock(GpuClock const&) = delete;
    GpuClock& operator=(GpuClock const&) = delete;

    /// Sets the origin when there is none, or renews it when it is over a second old and
    /// `nothing_in_flight` (no event still to be placed was recorded before it). Waits for the
    /// origin event only: a few µs.
    void refresh(bool nothing_in_flight) noexcept;

    /// The host time (TraceRecorder's ns) when `event` passed on the GPU: an event recorded
    /// after the origin, that has passed. -1 when it cannot tell (no origin, a CUDA error).
    int64_t host_ns(cudaEvent_t event) const noexcept;

private:
    TraceRecorder const& tracer_;
    cudaStream_t stream_ = nullptr;  // the origin's own, idle: the GPU reaches it at once
    cudaEvent_t origin_ = nullptr;
    int64_t origin_ns_ = -1;  // -1: no origin
    bool broken_ = false;     // a CUDA call failed: no more origins, the host's stamps stay
};

}  // namespace tessera::rt::detail
