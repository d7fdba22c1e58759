// The CUDA runtime API of the simulator (sim.hpp): devices, memory, streams, events, copies.
#include "tests/cudasim/sim.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <tuple>
#include <utility>

namespace tessera::cudasim {

// ---- Stream ------------------------------------------------------------------------------------

Stream::Stream(Device& device) : device_(device), thread_([this] { run(); })
{}

Stream::~Stream()
{
    {
        std::lock_guard lock(m_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

std::uint64_t Stream::enqueue(std::function<void()> op, bool even_after_fault)
{
    std::lock_guard lock(m_);
    queue_.push_back({++queued_, std::move(op), even_after_fault});
    cv_.notify_all();
    return queued_;
}

std::uint64_t Stream::last() const
{
    std::lock_guard lock(m_);
    return queued_;
}

bool Stream::done(std::uint64_t ticket) const
{
    std::lock_guard lock(m_);
    return completed_ >= ticket;
}

void Stream::wait(std::uint64_t ticket) const
{
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return completed_ >= ticket; });
}

void Stream::run()
{
    std::unique_lock lock(m_);
    for (;;) {
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and everything ran
        Operation op = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        if (op.even_after_fault || device_.fault.load() == cudaSuccess) op.run();
        lock.lock();
        completed_ = op.ticket;
        cv_.notify_all();
    }
}

// ---- State -------------------------------------------------------------------------------------

namespace {
/// "1GB", "64MB", "4096": bytes (K, M, G are powers of 1024).
std::size_t parse_bytes(char const* text, std::size_t fallback)
{
    if (!text || !*text) return fallback;
    char* end = nullptr;
    double v = std::strtod(text, &end);
    double scale = 1;
    switch (end && *end ? *end : 'B') {
    case 'K':
    case 'k':
        scale = 1024.0;
        break;
    case 'M':
    case 'm':
        scale = 1024.0 * 1024;
        break;
    case 'G':
    case 'g':
        scale = 1024.0 * 1024 * 1024;
        break;
    default:
        break;
    }
    return v > 0 ? std::size_t(v * scale) : fallback;
}
}  // namespace

thread_local int State::current_ordinal = 0;
thread_local cudaError_t State::last_error = cudaSuccess;

State::State()
{
    char const* count = std::getenv("TESSERA_CUDASIM_DEVICES");
    int n = count && *count ? std::atoi(count) : 1;
    std::size_t capacity = parse_bytes(std::getenv("TESSERA_CUDASIM_MEMORY"), std::size_t(1) << 30);
    char const* pools = std::getenv("TESSERA_CUDASIM_MEMORY_POOLS");
    memory_pools = pools && *pools ? std::atoi(pools) != 0 : 1;
    for (int d = 0; d < std::max(n, 0); ++d) {
        devices_.push_back(std::make_unique<Device>());
        devices_.back()->ordinal = d;
        devices_.back()->capacity = capacity;
    }
}

State& State::get()
{
    static State state;
    return state;
}

Device& State::current()
{
    return *devices_[std::size_t(current_ordinal)];
}

Memory State::classify(void const* p, std::size_t bytes, Device** owner)
{
    if (owner) *owner = nullptr;
    auto a = std::uintptr_t(p);
    std::lock_guard lock(m);
    auto it = allocations.upper_bound(a);
    if (it == allocations.begin()) return Memory::pageable_host;
    --it;
    if (a >= it->first + std::max<std::size_t>(it->second.bytes, 1)) return Memory::pageable_host;
    if (it->second.device < 0) return Memory::pinned_host;
    if (a + bytes > it->first + it->second.bytes)
        return Memory::pageable_host;  // runs past its end
    if (owner) *owner = devices_[std::size_t(it->second.device)].get();
    return Memory::device;
}

std::size_t set_capacity(int ordinal, std::size_t bytes)
{
    State& st = State::get();
    std::lock_guard lock(st.m);
    return std::exchange(st.device(ordinal).capacity, bytes);
}

void refuse_copies_to_host(int ordinal, int count)
{
    State& st = State::get();
    std::lock_guard lock(st.m);
    st.device(ordinal).copies_to_host_to_refuse = count;
}

void set_unavailable(int ordinal, bool unavailable)
{
    State::get().device(ordinal).unavailable = unavailable;
}

std::size_t leave_free(int ordinal, std::size_t bytes)
{
    State& st = State::get();
    std::lock_guard lock(st.m);
    Device& d = st.device(ordinal);
    return std::exchange(d.capacity, d.used + bytes);
}

cudaError_t record(cudaError_t status)
{
    if (status != cudaSuccess) State::last_error = status;
    return status;
}

Stream* stream_of(cudaStream_t s)
{
    if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) return nullptr;
    return reinterpret_cast<Stream*>(s);
}

Device& device_of(cudaStream_t s)
{
    Stream* stream = stream_of(s);
    return stream ? stream->device() : State::get().current();
}

void submit(cudaStream_t s, std::function<void()> op, bool even_after_fault)
{
    if (Stream* stream = stream_of(s))
        stream->enqueue(std::move(op), even_after_fault);
    else if (even_after_fault || State::get().current().fault.load() == cudaSuccess)
        op();
}

void fault(Device& device, cudaError_t status, std::string const& why)
{
    std::fprintf(stderr, "cudasim: device %d faults (%s): %s\n", device.ordinal,
                 cudaGetErrorName(status), why.c_str());
    cudaError_t none = cudaSuccess;
    device.fault.compare_exchange_strong(none, status);
}

Device* device_for_launch(cudaStream_t stream, cudaError_t& status)
{
    Device& d = device_of(stream);
    status = d.fault.load() == cudaSuccess ? cudaSuccess : record(d.fault.load());
    return status == cudaSuccess ? &d : nullptr;
}

bool kernel_touches(Device& device, void const* p, std::size_t bytes, std::string const& what)
{
    if (bytes == 0 || State::get().classify(p, bytes) == Memory::device) return true;
    fault(device, cudaErrorIllegalAddress, what + " is not inside one device allocation");
    return false;
}

namespace {

/// The sticky error of the current device, recorded as the last error.
cudaError_t sticky(Device& d)
{
    return record(d.fault.load());
}

/// cudaMemcpyKind's promise about each side, checked: a "device" side must lie inside one
/// device allocation, a "host" side must not be device memory.
cudaError_t check_sides(void* dst, void const* src, std::size_t dst_bytes, std::size_t src_bytes,
                        cudaMemcpyKind kind)
{
    State& st = State::get();
    const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    for (auto [p, bytes, device, name] :
         {std::tuple{(void const*)dst, dst_bytes, dst_device, "destination"},
          std::tuple{src, src_bytes, src_device, "source"}}) {
        if (bytes == 0) continue;
        Memory mem = st.classify(p, bytes);
        if (kind == cudaMemcpyDefault) {
            // a pointer that starts inside a device allocation must end inside it
            Device* owner = nullptr;
            if (st.classify(p, 1, &owner) == Memory::device && mem != Memory::device) {
                std::fprintf(stderr,
                             "cudasim: cudaMemcpy: the %s runs past its device allocation\n", name);
                return cudaErrorInvalidValue;
            }
        } else if (device != (mem == Memory::device)) {
            std::fprintf(
                stderr,
                "cudasim: cudaMemcpy: the %s [%p, +%zu) is %s memory, the copy's kind says %s\n",
                name, p, bytes, mem == Memory::device ? "device" : "host",
                device ? "device" : "host");
            return cudaErrorInvalidValue;
        }
    }
    return cudaSuccess;
}

/// The live pool of a handle, or null.
State::Pool* pool_of(cudaMemPool_t handle)
{
    State& st = State::get();
    auto* pool = reinterpret_cast<State::Pool*>(handle);
    std::lock_guard lock(st.m);
    return st.pools.contains(pool) ? pool : nullptr;
}

/// False when a copy between the memory of two devices touches pool memory whose pool does
/// not grant access to the other device.
bool pools_grant_access(void const* dst, void const* src)
{
    State& st = State::get();
    auto find = [&](void const* p) -> State::Allocation const* {
        auto it = st.allocations.upper_bound(std::uintptr_t(p));
        if (it == st.allocations.begin()) return nullptr;
        --it;
        return it->second.device >= 0 && std::uintptr_t(p) < it->first + it->second.bytes
                   ? &it->second
                   : nullptr;
    };
    std::lock_guard lock(st.m);
    State::Allocation const *d = find(dst), *s = find(src);
    if (!d || !s || d->device == s->device) return true;
    return (!d->pool || d->pool->access.contains(s->device)) &&
           (!s->pool || s->pool->access.contains(d->device));
}

/// Whether a copy from device memory to host memory is one refuse_copies_to_host asked to
/// fail (counting it down).
bool refused_to_host(void const* dst, void const* src, std::size_t dst_bytes, std::size_t src_bytes)
{
    State& st = State::get();
    bool some_refused =
        false;  // without looking the pointers up, for the copies of every other test
    for (int d = 0; d < st.device_count(); ++d)
        some_refused |= st.device(d).copies_to_host_to_refuse.load() > 0;
    if (!some_refused) return false;
    Device* from = nullptr;
    if (st.classify(src, src_bytes, &from) != Memory::device ||
        st.classify(dst, dst_bytes) == Memory::device)
        return false;
    int left = from->copies_to_host_to_refuse.load();
    while (left > 0 && !from->copies_to_host_to_refuse.compare_exchange_weak(left, left - 1)) {}
    return left > 0;
}

cudaError_t copy_2d(void* dst, std::size_t dpitch, void const* src, std::size_t spitch,
                    std::size_t width, std::size_t height, cudaMemcpyKind kind, cudaStream_t stream)
{
    if (width > dpitch || width > spitch) return record(cudaErrorInvalidPitchValue);
    if (width == 0 || height == 0) return cudaSuccess;
    Device& d = device_of(stream);
    if (cudaError_t e = sticky(d)) return e;
    std::size_t dst_bytes = (height - 1) * dpitch + width,
                src_bytes = (height - 1) * spitch + width;
    if (cudaError_t e = check_sides(dst, src, dst_bytes, src_bytes, kind)) return record(e);
    if (!pools_grant_access(dst, src)) return record(cudaErrorInvalidValue);
    if (refused_to_host(dst, src, dst_bytes, src_bytes)) return record(cudaErrorUnknown);
    submit(stream, [=] {
        for (std::size_t r = 0; r < height; ++r)
            std::memcpy(static_cast<std::byte*>(dst) + r * dpitch,
                        static_cast<std::byte const*>(src) + r * spitch, width);
    });
    return cudaSuccess;
}

// Fills a fresh allocation with 0xFF bytes, NaN in every precision: a kernel that reads what
// nothing wrote sees garbage, as on a GPU. ThreadSanitizer does not watch the fill: the
// allocation is already the allocating thread's write to ThreadSanitizer, and watching the
// fill cost about 0.3 s of page faults on its shadow for each device's 32 MiB cuBLAS workspace,
// once per runtime (a third of a short test's time). The loop must stay a loop, not become a
// call to memset, which ThreadSanitizer intercepts.
#if defined(__SANITIZE_THREAD__) && !defined(__clang__)
__attribute__((no_sanitize("thread"), optimize("no-tree-loop-distribute-patterns")))
#endif
void fill_with_garbage(void* mem, std::size_t bytes)
{
    auto* words = static_cast<std::uint64_t*>(mem);  // aligned to 256 bytes
    const std::size_t nwords = bytes / sizeof(std::uint64_t);
    for (std::size_t i = 0; i < nwords; ++i) words[i] = ~std::uint64_t(0);
    auto* tail = static_cast<unsigned char*>(mem) + nwords * sizeof(std::uint64_t);
    for (std::size_t i = 0; i < bytes % sizeof(std::uint64_t); ++i) tail[i] = 0xFF;
}

cudaError_t allocate(void** p, std::size_t bytes, Device& d, State::Pool* pool = nullptr)
{
    if (!p) return record(cudaErrorInvalidValue);
    *p = nullptr;
    if (cudaError_t e = sticky(d)) return e;
    if (bytes == 0) return cudaSuccess;
    State& st = State::get();
    {
        std::lock_guard lock(st.m);
        if (d.used + bytes > d.capacity) return record(cudaErrorMemoryAllocation);
        d.used += bytes;
    }
    void* mem = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!mem) {
        std::lock_guard lock(st.m);
        d.used -= bytes;
        return record(cudaErrorMemoryAllocation);
    }
    fill_with_garbage(mem, bytes);
    {
        std::lock_guard lock(st.m);
        st.allocations[std::uintptr_t(mem)] = {bytes, d.ordinal, false, pool};
    }
    *p = mem;
    return cudaSuccess;
}

/// Forgets and frees a device allocation; false if p is not one.
bool release(void* p)
{
    State& st = State::get();
    {
        std::lock_guard lock(st.m);
        auto it = st.allocations.find(std::uintptr_t(p));
        if (it == st.allocations.end() || it->second.device < 0) return false;
        st.device(it->second.device).used -= it->second.bytes;
        st.allocations.erase(it);
    }
    std::free(p);
    return true;
}

void synchronize(Device& d)
{
    std::vector<std::pair<Stream*, std::uint64_t>> pending;
    {
        std::lock_guard lock(State::get().m);
        for (Stream* s : d.streams) pending.emplace_back(s, s->last());
    }
    for (auto [s, ticket] : pending) s->wait(ticket);
}

/// A point of a stream: the ticket of the operation that records it, and when it ran.
struct Mark {
    Stream* stream = nullptr;
    std::uint64_t ticket = 0;
    Clock::time_point at{};
};

}  // namespace

}  // namespace tessera::cudasim

