// One exported BLAS or LAPACK symbol of the drop-in library: whether a call goes to Tessera or
// to the next library, how many went where, and the next library's definition. Internal to
// libtessera_lapack.
#pragma once

#include "linalg/dropin/crossover.hpp"

#include <atomic>
#include <cstdint>

namespace tessera::dropin {

/// The definition of `symbol` that the drop-in stands in front of: in the library named by
/// TESSERA_LAPACK_FALLBACK, else the next one in the link order (dlsym RTLD_NEXT), else
/// OpenBLAS. Null (with a message on stderr) when none has it. fallback.cpp.
void* next_definition(char const* symbol) noexcept;

/// TESSERA_LAPACK_VERBOSE is set (read when the library is loaded, report.cpp): the entries
/// count their calls. Its assembler name is what the gemm gates read (gate.hpp).
extern bool counting __asm__("tessera_dropin_counting");

/// The fast path of every symbol: true when the next library runs a call of `routine` in
/// precision `p` (precision_index) and dimensions m, n, k because it is below the crossover
/// (and calls are not being counted). The symbol then returns Entry::forward(...) at once, a
/// tail call: a few instructions in front of the next library.
template <Routine routine, int p>
[[gnu::always_inline]] inline bool forwards(double m, double n, double k) noexcept
{
    return !counting && !tessera_runs(routine, p, volume_of(m, n, k));
}

/// Held while Tessera serves a call. Meanwhile every other call into the drop-in goes to the
/// next library: the BLAS and LAPACK calls Tessera's own kernels make (on this thread or on a
/// worker), and another application thread's calls (the runtime is busy with this one).
class Serving {
public:
    Serving() noexcept = default;  // not held: the next library runs the call
    static Serving try_acquire() noexcept;
    Serving(Serving&& other) noexcept : held_(other.held_) { other.held_ = false; }
    Serving& operator=(Serving&&) = delete;
    ~Serving();
    explicit operator bool() const noexcept { return held_; }

private:
    bool held_ = false;
};

/// An exported symbol (one `constinit` Entry per symbol, TESSERA_DROPIN_SYMBOL in call.hpp):
/// its routine and precision, the next library's definition once resolved, its counters.
class Entry {
    // First, at offset 0: the gemm gates (gate.hpp) load it from the entry's own address.
    std::atomic<void*> next_{nullptr};

public:
    constexpr Entry(char const* symbol, Routine routine, int precision) noexcept
        : symbol_(symbol), routine_(routine), precision_(precision)
    {}

    /// Whether Tessera runs this call, of dimensions m, n, k (the volume m n k of the square
    /// problem with as many flops): above the crossover, not re-entrant, the runtime not busy
    /// with another thread's call. Inline: below the crossover, a few instructions.
    Serving serve(double m, double n, double k) noexcept
    {
        const bool runs = tessera_runs(routine_, precision_, volume_of(m, n, k));
        if (counting) count_call(runs);
        return runs ? acquire() : Serving{};
    }

    /// Calls the next library's definition, of type F (the exported function's own type).
    template <class F, class... Args> [[gnu::always_inline]] void forward(Args... args) noexcept
    {
        void* f = next_.load(std::memory_order_acquire);
        if (!f) [[unlikely]] {
            f = resolve_next();
            if (!f) return;  // reported by next_definition: nothing can run the call
        }
        reinterpret_cast<F*>(f)(args...);
    }

    char const* symbol() const noexcept { return symbol_; }  // "dpotrf_"

    // What TESSERA_LAPACK_VERBOSE=1 prints at exit (report.cpp); counted only then, so that
    // a call below the crossover costs no atomic operation.
    std::atomic<uint64_t> served{0};           // Tessera ran them
    std::atomic<uint64_t> below_crossover{0};  // the next library ran them: too small
    std::atomic<uint64_t> nested{0};  // the next library ran them: re-entrant or concurrent
    Entry* next_entry = nullptr;      // the list of the symbols called so far

private:
    void* resolve_next() noexcept;        // next_definition, kept in next_
    Serving acquire() noexcept;           // Serving::try_acquire, counted
    void count_call(bool runs) noexcept;  // lists the entry, counts a call below the crossover
    char const* symbol_;
    Routine routine_;
    int precision_;
    std::atomic<bool> listed_{false};
};

/// The first entry of the list of symbols called so far (report.cpp walks it at exit).
Entry* first_entry() noexcept;
void list_entry(Entry& entry) noexcept;

}  // namespace tessera::dropin
