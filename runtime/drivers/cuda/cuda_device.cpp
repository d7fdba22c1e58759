// GPUs found, opened and connected; a GPU as a memory node's device (allocation and copies).
#include "runtime/drivers/cuda/cuda_device.hpp"

#include "runtime/data/coherency.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

namespace tessera::rt::detail {

// ---- finding the GPUs ------------------------------------------------------------------------

// What a newcomer on a machine without a (usable) GPU reads once: what Tessera uses instead,
// why, and how to silence it. A missing GPU or driver is the common case and no fault.
static std::string no_gpu_notice(cudaError_t status)
{
    std::string why;
    switch (status) {
    case cudaSuccess:
    case cudaErrorNoDevice:
        why = "no GPU found";
        break;
    case cudaErrorInsufficientDriver:
        why = "no GPU usable: the NVIDIA driver is missing or older than the CUDA runtime this "
              "build uses";
        break;
    default:
        why = std::string("no GPU usable (") + cudaGetErrorString(status) + ")";
        break;
    }
    return "tessera: " + why +
           "; computing on the CPU cores. Set TESSERA_NCUDA=0 to skip looking for GPUs and this "
           "notice.";
}

std::vector<CudaDeviceInfo> find_cuda_devices(int limit)
{
    std::vector<CudaDeviceInfo> found;
    if (limit == 0) return found;
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        static std::once_flag noticed;  // one line per process, however many runtimes start
        std::call_once(noticed,
                       [&] { std::fprintf(stderr, "%s\n", no_gpu_notice(status).c_str()); });
        return found;
    }
    for (int d = 0; d < count && (limit < 0 || int(found.size()) < limit); ++d) {
        CudaDeviceInfo info;
        info.ordinal = d;
        try {
            cudaDeviceProp prop{};
            cuda_check(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties");
            info.name = prop.name;
            DeviceGuard on(d);
            on.check();
            // the first call that needs the device's context: refused where another process
            // holds a GPU in exclusive-process mode, or the GPU is lost
            cuda_check(cudaMemGetInfo(&info.free_memory, &info.total_memory), "cudaMemGetInfo");
        } catch (DeviceError const& e) {
            (void)cudaGetLastError();
            std::fprintf(stderr, "tessera: CUDA device %d left out: %s\n", d, e.what());
            continue;
        }
        found.push_back(std::move(info));
    }
    return found;
}

std::unique_ptr<DeviceBackend> open_cuda_device(int ordinal)
{
    return std::make_unique<CudaDevice>(ordinal);
}

void connect_cuda_peers(std::vector<DeviceBackend*> const& devices)
{
    for (DeviceBackend* a : devices)
        for (DeviceBackend* b : devices) {
            if (a == b) continue;
            auto& from = static_cast<CudaDevice&>(*a);
            auto& to = static_cast<CudaDevice&>(*b);
            int can = 0;
            if (cudaDeviceCanAccessPeer(&can, from.ordinal(), to.ordinal()) != cudaSuccess || !can)
                continue;
            DeviceGuard on(from.ordinal());
            cudaError_t s = cudaDeviceEnablePeerAccess(to.ordinal(), 0);
            if (s == cudaErrorPeerAccessAlreadyEnabled) s = cudaSuccess;
            // A pool's memory (the node's, with memory pools) does not follow peer access: the
            // pool grants it to the other device.
            if (s == cudaSuccess && to.node_pool()) {
                cudaMemAccessDesc access{};
                access.location.type = cudaMemLocationTypeDevice;
                access.location.id = from.ordinal();
                access.flags = cudaMemAccessFlagsProtReadWrite;
                s = cudaMemPoolSetAccess(to.node_pool(), &access, 1);
            }
            if (s == cudaSuccess) from.add_peer(to.ordinal());
            (void)cudaGetLastError();  // a refusal only means copies go through the host
        }
}

// ---- DeviceGuard -------------------------------------------------------------------------------

DeviceGuard::DeviceGuard(int device) noexcept
{
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
    if (previous_ != device) status_ = cudaSetDevice(device);
}

DeviceGuard::~DeviceGuard()
{
    int now = -1;
    if (previous_ >= 0 && cudaGetDevice(&now) == cudaSuccess && now != previous_)
        (void)cudaSetDevice(previous_);
}

// ---- CudaDevice --------------------------------------------------------------------------------

CudaDevice::CudaDevice(int ordinal) : ordinal_(ordinal)
{
    DeviceGuard on(ordinal);
    try {
        on.check();
        // non-blocking streams: no implicit synchronization with the legacy default stream
        for (std::size_t path = 0; path < copy_streams_.size(); ++path) {
            cuda_check(cudaStreamCreateWithFlags(&copy_streams_[path], cudaStreamNonBlocking),
                       "cudaStreamCreate (copies)");
            cuda_check(cudaStreamCreateWithFlags(&copy_announcers_[path], cudaStreamNonBlocking),
                       "cudaStreamCreate (copy ends)");
            for (cudaEvent_t& done : copies_done_[path])
                cuda_check(cudaEventCreateWithFlags(&done, cudaEventDisableTiming),
                           "cudaEventCreate (copies)");
        }
        cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
                   "cudaStreamCreate (worker)");
        int pools = 0;
        cuda_check(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, ordinal),
                   "cudaDeviceGetAttribute (memory pools)");
        memory_pools_ = pools != 0;
        if (memory_pools_) {
            // A pool of the node's own, not the device's default one (which the workspace and
            // the application share, and whose settings others may change): released to the
            // device at each synchronization (threshold 0), so that the libraries' own
            // cudaMalloc (cuFFT's work areas) find what the node freed.
            cudaMemPoolProps props{};
            props.allocType = cudaMemAllocationTypePinned;
            props.location.type = cudaMemLocationTypeDevice;
            props.location.id = ordinal;
            cuda_check(cudaMemPoolCreate(&node_pool_, &props), "cudaMemPoolCreate");
            uint64_t threshold = 0;
            cuda_check(
                cudaMemPoolSetAttribute(node_pool_, cudaMemPoolAttrReleaseThreshold, &threshold),
                "cudaMemPoolSetAttribute (release threshold)");
            cuda_check(cudaStreamCreateWithFlags(&memory_stream_, cudaStreamNonBlocking),
                       "cudaStreamCreate (memory)");
        }
        cuda_check(cublasCreate(&cublas_), "cublasCreate");
        cuda_check(cublasSetStream(cublas_, stream_), "cublasSetStream");
        // cuBLAS's workspace, allocated now rather than by cuBLAS at its first call, when the
        // replicas may have filled the GPU: the size cuBLAS recommends (32 MiB from Hopper on,
        // 4 MiB before). After cublasSetStream, which would reset it to cuBLAS's own.
        int major = 0;
        cuda_check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal),
                   "cudaDeviceGetAttribute (compute capability)");
        cublas_workspace_bytes_ = std::size_t(major >= 9 ? 32 : 4) << 20;
        cuda_check(cudaMalloc(&cublas_workspace_, cublas_workspace_bytes_),
                   "cudaMalloc (cuBLAS workspace)");
        cuda_check(cublasSetWorkspace(cublas_, cublas_workspace_, cublas_workspace_bytes_),
                   "cublasSetWorkspace");
        cuda_check(cusolverDnCreate(&cusolver_), "cusolverDnCreate");
        cuda_check(cusolverDnSetStream(cusolver_, stream_), "cusolverDnSetStream");
        for (CudaTaskSlot& s : slots_) {
            cuda_check(cudaEventCreate(&s.start), "cudaEventCreate (task start)");
            cuda_check(cudaEventCreate(&s.end), "cudaEventCreate (task end)");
            cuda_check(cudaHostAlloc(&s.host_scratch, CudaContext::host_scratch_bytes,
                                     cudaHostAllocPortable),
                       "cudaHostAlloc (task scratch)");
            s.device = this;
            s.context = CudaContext{};
            s.context.device = ordinal_;
            s.context.stream = stream_;
            s.context.cublas = cublas_;
            s.context.cusolver = cusolver_;
            cuda_task_slot(s.context) = &s;
        }
    } catch (...) {
        release();
        throw;
    }
}

