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

using NodeId = unsigned;
/// The host's RAM.
inline constexpr NodeId host_node = 0;

enum class NodeKind : uint8_t { host, emu, cuda };

/// A memory node as the runtime sees it.
struct MemoryNodeInfo {
    NodeId id = 0;
    NodeKind kind = NodeKind::host;
    std::size_t capacity = 0;  ///< bytes the runtime may allocate there (0: no limit)
    std::size_t used = 0;      ///< bytes allocated there now, allocation cache included
    std::size_t cached = 0;    ///< of which: freed buffers kept for reuse
    uint64_t evictions = 0;    ///< replicas evicted to make room (written back first if Modified)
};

/// Transfers from node `src` to node `dst` since the runtime started (or the last reset).
struct LinkStats {
    NodeId src = 0, dst = 0;
    uint64_t transfers = 0;
    uint64_t bytes = 0;
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
template <class T>
struct PinnedAllocator {
    using value_type = T;
    PinnedAllocator() = default;
    template <class U>
    PinnedAllocator(PinnedAllocator<U> const&) noexcept
    {
    }
    T* allocate(std::size_t n) { return static_cast<T*>(allocate_pinned(n * sizeof(T))); }
    void deallocate(T* p, std::size_t) noexcept { free_pinned(p); }
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
    PinnedRegion() = default;
    PinnedRegion(void const* p, std::size_t bytes) noexcept;
    ~PinnedRegion();
    PinnedRegion(PinnedRegion&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
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
