// The split of a tile row's transforms (split_rows.hpp) without its permutation, for the
// out-of-place 2D transforms: stage 1 writes its columns in the split's digit-reversed
// order, which costs it nothing, and stage 2 then leaves its result in natural order.
//
// For n = n1 n2, column k2 + n2 k1 of the digit-reversed order holds natural column
// k1 + n1 k2. From there (k = k1 + n1 k2, f = f2 + n2 f1):
//
//     X(f2 + n2 f1) = sum_k1 w_n1^(k1 f1) [ w_n^(k1 f2) sum_k2 w_n2^(k2 f2) x(k1 + n1 k2) ]
//
// 1. for each k1, the n2-point DFTs of the n2 adjacent columns n2 k1 + k2, then column
//    n2 k1 + f2 times w_n^(k1 f2), while still in cache;
// 2. for each f2, the n1-point DFTs of the columns f2 + n2 k1 (stride n2 ld): X(f2 + n2 f1)
//    lands in column f2 + n2 f1, its natural place.
//
// Two reads and writes of the tile row where the split in place needs three (its third is
// the permutation). Internal.
#pragma once

#include "fft/kernels/cpu/split_rows.hpp"  // ColumnFinish
#include "fft/kernels/cpu/tile_fft.hpp"

#include <complex>
#include <cstdint>
#include <span>

namespace tessera::fft::kernels::cpu {

/// The natural column that column d of the digit-reversed order of n1 x (n / n1) holds; also
/// the column where rows_c2c_split_unpermuted leaves X(d).
constexpr int64_t digit_reversed_source(int64_t d, int64_t n1, int64_t n2) noexcept
{
    return d / n2 + n1 * (d % n2);
}

/// Stage 1 into the digit-reversed order: the tiles of `out` stacked (one tile column of m
/// rows, its first column d0 of the whole n-column matrix) receive, in column d, the m-point
/// DFT of column digit_reversed_source(d, n1, n / n1) of `in` (m x n at `in`, leading
/// dimension ldi, another array than out's). Complex (sign -1 or +1, unnormalized).
template <class R>
void columns_c2c_digit_reversed(std::complex<R> const* in, int64_t ldi,
                                std::span<TilePiece<std::complex<R>> const> out, int64_t d0,
                                int64_t n, int64_t n1, int sign);

/// The same for real columns of m points (`in` m x n reals) and their half-spectra (`out`'s
/// tiles (m/2 + 1) rows in all).
template <class R>
void columns_r2c_digit_reversed(int64_t m, R const* in, int64_t ldi,
                                std::span<TilePiece<std::complex<R>> const> out, int64_t d0,
                                int64_t n, int64_t n1);

/// The inverse of columns_r2c_digit_reversed, for the half-spectra that
/// rows_c2c_split_unpermuted (split_rows.hpp) leaves: column d of `out` (the tiles of one tile
/// column, m reals each, its first column d0 of n) receives the m-point real backward DFT
/// (unnormalized) of the half-spectrum (m/2 + 1 elements) in column
/// digit_reversed_source(d, n1, n / n1) of `in`, which is left as it was: each column goes
/// through a buffer in cache, where FFTW's real backward transforms may overwrite it.
template <class R>
void columns_c2r_digit_reversed(int64_t m, std::complex<R> const* in, int64_t ldi,
                                std::span<TilePiece<R> const> out, int64_t d0, int64_t n,
                                int64_t n1);

/// Stage 2 from the digit-reversed order: rows r < h of a (a[r + c ld], c < n), whose
/// columns come in the digit-reversed order of n1 x (n / n1), replaced by their n-point DFTs
/// in natural order. Any h; n1 a divisor of n with n1 ld and (n / n1) ld within int.
template <class R>
void rows_c2c_digit_reversed(std::complex<R>* a, int64_t h, int64_t n, int64_t ld, int sign,
                             int64_t n1);

/// The split of rows r < h of `from` (natural order, another array than a) into a, with no
/// permutation: each group of pass 1's columns is copied into its digit-reversed place in a
/// as pass 1 reaches it, then the passes above leave the DFTs in natural order, and
/// `finish` runs on each column of a as pass 2 leaves it, while it is in cache.
template <class R>
void rows_c2c_split_copied(std::complex<R> const* from, int64_t ld_from, std::complex<R>* a,
                           int64_t h, int64_t n, int64_t ld, int sign, int64_t n1,
                           ColumnFinish<R> const& finish);

}  // namespace tessera::fft::kernels::cpu