CudaDevice::~CudaDevice()
{
    release();
}

void CudaDevice::release() noexcept
{
    DeviceGuard on(ordinal_);
    if (stream_) (void)cudaStreamSynchronize(stream_);
    for (auto& [shape, plan] : plans_) (void)cufftDestroy(plan);
    plans_.clear();
    if (workspace_) (void)cudaFree(workspace_);
    workspace_ = nullptr;
    for (CudaTaskSlot& s : slots_) {
        if (s.start) (void)cudaEventDestroy(s.start);
        if (s.end) (void)cudaEventDestroy(s.end);
        if (s.host_scratch) (void)cudaFreeHost(s.host_scratch);
        s.start = s.end = nullptr;
        s.host_scratch = nullptr;
    }
    if (cusolver_) (void)cusolverDnDestroy(cusolver_);
    if (cublas_) (void)cublasDestroy(cublas_);
    if (cublas_workspace_) (void)cudaFree(cublas_workspace_);  // after the handle that uses it
    cublas_workspace_ = nullptr;
    if (stream_) (void)cudaStreamDestroy(stream_);
    if (memory_stream_) (void)cudaStreamDestroy(memory_stream_);
    memory_stream_ = nullptr;
    if (node_pool_) (void)cudaMemPoolDestroy(node_pool_);  // the nodes have freed its memory
    node_pool_ = nullptr;
    for (auto& path : copies_done_)
        for (cudaEvent_t& e : path) {
            if (e) (void)cudaEventDestroy(e);
            e = nullptr;
        }
    for (auto* streams : {&copy_announcers_, &copy_streams_})  // the announcers wait on the copies
        for (cudaStream_t& s : *streams) {
            if (s) (void)cudaStreamDestroy(s);
            s = nullptr;
        }
    cusolver_ = nullptr;
    cublas_ = nullptr;
    stream_ = nullptr;
    (void)cudaGetLastError();
}

