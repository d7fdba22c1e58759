// Who runs a call: Tessera above the crossover, unless the call is re-entrant or the runtime
// is busy with another thread's call; the next library otherwise.
#include "linalg/dropin/entry.hpp"

#include <tessera/rt/runtime.hpp>

#include <cstddef>

#include "linalg/lapack/library_call.hpp"

namespace tessera::dropin {

namespace {
thread_local int serving_depth = 0;     // > 0 while Tessera serves a call of this thread
std::atomic<bool> runtime_busy{false};  // Tessera serves some thread's call
std::atomic<Entry*> entries{nullptr};
}  // namespace

Serving Serving::try_acquire() noexcept
{
    // Re-entrant: a call made by Tessera itself, on this thread (a kernel run inline, a small
    // case handed to LAPACK) or on a worker, or from a LAPACK-style call the application made
    // directly. Sending it back into Tessera would recurse without end.
    if (serving_depth > 0 || rt::Runtime::current_worker() != rt::no_worker ||
        la::detail::inside_library_call())
        return {};
    if (runtime_busy.exchange(true, std::memory_order_acquire)) return {};
    ++serving_depth;
    Serving s;
    s.held_ = true;
    return s;
}

Serving::~Serving()
{
    if (!held_) return;
    --serving_depth;
    runtime_busy.store(false, std::memory_order_release);
}

void* Entry::resolve_next() noexcept
{
    // The gemm gates (gate.hpp) load next_ from the entry's own address.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
    static_assert(offsetof(Entry, next_) == 0);
#pragma GCC diagnostic pop
    void* f = next_definition(symbol_);
    if (f) next_.store(f, std::memory_order_release);
    return f;
}

Serving Entry::acquire() noexcept
{
    Serving s = Serving::try_acquire();
    if (counting) (s ? served : nested).fetch_add(1, std::memory_order_relaxed);
    return s;
}

void Entry::count_call(bool runs) noexcept
{
    if (!listed_.load(std::memory_order_relaxed) && !listed_.exchange(true)) list_entry(*this);
    if (!runs) below_crossover.fetch_add(1, std::memory_order_relaxed);
}

void list_entry(Entry& entry) noexcept
{
    Entry* head = entries.load(std::memory_order_relaxed);
    do entry.next_entry = head;
    while (!entries.compare_exchange_weak(head, &entry, std::memory_order_release,
                                          std::memory_order_relaxed));
}

Entry* first_entry() noexcept
{
    return entries.load(std::memory_order_acquire);
}

}  // namespace tessera::dropin
