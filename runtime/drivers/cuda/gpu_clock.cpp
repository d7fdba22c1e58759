#include "runtime/drivers/cuda/gpu_clock.hpp"

namespace tessera::rt::detail {

GpuClock::~GpuClock()
{
    if (origin_) (void)cudaEventDestroy(origin_);
    if (stream_) (void)cudaStreamDestroy(stream_);
    (void)cudaGetLastError();
}

void GpuClock::refresh(bool nothing_in_flight) noexcept
{
    if (broken_) return;
    constexpr int64_t renew_after_ns = 1'000'000'000;
    if (origin_ns_ >= 0 && !(nothing_in_flight && tracer_.now() - origin_ns_ > renew_after_ns))
        return;
    if (!stream_ && (cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking) != cudaSuccess ||
                     cudaEventCreate(&origin_) != cudaSuccess)) {
        broken_ = true;
        (void)cudaGetLastError();
        return;
    }
    const int64_t before = tracer_.now();
    if (cudaEventRecord(origin_, stream_) != cudaSuccess ||
        cudaEventSynchronize(origin_) != cudaSuccess) {
        broken_ = true;
        origin_ns_ = -1;
        (void)cudaGetLastError();
        return;
    }
    origin_ns_ = before + (tracer_.now() - before) / 2;
}

int64_t GpuClock::host_ns(cudaEvent_t event) const noexcept
{
    if (origin_ns_ < 0) return -1;
    float ms = 0;
    if (cudaEventElapsedTime(&ms, origin_, event) != cudaSuccess || ms < 0) {
        (void)cudaGetLastError();
        return -1;
    }
    return origin_ns_ + int64_t(double(ms) * 1e6);
}

}  // namespace tessera::rt::detail