cudaError_t CudaDevice::sticky_error() const noexcept
{
    (void)cudaGetLastError();  // clears an error that is not sticky (a bad launch, a library's)
    cudaError_t e = cudaStreamQuery(stream_);  // a sticky error answers every call
    (void)cudaGetLastError();
    return e == cudaErrorNotReady ? cudaSuccess : e;
}

// With memory pools, the node's memory comes from its pool, allocated and freed in the order
// of a stream that nothing else uses. The node frees only replicas whose work the host has
// seen complete (task and copy events), so the free need not wait for the device. cudaFree
// would: it synchronizes the whole device, so an eviction would wait for the kernels in
// flight. cudaFreeAsync on the idle memory stream does not; synchronizing that stream and
// trimming the pool hand the memory back to the device at once.
// Without pools (some virtual GPUs): cudaMalloc and cudaFree, which the node calls outside
// its lock, so that only the allocation that needs the room waits for the device.
void* CudaDevice::allocate(std::size_t bytes)
{
    DeviceGuard on(ordinal_);
    on.check();
    void* p = nullptr;
    cudaError_t status = node_pool_ ? cudaMallocFromPoolAsync(&p, bytes, node_pool_, memory_stream_)
                                    : cudaMalloc(&p, bytes);
    if (status == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();  // out of memory is not sticky: the node evicts and retries
        return nullptr;
    }
    // a faulted device: fail rather than wait for room
    cuda_check(status, node_pool_ ? "cudaMallocFromPoolAsync" : "cudaMalloc");
    // every stream may use it once the allocation has happened
    if (node_pool_) {
        if (cudaError_t e = cudaStreamSynchronize(memory_stream_); e != cudaSuccess) {
            // the device faulted meanwhile: the allocation is of no use (a faulted context
            // refuses the free too, and its memory goes with it)
            (void)cudaFreeAsync(p, memory_stream_);
            cuda_check(e, "cudaStreamSynchronize (allocation)");
        }
    }
    return p;
}

void CudaDevice::free(void* p) noexcept
{
    DeviceGuard on(ordinal_);
    if (!node_pool_) {
        (void)cudaFree(p);
    } else if (cudaFreeAsync(p, memory_stream_) == cudaSuccess) {  // fails only on a faulted device
        (void)cudaStreamSynchronize(memory_stream_);
        (void)cudaMemPoolTrimTo(node_pool_, 0);
    }
}

// One copy per plane of the layouts (cudaMemcpy2DAsync: columns of nx elements, ld apart), or
// one block when both sides are contiguous. cudaMemcpyDefault: unified addressing tells the
// direction, host memory pageable or not, and a peer device's memory.
void CudaDevice::enqueue_copy(TransferRequest const& r, cudaStream_t s)
{
    Layout const& sl = r.src_layout;
    Layout const& dl = r.dst_layout;
    std::size_t es = sl.elem_size;
    auto const* src = static_cast<std::byte const*>(r.src_ptr);
    auto* dst = static_cast<std::byte*>(r.dst_ptr);
    if (copies_as_one_block(sl, dl)) {
        cuda_check(cudaMemcpyAsync(dst, src, sl.bytes(), cudaMemcpyDefault, s), "cudaMemcpyAsync");
        return;
    }
    for (int64_t k = 0; k < sl.nz; ++k)
        cuda_check(cudaMemcpy2DAsync(dst + std::size_t(k * dl.ldz) * es, std::size_t(dl.ld) * es,
                                     src + std::size_t(k * sl.ldz) * es, std::size_t(sl.ld) * es,
                                     std::size_t(sl.nx) * es, std::size_t(sl.ny), cudaMemcpyDefault,
                                     s),
                   "cudaMemcpy2DAsync");
}