using namespace tessera::cudasim;

/// An event: the mark of its last record (null: never recorded, which counts as passed).
struct CUevent_st {
    unsigned flags = 0;
    std::mutex m;
    std::shared_ptr<Mark> mark;

    std::shared_ptr<Mark> last_mark()
    {
        std::lock_guard lock(m);
        return mark;
    }
};

extern "C" {

// ---- errors ------------------------------------------------------------------------------------

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = State::last_error;
    State::last_error = cudaSuccess;
    State& st = State::get();
    if (st.device_count() > 0 && st.current().fault.load() != cudaSuccess)
        return st.current().fault.load();
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    return State::last_error;
}

const char* cudaGetErrorName(cudaError_t error)
{
    switch (error) {
    case cudaSuccess:
        return "cudaSuccess";
    case cudaErrorInvalidValue:
        return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
        return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidPitchValue:
        return "cudaErrorInvalidPitchValue";
    case cudaErrorNoDevice:
        return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice:
        return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle:
        return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady:
        return "cudaErrorNotReady";
    case cudaErrorIllegalAddress:
        return "cudaErrorIllegalAddress";
    case cudaErrorPeerAccessAlreadyEnabled:
        return "cudaErrorPeerAccessAlreadyEnabled";
    case cudaErrorHostMemoryAlreadyRegistered:
        return "cudaErrorHostMemoryAlreadyRegistered";
    case cudaErrorHostMemoryNotRegistered:
        return "cudaErrorHostMemoryNotRegistered";
    case cudaErrorLaunchFailure:
        return "cudaErrorLaunchFailure";
    case cudaErrorUnknown:
        return "cudaErrorUnknown";
    default:
        return "cudaError (simulated)";
    }
}

