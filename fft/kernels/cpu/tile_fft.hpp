// The two stages of a 2D transform on tiles, without the runtime. The transform of an m x n
// column-major matrix (the n0 x n1 row-major array of FFTW's interface is the n1 x n0
// column-major one) is m-point transforms down its columns, then n-point transforms along
// its rows:
//
//     stage 1, a tile column:        stage 2, a tile row:
//     +---+                          +---+---+---+
//     | | |  down the columns,       |-------->  |  along the rows,
//     | | |  contiguous              +---+---+---+  stride ld
//     | v |
//     +---+
//
// Where the tiles are pieces of one array (LAPACK-style calls: tiles wrapped in place) a
// stage is one FFTW call over the whole tile column, and over a tile row its transforms are
// split across the columns where that pays (split_rows.hpp); where they are apart (tile
// storage, a device's copies) it gathers a few columns or rows into a buffer that stays in
// cache, transforms them there and scatters them back. Internal.
#pragma once

#include <complex>
#include <cstdint>
#include <span>

namespace tessera::fft::kernels::cpu {

/// A tile as the kernels see it: m x n, column-major with leading dimension ld.
template <class T> struct TilePiece {
    T* ptr;
    int64_t m, n, ld;
};

/// Stage 1 of a complex transform: the tiles of `out` stacked vertically (one tile column, of
/// m rows in all) receive the m-point DFTs (sign -1 forward, +1 backward, unnormalized) of the
/// columns of `in`, tiled alike; `in` may be `out` itself (in place).
template <class R>
void columns_c2c(std::span<TilePiece<std::complex<R> const> const> in,
                 std::span<TilePiece<std::complex<R>> const> out, int sign);

/// Stage 2: the tiles side by side (one tile row, n columns in all), in place: each row
/// replaced by its n-point DFT.
template <class R> void rows_c2c(std::span<TilePiece<std::complex<R>> const> row, int sign);

/// Stage 1 of a real transform: the m-point real columns of `in` (m x w) to their m/2 + 1
/// nonnegative frequencies in `out` ((m/2 + 1) x w). With `in` empty, in place: column j's m
/// reals are the first m of the bytes of column j of `out` (FFTW's padded in-place layout).
template <class R>
void columns_r2c(int64_t m, std::span<TilePiece<R const> const> in,
                 std::span<TilePiece<std::complex<R>> const> out);

/// The inverse of columns_r2c (backward, unnormalized): the half-spectra of `in`
/// ((m/2 + 1) x w) to m reals in `out`; `in` is destroyed, as FFTW's c2r destroys its input.
/// With `out` empty, in place: the m reals go to the first m of the bytes of each column of
/// `in`.
template <class R>
void columns_c2r(int64_t m, std::span<TilePiece<std::complex<R>> const> in,
                 std::span<TilePiece<R> const> out);

}  // namespace tessera::fft::kernels::cpu
