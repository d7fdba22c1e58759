/// @file codelet.hpp
/// A codelet is a computation the runtime may run on several kinds of processing units: a
/// name, one or more implementations per architecture, an optional predicate saying which
/// implementation may run where, a performance-model slot and a flop count. Its template
/// parameters are the kernel's parameters: views for buffers, plain types for values.
///
///     void axpy_cpu(Vector<const double> x, Vector<double> y, double alpha);
///     const rt::Codelet<Vector<const double>, Vector<double>, double> axpy{
///         .name  = "axpy",
///         .cpu   = &axpy_cpu,
///         .flops = [](auto const& x, auto const&, double) { return 2.0 * x.n; },
///     };
///     rt.submit(axpy, read(x), readwrite(y), value(3.0));
#pragma once

#include <tessera/rt/access.hpp>
#include <tessera/rt/interfaces.hpp>
#include <tessera/rt/span.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tessera::rt {

/// The kind of processing unit an implementation is written for.
enum class Arch : uint8_t {
    cpu,   ///< a CPU core (OpenBLAS, LAPACKE, FFTW...)
    cuda,  ///< an NVIDIA GPU (cuBLAS, cuSOLVER, cuFFT...)
    emu,   ///< the emulated accelerator (runs the CPU implementation when it has none)
};
/// Number of Arch values: the size of per-architecture tables, indexed by `std::size_t(a)`.
inline constexpr std::size_t arch_count = 3;
/// The architecture's name: "cpu", "cuda" or "emu" ("?" for a value outside the enum).
constexpr std::string_view to_string(Arch a) noexcept
{
    switch (a) {
    case Arch::cpu:
        return "cpu";
    case Arch::cuda:
        return "cuda";
    case Arch::emu:
        return "emu";
    }
    return "?";
}

/// A set of architectures, e.g. `ArchMask::cpu | ArchMask::emu`.
enum class ArchMask : uint8_t { none = 0, cpu = 1, cuda = 2, emu = 4, all = 7 };
/// The union of two sets.
constexpr ArchMask operator|(ArchMask a, ArchMask b) noexcept
{
    return ArchMask(uint8_t(a) | uint8_t(b));
}
/// Whether set m holds architecture a: bit `uint8_t(a)` of m (cpu 1, cuda 2, emu 4).
constexpr bool contains(ArchMask m, Arch a) noexcept
{
    return (uint8_t(m) >> uint8_t(a)) & 1u;
}

class PerfModel;     // performance models (runtime/perfmodel)
struct CudaContext;  // what a CUDA implementation receives: its stream and library handles

/// How a codelet may use several CPU cores at once (thesis §4.2): the scheduler may give one
/// of its tasks a combined worker, a group of cores close in the topology.
enum class ParallelKind : uint8_t {
    sequential,  ///< one core
    forkjoin,    ///< the implementation runs once, on the group's first core, and may use the
                 ///< group's cores itself (threads, a multithreaded library call)
    spmd,        ///< the implementation runs on every core of the group at once; each call
                 ///< learns its rank and the group's size from rt::parallel_rank()/_size()
};

/// Up to `max_impls` implementations of one architecture, e.g. `.cpu = {&blocked, &naive}`.
/// Which one runs is decided per task (can_execute, then the scheduler); the first by default.
template <class Fn> struct Implementations {
    static constexpr std::size_t max_impls = 4;  ///< the most implementations kept
    std::array<Fn*, max_impls> fns{};            ///< fns[0 .. count) are set, in order
    unsigned count = 0;                          ///< number of implementations

    /// No implementation.
    constexpr Implementations() = default;
    /// One implementation, from anything convertible to `Fn*` (`&kernel`, a captureless
    /// lambda); none if it is null (`.cuda = nullptr` in a build without CUDA).
    template <class F>
        requires std::convertible_to<F, Fn*>
    constexpr Implementations(F f) : fns{static_cast<Fn*>(f)}, count(fns[0] ? 1u : 0u) {}
    /// The non-null pointers of `list`, in order; those beyond max_impls are dropped.
    constexpr Implementations(std::initializer_list<Fn*> list)
    {
        for (Fn* f : list)
            if (f && count < max_impls) fns[count++] = f;
    }
    /// Implementation i, i < count (not checked).
    constexpr Fn* operator[](unsigned i) const noexcept { return fns[i]; }
    /// True when there is no implementation.
    constexpr bool empty() const noexcept { return count == 0; }
};