const char* cudaGetErrorString(cudaError_t error)
{
    switch (error) {
    case cudaSuccess:
        return "no error";
    case cudaErrorMemoryAllocation:
        return "out of memory (simulated device)";
    case cudaErrorNoDevice:
        return "no CUDA-capable device is detected (simulator: TESSERA_CUDASIM_DEVICES=0)";
    case cudaErrorIllegalAddress:
        return "an illegal memory access was encountered (simulated)";
    case cudaErrorLaunchFailure:
        return "unspecified launch failure (simulated)";
    default:
        return cudaGetErrorName(error);
    }
}

// ---- devices -----------------------------------------------------------------------------------

cudaError_t cudaGetDeviceCount(int* count)
{
    if (!count) return record(cudaErrorInvalidValue);
    *count = State::get().device_count();
    return *count ? cudaSuccess : record(cudaErrorNoDevice);
}

cudaError_t cudaGetDevice(int* device)
{
    if (!device) return record(cudaErrorInvalidValue);
    *device = State::current_ordinal;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    if (device < 0 || device >= State::get().device_count()) return record(cudaErrorInvalidDevice);
    State::current_ordinal = device;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device)
{
    if (!prop) return record(cudaErrorInvalidValue);
    if (device < 0 || device >= State::get().device_count()) return record(cudaErrorInvalidDevice);
    *prop = cudaDeviceProp{};
    std::snprintf(prop->name, sizeof prop->name, "Tessera CUDA simulator %d (host threads)",
                  device);
    prop->totalGlobalMem = State::get().device(device).capacity;
    prop->major = 9;
    prop->minor = 0;
    prop->multiProcessorCount = 1;
    prop->unifiedAddressing = 1;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device)
{
    if (!value) return record(cudaErrorInvalidValue);
    if (device < 0 || device >= State::get().device_count()) return record(cudaErrorInvalidDevice);
    switch (attr) {
    case cudaDevAttrClockRate:
        *value = 1000000;
        break;  // kHz
    case cudaDevAttrMemoryPoolsSupported:
        *value = State::get().memory_pools;
        break;
    case cudaDevAttrComputeCapabilityMajor:
        *value = 9;
        break;  // as cudaGetDeviceProperties
    default:
        *value = 0;
    }
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total)
{
    if (!free || !total) return record(cudaErrorInvalidValue);
    Device& d = State::get().current();
    if (d.unavailable) return record(cudaErrorDevicesUnavailable);
    if (cudaError_t e = sticky(d)) return e;
    std::lock_guard lock(State::get().m);
    *total = d.capacity;
    *free = d.capacity - d.used;
    return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer)
{
    State& st = State::get();
    if (!can) return record(cudaErrorInvalidValue);
    if (device < 0 || device >= st.device_count() || peer < 0 || peer >= st.device_count())
        return record(cudaErrorInvalidDevice);
    *can = device != peer;
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags)
{
    State& st = State::get();
    if (flags != 0) return record(cudaErrorInvalidValue);
    if (peer < 0 || peer >= st.device_count() || peer == State::current_ordinal)
        return record(cudaErrorInvalidDevice);
    std::lock_guard lock(st.m);
    if (!st.current().peers.insert(peer).second) return record(cudaErrorPeerAccessAlreadyEnabled);
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    Device& d = State::get().current();
    synchronize(d);
    return sticky(d);
}

