// Pinned host memory: cudaHostAlloc when built with CUDA and a device answers, page-aligned
// ordinary memory otherwise (and when not asked for: allocate_host). free_pinned must know which one a pointer came from: the pointers
// cudaHostAlloc returned are remembered. PinnedRegion page-locks memory the caller allocated
// (cudaHostRegister) for a while.
#include <tessera/rt/memory.hpp>

#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_set>

#if TESSERA_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace tessera::rt {

namespace {
constexpr std::size_t page = 4096;
#if TESSERA_HAVE_CUDA
std::mutex pinned_m;
std::unordered_set<void*>& cuda_pinned()
{
    static auto* set = new std::unordered_set<void*>;  // outlives static destruction order
    return *set;
}
#endif
}  // namespace

void* allocate_pinned(std::size_t bytes)
{
    return allocate_host(bytes, true);
}

void* allocate_host(std::size_t bytes, [[maybe_unused]] bool page_locked)
{
    if (bytes == 0) return nullptr;
#if TESSERA_HAVE_CUDA
    if (page_locked) {
        void* device_visible = nullptr;
        if (cudaHostAlloc(&device_visible, bytes, cudaHostAllocPortable) == cudaSuccess) {
            std::lock_guard lock(pinned_m);
            cuda_pinned().insert(device_visible);
            return device_visible;
        }
        (void)cudaGetLastError();  // no device or no driver: ordinary memory will do
    }
#endif
    void* p = std::aligned_alloc(page, (bytes + page - 1) / page * page);
    if (!p) throw std::bad_alloc();
    return p;
}

void free_pinned(void* p) noexcept
{
    if (!p) return;
#if TESSERA_HAVE_CUDA
    {
        std::lock_guard lock(pinned_m);
        if (cuda_pinned().erase(p)) {
            cudaFreeHost(p);
            return;
        }
    }
#endif
    std::free(p);
}

PinnedRegion::PinnedRegion([[maybe_unused]] void const* p,
                           [[maybe_unused]] std::size_t bytes) noexcept
{
#if TESSERA_HAVE_CUDA
    if (p && bytes > 0) {
        // Portable: pinned for every device, not only the current one.
        // (cudaHostRegister takes a non-const pointer, but only page-locks the memory)
        if (cudaHostRegister(const_cast<void*>(p), bytes, cudaHostRegisterPortable) == cudaSuccess)
            p_ = p;
        else
            (void)cudaGetLastError();  // already registered, or refused: pageable copies will do
    }
#endif
}

PinnedRegion::~PinnedRegion()
{
#if TESSERA_HAVE_CUDA
    if (p_) (void)cudaHostUnregister(const_cast<void*>(p_));
#endif
}

PinnedRegion& PinnedRegion::operator=(PinnedRegion&& o) noexcept
{
    if (this != &o) {
        PinnedRegion gone(std::move(*this));
        p_ = o.p_;
        o.p_ = nullptr;
    }
    return *this;
}

}  // namespace tessera::rt
