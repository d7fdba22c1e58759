// The simulator's twin of tests/cuda/test_kernels.cu (-DTESSERA_ENABLE_CUDA=SIM): the same
// kernels as host loops queued on the stream; the misconfigured launch fails at once, as
// it does on a GPU; the trap faults the simulated device.
#include "cuda/test_kernels.hpp"

#include "tests/cudasim/sim.hpp"

#include <chrono>
#include <thread>

namespace tessera_test {
namespace sim = tessera::cudasim;

namespace {
/// Queues `body` on `stream` if the n doubles at x are device memory; else faults the device.
template <class Body> void launch(double const* x, int64_t n, cudaStream_t stream, Body body)
{
    if (sim::kernel_touches(sim::device_of(stream), x, std::size_t(n) * sizeof(double),
                            "test kernel: its vector"))
        sim::submit(stream, std::move(body));
}
}  // namespace

void launch_fill(double* x, int64_t n, double value, Stream s)
{
    launch(x, n, s, [=] {
        for (int64_t i = 0; i < n; ++i) x[i] = value;
    });
}

void launch_add(double* x, int64_t n, double value, Stream s)
{
    launch(x, n, s, [=] {
        for (int64_t i = 0; i < n; ++i) x[i] += value;
    });
}

void launch_count_mismatches(double const* x, int64_t n, double value, int64_t* mismatches,
                             Stream s)
{
    if (!sim::kernel_touches(sim::device_of(s), mismatches, sizeof(int64_t),
                             "test kernel: the counter"))
        return;
    launch(x, n, s, [=] {
        for (int64_t i = 0; i < n; ++i) *mismatches += x[i] != value;
    });
}

void launch_spin(double seconds, Stream s)
{
    sim::submit(s,
                [seconds] { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); });
}

void launch_misconfigured(Stream)
{
    sim::record(cudaErrorInvalidConfiguration);
}

void launch_trap(Stream s)
{
    sim::Device* d = &sim::device_of(s);
    sim::submit(s, [d] { sim::fault(*d, cudaErrorLaunchFailure, "test kernel: __trap()"); });
}

}  // namespace tessera_test
