// CudaDevice: one GPU as the runtime holds it. As a memory node's DeviceBackend it allocates
// with cudaMalloc and copies on the stream of each direction's transfer channel (to the GPU,
// from it: the two copy engines work at once); for its worker it holds the
// compute stream, the cuBLAS and cuSOLVER handles bound to it, the cuFFT plans, a workspace,
// and one CudaTaskSlot per task in flight. Everything is created when the runtime starts, on
// the thread that starts it, so that a failure is a DeviceError from the Runtime constructor.
// Internal; CUDA headers allowed (runtime/drivers/cuda/).
#pragma once

#include "runtime/core/task_data.hpp"
#include "runtime/drivers/cuda/cuda_driver.hpp"

#include <tessera/rt/cuda.hpp>

#include <array>
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

namespace tessera::rt::detail {

/// Makes `device` current on the calling thread for its lifetime, then restores the previous
/// one: a user's thread that unregisters data keeps its own current device.
class DeviceGuard {
public:
    explicit DeviceGuard(int device) noexcept;
    ~DeviceGuard();
    DeviceGuard(DeviceGuard const&) = delete;
    DeviceGuard& operator=(DeviceGuard const&) = delete;
    /// Throws DeviceError if the device could not be made current.
    void check() const { cuda_check(status_, "cudaSetDevice"); }
    bool ok() const noexcept { return status_ == cudaSuccess; }

private:
    int previous_ = -1;
    cudaError_t status_ = cudaSuccess;
};

class CudaDevice;

/// A task in flight on a CUDA worker: its data on the GPU, the events around its kernels, its
/// completion functions and page-locked scratch, and the context its implementation receives.
class CudaTaskSlot {
public:
    Task* task = nullptr;
    std::size_t bytes = 0;  // its buffers' sizes: what it may pin on the GPU
    std::optional<TaskData> data;
    cudaEvent_t start = nullptr, end = nullptr;
    std::exception_ptr error;
    /// The worker completed other tasks while this one was being queued (make_room): the
    /// stream sat idle between its events, so their interval is no sample of its kernels.
    bool timing_disturbed = false;
    std::vector<std::function<void()>> completions;
    void* host_scratch = nullptr;  // CudaContext::host_scratch_bytes, page-locked
    CudaDevice* device = nullptr;
    CudaContext context;
};

class CudaDevice final : public DeviceBackend {
public:
    explicit CudaDevice(int ordinal);
    ~CudaDevice() override;
    CudaDevice(CudaDevice const&) = delete;
    CudaDevice& operator=(CudaDevice const&) = delete;

    int ordinal() const noexcept { return ordinal_; }
    /// The pool the node's memory comes from, or null on a GPU without memory pools.
    cudaMemPool_t node_pool() const noexcept { return node_pool_; }

    // ---- DeviceBackend ----
    void* allocate(std::size_t bytes) override;
    void free(void* p) noexcept override;
    void start_copy(TransferRequest const& r, CopyPath path, unsigned slot,
                    std::function<void()> ended) override;
    void finish_copy(CopyPath path, unsigned slot) override;
    bool copy_has_ended(CopyPath path, unsigned slot) noexcept override;
    void await_announcements() noexcept override;
    /// Called by a copy-end callback once its announcement is made.
    void announcement_made() noexcept;
    void copy_now(TransferRequest const& r) override;
    bool reaches(DeviceBackend const& other) const noexcept override;
    void add_peer(int ordinal) { peers_.insert(ordinal); }

    // ---- the worker's resources ----
    cudaStream_t stream() const noexcept { return stream_; }
    /// The sticky error of a GPU whose context a fault corrupted (an illegal address, a trap,
    /// an uncorrectable ECC error: every later call on it returns that error), or cudaSuccess.
    /// Asks without waiting; call it from the worker's thread, after one of its calls failed.
    cudaError_t sticky_error() const noexcept;
    std::array<CudaTaskSlot, cuda_tasks_in_flight>& slots() noexcept { return slots_; }
    /// Stream-ordered device workspace of at least `bytes` (CudaContext::workspace). Where the
    /// GPU has no room, the node frees unused memory (reclaim_node_memory) and it tries again,
    /// completing the worker's other tasks in flight if need be (make_room); throws
    /// DeviceError when even that leaves no room.
    void* workspace(std::size_t bytes);
    /// The cached cuFFT plan of this shape (CudaContext::fft_plan); its work area finds room
    /// as a workspace does.
    cufftHandle fft_plan(int rank, int const* n, int batch, cufftType type);
    /// Set by the worker while it runs: completes its tasks in flight (not the one running).
    std::function<void()> complete_tasks_in_flight;

private:
    void release() noexcept;  // frees the CUDA resources created so far
    /// Frees device memory after an allocation outside the node failed: the node's unused
    /// memory first; once it has none left, the worker's tasks in flight are completed, as
    /// they pin their data and only the worker's thread (this one) completes them, and the
    /// node tries again. False when nothing more can be freed.
    bool make_room(std::size_t bytes, bool& tasks_completed);

    int ordinal_;
    std::set<int> peers_;
    /// Queues r's copy on stream `s`: one block, or one cudaMemcpy2DAsync per plane.
    void enqueue_copy(TransferRequest const& r, cudaStream_t s);

    // per direction (CopyPath::to_device, from_device): its transfer channel's stream; the end
    // of each copy in flight there; and the stream that announces those ends to the channel
    // (cudaStreamAddCallback), one of its own, as a callback holds up its stream's later work
    std::array<cudaStream_t, 2> copy_streams_{};
    std::array<std::array<cudaEvent_t, copies_in_flight>, 2> copies_done_{};
    std::array<cudaStream_t, 2> copy_announcers_{};
    // the announcements queued and not yet made: await_announcements waits for them, as a
    // faulted GPU's stream synchronizes at once, before its callbacks have run
    std::mutex announcements_m_;
    std::condition_variable announcements_made_;
    unsigned announcements_pending_ = 0;
    cudaStream_t stream_ = nullptr;         // the worker's
    cudaMemPool_t node_pool_ = nullptr;     // the node's memory, with memory pools
    cudaStream_t memory_stream_ = nullptr;  // the order of its allocations and frees
    cublasHandle_t cublas_ = nullptr;
    cusolverDnHandle_t cusolver_ = nullptr;
    bool memory_pools_ = false;  // stream-ordered allocation (cudaMallocAsync) supported
    void* workspace_ = nullptr;
    std::size_t workspace_bytes_ = 0;
    void* cublas_workspace_ = nullptr;  // given to cuBLAS (cublasSetWorkspace)
    std::size_t cublas_workspace_bytes_ = 0;
    std::map<std::vector<int>, cufftHandle> plans_;
    std::array<CudaTaskSlot, cuda_tasks_in_flight> slots_;
};

}  // namespace tessera::rt::detail
