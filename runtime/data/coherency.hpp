// Coherency: MSI replicas of a handle across memory nodes (thesis §2.3). Internal.
//
//   read on node n, n Invalid  ─► fetch a valid copy (host ↔ device directly, device ↔ device
//                                  directly between GPUs with peer access, else through the
//                                  host), then n and the source are Shared
//   write / read-write on n    ─► (fetch first for read-write) n Modified, every other Invalid
//   write-only on n            ─► allocate without fetching
// A replica in use by a task or a transfer is pinned: eviction skips it. Transfers are
// asynchronous requests; the thread that needs the data waits on the handle's condition
// variable until the transfer's completion marks the replica valid. Each handle's `version`
// grows at every write, so that a transfer started before a write never validates a stale copy.
#pragma once

#include "runtime/data/memory_node.hpp"

#include <tessera/rt/access.hpp>
#include <tessera/rt/interfaces.hpp>

#include <cstddef>
#include <exception>
#include <optional>
#include <string>

namespace tessera::rt::detail {

class DataState;

enum class Msi : uint8_t { invalid, shared, modified };

/// A handle's copy on one memory node.
struct Replica {
    void* ptr = nullptr;
    Layout layout;  // on this node: the user's layout at home, packed elsewhere
    Msi state = Msi::invalid;
    bool owned = false;        // allocated by the runtime (false: the user's memory)
    bool busy = false;         // being allocated, or filled by a transfer
    bool writing = false;      // a task writes it now: not a transfer source
    int users = 0;             // tasks and transfers using it: not evictable
    std::exception_ptr error;  // the last transfer into it failed: its fetcher rethrows this
    bool in_lru = false;
    MemoryNode::LruPosition lru;
};

/// The layout of a contiguous copy of data laid out as `l`.
Layout packed(Layout const& l) noexcept;
/// Are the elements of `sl` and of `dl` both one contiguous block (one copy moves them all)?
bool copies_as_one_block(Layout const& sl, Layout const& dl) noexcept;
/// Copies the elements described by `sl` at `src` to `dst` laid out as `dl` (same extents).
void copy_elements(void const* src, Layout const& sl, void* dst, Layout const& dl) noexcept;

/// Makes the handle valid on node n for mode m (allocating, fetching, invalidating as needed)
/// and pins that replica until release_replica. Blocks while the data is on its way; waits
/// for room on n too, unless `wait` is Wait::no: then throws NoRoomNow. `missed`, when given,
/// is set when m reads and the data was not valid on n (a copy was made or waited for).
Replica& acquire_replica(DataState* d, NodeId n, Mode m,
                         MemoryNode::Wait wait = MemoryNode::Wait::yes, bool* missed = nullptr);
void release_replica(DataState* d, NodeId n, Mode m) noexcept;
/// Starts bringing a valid copy to node n, without waiting for memory or for the transfer;
/// does nothing if it cannot (best effort).
void prefetch_replica(DataState* d, NodeId n);
/// Makes the home replica valid and the only one, freeing the others (unregister, partition).
/// Never throws: a copy that fails is tried again, up to gather_home_attempts in all; if the
/// valid copy still cannot be fetched (a failed device), the home buffer keeps its last
/// contents and the error goes to the runtime's next wait.
void gather_home(DataState* d);
inline constexpr int gather_home_attempts = 3;

/// Called by a node, under its lock, to reclaim d's replica there: only if unused and d's
/// coherency lock is free; a Modified replica is written back home first.
std::optional<FreedBuffer> evict_replica(DataState* d, NodeId n);

}  // namespace tessera::rt::detail
