// MemoryNode: one memory the runtime keeps replicas in (host RAM, an emulated accelerator's
// memory, a GPU's memory), with its allocation cache and its least-recently-used list of
// replicas for eviction. Internal.
//
// Allocation (thesis Algorithm 1, as the text describes it):
//   reuse a cached buffer of the same size ─► allocate ─► flush the cache, allocate
//   ─► evict unused replicas, least recently used first (a Modified one is written back to its
//      home first), allocate ─► wait until a replica is released, and start again.
// A request that could never fit (larger than the node) throws instead of waiting forever.
//
// Lock order: a node's lock may be taken while holding a handle's coherency lock only through
// try_lock on the handle side (eviction), so allocate() must be called without any handle's
// coherency lock held.
//
// Buffers are freed outside the node's lock, and count as used until they are: on a GPU
// without memory pools, cudaFree waits for every kernel in flight, and the node's other users
// (copies, workers releasing replicas, memory_nodes()) need not wait with it. An allocation
// that may wait, and that the memory being freed would serve, waits for it rather than evict
// more.
#pragma once

#include <tessera/error.hpp>
#include <tessera/rt/memory.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <list>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace tessera::rt::detail {

class DataState;
class DeviceBackend;

/// A buffer taken off a node: its address and the bytes the node counted for it.
struct FreedBuffer {
    void* ptr;
    std::size_t bytes;
};

/// A node had no room now for a task's data, and its worker had said not to wait for room
/// (Wait::no): a CUDA worker whose own tasks in flight hold the memory completes them first.
class NoRoomNow : public Error {
public:
    NoRoomNow(NodeId node, std::size_t bytes);
};

class MemoryNode {
public:
    /// `capacity` 0 means no limit (the host). `device`: how a GPU's memory is allocated
    /// (nullptr: host memory, for the host and the emulated accelerators); not owned.
    MemoryNode(NodeId id, NodeKind kind, std::size_t capacity, DeviceBackend* device = nullptr);
    ~MemoryNode();
    MemoryNode(MemoryNode const&) = delete;
    MemoryNode& operator=(MemoryNode const&) = delete;

    NodeId id() const noexcept { return id_; }
    NodeKind kind() const noexcept { return kind_; }

    enum class Wait : bool { no, yes };
    /// A buffer of `bytes` for a replica, following the order above. With Wait::no (prefetch),
    /// returns nullptr instead of waiting. Never call with a handle's coherency lock held.
    void* allocate(std::size_t bytes, Wait wait);
    /// Returns a buffer to the allocation cache.
    void release(void* p, std::size_t bytes) noexcept;
    /// Frees this node's unused memory, the allocation cache first, then unused replicas from
    /// the least recently used on, until `bytes` are freed or nothing more can be: room for
    /// what the device allocates outside the node (a GPU's workspace). True if anything was
    /// freed. Never call with a handle's coherency lock held.
    bool reclaim(std::size_t bytes);

    /// The LRU list of the replicas allocated on this node (the handles that own them).
    using LruPosition = std::list<DataState*>::iterator;
    LruPosition lru_insert(DataState* d);
    void lru_touch(LruPosition pos) noexcept;
    void lru_erase(LruPosition pos) noexcept;
    /// A replica here stopped being in use, or memory was freed: wake waiting allocations.
    void notify_released() noexcept;

    MemoryNodeInfo info() const;
    /// Counts a task with data started on this node's workers: `hit` when it found every
    /// buffer it reads already valid here.
    void count_task(bool hit) noexcept
    {
        // on every task's path: one shared increment for the common case, a hit
        tasks_.fetch_add(1, std::memory_order_relaxed);
        if (!hit) misses_.fetch_add(1, std::memory_order_relaxed);
    }
    NodeHitStats hit_stats() const noexcept
    {
        uint64_t misses = misses_.load(std::memory_order_relaxed);
        uint64_t tasks = tasks_.load(std::memory_order_relaxed);
        return {id_, tasks, tasks - std::min(misses, tasks)};  // read apart: misses may lead
    }
    void reset_hit_stats() noexcept
    {
        tasks_.store(0, std::memory_order_relaxed);
        misses_.store(0, std::memory_order_relaxed);
    }
    /// The bytes the node may hold at most (0: no limit).
    std::size_t capacity() const noexcept { return capacity_; }

private:
    /// nullptr when the node (its capacity, or the device) has no room; throws DeviceError
    /// for a device's other failures.
    void* allocate_raw(std::size_t bytes);
    void free_raw(FreedBuffer b) noexcept;
    void* take_cached(std::size_t bytes) noexcept;
    void cache(FreedBuffer b);
    /// Moves `buffers` to the allocation cache, as many as it can take (bad_alloc leaves the
    /// rest in `buffers`).
    void cache_what_fits(std::vector<FreedBuffer>& buffers) noexcept;
    /// Moves the allocation cache's buffers to `to_free` (bad_alloc leaves both as they were).
    void empty_cache_into(std::vector<FreedBuffer>& to_free);
    /// Evicts unused replicas from the least recently used on until `bytes` would fit (or,
    /// when the device refused memory the accounting allows, until `bytes` are freed), their
    /// buffers going to `to_free`. True if anything was evicted. With `reuse`, the first
    /// evicted buffer of exactly `bytes` ends it: it goes to *reuse as it is, neither freed
    /// nor allocated again. If a write-back throws, what was evicted before it is freed (with
    /// `lock` released meanwhile) and the error goes on.
    bool evict_for(std::unique_lock<std::mutex>& lock, std::size_t bytes, bool device_refused,
                   std::vector<FreedBuffer>& to_free, void** reuse = nullptr);
    /// Frees `to_free` with `lock` released, then stops counting it as used and wakes the
    /// waiting allocations.
    void free_unlocked(std::unique_lock<std::mutex>& lock,
                       std::vector<FreedBuffer>& to_free) noexcept;

    NodeId id_;
    std::atomic<uint64_t> tasks_{0}, misses_{0};  // count_task
    NodeKind kind_;
    std::size_t capacity_;
    DeviceBackend* device_;
    mutable std::mutex m_;
    std::condition_variable released_;
    std::size_t used_ = 0;     // allocated, cached buffers included
    std::size_t cached_ = 0;   // bytes in the cache
    std::size_t freeing_ = 0;  // bytes being freed outside the lock (still in used_)
    uint64_t frees_done_ = 0;  // free_unlocked calls that have ended
    uint64_t evictions_ = 0;
    std::unordered_map<std::size_t, std::vector<void*>> cache_;  // size -> free buffers
    std::list<DataState*> lru_;                                  // least recently used first
};

}  // namespace tessera::rt::detail