// ---- memory ------------------------------------------------------------------------------------

cudaError_t cudaMalloc(void** p, size_t bytes)
{
    return allocate(p, bytes, State::get().current());
}

cudaError_t cudaFree(void* p)
{
    if (!p) return cudaSuccess;
    Device* owner = nullptr;
    if (State::get().classify(p, 1, &owner) != Memory::device) return record(cudaErrorInvalidValue);
    synchronize(*owner);  // cudaFree waits for the device's work, which may still use p
    if (!release(p)) return record(cudaErrorInvalidValue);
    return sticky(*owner);
}

cudaError_t cudaMallocAsync(void** p, size_t bytes, cudaStream_t stream)
{
    if (!State::get().memory_pools) return record(cudaErrorNotSupported);
    return allocate(p, bytes, device_of(stream));
}

cudaError_t cudaFreeAsync(void* p, cudaStream_t stream)
{
    if (!State::get().memory_pools) return record(cudaErrorNotSupported);
    if (!p) return cudaSuccess;
    if (State::get().classify(p, 1) != Memory::device) return record(cudaErrorInvalidValue);
    if (cudaError_t e = sticky(device_of(stream))) {
        release(p);  // a faulted device's memory goes with its context (here, at once: no leak)
        return e;
    }
    if (Stream* s = stream_of(stream))
        s->enqueue([p] { release(p); });
    else
        release(p);
    return cudaSuccess;
}

