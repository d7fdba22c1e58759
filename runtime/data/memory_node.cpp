#include "runtime/data/memory_node.hpp"

#include "runtime/data/coherency.hpp"
#include "runtime/data/device_backend.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>

namespace tessera::rt::detail {

namespace {
constexpr std::size_t alignment = 64;  // a cache line: no false sharing between replicas
std::size_t rounded(std::size_t bytes)
{
    return (bytes + alignment - 1) / alignment * alignment;
}
}  // namespace

NoRoomNow::NoRoomNow(NodeId node, std::size_t bytes)
    : Error("memory node " + std::to_string(node) + " has no room now for " +
            std::to_string(bytes) + " bytes")
{}

MemoryNode::MemoryNode(NodeId id, NodeKind kind, std::size_t capacity, DeviceBackend* device)
    : id_(id), kind_(kind), capacity_(capacity), device_(device)
{}

MemoryNode::~MemoryNode()
{
    for (auto& [bytes, buffers] : cache_)
        for (void* p : buffers) free_raw({p, bytes});
}

void* MemoryNode::allocate_raw(std::size_t bytes)
{
    if (capacity_ && used_ + bytes > capacity_) return nullptr;
    void* p = device_ ? device_->allocate(bytes) : std::aligned_alloc(alignment, rounded(bytes));
    if (p) used_ += bytes;
    return p;
}

void MemoryNode::free_raw(FreedBuffer b) noexcept
{
    if (device_)
        device_->free(b.ptr);
    else
        std::free(b.ptr);
}

void* MemoryNode::take_cached(std::size_t bytes) noexcept
{
    auto it = cache_.find(bytes);
    if (it == cache_.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    cached_ -= bytes;
    return p;
}

void MemoryNode::cache(FreedBuffer b)
{
    cache_[b.bytes].push_back(b.ptr);
    cached_ += b.bytes;
}

void MemoryNode::cache_what_fits(std::vector<FreedBuffer>& buffers) noexcept
{
    std::size_t cached = 0;
    try {
        for (; cached < buffers.size(); ++cached) cache(buffers[cached]);
    } catch (std::bad_alloc const&) {}
    buffers.erase(buffers.begin(), buffers.begin() + std::ptrdiff_t(cached));
}

void MemoryNode::empty_cache_into(std::vector<FreedBuffer>& to_free)
{
    std::size_t count = 0;
    for (auto const& entry : cache_) count += entry.second.size();
    to_free.reserve(to_free.size() + count);
    for (auto& [bytes, buffers] : cache_)
        for (void* p : buffers) to_free.push_back({p, bytes});
    cache_.clear();
    cached_ = 0;
}

bool MemoryNode::evict_for(std::unique_lock<std::mutex>& lock, std::size_t bytes,
                           bool device_refused, std::vector<FreedBuffer>& to_free, void** reuse)
{
    to_free.reserve(to_free.size() + lru_.size());  // no bad_alloc once replicas are evicted
    std::size_t freed_bytes = 0;                    // still counted in used_ until free_unlocked
    auto enough = [&] {
        return device_refused ? freed_bytes >= bytes : used_ - freed_bytes + bytes <= capacity_;
    };
    for (auto it = lru_.begin(); it != lru_.end() && !enough();) {
        auto next = std::next(it);
        std::optional<FreedBuffer> freed;
        try {
            freed = evict_replica(*it, id_);  // if unused, and its handle not busy
        } catch (...) {  // a write-back failed: what was evicted before it is still freed
            free_unlocked(lock, to_free);
            throw;
        }
        if (freed) {
            lru_.erase(it);
            ++evictions_;
            const std::size_t allocated =
                std::max<std::size_t>(freed->bytes, 1);  // as allocate() counts it
            if (reuse && allocated == bytes) {
                *reuse = freed->ptr;
                return true;
            }
            to_free.push_back({freed->ptr, allocated});
            freed_bytes += allocated;
        }
        it = next;
    }
    return freed_bytes > 0;
}

void MemoryNode::free_unlocked(std::unique_lock<std::mutex>& lock,
                               std::vector<FreedBuffer>& to_free) noexcept
{
    if (to_free.empty()) return;
    std::size_t bytes = 0;
    for (FreedBuffer b : to_free) bytes += b.bytes;
    freeing_ += bytes;
    lock.unlock();
    for (FreedBuffer b : to_free) free_raw(b);
    lock.lock();
    freeing_ -= bytes;
    used_ -= bytes;
    ++frees_done_;
    to_free.clear();
    released_.notify_all();
}

void* MemoryNode::allocate(std::size_t bytes, Wait wait)
{
    bytes = std::max<std::size_t>(bytes, 1);
    std::unique_lock lock(m_);
    if (capacity_ && bytes > capacity_)
        throw Error("memory node " + std::to_string(id_) + ": a buffer of " +
                    std::to_string(bytes) + " bytes can never fit in its " +
                    std::to_string(capacity_) + " bytes");
    std::vector<FreedBuffer> to_free;
    std::chrono::steady_clock::time_point refused_since{};
    for (;;) {
        if (void* p = take_cached(bytes)) return p;
        if (void* p = allocate_raw(bytes)) return p;
        if (cached_ > 0) {  // the cache's buffers of other sizes go first
            empty_cache_into(to_free);
            free_unlocked(lock, to_free);
            if (void* p = take_cached(bytes)) return p;  // released meanwhile
            if (void* p = allocate_raw(bytes)) return p;
        }
        // Full by the accounting, or refused by the device below it (a GPU whose memory others
        // use too, libraries' workspaces...): evict either way, unless the caller may wait and
        // memory another thread is freeing will do. (One that may not wait, the GPU worker
        // binding a task's data, evicts: an unused buffer of the size asked for serves at once.)
        const bool refused = !capacity_ || used_ + bytes <= capacity_;
        const bool room_coming =
            wait == Wait::yes && freeing_ > 0 && (refused || used_ - freeing_ + bytes <= capacity_);
        if (room_coming) {
            refused_since = {};  // memory is being released
        } else {
            // An evicted buffer of the size asked for serves as it is, with no free and no
            // allocation: tiles mostly have one size, and on a GPU without memory pools
            // cudaFree would wait for every kernel in flight.
            void* reused = nullptr;
            if (evict_for(lock, bytes, refused, to_free, &reused)) {
                refused_since = {};
                // what was evicted on the way to a buffer handed over is not needed for room:
                // cached, not freed
                if (reused) cache_what_fits(to_free);
                free_unlocked(lock, to_free);
                if (reused) return reused;
                if (void* p = allocate_raw(bytes)) return p;
            }
        }
        if (wait == Wait::no) return nullptr;
        if (refused && device_ &&
            !room_coming) {  // a device out of memory that eviction cannot relieve
            auto now = std::chrono::steady_clock::now();
            if (refused_since == std::chrono::steady_clock::time_point{})
                refused_since = now;
            else if (now - refused_since > std::chrono::seconds(10))
                throw DeviceError("memory node " + std::to_string(id_) +
                                  ": the device has no room for " + std::to_string(bytes) +
                                  " bytes, and nothing was released for 10 s");
        }
        // Everything left is in use by running tasks or transfers, or being freed: wait for one
        // to let go (each notifies; the timeout only guards against a notification this
        // reasoning missed).
        released_.wait_for(lock, std::chrono::milliseconds(50));
    }
}

void MemoryNode::release(void* p, std::size_t bytes) noexcept
{
    if (!p) return;
    {
        std::lock_guard lock(m_);
        cache({p, std::max<std::size_t>(bytes, 1)});
    }
    released_.notify_all();
}

bool MemoryNode::reclaim(std::size_t bytes)
{
    std::unique_lock lock(m_);
    // what other threads are freeing goes back to the device first: at least one of those
    // frees is waited for (all of them could take forever when threads free in turn)
    const bool others_freed = freeing_ > 0;
    const uint64_t frees_seen = frees_done_;
    released_.wait(lock, [&] { return freeing_ == 0 || frees_done_ != frees_seen; });
    std::vector<FreedBuffer> to_free;
    const std::size_t from_cache = cached_;
    empty_cache_into(to_free);
    if (from_cache < bytes) evict_for(lock, bytes - from_cache, true, to_free);
    const bool freed = others_freed || !to_free.empty();
    free_unlocked(lock, to_free);
    return freed;
}

MemoryNode::LruPosition MemoryNode::lru_insert(DataState* d)
{
    std::lock_guard lock(m_);
    return lru_.insert(lru_.end(), d);
}

void MemoryNode::lru_touch(LruPosition pos) noexcept
{
    std::lock_guard lock(m_);
    lru_.splice(lru_.end(), lru_, pos);
}

void MemoryNode::lru_erase(LruPosition pos) noexcept
{
    std::lock_guard lock(m_);
    lru_.erase(pos);
}

void MemoryNode::notify_released() noexcept
{
    {
        std::lock_guard lock(m_);
    }  // a waiter between its checks and its wait sees this call
    released_.notify_all();
}

MemoryNodeInfo MemoryNode::info() const
{
    std::lock_guard lock(m_);
    return MemoryNodeInfo{id_, kind_, capacity_, used_, cached_, evictions_};
}

}  // namespace tessera::rt::detail