/// A codelet over kernel parameters `Params...` (views for buffers, plain types for values).
template <class... Params> struct Codelet {
    static_assert(((std::is_same_v<Params, std::remove_cvref_t<Params>>)&&...),
                  "kernel parameters are taken by value: views and plain values, no references");

    std::string_view name;                                      ///< for traces, models and errors
    ArchMask where = ArchMask::all;                             ///< where its tasks may run at all
    Implementations<void(Params...)> cpu;                       ///< CPU implementations
    Implementations<void(CudaContext const&, Params...)> cuda;  ///< CUDA implementations
    /// Emulated-accelerator implementations; without any, the emulated accelerator runs the
    /// CPU ones on its own memory node's buffers.
    Implementations<void(Params...)> emu;
    /// May implementation `impl` of architecture `arch` run this task? (nullptr: always)
    bool (*can_execute)(Arch arch, unsigned impl, Params const&...) = nullptr;
    PerfModel const* model = nullptr;              ///< performance model (nullptr: none)
    double (*flops)(Params const&...) = nullptr;   ///< floating-point operations of a task
    ParallelKind type = ParallelKind::sequential;  ///< may its tasks use several cores?
    unsigned max_parallelism = 1;                  ///< the largest group worth giving it
};

namespace detail {

/// What a type-erased call of an implementation needs.
struct KernelArgs {
    BufferSlot const* buffers;  ///< the task's buffers, in parameter order (a span's in a row)
    void* values;               ///< the std::tuple of the value parameters
    CudaContext const* cuda;    ///< for CUDA implementations
    /// For a codelet with span parameters: buffer parameter b has the buffers
    /// [groups[b], groups[b + 1]). nullptr otherwise (parameter b is buffer b).
    uint32_t const* groups = nullptr;
};

/// A kernel parameter that takes buffers: a view (one buffer) or a Span (any number).
template <class P> inline constexpr bool is_buffer_param_v = is_view_v<P> || is_span_v<P>;

/// The operations the runtime needs on a codelet whose parameter types it does not know.
struct CodeletOps {
    std::string_view (*name)(void const* cl);
    unsigned (*implementations)(void const* cl, Arch a);
    bool (*can_execute)(void const* cl, Arch a, unsigned impl, KernelArgs const& args);
    void (*run)(void const* cl, Arch a, unsigned impl, KernelArgs const& args);
    double (*flops)(void const* cl, KernelArgs const& args);  ///< < 0 when unknown
    PerfModel const* (*model)(void const* cl);
    ParallelKind (*parallel)(void const* cl, unsigned* max_parallelism);
};

/// Compile-time facts about a kernel signature: which parameters are buffers, where each
/// parameter's argument is stored, and the tuple holding the values.
template <class... Params> struct Signature {
    static constexpr std::size_t arity = sizeof...(Params);
    static constexpr std::array<bool, arity> is_buffer{is_buffer_param_v<Params>...};
    /// Buffer parameters (a span counts once).
    static constexpr std::size_t buffers = (std::size_t(is_buffer_param_v<Params>) + ... + 0);
    /// Some parameter is a span: the task records where each buffer parameter's buffers start.
    static constexpr bool has_spans = (is_span_v<Params> || ...);
    static constexpr std::size_t values = arity - buffers;
    /// slot[k]: index among the buffers (or among the values) of parameter k.
    static constexpr std::array<std::size_t, arity> slot = [] {
        std::array<std::size_t, arity> s{};
        std::size_t b = 0, v = 0;
        for (std::size_t k = 0; k < arity; ++k) s[k] = is_buffer[k] ? b++ : v++;
        return s;
    }();
    /// value_param[j]: the parameter index of the j-th value.
    static constexpr std::array<std::size_t, values> value_param = [] {
        std::array<std::size_t, values> p{};
        std::size_t v = 0;
        for (std::size_t k = 0; k < arity; ++k)
            if (!is_buffer[k]) p[v++] = k;
        return p;
    }();
    using Values = decltype(std::tuple_cat(
        std::declval<
            std::conditional_t<is_buffer_param_v<Params>, std::tuple<>, std::tuple<Params>>>()...));
    using Param = std::tuple<Params...>;

    /// The argument for parameter K, rebuilt from the buffers and the value tuple.
    template <std::size_t K> static std::tuple_element_t<K, Param> arg(KernelArgs const& a)
    {
        using P = std::tuple_element_t<K, Param>;
        if constexpr (is_span_v<P>) {
            uint32_t first = a.groups[slot[K]], last = a.groups[slot[K] + 1];
            return P(a.buffers + first, last - first);
        } else if constexpr (is_view_v<P>) {
            BufferSlot const& b = a.buffers[has_spans ? a.groups[slot[K]] : slot[K]];
            return view_of<P>(b.ptr, *b.layout);
        } else {
            return std::get<slot[K]>(*static_cast<Values*>(a.values));
        }
    }
};

template <class... Params> struct CodeletOpsFor {
    using Cl = Codelet<Params...>;
    using Sig = Signature<Params...>;
    static Cl const& cl(void const* p) { return *static_cast<Cl const*>(p); }

    template <class F, std::size_t... K>
    static decltype(auto) apply(F&& f, KernelArgs const& a, std::index_sequence<K...>)
    {
        return std::forward<F>(f)(Sig::template arg<K>(a)...);
    }
    static constexpr auto seq = std::index_sequence_for<Params...>{};

    static std::string_view name(void const* p) { return cl(p).name; }
    static unsigned implementations(void const* p, Arch a)
    {
        Cl const& c = cl(p);
        if (!contains(c.where, a)) return 0;
        switch (a) {
        case Arch::cpu:
            return c.cpu.count;
        case Arch::cuda:
            return c.cuda.count;
        case Arch::emu:
            return c.emu.count ? c.emu.count : c.cpu.count;
        }
        return 0;
    }
    static bool can_execute(void const* p, Arch arch, unsigned impl, KernelArgs const& a)
    {
        auto pred = cl(p).can_execute;
        if (!pred) return true;
        return apply([&](auto&&... x) { return pred(arch, impl, x...); }, a, seq);
    }
    static void run(void const* p, Arch arch, unsigned impl, KernelArgs const& a)
    {
        Cl const& c = cl(p);
        switch (arch) {
        case Arch::cpu:
            apply(c.cpu[impl], a, seq);
            break;
        case Arch::emu:
            apply(c.emu.count ? c.emu[impl] : c.cpu[impl], a, seq);
            break;
        case Arch::cuda:
            apply([&](auto&&... x) { c.cuda[impl](*a.cuda, x...); }, a, seq);
            break;
        }
    }
    static double flops(void const* p, KernelArgs const& a)
    {
        auto f = cl(p).flops;
        return f ? apply(f, a, seq) : -1.0;
    }
    static PerfModel const* model(void const* p) { return cl(p).model; }
    static ParallelKind parallel(void const* p, unsigned* max)
    {
        *max = cl(p).max_parallelism;
        return cl(p).type;
    }

    static constexpr CodeletOps ops{&name,  &implementations, &can_execute, &run,
                                    &flops, &model,           &parallel};
};

}  // namespace detail
}  // namespace tessera::rt