// ---- memory pools: the allocations of cudaMallocFromPoolAsync remember their pool; a copy
// between two devices needs the pool of each side's memory to grant access to the other
// device (pool memory does not follow cudaDeviceEnablePeerAccess).

cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, cudaMemPoolProps const* props)
{
    State& st = State::get();
    if (!st.memory_pools) return record(cudaErrorNotSupported);
    if (!pool || !props || props->allocType != cudaMemAllocationTypePinned ||
        props->location.type != cudaMemLocationTypeDevice)
        return record(cudaErrorInvalidValue);
    if (props->location.id < 0 || props->location.id >= st.device_count())
        return record(cudaErrorInvalidDevice);
    auto* made = new State::Pool{props->location.id, {}};
    std::lock_guard lock(st.m);
    st.pools.insert(made);
    *pool = reinterpret_cast<cudaMemPool_t>(made);
    return cudaSuccess;
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t handle)
{
    State& st = State::get();
    State::Pool* pool = pool_of(handle);
    if (!pool) return record(cudaErrorInvalidValue);
    std::lock_guard lock(st.m);
    for (auto const& [at, a] : st.allocations)
        if (a.pool == pool)
            return record(cudaErrorInvalidValue);  // the node frees its memory first
    st.pools.erase(pool);
    delete pool;
    return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t handle, cudaMemPoolAttr attr, void* value)
{
    if (!pool_of(handle) || !value) return record(cudaErrorInvalidValue);
    // the simulator holds no memory back: every threshold behaves as 0
    return attr == cudaMemPoolAttrReleaseThreshold ? cudaSuccess : record(cudaErrorInvalidValue);
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t handle, size_t)
{
    return pool_of(handle) ? cudaSuccess : record(cudaErrorInvalidValue);
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t handle, cudaMemAccessDesc const* descs, size_t count)
{
    State& st = State::get();
    State::Pool* pool = pool_of(handle);
    if (!pool || (count > 0 && !descs)) return record(cudaErrorInvalidValue);
    std::lock_guard lock(st.m);
    for (size_t k = 0; k < count; ++k) {
        cudaMemAccessDesc const& d = descs[k];
        if (d.location.type != cudaMemLocationTypeDevice) return record(cudaErrorInvalidValue);
        if (d.location.id < 0 || d.location.id >= st.device_count() ||
            d.location.id == pool->device)
            return record(cudaErrorInvalidDevice);
        if (d.flags == cudaMemAccessFlagsProtReadWrite)
            pool->access.insert(d.location.id);
        else
            pool->access.erase(d.location.id);
    }
    return cudaSuccess;
}