namespace {
// cudaStreamAddCallback rather than cudaLaunchHostFunc: it is called once whatever happens,
// with the error of a device that has faulted, where a host function would never be.
struct Announcement {
    CudaDevice* device;
    std::function<void()> ended;
};
void CUDART_CB announce_copy_end(cudaStream_t, cudaError_t, void* announcement)
{
    std::unique_ptr<Announcement> a(static_cast<Announcement*>(announcement));
    a->ended();
    a->device->announcement_made();  // last: the device may go once none is pending
}
}  // namespace

void CudaDevice::start_copy(TransferRequest const& r, CopyPath path, unsigned slot,
                            std::function<void()> ended)
{
    DeviceGuard on(ordinal_);
    on.check();
    cudaStream_t s = copy_streams_[std::size_t(path)];
    cudaStream_t announcer = copy_announcers_[std::size_t(path)];
    cudaEvent_t done = copies_done_[std::size_t(path)][slot];
    try {
        enqueue_copy(r, s);
        cuda_check(cudaEventRecord(done, s), "cudaEventRecord (copy)");
        cuda_check(cudaStreamWaitEvent(announcer, done, 0), "cudaStreamWaitEvent (copy end)");
        auto announce = std::make_unique<Announcement>(Announcement{this, std::move(ended)});
        {
            std::lock_guard lock(announcements_m_);
            ++announcements_pending_;
        }
        if (const cudaError_t e =
                cudaStreamAddCallback(announcer, announce_copy_end, announce.get(), 0)) {
            announcement_made();  // never to be called
            cuda_check(e, "cudaStreamAddCallback (copy end)");
        }
        announce.release();  // the callback owns it now
    } catch (...) {
        // the planes queued before the failure may still be copying into the destination,
        // which the requester is about to give up: let them end first
        (void)cudaStreamSynchronize(s);
        throw;
    }
}

void CudaDevice::finish_copy(CopyPath path, unsigned slot)
{
    // the copy has ended: the event answers at once, with the copy's error if it failed
    cuda_check(cudaEventSynchronize(copies_done_[std::size_t(path)][slot]),
               "copy to or from the GPU");
}

bool CudaDevice::copy_has_ended(CopyPath path, unsigned slot) noexcept
{
    const cudaError_t status = cudaEventQuery(copies_done_[std::size_t(path)][slot]);
    if (status == cudaErrorNotReady) return false;
    (void)cudaGetLastError();  // a failure is finish_copy's to report
    return true;
}

void CudaDevice::announcement_made() noexcept
{
    std::lock_guard lock(announcements_m_);
    if (--announcements_pending_ == 0) announcements_made_.notify_all();
}

void CudaDevice::await_announcements() noexcept
{
    // Each announcement is a callback on its direction's announcer stream, called even on a
    // faulted GPU (with its error), whose streams synchronize at once: counted, not waited
    // for through the streams. Bounded: a driver that never calls back must not hang the
    // runtime's shutdown.
    std::unique_lock lock(announcements_m_);
    if (!announcements_made_.wait_for(lock, std::chrono::seconds(10),
                                      [&] { return announcements_pending_ == 0; }))
        std::fprintf(stderr,
                     "tessera: CUDA device %d: %u copy-end callbacks still pending at shutdown\n",
                     ordinal_, announcements_pending_);
}

void CudaDevice::copy_now(TransferRequest const& r)
{
    DeviceGuard on(ordinal_);
    on.check();
    enqueue_copy(r, cudaStreamPerThread);
    cuda_check(cudaStreamSynchronize(cudaStreamPerThread), "copy to or from the GPU");
}

bool CudaDevice::reaches(DeviceBackend const& other) const noexcept
{
    auto const* gpu = dynamic_cast<CudaDevice const*>(&other);
    return gpu && peers_.contains(gpu->ordinal_) && gpu->peers_.contains(ordinal_);
}

