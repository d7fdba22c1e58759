// How the drop-in runs a call that Tessera serves: LAPACK's own argument checks first (a bad
// argument goes to xerbla_ as LAPACK's routine would report it), then Tessera's LAPACK-style
// routine. Internal to libtessera_lapack.
#pragma once

#include "linalg/dropin/entry.hpp"
#include "linalg/dropin/gate.hpp"

#include <tessera/error.hpp>
#include <tessera/la/enums.hpp>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <type_traits>

/// An exported BLAS or LAPACK symbol (the library's other symbols are hidden).
#define TESSERA_DROPIN_EXPORT extern "C" __attribute__((visibility("default")))
#define TESSERA_DROPIN_UNPAREN(...) __VA_ARGS__

/// Defines the exported `symbol` of `routine`, with the parameters `params` and their names
/// `args` (both parenthesized): when `forwards<...> dims` (the call's m, n, k) says it is below
/// the crossover, it tail-calls the next library's symbol, a few instructions with no frame of
/// its own; otherwise it calls `symbol`served out of line, which runs the statement `body`
/// with `entry` (the symbol's Entry), the parameters and `forward()` in scope. The precision is
/// the symbol's first letter (dgemm_); TESSERA_DROPIN_SYMBOL_OF names it (cblas_dgemm).
#define TESSERA_DROPIN_SYMBOL(symbol, routine, params, args, dims, body)                           \
    TESSERA_DROPIN_SYMBOL_OF(symbol, #symbol[0], routine, params, args, dims, body)
#define TESSERA_DROPIN_SYMBOL_OF(symbol, letter, routine, params, args, dims, body)                \
    TESSERA_DROPIN_EXPORT void symbol(TESSERA_DROPIN_UNPAREN params) noexcept;                     \
    namespace {                                                                                    \
    constinit ::tessera::dropin::Entry symbol##entry{#symbol, ::tessera::dropin::Routine::routine, \
                                                     ::tessera::dropin::precision_index(letter)};  \
    }                                                                                              \
    TESSERA_DROPIN_SERVED(symbol, params, args, body)                                              \
    TESSERA_DROPIN_EXPORT void symbol(                                                             \
        TESSERA_DROPIN_UNPAREN params) noexcept TESSERA_DROPIN_FAST_PATH(symbol, letter, routine,  \
                                                                         args, dims)

/// `symbol`served: the call run by Tessera, out of line (TESSERA_DROPIN_SYMBOL).
#define TESSERA_DROPIN_SERVED(symbol, params, args, body)                                          \
    namespace {                                                                                    \
    [[gnu::noinline]] void symbol##served(TESSERA_DROPIN_UNPAREN params) noexcept                  \
    {                                                                                              \
        auto& entry = symbol##entry;                                                               \
        auto forward = [&] { entry.forward<decltype(symbol)>(TESSERA_DROPIN_UNPAREN args); };      \
        TESSERA_DROPIN_UNPAREN body;                                                               \
    }                                                                                              \
    }

/// The body of an exported symbol: the tail call below the crossover, else `symbol`served.
#define TESSERA_DROPIN_FAST_PATH(symbol, letter, routine, args, dims)                              \
    {                                                                                              \
        if (::tessera::dropin::forwards<::tessera::dropin::Routine::routine,                       \
                                        ::tessera::dropin::precision_index(letter)>                \
                dims) [[likely]]                                                                   \
            return symbol##entry.forward<decltype(symbol)>(TESSERA_DROPIN_UNPAREN args);           \
        return symbol##served(TESSERA_DROPIN_UNPAREN args);                                        \
    }

