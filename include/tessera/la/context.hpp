/// @file context.hpp
/// The runtime behind the LAPACK-style and C APIs. It starts on the first call (with the
/// TESSERA_* environment variables: TESSERA_NCPU, TESSERA_SCHED, TESSERA_NEMU ...) or at
/// init(), and stops at finalize() or at exit. Tile-API calls use the runtime of their
/// matrices instead. Inside tasks OpenBLAS runs single-threaded (the runtime owns the cores):
/// Tessera sets openblas_set_num_threads(1) while a call runs (while a Sequence lives), and
/// gives OpenBLAS its thread count back after.
///
///     tessera::init({.scheduler = "ws"});              // optional
///     int64_t info = tessera::potrf(Uplo::lower, n, a, lda);
///     tessera::finalize();                              // optional
#pragma once

#include <tessera/rt/runtime.hpp>

#include <cstdint>

namespace tessera::inline la {

/// Starts the library's runtime with `config`. Throws InvalidArgument if it is already
/// running (finalize() first) or the configuration is bad.
void init(rt::RuntimeConfig config = {});
/// Waits for the LAPACK-style and C calls running on other threads (calls made meanwhile wait
/// for it), then for the runtime's tasks, and stops it (a no-op when not started). A later
/// call starts it again. A reference from runtime() must not be used after it.
void finalize() noexcept;
/// True while the library's runtime is running.
bool initialized() noexcept;
/// The library's runtime, started with the default configuration if need be.
rt::Runtime& runtime();

/// The routines whose tile size is tuned separately.
enum class Routine : uint8_t {
    gemm,
    symm,
    syrk,
    trsm,
    trmm,
    potrf,
    potrs,
    posv,
    potri,
    getrf,
    getrs,
    gesv,
    getri,
    geqrf
};

/// Sets the tile size of the LAPACK-style and C calls (0: automatic, the default).
void set_tile_size(int64_t nb);
/// True when set_tile_size has fixed the tile size (not 0).
bool tile_size_is_set() noexcept;
/// The tile size a LAPACK-style call of `routine` on order-n matrices of precision
/// `precision` ('s', 'd', 'c', 'z') uses: the one set by set_tile_size, or else the one
/// measured best on this kind of machine for that size (see docs/tile-size.md).
int64_t tile_size(Routine routine, char precision, int64_t n);
/// The same for an m x n matrix: tile_size at order min(m, n), except that getrf (n <= 200)
/// and geqrf (n <= 256) give a tall and narrow matrix (m >= 4 n) one tile column, factored as
/// one panel task by every core.
int64_t tile_size(Routine routine, char precision, int64_t m, int64_t n);
/// The smallest automatic tile size of the tile algorithms when the runtime has GPUs (gemm
/// excepted, whose tiles are whole panels), for orders of at least 3 such tiles.
inline constexpr int64_t gpu_min_tile_size = 960;

}  // namespace tessera::inline la