bool CudaDevice::make_room(std::size_t bytes, bool& tasks_completed)
{
    if (reclaim_node_memory && reclaim_node_memory(bytes)) return true;
    if (tasks_completed || !complete_tasks_in_flight) return false;
    tasks_completed = true;
    complete_tasks_in_flight();  // their replicas become unused: the next reclaim may evict them
    return true;
}

void* CudaDevice::workspace(std::size_t bytes)
{
    if (bytes <= workspace_bytes_) return workspace_;
    // Grown geometrically, so that a sequence of growing requests reallocates O(log) times;
    // the GPU full of replicas: exactly what is asked, after the node freed unused memory.
    const std::size_t grown = std::max(bytes, 2 * workspace_bytes_);
    // stream-ordered: kernels queued earlier finish with the old buffer before it is freed
    // (without memory pools, as on some virtual GPUs: once the stream has drained)
    if (workspace_) {
        if (memory_pools_)
            cuda_check(cudaFreeAsync(workspace_, stream_), "cudaFreeAsync (workspace)");
        else {
            cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (workspace)");
            cuda_check(cudaFree(workspace_), "cudaFree (workspace)");
        }
    }
    workspace_ = nullptr;
    workspace_bytes_ = 0;
    auto try_allocate = [&](std::size_t n) {
        cudaError_t status =
            memory_pools_ ? cudaMallocAsync(&workspace_, n, stream_) : cudaMalloc(&workspace_, n);
        if (status == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();  // not sticky
            workspace_ = nullptr;
            return false;
        }
        cuda_check(status,
                   memory_pools_ ? "cudaMallocAsync (workspace)" : "cudaMalloc (workspace)");
        workspace_bytes_ = n;
        return true;
    };
    if (try_allocate(grown) || (grown > bytes && try_allocate(bytes))) return workspace_;
    bool tasks_completed = false;
    while (make_room(bytes, tasks_completed))
        if (try_allocate(bytes)) return workspace_;
    throw DeviceError("CUDA device " + std::to_string(ordinal_) + ": no room for a workspace of " +
                      std::to_string(bytes) + " bytes, even with every unused replica evicted");
}

cufftHandle CudaDevice::fft_plan(int rank, int const* n, int batch, cufftType type)
{
    require(rank >= 1 && rank <= 3 && batch >= 1,
            "CudaContext::fft_plan: rank must be 1 to 3 and batch positive");
    std::vector<int> key{rank, batch, int(type)};
    key.insert(key.end(), n, n + rank);
    if (auto it = plans_.find(key); it != plans_.end()) return it->second;
    int* dims = const_cast<int*>(n);  // cuFFT's signatures are not const-correct
    // A plan allocates its work area when made: where the GPU is full, the node frees unused
    // memory (its cache, unused replicas) and the plan is made again, from a new handle, so
    // that a failed one is destroyed rather than leaked.
    auto make = [&](cufftHandle& plan) {
        cuda_check(cufftCreate(&plan), "cufftCreate");
        std::size_t work = 0;
        cufftResult r =
            cufftMakePlanMany(plan, rank, dims, nullptr, 1, 0, nullptr, 1, 0, type, batch, &work);
        if (r == CUFFT_SUCCESS) r = cufftSetStream(plan, stream_);
        if (r != CUFFT_SUCCESS) cufftDestroy(plan);
        // cuFFT's failed cudaMalloc may be left as this thread's last error, which the
        // worker's launch check after the implementation would take for the task's
        if (r == CUFFT_ALLOC_FAILED) (void)cudaGetLastError();
        return r;
    };
    cufftHandle plan = 0;
    cufftResult made = make(plan);
    if (made == CUFFT_ALLOC_FAILED) {
        std::size_t work = 0;
        cuda_check(cufftEstimateMany(rank, dims, nullptr, 1, 0, nullptr, 1, 0, type, batch, &work),
                   "cufftEstimateMany");
        // at least one replica each time: the estimate may be 0, or short of what failed
        bool tasks_completed = false;
        while (made == CUFFT_ALLOC_FAILED &&
               make_room(std::max<std::size_t>(work, 1), tasks_completed))
            made = make(plan);
    }
    cuda_check(made, "cufftMakePlanMany");
    plans_.emplace(std::move(key), plan);
    return plan;
}

}  // namespace tessera::rt::detail
