// The CUDA simulator: the CUDA runtime, cuBLAS, cuSOLVER and cuFFT calls that Tessera makes,
// carried out on host threads, so that the CUDA driver and the CUDA kernels' wrappers run
// (under the sanitizers too) on a machine without a GPU. Built instead of the CUDA libraries
// with -DTESSERA_ENABLE_CUDA=SIM; never a substitute for a run on a real GPU
// (docs/gpu-validation.md).
//
// What it models, and so what it can catch:
// - Devices (TESSERA_CUDASIM_DEVICES, default 1) with a memory capacity
//   (TESSERA_CUDASIM_MEMORY, default 1GB): cudaMalloc beyond it fails with
//   cudaErrorMemoryAllocation. New device memory is filled with 0xFF bytes (NaN in every
//   precision), as garbage that a missing copy would expose. Memory pools (stream-ordered
//   allocation) are reported as supported unless TESSERA_CUDASIM_MEMORY_POOLS=0.
// - Streams: each created stream is a thread that runs its operations in order, later than
//   the call that queued them; events mark a point of a stream, which another stream may
//   wait for (cudaStreamWaitEvent); a stream callback (cudaStreamAddCallback) runs even on a
//   faulted device, with its error, where a host function (cudaLaunchHostFunc) is skipped. Host memory given to an
//   asynchronous copy is read when the stream gets there, pageable or not: a caller that
//   reuses it too early gets wrong data (and a ThreadSanitizer report). The default and
//   per-thread streams run their operations at once, in the calling thread.
// - Every pointer a kernel or a copy of a given direction touches is checked against the
//   device allocations, extents included: a host pointer given to cuBLAS, or a tile that runs
//   past its allocation, is reported on stderr and faults the device, as on a GPU.
// - A fault is sticky: once a device has faulted, its operations are skipped and every call
//   on it returns the error, as a CUDA context does after a kernel fault. A test may also make
//   copies to the host fail without a fault (refuse_copies_to_host), or a device refuse its
//   context (set_unavailable).
// Internal to the simulator.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace tessera::cudasim {

using Clock = std::chrono::steady_clock;

class Stream;

struct Device {
    int ordinal = 0;
    std::size_t capacity = 0;  // bytes cudaMalloc may hand out
    std::size_t used = 0;      // guarded by the state's mutex
    std::set<int> peers;       // peer access enabled towards these devices
    std::set<Stream*> streams;
    std::atomic<cudaError_t> fault{cudaSuccess};   // sticky
    std::atomic<int> copies_to_host_to_refuse{0};  // see refuse_copies_to_host
    std::atomic<bool> unavailable{false};          // see set_unavailable
};

/// A created stream: a thread running its operations in the order they were queued.
class Stream {
public:
    explicit Stream(Device& device);
    ~Stream();  // runs what is queued, then stops
    Stream(Stream const&) = delete;
    Stream& operator=(Stream const&) = delete;

    /// Queues `op`; returns its ticket. A faulted device skips its operations, but for those
    /// queued with `even_after_fault` (a stream callback, a wait on another stream).
    std::uint64_t enqueue(std::function<void()> op, bool even_after_fault = false);
    /// The ticket of the last operation queued (0: none).
    std::uint64_t last() const;
    bool done(std::uint64_t ticket) const;
    void wait(std::uint64_t ticket) const;
    Device& device() const noexcept { return device_; }

private:
    void run();

    Device& device_;
    mutable std::mutex m_;
    mutable std::condition_variable cv_;
    struct Operation {
        std::uint64_t ticket;
        std::function<void()> run;
        bool even_after_fault;
    };
    std::deque<Operation> queue_;
    std::uint64_t queued_ = 0, completed_ = 0;
    bool stop_ = false;
    std::thread thread_;
};

/// Where a pointer lies.
enum class Memory { device, pinned_host, pageable_host };

/// The whole simulated machine, made on first use from the environment.
class State {
public:
    static State& get();