cudaError_t cudaMallocFromPoolAsync(void** p, size_t bytes, cudaMemPool_t handle,
                                    cudaStream_t stream)
{
    State::Pool* pool = pool_of(handle);
    if (!pool) return record(cudaErrorInvalidValue);
    (void)stream;  // allocated at once: usable in the stream's order, and earlier
    return allocate(p, bytes, State::get().device(pool->device), pool);
}

cudaError_t cudaHostAlloc(void** p, size_t bytes, unsigned int)
{
    if (!p) return record(cudaErrorInvalidValue);
    *p = std::aligned_alloc(4096, (std::max<std::size_t>(bytes, 1) + 4095) / 4096 * 4096);
    if (!*p) return record(cudaErrorMemoryAllocation);
    State& st = State::get();
    std::lock_guard lock(st.m);
    st.allocations[std::uintptr_t(*p)] = {bytes, -1, false};
    return cudaSuccess;
}

cudaError_t cudaFreeHost(void* p)
{
    if (!p) return cudaSuccess;
    State& st = State::get();
    {
        std::lock_guard lock(st.m);
        auto it = st.allocations.find(std::uintptr_t(p));
        if (it == st.allocations.end() || it->second.device >= 0 || it->second.registered)
            return record(cudaErrorInvalidValue);
        st.allocations.erase(it);
    }
    std::free(p);
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void* p, size_t bytes, unsigned int)
{
    if (!p || bytes == 0) return record(cudaErrorInvalidValue);
    State& st = State::get();
    std::lock_guard lock(st.m);
    auto a = std::uintptr_t(p);
    auto it = st.allocations.lower_bound(a);
    bool overlaps =
        (it != st.allocations.end() && it->first < a + bytes) ||
        (it != st.allocations.begin() && std::prev(it)->first + std::prev(it)->second.bytes > a);
    if (overlaps) return record(cudaErrorHostMemoryAlreadyRegistered);
    st.allocations[a] = {bytes, -1, true};
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void* p)
{
    State& st = State::get();
    std::lock_guard lock(st.m);
    auto it = st.allocations.find(std::uintptr_t(p));
    if (it == st.allocations.end() || !it->second.registered)
        return record(cudaErrorHostMemoryNotRegistered);
    st.allocations.erase(it);
    return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* p)
{
    if (!attributes) return record(cudaErrorInvalidValue);
    *attributes = cudaPointerAttributes{};
    attributes->device = -1;
    Device* owner = nullptr;
    switch (State::get().classify(p, 1, &owner)) {
    case Memory::device:
        attributes->type = cudaMemoryTypeDevice;
        attributes->device = owner->ordinal;
        attributes->devicePointer = const_cast<void*>(p);
        break;
    case Memory::pinned_host:
        attributes->type = cudaMemoryTypeHost;
        attributes->hostPointer = attributes->devicePointer = const_cast<void*>(p);
        break;
    case Memory::pageable_host:
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->hostPointer = const_cast<void*>(p);
        break;
    }
    return cudaSuccess;
}

