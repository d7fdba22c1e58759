// The CUDA driver (DESIGN.md): each GPU is a memory node, whose DeviceBackend allocates with
// cudaMalloc and copies on streams of its own, and a worker, whose thread (pinned to a core
// reserved for it) runs the codelets' CUDA implementations on the worker's stream with cuBLAS,
// cuSOLVER and cuFFT handles bound to it, keeping several tasks in flight so that the next
// task's data is copied in while the current one's kernels run.
//
// This header has no CUDA types. Everything here exists only in builds with CUDA
// (TESSERA_HAVE_CUDA): drivers.cpp lists the driver there, and the core never names it.
// Internal.
#pragma once

#include "runtime/data/device_backend.hpp"
#include "runtime/drivers/driver.hpp"

#include <tessera/rt/sched.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace tessera::rt::detail {

class RuntimeImpl;

/// The driver: finds the GPUs (RuntimeConfig::ncuda), gives each a memory node (its capacity
/// RuntimeConfig::cuda_memory, else 90% of what was free) and a worker on a core of its own,
/// after the CPU workers' cores.
std::unique_ptr<Driver> make_cuda_driver();

struct CudaDeviceInfo {
    int ordinal = 0;
    std::string name;              // "NVIDIA H100 80GB HBM3"
    std::size_t total_memory = 0;  // bytes
    std::size_t free_memory = 0;   // bytes free when the runtime started
};

/// The GPUs the runtime may use, at most `limit` of them (< 0: all). Without a device or a
/// driver, none, after a one-line notice on stderr (once per process; not when limit is 0).
/// A GPU that refuses its context (exclusive-process mode held by another process, a lost
/// GPU) is left out with a one-line notice naming it, and the next one is taken.
std::vector<CudaDeviceInfo> find_cuda_devices(int limit);

/// Opens GPU `ordinal` as a memory node's device: its transfer streams and allocator.
std::unique_ptr<DeviceBackend> open_cuda_device(int ordinal);

/// Enables peer access between every pair of the opened GPUs that allows it.
void connect_cuda_peers(std::vector<DeviceBackend*> const& devices);

/// Tasks a CUDA worker keeps in flight on its stream: while one runs, the next one's data
/// arrives and its kernels are queued behind it.
inline constexpr unsigned cuda_tasks_in_flight = 4;

/// The loop of the worker of GPU `device` (opened by open_cuda_device): pops, launches and
/// completes tasks until the runtime stops; sleeps when there is nothing to do.
void cuda_worker_loop(RuntimeImpl& rt, WorkerId w, DeviceBackend& device);

}  // namespace tessera::rt::detail