    int device_count() const noexcept { return int(devices_.size()); }
    Device& device(int ordinal) { return *devices_[std::size_t(ordinal)]; }
    /// The calling thread's current device (cudaSetDevice).
    Device& current();
    static thread_local int current_ordinal;
    static thread_local cudaError_t last_error;
    int memory_pools = 1;  // cudaDevAttrMemoryPoolsSupported

    std::mutex m;  // guards the maps below and Device::used, peers, Pool::access, streams
    /// A memory pool (cudaMemPoolCreate), its handle a Pool*.
    struct Pool {
        int device;            // where its memory lives
        std::set<int> access;  // other devices granted read-write access (cudaMemPoolSetAccess)
    };
    std::set<Pool*> pools;
    struct Allocation {
        std::size_t bytes;
        int device;  // -1: host memory (cudaHostAlloc or cudaHostRegister)
        bool registered;
        Pool* pool = nullptr;  // from cudaMallocFromPoolAsync
    };
    std::map<std::uintptr_t, Allocation> allocations;

    /// The memory holding [p, p + bytes): device memory only when the whole range lies inside
    /// one device allocation. *owner gets the device (or null). Throws nothing.
    Memory classify(void const* p, std::size_t bytes, Device** owner = nullptr);

private:
    State();
    std::vector<std::unique_ptr<Device>> devices_;
};

/// Sets device `ordinal`'s memory capacity (for tests that make cudaMalloc run out before the
/// runtime's own accounting does); returns the previous one.
std::size_t set_capacity(int ordinal, std::size_t bytes);
/// Sets device `ordinal`'s capacity to what is allocated there now plus `bytes` (the
/// runtime's own buffers, cuBLAS's workspace, stay); returns the previous capacity.
std::size_t leave_free(int ordinal, std::size_t bytes);

/// Makes the next `count` copies from device `ordinal`'s memory to host memory fail with
/// cudaErrorUnknown, copying nothing and leaving the device usable (not sticky): a write-back
/// that fails, for the tests of what the runtime then keeps.
void refuse_copies_to_host(int ordinal, int count);

/// Makes device `ordinal` refuse a context, as a GPU in exclusive-process mode that another
/// process holds: cudaMemGetInfo (the first call that needs its context) returns
/// cudaErrorDevicesUnavailable.
void set_unavailable(int ordinal, bool unavailable);

/// Records a non-success status as the thread's last error (cudaGetLastError) and returns it.
cudaError_t record(cudaError_t status);

/// The stream behind a cudaStream_t; null for the default and per-thread streams, whose
/// operations run at once in the calling thread.
Stream* stream_of(cudaStream_t s);

/// Runs `op` on stream `s` (at once for the default streams); see Stream::enqueue.
void submit(cudaStream_t s, std::function<void()> op, bool even_after_fault = false);

/// The device a stream's work runs on: its own, or the current one for the default streams.
Device& device_of(cudaStream_t s);

/// Faults `device` (sticky) with `status` after printing `why` on stderr: what a kernel that
/// touches memory it must not does to a GPU.
void fault(Device& device, cudaError_t status, std::string const& why);

/// The device a kernel queued on `stream` runs on, or nullptr when that device has faulted:
/// its sticky error is then recorded and left in `status` (cudaSuccess otherwise).
Device* device_for_launch(cudaStream_t stream, cudaError_t& status);

/// A kernel queued for `device` touches [p, p + bytes): true when that range is empty or lies
/// inside one device allocation; otherwise faults the device (cudaErrorIllegalAddress), naming
/// `what`, and returns false.
bool kernel_touches(Device& device, void const* p, std::size_t bytes, std::string const& what);

/// Bytes a column-major m x n matrix with leading dimension ld spans (0 when empty).
inline std::size_t matrix_bytes(std::int64_t m, std::int64_t n, std::int64_t ld, std::size_t elem)
{
    if (m <= 0 || n <= 0) return 0;
    return (std::size_t(n - 1) * std::size_t(ld) + std::size_t(m)) * elem;
}

}  // namespace tessera::cudasim