// ---- streams and events ------------------------------------------------------------------------

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int)
{
    if (!stream) return record(cudaErrorInvalidValue);
    State& st = State::get();
    Device& d = st.current();
    if (cudaError_t e = sticky(d)) return e;
    auto* s = new Stream(d);
    {
        std::lock_guard lock(st.m);
        d.streams.insert(s);
    }
    *stream = reinterpret_cast<cudaStream_t>(s);
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t* stream)
{
    return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    Stream* s = stream_of(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    {
        std::lock_guard lock(State::get().m);
        s->device().streams.erase(s);
    }
    delete s;  // runs what is still queued first, as cudaStreamDestroy lets it finish
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    Device& d = device_of(stream);
    if (Stream* s = stream_of(stream)) s->wait(s->last());
    return sticky(d);
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    if (cudaError_t e = sticky(device_of(stream))) return e;
    Stream* s = stream_of(stream);
    return !s || s->done(s->last()) ? cudaSuccess : cudaErrorNotReady;  // not ready: not an error
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* data)
{
    if (!fn) return record(cudaErrorInvalidValue);
    if (cudaError_t e = sticky(device_of(stream))) return e;
    submit(stream, [fn, data] { fn(data); });
    return cudaSuccess;
}

// Called once whatever happens, with the device's sticky error once it has faulted.
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* data,
                                  unsigned int flags)
{
    if (!callback || flags != 0) return record(cudaErrorInvalidValue);
    Device* d = &device_of(stream);
    if (cudaError_t e = sticky(*d)) return e;
    submit(
        stream, [stream, callback, data, d] { callback(stream, d->fault.load(), data); }, true);
    return cudaSuccess;
}