#if TESSERA_DROPIN_HAS_GATES
/// TESSERA_DROPIN_SYMBOL for a symbol with gemm's arguments, whose fast path is the assembly
/// gate of gate.hpp; the C++ fast path becomes the gate's fallback, tessera_dropin_slow_<symbol>.
/// `volume_offset` is the byte offset of the symbol's crossover in crossover_volumes, a
/// literal for the assembler (checked).
#define TESSERA_DROPIN_GATED_SYMBOL(symbol, routine, volume_offset, params, args, dims, body)      \
    TESSERA_DROPIN_EXPORT void symbol(TESSERA_DROPIN_UNPAREN params) noexcept;                     \
    static_assert(volume_offset ==                                                                 \
                      sizeof(double) * (4 * int(::tessera::dropin::Routine::routine) +             \
                                        ::tessera::dropin::precision_index(#symbol[0])),           \
                  "the gate reads another crossover than the symbol's");                           \
    constinit ::tessera::dropin::Entry symbol##entry __asm__("tessera_dropin_entry_" #symbol){     \
        #symbol, ::tessera::dropin::Routine::routine,                                              \
        ::tessera::dropin::precision_index(#symbol[0])};                                           \
    TESSERA_DROPIN_SERVED(symbol, params, args, body)                                              \
    extern "C" [[gnu::used]] void tessera_dropin_slow_##symbol(                                    \
        TESSERA_DROPIN_UNPAREN params) noexcept TESSERA_DROPIN_FAST_PATH(symbol, #symbol[0],       \
                                                                         routine, args, dims)      \
        TESSERA_DROPIN_GATE(symbol, volume_offset)
#else
#define TESSERA_DROPIN_GATED_SYMBOL(symbol, routine, volume_offset, params, args, dims, body)      \
    TESSERA_DROPIN_SYMBOL(symbol, routine, params, args, dims, body)
#endif

extern "C" void xerbla_(char const* name, int const* info, std::size_t name_length);

namespace tessera::dropin {

using cfloat = std::complex<float>;    // Fortran's COMPLEX
using cdouble = std::complex<double>;  // and COMPLEX*16

template <class T>
inline constexpr bool is_complex = !std::is_same_v<T, float> && !std::is_same_v<T, double>;

/// LAPACK's LSAME: the option letter (upper case), either case; ASCII, as LAPACK's.
inline bool lsame(char const* option, char letter) noexcept
{
    const char c = *option;
    return c == letter || c == letter + ('a' - 'A');
}
inline int max1(int n) noexcept
{
    return std::max(1, n);
}

/// Reports bad argument `position` through xerbla_, the one the program sees first (its
/// own, as LAPACK's test suite defines, else its LAPACK's): LAPACK's name ("DPOTRF").
void report_bad_argument(Entry const& entry, int position) noexcept;
/// A failure that is neither an argument nor a numerical one (out of memory, a device
/// error), on stderr: LAPACK has no info for it. Returns TESSERA_ERROR (-1000) as info.
int report_failure(Entry const& entry, char const* what) noexcept;

inline Uplo uplo_of(char const* c) noexcept
{
    return lsame(c, 'U') ? Uplo::upper : Uplo::lower;
}
inline Side side_of(char const* c) noexcept
{
    return lsame(c, 'L') ? Side::left : Side::right;
}
inline Diag diag_of(char const* c) noexcept
{
    return lsame(c, 'U') ? Diag::unit : Diag::nonunit;
}
/// 'N', 'T', 'C' as an Op: 'C' is 'T' for the real types, as in BLAS.
template <class T> Op op_of(char const* c) noexcept
{
    if (lsame(c, 'N')) return Op::notrans;
    return lsame(c, 'T') || !is_complex<T> ? Op::trans : Op::conjtrans;
}
inline bool is_uplo(char const* c) noexcept
{
    return lsame(c, 'U') || lsame(c, 'L');
}
inline bool is_side(char const* c) noexcept
{
    return lsame(c, 'L') || lsame(c, 'R');
}
inline bool is_diag(char const* c) noexcept
{
    return lsame(c, 'U') || lsame(c, 'N');
}
inline bool is_op(char const* c) noexcept
{
    return lsame(c, 'N') || lsame(c, 'T') || lsame(c, 'C');
}
/// Q or Q^H for ormqr/unmqr, ormlq/unmlq, gels: 'T' for the real types, 'C' for complex.
template <class T> bool is_q_op(char const* c) noexcept
{
    return lsame(c, 'N') || lsame(c, is_complex<T> ? 'C' : 'T');
}

/// run()'s value when the next library ran the call and stored its own info.
inline constexpr int info_stored = 1 << 30;
inline void store_info(int* info, int value) noexcept
{
    if (value != info_stored) *info = value;
}

/// Runs a call that Tessera serves. `bad_position` is LAPACK's first bad argument (0: none).
/// `tessera()` returns LAPACK's info (or nothing, for BLAS). If Tessera refuses an input that
/// LAPACK accepts (it checks more, before touching any data), `forward()` runs the call in the
/// next library instead. Returns the info to store (0 for BLAS).
template <class Tessera, class Forward>
int run(Entry const& entry, int bad_position, Tessera&& tessera, Forward&& forward) noexcept
{
    if (bad_position) {
        report_bad_argument(entry, bad_position);
        return -bad_position;
    }
    try {
        if constexpr (std::is_void_v<decltype(tessera())>) {
            tessera();
            return 0;
        } else {
            return int(tessera());
        }
    } catch (InvalidArgument const&) {
        forward();
        return info_stored;
    } catch (std::exception const& e) {
        return report_failure(entry, e.what());
    } catch (...) {
        return report_failure(entry, "unknown exception");
    }
}
}  // namespace tessera::dropin
