/// @file memory.hpp
/// Memory nodes, transfer statistics and pinned host memory.
///
/// A memory node is a memory the runtime keeps replicas of registered data in: node 0 is the
/// host's RAM; each emulated accelerator (TESSERA_NEMU) and, later, each GPU is a node of its
/// own. A handle has one replica per node, each Modified (the only valid copy), Shared (valid,
/// other valid copies exist) or Invalid; the runtime moves data between nodes by itself so that
/// a task always sees valid data on the node of the worker that runs it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

namespace tessera::rt {

/// A memory node's index: 0 is the host, then one per emulated accelerator or GPU.
using NodeId = unsigned;
/// The host's RAM.
inline constexpr NodeId host_node = 0;

/// What memory a node is: `host`, the host's RAM (node 0); `emu`, an emulated accelerator's
/// memory (separate host RAM behind a modeled link); `cuda`, a CUDA GPU's device memory.
enum class NodeKind : uint8_t { host, emu, cuda };

/// A memory node as the runtime sees it.
struct MemoryNodeInfo {
    NodeId id = 0;                   ///< its index
    NodeKind kind = NodeKind::host;  ///< what memory it is
    std::size_t capacity = 0;        ///< bytes the runtime may allocate there (0: no limit)
    std::size_t used = 0;            ///< bytes allocated there now, allocation cache included
    std::size_t cached = 0;          ///< of which: freed buffers kept for reuse
    uint64_t evictions = 0;  ///< replicas evicted to make room (written back first if Modified)
};

/// The tasks that ran on a memory node's workers since the runtime started (or the last
/// reset_link_stats()), and how many of them found every buffer they read already valid there
/// (no copy to wait for): hits / tasks is seed 001's hit ratio of the replicas. Tasks without
/// data (or with SCRATCH and REDUX buffers only) are not counted.
struct NodeHitStats {
    NodeId node = 0;     ///< the memory node
    uint64_t tasks = 0;  ///< tasks started there with data
    uint64_t hits = 0;   ///< those whose data was all valid there when they started
};

/// Transfers from node `src` to node `dst` since the runtime started (or the last reset).
struct LinkStats {
    /// @name Link
    //@{
    /// The link's source and destination nodes.
    NodeId src = 0, dst = 0;
    //@}
    uint64_t transfers = 0;  ///< copies made from src to dst
    uint64_t bytes = 0;      ///< bytes those copies moved
};

/// Host memory suited to device transfers: page-locked through cudaHostAlloc when Tessera
/// was built with CUDA and a device is present, else page-aligned ordinary memory. Returns
/// nullptr for 0 bytes; throws std::bad_alloc when out of memory.
void* allocate_pinned(std::size_t bytes);
/// Page-aligned host memory, page-locked (allocate_pinned) only when `page_locked`: without
/// it, no CUDA call is made, so no CUDA context is created. Free it with free_pinned.
void* allocate_host(std::size_t bytes, bool page_locked);
/// Frees memory from allocate_pinned or allocate_host (nullptr is ignored).
void free_pinned(void* p) noexcept;

/// A standard allocator over allocate_pinned, e.g. std::vector<double, PinnedAllocator<double>>.
template <class T> struct PinnedAllocator {
    using value_type = T;  ///< the element type
    PinnedAllocator() = default;
    /// Rebinding copy: the allocator holds no state.
    template <class U> PinnedAllocator(PinnedAllocator<U> const&) noexcept {}
    /// Memory for n elements: allocate_pinned(n * sizeof(T)), page-aligned; nullptr for n = 0.
    /// Throws std::bad_alloc when out of memory.
    T* allocate(std::size_t n) { return static_cast<T*>(allocate_pinned(n * sizeof(T))); }
    /// Frees p with free_pinned (the size is not needed).
    void deallocate(T* p, std::size_t) noexcept { free_pinned(p); }
    /// Always true: any instance frees what another allocated.
    template <class U>
    friend bool operator==(PinnedAllocator const&, PinnedAllocator<U> const&) noexcept
    {
        return true;
    }
};

/// Page-locks the caller's memory [p, p + bytes) while it lives (cudaHostRegister), so that
/// copies between it and GPUs run by DMA at the link's bandwidth instead of being staged
/// through the driver's bounce buffers. Does nothing without CUDA or a device, for memory
/// already page-locked, or when the driver refuses: copies from pageable memory still work.
/// Registering costs time in proportion to the pages; Runtime::pin_for_transfers decides when
/// it pays.
class PinnedRegion {
public:
    /// Pins nothing.
    PinnedRegion() = default;
    /// Page-locks [p, p + bytes) if it can (see pinned()); nothing for a null p or 0 bytes.
    PinnedRegion(void const* p, std::size_t bytes) noexcept;
    /// Unregisters the region if this object registered it.
    ~PinnedRegion();
    /// Takes over o's region; o no longer unregisters it.
    PinnedRegion(PinnedRegion&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
    /// Unregisters this object's region, if any, then takes over o's.
    PinnedRegion& operator=(PinnedRegion&& o) noexcept;
    PinnedRegion(PinnedRegion const&) = delete;
    PinnedRegion& operator=(PinnedRegion const&) = delete;
    /// True when this object registered the region (and will unregister it).
    bool pinned() const noexcept { return p_ != nullptr; }

private:
    void const* p_ = nullptr;
};

/// Parses a byte count such as "16MB", "512KiB", "2G" or "1048576" (K/M/G/T are powers of 1024,
/// with or without "B" / "iB"). Throws InvalidArgument naming `what` when malformed.
std::size_t parse_bytes(std::string const& text, std::string const& what);

}  // namespace tessera::rt
