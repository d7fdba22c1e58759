// MSI coherency of handles across memory nodes: fetch, invalidation, write-back, eviction.
#include "runtime/data/coherency.hpp"

#include "runtime/core/runtime_impl.hpp"
#include "runtime/data/data_state.hpp"

#include <tessera/error.hpp>

#include <cstring>
#include <utility>

namespace tessera::rt::detail {

Layout packed(Layout const& l) noexcept
{
    Layout p = l;
    p.ld = l.nx;
    p.ldz = l.nx * l.ny;
    return p;
}

bool copies_as_one_block(Layout const& sl, Layout const& dl) noexcept
{
    return sl.kind == InterfaceKind::variable || sl.kind == InterfaceKind::vector ||
           (sl.ld == sl.nx && dl.ld == dl.nx && sl.ldz == sl.nx * sl.ny && dl.ldz == dl.nx * dl.ny);
}

void copy_elements(void const* src, Layout const& sl, void* dst, Layout const& dl) noexcept
{
    std::size_t es = sl.elem_size, column = std::size_t(sl.nx) * es;
    auto const* s = static_cast<std::byte const*>(src);
    auto* d = static_cast<std::byte*>(dst);
    if (copies_as_one_block(sl, dl)) {
        std::memcpy(d, s, sl.bytes());
        return;
    }
    for (int64_t k = 0; k < sl.nz; ++k)  // column by column: the leading dimensions differ
        for (int64_t j = 0; j < sl.ny; ++j)
            std::memcpy(d + std::size_t(j * dl.ld + k * dl.ldz) * es,
                        s + std::size_t(j * sl.ld + k * sl.ldz) * es, column);
}

namespace {

using Lock = std::unique_lock<std::mutex>;

bool valid(Replica const& r) noexcept
{
    return r.state != Msi::invalid;
}

/// Allocates d's replica on node n; drops the handle's lock meanwhile (see MemoryNode).
/// False if the node had no room and `wait` said not to wait.
bool allocate_replica(DataState* d, NodeId n, Lock& lock, MemoryNode::Wait wait)
{
    MemoryNode& node = d->rt->machine().node(n);
    std::size_t bytes = d->layout.bytes();
    d->replicas[n].busy = true;
    lock.unlock();
    void* p = nullptr;
    try {
        p = node.allocate(bytes, wait);
    } catch (...) {
        lock.lock();
        d->replicas[n].busy = false;
        d->cv.notify_all();
        throw;
    }
    lock.lock();
    Replica& r = d->replicas[n];
    r.busy = false;
    if (p) {
        r.ptr = p;
        r.layout = packed(d->layout);
        r.owned = true;
        r.state = Msi::invalid;
        r.lru = node.lru_insert(d);
        r.in_lru = true;
    }
    d->cv.notify_all();
    return p != nullptr;
}

/// A valid replica that a copy to node n can start from, or none: the host can reach every
/// node, a device the host and the devices it has peer access to. Never a retired node's: its
/// GPU faulted, and every copy from it would fail.
std::optional<NodeId> direct_source(DataState* d, NodeId n)
{
    auto usable = [&](NodeId k) {
        return valid(d->replicas[k]) && !d->replicas[k].writing && !d->rt->node_retired(k);
    };
    if (n != host_node) {
        if (usable(host_node)) return host_node;
        for (NodeId k = 1; k < d->replicas.size(); ++k)
            if (k != n && usable(k) && d->rt->machine().peers(k, n)) return k;
        return std::nullopt;
    }
    for (NodeId k = 0; k < d->replicas.size(); ++k)
        if (k != n && usable(k)) return k;
    return std::nullopt;
}

/// Starts the copy src -> n. The source is pinned until the copy is done; the destination is
/// busy, and becomes Shared unless the handle was written meanwhile.
void start_transfer(DataState* d, NodeId src, NodeId n)
{
    Replica& s = d->replicas[src];
    Replica& r = d->replicas[n];
    ++s.users;
    r.busy = true;
    uint64_t version = d->version;
    TransferRequest req{
        src, n, s.ptr, s.layout, r.ptr, r.layout, [d, src, n, version](std::exception_ptr error) {
            std::lock_guard lock(d->cm);
            Replica& sr = d->replicas[src];
            Replica& dr = d->replicas[n];
            dr.busy = false;
            if (error)
                dr.error = error;  // stays Invalid
            else if (d->version == version) {
                dr.state = Msi::shared;
                if (sr.state == Msi::modified) sr.state = Msi::shared;
            }
            if (--sr.users == 0 && sr.owned) d->rt->machine().node(src).notify_released();
            if (dr.owned) d->rt->machine().node(n).notify_released();  // evictable again
            d->cv.notify_all();
        }};
    d->rt->machine().transfers().submit(std::move(req));
}

/// Allocates d's replica on node n, or throws NoRoomNow where `wait` said not to wait.
void allocate_replica_or_throw(DataState* d, NodeId n, Lock& lock, MemoryNode::Wait wait)
{
    if (!allocate_replica(d, n, lock, wait)) throw NoRoomNow(n, d->layout.bytes());
}

/// Brings a valid copy to node n (through the host if need be) and waits for it.
void fetch(DataState* d, NodeId n, Lock& lock, MemoryNode::Wait wait = MemoryNode::Wait::yes)
{
    for (;;) {
        Replica& r = d->replicas[n];
        if (r.busy) {
            d->cv.wait(lock);
            continue;
        }
        if (valid(r)) return;
        if (r.error) std::rethrow_exception(std::exchange(r.error, nullptr));  // the copy failed
        if (!r.ptr) {
            allocate_replica_or_throw(d, n, lock, wait);
            continue;
        }
        if (auto src = direct_source(d, n)) {
            start_transfer(d, *src, n);
            continue;  // waits while busy
        }
        bool any_valid = false;
        std::optional<NodeId> lost;  // a valid copy on a node whose GPU faulted
        for (NodeId k = 0; k < d->replicas.size(); ++k) {
            if (!valid(d->replicas[k])) continue;
            if (d->rt->node_retired(k))
                lost = k;
            else
                any_valid = true;
        }
        if (!any_valid && lost)
            throw DeviceError("coherency: the only valid copy of this data was on memory node " +
                              std::to_string(*lost) +
                              ", whose GPU faulted (its worker was retired)");
        if (!any_valid) throw Error("coherency: handle has no valid copy on any memory node");
        if (n == host_node) {  // the valid copy is being written: wait for the writer
            d->cv.wait(lock);
            continue;
        }
        fetch(d, host_node, lock);  // device to device: through the host
    }
}

/// n becomes the only valid copy.
void make_exclusive(DataState* d, NodeId n)
{
    ++d->version;
    for (NodeId k = 0; k < d->replicas.size(); ++k)
        if (k != n) d->replicas[k].state = Msi::invalid;
    d->replicas[n].state = Msi::modified;
    d->replicas[n].error = nullptr;  // valid again: an older failed copy no longer matters
}

void free_replica(DataState* d, NodeId k)
{
    Replica& r = d->replicas[k];
    if (!r.owned || !r.ptr) return;
    MemoryNode& node = d->rt->machine().node(k);
    if (r.in_lru) node.lru_erase(r.lru);
    node.release(r.ptr, d->layout.bytes());
    r = Replica{};
}

}  // namespace

Replica& acquire_replica(DataState* d, NodeId n, Mode m, MemoryNode::Wait wait, bool* missed)
{
    Lock lock(d->cm);
    if (missed && reads(m) && !valid(d->replicas[n])) *missed = true;
    for (;;) {
        Replica& r = d->replicas[n];
        if (r.busy) {
            d->cv.wait(lock);
            continue;
        }
        if (!r.ptr) {
            allocate_replica_or_throw(d, n, lock, wait);
            continue;
        }
        if (reads(m) && !valid(r)) {
            fetch(d, n, lock, wait);
            continue;  // re-check: the replica may have been evicted meanwhile
        }
        if (writes(m)) {
            make_exclusive(d, n);
            r.writing = true;
        }
        ++r.users;
        if (r.in_lru) d->rt->machine().node(n).lru_touch(r.lru);
        return r;
    }
}

void release_replica(DataState* d, NodeId n, Mode m) noexcept
{
    std::lock_guard lock(d->cm);
    Replica& r = d->replicas[n];
    if (writes(m)) r.writing = false;
    if (--r.users == 0 && r.owned) d->rt->machine().node(n).notify_released();
    d->cv.notify_all();
}

void prefetch_replica(DataState* d, NodeId n)
{
    Lock lock(d->cm);
    Replica& r = d->replicas[n];
    if (r.busy || valid(r)) return;
    for (Replica const& k : d->replicas)
        if (k.writing) return;  // a task is writing it: whatever we copied would be stale
    if (!r.ptr && !allocate_replica(d, n, lock, MemoryNode::Wait::no)) return;
    if (d->replicas[n].busy || valid(d->replicas[n])) return;
    if (auto src = direct_source(d, n)) start_transfer(d, *src, n);
}

void gather_home(DataState* d)
{
    Lock lock(d->cm);
    NodeId home = d->home;
    // The last chance to bring the data home, since the other replicas are freed below: a
    // copy that failed is tried again (a failed fetch leaves the valid replica as it was).
    for (int attempt = 1;; ++attempt) {
        try {
            fetch(d, home, lock);
            break;
        } catch (...) {
            if (attempt < gather_home_attempts) continue;
            // The only valid copy sat on a device that failed (a GPU fault): it cannot be read
            // any more. The home buffer keeps what it last held, and the next wait reports the
            // loss.
            d->rt->record_error(std::current_exception());
            break;
        }
    }
    for (NodeId k = 0; k < d->replicas.size(); ++k) {
        if (k == home) continue;
        d->cv.wait(lock, [&] { return !d->replicas[k].busy && d->replicas[k].users == 0; });
        free_replica(d, k);
    }
    d->replicas[home].state = Msi::modified;
    ++d->version;
}

std::optional<FreedBuffer> evict_replica(DataState* d, NodeId n)
{
    Lock lock(d->cm, std::try_to_lock);
    if (!lock.owns_lock()) return std::nullopt;
    Replica& r = d->replicas[n];
    if (!r.owned || !r.ptr || r.busy || r.users > 0) return std::nullopt;
    if (r.state == Msi::modified) {  // the only valid copy: write it back home first
        Replica& h = d->replicas[d->home];
        if (d->home == n || !h.ptr || h.busy) return std::nullopt;
        d->rt->machine().transfers().copy_now({n, d->home, r.ptr, r.layout, h.ptr, h.layout, {}});
        h.state = Msi::modified;
    }
    FreedBuffer freed{r.ptr, d->layout.bytes()};
    r = Replica{};
    d->cv.notify_all();
    return freed;
}

}  // namespace tessera::rt::detail