// The stream's later work waits until the event's stream has reached the event's mark, even
// on a faulted device: its streams still advance, skipping their operations.
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    if (!event) return record(cudaErrorInvalidResourceHandle);
    if (flags != cudaEventWaitDefault)
        return record(cudaErrorInvalidValue);  // the only one modelled
    if (cudaError_t e = sticky(device_of(stream))) return e;
    std::shared_ptr<Mark> mark = event->last_mark();
    if (!mark || !mark->stream || mark->stream == stream_of(stream)) return cudaSuccess;
    submit(
        stream, [mark] { mark->stream->wait(mark->ticket); }, true);
    return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags)
{
    if (!event) return record(cudaErrorInvalidValue);
    auto* e = new CUevent_st;
    e->flags = flags;
    *event = e;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event)
{
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    if (!event) return record(cudaErrorInvalidResourceHandle);
    delete event;  // a pending record keeps its Mark alive
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    if (!event) return record(cudaErrorInvalidResourceHandle);
    if (cudaError_t e = sticky(device_of(stream))) return e;
    auto mark = std::make_shared<Mark>();
    mark->stream = stream_of(stream);
    if (mark->stream)
        mark->ticket = mark->stream->enqueue([mark] { mark->at = Clock::now(); });
    else
        mark->at = Clock::now();
    std::lock_guard lock(event->m);
    event->mark = std::move(mark);
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    if (!event) return record(cudaErrorInvalidResourceHandle);
    std::shared_ptr<Mark> mark = event->last_mark();
    if (!mark || !mark->stream) return cudaSuccess;
    if (cudaError_t e = mark->stream->device().fault.load()) return record(e);
    return mark->stream->done(mark->ticket) ? cudaSuccess : cudaErrorNotReady;  // not an error
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    if (!event) return record(cudaErrorInvalidResourceHandle);
    std::shared_ptr<Mark> mark = event->last_mark();
    if (!mark || !mark->stream) return cudaSuccess;
    mark->stream->wait(mark->ticket);
    return sticky(mark->stream->device());
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!ms || !start || !end) return record(cudaErrorInvalidValue);
    if ((start->flags | end->flags) & cudaEventDisableTiming)
        return record(cudaErrorInvalidResourceHandle);
    std::shared_ptr<Mark> a = start->last_mark(), b = end->last_mark();
    if (!a || !b) return record(cudaErrorInvalidResourceHandle);
    for (Mark const* m : {a.get(), b.get()})
        if (m->stream && !m->stream->done(m->ticket)) return cudaErrorNotReady;
    *ms = std::chrono::duration<float, std::milli>(b->at - a->at).count();
    return cudaSuccess;
}

// ---- copies ------------------------------------------------------------------------------------

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    return copy_2d(dst, bytes, src, bytes, bytes, 1, kind, stream);
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind)
{
    synchronize(State::get().current());  // the legacy stream waits for the device's other work
    return cudaMemcpyAsync(dst, src, bytes, kind, nullptr);
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t stream)
{
    return copy_2d(dst, dpitch, src, spitch, width, height, kind, stream);
}

cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream)
{
    if (bytes == 0) return cudaSuccess;
    Device& d = device_of(stream);
    if (cudaError_t e = sticky(d)) return e;
    if (State::get().classify(dst, bytes) != Memory::device) return record(cudaErrorInvalidValue);
    submit(stream, [=] { std::memset(dst, value, bytes); });
    return cudaSuccess;
}

}  // extern "C"
